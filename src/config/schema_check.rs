//! The JSON Schema check: the merged tree becomes a `serde_json::Value` plus an index from JSON
//! pointer to [`Span`], the embedded schema (draft 2020-12, no network) validates it, and each
//! error's instance pointer is mapped back to the line it came from.

use std::collections::{HashMap, HashSet};

use jsonschema::error::ValidationErrorKind;
use serde_json::{Map, Value};

use super::yaml::{Key, Kind, Node, child_pointer};
use crate::diagnostic::{Code, Diagnostic, Span};

pub use super::schema_parts::SCHEMA;
use super::schema_parts::{Entries, Part, Parts, parts, schema_value};

/// Where a pointer's value and its key were written.
#[derive(Debug, Clone, Copy)]
struct Place {
    value: Span,
    key: Option<Span>,
}

/// Checks the merged tree against the schema. Errors on pointers in `unresolved` (strings still
/// holding an unset `${env:...}`) that concern the string's shape are left out: the value is
/// not known offline.
pub(crate) fn check(root: &Node, unresolved: &HashSet<String>, diags: &mut Vec<Diagnostic>) {
    let (Some(parts), Some(schema)) = (parts(), schema_value()) else {
        diags.push(schema_internal());
        return;
    };
    let Some(part) = parts.root() else {
        diags.push(schema_internal());
        return;
    };
    let mut check = Check {
        schema,
        parts,
        unresolved,
        index: Places::new(root),
        diags,
    };
    check.part(part, root, "");
}

/// The error of an embedded schema that does not compile.
fn schema_internal() -> Diagnostic {
    Diagnostic::error(
        Code::SchemaInternal,
        "the embedded JSON Schema does not compile; this is a bug in converge",
        None,
    )
}

/// One schema check under way: the schema, the tree's places and the diagnostics so far.
struct Check<'a, 'd> {
    schema: &'static Value,
    parts: &'static Parts,
    unresolved: &'a HashSet<String>,
    index: Places<'a>,
    diags: &'d mut Vec<Diagnostic>,
}

impl<'a> Check<'a, '_> {
    /// Validates `node`, written at `base`, against `part`, then each entry left out of it.
    fn part(&mut self, part: &'static Part, node: &'a Node, base: &str) {
        let value = shallow_json(node, &part.apart);
        let Some(validator) = part.validator() else {
            // Said once, however many values the part has.
            if !self.diags.iter().any(|d| d.code == Code::SchemaInternal) {
                self.diags.push(schema_internal());
            }
            return;
        };
        let errors: Vec<_> = validator.iter_errors(&value).collect();
        // A misspelt key is one mistake, not two: its "did you mean" stands for the required key
        // it misses, which is not reported again as missing.
        let misspelt: HashSet<(String, String)> = errors
            .iter()
            .filter_map(|error| match error.kind() {
                ValidationErrorKind::AdditionalProperties { unexpected } => {
                    let pointer = format!("{base}{}", error.instance_path().as_str());
                    let known = known_keys(schema_at(self.schema, &pointer));
                    let meant: Vec<_> = unexpected
                        .iter()
                        .filter_map(|name| closest(name, known.iter().copied()))
                        .map(|close| (pointer.clone(), close.to_string()))
                        .collect();
                    Some(meant)
                }
                _ => None,
            })
            .flatten()
            .collect();
        for error in &errors {
            let relative = error.instance_path().as_str();
            let pointer = format!("{base}{relative}");
            if let ValidationErrorKind::Required { property } = error.kind() {
                let name = property.as_str().unwrap_or_default().to_string();
                if misspelt.contains(&(pointer.clone(), name)) {
                    continue;
                }
            }
            self.error(error, &pointer, value.pointer(relative));
        }
        for (name, entries_part) in &part.apart {
            let Some(Kind::Map(entries)) = node.get(name).map(|n| &n.kind) else {
                continue;
            };
            let at = child_pointer(base, name);
            for (key, entry) in entries {
                let Some(entry_part) = self.parts.part_for(entries_part, entry) else {
                    continue;
                };
                self.part(entry_part, entry, &child_pointer(&at, &key.name));
            }
        }
    }

    /// The diagnostics of one error at `pointer`, whose value is `written`.
    fn error(
        &mut self,
        error: &jsonschema::ValidationError<'_>,
        pointer: &str,
        written: Option<&Value>,
    ) {
        let Some(place) = self.index.nearest(pointer) else {
            return;
        };
        let at = Offending {
            path: display_path(pointer),
            node_schema: schema_at(self.schema, pointer),
            written,
            found: describe(written),
            // Checked by the loader, never echoed.
            is_secret: super::secret_fields::is_secret_pointer(pointer),
            unresolved: self.unresolved.contains(pointer),
            place,
        };
        if let ValidationErrorKind::AdditionalProperties { unexpected } = error.kind() {
            for name in unexpected {
                let diag = unknown_key(&mut self.index, at.node_schema, pointer, &at.path, name);
                self.diags.push(diag);
            }
            return;
        }
        if let Some(diag) = at.diagnose(error) {
            self.diags.push(diag);
        }
    }
}

