//! The live state a config needs, read with the fewest requests (by lists, never object by
//! object where a list exists).

pub(crate) mod model;
pub(crate) mod progress;
pub mod reader;

pub use model::{Lists, LiveState, ReadScope, StackLive};
