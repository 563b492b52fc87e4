//! Plans of a config covering the whole `large` seed: request count and Markdown budget.

use converge::sandbox::{SandboxOptions, Seed, large_config, large_config_with_changes};

use super::{config_dir, run};
use crate::common;

fn large_sandbox() -> converge::sandbox::SandboxHandle {
    common::sandbox(SandboxOptions {
        seed: Seed::Large,
        rate_limit: false,
        ..SandboxOptions::default()
    })
}

#[test]
fn no_op_plan_of_the_large_seed_costs_one_list_per_kind() {
    let sandbox = large_sandbox();
    let (dir, path) = config_dir(&large_config(0));
    let out = run(
        &sandbox,
        dir.path(),
        &["plan", "--detailed-exitcode", path.to_str().unwrap()],
    );
    assert_eq!(
        out.code, 0,
        "a no-op plan exits 0:\n{}\n{}",
        out.stdout, out.stderr
    );
    assert!(
        out.stdout.contains("0 to create, 0 to update, 0 to delete"),
        "{}",
        out.stdout
    );
    // 20 services, all with pipes; 2 stacks.
    let log = sandbox.request_log();
    let services_with_pipes = 20;
    let stacks = 2;
    assert!(
        log.len() <= 1 + services_with_pipes + 3 * stacks,
        "{} requests: {:#?}",
        log.len(),
        common::counts(&sandbox)
    );
    assert_eq!(
        common::count(
            &sandbox,
            "GET",
            "/v1/organizations/{organizationId}/services"
        ),
        1
    );
    assert_eq!(
        common::count(
            &sandbox,
            "GET",
            "/v1/organizations/{organizationId}/services/{serviceId}/pipes"
        ),
        20
    );
    assert!(log.iter().all(|entry| entry.status == 200), "{log:#?}");
}

#[test]
fn markdown_of_a_large_plan_stays_within_the_comment_budget() {
    let sandbox = large_sandbox();
    let (text, changes) = large_config_with_changes(3);
    let (dir, path) = config_dir(&text);
    let out = run(
        &sandbox,
        dir.path(),
        &["plan", "--format", "markdown", path.to_str().unwrap()],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.chars().count() <= 65_000,
        "{} characters",
        out.stdout.chars().count()
    );
    let summary = format!("0 to create, {} to update, 0 to delete", changes.total());
    assert!(
        out.stdout.contains(&summary),
        "{summary} not in the head:\n{}",
        &out.stdout[..2000.min(out.stdout.len())]
    );
    assert!(out.stdout.contains("<details>"), "details per resource");

    // Every object changed: far more than fits, so the comment is cut and says so.
    let (text, changes) = large_config_with_changes(1);
    assert_eq!(changes.total(), 20 + 75 + 300 + 1000);
    let (dir, path) = config_dir(&text);
    let out = run(
        &sandbox,
        dir.path(),
        &["plan", "--format", "markdown", path.to_str().unwrap()],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.chars().count() <= 65_000);
    assert!(
        out.stdout
            .contains("0 to create, 1395 to update, 0 to delete")
    );
    assert!(
        out.stdout.contains("this comment was cut") && out.stdout.contains("Run `converge plan`"),
        "{}",
        &out.stdout[out.stdout.len().saturating_sub(600)..]
    );
}

#[test]
fn markdown_keeps_every_destroy_when_details_are_cut() {
    let sandbox = large_sandbox();
    let client = common::Client::new(&sandbox);
    let services = client.cloud("GET", "/services", None).result();
    let first = services
        .as_array()
        .and_then(|s| s.iter().find(|s| s["name"] == "service-00"))
        .and_then(|s| s["id"].as_str())
        .expect("service-00")
        .to_string();
    // 120 dashboards converge owns in the managed stack that the config does not list.
    for n in 0..120 {
        let answer = client.cloud(
            "POST",
            &format!("/services/{first}/stack/dashboards"),
            Some(
                serde_json::json!({"name": format!("stale-{n:03}"), "tags": ["converge:managed"],
                "tiles": []}),
            ),
        );
        assert_eq!(answer.status, 200, "{}", answer.text);
    }
    let text = large_config(1).replacen("prune: false", "prune: true", 1);
    let (dir, path) = config_dir(&text);
    let out = run(
        &sandbox,
        dir.path(),
        &["plan", "--format", "markdown", path.to_str().unwrap()],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.chars().count() <= 65_000);
    assert!(
        out.stdout
            .contains("0 to create, 1395 to update, 120 to delete"),
        "{}",
        &out.stdout[..500]
    );
    for n in 0..120 {
        let address = format!("dashboard.managed\\[\"stale-{n:03}\"\\]");
        assert!(out.stdout.contains(&address), "{address} missing");
    }
    assert!(out.stdout.contains("this comment was cut"));
}
