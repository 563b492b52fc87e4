//! The schema cut where a mapping holds many entries of one shape (services, stacks, a
//! service's pipes, a stack's dashboards and alerts): each part validates its value with those
//! entries left out, and each entry is validated on its own. The JSON the validator reads is then
//! never more than one entry's, instead of a second copy of the whole tree beside it; the
//! errors are the same, since no keyword of the schema looks across entries.
//!
//! The cut is made once, in one copy of the schema: each cut entries schema moves to a `$defs`
//! entry of its own and leaves `true` behind. That one document is checked against the
//! meta-schema and indexed once; each part's validator is then a `$ref` into it. Compiling each
//! part from a document of its own (the part plus a copy of every `$defs`) checked and indexed
//! the whole schema once per part, seventeen times a run, and cloned its maps as often.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::Value;

use super::yaml::{Kind, Node};

/// The JSON Schema of the config format, as shipped in `schema/converge.schema.json`.
pub const SCHEMA: &str = include_str!("../../schema/converge.schema.json");

/// The `$defs` names the cut entries schemas move to (no name of the schema starts so).
const CUT_PREFIX: &str = "converge-cut-";

/// The schema as written, parsed once.
pub(crate) fn schema_value() -> Option<&'static Value> {
    static PARSED: OnceLock<Option<Value>> = OnceLock::new();
    PARSED
        .get_or_init(|| serde_json::from_str(SCHEMA).ok())
        .as_ref()
}

/// One part: its validator, compiled when a value first needs it (a config without templates
/// never compiles theirs), and the properties whose entries are validated apart.
pub(crate) struct Part {
    /// The reference to the part's schema in the cut document.
    reference: String,
    registry: &'static jsonschema::Registry<'static>,
    validator: OnceLock<Option<jsonschema::Validator>>,
    /// The properties whose entries are validated apart, each with how its entries are.
    pub(crate) apart: Vec<(String, Entries)>,
}

impl Part {
    /// The part's validator, `None` when its schema does not compile (a bug in converge).
    pub(crate) fn validator(&self) -> Option<&jsonschema::Validator> {
        self.validator
            .get_or_init(|| {
                jsonschema::options()
                    .with_draft(jsonschema::Draft::Draft202012)
                    .with_registry(self.registry)
                    .build(&serde_json::json!({ "$ref": self.reference }))
                    .ok()
            })
            .as_ref()
    }
}

/// How the entries of a mapping cut from its part are validated; parts are indexes into
/// [`Parts`], so a part reached from two places (a stack's and a dashboard's instances) is
/// compiled once.
pub(crate) enum Entries {
    /// Each entry against one part.
    One(usize),
    /// Each entry against one of two parts, chosen as the schema's `if: {required: [...]}`
    /// chooses (a stack, a dashboard or an alert written as a template's instances, or as
    /// itself): cutting only lone references would leave each whole stack, every dashboard,
    /// tile and alert of it, one JSON value.
    Choice {
        /// The keys `if` requires.
        required: Vec<String>,
        /// The part of an entry `if` holds for.
        then: usize,
        /// The part of any other entry.
        otherwise: usize,
    },
}

/// Every part of the cut schema; the root's is the first.
pub(crate) struct Parts {
    parts: Vec<Part>,
}

impl Parts {
    /// The root's part.
    pub(crate) fn root(&self) -> Option<&Part> {
        self.parts.first()
    }

    /// The part validating `entry`, one of the entries `entries` describes.
    pub(crate) fn part_for(&self, entries: &Entries, entry: &Node) -> Option<&Part> {
        let index = match entries {
            Entries::One(part) => *part,
            Entries::Choice {
                required,
                then,
                otherwise,
            } => {
                // `required` holds of anything that is not an object (JSON Schema), so only a
                // mapping missing a required key takes the `else` branch.
                let holds = match &entry.kind {
                    Kind::Map(_) => required.iter().all(|name| entry.get(name).is_some()),
                    _ => true,
                };
                if holds { *then } else { *otherwise }
            }
        };
        self.parts.get(index)
    }
}

/// The parts, compiled on first use.
pub(crate) fn parts() -> Option<&'static Parts> {
    static PARTS: OnceLock<Option<Parts>> = OnceLock::new();
    PARTS.get_or_init(compile).as_ref()
}

/// A part before its validator: the pointer of its schema in the cut document.
struct Plan {
    pointer: String,
    apart: Vec<(String, Entries)>,
}

/// The cut document, the parts' plans and where each schema pointer's part is.
struct Cutter {
    document: Value,
    plans: Vec<Plan>,
    seen: HashMap<String, usize>,
    moved: usize,
}

