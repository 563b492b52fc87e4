//! A service's own settings through `PATCH /services/{id}` (issue 34, item 2): the IP access
//! list and the tags as add/remove deltas of what differs (request bodies read from the
//! sandbox's log), the release channel, the `mysql` endpoint; each created, changed and
//! removed one at a time with an empty plan after each apply; `--only` of one member; the
//! rules at their lines and the tier's at plan time; drift and its write-back.

use serde_json::{Value, json};

use super::{REPORTING, apply_then_empty, logged, services, validate};
use crate::common::{ANALYTICS, Client, Converge, converge_snapshot};

const PATCH: &str = "PATCH /services/{serviceId}";

/// `analytics` with `lines` (each indented under the service), `reporting` as the demo's.
fn analytics(lines: &str) -> String {
    services(lines, "")
}

/// `ipAccessList:` of these `(source, description)` entries.
fn ip_list(entries: &[(&str, &str)]) -> String {
    let items: String = entries
        .iter()
        .map(|(s, d)| format!("      - source: {s}\n        description: {d}\n"))
        .collect();
    format!("    ipAccessList:\n{items}")
}

fn one_write(body: Value) -> Vec<(String, Value)> {
    vec![(PATCH.to_string(), body)]
}

#[test]
fn the_ip_access_list_goes_as_deltas_of_what_differs() {
    let sandbox = logged();
    // The demo's list holds `10.0.0.0/8` ("office VPN"): one entry added, the other untouched.
    let two = analytics(&ip_list(&[
        ("10.0.0.0/8", "office VPN"),
        ("203.0.113.7", "bastion"),
    ]));
    let writes = apply_then_empty(&sandbox, &two);
    assert_eq!(
        writes,
        one_write(
            json!({"ipAccessList": {"add": [{"source": "203.0.113.7", "description": "bastion"}]}})
        )
    );
    // A description changed: shown as a change of that entry, sent as one remove and one add.
    let renamed = analytics(&ip_list(&[
        ("10.0.0.0/8", "office"),
        ("203.0.113.7", "bastion"),
    ]));
    let planned = Converge::new(&sandbox)
        .fast()
        .config(&renamed)
        .run(["plan"]);
    converge_snapshot!("ip_description_plan", planned);
    let writes = apply_then_empty(&sandbox, &renamed);
    assert_eq!(
        writes,
        one_write(json!({"ipAccessList": {
            "add": [{"source": "10.0.0.0/8", "description": "office"}],
            "remove": [{"source": "10.0.0.0/8", "description": "office VPN"}]
        }}))
    );
    // An entry left out is removed, alone.
    let one = analytics(&ip_list(&[("203.0.113.7", "bastion")]));
    let writes = apply_then_empty(&sandbox, &one);
    assert_eq!(
        writes,
        one_write(
            json!({"ipAccessList": {"remove": [{"source": "10.0.0.0/8", "description": "office"}]}})
        )
    );
    // Without `ipAccessList:` the list is not managed: nothing is sent.
    let writes = apply_then_empty(&sandbox, &analytics(""));
    assert!(writes.is_empty(), "{writes:?}");
    let live = Client::new(&sandbox)
        .cloud("GET", &format!("/services/{ANALYTICS}"), None)
        .result();
    assert_eq!(
        live["ipAccessList"],
        json!([{"source": "203.0.113.7", "description": "bastion"}])
    );
}

#[test]
fn tags_go_as_deltas_and_converge_keeps_its_own() {
    let sandbox = logged();
    // A tag converge wrote for itself (a pipe's credentials version) is on the service.
    let own = json!({"tags": {"add": [{"key": "converge.credentials-version.p1", "value": "2"}]}});
    let answer = Client::new(&sandbox).cloud("PATCH", &format!("/services/{ANALYTICS}"), Some(own));
    assert_eq!(answer.status, 200, "{}", answer.text);
    let tagged = |tags: &str| analytics(&format!("    tags:\n{tags}"));
    let writes = apply_then_empty(&sandbox, &tagged("      team: data\n      env: prod\n"));
    assert_eq!(
        writes,
        one_write(
            json!({"tags": {"add": [{"key": "env", "value": "prod"}, {"key": "team", "value": "data"}]}})
        )
    );
    let writes = apply_then_empty(&sandbox, &tagged("      team: data\n      env: staging\n"));
    assert_eq!(
        writes,
        one_write(json!({"tags": {"add": [{"key": "env", "value": "staging"}],
                                  "remove": [{"key": "env", "value": "prod"}]}}))
    );
    // A tag without a value, and one left out.
    let writes = apply_then_empty(&sandbox, &tagged("      team: data\n      pci:\n"));
    assert_eq!(
        writes,
        one_write(json!({"tags": {"add": [{"key": "pci"}],
                                  "remove": [{"key": "env", "value": "staging"}]}}))
    );
    // `tags: {}` removes every tag but converge's own.
    let writes = apply_then_empty(&sandbox, &analytics("    tags: {}\n"));
    assert_eq!(
        writes,
        one_write(json!({"tags": {"remove": [{"key": "pci"}, {"key": "team", "value": "data"}]}}))
    );
    let live = Client::new(&sandbox)
        .cloud("GET", &format!("/services/{ANALYTICS}"), None)
        .result();
    assert_eq!(
        live["tags"],
        json!([{"key": "converge.credentials-version.p1", "value": "2"}])
    );
}

