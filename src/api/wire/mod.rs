//! Wire types of both APIs, shared by the client and the sandbox.
//!
//! Reading is tolerant, as the real services demand: unknown fields are ignored, missing fields
//! are `None` or empty, and numbers that arrive as strings (`"12"`, `"500m"`, `"2Gi"`) are
//! accepted. Writing skips absent fields. Shapes follow `api-contract.md`; where it says "not
//! shown", `api-facts.md` and the reference OpenAPI documents.

mod alert;
mod backup;
mod compact;
mod dashboard;
pub(crate) mod lenient;
pub(crate) mod number;
mod pipe;
mod reverse_endpoint;
mod saved_search;
mod secret;
mod series;
mod service;
mod source;
#[cfg(test)]
mod tests;
mod webhook;

pub use alert::*;
pub use backup::*;
pub use compact::*;
pub use dashboard::*;
pub use pipe::*;
pub use reverse_endpoint::*;
pub use saved_search::*;
pub use secret::*;
pub use series::*;
pub use service::*;
pub use source::*;
pub use webhook::*;
