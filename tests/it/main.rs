//! The one integration-test binary: the real `converge` binary against the real sandbox.
//! One module per area.

mod common;
mod plan;
mod preview;
mod sandbox;
mod transport;
mod validate;
