//! Planner tests over hand-built desired and live states: every kind and action, every rule,
//! the renderers (snapshots), the saved plan round trip, the Markdown budget, secrets, and the
//! "no perpetual diffs" property.

mod address;
mod fixtures;
mod property;
mod scope;

use fixtures::*;

use super::*;
use crate::api::wire::Dashboard;
use crate::config::model;
use crate::diagnostic::{Code, Diagnostic};
use crate::output::Printer;
use crate::plan::kinds::alert::op::AlertOp;
use crate::plan::kinds::dashboard::op::DashboardOp;
use crate::plan::kinds::pipe::op::PipeOp;
use crate::plan::kinds::private_endpoint::op::PrivateEndpointOp;
use crate::plan::kinds::service::op::ServiceOp;

fn by_address<'p>(plan: &'p Plan, address: &str) -> &'p Change {
    plan.changes
        .iter()
        .find(|c| c.address == address)
        .unwrap_or_else(|| panic!("no change for {address}; have {:?}", addresses(plan)))
}

fn addresses(plan: &Plan) -> Vec<String> {
    plan.changes.iter().map(|c| c.address.to_string()).collect()
}

fn step_of<'p>(plan: &'p Plan, address: &str) -> &'p Step {
    let id = by_address(plan, address)
        .step
        .unwrap_or_else(|| panic!("{address} has no step"));
    &plan.steps[id]
}

fn options() -> PlanOptions {
    PlanOptions {
        now: Some(now()),
        ..PlanOptions::default()
    }
}

fn demo_plan() -> Plan {
    let (plan, diagnostics) = plan(&demo_config(), &demo_live(), &options());
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    plan
}

#[test]
fn service_scaling_update_sends_only_differing_managed_fields() {
    let plan = demo_plan();
    let change = by_address(&plan, "service.analytics.scaling");
    assert_eq!(change.action, Action::Update);
    assert_eq!(change.reason, "numReplicas differs");
    assert_eq!(change.fields.len(), 1);
    assert_eq!(change.fields[0].before, Some(serde_json::json!(2)));
    assert_eq!(change.fields[0].after, Some(serde_json::json!(3)));
    // minTotalMemoryGb is set live but not in the config: not managed, not shown.
    assert!(
        change
            .before
            .as_ref()
            .unwrap()
            .get("minTotalMemoryGb")
            .is_none()
    );
    assert!(change.fingerprint.is_some());
    // No deprecated total written: sent through replicaScaling.
    match &step_of(&plan, "service.analytics.scaling").operation {
        Operation::Service(ServiceOp::ReplicaScaling { service_id, body }) => {
            assert_eq!(service_id, ANALYTICS);
            assert_eq!(body.num_replicas, Some(3.0));
            assert_eq!(body.idle_scaling, None);
            assert_eq!(body.idle_timeout_minutes, None);
        }
        other => panic!("unexpected {other:?}"),
    }
    // 15 live as 15.0 and idleScaling absent live (default true): unchanged.
    assert_eq!(
        by_address(&plan, "service.reporting.scaling").action,
        Action::NoOp
    );
}

#[test]
fn private_endpoints_create_keep_and_detach() {
    let plan = demo_plan();
    let kept = by_address(&plan, "service.analytics.private_endpoint[vpce-kept]");
    assert_eq!(kept.action, Action::NoOp);
    let new = by_address(&plan, "service.analytics.private_endpoint[vpce-new]");
    assert_eq!(new.action, Action::Create);
    assert_eq!(new.fingerprint, None);
    match &step_of(&plan, "service.analytics.private_endpoint[vpce-new]").operation {
        Operation::PrivateEndpoint(PrivateEndpointOp::Create { body, .. }) => {
            assert_eq!(body.id, "vpce-new");
            assert_eq!(body.description, "app VPC");
        }
        other => panic!("unexpected {other:?}"),
    }
    let stale = by_address(&plan, "service.analytics.private_endpoint[vpce-stale]");
    assert_eq!(stale.action, Action::Delete);
    let step = step_of(&plan, "service.analytics.private_endpoint[vpce-stale]");
    assert!(step.operation.is_destroy());
    match &step.operation {
        Operation::PrivateEndpoint(PrivateEndpointOp::Detach { body, .. }) => {
            let ids = body.private_endpoint_ids.as_ref().unwrap();
            assert_eq!(ids.remove, vec!["vpce-stale".to_string()]);
            assert!(ids.add.is_empty());
        }
        other => panic!("unexpected {other:?}"),
    }
    // `reporting` has no privateEndpoints key: its endpoints are not managed at all.
    assert!(
        !addresses(&plan)
            .iter()
            .any(|a| a.contains("reporting.private"))
    );
}

