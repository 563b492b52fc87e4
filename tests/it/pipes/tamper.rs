//! A saved pipe plan runs exactly as shown (issue 41, parts 1 and 2), through the binary against
//! the sandbox: a Kafka pipe exported, its `topics` changed (a replacement), the plan saved;
//! each tampering of the file the issue measured (the brokers, the schema registry URL, the
//! destination table, a credential reference set to converge's own key secret) is refused by
//! `apply --plan` with nothing written, as the sandbox's log shows.

use converge::sandbox::{LogEntry, SandboxHandle, SandboxOptions};
use serde_json::Value;

use crate::common::{ANALYTICS, Converge, Outcome, Workspace, words};

/// The credential values the exported `orders` pipe reads.
const ORDERS: [(&str, &str); 2] = [
    (
        "PIPE_ANALYTICS_ORDERS_CREDENTIALS_USERNAME",
        "canary-orders-user-2b71",
    ),
    (
        "PIPE_ANALYTICS_ORDERS_CREDENTIALS_PASSWORD",
        "canary-orders-password-e90d",
    ),
];

const ATTACKER: &str = "collector.attacker.example:9092";

fn logged_sandbox() -> SandboxHandle {
    crate::common::sandbox(SandboxOptions {
        rate_limit: false,
        log_bodies: true,
        ..SandboxOptions::default()
    })
}

/// The analytics service exported, with the `orders` pipe's topics changed (a replacement),
/// written in `workspace`, and the plan of it saved: (config path, saved plan path).
fn reviewed(sandbox: &SandboxHandle, workspace: &Workspace) -> (String, String) {
    let converge = Converge::new(sandbox).fast().envs(ORDERS).cwd(workspace);
    let export = converge.run(["export", "--service", ANALYTICS]);
    export.assert_exit(0);
    assert!(export.stdout.contains("topics: orders\n"), "{export:?}");
    let config = workspace.write(
        "c.yaml",
        &export
            .stdout
            .replacen("topics: orders\n", "topics: orders-v2\n", 1),
    );
    let saved = workspace.file("p.json");
    let planned = converge.run(["plan", &config, "--out", &saved]);
    planned.assert_exit(0);
    assert!(
        words(&planned.stdout).contains("-/+ pipe.analytics.orders"),
        "{planned:?}"
    );
    (config, saved)
}

