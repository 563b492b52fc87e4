use std::path::PathBuf;

use serde_json::json;

use super::*;
use crate::config::{LoadMode, load_texts};
use crate::drift::DriftField;

const TEXT: &str = "version: 1
organization: 00000000-0000-0000-0000-000000000001
services:
  a:
    id: 00000000-0000-0000-0000-000000000002
    scaling:
      numReplicas: 2 # comment
      idleTimeoutMinutes: &t 10
";

fn sources() -> Sources {
    let loaded = load_texts(
        &[(PathBuf::from("c.yaml"), TEXT.to_string())],
        LoadMode::Offline,
        &|_| None,
    );
    assert_eq!(loaded.error_count(), 0, "{:?}", loaded.diagnostics);
    loaded.sources
}

fn report(fields: Vec<DriftField>) -> Report {
    Report {
        changed: vec![Changed {
            address: "service.a.scaling".into(),
            action: Action::Update,
            reason: String::new(),
            fields,
        }],
        ..Report::default()
    }
}

fn propose_plain(sources: &Sources, report: &Report) -> Proposal {
    propose(sources, report, &LiveState::default(), Options::default())
}

fn field(path: &str, config: Value, live: Value) -> DriftField {
    DriftField {
        path: path.into(),
        config: Some(config),
        live: Some(live),
    }
}

#[test]
fn only_the_value_changes_and_an_anchored_one_is_left_to_a_person() {
    let sources = sources();
    let proposal = propose_plain(
        &sources,
        &report(vec![
            field("numReplicas", json!(2), json!(4)),
            field("idleTimeoutMinutes", json!(10), json!(20)),
        ]),
    );
    let texts = apply(&sources, &proposal.edits);
    assert_eq!(
        texts,
        [(0, TEXT.replace("numReplicas: 2 #", "numReplicas: 4 #"))]
    );
    assert_eq!(proposal.manual.len(), 1);
    assert_eq!(
        proposal.manual[0].line(),
        "edit by hand at c.yaml:8: service.a.scaling idleTimeoutMinutes is 20 live \
         (behind an anchor, shared by its aliases)"
    );
}

#[test]
fn an_edit_that_changes_more_than_it_says_is_refused() {
    let sources = sources();
    let mut proposal = propose_plain(
        &sources,
        &report(vec![field("numReplicas", json!(2), json!(4))]),
    );
    // The text written says 4; the edit claims 5: the check compares the two.
    proposal.edits[0].effect = Effect::Set(json!(5));
    let texts = apply(&sources, &proposal.edits);
    let reload = |files: &[(PathBuf, String)]| {
        load_texts(files, LoadMode::Offline, &|_| None)
            .config
            .ok_or_else(|| "no config".to_string())
    };
    let error = verify(&sources, &texts, &proposal.edits, reload, |_| {
        Report::default()
    })
    .expect_err("refused");
    assert!(error.contains("more than the drifted values"), "{error}");
}

#[test]
fn an_edit_that_breaks_the_config_is_refused() {
    let sources = sources();
    let mut proposal = propose_plain(
        &sources,
        &report(vec![field("numReplicas", json!(2), json!(4))]),
    );
    proposal.edits[0].text = "[4".into();
    let texts = apply(&sources, &proposal.edits);
    let reload = |files: &[(PathBuf, String)]| {
        let loaded = load_texts(files, LoadMode::Offline, &|_| None);
        loaded.config.ok_or_else(|| "YAML syntax".to_string())
    };
    let error = verify(&sources, &texts, &proposal.edits, reload, |_| {
        Report::default()
    })
    .expect_err("refused");
    assert!(
        error.starts_with("the edited config does not load"),
        "{error}"
    );
}

#[test]
fn a_flow_list_runs_through_its_closing_bracket_outside_quotes() {
    assert_eq!(flow_len("[a, b]   # c\n"), Some(6));
    assert_eq!(flow_len("['x]', \"y\\\"]\"] z"), Some(14));
    assert_eq!(flow_len("[a,\n b]"), None);
}

#[test]
fn an_object_missing_live_is_left_for_apply_whatever_its_kind() {
    let sources = sources();
    let mut report = report(vec![DriftField {
        path: "numReplicas".into(),
        config: Some(json!(2)),
        live: None,
    }]);
    report.changed[0].action = Action::Create;
    for address in ["alert.s.a", "dashboard.s.d"] {
        let mut changed = report.changed[0].clone();
        changed.address = address.into();
        changed.fields.clear();
        report.changed.push(changed);
    }
    let proposal = propose_plain(&sources, &report);
    assert!(proposal.edits.is_empty(), "{:?}", proposal.edits);
    assert!(proposal.manual.is_empty(), "{:?}", proposal.manual);
    assert_eq!(
        proposal.for_apply_line().as_deref(),
        Some("3 objects missing live left for apply: service.a.scaling, alert.s.a, dashboard.s.d")
    );
}
