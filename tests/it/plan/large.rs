//! Plans of a config covering the whole `large` seed: request count and Markdown budget.

use converge::sandbox::{SandboxOptions, Seed, large_config, large_config_with_changes};

use crate::common::{self, Converge, quickstart};

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
    let out = Converge::new(&sandbox)
        .fast()
        .config(&large_config(0))
        .run(["plan", "--detailed-exitcode"]);
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
    let out = Converge::new(&sandbox)
        .fast()
        .config(&text)
        .run(["plan", "--format", "markdown"]);
    out.assert_exit(0);
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
    let out = Converge::new(&sandbox)
        .fast()
        .config(&text)
        .run(["plan", "--format", "markdown"]);
    out.assert_exit(0);
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
    let out = Converge::new(&sandbox)
        .fast()
        .config(&text)
        .run(["plan", "--format", "markdown"]);
    out.assert_exit(0);
    assert!(out.stdout.chars().count() <= 65_000);
    assert!(
        out.stdout
            .contains("0 to create, 1395 to update, 120 to delete"),
        "{}",
        &out.stdout[..500]
    );
    // As a reader sees it on GitHub (a GFM renderer): every destroy, no escape showing.
    let seen = crate::review::visible_text(&out.stdout);
    for n in 0..120 {
        let address = format!("dashboard.managed[\"stale-{n:03}\"]");
        assert!(seen.contains(&address), "{address} missing");
    }
    let escapes = crate::review::visible_escapes(&out.stdout);
    assert!(escapes.is_empty(), "escapes shown: {escapes:?}");
    assert!(out.stdout.contains("this comment was cut"));
}

/// The large config with one object of each kind in three changed, loaded as the binary loads
/// it (URLs and credentials from the sandbox), and the whole live state read in-process.
fn whole_live_state(
    sandbox: &converge::sandbox::SandboxHandle,
    path: &std::path::Path,
) -> (converge::config::model::Config, converge::live::LiveState) {
    use converge::api::clients::RateLimits;
    use converge::commands::connect;
    use converge::config::{self, LoadMode};
    use converge::output::Printer;

    let environment = sandbox.environment();
    let lookup = |name: &str| {
        environment
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.clone())
    };
    let loaded = config::load_with_env(&[path.to_path_buf()], LoadMode::Live, &lookup);
    let config = loaded.config.expect("the large config loads");
    let (_runtime, _clients, live) = connect::connect_and_read_blocking_with(
        &config,
        4,
        RateLimits::UNLIMITED,
        &Printer::plain(),
    )
    .expect("the whole estate reads");
    (config, live)
}

#[test]
fn only_reads_what_its_addresses_need_and_plans_them_as_the_whole_plan_does() {
    use converge::output::Printer;
    use converge::plan::{self, Format, PlanOptions};

    let sandbox = large_sandbox();
    let (text, _) = large_config_with_changes(3);
    let converge = Converge::new(&sandbox).fast().config(&text);
    let (config, live) = whole_live_state(&sandbox, converge.config_path().as_ref());
    let pipes = "/v1/organizations/{organizationId}/services/{serviceId}/pipes";
    let services = "/v1/organizations/{organizationId}/services";
    // Each selection, and the lists it reads: a stack's alerts or dashboards need its three
    // lists; a pipe its service's pipes and the services list; scaling the services list alone.
    let cases: [(&[&str], usize); 10] = [
        (&["alert.managed.a0001"], 3),
        (&["alert.managed.*"], 3),
        (&["alert.*"], 6),
        (&["dashboard.global.*"], 3),
        (&["pipe.service-03.*"], 2),
        (&["service.service-01.private_endpoint[*"], 1),
        (&["service.*.scaling"], 1),
        (&["pipe.service-0?.*", "alert.global.*"], 1 + 10 + 3),
        (&["*scaling"], 21),
        (&["*"], 27),
    ];
    // A family of live-named addresses is read for, but the large seed holds no such object
    // (no stray dashboard): the glob matches nothing, which is an error (exit 1), after reading
    // only the lists that could have held one.
    {
        let (only, reads) = ("dashboard.managed[*", 3);
        sandbox.reset_log();
        let out = converge.run(["plan", "--only", only]);
        assert_eq!(out.code, 1, "--only {only}: {}", out.stderr);
        assert!(out.stderr.contains("matches no address"), "{}", out.stderr);
        assert_eq!(sandbox.request_log().len(), reads, "--only {only}");
    }
    for (only, reads) in cases {
        sandbox.reset_log();
        let mut args = vec!["plan", "--format", "json"];
        for pattern in only {
            args.extend(["--only", pattern]);
        }
        let out = converge.run(args);
        assert_eq!(out.code, 0, "--only {only:?}: {}", out.stderr);
        let log = sandbox.request_log();
        assert_eq!(
            log.len(),
            reads,
            "--only {only:?}: {:#?}",
            common::counts(&sandbox)
        );
        assert!(log.iter().all(|entry| entry.method == "GET"));
        let options = PlanOptions {
            only: only.iter().map(|p| p.to_string()).collect(),
            now: None,
            dedupe: false,
            drop_unchanged_values: false,
        };
        let (mut whole, diagnostics) = plan::plan(&config, &live, &options);
        // The binary's plan carries the warnings it printed (all have no place here).
        whole.warnings = diagnostics
            .into_iter()
            .map(|d| plan::Warning {
                code: Some(d.code.as_str().to_string()),
                place: None,
                message: d.message,
                help: d.help,
            })
            .collect();
        // ...and those about the live state (a stopped service), which no plan computes.
        let printed: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        for warning in printed["warnings"].as_array().into_iter().flatten() {
            if warning.get("code").is_none() {
                let message = warning["message"].as_str().unwrap_or_default().to_string();
                assert!(message.contains("will fail with 424"), "{message}");
                whole.warnings.push(plan::Warning {
                    code: None,
                    place: None,
                    message,
                    help: None,
                });
            }
        }
        assert_eq!(
            out.stdout,
            plan::render(&whole, Format::Json, &Printer::plain()),
            "--only {only:?}: the partial plan differs from the whole plan limited to it"
        );
        let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(json["only"], serde_json::json!(only), "{only:?}");
    }
    // The selections above did change things: the comparison was not of empty plans.
    let (whole, _) = plan::plan(
        &config,
        &live,
        &PlanOptions {
            only: vec!["alert.managed.*".into()],
            now: None,
            dedupe: false,
            drop_unchanged_values: false,
        },
    );
    assert_eq!(whole.summary().update, 167, "{}", whole.summary().line());
    assert_eq!(common::count(&sandbox, "GET", services), 1);
    assert_eq!(common::count(&sandbox, "GET", pipes), 20);
}

