//! Two teams, two repositories, one observability server (issue 40, part 1): each team's config
//! has its own stack, and neither apply deletes, re-tags or rewires an object of the other.
//! Each team keeps its own alert of a name the other uses too; a dashboard name the other team
//! already has is a plan-time error naming both stacks (the server refuses a second dashboard
//! of one name within a team).

use serde_json::Value;

use crate::common::{Converge, Workspace};

use super::{HEAD, Target, apply_then_empty, on_both};

/// One team's config: stack `stack` with dashboard `dashboard` and an alert `Errors` on it.
fn team(stack: &str, dashboard: &str, threshold: u32) -> String {
    format!(
        r#"{HEAD}stacks:
  {stack}:
    api: observability
    prune: true
    dashboards:
      main:
        name: {dashboard}
        tiles:
          - name: Requests
            x: 0
            y: 0
            w: 12
            h: 4
            series:
              - type: time
                source: Logs
                aggFn: count
    alerts:
      errors:
        name: Errors
        dashboard: main
        tile: Requests
        threshold: {threshold}
        thresholdType: above
        interval: 5m
        channel: {{ type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }}
        message: Errors of {stack}
"#
    )
}

/// The live dashboards (id, name, tags) and alerts (id, dashboard, threshold, message), each
/// sorted by id: what neither team's apply may change of the other's.
fn snapshot(target: &Target) -> (Vec<Value>, Vec<Value>) {
    let pick = |list: Vec<Value>, fields: &[&str]| {
        let mut picked: Vec<Value> = list
            .iter()
            .map(|o| {
                fields
                    .iter()
                    .map(|f| (f.to_string(), o[*f].clone()))
                    .collect()
            })
            .collect();
        picked.sort_by_key(|o| o["id"].to_string());
        picked
    };
    (
        pick(target.dashboards(), &["id", "name", "tags"]),
        pick(
            target.alerts(),
            &["id", "dashboardId", "threshold", "message"],
        ),
    )
}

/// Team A applies, team B applies, team A plans and applies again, team B again: each plan
/// empty after its apply, both alerts `Errors` kept with their own dashboards, thresholds and
/// messages, and no write made by a run after the first two applies.
fn two_teams_keep_their_own(target: &Target) {
    let (a, b) = (Workspace::new(), Workspace::new());
    let (team_a, team_b) = (target.converge().cwd(&a), target.converge().cwd(&b));
    let config_a = a.write("c.yaml", &team("obs-a", "Team A", 100));
    let config_b = b.write("c.yaml", &team("obs-b", "Team B", 7));
    apply_then_empty(target, &team_a, &config_a);
    let after_a = snapshot(target);
    apply_then_empty(target, &team_b, &config_b);
    let both = snapshot(target);
    assert_eq!(both.0.len(), 2, "{}: {both:#?}", target.name());
    assert_eq!(both.1.len(), 2, "{}: {both:#?}", target.name());
    for kept in &after_a.0 {
        assert!(
            both.0.contains(kept),
            "{}: team B changed {kept:?}",
            target.name()
        );
    }
    for kept in &after_a.1 {
        assert!(
            both.1.contains(kept),
            "{}: team B changed {kept:?}",
            target.name()
        );
    }
    let writes = target.writes().len();
    for (converge, config) in [(&team_a, &config_a), (&team_b, &config_b)] {
        empty_plan(target, converge, config);
        apply_then_empty(target, converge, config);
    }
    assert_eq!(snapshot(target), both, "{}", target.name());
    assert_eq!(
        target.writes().len(),
        writes,
        "{}: {:#?}",
        target.name(),
        target.writes()
    );
}
on_both!(two_teams_keep_their_own);

#[track_caller]
fn empty_plan(target: &Target, converge: &Converge<'_>, config: &str) {
    let plan = converge.run(["plan", "--detailed-exitcode", config]);
    assert_eq!(
        plan.code,
        0,
        "{}: the plan is not empty:\n{}\n{}",
        target.name(),
        plan.stdout,
        plan.stderr
    );
}

/// Team B names its dashboard as team A's is named: the server refuses a second dashboard of
/// one name within a team (500, on both), so B's plan is an error at the name naming both
/// stacks, and its apply writes nothing; team A's plan stays empty.
fn a_name_another_team_has_is_a_plan_error(target: &Target) {
    let (a, b) = (Workspace::new(), Workspace::new());
    let (team_a, team_b) = (target.converge().cwd(&a), target.converge().cwd(&b));
    let config_a = a.write("c.yaml", &team("obs-a", "Shared name", 100));
    apply_then_empty(target, &team_a, &config_a);
    let twice = target.obs(
        "POST",
        "/dashboards",
        Some(serde_json::json!({"name": "Shared name", "tiles": [], "tags": []})),
    );
    assert_eq!(twice.status, 500, "{}: {}", target.name(), twice.text);

    let config_b = b.write("c.yaml", &team("obs-b", "Shared name", 7));
    let before = (snapshot(target), target.writes().len());
    let plan = team_b.run(["plan", &config_b]);
    let apply = team_b.run(["apply", "--yes", "--allow-destroy", &config_b]);
    for run in [plan, apply] {
        assert_eq!(
            run.code,
            1,
            "{}: {}\n{}",
            target.name(),
            run.stdout,
            run.stderr
        );
        // The message as one line: the renderer wraps it behind `|` margins.
        let said = run
            .stderr
            .split_whitespace()
            .filter(|w| *w != "|")
            .collect::<Vec<_>>()
            .join(" ");
        for needle in [
            "plan::other-stack",
            "stack `obs-a`'s dashboard",
            "stack `obs-b` never takes",
            "give this dashboard another name",
        ] {
            assert!(
                said.contains(needle),
                "{}: {needle} missing:\n{said}",
                target.name()
            );
        }
    }
    assert_eq!(
        (snapshot(target), target.writes().len()),
        before,
        "{}",
        target.name()
    );
    empty_plan(target, &team_a, &config_a);
}
on_both!(a_name_another_team_has_is_a_plan_error);
