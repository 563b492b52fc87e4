//! Ids today's servers require to be 24-hex ObjectIds, and what they answer when one is not:
//! converge says so at the config line before sending, on a stack of today's generation, and
//! reads the servers' plain-text and JSON refusals truthfully.

use converge::sandbox::DEMO_ORG;

use crate::common::{self, Converge, RawServer, Reply, converge_snapshot, quickstart};

const WEBHOOK: &str = "webhookId: 65f5e4a3b9e77c001a789012";

/// The quickstart with its alert's webhook named `hook-1`.
fn with_hook() -> String {
    let text = quickstart();
    assert!(text.contains(WEBHOOK), "the quickstart names its webhook");
    text.replacen(WEBHOOK, "webhookId: hook-1", 1)
}

/// On a stack whose tiles read back as `config` (today's servers, the sandbox's default), a
/// `webhookId` that is not an ObjectId is an error at its line, and nothing is sent.
#[test]
fn a_webhook_id_that_is_not_an_object_id_is_an_error_at_its_line_on_todays_stack() {
    let sandbox = common::fast_sandbox();
    let converge = Converge::new(&sandbox).fast();
    converge
        .clone()
        .config(&quickstart())
        .run(["apply", "--yes"])
        .assert_exit(0);
    let writes_before = common::writes(&sandbox);
    let out = converge.config(&with_hook()).run(["apply", "--yes"]);
    converge_snapshot!("object_id_webhook_todays_stack", out);
    assert_eq!(common::writes(&sandbox), writes_before);
}

/// The contract's generation takes any string as a webhook id: the same change plans as an
/// update and applies.
#[test]
fn the_contracts_generation_takes_any_webhook_id() {
    let sandbox = common::contract_sandbox();
    let converge = Converge::new(&sandbox).fast();
    converge
        .clone()
        .config(&quickstart())
        .run(["apply", "--yes"])
        .assert_exit(0);
    let changed = converge.config(&with_hook());
    changed.clone().run(["apply", "--yes"]).assert_exit(0);
    changed.run(["plan", "--detailed-exitcode"]).assert_exit(0);
}

/// A dashboard gone between the read and the write: today's observability API answers its PUT
/// with Express's plain-text `404 Not Found`, which converge reports as what it is (the request
/// and the status), not as an answer it could not read.
#[test]
fn a_plain_text_not_found_is_reported_as_the_request_and_its_status() {
    const BOARD: &str = "65f5e4a3b9e77c001a000001";
    const SOURCE: &str = "65f5e4a30000000100000001";
    let listed = format!(
        r#"{{"data":[{{"id":"{BOARD}","name":"API health","tags":["converge:obs"],"tiles":[
            {{"id":"{BOARD}","name":"Requests","x":0,"y":0,"w":6,"h":4,
              "config":{{"displayType":"line","sourceId":"{SOURCE}","asRatio":false,
                         "fillNulls":true,"select":[{{"aggFn":"count","where":"service:api",
                         "whereLanguage":"lucene"}}]}}}}]}}]}}"#
    );
    let server = RawServer::start(move |path| {
        if path == format!("/api/v2/dashboards/{BOARD}") {
            Reply::with(
                "404 Not Found",
                "text/plain; charset=utf-8",
                &[],
                "Not Found",
            )
        } else if path == "/api/v2/dashboards" {
            Reply::json("200 OK", &listed)
        } else {
            Reply::json(
                "200 OK",
                r#"{"data":[],"meta":{"total":0,"limit":1000,"offset":0}}"#,
            )
        }
    });
    let config = format!(
        "version: 1\norganization: {DEMO_ORG}\nobservability:\n  url: ${{env:CONVERGE_OBSERVABILITY_URL}}\n  \
         token: ${{env:CONVERGE_OBS_TOKEN}}\nstacks:\n  obs:\n    api: observability\n    \
         dashboards:\n      api-health:\n        name: API health\n        tiles:\n          \
         - name: Requests\n            x: 0\n            y: 0\n            w: 6\n            h: 4\n            \
         series:\n              - type: time\n                sourceId: {SOURCE}\n                \
         aggFn: count\n                where: \"service:web\"\n                whereLanguage: lucene\n"
    );
    let out = Converge::offline()
        .env("CONVERGE_OBSERVABILITY_URL", &server.url)
        .env("CONVERGE_OBS_TOKEN", "sandbox-token")
        .env("CONVERGE_OBSERVABILITY_RATE_LIMIT", "100000/1s")
        .config(&config)
        .run(["apply", "--yes"]);
    converge_snapshot!("object_id_plain_text_not_found", out);
}

