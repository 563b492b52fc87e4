//! `converge validate` through the real binary: the invalid fixtures, the examples, the output
//! formats, multi-file merging, secrets, and a property test that no input makes it panic.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::Value;

use crate::common::{Converge, Outcome, Workspace, root};

/// The binary with no CI switches and no variable a config might read, in the repository root.
fn validate() -> Converge<'static> {
    Converge::offline().in_repo()
}

/// `validate --format json PATHS`: the exit code and the diagnostics.
fn validate_json(paths: &[&Path]) -> (i32, Vec<Value>) {
    let r = validate().run(
        ["validate".as_ref(), "--format".as_ref(), "json".as_ref()]
            .into_iter()
            .chain(paths.iter().map(|p| p.as_os_str())),
    );
    let items = r.json();
    (r.code, items.as_array().unwrap().clone())
}

/// `# expect: CODE LINE:COL` on a fixture's first line.
fn expectation(path: &Path) -> (String, usize, usize) {
    let text = std::fs::read_to_string(path).unwrap();
    let first = text.lines().next().unwrap();
    let rest = first.strip_prefix("# expect: ").unwrap();
    let (code, place) = rest.rsplit_once(' ').unwrap();
    let (line, col) = place.split_once(':').unwrap();
    (
        code.to_string(),
        line.parse().unwrap(),
        col.parse().unwrap(),
    )
}

