//! The one integration-test binary: the real `converge` binary against the real sandbox.
//! One module per area.

mod apply;
mod common;
mod plan;
mod sandbox;
mod transport;
mod validate;