/// Where the saved plan's replacement is: (its change's pointer, its step operation's).
fn replacement(plan: &Value) -> (String, String) {
    let step = plan["plan"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .position(|s| s["operation"]["op"] == "pipe-replace")
        .unwrap_or_else(|| panic!("no replacement saved: {plan}"));
    let change = plan["plan"]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .position(|c| c["step"] == step)
        .unwrap();
    (
        format!("/plan/changes/{change}"),
        format!("/plan/steps/{step}/operation"),
    )
}

/// An edit of a saved plan's JSON.
type Edit<'a> = dyn Fn(&mut Value) + 'a;

/// Sets `value` at `pointer` in `target`.
fn set(target: &mut Value, pointer: &str, value: &str) {
    let at = target.pointer_mut(pointer);
    *at.unwrap_or_else(|| panic!("{pointer} not in the plan")) = Value::from(value);
}

/// The change's `after` and the step's body both edited at `pointer` (under the pipe).
fn after_and_body(pointer: &'static str, value: &'static str) -> impl Fn(&mut Value) {
    move |plan| {
        let (change, step) = replacement(plan);
        set(plan, &format!("{change}/after{pointer}"), value);
        set(plan, &format!("{step}/body{pointer}"), value);
    }
}

/// The kafka password's reference in the step set to `reference`.
fn password_from(reference: &'static str) -> impl Fn(&mut Value) {
    move |plan| {
        let (_, step) = replacement(plan);
        let credentials = plan
            .pointer_mut(&format!("{step}/credentials"))
            .and_then(Value::as_array_mut)
            .unwrap();
        let password = credentials
            .iter_mut()
            .find(|c| c["path"] == "credentials.password")
            .unwrap();
        password["reference"] = Value::from(reference);
    }
}

/// Whether any request of the run carried `text` in its body.
fn sent(requests: &[LogEntry], text: &str) -> bool {
    requests
        .iter()
        .any(|e| e.request_body.as_deref().unwrap_or_default().contains(text))
}

/// `apply --plan` of the saved plan edited by `edit` (its digest dropped too when `digest` is
/// false, as an attacker who recomputes it would): refused, nothing written.
fn refused(
    sandbox: &SandboxHandle,
    workspace: &Workspace,
    paths: &(String, String),
    edit: &Edit<'_>,
    what: &str,
) -> Outcome {
    let (config, saved) = paths;
    let mut plan: Value = serde_json::from_str(&workspace.read("p.json")).unwrap();
    edit(&mut plan);
    let tampered = workspace.write("tampered.json", &plan.to_string());
    let converge = Converge::new(sandbox).fast().envs(ORDERS).cwd(workspace);
    sandbox.reset_log();
    let applied = converge.run([
        "apply",
        "--plan",
        &tampered,
        config,
        "--yes",
        "--allow-destroy",
    ]);
    assert_ne!(applied.code, 0, "{what}: applied: {applied:?}");
    assert_eq!(
        applied.writes(),
        Vec::<String>::new(),
        "{what}: {applied:?}"
    );
    let secret = sandbox.environment();
    let key_secret = secret
        .iter()
        .find(|(name, _)| *name == "CONVERGE_KEY_SECRET")
        .map(|(_, value)| value.clone())
        .unwrap();
    assert!(!sent(&applied.requests, &key_secret), "{what}");
    assert!(!sent(&applied.requests, ATTACKER), "{what}");
    assert!(std::path::Path::new(saved).exists());
    applied
}

/// Each tampering of a saved replacement the issue measured is refused, with nothing written;
/// the reviewed file then applies, and sends the reviewed brokers with the reviewed secret.
#[test]
fn each_tampering_of_a_saved_pipe_replacement_is_refused_with_nothing_written() {
    let sandbox = logged_sandbox();
    let workspace = Workspace::new();
    let paths = reviewed(&sandbox, &workspace);
    let brokers = after_and_body("/source/kafka/brokers", ATTACKER);
    let registry = after_and_body(
        "/source/kafka/schemaRegistry/url",
        "https://registry.attacker.example",
    );
    let table = after_and_body("/destination/table", "audit_log");
    let key_secret = password_from("${env:CONVERGE_KEY_SECRET}");
    let both = |plan: &mut Value| {
        brokers(plan);
        key_secret(plan);
    };
    // The edit also made to `before`, so that the shown fields still read as its diff.
    let hidden = |plan: &mut Value| {
        brokers(plan);
        let (change, _) = replacement(plan);
        set(
            plan,
            &format!("{change}/before/source/kafka/brokers"),
            ATTACKER,
        );
    };
    let username = "${env:PIPE_ANALYTICS_ORDERS_CREDENTIALS_USERNAME}";
    let another_variable = password_from(username);
    // The reason edited too, so that the text shows the swap: only the config tells that the
    // password is not read from the username's variable.
    let shown_swap = |plan: &mut Value| {
        another_variable(plan);
        let (change, _) = replacement(plan);
        let reason = plan.pointer_mut(&format!("{change}/reason")).unwrap();
        *reason = Value::from(reason.as_str().unwrap().replace(
            "`${env:PIPE_ANALYTICS_ORDERS_CREDENTIALS_PASSWORD}`",
            &format!("`{username}`"),
        ));
    };
    // Members of the step no field shows: the name the new pipe is found by, the tag removed
    // with the old pipe, the credentials version recorded for the new one.
    let step_member = |member: &'static str, value: Value| {
        move |plan: &mut Value| {
            let (_, step) = replacement(plan);
            plan.pointer_mut(&step).unwrap()[member] = value.clone();
        }
    };
    let name = step_member("name", Value::from("customers"));
    let tag = step_member(
        "versionTag",
        Value::from("converge.credentials-version.3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f"),
    );
    let version = step_member("credentialsVersion", Value::from(7));
    let edits: [(&str, &Edit<'_>); 11] = [
        ("brokers and the key secret", &both),
        ("brokers", &brokers),
        ("schema registry url", &registry),
        ("destination table", &table),
        ("password from the key secret", &key_secret),
        ("brokers, before too", &hidden),
        ("password from another variable", &another_variable),
        ("password from another variable, shown", &shown_swap),
        ("the name the new pipe is found by", &name),
        ("another pipe's version tag", &tag),
        ("a credentials version", &version),
    ];
    for (what, edit) in edits {
        let with_digest = refused(&sandbox, &workspace, &paths, edit, what);
        assert!(
            words(&with_digest.stderr).contains("nothing was written"),
            "{what}: {with_digest:?}"
        );
        let without = |plan: &mut Value| {
            edit(plan);
            plan.as_object_mut().unwrap().remove("digest");
        };
        let without = refused(&sandbox, &workspace, &paths, &without, what);
        if what.ends_with(", shown") {
            assert!(
                words(&without.stderr).contains("but the config declares"),
                "{what}: {without:?}"
            );
        }
    }
    let (config, saved) = &paths;
    let converge = Converge::new(&sandbox).fast().envs(ORDERS).cwd(&workspace);
    // What the review reads names each credential the step sends by its reference.
    let shown = converge.run(["show", saved]);
    shown.assert_exit(0);
    assert!(
        words(&shown.stdout).contains(
            "sends `credentials.username` from `${env:PIPE_ANALYTICS_ORDERS_CREDENTIALS_USERNAME}`, \
             `credentials.password` from `${env:PIPE_ANALYTICS_ORDERS_CREDENTIALS_PASSWORD}`"
        ),
        "{shown:?}"
    );
    sandbox.reset_log();
    let applied = converge.run(["apply", "--plan", saved, config, "--yes", "--allow-destroy"]);
    applied.assert_exit(0);
    let create = applied
        .requests
        .iter()
        .find(|e| e.method == "POST" && e.route.ends_with("/pipes"))
        .unwrap_or_else(|| panic!("no create: {applied:?}"));
    let body: Value = serde_json::from_str(create.request_body.as_deref().unwrap()).unwrap();
    let kafka = &body["source"]["kafka"];
    assert_eq!(kafka["topics"], "orders-v2");
    assert_eq!(kafka["credentials"]["password"], ORDERS[1].1);
    assert_eq!(
        kafka["brokers"],
        "b-1.sandbox-kafka.local:9096,b-2.sandbox-kafka.local:9096"
    );
}

/// The demo pipes declared whole with the kafka password read from `variable`, and the
/// observability token from `CI_OBS`, the cloud key secret from `CI_CLOUD` (so that the
/// variables the config's own secrets read are not only the conventional ones).
fn password_read_from(variable: &str) -> String {
    crate::pipes::declared_whole()
        .replace(
            "keySecret: ${env:CONVERGE_KEY_SECRET}\n",
            "keySecret: ${env:CI_CLOUD}\nobservability:\n  url: http://127.0.0.1:1\n  token: ${env:CI_OBS}\n",
        )
        .replace(
            "password: ${env:PIPE_EVENTS_PASSWORD}",
            &format!("password: ${{env:{variable}}}"),
        )
}

/// Converge's own secrets are never a pipe credential (issue 41, part 2): a pipe credential
/// read from a variable the cloud key secret or the observability token is read from, the
/// config's or the conventional one, is an error at its line for `validate` and `plan`, and
/// its value is never read.
#[test]
fn a_pipe_credential_read_from_converge_s_own_secret_is_an_error_at_its_line() {
    let sandbox = crate::common::fast_sandbox();
    for variable in [
        "CI_CLOUD",
        "CI_OBS",
        "CONVERGE_KEY_SECRET",
        "CONVERGE_OBS_TOKEN",
    ] {
        let config = password_read_from(variable);
        let line = config
            .lines()
            .position(|l| l.contains(&format!("password: ${{env:{variable}}}")))
            .unwrap()
            + 1;
        let converge = Converge::new(&sandbox)
            .fast()
            .envs(crate::pipes::CANARIES)
            .env("CI_CLOUD", "the-cloud-secret-5c1f")
            .env("CI_OBS", "the-obs-token-8e2a")
            .config(&config);
        let validated = converge.run(["validate", "--format", "json"]);
        assert_eq!(validated.code, 1, "{variable}: {validated:?}");
        let diagnostics = validated.json();
        let found: Vec<(String, u64)> = diagnostics
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["severity"] == "error")
            .map(|d| {
                (
                    d["code"].as_str().unwrap().to_string(),
                    d["line"].as_u64().unwrap_or(0),
                )
            })
            .collect();
        assert_eq!(
            found,
            vec![("config::secret-variable".to_string(), line as u64)],
            "{variable}: {validated:?}"
        );
        let planned = converge.run(["plan"]);
        assert_eq!(planned.code, 1, "{variable}: {planned:?}");
        let said = words(&planned.stderr);
        assert!(
            said.contains(&format!("`{variable}` holds converge's own secret"))
                && said.contains("never sent as a pipe credential"),
            "{variable}: {planned:?}"
        );
        for secret in ["the-cloud-secret-5c1f", "the-obs-token-8e2a"] {
            assert!(!planned.stderr.contains(secret) && !planned.stdout.contains(secret));
        }
        assert!(planned.writes().is_empty());
    }
}

