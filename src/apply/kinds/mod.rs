//! What apply does differently per kind of object, one file each: how a step of that kind is
//! sent (and, for alerts, what it looks up first). `super::send` picks the kind; reading an
//! object fresh, the check before a write and the wait for a create's copies ask the operation
//! (`target()`, `effect()`) and need no file here.
//!
//! The kinds, one line each:

pub(super) mod alert;
pub(super) mod dashboard;
pub(super) mod pipe;
pub(super) mod private_endpoint;
pub(super) mod service;
