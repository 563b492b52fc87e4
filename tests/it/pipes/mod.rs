//! Pipes through the binary against the sandbox: one module per part of a pipe's life.

mod cdc_compute;
mod compute;
mod credentials;
mod database;
mod end;
pub(crate) mod export;
mod gcp;
mod grouped;
mod lifecycle;
mod merge_job;
mod mongodb;
mod mysql;
mod patch;
mod paused;
mod rename;
mod reverse_endpoints;
pub(crate) mod state;
mod tamper;
mod twice;

pub(crate) use lifecycle::{CANARIES, analytics_with, assert_no_canary, declared_whole};