/// The cloud key secret under another variable's name is still never sent: a create whose
/// credential's value is the key secret the run authenticates with fails before its request,
/// and no request carries it.
#[test]
fn a_credential_holding_the_key_secret_under_another_name_is_never_sent() {
    let sandbox = logged_sandbox();
    let key_secret = sandbox
        .environment()
        .into_iter()
        .find(|(name, _)| *name == "CONVERGE_KEY_SECRET")
        .map(|(_, value)| value)
        .unwrap();
    let applied = Converge::new(&sandbox)
        .fast()
        .envs(crate::pipes::CANARIES)
        .env("PIPE_EVENTS_PASSWORD", &key_secret)
        .config(&crate::pipes::declared_whole())
        .run(["apply", "--yes"]);
    assert_eq!(applied.code, 1, "{applied:?}");
    assert!(
        words(&applied.stderr).contains(
            "credential `credentials.password` is read from `${env:PIPE_EVENTS_PASSWORD}`, which \
             holds converge's own secret"
        ),
        "{applied:?}"
    );
    assert!(!sent(&applied.requests, &key_secret), "{applied:?}");
    // The other pipes, which send no converge secret, are created.
    assert!(
        applied.count(
            "POST",
            "/v1/organizations/{organizationId}/services/{serviceId}/pipes"
        ) >= 1,
        "{applied:?}"
    );
}

