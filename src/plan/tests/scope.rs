//! `--only` reads only the lists its addresses need: the plan of a live state holding just
//! those lists, limited to the patterns, is the whole plan limited to them.

use super::fixtures::*;
use crate::config::model::Config;
use crate::live::{LiveState, ReadScope};
use crate::plan::address::{config_addresses, read_scope, unmatchable};
use crate::plan::{PlanOptions, plan};

/// What the reader holds after reading `scope`: the other lists are not there.
fn read_only(config: &Config, live: &LiveState, scope: &ReadScope) -> LiveState {
    let mut out = LiveState {
        scope: scope.clone(),
        ..LiveState::default()
    };
    if scope.reads_services() {
        out.services = live.services.clone();
    }
    for (key, service) in &config.services {
        let id = &service.id.value;
        if scope.reads_pipes(key)
            && let Some(pipes) = live.pipes.get(id)
        {
            out.pipes.insert(id.clone(), pipes.clone());
        }
        if scope.reads_backups(key) {
            if let Some(backups) = live.backups.get(id) {
                out.backups.insert(id.clone(), backups.clone());
            }
            for (at, kept) in &live.kept_backups {
                if at.0 == *id {
                    out.kept_backups.insert(at.clone(), kept.clone());
                }
            }
        }
    }
    for (key, stack) in &live.stacks {
        if scope.reads_stack(key) {
            out.stacks.insert(key.clone(), stack.clone());
        }
    }
    out
}

fn patterns(config: &Config) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = [
        "*",
        "alert.*",
        "dashboard.*",
        "service.*",
        "*scaling",
        "pipe.*",
        "check.*",
        "*.prod.*",
        "dashboard.prod[*",
        "alert.prod[\"*",
        "dashboard.prod.[*",
        "service.analytics.private_endpoint[*",
        "pipe.analytics.?????",
        "*orders*",
        "*e*s",
        "nothing.*",
    ]
    .iter()
    .map(|p| vec![p.to_string()])
    .collect();
    out.push(vec!["alert.prod.*".into(), "pipe.*".into()]);
    out.push(vec!["check.*".into(), "dashboard.ops.*".into()]);
    // Every address on its own, and what each family of them holds.
    for address in config_addresses(config) {
        out.push(vec![address.clone()]);
        if let Some((head, _)) = address.rsplit_once('.') {
            out.push(vec![format!("{head}.*")]);
        }
    }
    out
}

#[test]
fn a_partial_plan_is_the_whole_plan_limited_to_its_patterns() {
    let config = demo_config();
    let live = demo_live();
    let mut partial_reads = 0;
    for only in patterns(&config) {
        let options = PlanOptions {
            only: only.clone(),
            now: Some(now()),
            dedupe: false,
            drop_unchanged_values: false,
        };
        let (whole, whole_diagnostics) = plan(&config, &live, &options);
        let scope = read_scope(&config, &only);
        let (partial, partial_diagnostics) =
            plan(&config, &read_only(&config, &live, &scope), &options);
        assert_eq!(partial, whole, "--only {only:?} read {scope:?}");
        assert_eq!(partial.only, only);
        // The partial run reports no problem the whole one does not (nothing unread looks
        // missing).
        for diagnostic in &partial_diagnostics {
            assert!(
                whole_diagnostics.contains(diagnostic),
                "--only {only:?}: {diagnostic:?}"
            );
        }
        if scope != ReadScope::All && scope != read_scope(&config, &["*".to_string()]) {
            partial_reads += 1;
        }
    }
    assert!(
        partial_reads > 20,
        "most patterns read less than everything"
    );
}

#[test]
fn patterns_read_the_lists_of_what_they_can_match() {
    let config = demo_config();
    let scope = |p: &str| match read_scope(&config, &[p.to_string()]) {
        ReadScope::Only(lists) => lists,
        ReadScope::All => panic!("patterns never read everything by default"),
    };
    // A stack's alerts: its three lists, nothing of the services.
    let alerts = scope("alert.prod.*");
    assert!(!alerts.services && alerts.pipes.is_empty() && alerts.backups.is_empty());
    assert_eq!(alerts.stacks.iter().collect::<Vec<_>>(), ["prod"]);
    // A pipe: its service's pipes and the services list.
    let pipe = scope("pipe.analytics.orders.scaling");
    assert!(pipe.services && pipe.stacks.is_empty() && pipe.backups.is_empty());
    assert_eq!(pipe.pipes.iter().collect::<Vec<_>>(), ["analytics"]);
    // Scaling: the services list alone.
    let scaling = scope("service.*.scaling");
    assert!(scaling.services && scaling.pipes.is_empty() && scaling.stacks.is_empty());
    // A check: the backups of its service.
    let check = scope("check.analytics.backups");
    assert!(check.services && check.pipes.is_empty());
    assert_eq!(check.backups.iter().collect::<Vec<_>>(), ["analytics"]);
    // A stray's name form needs its stack, even though the config names no such object.
    assert_eq!(
        scope("dashboard.prod[\"Old*")
            .stacks
            .iter()
            .collect::<Vec<_>>(),
        ["prod"]
    );
    assert_eq!(scope("nothing.*"), Default::default());
    assert_eq!(read_scope(&config, &[]), ReadScope::All);
    assert_eq!(
        unmatchable(&config, &["alert.prod.*".into(), "alerts.*".into()]),
        ["alerts.*"]
    );
}