fn fixtures() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("tests/fixtures/invalid"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_invalid_fixture_reports_its_diagnostic_at_its_place() {
    let files = fixtures();
    assert!(files.len() >= 30, "only {} fixtures", files.len());
    let mut failures = Vec::new();
    for file in &files {
        let (code, line, col) = expectation(file);
        let (exit, items) = validate_json(&[file]);
        let found = items.iter().any(|d| {
            d["code"] == code.as_str()
                && d["line"] == line
                && d["column"] == col
                && d["severity"] == "error"
                && d["file"]
                    .as_str()
                    .is_some_and(|f| f.ends_with(file.file_name().unwrap().to_str().unwrap()))
                && d["message"].as_str().is_some_and(|m| !m.is_empty())
        });
        // Every message names what it is about: no empty `` where a path belongs.
        let blank = items
            .iter()
            .filter(|d| d["message"].as_str().is_some_and(|m| m.contains("``")))
            .count();
        if blank > 0 {
            failures.push(format!(
                "{}: a message names nothing: {items:?}",
                file.display()
            ));
        }
        if exit != 1 || !found {
            failures.push(format!(
                "{}: exit {exit}, wanted {code} {line}:{col}, got {items:?}",
                file.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn examples_validate_with_warnings_only() {
    for example in ["examples/quickstart.yaml", "examples/production"] {
        let (exit, items) = validate_json(&[Path::new(example)]);
        assert_eq!(exit, 0, "{example}: {items:?}");
        assert!(
            items.iter().all(|d| d["severity"] == "warning"),
            "{example}: {items:?}"
        );
        // The secrets are unset here: validate warns instead of failing.
        assert!(
            items.iter().any(|d| d["code"] == "config::env-unset"),
            "{example}: {items:?}"
        );
    }
    let text = validate().run(["validate", "examples/quickstart.yaml"]);
    // Exit 0, nothing on stdout, the unset secrets as warnings on stderr.
    crate::common::converge_snapshot!("validate_quickstart_text", text);
}

#[test]
fn text_output_underlines_the_value_and_reports_every_error_at_once() {
    let dir = Workspace::new();
    let text = crate::common::quickstart()
        .replace("numReplicas: 3", "numReplicas: 30")
        .replace("idleScaling: true", "idleScalin: true")
        .replace("thresholdType: above", "thresholdType: abve");
    let file = dir.write("c.yaml", &text);
    let r = validate().run(["validate", &file]);
    r.assert_exit(1);
    assert!(r.stdout.is_empty(), "text goes to stderr: {}", r.stdout);
    // c.yaml:18:20 schema::range, c.yaml:19:7 `idleScaling`?, c.yaml:78:24 `above`?, each
    // value underlined, then the count.
    crate::common::converge_snapshot!("validate_text", r);
    assert!(!r.stderr.contains('\u{1b}'), "no color without a terminal");
    assert!(
        r.stderr.is_ascii(),
        "plain ASCII without color:\n{}",
        r.stderr
    );
}

/// The scanner names the scalar it was reading when it met the tab, on the line above; the
/// report must name the tab's own line and column.
#[test]
fn a_tab_in_the_indentation_is_reported_at_the_tab() {
    let dir = Workspace::new();
    let text = crate::common::quickstart().replace("      numReplicas: 3", "\t  numReplicas: 3");
    let line = 1 + text.lines().position(|l| l.starts_with('\t')).unwrap();
    let file = dir.write("c.yaml", &text);
    let r = validate().run(["validate", &file]);
    r.assert_exit(1);
    assert!(
        r.stderr.contains(&format!("c.yaml:{line}:1")),
        "the tab at {line}:1:\n{}",
        r.stderr
    );
    assert!(r.stderr.contains("yaml::tab"), "{}", r.stderr);
    assert!(
        r.stderr.contains("YAML indents with spaces"),
        "{}",
        r.stderr
    );
    let (code, items) = validate_json(&[file.as_ref()]);
    assert_eq!(code, 1);
    assert_eq!(
        (items[0]["line"].as_u64(), items[0]["column"].as_u64()),
        (Some(line as u64), Some(1))
    );
}

#[test]
fn github_annotations_are_printed_under_actions() {
    let fixture = root().join("tests/fixtures/invalid/06-replicas-out-of-range.yaml");
    let (_, line, col) = expectation(&fixture);
    let file = fixture.to_str().unwrap();
    let actions = validate().github_actions();
    let r = actions.run(["validate", file]);
    assert_eq!(r.code, 1);
    let wanted = format!(",line={line},col={col},title=schema%3A%3Arange::");
    // On stderr whatever the format: stdout carries one document.
    let annotation = r
        .stderr
        .lines()
        .find(|l| l.starts_with("::error file="))
        .unwrap_or("");
    assert!(annotation.contains(&wanted), "{}", r.stderr);
    assert!(
        r.stderr.contains("::warning file="),
        "warnings too: {}",
        r.stderr
    );
    assert!(!r.stdout.contains("::"), "{}", r.stdout);
    let json = actions.run(["validate", "--format", "json", file]);
    assert!(
        serde_json::from_str::<Value>(&json.stdout).is_ok(),
        "stdout stays JSON"
    );
    assert!(json.stderr.contains(&wanted), "{}", json.stderr);
    let quiet = validate().run(["validate", file]);
    assert!(
        !quiet.stderr.contains("::error"),
        "only under GITHUB_ACTIONS"
    );
}

#[test]
fn files_and_directories_merge_and_a_key_defined_twice_shows_both_places() {
    let dir = Workspace::new();
    std::fs::write(
        dir.path().join("a.yaml"),
        "version: 1\norganization: 7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b\nservices:\n  s1:\n    id: 1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("b.yml"),
        "services:\n  s2:\n    id: 6d5c4b3a-2f1e-4d0c-9b8a-7f6e5d4c3b2a\nstacks:\n  obs:\n    service: s1\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("notes.txt"), "not: [yaml").unwrap();
    let (exit, items) = validate_json(&[dir.path()]);
    assert_eq!(exit, 0, "{items:?}");
    // Naming a file of the directory again does not read it twice.
    let (exit, items) = validate_json(&[dir.path(), &dir.path().join("a.yaml")]);
    assert_eq!(exit, 0, "{items:?}");

    std::fs::write(
        dir.path().join("c.yaml"),
        "services:\n  s1:\n    id: 6d5c4b3a-2f1e-4d0c-9b8a-7f6e5d4c3b2a\n",
    )
    .unwrap();
    let (exit, items) = validate_json(&[dir.path()]);
    assert_eq!(exit, 1);
    let dup = items
        .iter()
        .find(|d| d["code"] == "config::duplicate-key")
        .unwrap();
    assert!(dup["file"].as_str().unwrap().ends_with("c.yaml"), "{dup}");
    assert_eq!(
        dup["message"], "`services.s1` is defined twice",
        "the full key"
    );
    assert_eq!(
        (dup["line"].clone(), dup["column"].clone()),
        (2.into(), 3.into())
    );
    let first = &dup["related"][0];
    assert!(first["file"].as_str().unwrap().ends_with("a.yaml"), "{dup}");
    assert_eq!(
        (first["line"].clone(), first["column"].clone()),
        (4.into(), 3.into())
    );

    // The text report shows both files.
    let r = validate().run(["validate".as_ref(), dir.path().as_os_str()]);
    assert!(
        r.stderr.contains("c.yaml:2:3") && r.stderr.contains("a.yaml:4:3"),
        "{}",
        r.stderr
    );
}

#[test]
fn unreadable_paths_and_empty_directories_fail_with_a_message() {
    let dir = Workspace::new();
    let (exit, items) = validate_json(&[dir.path()]);
    assert_eq!(exit, 1);
    assert_eq!(items[0]["code"], "config::empty-directory");
    let (exit, items) = validate_json(&[Path::new("no/such/file.yaml")]);
    assert_eq!(exit, 1);
    assert_eq!(items[0]["code"], "config::read");
    assert!(
        items[0]["message"]
            .as_str()
            .unwrap()
            .contains("no/such/file.yaml")
    );

    // A broken link to a config file in a directory is an error, not a silently smaller config.
    std::fs::write(
        dir.path().join("a.yaml"),
        "version: 1\norganization: 7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(dir.path().join("gone.yaml"), dir.path().join("b.yml")).unwrap();
    let (exit, items) = validate_json(&[dir.path()]);
    assert_eq!(exit, 1, "{items:?}");
    assert_eq!(items[0]["code"], "config::read", "{items:?}");
    assert!(items[0]["message"].as_str().unwrap().contains("b.yml"));
}

#[test]
fn secrets_never_appear_in_any_output() {
    let literal = root().join("tests/fixtures/invalid/16-literal-key-secret.yaml");
    let literal = literal.to_str().unwrap();
    for format in ["text", "json"] {
        let r = validate()
            .env("GITHUB_ACTIONS", "true")
            .run(["validate", "--format", format, literal]);
        assert_eq!(r.code, 1);
        assert!(
            r.stdout.contains("config::literal-secret")
                || r.stderr.contains("config::literal-secret")
        );
        assert!(!r.stdout.contains("not-a-real-secret"), "{}", r.stdout);
        assert!(!r.stderr.contains("not-a-real-secret"), "{}", r.stderr);
    }
    // A set variable is resolved but never printed, even when something else is wrong.
    let bad = root().join("tests/fixtures/invalid/06-replicas-out-of-range.yaml");
    let r = validate()
        .env("CONVERGE_KEY_SECRET", "s3cr3t-value-1234")
        .env("CONVERGE_OBS_TOKEN", "t0ken-value-5678")
        .run(["validate", "--format", "json", bad.to_str().unwrap()]);
    assert_eq!(r.code, 1);
    for secret in ["s3cr3t-value-1234", "t0ken-value-5678"] {
        assert!(!r.stdout.contains(secret) && !r.stderr.contains(secret));
    }
    assert!(
        !r.stdout.contains("config::env-unset"),
        "set variables give no warning"
    );
}

#[test]
fn a_secret_written_as_a_number_is_not_echoed() {
    let dir = Workspace::new();
    for (field, literal) in [("keySecret", "8472910365"), ("token", "90817263")] {
        let section = if field == "token" {
            "observability:\n  url: http://127.0.0.1:1\n  token: "
        } else {
            "cloud:\n  url: http://127.0.0.1:1\n  keyId: k\n  keySecret: "
        };
        let file = dir.write(
            &format!("{field}.yaml"),
            &format!("version: 1\norganization: 7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b\n{section}{literal}\n"),
        );
        for format in ["text", "json"] {
            let r = validate()
                .env("GITHUB_ACTIONS", "true")
                .run(["validate", "--format", format, &file]);
            r.assert_exit(1);
            let all = format!("{}{}", r.stdout, r.stderr);
            assert!(all.contains("config::literal-secret"), "{all}");
            assert!(!all.contains(literal), "{field}: {all}");
        }
    }
}

#[test]
fn an_invalid_target_does_not_make_references_to_it_dangle() {
    // Each target below exists but has a schema error: that error is reported, and the alerts
    // and the stack that name the target get no misleading "no such ..." on top.
    let dir = Workspace::new();
    let file = dir.write(
        "c.yaml",
        r#"version: 1
organization: 7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b
services:
  analytics:
    id: 5
stacks:
  prod:
    service: analytics
    dashboards:
      d1:
        name: D
        tiles:
          - name: T
            x: 0
            y: 0
            w: 6
            h: tall
            series: [{ type: time, source: Logs, aggFn: count }]
      d2:
        name: 5
        tiles: []
    alerts:
      a1:
        name: A
        dashboard: d1
        tile: T
        threshold: 1
        thresholdType: above
        interval: 5m
        channel: { type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }
      a2:
        name: B
        dashboard: d2
        tile: T
        threshold: 1
        thresholdType: above
        interval: 5m
        channel: { type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }
"#,
    );
    let (exit, items) = validate_json(&[file.as_ref()]);
    assert_eq!(exit, 1);
    let codes: Vec<(&str, u64)> = items
        .iter()
        .map(|d| (d["code"].as_str().unwrap(), d["line"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        codes,
        [
            ("schema::type", 5),
            ("schema::type", 17),
            ("schema::type", 20)
        ],
        "{items:?}"
    );
}

#[test]
fn a_literal_secret_stays_hidden_in_the_snippets_of_neighbouring_errors() {
    let dir = Workspace::new();
    let file = dir.write(
        "c.yaml",
        "version: 1\norganization: 7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b\ncloud:\n  url: http://x\n  keyId: 5\n  keySecret: hunter2supersecret\n  keyid: x\n",
    );
    let r = validate()
        .env("GITHUB_ACTIONS", "true")
        .run(["validate", &file]);
    assert_eq!(r.code, 1);
    // The neighbours are still shown with their snippets...
    assert!(r.stderr.contains("keyId: 5"), "{}", r.stderr);
    assert!(r.stderr.contains("keyid: x"), "{}", r.stderr);
    // ...but the secret's line between them is masked.
    let all = format!("{}{}", r.stdout, r.stderr);
    assert!(!all.contains("hunter2"), "{all}");

    // A literal secret dropped as a duplicate key is masked in the duplicate's own snippet.
    let file = dir.write(
        "c.yaml",
        "version: 1\norganization: 7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b\ncloud:\n  url: http://x\n  keyId: k\n  keySecret: ${env:S}\n  keySecret: hunter2second\n",
    );
    let r = validate().run(["validate", &file]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("config::duplicate-key"), "{}", r.stderr);
    assert!(!r.stderr.contains("hunter2"), "{}", r.stderr);
}

#[test]
fn an_alert_with_a_schema_error_still_gets_its_references_checked() {
    let dir = Workspace::new();
    let file = dir.write(
        "c.yaml",
        r#"version: 1
organization: 7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b
stacks:
  prod:
    api: observability
    dashboards:
      d1:
        name: D
        tiles:
          - name: T
            x: 0
            y: 0
            w: 6
            h: 4
            series: [{ type: time, source: Logs, aggFn: count }]
    alerts:
      a1:
        name: A
        dashboard: d1
        tile: Nope
        threshold: high
        thresholdType: above
        interval: 5m
        channel: { type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }
      a2:
        name: B
        dashboard: d9
        tile: T
        threshold: 1
        thresholdType: sideways
        interval: 5m
        channel: { type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }
"#,
    );
    let (exit, items) = validate_json(&[file.as_ref()]);
    assert_eq!(exit, 1);
    let codes: Vec<(&str, u64)> = items
        .iter()
        .map(|d| (d["code"].as_str().unwrap(), d["line"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        codes,
        [
            ("semantic::unknown-tile", 20),
            ("schema::type", 21),
            ("semantic::unknown-dashboard", 27),
            ("schema::enum", 30),
        ],
        "{items:?}"
    );
}

#[test]
fn unset_variables_warn_under_validate_but_fail_a_live_load() {
    let quickstart = root().join("examples/quickstart.yaml");
    let env = |_: &str| None;
    let offline = converge::config::load_with_env(
        std::slice::from_ref(&quickstart),
        converge::config::LoadMode::Offline,
        &env,
    );
    assert!(offline.config.is_some());
    assert_eq!(offline.error_count(), 0);
    let live = converge::config::load_with_env(
        std::slice::from_ref(&quickstart),
        converge::config::LoadMode::Live,
        &env,
    );
    assert!(live.config.is_none());
    assert_eq!(live.error_count(), 2, "{:?}", live.diagnostics);
}

#[test]
fn schema_command_prints_the_shipped_schema() {
    let r = validate().run(["schema"]);
    assert_eq!(r.code, 0);
    let shipped = std::fs::read_to_string(root().join("schema/converge.schema.json")).unwrap();
    assert_eq!(r.stdout, shipped);
    let schema: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
}

/// Values of the right shape for every variable the examples read.
fn plausible_env(name: &str) -> Option<String> {
    Some(if name.ends_with("_URL") {
        "https://example.com".to_string()
    } else if name.ends_with("_ORG_ID") {
        "7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b".to_string()
    } else {
        format!("value-of-{name}")
    })
}

/// Whether a pointer names a secret field: the API secrets, and a pipe's credentials.
fn is_secret(pointer: &str) -> bool {
    const CREDENTIALS: [&str; 8] = [
        "username",
        "password",
        "accessKeyId",
        "secretKey",
        "connectionString",
        "certificate",
        "privateKey",
        "serviceAccountKey",
    ];
    ["/cloud/keySecret", "/observability/token"].contains(&pointer)
        || (pointer.starts_with("/services/")
            && pointer.contains("/source/")
            && pointer
                .rsplit('/')
                .next()
                .is_some_and(|leaf| CREDENTIALS.contains(&leaf)))
}

/// The YAML read by serde-saphyr alone (strict booleans) as JSON, with `${env:...}` expanded
/// from a fixed environment, except the secret fields which the schema wants as references.
fn as_schema_instance(text: &str) -> Option<Value> {
    let options = serde_saphyr::options! { strict_booleans: true };
    let mut value: Value = serde_saphyr::from_str_with_options(text, options).ok()?;
    fn expand(v: &mut Value, pointer: &str) {
        match v {
            Value::String(s) if !is_secret(pointer) => {
                if let Ok(e) = converge::config::interpolate::expand(s, &plausible_env) {
                    *s = e.text;
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter_mut().enumerate() {
                    expand(item, &format!("{pointer}/{i}"));
                }
            }
            Value::Object(map) => {
                for (k, item) in map.iter_mut() {
                    expand(item, &format!("{pointer}/{k}"));
                }
            }
            _ => {}
        }
    }
    expand(&mut value, "");
    Some(value)
}

fn example_texts() -> Vec<(PathBuf, String)> {
    let mut files = vec![root().join("examples/quickstart.yaml")];
    let mut production: Vec<PathBuf> = std::fs::read_dir(root().join("examples/production"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    production.sort();
    files.extend(production);
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .collect()
}

/// The schema and the Rust types agree: the examples pass both, and each invalid fixture of a
/// schema-level kind fails both, while the semantic fixtures pass the schema and fail only the
/// Rust rules (the layer split the docs describe).
#[test]
fn schema_and_rust_types_agree_on_examples_and_fixtures() {
    let schema: Value = serde_json::from_str(converge::config::SCHEMA).unwrap();
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    let env = plausible_env;

    let examples = example_texts();
    for (path, text) in &examples {
        let instance = as_schema_instance(text).unwrap();
        // A single production file is a fragment; check the merged whole below.
        if path.starts_with(root().join("examples/production")) {
            continue;
        }
        let errors: Vec<String> = validator
            .iter_errors(&instance)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}", path.display());
    }
    let mut merged = serde_json::Map::new();
    for (path, text) in &examples {
        if !path.starts_with(root().join("examples/production")) {
            continue;
        }
        for (k, v) in as_schema_instance(text).unwrap().as_object().unwrap() {
            match (merged.get_mut(k), v) {
                (Some(Value::Object(into)), Value::Object(more)) => {
                    into.extend(more.clone());
                }
                _ => {
                    merged.insert(k.clone(), v.clone());
                }
            }
        }
    }
    let errors: Vec<String> = validator
        .iter_errors(&Value::Object(merged))
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "examples/production: {errors:?}");
    let quickstart = &examples[..1];
    let loaded = converge::config::load_texts(quickstart, converge::config::LoadMode::Live, &env);
    assert!(loaded.config.is_some(), "{:?}", loaded.diagnostics);
    let production = &examples[1..];
    let loaded = converge::config::load_texts(production, converge::config::LoadMode::Live, &env);
    let config = loaded
        .config
        .unwrap_or_else(|| panic!("{:?}", loaded.diagnostics));
    assert_eq!(config.services.len(), 2);
    assert_eq!(config.stacks.len(), 2);

    let schema_level = |code: &str| {
        code.starts_with("schema::")
            || code.starts_with("yaml::")
            || [
                "config::unknown-key",
                "config::duplicate-key",
                "config::literal-secret",
            ]
            .contains(&code)
    };
    for file in fixtures() {
        let (code, _, _) = expectation(&file);
        let text = std::fs::read_to_string(&file).unwrap();
        let schema_ok = as_schema_instance(&text).is_some_and(|v| validator.is_valid(&v));
        let loaded = converge::config::load_texts(
            &[(file.clone(), text)],
            converge::config::LoadMode::Offline,
            &env,
        );
        assert!(
            loaded.config.is_none(),
            "{}: the Rust types accepted it",
            file.display()
        );
        if schema_level(&code) {
            assert!(!schema_ok, "{}: the schema accepted it", file.display());
        } else {
            assert!(
                schema_ok,
                "{}: a {code} fixture should pass the schema",
                file.display()
            );
        }
    }
}

fn valid_texts() -> Vec<String> {
    example_texts().into_iter().map(|(_, t)| t).collect()
}

/// Bytes that mean something to YAML or to interpolation.
const YAML_BYTES: &[u8] = b"-:{}[]&*!|>'\"#%@ \n\t,?y0.~$";

/// Mutations that keep text mostly YAML-shaped, to reach deep into the checks.
fn mutate(text: &str, ops: &[(u8, usize, u8)]) -> Vec<u8> {
    let mut bytes = text.as_bytes().to_vec();
    for &(op, at, byte) in ops {
        if bytes.is_empty() {
            bytes.push(byte);
            continue;
        }
        let i = at % bytes.len();
        match op % 5 {
            0 => bytes[i] = byte,
            1 => {
                bytes.remove(i);
            }
            2 => bytes.insert(i, YAML_BYTES[usize::from(byte) % YAML_BYTES.len()]),
            3 => {
                let end = (i + usize::from(byte)).min(bytes.len());
                let chunk = bytes[i..end].to_vec();
                bytes.splice(i..i, chunk);
            }
            _ => {
                let end = (i + usize::from(byte) % 16).min(bytes.len());
                bytes.drain(i..end);
            }
        }
    }
    bytes
}

fn assert_exit_0_or_1(bytes: &[u8]) -> Result<(), TestCaseError> {
    let dir = Workspace::new();
    let file = dir.file("fuzz.yaml");
    std::fs::write(&file, bytes).unwrap();
    let out: Outcome = validate().run(["validate", "--format", "json", &file]);
    let code = out.code;
    prop_assert!(
        matches!(code, 0 | 1),
        "exit {code} (101 is a panic, -1 a signal); stderr: {}",
        out.stderr
    );
    prop_assert!(
        serde_json::from_str::<Value>(&out.stdout).is_ok(),
        "stdout stays JSON"
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn mutated_valid_configs_never_panic(
        which in 0usize..8,
        ops in proptest::collection::vec((any::<u8>(), any::<usize>(), any::<u8>()), 1..8),
    ) {
        let texts = valid_texts();
        let text = &texts[which % texts.len()];
        assert_exit_0_or_1(&mutate(text, &ops))?;
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        assert_exit_0_or_1(&bytes)?;
    }
}

/// A schema error inside a stack is found at its line whether the stack and its dashboards are
/// written as themselves or as a template's instances, and a stack entry that is no mapping is
/// checked as the schema's `if` chooses (as instances, then as neither): the schema check
/// validates each stack's dashboards and alerts apart, and picks each entry's branch itself.
#[test]
fn schema_errors_inside_stacks_and_their_instances_are_at_their_lines() {
    let quickstart = crate::common::quickstart();
    let services = quickstart.split("\nstacks:\n").next().unwrap_or_default();
    let text = format!(
        "{services}
templates:
  env-stack:
    parameters:
      env: string
    stack:
      service: analytics
      dashboards:
        health:
          name: Health (${{env}})
          colour: red
          tiles: []
  board:
    parameters:
      team: string
    dashboard:
      name: Board of ${{team}}
      tilez: []
stacks:
  plain:
    service: analytics
    dashboards:
      overview:
        name: Overview
        tiles:
          - name: Errors
            x: 0
            y: 0
            w: 6
            h: 4
            sizeX: 3
            series:
              - type: time
                source: Logs
                aggFn: count
      boards:
        template: board
        forEach: [{{ key: a, team: a }}]
    alerts:
      errors:
        name: Errors
        dashboard: overview
        tile: Errors
        threshold: high
        thresholdType: above
        interval: 5m
        channel: {{ type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }}
  env:
    template: env-stack
    forEach: [{{ key: prod, env: prod }}]
  broken: 5
"
    );
    let dir = Workspace::new();
    let file = dir.write("c.yaml", &text);
    let r = validate()
        .env("CONVERGE_KEY_SECRET", "unused")
        .env("CONVERGE_OBS_TOKEN", "unused")
        .run(["validate", &file]);
    r.assert_exit(1);
    // c.yaml:48 `colour` (env[prod]'s dashboard, its template's line), :55 `tilez` (boards[a]),
    // :68 `sizeX` (a plain stack's tile), :83 `threshold`, :91 `broken` twice.
    crate::common::converge_snapshot!("validate_schema_errors_inside_stacks", r);
}

/// Diagnostics wrap at the width `COLUMNS` gives (a narrow terminal), between words, so the
/// terminal never wraps them again in the middle of one.
#[test]
fn diagnostics_wrap_at_the_width_columns_gives() {
    let dir = crate::common::Workspace::new();
    let path = dir.write(
        "narrow.yaml",
        "version: 1\nservices:\n  a:\n    id: 1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11\n    scaling: { numReplicas: 0 }\n",
    );
    let wide = crate::common::Converge::offline().run(["validate", path.as_str()]);
    wide.assert_exit(1);
    assert!(
        wide.stderr.lines().any(|l| l.chars().count() > 60),
        "{}",
        wide.stderr
    );
    let narrow = crate::common::Converge::offline()
        .env("COLUMNS", "60")
        .run(["validate", path.as_str()]);
    narrow.assert_exit(1);
    let long: Vec<&str> = narrow
        .stderr
        .lines()
        .filter(|l| l.chars().count() > 60)
        .collect();
    assert!(long.is_empty(), "wider than 60: {long:#?}");
    assert_eq!(
        crate::common::words(&narrow.stderr).replace(&*dir.path().to_string_lossy(), ""),
        crate::common::words(&wide.stderr).replace(&*dir.path().to_string_lossy(), ""),
        "the same words, only wrapped elsewhere"
    );
    crate::common::converge_snapshot!("narrow_diagnostics", narrow);
}

/// One mistake, one error: a misspelt required key is reported once, as an unknown key with its
/// "did you mean", not also as the required key it misses.
#[test]
fn a_misspelt_required_key_is_one_error() {
    let dir = crate::common::Workspace::new();
    let config =
        crate::common::quickstart().replace("        threshold: 100", "        treshold: 100");
    let path = dir.write("c.yaml", &config);
    let out = crate::common::Converge::offline().run(["validate", path.as_str()]);
    out.assert_exit(1);
    assert!(
        out.stderr.contains("unknown key `treshold`"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("did you mean `threshold`?"),
        "{}",
        out.stderr
    );
    assert!(
        !out.stderr.contains("missing the required key"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("1 error(s) in the configuration"),
        "{}",
        out.stderr
    );
}

/// A wrong indent names the key at the wrong depth and the depth of its neighbours, whether the
/// parser stops on that line (too shallow, too deep) or on the line after it.
#[test]
fn a_wrong_indent_names_the_key_at_the_wrong_depth() {
    let cases = [
        (
            "      idleScaling: true",
            "     idleScaling: true",
            "`idleScaling` is indented 5 spaces where the keys around it have 6 spaces",
            "c.yaml:19:6",
        ),
        (
            "      idleScaling: true",
            "        idleScaling: true",
            "`idleScaling` is indented 8 spaces where the keys around it have 6 spaces",
            "c.yaml:19:9",
        ),
        (
            "        threshold: 100",
            "      threshold: 100",
            "`threshold` is indented 6 spaces where the keys around it have 8 spaces",
            "c.yaml:78:7",
        ),
    ];
    for (line, wrong, message, place) in cases {
        let dir = crate::common::Workspace::new();
        let config = crate::common::quickstart().replace(line, wrong);
        let path = dir.write("c.yaml", &config);
        let out = crate::common::Converge::offline().run(["validate", path.as_str()]);
        out.assert_exit(1);
        let text = crate::common::words(&out.stderr);
        assert!(text.contains(message), "{}", out.stderr);
        assert!(out.stderr.contains(place), "{}", out.stderr);
        assert!(
            out.stderr.contains("1 error(s) in the configuration"),
            "{}",
            out.stderr
        );
    }
}

/// A file that does not parse is missing from the merged config, so the other files' checks are
/// not run against its absence: a tab in the services file is one error, not also "the config is
/// missing `organization`" or "stack prod names service analytics, which is not a key".
#[test]
fn a_file_that_does_not_parse_is_its_own_one_error() {
    let dir = crate::common::Workspace::new();
    let config = crate::common::quickstart();
    let (head, stacks) = config.split_at(config.find("stacks:").unwrap());
    dir.write(
        "a.yaml",
        &head.replace("      numReplicas: 3", "\t numReplicas: 3"),
    );
    dir.write("b.yaml", &format!("version: 1\n{stacks}"));
    let out = crate::common::Converge::offline().run(["validate", &*dir.path().to_string_lossy()]);
    out.assert_exit(1);
    assert!(out.stderr.contains("yaml::tab"), "{}", out.stderr);
    assert!(
        out.stderr.contains("1 error(s) in the configuration"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("b.yaml"), "{}", out.stderr);
}