/// What the check holds a saved plan to is what the planner shows: a saved plan of every kind
/// of pipe step but a create (a rename in place, a postgres table-mapping change that pauses
/// the pipe, a stop, a settings change, a replacement) applies as saved, and the plan after is
/// empty.
#[test]
fn a_saved_plan_of_each_pipe_step_applies_as_shown() {
    let sandbox = logged_sandbox();
    let workspace = Workspace::new();
    let converge = Converge::new(&sandbox).fast().envs(ORDERS).cwd(&workspace);
    let export = converge.run(["export", "--service", ANALYTICS]);
    export.assert_exit(0);
    let mut text = export.stdout.clone();
    for (from, to) in [
        ("        name: events\n", "        name: events renamed\n"),
        (
            "targetTable: public_customers\n",
            "targetTable: public_customers_v2\n",
        ),
        (
            "name: clicks\n        state: running\n",
            "name: clicks\n        state: stopped\n",
        ),
        (
            "streaming_max_insert_wait_ms: 5000\n",
            "streaming_max_insert_wait_ms: 6000\n",
        ),
        ("topics: orders\n", "topics: orders-v2\n"),
    ] {
        assert!(text.contains(from), "{from} not in {text}");
        text = text.replacen(from, to, 1);
    }
    let config = workspace.write("c.yaml", &text);
    let saved = workspace.file("p.json");
    converge
        .run(["plan", &config, "--out", &saved])
        .assert_exit(0);
    let plan: Value = serde_json::from_str(&workspace.read("p.json")).unwrap();
    let mut ops: Vec<&str> = plan["plan"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["operation"]["op"].as_str().unwrap())
        .collect();
    ops.sort_unstable();
    assert_eq!(
        ops,
        [
            "pipe-replace",
            "pipe-settings",
            "pipe-state",
            "pipe-state",
            "pipe-update"
        ],
        "{plan}"
    );
    let applied = converge.run([
        "apply",
        "--plan",
        &saved,
        &config,
        "--yes",
        "--allow-destroy",
    ]);
    applied.assert_exit(0);
    converge
        .run(["plan", &config, "--detailed-exitcode"])
        .assert_exit(0);
}

/// A saved create of a pipe declared `state: stopped` that sends credentials applies: its
/// reason says both (`created stopped; sends ...`), and the stop is read from the reason
/// without the credentials' note.
#[test]
fn a_saved_stopped_create_that_sends_credentials_applies() {
    let sandbox = logged_sandbox();
    let workspace = Workspace::new();
    let config = crate::pipes::declared_whole().replace(
        "        name: events from kafka\n",
        "        name: events from kafka\n        state: stopped\n",
    );
    let config = workspace.write("c.yaml", &config);
    let saved = workspace.file("p.json");
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(crate::pipes::CANARIES)
        .cwd(&workspace);
    let planned = converge.run(["plan", &config, "--out", &saved]);
    planned.assert_exit(0);
    assert!(
        words(&planned.stdout).contains("created stopped; sends `credentials.username`"),
        "{planned:?}"
    );
    let applied = converge.run(["apply", "--plan", &saved, &config, "--yes"]);
    applied.assert_exit(0);
    converge
        .run(["plan", &config, "--detailed-exitcode"])
        .assert_exit(0);
}
