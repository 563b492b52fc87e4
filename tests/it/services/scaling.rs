//! A service's scaling through `PATCH .../replicaScaling` (issue 34, item 1): each member
//! created and changed one at a time with an empty plan after each apply, a mode switch shown
//! with the members that stop applying, the rules only the live service can tell at plan time,
//! the document's rules at their lines, the deprecated totals' warning and route, and the
//! sandbox's 400 for a broken rule.

use serde_json::{Value, json};

use super::{REPORTING, apply_then_empty, logged, services, validate};
use crate::common::{ANALYTICS, Client, Converge, converge_snapshot};

const REPLICA: &str = "PATCH /services/{serviceId}/replicaScaling";

/// `analytics` with these scaling members (one `key: value` a line), `reporting` as the demo's.
fn scaled(members: &[&str]) -> String {
    let lines: String = members.iter().map(|m| format!("      {m}\n")).collect();
    services(
        &format!("    scaling:\n{lines}"),
        "    scaling: { numReplicas: 1 }\n",
    )
}

#[test]
fn each_member_goes_through_replica_scaling_and_plans_empty_after() {
    let sandbox = logged();
    let first = scaled(&["numReplicas: 3"]);
    let planned = Converge::new(&sandbox).fast().config(&first).run(["plan"]);
    converge_snapshot!("replica_scaling_plan", planned);
    let steps: [(&[&str], Value); 5] = [
        (&["numReplicas: 3"], json!({"numReplicas": 3})),
        (
            &["numReplicas: 3", "minReplicaMemoryGb: 16"],
            json!({"minReplicaMemoryGb": 16}),
        ),
        (
            &[
                "numReplicas: 3",
                "minReplicaMemoryGb: 16",
                "maxReplicaMemoryGb: 64",
            ],
            json!({"maxReplicaMemoryGb": 64}),
        ),
        (
            &[
                "numReplicas: 3",
                "minReplicaMemoryGb: 16",
                "maxReplicaMemoryGb: 64",
                "idleScaling: true",
            ],
            json!({"idleScaling": true}),
        ),
        (
            &[
                "numReplicas: 3",
                "minReplicaMemoryGb: 16",
                "maxReplicaMemoryGb: 64",
                "idleScaling: true",
                "idleTimeoutMinutes: 30",
            ],
            json!({"idleTimeoutMinutes": 30}),
        ),
    ];
    for (members, body) in steps {
        let writes = apply_then_empty(&sandbox, &scaled(members));
        assert_eq!(writes, [(REPLICA.to_string(), body)], "{members:?}");
    }
    // A member removed from the config is no longer managed: nothing is sent for it.
    let writes = apply_then_empty(&sandbox, &scaled(&["numReplicas: 3"]));
    assert!(writes.is_empty(), "{writes:?}");
    let live = Client::new(&sandbox)
        .cloud("GET", &format!("/services/{ANALYTICS}"), None)
        .result();
    assert_eq!(
        (
            &live["minReplicaMemoryGb"],
            &live["maxReplicaMemoryGb"],
            &live["idleTimeoutMinutes"]
        ),
        (&json!(16), &json!(64), &json!(30)),
        "left as the last apply wrote them"
    );
}

#[test]
fn a_mode_switch_names_the_members_that_stop_applying_and_exports_back() {
    let sandbox = logged();
    let horizontal = scaled(&[
        "autoscalingMode: horizontal",
        "minReplicas: 2",
        "maxReplicas: 6",
        "minReplicaMemoryGb: 32",
        "maxReplicaMemoryGb: 32",
    ]);
    let converge = Converge::new(&sandbox).fast().config(&horizontal);
    converge_snapshot!("to_horizontal_plan", converge.run(["plan"]));
    let writes = apply_then_empty(&sandbox, &horizontal);
    assert_eq!(
        writes,
        [(
            REPLICA.to_string(),
            json!({"autoscalingMode": "horizontal", "minReplicas": 2, "maxReplicas": 6,
                   "minReplicaMemoryGb": 32, "maxReplicaMemoryGb": 32})
        )]
    );
    // Exported horizontal, the service plans empty from what export wrote.
    let exported =
        Converge::new(&sandbox)
            .rate_limit("1000/1s")
            .run(["export", "--service", ANALYTICS]);
    assert_eq!(exported.code, 0, "{exported:?}");
    assert!(
        exported.stdout.contains("autoscalingMode: horizontal"),
        "{}",
        exported.stdout
    );
    Converge::new(&sandbox)
        .rate_limit("1000/1s")
        .config_as("exported.yaml", &exported.stdout)
        .run(["plan", "--detailed-exitcode"])
        .assert_exit(0);
    // On a horizontal service, a fixed count without the mode is refused at its line.
    let fixed = scaled(&["numReplicas: 3"]);
    let refused = Converge::new(&sandbox).fast().config(&fixed).run(["plan"]);
    converge_snapshot!("fixed_count_on_horizontal", refused);
    let vertical = scaled(&["autoscalingMode: vertical", "numReplicas: 3"]);
    let back = Converge::new(&sandbox)
        .fast()
        .config(&vertical)
        .run(["plan"]);
    converge_snapshot!("to_vertical_plan", back);
    let writes = apply_then_empty(&sandbox, &vertical);
    assert_eq!(
        writes,
        [(
            REPLICA.to_string(),
            json!({"autoscalingMode": "vertical", "numReplicas": 3})
        )]
    );
}

