//! Talking to the two APIs: wire types shared with the sandbox, the contract's limits, and
//! (later) the transport and the two clients.

pub mod limits;
pub mod wire;
