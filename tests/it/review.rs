//! The pull-request loop (issue 25), through the binary: under `GITHUB_ACTIONS=true` stdout
//! carries exactly one document and annotations go to stderr; the Markdown comment and the JSON
//! carry every warning the text shows; the comment renders on a GFM renderer without visible
//! escapes; a stale saved plan says what changed field by field; `drift --ignore` never names
//! an ignored field; `apply --wait` says what is pending and when all shows; validation reports
//! every problem with a `help:` line.

use std::path::Path;
use std::time::Duration;

use converge::sandbox::SandboxOptions;
use serde_json::Value;

use crate::apply::{binary, save_plan};
use crate::common::{self, ANALYTICS, Converge, Workspace, quickstart, root};

/// The HTML a GFM renderer (pulldown-cmark, with GitHub's extensions) makes of `markdown`.
pub(crate) fn gfm(markdown: &str) -> String {
    use pulldown_cmark::{Options, Parser, html};
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES;
    let mut out = String::new();
    html::push_html(&mut out, Parser::new_ext(markdown, options));
    out
}

/// The text a reader sees once `markdown` is rendered: the HTML without its tags, entities
/// decoded.
pub(crate) fn visible_text(markdown: &str) -> String {
    let html = gfm(markdown);
    let mut text = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    [
        ("&quot;", "\""),
        ("&#39;", "'"),
        ("&#96;", "`"),
        ("&lt;", "<"),
        ("&gt;", ">"),
        ("&amp;", "&"),
    ]
    .iter()
    .fold(text, |text, (entity, c)| text.replace(entity, c))
}

/// The backslash escapes a reader would see once `markdown` is rendered: a `\` followed by
/// ASCII punctuation in the HTML (a renderer consumes every escape it processes).
pub(crate) fn visible_escapes(markdown: &str) -> Vec<String> {
    let html = gfm(markdown);
    let chars: Vec<char> = html.chars().collect();
    chars
        .windows(2)
        .enumerate()
        .filter(|(_, pair)| pair[0] == '\\' && pair[1].is_ascii_punctuation())
        .map(|(at, _)| {
            let from = at.saturating_sub(30);
            chars[from..(at + 30).min(chars.len())].iter().collect()
        })
        .collect()
}

/// A plan under `--only alert.prod.*` on a fresh sandbox keeps the alert's create and leaves
/// out the dashboard it waits for: a `plan::only-leaves-out-dependency` warning.
const ONLY_ALERTS: [&str; 2] = ["--only", "alert.prod.*"];

#[test]
fn under_actions_annotations_go_to_stderr_and_stdout_is_one_document() {
    let sandbox = common::fast_sandbox();
    let converge = Converge::new(&sandbox)
        .fast()
        .github_actions()
        .config(&quickstart());
    for command in ["plan", "drift"] {
        let markdown = converge.run([
            command,
            "--format",
            "markdown",
            ONLY_ALERTS[0],
            ONLY_ALERTS[1],
        ]);
        assert!(markdown.code == 0 || markdown.code == 2, "{markdown:?}");
        assert!(
            markdown.stdout.starts_with("<!-- converge-"),
            "{command}: the comment starts with its marker:\n{}",
            markdown.stdout
        );
        assert!(
            !markdown.stdout.contains("::warning"),
            "{}",
            markdown.stdout
        );
        assert!(
            markdown.stderr.contains("::warning ")
                && markdown
                    .stderr
                    .contains("title=plan%3A%3Aonly-leaves-out-dependency"),
            "{command}: the annotation reaches the log:\n{}",
            markdown.stderr
        );
        let json = converge.run([command, "--format", "json", ONLY_ALERTS[0], ONLY_ALERTS[1]]);
        assert!(
            serde_json::from_str::<Value>(&json.stdout).is_ok(),
            "{command}: stdout is one JSON document:\n{}",
            json.stdout
        );
        assert!(json.stderr.contains("::warning "), "{}", json.stderr);
        let text = converge.run([command, ONLY_ALERTS[0], ONLY_ALERTS[1]]);
        assert!(!text.stdout.contains("::warning"), "{}", text.stdout);
        assert!(text.stderr.contains("::warning "), "{}", text.stderr);
    }
}

