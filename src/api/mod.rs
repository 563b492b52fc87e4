//! Talking to the two APIs: wire types shared with the sandbox, the contract's limits, the
//! transport (auth, pacing, retries, error bodies) and the two typed clients.

pub(crate) mod activity;
pub mod clients;
pub mod cloud;
pub mod error;
pub(crate) mod limits;
pub mod observability;
pub(crate) mod stack;
pub mod transport;
pub mod wire;
