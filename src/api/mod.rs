//! Talking to the two APIs: wire types shared with the sandbox, the contract's limits, the
//! transport (auth, pacing, retries, error bodies) and the two typed clients.

pub mod activity;
pub mod clients;
pub mod cloud;
pub mod error;
pub mod limits;
pub mod observability;
pub mod stack;
pub mod transport;
pub mod wire;

pub use error::{ApiError, FailureKind};