#[test]
fn the_comment_and_the_json_carry_every_warning_the_text_shows() {
    let sandbox = common::fast_sandbox();
    let converge = Converge::new(&sandbox).fast().config(&quickstart());
    // A partial plan that leaves out a step it needs.
    let text = converge.run(["plan", ONLY_ALERTS[0], ONLY_ALERTS[1]]);
    text.assert_exit(0);
    assert!(
        text.stderr.contains("plan::only-leaves-out-dependency"),
        "{}",
        text.stderr
    );
    let markdown = converge.run([
        "plan",
        "--format",
        "markdown",
        ONLY_ALERTS[0],
        ONLY_ALERTS[1],
    ]);
    assert!(
        markdown.stdout.contains("#### Warnings")
            && markdown.stdout.contains("plan::only-leaves-out-dependency"),
        "{}",
        markdown.stdout
    );
    assert!(
        markdown.stdout.contains("help: add an "),
        "{}",
        markdown.stdout
    );
    let json = converge
        .run(["plan", "--format", "json", ONLY_ALERTS[0], ONLY_ALERTS[1]])
        .json();
    let codes: Vec<&str> = json["warnings"]
        .as_array()
        .map(|w| w.iter().filter_map(|w| w["code"].as_str()).collect())
        .unwrap_or_default();
    assert!(
        codes.contains(&"plan::only-leaves-out-dependency"),
        "{json:#}"
    );

    // An idle service whose pipe writes will fail with 424.
    common::Client::new(&sandbox).cloud(
        "PATCH",
        &format!("/services/{ANALYTICS}/state"),
        Some(serde_json::json!({"command": "stop"})),
    );
    let idle = "service `analytics` is `stopped`, not running: its 3 pipe changes will fail \
                with 424 unless `converge apply --wake` wakes it first";
    let text = converge.run(["plan"]);
    assert!(text.stderr.contains(idle), "{}", text.stderr);
    let markdown = converge.run(["plan", "--format", "markdown"]);
    assert!(
        markdown
            .stdout
            .contains("is `stopped`, not running: its 3 pipe changes will fail with 424"),
        "{}",
        markdown.stdout
    );
    let json = converge.run(["plan", "--format", "json"]).json();
    assert!(
        json["warnings"]
            .as_array()
            .is_some_and(|w| w.iter().any(|w| w["message"] == idle)),
        "{json:#}"
    );
    // No warning, no section: a plan without warnings renders as before.
    let quiet = Converge::new(&common::fast_sandbox())
        .fast()
        .config(&quickstart())
        .run(["plan", "--format", "json"])
        .json();
    assert!(quiet.get("warnings").is_none(), "{quiet:#}");
}

#[test]
fn a_likely_rename_is_in_the_comment() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let config = workspace.write("converge.yaml", &quickstart());
    converge
        .run(["apply", config.as_str(), "--yes"])
        .assert_exit(0);
    let renamed = quickstart().replacen(
        "        name: API health\n",
        "        name: API Health overview\n",
        1,
    );
    let config = workspace.write("converge.yaml", &renamed);
    let markdown = converge.run(["plan", config.as_str(), "--format", "markdown"]);
    markdown.assert_exit(0);
    assert!(
        markdown.stdout.contains("plan::maybe-renamed")
            && markdown.stdout.contains("converge.yaml:")
            && markdown.stdout.contains("`renamedFrom: [API health]`"),
        "{}",
        markdown.stdout
    );
    assert!(
        visible_escapes(&markdown.stdout).is_empty(),
        "{}",
        gfm(&markdown.stdout)
    );
}

