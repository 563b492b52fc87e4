//! One module per subcommand; each gets its parsed flags and the printer. `crate::cli` picks
//! the one to run: nothing here knows the command line as a whole.

pub mod apply;
pub mod completions;
pub mod connect;
pub mod drift;
pub mod export;
pub mod flags;
pub mod plan;
pub mod preview;
pub mod sandbox;
pub mod schema;
pub mod session;
pub mod show;
pub mod validate;
