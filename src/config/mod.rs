//! The configuration layer: files and directories, YAML with spans, `${env:...}` interpolation,
//! the JSON Schema check, semantic rules, and the typed desired state.

pub mod diagnostic;
pub mod model;

/// The JSON Schema of the config format, as shipped in `schema/converge.schema.json`.
pub const SCHEMA: &str = include_str!("../../schema/converge.schema.json");