#[test]
fn pruned_objects_render_without_visible_escapes_on_a_gfm_renderer() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    // A dashboard and an alert the config then drops with prune on: each is a destroy whose
    // address quotes its name, inside `<details><summary>` (a raw HTML block).
    let config = workspace.write("converge.yaml", &quickstart());
    converge
        .run(["apply", config.as_str(), "--yes"])
        .assert_exit(0);
    let pruned = quickstart()
        .replacen("prune: false", "prune: true", 1)
        .replacen(
            "        name: API errors\n",
            "        name: API errors [v2]\n",
            1,
        );
    let config = workspace.write("converge.yaml", &pruned);
    let markdown = converge.run(["plan", config.as_str(), "--format", "markdown"]);
    markdown.assert_exit(0);
    let html = gfm(&markdown.stdout);
    assert!(
        visible_text(&markdown.stdout).contains("alert.prod[\"API errors\"]"),
        "the pruned alert shows its address as written:\n{html}"
    );
    assert!(
        visible_escapes(&markdown.stdout).is_empty(),
        "{:?}\n{html}",
        visible_escapes(&markdown.stdout)
    );
}

#[test]
fn a_stale_saved_plan_says_what_changed_field_by_field() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let config = workspace.write("converge.yaml", &quickstart());
    converge
        .run(["apply", config.as_str(), "--yes"])
        .assert_exit(0);
    let config = workspace.write(
        "converge.yaml",
        &quickstart().replacen("threshold: 100", "threshold: 150", 1),
    );
    let saved = save_plan(&converge, &workspace, &config);
    // Someone moves the threshold after the plan was saved.
    let client = common::Client::new(&sandbox);
    let alert = common::alerts(&sandbox)
        .into_iter()
        .find(|a| a["name"] == "API errors")
        .expect("the applied alert");
    let id = alert["id"].as_str().expect("an alert id");
    let mut body = alert.clone();
    body["threshold"] = serde_json::json!(75);
    // Reads name the dashboard `dashboard`; a write wants `dashboardId`.
    if body.get("dashboardId").is_none() {
        body["dashboardId"] = alert["dashboard"].clone();
    }
    if let Some(map) = body.as_object_mut() {
        for key in ["id", "createdAt", "updatedAt", "state", "teamId"] {
            map.remove(key);
        }
    }
    let put = client.cloud(
        "PUT",
        &format!("/services/{ANALYTICS}/stack/alerts/{id}"),
        Some(body),
    );
    assert_eq!(
        common::alerts(&sandbox)
            .iter()
            .find(|a| a["id"] == id)
            .map(|a| a["threshold"].clone()),
        Some(serde_json::json!(75)),
        "the alert changed: {}",
        put.text
    );
    let applied = converge.run(["apply", "--plan", saved.as_str(), "--yes"]);
    applied.assert_exit(3);
    assert!(
        applied
            .stderr
            .contains("alert.prod.api-errors: threshold 100 -> 75 since the plan was made"),
        "{}",
        applied.stderr
    );
    // Only what changed: not the dashboard and tile the plan named, read back as ids.
    let lines = applied
        .stderr
        .lines()
        .filter(|l| l.ends_with("since the plan was made"))
        .count();
    assert_eq!(lines, 1, "{}", applied.stderr);
}

#[test]
fn drift_never_names_an_ignored_field_in_its_heading() {
    let sandbox = common::fast_sandbox();
    let converge = Converge::new(&sandbox).fast().config(&quickstart());
    let whole = converge.run(["drift", "--format", "json"]).json();
    let reason = |report: &Value| {
        report["changed"]
            .as_array()
            .and_then(|c| {
                c.iter()
                    .find(|c| c["address"] == "service.analytics.scaling")
            })
            .and_then(|c| c["reason"].as_str())
            .unwrap_or_default()
            .to_string()
    };
    assert!(reason(&whole).contains("numReplicas"), "{whole:#}");
    let ignoring = ["drift", "--ignore", "service.analytics.scaling.numReplicas"];
    let json = converge
        .run(ignoring.iter().copied().chain(["--format", "json"]))
        .json();
    assert!(!reason(&json).is_empty(), "{json:#}");
    assert!(!reason(&json).contains("numReplicas"), "{json:#}");
    let text = converge.run(ignoring);
    let heading = text
        .stdout
        .lines()
        .find(|l| l.contains("service.analytics.scaling"))
        .unwrap_or_default();
    assert!(
        !heading.is_empty() && !heading.contains("numReplicas"),
        "{}",
        text.stdout
    );
}

