//! Webhooks as objects of a stack (issue 36, part 1), on the sandbox and hdx-server: created
//! with the alert that notifies it in one apply, changed member by member (description, url,
//! body, a rotation of its headers, a rename), deleted with `absent: true`, saved plans that
//! refuse another secret, an export with placeholders that plans empty, and one config
//! promoted between two servers. No secret is ever in an output.

use serde_json::Value;

use crate::common::{Converge, Outcome, Workspace};

use super::{Target, apply_then_empty, config, on_both};

const URL: &str = "https://hooks.example.com/T0-secret-url-4f1c";
const URL_2: &str = "https://hooks.example.com/T0-secret-url-9e2d";
const BODY: &str = "{\"text\": \"sekret-body-31 {{title}}\"}";
const BODY_2: &str = "{\"text\": \"sekret-body-32 {{title}}\"}";
const TOKEN: &str = "Bearer sekret-token-77aa";
const TOKEN_2: &str = "Bearer sekret-token-88bb";
const SECRETS: [&str; 6] = [URL, URL_2, BODY, BODY_2, TOKEN, TOKEN_2];

/// The members a case writes on its webhook `oncall`.
struct Hook<'a> {
    name: &'a str,
    renamed_from: Option<&'a str>,
    description: &'a str,
    version: u32,
    absent: bool,
    alert: bool,
}

const HOOK: Hook<'static> = Hook {
    name: "On call",
    renamed_from: None,
    description: "Pages the on-call",
    version: 1,
    absent: false,
    alert: true,
};

/// A stack with webhook `oncall` and, when `hook.alert`, an alert that names it by key.
fn with_hook(hook: &Hook<'_>) -> String {
    let mut webhook = format!(
        "webhooks:\n  oncall:\n    name: {}\n    service: generic\n",
        hook.name
    );
    if let Some(old) = hook.renamed_from {
        webhook.push_str(&format!("    renamedFrom: [{old}]\n"));
    }
    if hook.absent {
        webhook.push_str("    absent: true\n");
    } else {
        webhook.push_str(&format!(
            "    url: ${{env:ONCALL_URL}}\n    description: {}\n    body: ${{env:ONCALL_BODY}}\n    \
             headers:\n      Authorization: ${{env:ONCALL_TOKEN}}\n    credentialsVersion: {}\n",
            hook.description, hook.version
        ));
    }
    let alert = if hook.alert {
        "alerts:\n  errors:\n    name: API errors\n    dashboard: api\n    tile: Requests\n    \
         threshold: 100\n    thresholdType: above\n    interval: 5m\n    channel: { webhook: oncall }\n"
    } else {
        ""
    };
    config(&format!(
        "{webhook}dashboards:\n  api:\n    name: API\n    tiles:\n      - name: Requests\n        \
         x: 0\n        y: 0\n        w: 12\n        h: 4\n        series:\n          - type: time\n            \
         source: Logs\n            aggFn: count\n{alert}"
    ))
}

/// converge at the target with the webhook's secrets in the environment.
fn with_secrets<'t>(target: &'t Target, workspace: &Workspace, secrets: [&str; 3]) -> Converge<'t> {
    target.converge().cwd(workspace).envs([
        ("ONCALL_URL", secrets[0]),
        ("ONCALL_BODY", secrets[1]),
        ("ONCALL_TOKEN", secrets[2]),
    ])
}

/// No secret in the run's output.
#[track_caller]
fn no_secret(target: &Target, outcome: &Outcome) {
    no_secret_in(target, &format!("{}\n{}", outcome.stdout, outcome.stderr));
}

#[track_caller]
fn no_secret_in(target: &Target, text: &str) {
    for secret in SECRETS {
        assert!(
            !text.contains(secret) && !text.contains(&secret.replace('"', "\\\"")),
            "{}: a webhook secret is shown:\n{text}",
            target.name()
        );
    }
}

/// The team's webhook named `name`, as its list answers it (read with the UI's key: its own
/// rate-limit window on hdx-server).
fn listed(target: &Target, name: &str) -> Option<Value> {
    let list = target.ui("GET", "/webhooks", None).data();
    list.as_array()?.iter().find(|w| w["name"] == name).cloned()
}

