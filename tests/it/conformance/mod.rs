//! Conformance with the public API documents: every request converge sends and every answer
//! the sandbox gives, checked against `../shared/reference/cloud-api.openapi.json` and, per
//! generation of the observability API, `observability-api.openapi.json` (the contract's,
//! `--generation contract`) or `observability-api.current.openapi.json` (today's, the default).
//!
//! One [`Checker`] does it, for the whole suite: it matches each exchange of the sandbox's
//! request log (method and concrete path) to the document's path template, checks the path and
//! query parameters, the request body and the response body for its status against the
//! document's own schemas, validated by the `jsonschema` crate with `$ref`s resolved in the
//! document. Differences the contract mandates are in one allow-list,
//! `tests/it/conformance/allow-list.json`, each entry with the line that requires it; every
//! other difference is a violation.
//!
//! `integer` is checked as JSON Schema draft 4 (the base of OpenAPI 3.0) defines it: a number
//! written without a fraction. Draft 2020-12 (OpenAPI 3.1) would accept `3.0`, but a typed client
//! generated from the document decodes `3.0` as a float and fails, which is how the problem was
//! found; the documents use no keyword whose meaning differs between the two drafts otherwise.
//! The `uuid` format (not in draft 4) is registered by hand.

mod commands;

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Mutex;

use converge::sandbox::{Generation, LogEntry};
use serde::Deserialize;
use serde_json::{Map, Value};

/// Where the public documents live: the APIs' published OpenAPI documents are not part of the
/// repository; CI places them in `shared/reference/` beside the checkout (see CONFORMANCE.md).
pub fn reference_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/reference")
}

/// One difference between an exchange and the documents.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Violation {
    /// `METHOD template` (or the concrete path when no template matched).
    pub operation: String,
    /// `operation`, `path`, `query`, `request` or `response`.
    pub part: &'static str,
    /// The response status, for response violations.
    pub status: Option<u16>,
    /// JSON pointer of the offending value (`/result/0/numReplicas`), or the parameter.
    pub at: String,
    /// The schema keyword that failed (`type`, `required`, ...), or what the check is about.
    pub keyword: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let status = self.status.map(|s| format!(" {s}")).unwrap_or_default();
        write!(
            f,
            "{} [{}{status}] {} ({}): {}",
            self.operation, self.part, self.at, self.keyword, self.message
        )
    }
}

/// A difference the contract mandates: which violations it covers and why.
#[derive(Debug, Clone, Deserialize)]
pub struct Allowed {
    /// Glob over `METHOD template` (`*` matches anything).
    pub operation: String,
    /// The part it concerns.
    pub part: String,
    /// Glob over the JSON pointer or parameter (`*` matches within one segment, `**` anything);
    /// absent matches everywhere.
    #[serde(default)]
    pub at: Option<String>,
    /// The keyword; absent matches any.
    #[serde(default)]
    pub keyword: Option<String>,
    /// The response status; absent matches any.
    #[serde(default)]
    pub status: Option<u16>,
    /// A text the violation's message contains (the offending member); absent matches any.
    #[serde(default)]
    pub contains: Option<String>,
    /// The generation whose observability document the difference is with (`contract` or
    /// `current`); absent matches both.
    #[serde(default)]
    pub generation: Option<String>,
    /// The line of `api-contract.md` (or of `api-facts.md`, where the contract says "not shown")
    /// that requires the difference, quoted.
    pub requires: String,
    /// Why it is not a bug.
    pub reason: String,
}

impl Allowed {
    fn covers(&self, violation: &Violation) -> bool {
        glob(&self.operation, &violation.operation, false)
            && self.part == violation.part
            && self
                .at
                .as_ref()
                .is_none_or(|at| glob(at, &violation.at, true))
            && self
                .keyword
                .as_ref()
                .is_none_or(|k| *k == violation.keyword)
            && self.status.is_none_or(|s| Some(s) == violation.status)
            && self
                .contains
                .as_ref()
                .is_none_or(|c| violation.message.contains(c.as_str()))
    }
}