#[test]
fn apply_wait_says_what_is_pending_and_when_all_shows() {
    let sandbox = common::sandbox(SandboxOptions {
        rate_limit: false,
        scaling_delay: Duration::from_secs(1),
        ..SandboxOptions::default()
    });
    let workspace = Workspace::new();
    let config = workspace.write("converge.yaml", &quickstart());
    let applied = binary(&sandbox, &workspace).run([
        "apply",
        config.as_str(),
        "--yes",
        "--wait",
        "--timeout",
        "60s",
    ]);
    applied.assert_exit(0);
    let last = applied
        .stderr
        .lines()
        .rfind(|l| l.starts_with("scaling shows: "))
        .unwrap_or_default();
    assert!(
        last.ends_with("all 4 scaling change(s) show"),
        "{}",
        applied.stderr
    );
}

#[test]
fn declining_at_the_prompt_is_documented_as_exit_4() {
    let help = Converge::offline().run(["apply", "--help"]);
    help.assert_exit(0);
    assert!(
        help.stdout
            .contains("a confirmation declined at the prompt"),
        "{}",
        help.stdout
    );
    let readme = std::fs::read_to_string(root().join("README.md")).expect("the README");
    assert!(readme.contains("a confirmation declined at the prompt"));
}

#[test]
fn every_problem_of_every_invalid_fixture_has_a_help_line() {
    let dir = root().join("tests/fixtures/invalid");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the fixtures")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    let mut missing = Vec::new();
    for file in &files {
        let path = file.to_string_lossy().to_string();
        let out = Converge::offline().run(["validate", "--format", "json", path.as_str()]);
        let items: Vec<Value> = serde_json::from_str(&out.stdout).unwrap_or_default();
        for item in items {
            if item["help"].as_str().is_none_or(str::is_empty) {
                missing.push(format!("{}: {}", item["code"], item["message"]));
            }
        }
    }
    assert!(missing.is_empty(), "no help line:\n{}", missing.join("\n"));
}

#[test]
fn schema_and_semantic_problems_come_in_one_run() {
    let dir = Workspace::new();
    let text = format!(
        "{}      api-errors-again:\n        name: API errors\n        dashboard: api-health\n        tile: Requests\n        threshold: 5\n        thresholdType: above\n        interval: 5m\n        channel: {{ type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }}\n",
        quickstart()
            .replacen("numReplicas: 3", "numReplicas: 0", 1)
            .replacen("idleTimeoutMinutes: 15", "idleTimeoutMinutes: 1", 1)
            .replacen("replicas: 4,", "replicas: 0,", 1)
            .replacen("concurrency: 8", "concurrency: -1", 1)
    );
    let path = dir.write("config.yaml", &text);
    let out = Converge::offline().run(["validate", "--format", "json", path.as_str()]);
    out.assert_exit(1);
    let items: Vec<Value> = serde_json::from_str(&out.stdout).expect("JSON");
    let codes: Vec<&str> = items.iter().filter_map(|i| i["code"].as_str()).collect();
    assert!(
        codes.iter().filter(|c| c.starts_with("schema::")).count() >= 4,
        "{codes:?}"
    );
    assert!(
        codes.contains(&"semantic::duplicate-alert-name"),
        "{codes:?}"
    );
}

