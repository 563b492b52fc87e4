//! Talking to the two APIs: wire types shared with the sandbox, the contract's limits, the
//! transport (auth, pacing, retries, error bodies), the two typed clients, and the trait
//! through which they report progress and waits to whoever shows them.

pub(crate) mod activity;
pub mod clients;
pub mod cloud;
pub mod error;
pub(crate) mod limits;
pub mod observability;
#[cfg(test)]
pub(crate) mod reference;
pub mod report;
pub(crate) mod stack;
pub mod transport;
pub mod wire;