/// `*` matches any run of characters (within one `/` segment when `segments`), `**` any run.
fn glob(pattern: &str, text: &str, segments: bool) -> bool {
    fn go(p: &[u8], t: &[u8], segments: bool) -> bool {
        match p.first() {
            None => t.is_empty(),
            Some(b'*') => {
                let (any, rest) = if p.get(1) == Some(&b'*') {
                    (true, &p[2..])
                } else {
                    (!segments, &p[1..])
                };
                (0..=t.len())
                    .take_while(|&i| any || !t[..i].contains(&b'/'))
                    .any(|i| go(rest, &t[i..], segments))
            }
            Some(c) => t.first() == Some(c) && go(&p[1..], &t[1..], segments),
        }
    }
    go(pattern.as_bytes(), text.as_bytes(), segments)
}

/// One public document, ready to validate against.
struct Document {
    value: Value,
    /// `$ref` target pointer → compiled validator.
    validators: Mutex<HashMap<String, std::sync::Arc<jsonschema::Validator>>>,
}

impl Document {
    fn load(name: &str) -> Option<Document> {
        let text = std::fs::read_to_string(reference_dir().join(name)).ok()?;
        let mut value: Value = serde_json::from_str(&text).expect("a reference document is JSON");
        if value["openapi"]
            .as_str()
            .is_some_and(|v| v.starts_with("3.0"))
        {
            nullable_to_type(&mut value);
        }
        Some(Document {
            value,
            validators: Mutex::new(HashMap::new()),
        })
    }

    /// Follows a `$ref` into the document (`#/components/...`).
    fn resolve<'a>(&'a self, value: &'a Value) -> &'a Value {
        match value.get("$ref").and_then(Value::as_str) {
            Some(target) => self
                .value
                .pointer(target.trim_start_matches('#'))
                .unwrap_or(&Value::Null),
            None => value,
        }
    }

    /// Validates `instance` against the schema at `pointer` (a JSON pointer into the document):
    /// the schema is compiled as `{"$ref": "#<pointer>"}` over the whole document, so every
    /// reference resolves where the document says.
    fn validate(&self, pointer: &str, instance: &Value) -> Vec<(String, String, String)> {
        let validator = {
            let mut cache = self.validators.lock().unwrap();
            cache
                .entry(pointer.to_string())
                .or_insert_with(|| {
                    let mut root = self.value.clone();
                    root.as_object_mut().unwrap().insert(
                        "$ref".into(),
                        Value::String(format!("#{}", uri_fragment(pointer))),
                    );
                    std::sync::Arc::new(
                        jsonschema::options()
                            .with_draft(jsonschema::Draft::Draft4)
                            .should_validate_formats(true)
                            .with_format("uuid", |s: &str| uuid::Uuid::parse_str(s).is_ok())
                            .build(&root)
                            .unwrap_or_else(|e| panic!("{pointer} does not compile: {e}")),
                    )
                })
                .clone()
        };
        validator
            .iter_errors(instance)
            .map(|error| {
                (
                    error.instance_path().to_string(),
                    error.kind().keyword().to_string(),
                    error.to_string(),
                )
            })
            .collect()
    }
}

/// OpenAPI 3.0's `nullable: true` is not JSON Schema: it becomes `null` in `type` (and `enum`).
fn nullable_to_type(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map.remove("nullable") == Some(Value::Bool(true)) {
                if let Some(Value::String(kind)) = map.get("type").cloned() {
                    map.insert("type".into(), serde_json::json!([kind, "null"]));
                }
                if let Some(Value::Array(values)) = map.get_mut("enum") {
                    values.push(Value::Null);
                }
            }
            map.values_mut().for_each(nullable_to_type);
        }
        Value::Array(items) => items.iter_mut().for_each(nullable_to_type),
        _ => {}
    }
}