#[test]
fn the_guides_preview_is_what_the_command_prints_and_draws() {
    let readme = std::fs::read_to_string(root().join("docs/preview.md")).expect("the chapter");
    let command = "COLUMNS=80 converge preview --sandbox alert.obs.busy docs/preview.yaml \\\n  \
                   --end 2026-11-21T06:00:00Z --svg preview.svg\n";
    assert!(
        readme.contains(command),
        "the guide's example writes a scratch file, never docs/preview.svg"
    );
    let start = readme
        .find("```text\nalert.obs.busy")
        .expect("the guide shows the preview's text");
    let shown = &readme[start + "```text\n".len()..];
    let shown = &shown[..shown.find("```\n").expect("the block ends")];
    let workspace = Workspace::new();
    let svg = workspace.file("preview.svg");
    let config = root().join("docs/preview.yaml");
    let out = Converge::offline()
        .cwd(&workspace)
        .env("COLUMNS", "80")
        .run([
            "preview",
            "--sandbox",
            "alert.obs.busy",
            config.to_str().expect("a UTF-8 path"),
            "--end",
            "2026-11-21T06:00:00Z",
            "--svg",
            svg.as_str(),
        ]);
    out.assert_exit(0);
    assert_eq!(
        out.stdout, shown,
        "the guide's text is what the command prints"
    );
    let drawn = std::fs::read_to_string(&svg).expect("the SVG is written");
    let committed =
        std::fs::read_to_string(root().join("docs/preview.svg")).expect("docs/preview.svg");
    assert!(
        drawn == committed,
        "docs/preview.svg is what the command draws"
    );
    let firings = shown
        .lines()
        .find_map(|l| l.strip_prefix("would have fired "))
        .and_then(|l| l.split_whitespace().next())
        .expect("a firing count");
    assert!(
        readme.contains(&format!(
            "the threshold at 400 and {firings} firings shaded"
        )),
        "the picture's caption counts {firings} firings"
    );
}

#[test]
fn a_dashboard_adopted_through_export_and_dropped_with_prune_is_never_no_changes() {
    let sandbox = common::fast_sandbox();
    let converge = Converge::new(&sandbox).fast();
    let exported = converge.run(["export", "--stack", ANALYTICS]);
    exported.assert_exit(0);
    let yaml = exported.stdout;
    // An export plans to no changes.
    let planned = converge
        .clone()
        .config_as("exported.yaml", &yaml)
        .run(["plan", "--detailed-exitcode"]);
    planned.assert_exit(0);
    assert!(
        planned
            .stdout
            .contains("No changes: the live state matches the config."),
        "{}",
        planned.stdout
    );
    // The dashboard (and its alert) dropped from the config, prune on: converge does not own
    // it (export adds no tag), so prune leaves it, and the plan says so.
    let cut = yaml
        .find("    dashboards:\n")
        .expect("the exported dashboards");
    let dropped = format!("{}    prune: true\n", &yaml[..cut]);
    let planned = converge
        .clone()
        .config_as("exported.yaml", &dropped)
        .run(["plan", "--detailed-exitcode"]);
    planned.assert_exit(0);
    assert!(!planned.stdout.contains("No changes"), "{}", planned.stdout);
    assert!(
        planned.stdout.contains(
            "! dashboard.analytics[\"On-call overview\"]  (not owned by converge (no \
             `converge:analytics` tag) and not in the config, so prune leaves it as is"
        ),
        "{}",
        planned.stdout
    );
    let json = converge
        .clone()
        .config_as("exported.yaml", &dropped)
        .run(["plan", "--format", "json"])
        .json();
    assert!(
        json["unmanaged"].as_array().is_some_and(|u| u
            .iter()
            .any(|u| u["address"] == "dashboard.analytics[\"On-call overview\"]")),
        "{json:#}"
    );
    // Acknowledged in `ignore:`, it is counted in one line, not listed in every plan; the
    // JSON still has it, marked; drift lists it under "Ignored".
    let acknowledged = format!("{dropped}ignore:\n  - dashboard.analytics[\"On-call overview\"]\n");
    let planned = converge
        .clone()
        .config_as("exported.yaml", &acknowledged)
        .run(["plan", "--detailed-exitcode"]);
    planned.assert_exit(0);
    assert!(
        planned
            .stdout
            .contains("No changes: the live state matches the config."),
        "{}",
        planned.stdout
    );
    assert!(
        !planned.stdout.contains("Not managed"),
        "{}",
        planned.stdout
    );
    assert!(
        planned.stdout.contains(
            "1 live object not managed is acknowledged by the config's `ignore:` and not listed."
        ),
        "{}",
        planned.stdout
    );
    let json = converge
        .clone()
        .config_as("exported.yaml", &acknowledged)
        .run(["plan", "--format", "json"])
        .json();
    assert_eq!(
        json["acknowledged"],
        serde_json::json!(["dashboard.analytics[\"On-call overview\"]"]),
        "{json:#}"
    );
    let markdown = converge
        .clone()
        .config_as("exported.yaml", &acknowledged)
        .run(["plan", "--format", "markdown"]);
    assert!(
        !markdown.stdout.contains("Not managed"),
        "{}",
        markdown.stdout
    );
    assert!(
        markdown.stdout.contains("acknowledged by the config"),
        "{}",
        markdown.stdout
    );
    let drift = converge
        .clone()
        .config_as("exported.yaml", &acknowledged)
        .run(["drift"]);
    assert!(drift.stdout.contains("Ignored"), "{}", drift.stdout);
}

