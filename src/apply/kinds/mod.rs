//! What apply does differently per kind of object, one file each: how a step of that kind is
//! sent (a pipe's wake-up; for alerts, the dashboard and tile looked up first) and, for
//! scaling, when `--wait` sees it show. Each implements `super::sends::Sends`, which
//! `super::send` asks (`super::sends::of` is the one match naming every kind); reading an
//! object fresh and the check before a write ask the operation (`target()`, `effect()`) and
//! need no file here; the copies a create may leave are dashboards' and alerts' only (`super::duplicates`).
//!
//! The kinds, one line each:

pub(super) mod alert;
pub(super) mod dashboard;
pub(super) mod pipe;
pub(super) mod private_endpoint;
pub(super) mod reverse_endpoint;
pub(super) mod saved_search;
pub(super) mod service;
pub(super) mod source;
pub(super) mod webhook;