/// The webhook id the stack's one alert notifies.
fn notified(target: &Target) -> Value {
    let alerts = target.ui("GET", "/alerts", None).data();
    alerts[0]["channel"]["webhookId"].clone()
}

/// The webhook writes the server answered.
fn webhook_writes(target: &Target) -> Vec<String> {
    target
        .writes()
        .into_iter()
        .filter(|w| w.contains("/webhooks"))
        .collect()
}

/// Creates webhook `oncall` with its alert in one apply (the webhook's step first); its id.
fn created(target: &Target, converge: &Converge<'_>, workspace: &Workspace) -> Value {
    let path = workspace.write("c.yaml", &with_hook(&HOOK));
    planned_and_applied(
        target,
        converge,
        &path,
        &[
            "+ webhook.platform.oncall",
            "+ headers: [Authorization]",
            "+ url: \"(secret)\"",
            "3. alert.platform.errors (after 1, 2)",
        ],
    );
    let hook = listed(target, "On call").expect("the webhook is created");
    assert_eq!(hook["url"], URL, "{}", target.name());
    assert_eq!(hook["body"], BODY, "{}", target.name());
    assert_eq!(
        hook["description"],
        "Pages the on-call [converge: credentialsVersion 1]",
        "{}",
        target.name()
    );
    assert_eq!(notified(target), hook["id"], "{}", target.name());
    hook["id"].clone()
}

/// Plans `path` (exit 0), checks each line is shown and no secret is; applies it and checks
/// the next plan is empty.
#[track_caller]
fn planned_and_applied(target: &Target, converge: &Converge<'_>, path: &str, shown: &[&str]) {
    let plan = converge.run(["plan", path]);
    plan.assert_exit(0);
    no_secret(target, &plan);
    for line in shown {
        assert!(
            plan.stdout.contains(line),
            "{}: the plan does not show {line:?}:\n{}",
            target.name(),
            plan.stdout
        );
    }
    let applied = apply_then_empty(target, converge, path);
    no_secret(target, &applied);
}

/// Created with its alert in one apply, then its description, its url and its body changed
/// one at a time: every plan after an apply is empty.
fn members_changed_one_by_one(target: &Target) {
    let workspace = Workspace::new();
    let converge = with_secrets(target, &workspace, [URL, BODY, TOKEN]);
    let id = created(target, &converge, &workspace);
    let described = Hook {
        description: "Pages the on-call team",
        ..HOOK
    };
    let path = workspace.write("c.yaml", &with_hook(&described));
    planned_and_applied(
        target,
        &converge,
        &path,
        &["~ description: \"Pages the on-call\" -> \"Pages the on-call team\""],
    );
    let moved = with_secrets(target, &workspace, [URL_2, BODY, TOKEN]);
    planned_and_applied(
        target,
        &moved,
        &path,
        &[
            "~ url: \"(secret)\" -> \"(secret, changed)\"",
            "headers and queryParams sent again",
        ],
    );
    assert_eq!(listed(target, "On call").unwrap()["url"], URL_2);
    let rebodied = with_secrets(target, &workspace, [URL_2, BODY_2, TOKEN]);
    planned_and_applied(
        target,
        &rebodied,
        &path,
        &["~ body: \"(secret)\" -> \"(secret, changed)\""],
    );
    let hook = listed(target, "On call").unwrap();
    assert_eq!((&hook["id"], &hook["body"]), (&id, &Value::from(BODY_2)));
    assert_eq!(
        webhook_writes(target),
        [
            "POST /api/v2/webhooks 200",
            "PUT /api/v2/webhooks/{id} 200",
            "PUT /api/v2/webhooks/{id} 200",
            "PUT /api/v2/webhooks/{id} 200",
        ],
        "{}",
        target.name()
    );
}
on_both!(members_changed_one_by_one);