#[test]
fn an_export_right_after_an_apply_says_a_scaling_change_is_in_flight() {
    let sandbox = common::sandbox(SandboxOptions {
        rate_limit: false,
        scaling_delay: Duration::from_secs(600),
        quirks: vec![converge::sandbox::Quirk::ScalingGaps],
        ..SandboxOptions::default()
    });
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let config = workspace.write("converge.yaml", &quickstart());
    converge
        .run(["apply", config.as_str(), "--yes"])
        .assert_exit(0);
    let exported = converge.run(["export", "--service", ANALYTICS]);
    exported.assert_exit(0);
    assert!(
        exported.stderr.contains(
            "warning: pipe `orders`: its scaling reads `replicas`, `replicaCpuMillicores`, \
             `replicaMemoryGb` as null or 0, as while a scaling change is still in flight"
        ),
        "{}",
        exported.stderr
    );
    // Settled, the same export says nothing of the kind.
    let settled =
        binary(&common::fast_sandbox(), &workspace).run(["export", "--service", ANALYTICS]);
    settled.assert_exit(0);
    assert!(!settled.stderr.contains("in flight"), "{}", settled.stderr);
}

/// The file names a document writes in code spans (`path/to/file.ext`, `file.ext`), as written.
fn file_spans(text: &str) -> impl Iterator<Item = &str> {
    const EXTENSIONS: [&str; 8] = [
        ".md", ".rs", ".json", ".yaml", ".yml", ".svg", ".toml", ".sh",
    ];
    text.split('`').skip(1).step_by(2).filter(|span| {
        !span.contains([' ', '*', '{', '<', '$', '~', ':'])
            && !span.starts_with('/')
            && !span.starts_with(".converge/")
            && EXTENSIONS.iter().any(|e| span.ends_with(e))
    })
}

/// The files a document names by their path (`path/to/file.ext`), as written.
fn named_files(text: &str) -> Vec<String> {
    file_spans(text)
        .filter(|span| span.contains('/'))
        .map(String::from)
        .collect()
}

/// The names of every file in the repository's tree (build output and git left out).
fn file_names_in(dir: &Path, names: &mut std::collections::BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).expect("a readable directory") {
        let entry = entry.expect("an entry");
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.file_type().expect("a type").is_dir() {
            if name != "target" && name != ".git" {
                file_names_in(&entry.path(), names);
            }
        } else {
            names.insert(name);
        }
    }
}