#[test]
fn release_channel_and_the_mysql_endpoint() {
    let sandbox = logged();
    let writes = apply_then_empty(&sandbox, &analytics("    releaseChannel: fast\n"));
    assert_eq!(writes, one_write(json!({"releaseChannel": "fast"})));
    let writes = apply_then_empty(&sandbox, &analytics("    releaseChannel: default\n"));
    assert_eq!(writes, one_write(json!({"releaseChannel": "default"})));
    let on = analytics("    endpoints:\n      mysql: true\n");
    let writes = apply_then_empty(&sandbox, &on);
    assert_eq!(
        writes,
        one_write(json!({"endpoints": [{"protocol": "mysql", "enabled": true}]}))
    );
    let live = Client::new(&sandbox)
        .cloud("GET", &format!("/services/{ANALYTICS}"), None)
        .result();
    let protocols: Vec<&str> = live["endpoints"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["protocol"].as_str())
        .collect();
    assert!(protocols.contains(&"mysql"), "{protocols:?}");
    let writes = apply_then_empty(&sandbox, &analytics("    endpoints:\n      mysql: false\n"));
    assert_eq!(
        writes,
        one_write(json!({"endpoints": [{"protocol": "mysql", "enabled": false}]}))
    );
    // `reporting` is a development service: only the default channel, said at plan time.
    let refused = Converge::new(&sandbox)
        .fast()
        .config(&services("", "    releaseChannel: slow\n"))
        .run(["plan"]);
    converge_snapshot!("release_channel_not_production", refused);
    // The sandbox refuses it the same way.
    let answer = Client::new(&sandbox).cloud(
        "PATCH",
        &format!("/services/{REPORTING}"),
        Some(json!({"releaseChannel": "slow"})),
    );
    assert_eq!(answer.status, 400, "{}", answer.text);
    assert!(answer.error().contains("production"), "{}", answer.error());
}

#[test]
fn only_one_member_is_planned_and_sent() {
    let sandbox = logged();
    let config = analytics(&format!(
        "{}    tags:\n      team: data\n    releaseChannel: fast\n",
        ip_list(&[("10.0.0.0/8", "office VPN"), ("198.51.100.0/24", "ci")])
    ));
    sandbox.reset_log();
    let converge = Converge::new(&sandbox).fast().config(&config);
    let only = ["--only", "service.analytics.ipAccessList"];
    let planned = converge.run([&["plan"][..], &only].concat());
    converge_snapshot!("only_ip_access_list_plan", planned);
    converge
        .run([&["apply", "--yes"][..], &only].concat())
        .assert_exit(0);
    assert_eq!(
        super::written(&sandbox),
        one_write(
            json!({"ipAccessList": {"add": [{"source": "198.51.100.0/24", "description": "ci"}]}})
        )
    );
    // The rest is still to do.
    let rest = converge.run(["plan", "--format", "json"]);
    let addresses: Vec<String> = rest.json()["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["action"] != "no-op")
        .map(|c| c["address"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        addresses,
        ["service.analytics.tags", "service.analytics.releaseChannel"]
    );
}

#[test]
fn the_rules_are_refused_at_their_lines() {
    let config = analytics(&format!(
        "{}    tags:\n      team: data science\n      converge.mine: x\n",
        ip_list(&[
            ("10.0.0.0/33", "bad"),
            ("203.0.113.7", "a"),
            ("203.0.113.7", "b")
        ])
    ));
    let out = validate(&config);
    assert_eq!(out.code, 1, "{out:?}");
    converge_snapshot!("validate_settings_rules", out);
}

#[test]
fn drift_reports_a_member_changed_by_hand_and_writes_it_back() {
    let sandbox = logged();
    let config = analytics("    releaseChannel: fast\n    tags:\n      team: data\n");
    apply_then_empty(&sandbox, &config);
    // Changed by hand in the console.
    let by_hand = json!({"releaseChannel": "slow", "tags": {"add": [{"key": "team", "value": "ml"}]},
                         "ipAccessList": {"add": [{"source": "192.0.2.1", "description": "laptop"}]}});
    let answer =
        Client::new(&sandbox).cloud("PATCH", &format!("/services/{ANALYTICS}"), Some(by_hand));
    assert_eq!(answer.status, 200, "{}", answer.text);
    let converge = Converge::new(&sandbox).fast().config(&config);
    let drift = converge.run(["drift"]);
    assert_eq!(drift.code, 2, "{drift:?}");
    converge_snapshot!("settings_drift", drift);
    // It exits 2 as `drift` does (it found drift), and writes the live values.
    converge.run(["drift", "--write"]).assert_exit(2);
    let text = std::fs::read_to_string(converge.config_path()).unwrap();
    assert!(text.contains("releaseChannel: slow"), "{text}");
    assert!(text.contains("team: ml"), "{text}");
    converge.run(["plan", "--detailed-exitcode"]).assert_exit(0);
}
