//! The kinds of object a plan writes, one module each: planning it (config and live state to
//! changes and steps, through `super::build`'s `Builder`) in `<kind>.rs`, and what its steps
//! send in `<kind>/op.rs`: its operations as the saved plan stores them, and what each answers
//! for the engine: the object it touches (`target`), what it does to it (`effect`), what it is
//! called (`name`) and how its request body is built from a change's fields (shared by the
//! planner and the saved-plan check).
//!
//! The operations are a file of their own because the plan model (`super::model`), which the
//! planner reads, holds them: in one file with the planner they would import each other.
//!
//! The kinds, one line each (`super::model::Operation` has one variant per line):

pub(crate) mod alert;
pub(crate) mod dashboard;
pub(crate) mod pipe;
pub(crate) mod private_endpoint;
pub(crate) mod registry;
pub(crate) mod reverse_endpoint;
pub(crate) mod saved_search;
pub(crate) mod service;
pub(crate) mod source;
pub(crate) mod webhook;
