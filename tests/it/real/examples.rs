//! The shipped examples (`examples/`) and the config examples of README.md and `docs/*.md`
//! that target the observability API, applied against hdx-server (the managed stacks and
//! services go to a sandbox) and then planned empty: what the documentation shows, HyperDX's own
//! server takes.

use crate::common::{self, Converge, Workspace, root};

use super::{HdxServer, config};

/// converge with the cloud API on `sandbox` and the observability API on `hdx`, paced at the
/// observability API's real limit.
fn both<'s>(sandbox: &'s converge::sandbox::SandboxHandle, hdx: &HdxServer) -> Converge<'s> {
    Converge::new(sandbox)
        .fast()
        .env("CONVERGE_OBSERVABILITY_URL", &hdx.url)
        .env("CONVERGE_OBS_TOKEN", hdx.key())
        .env("CONVERGE_OBSERVABILITY_RATE_LIMIT", "100/1m")
}

/// Applies `path` (exit 0, nothing refused) and checks the next plan is empty.
#[track_caller]
fn applies_then_plans_empty(converge: &Converge<'_>, hdx: &HdxServer, path: &str) {
    let applied = converge.run(["apply", "--yes", "--allow-destroy", path]);
    assert_eq!(
        applied.code, 0,
        "{path}: apply:\n{}\n{}",
        applied.stdout, applied.stderr
    );
    let plan = converge.run(["plan", "--detailed-exitcode", path]);
    assert_eq!(
        plan.code, 0,
        "{path}: the plan after the apply:\n{}\n{}",
        plan.stdout, plan.stderr
    );
    let refused: Vec<String> = hdx
        .requests()
        .iter()
        .filter(|r| r["status"].as_u64().is_some_and(|s| s >= 400))
        .map(|r| r.to_string())
        .collect();
    assert_eq!(refused, Vec::<String>::new(), "{path}: hdx-server refused");
}

/// Every example file or folder whose config has a stack on the observability API.
#[test]
fn the_shipped_examples_apply_and_plan_empty_on_hdx_server() {
    let examples = root().join("examples");
    let mut targets: Vec<String> = Vec::new();
    for entry in std::fs::read_dir(&examples).expect("examples/") {
        let path = entry.expect("an entry").path();
        let text = if path.is_dir() {
            std::fs::read_dir(&path)
                .expect("a folder")
                .filter_map(|e| std::fs::read_to_string(e.ok()?.path()).ok())
                .collect::<String>()
        } else if path.extension().is_some_and(|e| e == "yaml") {
            std::fs::read_to_string(&path).unwrap_or_default()
        } else {
            continue;
        };
        if text.contains("api: observability") {
            targets.push(path.to_string_lossy().into_owned());
        }
    }
    targets.sort();
    assert!(targets.len() >= 3, "{targets:?}");
    for target in targets {
        let Some(hdx) = HdxServer::start("the_shipped_examples_apply_and_plan_empty_on_hdx_server")
        else {
            return;
        };
        let sandbox = common::fast_sandbox();
        let workspace = Workspace::new();
        let converge = both(&sandbox, &hdx).cwd(&workspace);
        applies_then_plans_empty(&converge, &hdx, &target);
    }
}

/// The ```yaml blocks of README.md and docs/*.md that are dashboards, tiles or alerts (or an
/// alert's members), each made a config of one observability stack (beside the quickstart's
/// `api-health` dashboard the alert examples sit on), in the order they are written. Blocks
/// with elided parts (`...`) are not configs.
fn documented_fragments() -> Vec<(String, String)> {
    let mut files = vec![root().join("README.md")];
    if let Ok(docs) = std::fs::read_dir(root().join("docs")) {
        let mut docs: Vec<_> = docs
            .filter_map(|e| Some(e.ok()?.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        docs.sort();
        files.extend(docs);
    }
    let quickstart = common::quickstart();
    let start = quickstart
        .find("    dashboards:\n")
        .expect("the quickstart's dashboards");
    let end = quickstart
        .find("    alerts:\n")
        .expect("the quickstart's alerts");
    let base: String = quickstart[start..end]
        .lines()
        .map(|l| format!("{}\n", l.strip_prefix("    ").unwrap_or(l)))
        .collect();
    let alert_head = "alerts:\n  documented:\n    name: Documented\n    dashboard: api-health\n    tile: Requests\n    threshold: 1\n    thresholdType: above\n    interval: 5m\n";
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let mut lines = text.lines().enumerate();
        while let Some((at, line)) = lines.next() {
            if line.trim() != "```yaml" {
                continue;
            }
            let block: Vec<&str> = lines
                .by_ref()
                .map(|(_, l)| l)
                .take_while(|l| l.trim() != "```")
                .collect();
            if block.iter().any(|l| l.trim() == "...") {
                continue;
            }
            let block = block.join("\n") + "\n";
            let first = block
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or_default();
            let body = if first.starts_with("alerts:") {
                format!("{base}{block}")
            } else if first.starts_with("dashboards:") {
                block
            } else if first.starts_with("tiles:") {
                let tiles: String = block.lines().map(|l| format!("    {l}\n")).collect();
                format!("dashboards:\n  documented:\n    name: Documented\n{tiles}")
            } else if first.starts_with("    channels:") {
                format!("{base}{alert_head}{block}")
            } else {
                continue;
            };
            let place = format!(
                "{}:{}",
                file.strip_prefix(root()).unwrap_or(&file).display(),
                at + 1
            );
            out.push((place, config(&body)));
        }
    }
    out
}

#[test]
fn the_documented_observability_examples_apply_and_plan_empty_on_hdx_server() {
    let fragments = documented_fragments();
    assert!(fragments.len() >= 4, "{fragments:#?}");
    for (place, text) in fragments {
        let Some(hdx) = HdxServer::start(&place) else {
            return;
        };
        let workspace = Workspace::new();
        let target = super::Target::Hdx(hdx);
        let converge = target.converge().cwd(&workspace);
        let path = workspace.write("example.yaml", &text);
        let applied = converge.run(["apply", "--yes", "--allow-destroy", &path]);
        assert_eq!(
            applied.code, 0,
            "{place}: apply:\n{text}\n{}\n{}",
            applied.stdout, applied.stderr
        );
        let plan = converge.run(["plan", "--detailed-exitcode", &path]);
        assert_eq!(
            plan.code, 0,
            "{place}: the plan after the apply:\n{}\n{}",
            plan.stdout, plan.stderr
        );
    }
}
