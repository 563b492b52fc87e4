//! One module per subcommand; each gets its parsed flags and the printer. `crate::cli` picks
//! the one to run: nothing here knows the command line as a whole.

pub(crate) mod apply;
pub(crate) mod completions;
pub mod connect;
pub(crate) mod drift;
pub(crate) mod export;
pub(crate) mod flags;
pub mod plan;
pub(crate) mod policy;
pub(crate) mod preview;
mod reporter;
pub(crate) mod sandbox;
pub(crate) mod saved_plan;
pub(crate) mod schema;
pub(crate) mod session;
pub(crate) mod show;
pub(crate) mod validate;