/// `node` as JSON, but the entries of the mappings under the `apart` properties as nulls: they
/// are validated on their own, and their keys stay for the keywords about names.
fn shallow_json(node: &Node, apart: &[(String, Entries)]) -> Value {
    let Kind::Map(entries) = &node.kind else {
        return node.to_json();
    };
    Value::Object(
        entries
            .iter()
            .map(|(key, value)| {
                let cut = apart.iter().any(|(name, _)| *name == key.name);
                let json = match &value.kind {
                    Kind::Map(inner) if cut => Value::Object(
                        inner
                            .iter()
                            .map(|(k, _)| (k.name.to_string(), Value::Null))
                            .collect::<Map<String, Value>>(),
                    ),
                    _ => value.to_json(),
                };
                (key.name.to_string(), json)
            })
            .collect::<Map<String, Value>>(),
    )
}

/// The value one schema error is about: where it was written, how it is named, what it is.
struct Offending<'a> {
    /// The pointer as a dotted path, as the user wrote the keys.
    path: String,
    place: Place,
    /// The schema of the value's place.
    node_schema: Option<&'a Value>,
    written: Option<&'a Value>,
    /// The written value in words (`the string "x"`, `a number`).
    found: String,
    is_secret: bool,
    /// A string still holding an unset `${env:...}`.
    unresolved: bool,
}

