//! Templates: an alert or a dashboard declared once under `templates:` (at the top level or in
//! a stack) with typed parameters, and fanned out by `template:` plus `forEach:` or `matrix:`
//! where an alert or a dashboard would stand; or a whole-stack fragment (its dashboards and
//! alerts together, top-level only) fanned out where a stack would stand, each instance a
//! stack of its own keyed `entry[key]` (`stack.env[prod]`, `alert.env[prod].api-errors`).
//!
//! Expansion works on the YAML tree, after the files merge and before `${env:...}` interpolation,
//! so every later stage (interpolation and its secret checks, the schema, the typed config, the
//! rules) sees ordinary alerts and dashboards. Each instance takes the key `entry[key]` (a
//! matrix joins its values with `,`), so its address is `alert.prod.api-errors[checkout]`: from
//! the key, never from a list position or a rendered name. Every node copied from a template
//! keeps the template's span with [`Span::instance`] set, so a problem found later in a
//! template's text names both the template line and the instance line; the instances are
//! listed in [`Sources::instances`](super::model::Sources) for that.
//!
//! Substitution only: `${name}` inside a string is replaced by the parameter's text, and a
//! whole scalar `${name}` takes the parameter's value with its type (a number stays a number, a
//! list a list). `${env:...}` and `$${` are left for interpolation.

mod declare;
mod expanded;
mod instance;
mod matrix;
mod names;
mod substitute;
#[cfg(test)]
mod tests;
mod tree;

use std::collections::HashMap;

use super::model::{InstanceNames, InstanceOrigin};
use super::yaml::{Kind, Node};
use crate::diagnostic::Diagnostic;
use declare::{Template, take_templates};
use instance::Expander;

pub(crate) use expanded::to_yaml;

/// What expanding made: the instances, indexed by [`Span::instance`], and by stack key how
/// the live names of its alert and dashboard instances read back as their keys.
#[derive(Debug, Default)]
pub(crate) struct Expansion {
    /// Every instance made.
    pub instances: Vec<InstanceOrigin>,
    /// Each stack's [`InstanceNames`].
    pub names: HashMap<String, Vec<InstanceNames>>,
    /// By whole-stack template entry (`env`), the parameter its instances' keys are made from.
    pub key_parameters: HashMap<String, String>,
}

/// Expands every `template:` entry of every stack in place and takes the `templates:` maps
/// out of the tree.
pub(crate) fn expand(root: &mut Node, diags: &mut Vec<Diagnostic>) -> Expansion {
    let Kind::Map(entries) = &mut root.kind else {
        return Expansion::default();
    };
    let global = take_templates(entries, diags);
    let mut expander = Expander {
        instances: Vec::new(),
        names: Vec::new(),
        key_parameters: HashMap::new(),
        diags,
    };
    let mut names = HashMap::new();
    let Some((_, stacks)) = entries.iter_mut().find(|(k, _)| k.name == "stacks") else {
        return Expansion::default();
    };
    let Kind::Map(stacks) = &mut stacks.kind else {
        return Expansion::default();
    };
    // Whole stacks first: an instance's own alerts and dashboards may use templates too.
    let written = std::mem::take(stacks);
    *stacks = expander.section(written, "stack", &[&global]);
    for (stack_key, stack) in stacks.iter_mut() {
        let Kind::Map(stack) = &mut stack.kind else {
            continue;
        };
        let local = take_templates(stack, expander.diags);
        let scope: [&HashMap<String, Template>; 2] = [&local, &global];
        for (section, kind) in [("alerts", "alert"), ("dashboards", "dashboard")] {
            if let Some((_, objects)) = stack.iter_mut().find(|(k, _)| k.name == section)
                && let Kind::Map(objects) = &mut objects.kind
            {
                let written = std::mem::take(objects);
                *objects = expander.section(written, kind, &scope);
            }
        }
        let made = std::mem::take(&mut expander.names);
        if !made.is_empty() {
            names.insert(stack_key.name.to_string(), made);
        }
    }
    Expansion {
        instances: expander.instances,
        names,
        key_parameters: expander.key_parameters,
    }
}
