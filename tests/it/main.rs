//! The one integration-test binary: the real `converge` binary against the real sandbox.
//! One module per area.

mod apply;
mod ci_kit;
mod common;
mod drift;
mod export;
mod globs;
mod help;
mod plan;
mod preview;
mod readme;
mod sandbox;
mod show;
mod soak;
mod transport;
mod validate;
