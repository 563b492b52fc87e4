use serde_json::json;

use super::render::{self, BUDGET, MARKER};
use super::*;
use crate::format::Format;
use crate::output::Printer;
use crate::plan::CheckResult;

fn field(path: &str, before: Option<Value>, after: Option<Value>) -> FieldChange {
    FieldChange {
        path: path.into(),
        before,
        after,
    }
}

#[test]
fn the_ownership_tag_alone_is_no_drift() {
    let tag = "converge:prod";
    let only_tag = field("tags", Some(json!(["a"])), Some(json!(["a", tag])));
    assert_eq!(without_owner_tag(&only_tag, Some(tag)), None);
    let more = field("tags", Some(json!(["b"])), Some(json!(["a", tag])));
    assert_eq!(
        without_owner_tag(&more, Some(tag)),
        Some(field("tags", Some(json!(["b"])), Some(json!(["a"]))))
    );
    // Other fields, and tags outside a stack, are left alone.
    let other = field("name", Some(json!("x")), Some(json!("y")));
    assert_eq!(without_owner_tag(&other, Some(tag)), Some(other.clone()));
    assert_eq!(without_owner_tag(&only_tag, None), Some(only_tag.clone()));
}

fn report_with(unmanaged: usize, passed: bool) -> Report {
    Report {
        organization: "org".into(),
        changed: Vec::new(),
        unmanaged: (0..unmanaged)
            .map(|i| UnmanagedObject {
                address: format!("dashboard.prod[\"Board {i:05}\"]"),
                reason: "exists in the stack without the `converge:prod` tag".into(),
            })
            .collect(),
        checks: vec![CheckResult {
            address: "check.analytics.backups".into(),
            passed,
            details: vec!["newest done backup b1 is 6.0h old (at most 26h)".into()],
            backups: Vec::new(),
        }],
        ignored: Vec::new(),
        fail_on_unmanaged: false,
        only: Vec::new(),
    }
}

#[test]
fn in_sync_needs_no_change_and_no_failed_check_and_unmanaged_objects_only_when_asked() {
    assert!(report_with(0, true).in_sync());
    assert!(report_with(1, true).in_sync());
    assert!(!report_with(0, false).in_sync());
    let strict = |unmanaged| Report {
        fail_on_unmanaged: true,
        ..report_with(unmanaged, true)
    };
    assert!(strict(0).in_sync());
    assert!(!strict(1).in_sync());
    assert_eq!(
        render::summary_line(&report_with(0, false).summary()),
        "0 changed, 0 unmanaged, 1 failed check"
    );
}

#[test]
fn markdown_starts_with_the_marker_and_stays_under_the_budget() {
    let printer = Printer::plain();
    let small = render::render(&report_with(2, true), Format::Markdown, &printer);
    assert!(small.starts_with(&format!("{MARKER}\n")));
    assert!(small.contains("Board 00001"));
    let big = render::render(&report_with(5_000, true), Format::Markdown, &printer);
    assert!(big.len() <= BUDGET, "{}", big.len());
    assert!(big.contains("**Note:** cut"), "the cut is said");
}

#[test]
fn json_is_versioned_and_says_whether_in_sync() {
    let printer = Printer::plain();
    let text = render::render(&report_with(1, true), Format::Json, &printer);
    let value: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(value["format"], "converge-drift/1");
    assert_eq!(
        value["inSync"], true,
        "unmanaged objects do not count by default"
    );
    assert_eq!(value["failOnUnmanaged"], false);
    assert_eq!(value["summary"]["unmanaged"], 1);
}

#[test]
fn a_cut_markdown_report_still_shows_its_failed_checks() {
    let printer = Printer::plain();
    let big = render::render(&report_with(5_000, false), Format::Markdown, &printer);
    assert!(big.contains("**Note:** cut"), "the report is cut");
    assert!(
        big.contains("**FAILED** <code>check.analytics.backups</code>"),
        "the failed check survives the cut"
    );
    assert!(big.len() <= BUDGET, "{}", big.len());
}