/// The user's guide (README.md and docs/) names no document a clone lacks, by path or by a bare
/// file name (the API's reference documents beside the project's checkout are not in a clone).
#[test]
fn the_guide_names_by_file_name_only_files_a_clone_has() {
    let root = root();
    let mut names = std::collections::BTreeSet::new();
    file_names_in(&root, &mut names);
    let mut docs = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("docs")).expect("docs/") {
        let path = entry.expect("an entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            docs.push(path);
        }
    }
    let mut missing = Vec::new();
    for doc in &docs {
        let text = std::fs::read_to_string(doc).expect("the document");
        for span in file_spans(&text).filter(|span| !span.contains('/')) {
            if !names.contains(span) {
                missing.push(format!("{}: `{span}`", doc.display()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "named, but no file of the repository:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_readme_and_the_docs_name_only_files_inside_the_repository() {
    let root = root().canonicalize().expect("the repository");
    let mut missing = Vec::new();
    let mut docs: Vec<String> = ["README.md", "examples/ci/README.md", "CONFORMANCE.md"]
        .map(String::from)
        .to_vec();
    for entry in std::fs::read_dir(root.join("docs")).expect("docs/") {
        let name = entry.expect("an entry").file_name();
        let name = name.to_string_lossy();
        if name.ends_with(".md") {
            docs.push(format!("docs/{name}"));
        }
    }
    docs.sort();
    assert!(docs.len() > 10, "{docs:?}");
    for doc in &docs {
        let text = std::fs::read_to_string(root.join(doc)).expect("the document");
        for file in named_files(&text) {
            let inside = root.join(&file);
            if !inside.exists() || !inside.canonicalize().is_ok_and(|p| p.starts_with(&root)) {
                missing.push(format!("{doc}: `{file}`"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "not in the repository:\n{}",
        missing.join("\n")
    );
}

/// What a message quotes between backticks reads as code on GitHub, never as the backticks
/// themselves (`&#96;` showed them as written): warnings, reasons, checks and "Not managed".
#[test]
fn the_comment_shows_quoted_words_as_code_not_as_backticks() {
    let sandbox = common::fast_sandbox();
    common::Client::new(&sandbox).cloud(
        "PATCH",
        &format!("/services/{ANALYTICS}/state"),
        Some(serde_json::json!({"command": "stop"})),
    );
    let config = quickstart().replacen("prune: false", "prune: true", 1);
    let out = Converge::new(&sandbox)
        .fast()
        .config(&config)
        .run(["plan", "--format", "markdown"]);
    out.assert_exit(0);
    assert!(!out.stdout.contains("&#96;"), "{}", out.stdout);
    let html = gfm(&out.stdout);
    assert!(html.contains("<code>converge:prod</code>"), "{html}");
    assert!(
        html.contains("<code>converge apply --wake</code>"),
        "{html}"
    );
    let seen = visible_text(&out.stdout);
    assert!(!seen.contains('`'), "a backtick shows:\n{seen}");
    common::converge_snapshot!("comment_quotes_as_code", out);
}

/// The drift report shows values in code blocks: a URL is not made a link and a value of
/// several lines shows its lines, not `\n` escapes.
#[test]
fn the_drift_comment_shows_values_as_written() {
    let sandbox = common::contract_sandbox();
    let client = common::Client::new(&sandbox);
    let exported = Converge::new(&sandbox).run(["export", "--stack", ANALYTICS]);
    exported.assert_exit(0);
    let mut dashboard = crate::drift::on_call(&client);
    dashboard["tiles"][0]["series"][0]["where"] =
        serde_json::json!("url:\"https://wiki.example.com/runbook\"\n\nAND level:warn");
    crate::drift::put_dashboard(&client, &dashboard);
    let out = Converge::new(&sandbox)
        .config_as("converge.yaml", &exported.stdout)
        .run(["drift", "--format", "markdown"]);
    out.assert_exit(2);
    let html = gfm(&out.stdout);
    assert!(!html.contains("<a "), "a value became a link:\n{html}");
    let seen = visible_text(&out.stdout);
    assert!(
        !seen.contains("\\n"),
        "a line break shows as an escape:\n{seen}"
    );
    assert!(seen.contains("+     AND level:warn"), "{seen}");
    common::converge_snapshot!("drift_comment_values_as_written", out);
}