#[test]
fn a_partial_plan_says_so_in_every_format_and_in_the_saved_plan() {
    let sandbox = large_sandbox();
    let (text, _) = large_config_with_changes(3);
    let converge = Converge::new(&sandbox).fast().config(&text);
    let text = converge.run(["plan", "--only", "alert.global.*"]);
    text.assert_exit(0);
    assert!(
        text.stdout.lines().nth(1).is_some_and(|line| line
            == "partial: only addresses matching `alert.global.*` (`--only`); the rest of the \
                config was not read or planned"),
        "{}",
        &text.stdout[..300.min(text.stdout.len())]
    );
    let markdown = converge.run(["plan", "--only", "alert.global.*", "--format", "markdown"]);
    assert!(
        markdown
            .stdout
            .contains("> **Note:** partial: only addresses matching `alert.global.*`"),
        "{}",
        &markdown.stdout[..300.min(markdown.stdout.len())]
    );
    let saved = converge.dir().join("plan.json");
    let out = converge.run([
        "plan",
        "--only",
        "alert.global.*",
        "--only",
        "pipe.service-00.*",
        "--out",
        saved.to_str().unwrap(),
    ]);
    out.assert_exit(0);
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(saved).unwrap()).unwrap();
    assert_eq!(
        saved["plan"]["only"],
        serde_json::json!(["alert.global.*", "pipe.service-00.*"])
    );
    // A whole plan says nothing of the kind.
    let whole = converge.run(["plan", "--format", "json"]);
    assert!(!whole.stdout.contains("\"only\""));
    assert!(!converge.run(["plan"]).stdout.contains("partial"));
}

#[test]
fn the_quickstart_alerts_alone_cost_their_stack_s_three_lists() {
    let sandbox = common::fast_sandbox();
    let out = Converge::new(&sandbox)
        .fast()
        .config(&quickstart())
        .run(["plan", "--only", "alert.*"]);
    out.assert_exit(0);
    assert!(
        out.stdout
            .starts_with("Plan: 1 to create, 0 to update, 0 to delete, 0 unchanged\npartial:"),
        "{}",
        out.stdout
    );
    // A whole plan reads six lists: the services, the pipes, the backups and these three.
    let stack = "/v1/organizations/{organizationId}/services/{serviceId}/stack";
    assert_eq!(
        sandbox.request_log().len(),
        3,
        "{:?}",
        common::counts(&sandbox)
    );
    for list in ["dashboards", "alerts", "sources"] {
        assert_eq!(
            common::count(&sandbox, "GET", &format!("{stack}/{list}")),
            1
        );
    }
}

/// A comment cut to fit still names every change the plan makes, by address, stays under
/// GitHub's 65,536 characters and says what was cut.
#[test]
fn a_cut_comment_lists_every_change_it_leaves_without_details() {
    let sandbox = large_sandbox();
    let (text, changes) = large_config_with_changes(3);
    let converge = Converge::new(&sandbox).fast().config(&text);
    let out = converge.run(["plan", "--format", "markdown"]);
    out.assert_exit(0);
    assert!(out.stdout.chars().count() < 65_536);
    assert!(out.stdout.len() <= 65_000, "{} bytes", out.stdout.len());
    let json = converge.run(["plan", "--format", "json"]).json();
    let addresses: Vec<String> = json["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .filter(|c| c["action"] != "no-op")
        .filter_map(|c| c["address"].as_str().map(String::from))
        .collect();
    assert_eq!(addresses.len(), changes.total(), "{json:#}");
    let seen = crate::review::visible_text(&out.stdout);
    let missing: Vec<&String> = addresses
        .iter()
        .filter(|a| !seen.contains(&format!(" {a}")))
        .collect();
    assert!(missing.is_empty(), "not named in the comment: {missing:?}");
    assert!(
        out.stdout
            .contains("**Cut to fit: these changes are listed by address only**"),
        "{}",
        &out.stdout[out.stdout.len().saturating_sub(600)..]
    );
    assert!(out.stdout.contains("this comment was cut"));
    assert!(crate::review::visible_escapes(&out.stdout).is_empty());
}