/// Its headers rotated by `credentialsVersion`, renamed in place (`renamedFrom`, its id
/// kept), then deleted (`absent: true`, with `--allow-destroy`) after the alert naming it.
fn rotated_renamed_and_deleted(target: &Target) {
    let workspace = Workspace::new();
    let converge = with_secrets(target, &workspace, [URL, BODY, TOKEN]);
    let id = created(target, &converge, &workspace);
    let rotated = with_secrets(target, &workspace, [URL, BODY, TOKEN_2]);
    // A new token alone is not seen (headers are never read back): the version sends it.
    let path = workspace.file("c.yaml");
    rotated
        .run(["plan", "--detailed-exitcode", &path])
        .assert_exit(0);
    let version = Hook { version: 2, ..HOOK };
    let path = workspace.write("c.yaml", &with_hook(&version));
    planned_and_applied(
        target,
        &rotated,
        &path,
        &[
            "~ credentialsVersion: 1 -> 2",
            "headers and queryParams sent again",
        ],
    );
    let renamed = Hook {
        name: "Oncall",
        renamed_from: Some("On call"),
        ..version
    };
    let path = workspace.write("c.yaml", &with_hook(&renamed));
    planned_and_applied(
        target,
        &rotated,
        &path,
        &["renamed \"On call\" -> \"Oncall\""],
    );
    assert_eq!(
        listed(target, "Oncall").unwrap()["id"],
        id,
        "{}",
        target.name()
    );
    // The alert goes first: the server refuses to delete a webhook an alert names.
    let gone = Hook {
        absent: true,
        alert: false,
        ..renamed
    };
    let path = workspace.write("c.yaml", &with_hook(&gone));
    let refused = rotated.run(["apply", "--yes", &path]);
    assert_ne!(
        refused.code,
        0,
        "{}: a delete without --allow-destroy",
        target.name()
    );
    planned_and_applied(
        target,
        &rotated,
        &path,
        &[
            "- webhook.platform.oncall",
            "2. webhook.platform.oncall (after 1)",
        ],
    );
    assert!(listed(target, "Oncall").is_none(), "{}", target.name());
    assert_eq!(
        webhook_writes(target),
        [
            "POST /api/v2/webhooks 200",
            "PUT /api/v2/webhooks/{id} 200",
            "PUT /api/v2/webhooks/{id} 200",
            "DELETE /api/v2/webhooks/{id} 200",
        ],
        "{}",
        target.name()
    );
}
on_both!(rotated_renamed_and_deleted);

/// A saved plan holds each secret's reference, never its value, also as `--format json`; it is
/// refused when a secret is not the value it was made with, and applies when it is.
fn saved_plans_seal_the_secrets(target: &Target) {
    let workspace = Workspace::new();
    let converge = with_secrets(target, &workspace, [URL, BODY, TOKEN]);
    let path = workspace.write("c.yaml", &with_hook(&HOOK));
    let saved = workspace.file("p.json");
    no_secret(target, &converge.run(["plan", "--out", &saved, &path]));
    no_secret_in(target, &workspace.read("p.json"));
    let json = converge.run(["plan", "--format", "json", &path]);
    json.assert_exit(0);
    no_secret(target, &json);
    assert!(!json.stdout.contains("salt"), "{}", json.stdout);

    let other = with_secrets(target, &workspace, [URL_2, BODY, TOKEN]);
    let refused = other.run(["apply", "--plan", &saved, "--yes", &path]);
    assert_ne!(refused.code, 0, "{}", target.name());
    no_secret(target, &refused);
    assert!(
        refused
            .stderr
            .contains("`url` (`${env:ONCALL_URL}`) is not the value this plan was made with"),
        "{}:\n{}",
        target.name(),
        refused.stderr
    );
    assert!(listed(target, "On call").is_none(), "{}", target.name());
    assert!(webhook_writes(target).is_empty(), "{}", target.name());
    // Made again with the approved value, it applies.
    no_secret(target, &converge.run(["plan", "--out", &saved, &path]));
    let applied = converge.run(["apply", "--plan", &saved, "--yes", &path]);
    applied.assert_exit(0);
    no_secret(target, &applied);
    assert_eq!(listed(target, "On call").unwrap()["url"], URL);
}
on_both!(saved_plans_seal_the_secrets);

