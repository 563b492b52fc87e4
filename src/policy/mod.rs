//! Policy as code: a team's rules in Rego (OPA's language), evaluated in process by `regorus`
//! on a documented input (`input.rs`, `schema/policy-input.schema.json`): the config's objects
//! with their place, the plan field by field, the live objects read. A rule `deny` fails the
//! plan, a rule `warn` is shown; each is a set of `{msg, address[, field]}` objects, reported
//! at the config line of the object or field it names (`findings.rs`). Errors of the rules
//! themselves (syntax, an undefined name, a run past the time bound) are diagnostics at the
//! `.rego` file's line (`engine.rs`). No I/O but reading the policy files.

mod engine;
mod findings;
pub(crate) mod input;
mod set;

pub(crate) use engine::evaluate;
pub(crate) use findings::{Rule, diagnostics, warnings};
pub(crate) use set::{BUILTIN, PolicySet, Spec, load};

/// The input's JSON Schema (`converge schema --policy-input`).
pub(crate) const INPUT_SCHEMA: &str = include_str!("../../schema/policy-input.schema.json");
