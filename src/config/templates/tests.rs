//! Expansion of templates, end to end on small configs.

use super::*;
use crate::diagnostic::Code;

fn expand_text(text: &str) -> (Node, Vec<InstanceOrigin>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let mut root = super::super::yaml::parse(text, 0, &mut diags).unwrap();
    let instances = expand(&mut root, &mut diags).instances;
    (root, instances, diags)
}

const BASE: &str = "templates:
  errors:
    parameters:
      service: string
      threshold: { type: number, default: 100 }
    alert:
      name: ${service} errors
      threshold: ${threshold}
      message: \"${service} is failing (${env:TEAM})\"
stacks:
  prod:
    alerts:
      api:
        template: errors
";

#[test]
fn for_each_makes_keyed_instances_with_typed_values() {
    let text = format!(
        "{BASE}        forEach:\n          - {{key: checkout, service: checkout}}\n          - {{key: search, service: search, threshold: 5.5}}\n"
    );
    let (root, instances, diags) = expand_text(&text);
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(
        keys_of(&root, "prod", "alerts"),
        ["api[checkout]", "api[search]"]
    );
    let search = root
        .get("stacks")
        .unwrap()
        .get("prod")
        .unwrap()
        .get("alerts")
        .unwrap()
        .get("api[search]")
        .unwrap();
    assert_eq!(search.get("threshold").unwrap().kind, Kind::Float(5.5));
    assert_eq!(
        search.get("name").unwrap().kind,
        Kind::Str("search errors".into())
    );
    assert_eq!(
        search.get("message").unwrap().kind,
        Kind::Str("search is failing (${env:TEAM})".into())
    );
    assert_eq!(search.get("name").unwrap().span.line, 7);
    assert_eq!(search.get("name").unwrap().span.instance(), Some(1));
    assert_eq!(instances[1].key, "api[search]");
    assert!(root.get("templates").is_none());
}

#[test]
fn matrix_expands_the_product_without_the_excluded() {
    let text = format!(
        "{BASE}        matrix:\n          service: [a, b]\n          threshold: [1, 2]\n        exclude:\n          - {{service: b, threshold: 2}}\n"
    );
    let (root, _, diags) = expand_text(&text);
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(
        keys_of(&root, "prod", "alerts"),
        ["api[a,1]", "api[a,2]", "api[b,1]"]
    );
}

#[test]
fn bad_instances_are_errors_at_the_instance() {
    let cases = [
        ("        forEach: {key: a}\n", Code::TemplateShape),
        ("        forEach: [a]\n", Code::TemplateShape),
        (
            "        forEach:\n          - {service: a}\n",
            Code::TemplateShape,
        ),
        (
            "        forEach:\n          - {key: a, service: a}\n          - {key: a, service: b}\n",
            Code::TemplateDuplicateInstance,
        ),
        (
            "        forEach:\n          - {key: a, service: a, servise: a}\n",
            Code::TemplateUnknownParameter,
        ),
        (
            "        forEach:\n          - {key: a}\n",
            Code::TemplateMissingParameter,
        ),
        (
            "        forEach:\n          - {key: a, service: a, threshold: high}\n",
            Code::TemplateParameterType,
        ),
    ];
    for (tail, code) in cases {
        let (_, _, diags) = expand_text(&format!("{BASE}{tail}"));
        assert_eq!(
            diags.iter().map(|d| d.code).collect::<Vec<_>>(),
            [code],
            "{tail}"
        );
    }
}

#[test]
fn a_removed_instance_reads_back_from_its_live_name() {
    let names = |text: &str| {
        let mut diags = Vec::new();
        let mut root = super::super::yaml::parse(text, 0, &mut diags).unwrap();
        let names = expand(&mut root, &mut diags).names;
        assert!(diags.is_empty(), "{diags:?}");
        names.get("prod").cloned().unwrap_or_default()
    };
    // Every key repeats `service`: the key is the service the name holds.
    let each = names(&format!(
        "{BASE}        forEach:\n          - {{key: checkout, service: checkout}}\n          - {{key: search, service: search}}\n"
    ));
    assert_eq!(each[0].key, ["service"]);
    assert_eq!(
        each[0].removed_key("billing errors").as_deref(),
        Some("billing")
    );
    assert_eq!(each[0].removed_key("search errors"), None, "still listed");
    assert_eq!(each[0].removed_key("billing failures"), None);
    assert_eq!(each[0].removed_key("two words errors"), None, "not a key");
    // Keys unrelated to the name: nothing reads back.
    let unrelated = names(&format!(
        "{BASE}        forEach:\n          - {{key: a, service: checkout}}\n"
    ));
    assert!(unrelated.is_empty(), "{unrelated:?}");
    // A matrix: its axes, joined.
    let matrix = names(
        "templates:
  t:
    parameters: { service: string, env: string }
    alert: { name: \"${env}/${service} errors\" }
stacks:
  prod:
    alerts:
      x:
        template: t
        matrix: { service: [a, b], env: [eu, us] }
",
    );
    assert_eq!(matrix[0].key, ["service", "env"]);
    assert_eq!(
        matrix[0].removed_key("us/c errors").as_deref(),
        Some("c,us")
    );
    assert_eq!(matrix[0].removed_key("us/a errors"), None, "still listed");
}

#[test]
fn templates_building_on_each_other_in_a_cycle_stop() {
    let text = "templates:
  a:
    alert: { template: b, name: x }
  b:
    alert: { template: a }
stacks:
  prod:
    alerts:
      x: { template: a, forEach: [{key: one}] }
";
    let (_, _, diags) = expand_text(text);
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0].code, Code::TemplateCycle);
}

#[test]
fn overrides_merge_deeply_into_their_instance_only() {
    let text = "templates:
  t:
    alert: { name: \"n-${key}\", channel: { type: webhook, webhookId: w } }
stacks:
  prod:
    alerts:
      x:
        template: t
        forEach:
          - { key: a, overrides: { channel: { webhookId: v } } }
          - { key: b }
";
    let (root, _, diags) = expand_text(text);
    assert!(diags.is_empty(), "{diags:?}");
    let alerts = root
        .get("stacks")
        .unwrap()
        .get("prod")
        .unwrap()
        .get("alerts")
        .unwrap();
    let a = alerts.get("x[a]").unwrap().get("channel").unwrap();
    assert_eq!(a.get("webhookId").unwrap().kind, Kind::Str("v".into()));
    assert_eq!(a.get("type").unwrap().kind, Kind::Str("webhook".into()));
    let b = alerts.get("x[b]").unwrap().get("channel").unwrap();
    assert_eq!(b.get("webhookId").unwrap().kind, Kind::Str("w".into()));
}

#[test]
fn a_key_of_the_entry_and_the_template_both_is_a_duplicate() {
    let text = "templates:
  t:
    alert: { name: n }
stacks:
  prod:
    alerts:
      x: { template: t, name: m, forEach: [{key: a}] }
";
    let (_, _, diags) = expand_text(text);
    assert_eq!(diags[0].code, Code::ConfigDuplicateKey, "{diags:?}");
}

/// The instance names of `forEach` keys seen twice, for tests.
fn keys_of(root: &Node, stack: &str, section: &str) -> Vec<String> {
    root.get("stacks")
        .and_then(|s| s.get(stack))
        .and_then(|s| s.get(section))
        .and_then(Node::as_map)
        .map(|m| m.iter().map(|(k, _)| k.name.to_string()).collect())
        .unwrap_or_default()
}