fn compile() -> Option<Parts> {
    // The registry borrows the cut document for the rest of the run.
    static DOCUMENT: OnceLock<Value> = OnceLock::new();
    static REGISTRY: OnceLock<Option<jsonschema::Registry<'static>>> = OnceLock::new();
    let mut cutter = Cutter {
        document: schema_value()?.clone(),
        plans: Vec::new(),
        seen: HashMap::new(),
        moved: 0,
    };
    cutter.part("")?;
    let Cutter {
        document, plans, ..
    } = cutter;
    let document = DOCUMENT.get_or_init(|| document);
    let id = document.get("$id").and_then(Value::as_str)?;
    let registry = REGISTRY
        .get_or_init(|| {
            jsonschema::Registry::new()
                .draft(jsonschema::Draft::Draft202012)
                .add(id, document)
                .ok()?
                .prepare()
                .ok()
        })
        .as_ref()?;
    let parts = plans.into_iter().map(|plan| Part {
        reference: format!("{id}#{}", plan.pointer),
        registry,
        validator: OnceLock::new(),
        apart: plan.apart,
    });
    Some(Parts {
        parts: parts.collect(),
    })
}

impl Cutter {
    /// The part of the schema at `at` (a pointer in the document), cut and planned once.
    fn part(&mut self, at: &str) -> Option<usize> {
        // A lone reference is cut where it points, so a stack's dashboards are cut too.
        let schema = self.document.pointer(at)?;
        let lone_ref = schema
            .as_object()
            .filter(|o| o.len() == 1)
            .and_then(|o| o.get("$ref"))
            .and_then(Value::as_str);
        let target = match lone_ref {
            Some(reference) => reference.strip_prefix('#')?.to_string(),
            None => at.to_string(),
        };
        if let Some(&index) = self.seen.get(&target) {
            return Some(index);
        }
        let index = self.plans.len();
        self.seen.insert(target.clone(), index);
        self.plans.push(Plan {
            pointer: target.clone(),
            apart: Vec::new(),
        });
        let mut cut = Vec::new();
        if let Some(properties) = self
            .document
            .pointer_mut(&target)
            .and_then(|schema| schema.get_mut("properties"))
            .and_then(Value::as_object_mut)
        {
            for (name, property) in properties.iter_mut() {
                let Some(entries) = property.get_mut("additionalProperties") else {
                    continue;
                };
                if entries.is_object() {
                    cut.push((name.clone(), std::mem::replace(entries, Value::Bool(true))));
                }
            }
        }
        let mut apart = Vec::with_capacity(cut.len());
        for (name, entries) in cut {
            let moved = format!("{CUT_PREFIX}{}", self.moved);
            self.moved += 1;
            let choice = required_choice(&entries);
            self.document
                .get_mut("$defs")?
                .as_object_mut()?
                .insert(moved.clone(), entries);
            let at = format!("/$defs/{moved}");
            let entries = match choice {
                None => Entries::One(self.part(&at)?),
                Some(required) => Entries::Choice {
                    required,
                    then: self.part(&format!("{at}/then"))?,
                    otherwise: self.part(&format!("{at}/else"))?,
                },
            };
            apart.push((name, entries));
        }
        self.plans.get_mut(index)?.apart = apart;
        Some(index)
    }
}

/// The keys `if` requires, when `at` is only an `if` that requires keys and its two branches.
fn required_choice(at: &Value) -> Option<Vec<String>> {
    let object = at.as_object().filter(|o| o.len() == 3)?;
    let condition = object.get("if")?.as_object().filter(|o| o.len() == 1)?;
    object.get("then")?;
    object.get("else")?;
    condition
        .get("required")?
        .as_array()?
        .iter()
        .map(|name| name.as_str().map(str::to_string))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The runtime no longer checks the schema against the meta-schema (the cut document is
    /// indexed without it), so this does.
    #[test]
    fn the_embedded_schema_is_valid_draft_2020_12() {
        let schema = schema_value().expect("the schema parses");
        assert!(jsonschema::meta::is_valid(schema));
    }

    /// Parts compile only when a value needs them, so a config without templates would not
    /// notice one that does not compile: compile them all here. A part reached from several
    /// places (the instances of stacks, dashboards and alerts) is one part.
    #[test]
    fn every_part_compiles_and_each_schema_is_one_part() {
        let parts = parts().expect("the schema cuts");
        for part in &parts.parts {
            assert!(
                part.validator().is_some(),
                "{} does not compile",
                part.reference
            );
        }
        let mut references: Vec<&str> = parts.parts.iter().map(|p| &*p.reference).collect();
        references.sort_unstable();
        references.dedup();
        assert_eq!(references.len(), parts.parts.len());
        assert!(references.iter().any(|r| r.ends_with("#/$defs/instances")));
    }
}
