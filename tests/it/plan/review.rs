//! What a reviewer reads: a changed multi-line message and a long `where` clause as line diffs
//! (text and Markdown snapshots; JSON keeps both values whole), the changed words highlighted
//! only when color is on.

use serde_json::Value;

use converge::sandbox::SandboxHandle;

use super::snapshots;
use crate::common::{self, Converge, converge_snapshot, quickstart, strip_ansi};

const MESSAGE: &str = "        message: Errors are up\n";
const LONG_MESSAGE: &str = "        message: |\n          Errors are up.\n          Runbook: https://wiki.example.com/runbooks/api-errors\n          Owner: team-api\n";
const NEW_MESSAGE: &str = "        message: |\n          Errors are up.\n          Runbook: https://wiki.example.com/runbooks/api-errors-v2\n          Owner: team-api\n          Escalate after 15 minutes.\n";
const WHERE: &str = "                aggFn: count\n                where: \"service:api\"\n";
const LONG_WHERE: &str = "                aggFn: count\n                where: \"service:api AND level:error AND NOT path:/healthz AND NOT path:/metrics AND region:eu-west-1\"\n";

/// `sandbox` after applying the quickstart with a three-line alert message, and the binary
/// given the config that changes that message and makes a `where` clause longer than a line.
fn applied_then_changed(sandbox: &SandboxHandle) -> Converge<'_> {
    let first = quickstart().replacen(MESSAGE, LONG_MESSAGE, 1);
    assert_ne!(first, quickstart());
    let converge = Converge::new(sandbox).fast().config(&first);
    converge.run(["apply", "--yes"]).assert_exit(0);
    let changed = first
        .replacen(LONG_MESSAGE, NEW_MESSAGE, 1)
        .replacen(WHERE, LONG_WHERE, 1);
    converge.config(&changed)
}

#[test]
fn long_and_multi_line_text_is_a_line_diff_in_text_and_markdown() {
    let sandbox = common::contract_sandbox();
    let converge = applied_then_changed(&sandbox);
    let text = converge.run(["plan"]);
    text.assert_exit(0);
    assert!(
        text.stdout.contains("      ~ message:\n          Errors are up.\n      -   Runbook: https://wiki.example.com/runbooks/api-errors\n      +   Runbook: https://wiki.example.com/runbooks/api-errors-v2\n          Owner: team-api\n      +   Escalate after 15 minutes.\n"),
        "{}",
        text.stdout
    );
    converge_snapshot!(snapshots(), "long_text_diff_text", text);

    let markdown = converge.run(["plan", "--format", "markdown"]);
    markdown.assert_exit(0);
    // GitHub highlights `-` and `+` lines of a `diff` block; no line there starts with `~`.
    let block = markdown
        .stdout
        .split("```diff\n")
        .skip(1)
        .flat_map(|b| b.split("```").next())
        .collect::<String>();
    assert!(block.lines().all(|l| !l.starts_with('~')), "{block}");
    converge_snapshot!(snapshots(), "long_text_diff_markdown", markdown);

    // JSON keeps both values whole.
    let plan: Value = converge.run(["plan", "--format", "json"]).json();
    let alert = plan["changes"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["address"] == "alert.prod.api-errors"))
        .expect("the alert changes");
    let message = alert["fields"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["path"] == "message"))
        .expect("message differs");
    assert_eq!(
        message["before"],
        "Errors are up.\nRunbook: https://wiki.example.com/runbooks/api-errors\nOwner: team-api\n"
    );
    assert_eq!(
        message["after"],
        "Errors are up.\nRunbook: https://wiki.example.com/runbooks/api-errors-v2\nOwner: team-api\nEscalate after 15 minutes.\n"
    );
}

#[test]
fn changed_words_are_highlighted_only_with_color_and_color_adds_nothing_else() {
    let sandbox = common::fast_sandbox();
    let converge = applied_then_changed(&sandbox);
    let plain = converge.run(["plan"]);
    let colored = converge.run(["--color", "always", "plan"]).stdout;
    // The changed word of the replaced line (words split at whitespace), bold and underlined
    // on top of its line's color; the unchanged `Runbook: ` is not.
    let url = "https://wiki.example.com/runbooks/api-errors";
    assert!(
        colored.contains(&format!("\u{1b}[31;1;4m{url}\u{1b}[0m")),
        "{colored:?}"
    );
    assert!(
        colored.contains(&format!("\u{1b}[32;1;4m{url}-v2\u{1b}[0m")),
        "{colored:?}"
    );
    assert!(
        colored.contains("\u{1b}[32mRunbook: \u{1b}[0m"),
        "{colored:?}"
    );
    assert!(!plain.stdout.contains('\u{1b}'));
    assert_eq!(strip_ansi(&colored), plain.stdout);
    // Without color, no marker of emphasis: the `-`/`+` lines carry the meaning.
    let no_color = converge.clone().env("NO_COLOR", "1").run(["plan"]);
    assert_eq!(no_color.stdout, plain.stdout);
}
