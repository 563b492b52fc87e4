//! `semantic::shared-object`: an object belongs to exactly one stack. Two stacks of one config
//! written to the same server (the standalone observability API, or one service's managed
//! stack) that name the same dashboard (as the server stores names: white space collapsed)
//! would both claim the one live dashboard, each stripping the other's tag and pruning the
//! other's alerts. Said at both lines; for two instances of one whole-stack template, with what
//! to put in the name.

use std::collections::HashMap;

use super::model::{Config, StackConfig, StackTarget};
use crate::diagnostic::{Code, Diagnostic, Span};

/// Pushes one error per dashboard name a second stack on the same server gives again.
pub(crate) fn check(config: &Config, diags: &mut Vec<Diagnostic>) {
    // (server, name as stored) -> the first stack naming it, and where.
    let mut first: HashMap<(String, String), (&StackConfig, Span)> = HashMap::new();
    for stack in config.stacks.values() {
        let server = match &stack.target {
            StackTarget::Observability => String::new(),
            StackTarget::Managed { service } => format!("service:{}", service.value),
        };
        for dashboard in stack.dashboards.values() {
            let name = dashboard.name.value.split_whitespace().collect::<Vec<_>>();
            let key = (server.clone(), name.join(" "));
            let span = dashboard.name.span;
            match first.get(&key) {
                Some((other, at)) if other.key.value != stack.key.value => {
                    diags.push(shared(other, *at, stack, span, &key.1));
                }
                Some(_) => {}
                None => {
                    first.insert(key, (stack, span));
                }
            }
        }
    }
}

/// The error for stack `second` naming dashboard `name` that stack `first` names already.
fn shared(
    first: &StackConfig,
    first_at: Span,
    second: &StackConfig,
    second_at: Span,
    name: &str,
) -> Diagnostic {
    let (a, b) = (&first.key.value, &second.key.value);
    let help = match (instance(a), instance(b)) {
        (Some((entry, x)), Some((other, y))) if entry == other => match &second.key_parameter {
            Some(param) => format!(
                "instances `{x}` and `{y}` of `stacks.{entry}` make the same name: put the \
                 parameter `{param}` in the dashboard's `name` (its value differs between them), \
                 as in `{name} (${{{param}}})`"
            ),
            None => format!(
                "instances `{x}` and `{y}` of `stacks.{entry}` make the same name: put in the \
                 dashboard's `name` a parameter whose value differs between them, as in \
                 `{name} (${{<parameter>}})`"
            ),
        },
        _ => format!(
            "give one of the two dashboards another name (or move it into one stack): \
             stacks `{a}` and `{b}` are written to the same server"
        ),
    };
    Diagnostic::error(
        Code::SemanticSharedObject,
        format!(
            "stacks `{a}` and `{b}` both name dashboard \"{name}\" on the same server; a live \
             object belongs to one stack, and each would take it (and prune its alerts) from \
             the other"
        ),
        Some(second_at),
    )
    .with_label(format!("named again by stack `{b}`"))
    .with_related(first_at, format!("named by stack `{a}`"))
    .with_help(help)
}

/// The entry and instance key of a whole-stack template instance's key (`env[prod]`).
fn instance(stack: &str) -> Option<(&str, &str)> {
    stack.strip_suffix(']')?.split_once('[')
}