/// A JSON pointer as a URI fragment: the characters a fragment may not hold, percent-encoded.
fn uri_fragment(pointer: &str) -> String {
    pointer.replace('{', "%7B").replace('}', "%7D")
}

/// Escapes one JSON pointer segment.
fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// What one exchange is: the request as sent and the response as answered.
#[derive(Debug, Clone, Default)]
pub struct Exchange<'a> {
    pub method: &'a str,
    pub path: &'a str,
    pub query: Option<&'a str>,
    pub request_body: Option<&'a str>,
    /// 0 when no answer reached the client.
    pub status: u16,
    pub response_type: Option<&'a str>,
    pub response_body: Option<&'a str>,
}

impl<'a> Exchange<'a> {
    /// The exchange a log entry recorded.
    pub fn of(entry: &'a LogEntry) -> Exchange<'a> {
        Exchange {
            method: &entry.method,
            path: &entry.path,
            query: entry.query.as_deref(),
            request_body: entry.request_body.as_deref(),
            status: if entry.fault.as_deref().is_some_and(|f| f == "lost") {
                0
            } else {
                entry.status
            },
            response_type: entry.response_type.as_deref(),
            response_body: entry.response_body.as_deref(),
        }
    }
}

/// The outcome of checking many exchanges.
#[derive(Debug, Default)]
pub struct Report {
    /// Exchanges looked at.
    pub exchanges: usize,
    /// Request bodies validated against a schema.
    pub requests: usize,
    /// Response bodies validated against a schema.
    pub responses: usize,
    /// Violations no allow-list entry covers.
    pub violations: Vec<Violation>,
    /// Violations covered, by allow-list entry index.
    pub allowed: BTreeMap<usize, usize>,
}

impl Report {
    /// Panics with every violation, one per line, unless there are none.
    pub fn assert_clean(&self, what: &str) {
        let mut lines: Vec<String> = self.violations.iter().map(|v| v.to_string()).collect();
        lines.sort();
        lines.dedup();
        assert!(
            lines.is_empty(),
            "{what}: {} violation(s) of the public API documents:\n{}",
            self.violations.len(),
            lines.join("\n")
        );
    }
}

/// Both documents and the allow-list.
pub struct Checker {
    cloud: Document,
    observability: Document,
    /// The allow-list, in file order.
    pub allow: Vec<Allowed>,
}

impl Checker {
    /// Loads the documents of the contract's generation; `None` (with a line saying so) when
    /// `../shared` is not there.
    pub fn load() -> Option<Checker> {
        Self::load_for(Generation::Contract)
    }

    /// Loads the cloud document and the observability document of `generation`.
    pub fn load_for(generation: Generation) -> Option<Checker> {
        let observability = match generation {
            Generation::Contract => "observability-api.openapi.json",
            Generation::Current => "observability-api.current.openapi.json",
        };
        let (Some(cloud), Some(observability)) = (
            Document::load("cloud-api.openapi.json"),
            Document::load(observability),
        ) else {
            // `.ci/run` has `../shared` beside the checkout: a missing document there is a
            // broken setup, never a reason to pass without checking.
            assert!(
                !crate::common::shared_required(),
                "the reference OpenAPI documents are not at {} and CONVERGE_REQUIRE_SHARED is set",
                reference_dir().display()
            );
            println!(
                "skipped: the reference OpenAPI documents (the APIs' published cloud-api.openapi.json \
                 and {observability}, which CI places beside the checkout; see CONFORMANCE.md) \
                 are not at {}",
                reference_dir().display()
            );
            return None;
        };
        let allow: Vec<Allowed> =
            serde_json::from_str(include_str!("allow-list.json")).expect("the allow-list is JSON");
        for entry in &allow {
            assert!(
                entry.requires.contains(".md") && !entry.reason.trim().is_empty(),
                "allow-list entry {:?} must quote the contract line that requires it and say why",
                entry.operation
            );
        }
        let generation_name = match generation {
            Generation::Contract => "contract",
            Generation::Current => "current",
        };
        let allow = allow
            .into_iter()
            .filter(|entry| {
                entry
                    .generation
                    .as_deref()
                    .is_none_or(|g| g == generation_name)
            })
            .collect();
        Some(Checker {
            cloud,
            observability,
            allow,
        })
    }