/// A series' `sourceId` that is not an ObjectId is an error at its line on a stack of today's
/// generation (the server answers `Invalid ObjectId`); nothing is sent.
#[test]
fn a_source_id_that_is_not_an_object_id_is_an_error_at_its_line_on_todays_stack() {
    let sandbox = common::fast_sandbox();
    let converge = Converge::new(&sandbox).fast();
    converge
        .clone()
        .config(&quickstart())
        .run(["apply", "--yes"])
        .assert_exit(0);
    let writes_before = common::writes(&sandbox);
    let text = quickstart().replacen("source: Logs", "sourceId: logs-1", 1);
    let out = converge.config(&text).run(["apply", "--yes"]);
    converge_snapshot!("object_id_source_todays_stack", out);
    assert_eq!(common::writes(&sandbox), writes_before);
}

/// The quickstart's first tile written in the `config` shape with `sourceId: logs-1`.
fn with_config_tile_source(extra_stack_lines: &str) -> String {
    let series = "            series:\n              - type: time\n                source: Logs\n                aggFn: count\n                where: \"service:api\"\n                whereLanguage: lucene\n                groupBy: []\n";
    let text = quickstart();
    assert!(text.contains(series), "the quickstart's first tile");
    let config = "            config:\n              displayType: line\n              sourceId: logs-1\n              select:\n                - aggFn: count\n                  where: \"service:api\"\n";
    let text = text.replacen(series, config, 1);
    text.replacen(
        "    dashboards:\n",
        &format!("{extra_stack_lines}    dashboards:\n"),
        1,
    )
}

/// A tile `config`'s `sourceId` that is not an ObjectId is an error at its line on a stack of
/// today's generation (learnt from what its GETs answer); nothing is sent.
#[test]
fn a_config_source_id_that_is_not_an_object_id_is_an_error_at_its_line_on_todays_stack() {
    let sandbox = common::fast_sandbox();
    let converge = Converge::new(&sandbox).fast();
    converge
        .clone()
        .config(&quickstart())
        .run(["apply", "--yes"])
        .assert_exit(0);
    let writes_before = common::writes(&sandbox);
    let out = converge
        .config(&with_config_tile_source(""))
        .run(["apply", "--yes"]);
    converge_snapshot!("object_id_config_source_todays_stack", out);
    assert_eq!(common::writes(&sandbox), writes_before);
}

/// Offline: on a stack declared `generation: config`, `validate` reports every id its servers
/// require to be an ObjectId (a series `sourceId`, a tile `config`'s `sourceId`, a webhook
/// channel's `webhookId`) at its line; under `generation: auto` it cannot know and says nothing.
#[test]
fn validate_checks_object_ids_where_the_generation_is_declared() {
    let text = with_config_tile_source("    generation: config\n")
        .replacen("source: Logs", "sourceId: logs-2", 1)
        .replacen(WEBHOOK, "webhookId: hook-1", 1);
    let offline = Converge::offline()
        .env("CONVERGE_KEY_SECRET", "unused")
        .env("CONVERGE_OBS_TOKEN", "unused");
    let out = offline.clone().config(&text).run(["validate"]);
    converge_snapshot!("object_id_validate_declared_generation", out);
    let auto = with_config_tile_source("")
        .replacen("source: Logs", "sourceId: logs-2", 1)
        .replacen(WEBHOOK, "webhookId: hook-1", 1);
    let out = offline.config(&auto).run(["validate"]);
    converge_snapshot!("object_id_validate_auto_generation", out);
}

/// A managed-stack dashboard deleted after the plan was saved: the cloud document lists no 404
/// for the stack's dashboards (200, 400 and 500 only), so the sandbox answers the cloud API's
/// JSON 404; converge finds the dashboard gone before writing and says which one and what to
/// do: the stale-plan exit (3), nothing written.
#[test]
fn a_managed_dashboard_gone_since_the_plan_is_a_clear_error() {
    let sandbox = common::fast_sandbox();
    let converge = Converge::new(&sandbox).fast();
    let applied = converge.clone().config(&quickstart());
    applied.run(["apply", "--yes"]).assert_exit(0);
    let changed = converge.config(&quickstart().replacen("service:api", "service:web", 1));
    let saved = changed.dir().join("saved.json");
    let saved = saved.to_string_lossy().to_string();
    changed.run(["plan", "--out", &saved]).assert_exit(0);
    let client = common::Client::new(&sandbox);
    let board = common::dashboards(&sandbox)
        .into_iter()
        .find(|d| d["name"] == "API health")
        .expect("applied");
    let id = board["id"].as_str().expect("an id");
    client.cloud(
        "DELETE",
        &format!("/services/{}/stack/dashboards/{id}", common::ANALYTICS),
        None,
    );
    let writes_before = common::writes(&sandbox);
    let out = changed.run(["apply", "--plan", &saved, "--yes"]);
    // The backup's age (and so the plan text's digest) is measured from the real clock.
    let mut settings = common::snapshots();
    common::mask_ages(&mut settings);
    settings.add_filter(r"sha256:[0-9a-f]{64}", "sha256:[DIGEST]");
    converge_snapshot!(settings, "managed_dashboard_gone_since_the_plan", out);
    assert_eq!(common::writes(&sandbox), writes_before);
}