/// An export writes the stack's webhooks with placeholders for their secrets; it plans empty
/// without them, and drift of the applied config reports nothing.
fn exported_with_placeholders(target: &Target) {
    let workspace = Workspace::new();
    let converge = with_secrets(target, &workspace, [URL, BODY, TOKEN]);
    let path = workspace.write("c.yaml", &with_hook(&HOOK));
    apply_then_empty(target, &converge, &path);
    let drift = converge.run(["drift", &path]);
    drift.assert_exit(0);
    no_secret(target, &drift);
    let exported = workspace.file("exported.yaml");
    let export = target.converge().cwd(&workspace);
    no_secret(
        target,
        &export.run(["export", "--observability", "--out", &exported]),
    );
    let text = workspace.read("exported.yaml");
    no_secret_in(target, &text);
    for line in [
        "url: ${env:WEBHOOK_ON_CALL_URL}",
        "body: ${env:WEBHOOK_ON_CALL_BODY}",
        "description: Pages the on-call\n",
        "credentialsVersion: 1",
        "webhook: On call",
    ] {
        assert!(
            text.contains(line),
            "{}: no {line:?} in\n{text}",
            target.name()
        );
    }
    export
        .run(["plan", "--detailed-exitcode", &exported])
        .assert_exit(0);

    // Changed in the UI: drift shows the url changed without either value.
    let id = listed(target, "On call").unwrap()["id"].clone();
    let edit = serde_json::json!({
        "name": "On call", "service": "generic", "url": URL_2, "body": BODY,
        "description": "Pages the on-call [converge: credentialsVersion 1]",
    });
    let answer = target.ui(
        "PUT",
        &format!("/webhooks/{}", id.as_str().unwrap_or_default()),
        Some(edit),
    );
    assert_eq!(answer.status, 200, "{}: {}", target.name(), answer.text);
    let drift = converge.run(["drift", &path]);
    assert_eq!(drift.code, 2, "{}: {}", target.name(), drift.stdout);
    no_secret(target, &drift);
    assert!(
        drift
            .stdout
            .contains("~ webhook.platform.oncall  (url differs")
            && drift
                .stdout
                .contains("url: config \"(secret, changed)\", live \"(secret)\""),
        "{}:\n{}",
        target.name(),
        drift.stdout
    );
}
on_both!(exported_with_placeholders);

/// One config with its webhook applied to two servers: each creates its own webhook, the
/// alert notifies that server's id, and both plan empty after. The two are the sandbox and
/// hdx-server; without hdx-server, two sandboxes.
#[test]
fn a_config_with_its_webhook_is_promoted() {
    let staging = Target::sandbox();
    let production =
        Target::hdx("a_config_with_its_webhook_is_promoted").unwrap_or_else(Target::sandbox);
    let mut ids = Vec::new();
    for target in [&staging, &production] {
        let workspace = Workspace::new();
        let converge = with_secrets(target, &workspace, [URL, BODY, TOKEN]);
        let path = workspace.write("c.yaml", &with_hook(&HOOK));
        apply_then_empty(target, &converge, &path);
        let id = listed(target, "On call").unwrap()["id"].clone();
        assert_eq!(notified(target), id, "{}", target.name());
        ids.push(id);
    }
    if matches!(production, Target::Hdx(_)) {
        assert_ne!(ids[0], ids[1], "the two servers' webhook ids differ");
    }
}

/// A URL naming a private address is refused by the server with its words, and converge
/// shows them without the URL's secret path.
fn a_private_url_is_refused(target: &Target) {
    let workspace = Workspace::new();
    let private = "http://10.0.0.1/T0-secret-url-4f1c";
    let converge = with_secrets(target, &workspace, [private, BODY, TOKEN]);
    let path = workspace.write(
        "c.yaml",
        &with_hook(&Hook {
            alert: false,
            ..HOOK
        }),
    );
    let applied = converge.run(["apply", "--yes", &path]);
    assert_ne!(applied.code, 0, "{}", target.name());
    assert!(
        applied
            .stdout
            .contains("Webhook URL resolves to a private or reserved address.")
            || applied
                .stderr
                .contains("Webhook URL resolves to a private or reserved address."),
        "{}:\n{}\n{}",
        target.name(),
        applied.stdout,
        applied.stderr
    );
    let all = format!("{}{}", applied.stdout, applied.stderr);
    assert!(!all.contains("T0-secret-url-4f1c"), "{all}");
}
on_both!(a_private_url_is_refused);