    /// Checks every entry of a request log.
    pub fn check_log(&self, log: &[LogEntry]) -> Report {
        let mut report = Report::default();
        for entry in log {
            if entry.bodies_left_out {
                report.violations.push(Violation {
                    operation: format!("{} {}", entry.method, entry.route),
                    part: "operation",
                    status: None,
                    at: String::new(),
                    keyword: "log".into(),
                    message: "the sandbox left this exchange's bodies out of its log (budget used)"
                        .into(),
                });
                continue;
            }
            self.check_into(&Exchange::of(entry), &mut report);
        }
        report
    }

    /// Checks one exchange (violations the allow-list covers are counted, not returned).
    pub fn check(&self, exchange: &Exchange<'_>) -> Report {
        let mut report = Report::default();
        self.check_into(exchange, &mut report);
        report
    }

    fn check_into(&self, exchange: &Exchange<'_>, report: &mut Report) {
        report.exchanges += 1;
        let mut found = Vec::new();
        self.raw(exchange, report, &mut found);
        for violation in found {
            match self.allow.iter().position(|a| a.covers(&violation)) {
                Some(index) => *report.allowed.entry(index).or_insert(0) += 1,
                None => report.violations.push(violation),
            }
        }
    }

    /// Every difference, before the allow-list.
    fn raw(&self, exchange: &Exchange<'_>, report: &mut Report, out: &mut Vec<Violation>) {
        let path = exchange.path;
        let document = if path.starts_with("/v1/") {
            &self.cloud
        } else if path.starts_with("/api/v2/") {
            &self.observability
        } else {
            out.push(Violation {
                operation: format!("{} {path}", exchange.method),
                part: "operation",
                status: None,
                at: String::new(),
                keyword: "path".into(),
                message: "belongs to neither API".into(),
            });
            return;
        };
        let Some((template, params)) = match_template(document, path) else {
            out.push(Violation {
                operation: format!("{} {path}", exchange.method),
                part: "operation",
                status: None,
                at: String::new(),
                keyword: "path".into(),
                message: "no path of the document matches".into(),
            });
            return;
        };
        let operation_name = format!("{} {template}", exchange.method);
        let violation =
            |part: &'static str, status, at: String, keyword: &str, message: String| Violation {
                operation: operation_name.clone(),
                part,
                status,
                at,
                keyword: keyword.to_string(),
                message,
            };
        let method = exchange.method.to_ascii_lowercase();
        let path_item = &document.value["paths"][&template];
        let Some(operation) = path_item.get(&method).filter(|o| o.is_object()) else {
            out.push(violation(
                "operation",
                None,
                String::new(),
                "method",
                format!("the document has no {} on this path", exchange.method),
            ));
            return;
        };
        let op_pointer = format!("/paths/{}/{method}", escape(&template));