impl Offending<'_> {
    /// The diagnostic of `error`, or `None` when it is left to the loader or to the value the
    /// environment gives.
    fn diagnose(&self, error: &jsonschema::ValidationError<'_>) -> Option<Diagnostic> {
        let (path, found, place) = (&self.path, &self.found, self.place);
        let diag = match error.kind() {
            ValidationErrorKind::Required { property } => {
                self.missing(property.as_str().unwrap_or_default())
            }
            // A scalar secret is a literal: the loader reports it without echoing it.
            ValidationErrorKind::Type { .. }
                if self.is_secret
                    && self
                        .written
                        .is_some_and(|v| v.is_number() || v.is_boolean()) =>
            {
                return None;
            }
            ValidationErrorKind::Type { .. } => self.wrong_type(),
            ValidationErrorKind::Enum { options } => self.not_allowed(options),
            ValidationErrorKind::Constant { expected_value } => Diagnostic::error(
                Code::SchemaEnum,
                format!("`{path}` must be {expected_value}, not {found}"),
                Some(place.value),
            )
            .with_label(format!("expected {expected_value}"))
            .with_help(format!("write {expected_value} here")),
            ValidationErrorKind::Minimum { .. }
            | ValidationErrorKind::Maximum { .. }
            | ValidationErrorKind::ExclusiveMinimum { .. }
            | ValidationErrorKind::ExclusiveMaximum { .. }
            | ValidationErrorKind::MultipleOf { .. } => Diagnostic::error(
                Code::SchemaRange,
                format!(
                    "`{path}` must be {}, not {found}",
                    range_text(self.node_schema)
                ),
                Some(place.value),
            )
            .with_label("out of range")
            .with_help(format!("write {} here", range_text(self.node_schema))),
            ValidationErrorKind::Not { .. } => self.ruled_out(),
            ValidationErrorKind::MinLength { limit } => self.wrong_length(*limit, true),
            ValidationErrorKind::MaxLength { limit } => self.wrong_length(*limit, false),
            ValidationErrorKind::MinItems { limit } => Diagnostic::error(
                Code::SchemaLength,
                format!("`{path}` must have at least {limit} item(s)"),
                Some(place.value),
            )
            .with_label("too few items")
            .with_help(format!("add items until there are at least {limit}")),
            ValidationErrorKind::MaxItems { limit } => Diagnostic::error(
                Code::SchemaLength,
                format!("`{path}` must have at most {limit} items"),
                Some(place.value),
            )
            .with_label("too many items")
            .with_help(format!(
                "keep at most {limit} items: split them, or remove some"
            )),
            ValidationErrorKind::Pattern { pattern } => {
                if self.is_secret || self.unresolved {
                    return None;
                }
                self.wrong_form(pattern)
            }
            _ => {
                let message = if self.is_secret {
                    format!("`{path}` is not valid")
                } else {
                    format!("`{path}`: {error}")
                };
                Diagnostic::error(Code::SchemaInvalid, message, Some(place.value))
            }
        };
        Some(diag)
    }

    /// A member that a sibling's value rules out (`seekTimestamp` without
    /// `seekType: timestamp`): the schema says so with `not: {}` at the member.
    fn ruled_out(&self) -> Diagnostic {
        Diagnostic::error(
            Code::SchemaInvalid,
            format!("`{}` does not apply here", self.path),
            Some(self.place.key.unwrap_or(self.place.value)),
        )
        .with_label("not taken here")
        .with_help(
            self.node_schema
                .and_then(description)
                .unwrap_or_else(|| "remove it".into()),
        )
    }

    /// A required key `name` is missing here.
    fn missing(&self, name: &str) -> Diagnostic {
        let path = &self.path;
        let at = self.place.key.unwrap_or(self.place.value);
        Diagnostic::error(
            Code::SchemaRequired,
            if path.is_empty() {
                format!("the config is missing the required top-level key `{name}`")
            } else {
                format!("`{path}` is missing the required key `{name}`")
            },
            Some(at),
        )
        .with_label(format!("add `{name}:` here"))
        .with_help(key_help(self.node_schema, name))
    }

    /// A value of the wrong JSON type.
    fn wrong_type(&self) -> Diagnostic {
        let (path, found) = (&self.path, &self.found);
        let expected = expected_type(self.node_schema);
        let mut diag = Diagnostic::error(
            Code::SchemaType,
            format!("`{path}` must be {expected}, not {found}"),
            Some(self.place.value),
        )
        .with_label(format!("expected {expected}"));
        if self
            .written
            .and_then(Value::as_str)
            .is_some_and(|s| s.contains("${"))
        {
            diag = diag.with_help(
                "only string fields interpolate `${env:...}`; write numbers and booleans literally",
            );
        } else if let Some(desc) = self.node_schema.and_then(description) {
            diag = diag.with_help(desc);
        }
        diag
    }

    /// A value not among `options`, with the closest one when one is close.
    fn not_allowed(&self, options: &Value) -> Diagnostic {
        let (path, found) = (&self.path, &self.found);
        let allowed: Vec<&str> = options
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut diag = Diagnostic::error(
            Code::SchemaEnum,
            format!(
                "`{path}` must be one of {}, not {found}",
                allowed
                    .iter()
                    .map(|a| format!("`{a}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Some(self.place.value),
        )
        .with_label("not an allowed value");
        let written = self.written.and_then(Value::as_str);
        diag = match written.and_then(|w| closest(w, allowed.iter().copied())) {
            Some(close) => diag.with_help(format!("did you mean `{close}`?")),
            None => diag.with_help("write one of the values the message lists"),
        };
        diag
    }

    /// A string shorter than `limit` (`at_least`) or longer.
    fn wrong_length(&self, limit: u64, at_least: bool) -> Diagnostic {
        let path = &self.path;
        let what = if at_least {
            format!("at least {limit} character(s)")
        } else {
            format!("at most {limit} characters")
        };
        Diagnostic::error(
            Code::SchemaLength,
            format!("`{path}` must have {what}"),
            Some(self.place.value),
        )
        .with_label(if limit == 1 && what.starts_with("at least") {
            "empty".to_string()
        } else {
            "wrong length".to_string()
        })
        .with_help(if at_least {
            format!("write at least {limit} character(s)")
        } else {
            format!("shorten it to {limit} characters or fewer")
        })
    }

    /// A string not of the form `pattern` asks for, the form said in words where known.
    fn wrong_form(&self, pattern: &str) -> Diagnostic {
        let (path, found) = (&self.path, &self.found);
        let expected = if pattern.contains("[0-9a-fA-F]{8}") {
            "a UUID such as `1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11`".to_string()
        } else if pattern.contains("https?") {
            "a URL starting with `http://` or `https://`".to_string()
        } else {
            format!("text matching `{pattern}`")
        };
        Diagnostic::error(
            Code::SchemaPattern,
            format!("`{path}` must be {expected}, not {found}"),
            Some(self.place.value),
        )
        .with_label("wrong form")
        .with_help(format!("write {expected} here"))
    }
}

fn unknown_key(
    index: &mut Places<'_>,
    node_schema: Option<&Value>,
    pointer: &str,
    path: &str,
    name: &str,
) -> Diagnostic {
    let child = child_pointer(pointer, name);
    let at = index
        .exact(&child)
        .and_then(|p| p.key)
        .or_else(|| index.exact(pointer).map(|p| p.value));
    let where_ = if path.is_empty() {
        "at the top level".to_string()
    } else {
        format!("in `{path}`")
    };
    let known = known_keys(node_schema);
    let mut diag = Diagnostic::error(
        Code::ConfigUnknownKey,
        format!("unknown key `{name}` {where_}"),
        at,
    )
    .with_label("unknown key");
    if let Some(close) = closest(name, known.iter().copied()) {
        diag = diag.with_help(format!("did you mean `{close}`?"));
    } else if !known.is_empty() {
        diag = diag.with_help(format!(
            "known keys here: {}",
            known
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    diag
}

fn key_help(node_schema: Option<&Value>, name: &str) -> String {
    let desc = node_schema
        .and_then(|s| s.get("properties"))
        .and_then(|p| p.get(name))
        .and_then(description);
    match desc {
        Some(desc) => format!("`{name}`: {desc}"),
        None => format!("add `{name}`"),
    }
}

/// The `$ref`-resolved subschema that applies at an instance pointer.
fn schema_at<'s>(root: &'s Value, pointer: &str) -> Option<&'s Value> {
    let mut at = resolve(root, root)?;
    for segment in pointer.split('/').skip(1) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        let next = at
            .get("properties")
            .and_then(|p| p.get(&segment))
            .or_else(|| at.get("additionalProperties").filter(|a| a.is_object()))
            .or_else(|| segment.parse::<usize>().ok().and_then(|_| at.get("items")))?;
        at = resolve(root, next)?;
    }
    Some(at)
}

fn resolve<'s>(root: &'s Value, schema: &'s Value) -> Option<&'s Value> {
    // An entry that may be a template's instances (`if` it has `template`) or the object
    // itself: the tree checked here has its templates expanded, so it is always the object.
    let schema = schema.get("else").unwrap_or(schema);
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => root.pointer(reference.strip_prefix('#')?),
        None => Some(schema),
    }
}

/// The property names a schema object allows, in schema order.
pub(crate) fn known_keys(schema: Option<&Value>) -> Vec<&str> {
    schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

fn description(schema: &Value) -> Option<String> {
    schema
        .get("description")
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// A schema's `type`; of a list (`["string", "null"]`: a member the config may clear with
/// `null`), the one that is not `null`.
fn main_type(schema: Option<&Value>) -> Option<&str> {
    match schema?.get("type")? {
        Value::String(one) => Some(one),
        Value::Array(types) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null"),
        _ => None,
    }
}

fn expected_type(schema: Option<&Value>) -> String {
    match main_type(schema) {
        Some("integer") => "a whole number".to_string(),
        Some("number") => "a number".to_string(),
        Some("string") => "a string".to_string(),
        Some("boolean") => "`true` or `false`".to_string(),
        Some("array") => "a list".to_string(),
        Some("object") => "a mapping".to_string(),
        Some(other) => other.to_string(),
        None => "another type".to_string(),
    }
}

fn range_text(schema: Option<&Value>) -> String {
    let get = |k: &str| schema.and_then(|s| s.get(k)).and_then(Value::as_f64);
    let kind = match main_type(schema) {
        Some("integer") => "an integer",
        _ => "a number",
    };
    let range = match (get("minimum"), get("maximum"), get("exclusiveMinimum")) {
        (Some(min), Some(max), _) => format!("{kind} from {min} to {max}"),
        (Some(min), None, _) => format!("{kind} of at least {min}"),
        (None, Some(max), _) => format!("{kind} of at most {max}"),
        (None, None, Some(min)) => format!("{kind} greater than {min}"),
        (None, None, None) => "in range".to_string(),
    };
    match get("multipleOf") {
        Some(step) => format!("{range}, a multiple of {step}"),
        None => range,
    }
}

/// A short description of a found value for messages: type and, for scalars, the value.
fn describe(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => "empty (null)".to_string(),
        Some(Value::Bool(b)) => format!("`{b}`"),
        Some(Value::Number(n)) => format!("`{n}`"),
        Some(Value::String(s)) => {
            let short: String = s.chars().take(60).collect();
            format!("the string `{short}`")
        }
        Some(Value::Array(_)) => "a list".to_string(),
        Some(Value::Object(_)) => "a mapping".to_string(),
    }
}

/// A dotted path for messages: `/services/a/scaling` → `services.a.scaling`.
fn display_path(pointer: &str) -> String {
    pointer
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect::<Vec<_>>()
        .join(".")
}

/// Where the values a schema error names were written, found by walking the tree along the
/// error's JSON pointer: no index of every value is kept (it took more memory than the tree),
/// only, once a mapping has been walked, its keys' positions, so thousands of errors in one
/// long mapping each cost a hash lookup.
struct Places<'a> {
    root: &'a Node,
    /// Key to entry position, per mapping walked, by the mapping's address.
    keys: HashMap<usize, HashMap<&'a str, usize>>,
}

impl<'a> Places<'a> {
    fn new(root: &'a Node) -> Places<'a> {
        Places {
            root,
            keys: HashMap::new(),
        }
    }

    /// The place of the value at `pointer`, or of its deepest ancestor the tree has.
    fn nearest(&mut self, pointer: &str) -> Option<Place> {
        Some(self.walk(pointer).0)
    }

    /// The place of the value at `pointer`, when the tree has it.
    fn exact(&mut self, pointer: &str) -> Option<Place> {
        match self.walk(pointer) {
            (place, true) => Some(place),
            (_, false) => None,
        }
    }

    /// The deepest place on the way to `pointer`, and whether it is `pointer`'s own.
    fn walk(&mut self, pointer: &str) -> (Place, bool) {
        let mut node = self.root;
        let mut place = Place {
            value: node.span,
            key: None,
        };
        for token in pointer.split('/').skip(1) {
            let token = token.replace("~1", "/").replace("~0", "~");
            let next = match &node.kind {
                Kind::Seq(items) => token
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| items.get(i))
                    .map(|item| (item, None)),
                Kind::Map(entries) => self
                    .position(node, entries, &token)
                    .and_then(|i| entries.get(i))
                    .map(|(key, value)| (value, Some(key.span))),
                _ => None,
            };
            let Some((child, key)) = next else {
                return (place, false);
            };
            node = child;
            place = Place {
                value: child.span,
                key,
            };
        }
        (place, true)
    }

    /// The position of `key` in the mapping `node`, whose entries are `entries`.
    fn position(&mut self, node: &'a Node, entries: &'a [(Key, Node)], key: &str) -> Option<usize> {
        // Short mappings are scanned; a long one gets its key index once.
        if entries.len() <= 16 {
            return entries.iter().position(|(k, _)| k.name == key);
        }
        let keys = self
            .keys
            .entry(std::ptr::from_ref(node) as usize)
            .or_insert_with(|| {
                entries
                    .iter()
                    .enumerate()
                    .map(|(i, (k, _))| (k.name.as_str(), i))
                    .collect()
            });
        keys.get(key).copied()
    }
}

/// The closest candidate by edit distance, when it is close enough to be a likely typo.
pub(crate) fn closest<'a>(
    word: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    let lower = word.to_lowercase();
    candidates
        .map(|c| (edit_distance(&lower, &c.to_lowercase()), c))
        .filter(|(d, c)| *d <= (c.chars().count() / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if ca == *cb {
                diagonal
            } else {
                1 + diagonal.min(above).min(row[j])
            };
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::limits;

    fn schema() -> &'static Value {
        schema_value().unwrap()
    }

    #[test]
    fn closest_suggests_typos_only() {
        let keys = ["numReplicas", "idleScaling", "idleTimeoutMinutes"];
        assert_eq!(closest("numReplica", keys.into_iter()), Some("numReplicas"));
        assert_eq!(
            closest("idlescaling", keys.into_iter()),
            Some("idleScaling")
        );
        assert_eq!(closest("banana", keys.into_iter()), None);
    }

    /// The schema's enums and ranges are the contract's (`api::limits`), so the editor, the
    /// validator and the planner agree.
    #[test]
    fn schema_matches_the_contract_limits() {
        let s = schema();
        let enum_at = |pointer: &str| -> Vec<String> {
            schema_at(s, pointer).unwrap()["enum"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect()
        };
        let series = "/stacks/s/dashboards/d/tiles/0/series/0";
        assert_eq!(enum_at(&format!("{series}/type")), limits::SERIES_TYPES);
        assert_eq!(
            enum_at(&format!("{series}/dataSource")),
            limits::DATA_SOURCES
        );
        assert_eq!(enum_at(&format!("{series}/aggFn")), limits::AGG_FNS);
        assert_eq!(
            enum_at(&format!("{series}/whereLanguage")),
            limits::WHERE_LANGUAGES
        );
        assert_eq!(
            enum_at(&format!("{series}/metricDataType")),
            limits::METRIC_DATA_TYPES
        );
        let alert = "/stacks/s/alerts/a";
        assert_eq!(
            enum_at(&format!("{alert}/thresholdType")),
            limits::THRESHOLD_TYPES
        );
        assert_eq!(enum_at(&format!("{alert}/source")), limits::ALERT_SOURCES);
        assert_eq!(
            enum_at(&format!("{alert}/interval")),
            limits::ALERT_INTERVALS
        );
        assert_eq!(
            enum_at(&format!("{alert}/channel/type")),
            limits::CHANNEL_TYPES
        );

        let range = |pointer: &str, r: limits::Range| {
            let at = schema_at(s, pointer).unwrap();
            assert_eq!(at["minimum"].as_f64(), Some(r.min), "{pointer}");
            assert_eq!(at["maximum"].as_f64(), Some(r.max), "{pointer}");
            let ty = if r.integer { "integer" } else { "number" };
            assert_eq!(at["type"], ty, "{pointer}");
        };
        let pipe = "/services/x/pipes/p/scaling";
        range(&format!("{pipe}/replicas"), limits::PIPE_REPLICAS);
        range(&format!("{pipe}/concurrency"), limits::PIPE_CONCURRENCY);
        range(
            &format!("{pipe}/replicaCpuMillicores"),
            limits::PIPE_CPU_MILLICORES,
        );
        range(&format!("{pipe}/replicaMemoryGb"), limits::PIPE_MEMORY_GB);
        range("/services/x/scaling/numReplicas", limits::SERVICE_REPLICAS);
        range(
            "/services/x/pipeCompute/replicaCpuMillicores",
            limits::CDC_CPU_MILLICORES,
        );
        range(
            "/services/x/pipeCompute/replicaMemoryGb",
            limits::CDC_MEMORY_GB,
        );
        range("/stacks/s/dashboards/d/tiles/0/x", limits::TILE_X);
        range("/stacks/s/dashboards/d/tiles/0/w", limits::TILE_W);
        for field in ["minTotalMemoryGb", "maxTotalMemoryGb"] {
            let at = schema_at(s, &format!("/services/x/scaling/{field}")).unwrap();
            assert_eq!(at["minimum"].as_f64(), Some(limits::SERVICE_MEMORY_MIN_GB));
            assert_eq!(at["maximum"].as_f64(), Some(limits::SERVICE_MEMORY_MAX_GB));
        }
        let idle = schema_at(s, "/services/x/scaling/idleTimeoutMinutes").unwrap();
        assert_eq!(
            idle["minimum"].as_f64(),
            Some(limits::SERVICE_IDLE_TIMEOUT_MIN)
        );
        let dash = schema_at(s, "/stacks/s/dashboards/d").unwrap();
        assert_eq!(
            dash["properties"]["name"]["maxLength"],
            limits::DASHBOARD_NAME_MAX
        );
        assert_eq!(
            dash["properties"]["tags"]["maxItems"],
            limits::DASHBOARD_MAX_TAGS
        );
        assert_eq!(
            dash["properties"]["tags"]["items"]["maxLength"],
            limits::TAG_MAX
        );
        assert_eq!(
            dash["properties"]["tiles"]["maxItems"],
            limits::DASHBOARD_MAX_TILES
        );
        let tile = schema_at(s, "/stacks/s/dashboards/d/tiles/0").unwrap();
        assert_eq!(
            tile["properties"]["series"]["maxItems"],
            limits::CHART_SERIES_MAX
        );
        let alert_schema = schema_at(s, alert).unwrap();
        assert_eq!(
            alert_schema["properties"]["name"]["maxLength"],
            limits::ALERT_NAME_MAX
        );
        assert_eq!(
            alert_schema["properties"]["message"]["maxLength"],
            limits::ALERT_MESSAGE_MAX
        );
    }

    /// Editors show descriptions on hover: every property of every object has one.
    #[test]
    fn every_property_has_a_description() {
        fn walk(v: &Value, at: &str, missing: &mut Vec<String>) {
            if let Some(props) = v.get("properties").and_then(Value::as_object) {
                for (name, prop) in props {
                    if prop
                        .get("description")
                        .and_then(Value::as_str)
                        .is_none_or(str::is_empty)
                    {
                        missing.push(format!("{at}/{name}"));
                    }
                }
            }
            match v {
                Value::Object(map) => map
                    .iter()
                    .for_each(|(k, c)| walk(c, &format!("{at}/{k}"), missing)),
                Value::Array(items) => items.iter().for_each(|c| walk(c, at, missing)),
                _ => {}
            }
        }
        let mut missing = Vec::new();
        walk(schema(), "", &mut missing);
        assert!(missing.is_empty(), "{missing:?}");
    }
}
