//! The same request sequence (`tests/fixtures/observability/differential.json`: valid and
//! invalid bodies, every status the server answers) sent to the sandbox and to hdx-server: any
//! difference in status, in the refusal's text or in the shape of what is read back fails.

use serde_json::{Map, Value};

use crate::common::{Client, root};

use super::Target;

/// What a target answered to one step, in a form both can be compared in: the status, and the
/// refusal's text or the answer's JSON with ids and times masked and nulls left out.
fn outcome(target: &Target, steps: &[Value]) -> Vec<(String, u16, Value)> {
    let sources: Map<String, Value> = target
        .obs("GET", "/sources", None)
        .data()
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| Some((s["name"].as_str()?.to_string(), s["id"].clone())))
        .collect();
    let mut saved: Map<String, Value> = Map::new();
    let mut out = Vec::new();
    for step in steps {
        let fill = |text: &str| {
            let mut text = text.to_string();
            for (name, id) in &sources {
                text = text.replace(&format!("\"${name}\""), &id.to_string());
            }
            for (name, id) in &saved {
                text = text.replace(&format!("{{{name}}}"), id.as_str().unwrap_or_default());
            }
            text
        };
        let method = step["method"].as_str().expect("a method");
        let path = format!("/api/v2{}", fill(step["path"].as_str().expect("a path")));
        let body = step.get("body").map(|b| fill(&b.to_string()).into_bytes());
        let auth = match step["auth"].as_str() {
            Some("none") => None,
            _ => Some(format!("Bearer {}", target.key())),
        };
        let answer = Client::at(&target.url())
            .try_send(method, &path, auth.as_deref(), body)
            .unwrap_or_else(|e| panic!("{}: {method} {path}: {e}", target.name()));
        let json: Option<Value> = serde_json::from_str(&answer.text).ok();
        if let (Some(name), Some(data)) = (step["save"].as_str(), json.as_ref().map(|j| &j["data"]))
        {
            saved.insert(name.to_string(), data["id"].clone());
            if let Some(tile) = data["tiles"].get(0) {
                saved.insert("tile".into(), tile["id"].clone());
            }
        }
        let shown = match json {
            Some(json) if answer.status < 300 => masked(&json),
            Some(json) => json.get("message").cloned().unwrap_or(json),
            None => Value::from(answer.text.trim()),
        };
        let what = step["what"].as_str().unwrap_or_default();
        out.push((
            format!(
                "{method} {} ({what})",
                step["path"].as_str().unwrap_or_default()
            ),
            answer.status,
            shown,
        ));
    }
    out
}

/// `value` with ids (24 hex digits) and times masked, `null` members left out.
fn masked(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| {
                    let v = if ["createdAt", "updatedAt"].contains(&k.as_str()) {
                        Value::from("<time>")
                    } else {
                        masked(v)
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(masked).collect()),
        Value::String(s) if s.len() == 24 && s.chars().all(|c| c.is_ascii_hexdigit()) => {
            Value::from("<id>")
        }
        other => other.clone(),
    }
}

#[test]
fn the_sandbox_answers_as_hdx_server_does() {
    let Some(hdx) = Target::hdx("the_sandbox_answers_as_hdx_server_does") else {
        return;
    };
    let text =
        std::fs::read_to_string(root().join("tests/fixtures/observability/differential.json"))
            .expect("the fixture");
    let steps: Vec<Value> = serde_json::from_str(&text).expect("the fixture is JSON");
    let real = outcome(&hdx, &steps);
    let sandbox = outcome(&Target::sandbox(), &steps);
    let statuses: std::collections::BTreeSet<u16> = real.iter().map(|(_, s, _)| *s).collect();
    assert!(
        statuses.len() >= 4,
        "the sequence shows few statuses: {statuses:?}"
    );
    let differences: Vec<String> = real
        .iter()
        .zip(&sandbox)
        .filter(|(a, b)| a != b)
        .map(|((step, status, shown), (_, s_status, s_shown))| {
            format!("{step}:\n  hdx-server {status} {shown}\n  sandbox    {s_status} {s_shown}")
        })
        .collect();
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}