        // Parameters: the path item's, overridden by the operation's.
        let mut declared: Vec<(String, &Value)> = Vec::new();
        for list in [&path_item["parameters"], &operation["parameters"]] {
            for parameter in list.as_array().into_iter().flatten() {
                let parameter = document.resolve(parameter);
                let key = format!(
                    "{}:{}",
                    parameter["in"].as_str().unwrap_or(""),
                    parameter["name"].as_str().unwrap_or("")
                );
                declared.retain(|(k, _)| *k != key);
                declared.push((key, parameter));
            }
        }
        let query: Vec<(String, String)> = exchange
            .query
            .unwrap_or("")
            .split('&')
            .filter(|pair| !pair.is_empty())
            .map(|pair| {
                let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
                (name.to_string(), value.to_string())
            })
            .collect();
        for (name, value) in &params {
            let Some((_, parameter)) = declared.iter().find(|(k, _)| *k == format!("path:{name}"))
            else {
                out.push(violation(
                    "path",
                    None,
                    name.clone(),
                    "parameter",
                    "not declared".into(),
                ));
                continue;
            };
            for (_, keyword, message) in
                self.parameter(document, parameter, Value::String(value.clone()))
            {
                out.push(violation("path", None, name.clone(), &keyword, message));
            }
        }
        for (name, value) in &query {
            let Some((_, parameter)) = declared.iter().find(|(k, _)| *k == format!("query:{name}"))
            else {
                out.push(violation(
                    "query",
                    None,
                    name.clone(),
                    "parameter",
                    "the document declares no such query parameter".into(),
                ));
                continue;
            };
            let typed = match parameter["schema"]["type"].as_str() {
                Some("integer") => value
                    .parse::<i64>()
                    .map_or(Value::String(value.clone()), Value::from),
                Some("number") => value
                    .parse::<f64>()
                    .map_or(Value::String(value.clone()), Value::from),
                Some("boolean") => value
                    .parse::<bool>()
                    .map_or(Value::String(value.clone()), Value::from),
                _ => Value::String(value.clone()),
            };
            for (_, keyword, message) in self.parameter(document, parameter, typed) {
                out.push(violation("query", None, name.clone(), &keyword, message));
            }
        }
        for (key, parameter) in &declared {
            if parameter["required"] == Value::Bool(true) {
                let (place, name) = key.split_once(':').unwrap_or(("", key));
                let present = match place {
                    "path" => params.iter().any(|(n, _)| n == name),
                    "query" => query.iter().any(|(n, _)| n == name),
                    _ => true,
                };
                if !present {
                    out.push(violation(
                        if place == "path" { "path" } else { "query" },
                        None,
                        name.to_string(),
                        "required",
                        "a required parameter is missing".into(),
                    ));
                }
            }
        }

        // The request body.
        let sent = exchange.request_body.filter(|b| !b.trim().is_empty());
        let request_body = operation.get("requestBody").map(|b| document.resolve(b));
        match (request_body, sent) {
            (Some(_), Some(text)) => {
                let schema = json_schema_pointer(document, &format!("{op_pointer}/requestBody"));
                match (serde_json::from_str::<Value>(text), schema) {
                    (Ok(body), Some(pointer)) => {
                        report.requests += 1;
                        for (at, keyword, message) in document.validate(&pointer, &body) {
                            out.push(violation("request", None, at, &keyword, message));
                        }
                    }
                    (Err(error), _) => out.push(violation(
                        "request",
                        None,
                        String::new(),
                        "json",
                        format!("the body is not JSON: {error}"),
                    )),
                    (Ok(_), None) => out.push(violation(
                        "request",
                        None,
                        String::new(),
                        "content-type",
                        "the document takes no JSON body here".into(),
                    )),
                }
            }
            (Some(spec), None) => {
                if spec["required"] == Value::Bool(true) && exchange.status == 200 {
                    out.push(violation(
                        "request",
                        None,
                        String::new(),
                        "required",
                        "the document requires a body and none was sent".into(),
                    ));
                }
            }
            (None, Some(_)) => out.push(violation(
                "request",
                None,
                String::new(),
                "body",
                "the document takes no body here".into(),
            )),
            (None, None) => {}
        }

