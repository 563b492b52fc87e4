//! The kinds of object a plan writes, one file each: its operations (what a step sends, as the
//! saved plan stores them), and what each answers for the engine: the object it touches
//! (`target`), what it does to it (`effect`), what it is called (`name`) and how its request
//! body is built from a change's fields (shared by the planner and the saved-plan check).
//!
//! Planning a kind (config and live state to changes) is in `super::build`, one file per kind
//! too: it reads the plan model, which holds these operations, so it cannot share their file
//! without an import cycle.
//!
//! The kinds, one line each (`super::model::Operation` has one variant per line):

pub(crate) mod alert;
pub(crate) mod dashboard;
pub(crate) mod pipe;
pub(crate) mod private_endpoint;
pub(crate) mod service;