#[test]
fn pipe_scaling_reads_quantities_and_updates_only_differences() {
    let plan = demo_plan();
    let orders = by_address(&plan, "pipe.analytics.orders.scaling");
    assert_eq!(orders.action, Action::Update);
    // replicas 4 == "4" live, memory 2 == "2Gi" live; only CPU differs ("250m" live).
    assert_eq!(orders.reason, "replicaCpuMillicores differs");
    match &step_of(&plan, "pipe.analytics.orders.scaling").operation {
        Operation::Pipe(PipeOp::Scaling { pipe_id, body, .. }) => {
            assert_eq!(pipe_id, ORDERS);
            assert_eq!(body.replica_cpu_millicores, Some(500));
            assert_eq!(body.replicas, None);
            assert_eq!(body.replica_memory_gb, None);
        }
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(
        by_address(&plan, "pipe.analytics.events.scaling").action,
        Action::NoOp
    );
}

#[test]
fn absent_pipes_are_deleted_when_they_exist() {
    let plan = demo_plan();
    let legacy = by_address(&plan, "pipe.analytics.legacy");
    assert_eq!(legacy.action, Action::Delete);
    assert_eq!(
        legacy.before.as_ref().unwrap()["sourceKind"],
        serde_json::json!("objectStorage")
    );
    assert_eq!(
        step_of(&plan, "pipe.analytics.legacy").operation.name().op,
        "pipe-delete"
    );
    assert_eq!(
        by_address(&plan, "pipe.analytics.gone").action,
        Action::NoOp
    );
}

#[test]
fn dashboards_create_update_noop_and_carry_tile_ids() {
    let plan = demo_plan();
    let created = by_address(&plan, "dashboard.prod.new-board");
    assert_eq!(created.action, Action::Create);
    match &step_of(&plan, "dashboard.prod.new-board").operation {
        Operation::Dashboard(DashboardOp::Create { body, stack }) => {
            assert_eq!(
                stack.target,
                StackTarget::Managed {
                    service_id: ANALYTICS.into()
                }
            );
            assert!(body.tiles.iter().all(|t| t.id.is_none()));
            assert!(body.tags.contains(&"converge:prod".to_string()));
            // `source: Logs` resolved through the sources list.
            assert_eq!(
                body.tiles[0].series[0].source_id.as_deref(),
                Some("src-logs")
            );
        }
        other => panic!("unexpected {other:?}"),
    }
    let updated = by_address(&plan, "dashboard.prod.api-health");
    assert_eq!(updated.action, Action::Update);
    let paths: Vec<&str> = updated.fields.iter().map(|f| f.path.as_str()).collect();
    assert!(
        paths.contains(&"tiles[Latency].series[0].aggFn"),
        "{paths:?}"
    );
    assert!(paths.contains(&"tiles[Requests].x"), "{paths:?}");
    assert!(paths.contains(&"tiles[Old tile].name"), "{paths:?}");
    assert!(
        paths.iter().all(|p| p.starts_with("tiles[Latency].")
            || p.starts_with("tiles[Old tile].")
            || *p == "tiles[Requests].x"),
        "{paths:?}"
    );
    let latency = updated
        .fields
        .iter()
        .find(|f| f.path == "tiles[Latency].series[0].aggFn")
        .unwrap();
    assert_eq!(
        (&latency.before, &latency.after),
        (&None, &Some(serde_json::json!("max")))
    );
    match &step_of(&plan, "dashboard.prod.api-health").operation {
        Operation::Dashboard(DashboardOp::Update {
            body, dashboard_id, ..
        }) => {
            assert_eq!(dashboard_id, "dash-api");
            let requests = body.tiles.iter().find(|t| t.name == "Requests").unwrap();
            assert_eq!(requests.id.as_deref(), Some("tile-requests"));
            let latency = body.tiles.iter().find(|t| t.name == "Latency").unwrap();
            assert_eq!(latency.id, None);
        }
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(
        by_address(&plan, "dashboard.prod.steady").action,
        Action::NoOp
    );
    assert_eq!(by_address(&plan, "dashboard.ops.ops").action, Action::NoOp);
}

#[test]
fn alerts_create_update_noop_and_reference_new_dashboards_by_name() {
    let plan = demo_plan();
    let update = by_address(&plan, "alert.prod.api-errors");
    assert_eq!(update.action, Action::Update);
    assert_eq!(update.reason, "threshold differs");
    let step = step_of(&plan, "alert.prod.api-errors");
    match &step.operation {
        Operation::Alert(AlertOp::Update {
            target,
            body,
            alert_id,
            ..
        }) => {
            assert_eq!(alert_id, "alert-api-errors");
            assert_eq!(*target, AlertTarget::Ids);
            assert_eq!(body.dashboard_id.as_deref(), Some("dash-api"));
            assert_eq!(body.tile_id.as_deref(), Some("tile-requests"));
            // The config omits the message: the live one is carried so PUT does not empty it.
            assert_eq!(body.message.as_deref(), Some("live message"));
            assert_eq!(body.source.as_deref(), Some("tile"));
        }
        other => panic!("unexpected {other:?}"),
    }
    // Waits for the dashboard update.
    assert_eq!(
        step.depends_on,
        vec![by_address(&plan, "dashboard.prod.api-health").step.unwrap()]
    );

    let create = by_address(&plan, "alert.prod.new-alert");
    assert_eq!(create.action, Action::Create);
    let step = step_of(&plan, "alert.prod.new-alert");
    match &step.operation {
        Operation::Alert(AlertOp::Create { target, body, .. }) => {
            assert_eq!(
                *target,
                AlertTarget::Names {
                    dashboard: "New board".into(),
                    tile: "Errors".into()
                }
            );
            assert_eq!(body.dashboard_id, None);
            assert_eq!(body.tile_id, None);
        }
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(
        step.depends_on,
        vec![by_address(&plan, "dashboard.prod.new-board").step.unwrap()]
    );
    assert_eq!(by_address(&plan, "alert.prod.steady").action, Action::NoOp);
}

#[test]
fn an_alert_whose_tile_the_update_removes_is_created_again() {
    let plan = demo_plan();
    let moved = by_address(&plan, "alert.prod.moved");
    assert_eq!(moved.action, Action::Create);
    assert!(moved.reason.contains("tile is removed"), "{}", moved.reason);
    match &step_of(&plan, "alert.prod.moved").operation {
        Operation::Alert(AlertOp::Create { target, .. }) => assert_eq!(
            *target,
            AlertTarget::Names {
                dashboard: "API health".into(),
                tile: "Latency".into()
            }
        ),
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn prune_deletes_owned_alerts_before_their_dashboard_and_reports_without_prune() {
    let plan = demo_plan();
    let alert = by_address(&plan, "alert.prod[\"Stale alert\"]");
    assert_eq!(alert.action, Action::Delete);
    assert_eq!(alert.reason, "not in the config; prune is on");
    let dashboard = by_address(&plan, "dashboard.prod[\"Stale board\"]");
    assert_eq!(dashboard.action, Action::Delete);
    let dashboard_step = step_of(&plan, "dashboard.prod[\"Stale board\"]");
    assert_eq!(dashboard_step.depends_on, vec![alert.step.unwrap()]);
    // Not owned (no tag): never touched; with prune on, reported as left as is.
    assert!(!addresses(&plan).iter().any(|a| a.contains("Hand made")));
    // The stack without prune: reported, no change, no step.
    let unmanaged: Vec<String> = plan
        .unmanaged
        .iter()
        .map(|u| u.address.to_string())
        .collect();
    assert_eq!(
        unmanaged,
        vec![
            "dashboard.prod[\"Hand made\"]",
            "alert.ops[\"Leftover alert\"]",
            "dashboard.ops[\"Leftover\"]"
        ]
    );
    assert!(
        plan.unmanaged[0]
            .reason
            .starts_with(super::model::NOT_OWNED)
    );
    assert!(
        !plan
            .steps
            .iter()
            .any(|s| s.address.to_string().contains("Leftover"))
    );
}

#[test]
fn steps_are_ordered_and_levelled() {
    let plan = demo_plan();
    order::check(&plan.steps).unwrap();
    let levels = order::levels(&plan.steps);
    let level_of = |address: &str| {
        let id = by_address(&plan, address).step.unwrap();
        levels.iter().position(|l| l.contains(&id)).unwrap()
    };
    assert_eq!(level_of("service.analytics.scaling"), 0);
    assert_eq!(level_of("pipe.analytics.orders.scaling"), 0);
    assert!(level_of("alert.prod.new-alert") > level_of("dashboard.prod.new-board"));
    assert!(level_of("dashboard.prod[\"Stale board\"]") > level_of("alert.prod[\"Stale alert\"]"));
    // Every change with a step points at a step with its own address.
    for change in &plan.changes {
        if let Some(id) = change.step {
            assert_eq!(plan.steps[id].address, change.address);
        } else {
            assert_eq!(change.action, Action::NoOp);
        }
    }
}

#[test]
fn summary_counts_every_action() {
    let plan = demo_plan();
    let summary = plan.summary();
    assert_eq!(
        summary.line(),
        "4 to create, 4 to update, 4 to delete, 7 unchanged"
    );
}

#[test]
fn only_keeps_matching_addresses_and_renumbers_steps() {
    let (mut plan, _) = plan(&demo_config(), &demo_live(), &PlanOptions::default());
    plan.retain_addresses(&["alert.prod.*".to_string(), "pipe.*".to_string()]);
    assert!(
        plan.changes
            .iter()
            .all(|c| c.address.to_string().starts_with("alert.prod")
                || c.address.to_string().starts_with("pipe."))
    );
    // The pruned alert, addressed by its live name, is one of the stack's alerts too.
    assert!(
        plan.changes
            .iter()
            .any(|c| c.address.to_string().starts_with("alert.prod[\"")
                && c.action == Action::Delete),
        "{:?}",
        addresses(&plan)
    );
    order::check(&plan.steps).unwrap();
    // The alert's dashboard step was filtered out: it no longer waits for it.
    assert!(step_of(&plan, "alert.prod.new-alert").depends_on.is_empty());
    let options = PlanOptions {
        only: vec!["service.*.scaling".into()],
        ..options()
    };
    let (plan, _) = super::plan(&demo_config(), &demo_live(), &options);
    assert_eq!(
        addresses(&plan),
        vec!["service.analytics.scaling", "service.reporting.scaling"]
    );
}

#[test]
fn only_warns_when_it_leaves_out_a_step_a_kept_step_waits_for() {
    let alerts_only = PlanOptions {
        only: vec!["alert.prod.*".into()],
        ..options()
    };
    let (_, diagnostics) = super::plan(&demo_config(), &demo_live(), &alerts_only);
    let warnings: Vec<&Diagnostic> = diagnostics
        .iter()
        .filter(|d| d.code == Code::PlanOnlyLeavesOutDependency)
        .collect();
    assert!(!warnings.is_empty(), "{diagnostics:#?}");
    assert!(
        warnings
            .iter()
            .all(|d| d.severity == crate::diagnostic::Severity::Warning)
    );
    assert!(
        warnings
            .iter()
            .any(|d| d.message.contains("alert.prod.new-alert")
                && d.message.contains("dashboard.prod.")),
        "{warnings:#?}"
    );
    // Keeping both ends of the dependency warns about nothing.
    let both = PlanOptions {
        only: vec!["alert.prod.*".into(), "dashboard.prod.*".into()],
        ..options()
    };
    let (_, diagnostics) = super::plan(&demo_config(), &demo_live(), &both);
    assert!(
        diagnostics
            .iter()
            .all(|d| d.code != Code::PlanOnlyLeavesOutDependency),
        "{diagnostics:#?}"
    );
}

#[test]
fn backup_checks_pass_and_fail_without_steps() {
    let plan = demo_plan();
    let addresses: Vec<(&str, bool)> = plan
        .checks
        .iter()
        .map(|c| (c.address.as_str(), c.passed))
        .collect();
    assert_eq!(
        addresses,
        vec![
            ("check.analytics.backups", true),
            ("check.reporting.backups", false)
        ]
    );
    // The newest *done* backup counts, not the running one: 6h old.
    assert_eq!(
        plan.checks[0].details[0],
        "newest done backup bk-newest is 6.0h old (at most 26h), 5.0 GiB, took 30m"
    );
    assert_eq!(
        plan.checks[1].details,
        vec![
            "newest done backup bk-newest is 6.0h old (at most 1h), 5.0 GiB, took 30m: too old"
                .to_string(),
            "newest backup bk-error ended in `error`".to_string(),
            "backup bk-gone does not exist".to_string()
        ]
    );
    assert_eq!(plan.failed_checks().count(), 1);
    assert!(
        !plan
            .steps
            .iter()
            .any(|s| s.address.to_string().starts_with("check."))
    );
    // Without a time the age is not judged.
    let (plan, _) = super::plan(&demo_config(), &demo_live(), &PlanOptions::default());
    assert!(
        plan.checks[0].details[0].ends_with("age not evaluated"),
        "{}",
        plan.checks[0].details[0]
    );
    assert!(plan.checks[0].passed);
}

#[test]
fn step_fingerprints_match_a_fresh_read_until_the_object_changes() {
    let plan = demo_plan();
    let live = demo_live();
    // Fingerprints are checked right before each write, after the step's dependencies ran.
    // `alert.prod.moved` is created after the dashboard update removes its tile (and with it
    // the old alert), so it expects no alert by that name at that point.
    let moved = step_of(&plan, "alert.prod.moved");
    assert!(moved.operation.current(&live).is_some());
    assert_eq!(moved.fingerprint, None);
    let mut after_update = demo_live();
    after_update
        .stacks
        .get_mut("prod")
        .unwrap()
        .alerts
        .retain(|a| a.id != "alert-moved");
    assert_eq!(moved.operation.current(&after_update), None);
    for step in plan
        .steps
        .iter()
        .filter(|s| s.address != "alert.prod.moved")
    {
        assert_eq!(
            step.operation.current(&live),
            step.fingerprint,
            "{}",
            step.address
        );
    }
    // Change each kind of object behind the plan's back: its step is stale, the others not.
    let mut changed = demo_live();
    changed.services.get_mut(ANALYTICS).unwrap().num_replicas = Some(5.0);
    changed.pipes.get_mut(ANALYTICS).unwrap()[0]
        .scaling
        .as_mut()
        .unwrap()
        .replicas = Some(9);
    let prod = changed.stacks.get_mut("prod").unwrap();
    prod.dashboards[0].tiles[0].id = Some("tile-requests-recreated".into());
    prod.alerts[0].threshold = Some(150.0);
    prod.dashboards.push(Dashboard {
        id: "someone-else".into(),
        name: "New board".into(),
        ..Dashboard::default()
    });
    let stale: Vec<String> = plan
        .steps
        .iter()
        .filter(|s| s.address != "alert.prod.moved")
        .filter(|s| s.operation.current(&changed) != s.fingerprint)
        .map(|s| s.address.to_string())
        .collect();
    assert_eq!(
        stale,
        vec![
            "service.analytics.scaling",
            "pipe.analytics.orders.scaling",
            "dashboard.prod.api-health",
            "dashboard.prod.new-board",
            "alert.prod.api-errors",
        ]
    );
    // Objects a step deletes that are already gone also read as changed.
    let mut gone = demo_live();
    gone.pipes
        .get_mut(ANALYTICS)
        .unwrap()
        .retain(|p| p.id != LEGACY);
    let step = step_of(&plan, "pipe.analytics.legacy");
    assert_eq!(step.operation.current(&gone), None);
    assert!(step.fingerprint.is_some());
}

// ---------------------------------------------------------------------------------------------
// Rules that need live facts

fn codes(diagnostics: &[Diagnostic]) -> Vec<Code> {
    diagnostics.iter().map(|d| d.code).collect()
}

#[test]
fn pipe_scaling_field_must_apply_to_the_source_kind() {
    let mut config = demo_config();
    let analytics = config.services.get_mut("analytics").unwrap();
    let orders = analytics.pipes.get_mut("orders").unwrap();
    orders.scaling.as_mut().unwrap().concurrency = Some(loc(3, 70));
    let customers = analytics.pipes.get_mut("customers").unwrap();
    customers.scaling = Some(model::PipeScalingConfig {
        replicas: Some(loc(2, 80)),
        ..Default::default()
    });
    let (plan, diagnostics) = plan(&config, &demo_live(), &PlanOptions::default());
    assert_eq!(
        codes(&diagnostics),
        vec![Code::PlanPipeScalingField, Code::PlanPipeScalingField]
    );
    assert_eq!(diagnostics[0].span.unwrap().line, 70);
    assert!(diagnostics[0].message.contains("`concurrency`"));
    assert!(diagnostics[0].help.as_ref().unwrap().contains("replicas"));
    assert_eq!(diagnostics[1].span.unwrap().line, 80);
    assert!(
        diagnostics[1]
            .help
            .as_ref()
            .unwrap()
            .contains("postgres pipes share the compute of their service: set it with `services.analytics.pipeCompute`")
    );
    assert!(
        !addresses(&plan)
            .iter()
            .any(|a| a == "pipe.analytics.orders.scaling")
    );
}

#[test]
fn first_service_of_a_warehouse_needs_two_replicas() {
    let mut config = demo_config();
    let scaling = config
        .services
        .get_mut("reporting")
        .unwrap()
        .scaling
        .as_mut()
        .unwrap();
    scaling.num_replicas = Some(loc(1.0, 91));
    let (_, diagnostics) = plan(&config, &demo_live(), &PlanOptions::default());
    assert_eq!(
        codes(&diagnostics),
        vec![Code::PlanReplicasFirstInWarehouse]
    );
    assert_eq!(diagnostics[0].span.unwrap().line, 91);
    // The same value on a service that is not first in its warehouse is fine.
    let mut config = demo_config();
    let scaling = config
        .services
        .get_mut("analytics")
        .unwrap()
        .scaling
        .as_mut()
        .unwrap();
    scaling.num_replicas = Some(loc(1.0, 11));
    let (_, diagnostics) = plan(&config, &demo_live(), &PlanOptions::default());
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
}

#[test]
fn unknown_source_name_is_an_error_listing_the_sources() {
    let mut config = demo_config();
    let board = config
        .stacks
        .get_mut("prod")
        .unwrap()
        .dashboards
        .get_mut("new-board")
        .unwrap();
    board.tiles[0].series[0].source = Some(model::SourceRef::Name(loc("Logz".into(), 200)));
    let (plan, diagnostics) = plan(&config, &demo_live(), &PlanOptions::default());
    assert_eq!(codes(&diagnostics), vec![Code::PlanUnknownSource]);
    assert_eq!(diagnostics[0].span.unwrap().line, 200);
    assert!(diagnostics[0].help.as_ref().unwrap().contains("Logs"));
    // Neither the dashboard nor its alert is planned.
    assert!(
        !addresses(&plan)
            .iter()
            .any(|a| a == "dashboard.prod.new-board")
    );
    assert!(!addresses(&plan).iter().any(|a| a == "alert.prod.new-alert"));
}

#[test]
fn two_live_dashboards_with_one_name_is_an_error_saying_how_to_resolve_it() {
    let mut live = demo_live();
    let stack = live.stacks.get_mut("prod").unwrap();
    let mut twin = stack.dashboards[0].clone();
    twin.id = "dash-api-twin".into();
    stack.dashboards.push(twin);
    let (_, diagnostics) = plan(&demo_config(), &live, &PlanOptions::default());
    assert_eq!(codes(&diagnostics), vec![Code::PlanDuplicateDashboard]);
    let d = &diagnostics[0];
    assert!(
        d.message.contains("dash-api, dash-api-twin"),
        "{}",
        d.message
    );
    assert!(d.help.as_ref().unwrap().contains("rename all but one"));
}

#[test]
fn two_live_alerts_with_one_name_is_an_error() {
    let mut live = demo_live();
    let prod = live.stacks.get_mut("prod").unwrap();
    let mut twin = prod.alerts[0].clone();
    twin.id = "alert-api-errors-twin".into();
    prod.alerts.push(twin);
    let (plan, diagnostics) = plan(&demo_config(), &live, &options());
    assert_eq!(codes(&diagnostics), vec![Code::PlanDuplicateAlert]);
    assert!(
        diagnostics[0]
            .message
            .contains("alert-api-errors, alert-api-errors-twin")
    );
    assert!(
        !addresses(&plan)
            .iter()
            .any(|a| a == "alert.prod.api-errors")
    );
}

#[test]
fn alert_on_a_missing_tile_is_an_error() {
    let mut config = demo_config();
    let alert = config
        .stacks
        .get_mut("prod")
        .unwrap()
        .alerts
        .get_mut("api-errors")
        .unwrap();
    alert.tile = loc("Nope".into(), 301);
    let (plan, diagnostics) = plan(&config, &demo_live(), &PlanOptions::default());
    assert_eq!(codes(&diagnostics), vec![Code::PlanUnknownTile]);
    assert_eq!(diagnostics[0].span.unwrap().line, 301);
    assert!(diagnostics[0].help.as_ref().unwrap().contains("Requests"));
    assert!(
        !addresses(&plan)
            .iter()
            .any(|a| a == "alert.prod.api-errors")
    );
}

#[test]
fn missing_service_and_pipe_point_at_their_ids() {
    let mut live = demo_live();
    live.services.remove(REPORTING);
    live.pipes
        .get_mut(ANALYTICS)
        .unwrap()
        .retain(|p| p.id != ORDERS);
    let (_, diagnostics) = plan(&demo_config(), &live, &PlanOptions::default());
    assert_eq!(
        codes(&diagnostics),
        vec![Code::PlanPipeNotFound, Code::PlanServiceNotFound]
    );
}

#[test]
fn ownership_tag_fits_the_tag_limit() {
    assert_eq!(tag::ownership_tag("prod"), "converge:prod");
    let long = tag::ownership_tag("a-very-long-stack-key-for-the-europe-region");
    assert_eq!(long.chars().count(), 32);
    assert!(long.starts_with("converge:a-very-long-st"));
    let other = tag::ownership_tag("a-very-long-stack-key-for-the-europe-regioN");
    assert_ne!(long, other);
}

// ---------------------------------------------------------------------------------------------
// Renderers and the saved plan

#[test]
fn text_rendering_snapshot() {
    insta::assert_snapshot!("text", text::render(&demo_plan(), &Printer::plain()));
}

#[test]
fn json_rendering_snapshot() {
    let json = render_json::render(&demo_plan());
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["format"], "converge-plan/1");
    assert_eq!(value["changes"][0]["action"], "delete");
    insta::assert_snapshot!("json", json);
}

#[test]
fn markdown_rendering_snapshot() {
    let markdown = markdown::render(&demo_plan());
    assert!(markdown.starts_with("<!-- converge-plan -->\n"));
    insta::assert_snapshot!("markdown", markdown);
}

#[test]
fn text_hides_unchanged_and_lists_destroys_once_before_the_changes() {
    let plan = demo_plan();
    let text = text::render(&plan, &Printer::plain());
    assert!(!text.contains("dashboard.prod.steady"));
    assert!(!text.contains("\u{1b}["));
    let destroys = text.find("Destroys").unwrap();
    let changes = text.find("Changes:").unwrap();
    assert!(destroys < changes);
    let first_change = &text[changes..].lines().nth(1).unwrap();
    assert!(
        first_change.trim_start().starts_with("~ "),
        "{first_change}"
    );
    for change in plan.changes.iter().filter(|c| c.action == Action::Delete) {
        let heading = format!("  - {}  ", change.address);
        assert_eq!(text.matches(&heading).count(), 1, "{heading}: {text}");
        assert!(text.find(&heading).unwrap() < changes);
    }
    let markdown = markdown::render(&plan);
    for change in plan.changes.iter().filter(|c| c.action == Action::Delete) {
        // Inside `<details><summary>` (raw HTML) as HTML text, on a list line as Markdown.
        let html = crate::markdown::escape_html(&change.address.to_string());
        let inline = crate::markdown::escape(&change.address.to_string());
        let count = markdown.matches(&format!("- {html}</code>")).count()
            + markdown.matches(&format!("<code>{inline}</code>")).count();
        assert_eq!(count, 1, "{}", change.address);
    }
}

fn strip_ansi(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c == 'm' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn colored_text_reads_the_same_without_color() {
    let color = Printer::new(crate::output::PrinterOptions {
        color: crate::output::ColorMode::Always,
        verbose: 0,
    });
    let plan = demo_plan();
    let colored = text::render(&plan, &color);
    assert!(colored.contains("\u{1b}[31m- pipe.analytics.legacy"));
    assert_eq!(strip_ansi(&colored), text::render(&plan, &Printer::plain()));
}

#[test]
fn markdown_escapes_names_that_look_like_markup() {
    let mut live = demo_live();
    let prod = live.stacks.get_mut("prod").unwrap();
    prod.alerts
        .iter_mut()
        .find(|a| a.id == "alert-stale")
        .unwrap()
        .name = "<b>x</b> ```".into();
    let (plan, _) = plan(&demo_config(), &live, &options());
    let markdown = markdown::render(&plan);
    // Outside code fences the name is never raw HTML and never opens a fence.
    let mut in_fence = false;
    let mut fences = 0;
    for line in markdown.lines() {
        if line.starts_with("```") {
            in_fence = !in_fence;
            fences += 1;
            continue;
        }
        if !in_fence {
            assert!(!line.contains("<b>x</b>"), "{line}");
            assert!(!line.contains("```"), "{line}");
        } else {
            assert!(!line.contains("```"), "{line}");
        }
    }
    assert!(!in_fence);
    assert!(fences > 0);
    assert!(markdown.contains("&lt;b&gt;x&lt;/b&gt;"));
}

#[test]
fn saved_plan_round_trips() {
    let config = demo_config();
    let plan = demo_plan();
    let saved = saved::SavedPlan::new(&config, plan.clone(), &crate::output::Printer::plain());
    let text = saved.to_json();
    let back = saved::SavedPlan::from_json(&text).unwrap();
    // Read back, the steps are the ones the changes call for: alerts find their dashboard and
    // tile by the names the changes show; everything else is as saved.
    assert_eq!(back.plan.changes, plan.changes);
    assert_eq!(
        Ok(back.plan.steps.clone()),
        crate::plan::trust::steps(&plan)
    );
    for (read, made) in back.plan.steps.iter().zip(&plan.steps) {
        match &read.operation {
            Operation::Alert(AlertOp::Create { target, .. } | AlertOp::Update { target, .. }) => {
                assert!(matches!(target, AlertTarget::Names { .. }), "{read:?}")
            }
            Operation::Alert(AlertOp::Delete { .. })
            | Operation::Service(_)
            | Operation::PrivateEndpoint(_)
            | Operation::Pipe(_)
            | Operation::Dashboard(_)
            | Operation::ReverseEndpoint(_)
            | Operation::Webhook(_)
            | Operation::Source(_)
            | Operation::SavedSearch(_) => assert_eq!(read, made),
        }
    }
    assert_eq!(
        back.cloud.key_secret.as_deref(),
        Some("${env:CONVERGE_KEY_SECRET}")
    );
    assert_eq!(
        back.observability.unwrap().token.as_deref(),
        Some("${env:CONVERGE_OBS_TOKEN}")
    );
    let other = text.replace(saved::FORMAT, "converge-saved-plan/0");
    assert!(matches!(
        saved::SavedPlan::from_json(&other),
        Err(saved::LoadError::Version { .. })
    ));
    assert!(saved::SavedPlan::from_json("{").is_err());
    // A JSON file that is not a plan at all says so, rather than naming an empty format.
    let not_a_plan = saved::SavedPlan::from_json("{}").unwrap_err().to_string();
    assert!(not_a_plan.contains("no `format` field"), "{not_a_plan}");
    // Steps whose dependencies do not come first are refused.
    let mut bad = saved.clone();
    bad.plan.steps[0].depends_on = vec![5];
    assert!(matches!(
        saved::SavedPlan::from_json(&bad.to_json()),
        Err(saved::LoadError::Malformed(m)) if m.contains("does not come before")
    ));
}

#[test]
fn no_secret_value_in_any_rendering_or_saved_plan() {
    let config = demo_config();
    let live = demo_live();
    let (plan, _) = plan(&config, &live, &PlanOptions::default());
    let color = Printer::new(crate::output::PrinterOptions {
        color: crate::output::ColorMode::Always,
        verbose: 2,
    });
    let outputs = [
        text::render(&plan, &Printer::plain()),
        text::render(&plan, &color),
        render_json::render(&plan),
        markdown::render(&plan),
        saved::SavedPlan::new(&config, plan.clone(), &crate::output::Printer::plain()).to_json(),
        format!("{plan:?}"),
    ];
    for output in &outputs {
        for canary in CANARIES {
            assert!(!output.contains(canary), "{canary} leaked");
        }
        // Pipe sources never appear, not even their non-secret settings.
        assert!(!output.contains("broker.internal"), "pipe source leaked");
    }
    // The canaries really are in the inputs.
    assert!(
        serde_json::to_string(&live.pipes)
            .unwrap()
            .contains(CANARIES[0])
    );
    assert!(format!("{:?}", config.cloud).contains("CONVERGE_KEY_SECRET"));
}

#[test]
fn markdown_stays_within_budget_on_thousands_of_changes() {
    let (config, live) = large(3000);
    let (plan, diagnostics) = plan(&config, &live, &PlanOptions::default());
    assert!(diagnostics.is_empty());
    assert!(plan.changes.len() >= 3000);
    let markdown = markdown::render(&plan);
    assert!(markdown.len() <= markdown::BUDGET, "{}", markdown.len());
    assert!(markdown.chars().count() <= markdown::BUDGET);
    assert!(markdown.starts_with(markdown::MARKER));
    assert!(markdown.contains(&plan.summary().line()));
    assert!(markdown.contains("was cut"));
    // Every destroy is listed even though details were cut: with its details while they fit,
    // then as one line.
    for change in plan.changes.iter().filter(|c| c.action == Action::Delete) {
        let address = crate::markdown::escape(&change.address.to_string());
        let html = crate::markdown::escape_html(&change.address.to_string());
        assert!(
            markdown.contains(&format!("<code>{address}</code>"))
                || markdown.contains(&format!("<code>- {html}</code>")),
            "{address}"
        );
    }
    // A small plan is not cut.
    assert!(!markdown::render(&demo_plan()).contains("was cut"));
}

#[test]
fn planning_twice_gives_the_same_bytes() {
    let a = render_json::render(&demo_plan());
    let b = render_json::render(&demo_plan());
    assert_eq!(a, b);
}

#[test]
fn render_dispatches_on_format() {
    let plan = demo_plan();
    let printer = Printer::plain();
    assert!(render(&plan, Format::Text, &printer).starts_with("Plan: 4 to create"));
    assert!(render(&plan, Format::Json, &printer).contains("\"format\": \"converge-plan/1\""));
    assert!(render(&plan, Format::Markdown, &printer).starts_with(markdown::MARKER));
}

#[test]
fn the_ownership_tag_alone_is_no_reason_to_update() {
    let mut live = demo_live();
    let prod = live.stacks.get_mut("prod").unwrap();
    for d in &mut prod.dashboards {
        d.tags.retain(|t| t != "converge:prod");
    }
    let (plan, _) = plan(&demo_config(), &live, &options());
    let steady = by_address(&plan, "dashboard.prod.steady");
    assert_eq!(steady.action, Action::NoOp);
    assert_eq!(steady.after, steady.before);
    // With a real change the tag comes along.
    let api = by_address(&plan, "dashboard.prod.api-health");
    assert_eq!(api.action, Action::Update);
    let tags = api.fields.iter().find(|f| f.path == "tags").unwrap();
    assert_eq!(
        tags.after,
        Some(serde_json::json!(["converge:prod", "team-api"]))
    );
    // Untagged dashboards missing from the config are not converge's: not pruned.
    assert!(!addresses(&plan).iter().any(|a| a.contains("Stale board")));
}

#[test]
fn a_plan_with_nothing_to_do_says_so() {
    let config = demo_config();
    let served = property::Served::new(&config, &demo_live());
    let (first, _) = plan(&config, &served.read(), &options());
    let mut live = served.apply(&first);
    // A dashboard made by hand in a pruned stack is left as is and said: no "No changes".
    let (left, _) = plan(&config, &live, &options());
    let text = text::render(&left, &Printer::plain());
    assert!(!text.contains("No changes"), "{text}");
    assert!(
        text.contains("Nothing to apply, but the live state does not match the config: 1 live"),
        "{text}"
    );
    if let Some(prod) = live.stacks.get_mut("prod") {
        prod.dashboards.retain(|d| d.name != "Hand made");
    }
    let (second, _) = plan(&config, &live, &options());
    let text = text::render(&second, &Printer::plain());
    assert!(
        text.starts_with("Plan: 0 to create, 0 to update, 0 to delete, 16 unchanged\n"),
        "{text}"
    );
    assert!(text.contains("No changes: the live state matches the config."));
    assert!(!text.contains("Steps:"));
    assert!(!text.contains("Changes:"));
    assert!(!text::render(&first, &Printer::plain()).contains("No changes"));
}

fn prod(config: &mut model::Config) -> &mut model::StackConfig {
    config.stacks.get_mut("prod").unwrap()
}

#[test]
fn a_tile_renamed_where_it_stands_keeps_its_id_and_the_alerts_on_it() {
    let mut config = demo_config();
    // `Latency` where the live `Old tile` stands (second), `Requests` where it stands (first).
    let tiles = &mut prod(&mut config).dashboards["api-health"].tiles;
    tiles.swap(0, 1);
    let (plan, diagnostics) = plan(&config, &demo_live(), &options());
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    let dashboard = by_address(&plan, "dashboard.prod.api-health");
    let rename = &dashboard.fields[0];
    assert_eq!(rename.path, "tiles[Latency].name");
    assert_eq!(rename.before, Some(serde_json::json!("Old tile")));
    assert_eq!(dashboard.renamed_from, None, "the dashboard keeps its name");
    match &step_of(&plan, "dashboard.prod.api-health").operation {
        Operation::Dashboard(DashboardOp::Update { body, .. }) => {
            let latency = body.tiles.iter().find(|t| t.name == "Latency").unwrap();
            assert_eq!(latency.id.as_deref(), Some("tile-old"));
        }
        other => panic!("unexpected {other:?}"),
    }
    // The alert on the old tile survives the update: it is not created again.
    let moved = by_address(&plan, "alert.prod.moved");
    assert_ne!(moved.action, Action::Create, "{}", moved.reason);
    assert!(moved.fields.iter().all(|f| f.path != "tile"), "{moved:?}");
}

#[test]
fn renamed_from_finds_a_tile_wherever_it_stands() {
    let mut config = demo_config();
    let latency = &mut prod(&mut config).dashboards["api-health"].tiles[0];
    assert_eq!(latency.name.value, "Latency");
    latency.renamed_from = vec![loc("Old tile".into(), 121)];
    let (plan, diagnostics) = plan(&config, &demo_live(), &options());
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    match &step_of(&plan, "dashboard.prod.api-health").operation {
        Operation::Dashboard(DashboardOp::Update { body, .. }) => {
            let latency = body.tiles.iter().find(|t| t.name == "Latency").unwrap();
            assert_eq!(latency.id.as_deref(), Some("tile-old"));
        }
        other => panic!("unexpected {other:?}"),
    }
    assert_ne!(by_address(&plan, "alert.prod.moved").action, Action::Create);
}

#[test]
fn a_tile_that_could_be_two_live_tiles_is_an_error_at_its_renamed_from() {
    let mut config = demo_config();
    let requests = &mut prod(&mut config).dashboards["api-health"].tiles[1];
    assert_eq!(requests.name.value, "Requests");
    requests.renamed_from = vec![loc("Old tile".into(), 111)];
    let (plan, diagnostics) = plan(&config, &demo_live(), &options());
    assert_eq!(codes(&diagnostics), vec![Code::PlanAmbiguousRename]);
    assert_eq!(diagnostics[0].span.unwrap().line, 111);
    assert!(
        diagnostics[0]
            .message
            .contains("\"Requests\" (id tile-requests)")
            && diagnostics[0]
                .message
                .contains("\"Old tile\" (id tile-old)"),
        "{}",
        diagnostics[0].message
    );
    // Neither the dashboard nor the alerts on it are planned.
    assert!(
        !addresses(&plan)
            .iter()
            .any(|a| a == "dashboard.prod.api-health")
    );
    assert!(
        !addresses(&plan)
            .iter()
            .any(|a| a == "alert.prod.api-errors")
    );
}

#[test]
fn a_renamed_dashboard_is_updated_in_place_and_its_alerts_do_not_change() {
    let mut config = demo_config();
    let dashboard = &mut prod(&mut config).dashboards["api-health"];
    dashboard.renamed_from = vec![dashboard.name.clone()];
    dashboard.name = loc("API health v2".into(), 101);
    let (plan, diagnostics) = plan(&config, &demo_live(), &options());
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    let change = by_address(&plan, "dashboard.prod.api-health");
    assert_eq!(change.action, Action::Update);
    assert_eq!(change.renamed_from.as_deref(), Some("API health"));
    assert_eq!(change.fields[0].path, "name");
    assert!(
        change
            .reason
            .starts_with("renamed from \"API health\"; tiles")
    );
    match &step_of(&plan, "dashboard.prod.api-health").operation {
        Operation::Dashboard(DashboardOp::Update {
            dashboard_id, body, ..
        }) => {
            assert_eq!(dashboard_id, "dash-api");
            assert_eq!(body.name, "API health v2");
        }
        other => panic!("unexpected {other:?}"),
    }
    // The alert names its dashboard by id: the new name is no change of the alert's.
    assert_eq!(
        by_address(&plan, "alert.prod.api-errors").reason,
        "threshold differs"
    );
    let text = text::render(&plan, &Printer::plain());
    assert!(
        text.contains(
            "  ~ dashboard.prod.api-health  renamed \"API health\" -> \"API health v2\"  (tiles differs)\n"
        ),
        "{text}"
    );
    assert!(
        !text.contains("~ name:"),
        "said once, on the heading: {text}"
    );
    let json: serde_json::Value = serde_json::from_str(&render_json::render(&plan)).unwrap();
    let renamed: Vec<&serde_json::Value> = json["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c.get("renamedFrom").is_some())
        .collect();
    assert_eq!(renamed.len(), 1);
    assert_eq!(renamed[0]["renamedFrom"], "API health");
}

#[test]
fn an_alert_is_renamed_in_place_and_two_candidates_are_an_error() {
    let mut config = demo_config();
    let alert = &mut prod(&mut config).alerts["api-errors"];
    alert.renamed_from = vec![alert.name.clone()];
    alert.name = loc("API error rate".into(), 301);
    let (plan, diagnostics) = plan(&config, &demo_live(), &options());
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    let change = by_address(&plan, "alert.prod.api-errors");
    assert_eq!(change.renamed_from.as_deref(), Some("API errors"));
    assert_eq!(change.fields[0].path, "name");
    assert_eq!(
        change.reason,
        "renamed from \"API errors\"; threshold differs"
    );
    match &step_of(&plan, "alert.prod.api-errors").operation {
        Operation::Alert(AlertOp::Update { alert_id, body, .. }) => {
            assert_eq!(alert_id, "alert-api-errors");
            assert_eq!(body.name.as_deref(), Some("API error rate"));
        }
        other => panic!("unexpected {other:?}"),
    }
    // The old name is the config's: not reported as stray, not pruned.
    assert!(
        !plan
            .changes
            .iter()
            .any(|c| c.address.to_string().contains("API errors"))
    );

    // A second live alert under another listed name: either could be this one.
    let alert = &mut prod(&mut config).alerts["api-errors"];
    alert.renamed_from.push(loc("Stale alert".into(), 302));
    let (second, diagnostics) = build::plan(&config, &demo_live(), &options());
    assert_eq!(codes(&diagnostics), vec![Code::PlanAmbiguousRename]);
    assert_eq!(diagnostics[0].span.unwrap().line, 300);
    assert!(
        !addresses(&second)
            .iter()
            .any(|a| a == "alert.prod.api-errors")
    );
}

/// Saved plans written by converge before operations were nested by kind (`plan --out` of the
/// quickstart against the sandbox; then, once applied, with a changed tag and threshold, the
/// endpoint dropped, a pipe `absent` and a pruned dashboard and alert): every kind of operation.
const SAVED_BEFORE_KINDS: &[(&str, &str)] = &[
    (
        "creates",
        include_str!("../../tests/fixtures/saved-plans/creates.json"),
    ),
    (
        "updates-and-deletes",
        include_str!("../../tests/fixtures/saved-plans/updates-and-deletes.json"),
    ),
];

#[test]
fn saved_plans_written_before_kinds_read_and_write_back_byte_for_byte() {
    let mut ops = std::collections::BTreeSet::new();
    for (name, text) in SAVED_BEFORE_KINDS {
        let read: saved::SavedPlan = serde_json::from_str(text).unwrap();
        assert_eq!(read.to_json(), *text, "{name} changed on a round trip");
        let loaded = saved::SavedPlan::from_json(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(loaded.plan.steps.len(), read.plan.steps.len());
        for step in &read.plan.steps {
            let tag = serde_json::to_value(&step.operation).unwrap()["op"].clone();
            assert_eq!(tag, step.operation.name().op, "{name}: {}", step.address);
            ops.insert(step.operation.name().op);
        }
    }
    assert_eq!(ops.len(), 11, "not every operation is covered: {ops:?}");
}

#[test]
fn an_unknown_operation_is_refused_by_name() {
    let read = |op: &str| {
        serde_json::from_value::<crate::plan::Operation>(serde_json::json!({
            "op": op, "serviceId": "s", "pipeId": "p"
        }))
        .unwrap_err()
        .to_string()
    };
    assert!(read("pipe-delete-all").contains("unknown variant `pipe-delete-all`"));
    // The kinds' table lists its prefixes as the message always has.
    assert_eq!(
        read("cluster-delete"),
        "unknown operation `cluster-delete`: operations are of a service-, private-endpoint-, \
         pipe-, dashboard-, alert-, webhook-, reverse-endpoint-, source- or saved-search-"
    );
    assert!(
        serde_json::from_value::<crate::plan::Operation>(serde_json::json!({
            "op": "pipe-delete", "serviceId": "s", "pipeId": "p"
        }))
        .is_ok()
    );
}

#[test]
fn a_step_run_before_an_earlier_one_keeps_the_order_valid_and_the_changes_pointing_at_it() {
    let mut plan = demo_plan();
    let alert = "alert.prod[\"Stale alert\"]";
    let board = "dashboard.prod[\"Stale board\"]";
    let moved = by_address(&plan, alert).step.unwrap();
    assert!(moved > 0 && plan.steps[moved].depends_on.is_empty());
    let first = plan.steps[0].address.clone();
    assert!(order::run_before(
        &mut plan.steps,
        &mut plan.changes,
        moved,
        0
    ));
    order::check(&plan.steps).unwrap();
    assert_eq!(plan.steps[0].address, alert);
    assert_eq!(plan.steps[1].address, first);
    assert_eq!(plan.steps[1].depends_on, vec![0]);
    // The board's delete still waits for the alert's, under its new number.
    assert!(step_of(&plan, board).depends_on.contains(&0));
    for change in &plan.changes {
        if let Some(id) = change.step {
            assert_eq!(plan.steps[id].address, change.address);
        }
    }
    // A step cannot run before one it depends on.
    let board_id = by_address(&plan, board).step.unwrap();
    assert!(!order::run_before(
        &mut plan.steps,
        &mut plan.changes,
        board_id,
        0
    ));
}

#[test]
fn markdown_warnings_stay_within_a_quarter_of_the_budget() {
    let mut plan = demo_plan();
    plan.warnings = (0..5000)
        .map(|n| super::model::Warning {
            code: Some("plan::only-leaves-out-dependency".into()),
            place: None,
            message: format!("`--only` keeps `alert.prod.a{n}` but leaves out a dashboard"),
            help: None,
        })
        .collect();
    let markdown = markdown::render(&plan);
    assert!(markdown.len() <= markdown::BUDGET);
    assert!(markdown.contains("more warning(s): run `converge plan` for all of them"));
    // The first warnings are shown, escaped.
    assert!(markdown.contains("keeps `alert.prod.a0` but leaves out"));
}

#[test]
fn the_tag_a_run_puts_on_what_it_creates_changes_nothing_in_the_plan() {
    let mut live = demo_live();
    let prod = live.stacks.get_mut("prod").unwrap();
    for d in &mut prod.dashboards {
        d.tags.push(normalize::run_tag("0123456789ab"));
    }
    let (tagged, _) = plan(&demo_config(), &live, &options());
    let (untagged, _) = plan(&demo_config(), &demo_live(), &options());
    assert_eq!(render_json::render(&tagged), render_json::render(&untagged));
}