        // The response, when one reached the client.
        let (status, Some(text)) = (exchange.status, exchange.response_body) else {
            return;
        };
        if status == 0 {
            return;
        }
        let responses = &operation["responses"];
        let Some(key) = [
            status.to_string(),
            format!("{}XX", status / 100),
            "default".into(),
        ]
        .into_iter()
        .find(|key| responses.get(key).is_some()) else {
            out.push(violation(
                "response",
                Some(status),
                String::new(),
                "status",
                format!("the document lists no {status} answer for this operation"),
            ));
            return;
        };
        let Some(pointer) = json_schema_pointer(document, &format!("{op_pointer}/responses/{key}"))
        else {
            return;
        };
        let is_json = exchange
            .response_type
            .is_none_or(|t| t.starts_with("application/json"));
        match serde_json::from_str::<Value>(text) {
            Ok(body) if is_json => {
                report.responses += 1;
                for (at, keyword, message) in document.validate(&pointer, &body) {
                    out.push(violation("response", Some(status), at, &keyword, message));
                }
            }
            _ => out.push(violation(
                "response",
                Some(status),
                String::new(),
                "content-type",
                format!(
                    "the document answers JSON; the body is {} ({:?})",
                    exchange.response_type.unwrap_or("untyped"),
                    text.chars().take(40).collect::<String>()
                ),
            )),
        }
    }

    /// Validates one parameter value against its schema.
    fn parameter(
        &self,
        document: &Document,
        parameter: &Value,
        value: Value,
    ) -> Vec<(String, String, String)> {
        let Some(schema) = parameter.get("schema") else {
            return Vec::new();
        };
        // Parameter schemas are small and inline; validate them on their own (with the
        // document's components, should one refer to them).
        let mut root = schema.clone();
        if let Value::Object(map) = &mut root {
            map.insert("components".into(), document.value["components"].clone());
        }
        let validator = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft4)
            .should_validate_formats(true)
            .with_format("uuid", |s: &str| uuid::Uuid::parse_str(s).is_ok())
            .build(&root)
            .expect("a parameter schema compiles");
        validator
            .iter_errors(&value)
            .map(|e| (String::new(), e.kind().keyword().to_string(), e.to_string()))
            .collect()
    }
}

/// The pointer of a JSON body's schema (`content."application/json".schema`) of the request
/// body or response at `base` (following a `$ref` to where it points).
fn json_schema_pointer(document: &Document, base: &str) -> Option<String> {
    let mut base = base.to_string();
    let mut spec = document.value.pointer(&base)?;
    if let Some(target) = spec.get("$ref").and_then(Value::as_str) {
        base = target.trim_start_matches('#').to_string();
        spec = document.value.pointer(&base)?;
    }
    let content = spec.get("content")?.as_object()?;
    let (media, entry) = content
        .iter()
        .find(|(media, _)| media.starts_with("application/json"))?;
    entry.get("schema")?;
    Some(format!("{base}/content/{}/schema", escape(media)))
}

/// The document's path template a concrete path matches, with its parameters. Literal
/// segments win over parameters when two templates match.
fn match_template(document: &Document, path: &str) -> Option<(String, Vec<(String, String)>)> {
    let segments: Vec<&str> = path.trim_end_matches('/').split('/').collect();
    let paths: &Map<String, Value> = document.value["paths"].as_object()?;
    paths
        .keys()
        .filter_map(|template| {
            let parts: Vec<&str> = template.split('/').collect();
            if parts.len() != segments.len() {
                return None;
            }
            let mut params = Vec::new();
            for (part, segment) in parts.iter().zip(&segments) {
                if let Some(name) = part.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
                    if segment.is_empty() {
                        return None;
                    }
                    params.push((name.to_string(), segment.to_string()));
                } else if part != segment {
                    return None;
                }
            }
            Some((template.clone(), params))
        })
        .min_by_key(|(_, params)| params.len())
}

#[test]
fn allow_list_globs() {
    assert!(glob("/result/*/state", "/result/3/state", true));
    assert!(!glob("/result/*/state", "/result/3/x/state", true));
    assert!(glob("/result/**", "/result/3/x/state", true));
    assert!(glob(
        "GET *stack/alerts",
        "GET /v1/o/{x}/stack/alerts",
        false
    ));
}