/// What the server would refuse, or converge cannot write, is an error at its line before
/// anything is read: secrets written literally, a slack webhook with headers, webhooks on the
/// managed stack, a webhook without `url`, and converge's own token sent to a webhook.
#[test]
fn webhook_config_errors_are_at_their_lines() {
    let target = Target::sandbox();
    let workspace = Workspace::new();
    let bad = config(
        "webhooks:\n  slack:\n    name: Alerts\n    service: slack\n    url: https://hooks.slack.com/x\n    \
         headers:\n      Authorization: ${env:CONVERGE_OBS_TOKEN}\n  nourl:\n    name: Other\n    \
         service: generic\n",
    );
    let path = workspace.write("c.yaml", &bad);
    let wide = target.converge().cwd(&workspace).env("COLUMNS", "300");
    let out = wide.run(["validate", &path]);
    out.assert_exit(1);
    for expected in [
        "config::literal-secret",
        "`stacks.platform.webhooks.slack.url` must be an environment reference",
        "config::secret-variable",
        "never sent to a webhook",
        "c.yaml:18:14",
        "c.yaml:20:26",
        "semantic::webhook",
        "webhook `nourl` has no `url`",
        "c.yaml:21:7",
    ] {
        assert!(
            out.stderr.contains(expected),
            "no {expected:?} in\n{}",
            out.stderr
        );
    }
    assert!(!out.stderr.contains("hooks.slack.com/x"), "{}", out.stderr);
    let managed = bad.replace("api: observability", "service: api").replace(
        "stacks:",
        "services:\n  api:\n    id: 00000000-0000-0000-0000-000000000001\nstacks:",
    );
    let path = workspace.write("m.yaml", &managed);
    let out = wide.run(["validate", &path]);
    out.assert_exit(1);
    assert!(
        out.stderr
            .contains("is a managed stack, whose API only lists webhooks"),
        "{}",
        out.stderr
    );
    assert!(target.writes().is_empty());
}

/// What each write sends, read from the sandbox's log of bodies: the headers go on create, with
/// a new url and on a raised `credentialsVersion`, never with a description change; every write
/// carries the url and body (the server's `PUT` clears a body left out).
#[test]
fn the_headers_go_only_when_they_must() {
    let sandbox = crate::common::sandbox(converge::sandbox::SandboxOptions {
        rate_limit: false,
        log_bodies: true,
        ..converge::sandbox::SandboxOptions::default()
    });
    let target = Target::Sandbox(sandbox);
    let workspace = Workspace::new();
    let plain = Hook {
        alert: false,
        ..HOOK
    };
    let steps: [(Hook<'_>, [&str; 3], bool); 4] = [
        (Hook { ..plain }, [URL, BODY, TOKEN], true),
        (
            Hook {
                description: "Pages on-call",
                ..plain
            },
            [URL, BODY, TOKEN],
            false,
        ),
        (
            Hook {
                description: "Pages on-call",
                ..plain
            },
            [URL_2, BODY, TOKEN],
            true,
        ),
        (
            Hook {
                description: "Pages on-call",
                version: 2,
                ..plain
            },
            [URL_2, BODY, TOKEN_2],
            true,
        ),
    ];
    let mut sent = Vec::new();
    for (hook, secrets, _) in &steps {
        let converge = with_secrets(&target, &workspace, *secrets);
        let path = workspace.write("c.yaml", &with_hook(hook));
        apply_then_empty(&target, &converge, &path);
        let Target::Sandbox(sandbox) = &target else {
            unreachable!()
        };
        let body = sandbox
            .request_log()
            .iter()
            .rev()
            .find(|e| e.route.starts_with("/api/v2/webhooks") && e.method != "GET")
            .and_then(|e| e.request_body.clone())
            .unwrap_or_default();
        sent.push((
            serde_json::from_str::<Value>(&body).unwrap_or_default(),
            *secrets,
        ));
    }
    for ((body, secrets), (_, _, headers)) in sent.iter().zip(&steps) {
        assert_eq!(body["url"], secrets[0], "{body}");
        assert_eq!(body["body"], secrets[1], "{body}");
        let expected = headers.then(|| serde_json::json!({"Authorization": secrets[2]}));
        assert_eq!(body.get("headers").cloned(), expected, "{body}");
    }
}