#[test]
fn rules_of_the_live_service_are_checked_at_plan_time() {
    let sandbox = crate::common::fast_sandbox();
    let plan = |analytics: &[&str], reporting: &str| {
        let lines: String = analytics.iter().map(|m| format!("      {m}\n")).collect();
        let config = services(&format!("    scaling:\n{lines}"), reporting);
        Converge::new(&sandbox).fast().config(&config).run(["plan"])
    };
    // A horizontal band on the (vertical) service, with no mode written to switch it.
    let band = plan(&["minReplicas: 2", "maxReplicas: 4"], "");
    converge_snapshot!("band_on_vertical", band);
    // The first service of its warehouse needs 2 replicas, in either mode.
    let first = plan(
        &[
            "autoscalingMode: horizontal",
            "minReplicas: 1",
            "maxReplicas: 4",
        ],
        "",
    );
    converge_snapshot!("band_below_first_in_warehouse", first);
    // `reporting` is a development (non-paid) service: at most 120 GB a replica.
    let unpaid = plan(
        &["numReplicas: 3"],
        "    scaling:\n      maxReplicaMemoryGb: 124\n",
    );
    converge_snapshot!("unpaid_memory", unpaid);
}

#[test]
fn the_document_rules_are_refused_at_their_lines() {
    let cases: [(&str, &[&str]); 6] = [
        ("validate_band_one_end", &["minReplicas: 2"]),
        (
            "validate_mixed",
            &["minTotalMemoryGb: 48", "minReplicaMemoryGb: 16"],
        ),
        (
            "validate_count_beside_band",
            &["numReplicas: 3", "minReplicas: 2", "maxReplicas: 4"],
        ),
        (
            "validate_memory_multiple_and_order",
            &["minReplicaMemoryGb: 18", "maxReplicaMemoryGb: 12"],
        ),
        (
            "validate_horizontal_members",
            &[
                "autoscalingMode: horizontal",
                "numReplicas: 2",
                "minReplicaMemoryGb: 16",
                "maxReplicaMemoryGb: 32",
            ],
        ),
        (
            "validate_memory_range",
            &["minReplicaMemoryGb: 4", "maxReplicaMemoryGb: 360"],
        ),
    ];
    for (name, members) in cases {
        let out = validate(&scaled(members));
        assert_eq!(out.code, 1, "{name}: {out:?}");
        converge_snapshot!(name, out);
    }
}

#[test]
fn the_deprecated_totals_warn_and_go_through_scaling() {
    let sandbox = logged();
    let config = scaled(&["minTotalMemoryGb: 48", "maxTotalMemoryGb: 96"]);
    let warned = validate(&config);
    assert_eq!(warned.code, 0, "{warned:?}");
    converge_snapshot!("validate_deprecated_totals", warned);
    let writes = apply_then_empty(&sandbox, &config);
    assert_eq!(
        writes,
        [(
            "PATCH /services/{serviceId}/scaling".to_string(),
            json!({"minTotalMemoryGb": 48, "maxTotalMemoryGb": 96})
        )]
    );
}

#[test]
fn the_sandbox_answers_a_broken_rule_with_a_400_naming_it() {
    let sandbox = crate::common::fast_sandbox();
    let client = Client::new(&sandbox);
    let path = |service: &str| format!("/services/{service}/replicaScaling");
    let cases = [
        (
            ANALYTICS,
            json!({"minReplicaMemoryGb": 10}),
            "multiple of 4",
        ),
        (
            REPORTING,
            json!({"maxReplicaMemoryGb": 124}),
            "from 8 to 120",
        ),
        (
            ANALYTICS,
            json!({"numReplicas": 3, "minReplicas": 2, "maxReplicas": 4}),
            "mutually exclusive",
        ),
        (ANALYTICS, json!({"minReplicas": 2}), "maxReplicas"),
        (
            ANALYTICS,
            json!({"minReplicas": 2, "maxReplicas": 4}),
            "needs autoscalingMode horizontal",
        ),
        (
            ANALYTICS,
            json!({"autoscalingMode": "horizontal", "minReplicas": 1, "maxReplicas": 4}),
            "first service in a warehouse",
        ),
    ];
    for (service, body, says) in cases {
        let answer = client.cloud("PATCH", &path(service), Some(body.clone()));
        assert_eq!(answer.status, 400, "{body}: {}", answer.text);
        let error = answer.error();
        assert!(error.contains(says), "{body}: {error}");
    }
    // What reads back after an accepted switch: the band, the mode, the fixed memory.
    let accepted = client.cloud(
        "PATCH",
        &path(ANALYTICS),
        Some(
            json!({"autoscalingMode": "horizontal", "minReplicas": 2, "maxReplicas": 5,
                    "minReplicaMemoryGb": 24, "maxReplicaMemoryGb": 24}),
        ),
    );
    assert_eq!(accepted.status, 200, "{}", accepted.text);
    let live = client
        .cloud("GET", &format!("/services/{ANALYTICS}"), None)
        .result();
    assert_eq!(
        (
            &live["autoscalingMode"],
            &live["minReplicas"],
            &live["maxReplicas"],
            &live["currentScaling"]["effectiveMaxReplicas"]
        ),
        (&json!("horizontal"), &json!(2), &json!(5), &json!(5))
    );
}
