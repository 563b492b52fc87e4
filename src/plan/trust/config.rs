//! The saved plan against the applying run's config: each step writes to the service, pipe and
//! stack API its address names there (each kind says which, [`super::Check::against_config`]),
//! and a whole plan shows every dashboard and alert the config has.

use std::collections::HashSet;

use crate::config::model::{Config, Located, StackTarget as ModelTarget};
use crate::plan::address::Address;
use crate::plan::model::{AddressBuf, Change, Plan, StackRef, StackTarget};
use crate::plan::normalize;

use super::check::{self, ConfigCheck};

/// What [`against_config`] found.
#[derive(Default)]
pub(crate) struct ConfigChecked {
    /// One line per disagreement.
    pub problems: Vec<String>,
    /// The steps whose objects the config finds by name, to hold to the live state before
    /// any write ([`super::bound::bound_against_live`]).
    pub bound: Vec<super::bound::Bound>,
}

/// Checks that each step writes to the service, pipe and stack its address names in `config`
/// (the applying run's): a step moved to another service's id is refused.
pub(crate) fn against_config(
    plan: &Plan,
    config: &Config,
    redact: &dyn Fn(&str) -> String,
) -> ConfigChecked {
    let check = ConfigCheck {
        plan,
        config,
        redact,
        bound: std::cell::RefCell::new(Vec::new()),
    };
    let mut problems = Vec::new();
    for (index, step) in plan.steps.iter().enumerate() {
        let address = &step.address.view();
        let problem = check::of(&step.operation).against_config(&check, index, address);
        if let Some(problem) = problem {
            problems.push(format!("{address}: {problem}"));
        }
    }
    problems.extend(left_out(plan, config));
    ConfigChecked {
        problems,
        bound: check.bound.into_inner(),
    }
}

/// A whole plan (no `--only`) shows every dashboard and alert of the config, unchanged ones
/// included, so a file edited to drop one together with its step (a create above all, which
/// nothing live could show missing) names the address it left out. One line per address.
fn left_out(plan: &Plan, config: &Config) -> Vec<String> {
    if !plan.only.is_empty() {
        return Vec::new();
    }
    let shown: HashSet<&AddressBuf> = plan.changes.iter().map(|c| &c.address).collect();
    let mut problems = Vec::new();
    for (key, stack) in &config.stacks {
        let dashboards = stack.dashboards.keys().map(|dashboard| Address::Dashboard {
            stack: key,
            dashboard,
        });
        let alerts = stack
            .alerts
            .keys()
            .map(|alert| Address::Alert { stack: key, alert });
        for address in dashboards.chain(alerts) {
            if !shown.contains(&AddressBuf::from(&address)) {
                problems.push(format!(
                    "{address}: the config has it, but the plan shows no change for it (not even \
                     unchanged): the file was edited to leave it out, or made from another config"
                ));
            }
        }
    }
    problems
}

impl ConfigCheck<'_> {
    /// Whether a service step at `address` writes to the service the config gives that key.
    pub(crate) fn service(&self, address: &Address<'_>, service_id: &str) -> Option<String> {
        let config = self.config;
        let key = address.service_setting();
        match key.and_then(|key| config.services.values().find(|s| s.key.value == key)) {
            Some(s) if s.id.value == service_id => None,
            Some(s) => Some(format!(
                "writes to service {service_id}, but `{}` is {} in the config",
                s.key.value, s.id.value
            )),
            None => Some("names a service the config does not have".to_string()),
        }
    }

    /// Whether a stack step writes through the API (and service) the config gives its stack.
    pub(crate) fn stack(&self, stack: &StackRef) -> Option<String> {
        let config = self.config;
        let wanted = config.stacks.get(&stack.key).map(|s| match &s.target {
            ModelTarget::Managed { service } => StackTarget::Managed {
                service_id: config
                    .services
                    .get(&service.value)
                    .map(|s| s.id.value.clone())
                    .unwrap_or_default(),
            },
            ModelTarget::Observability => StackTarget::Observability,
        });
        match wanted {
            Some(wanted) if wanted == stack.target => None,
            Some(_) => Some(format!(
                "writes to stack `{}` through another API or service than the config's",
                stack.key
            )),
            None => Some(format!(
                "names stack `{}`, which the config does not have",
                stack.key
            )),
        }
    }

    /// Whether the names step `index`'s changes show are the names the config gives its
    /// address, `name` (or one it was renamed from) of a `kind`: the file alone ties an address
    /// to its object only by the names it shows, and two changes could trade addresses and
    /// still read as a plan (a live address names its object itself).
    pub(crate) fn names(
        &self,
        index: usize,
        kind: &str,
        name: &Located<smol_str::SmolStr>,
        renamed_from: &[Located<smol_str::SmolStr>],
    ) -> Option<String> {
        let redact = self.redact;
        let known = |shown: &str| {
            std::iter::once(name).chain(renamed_from.iter()).any(|n| {
                normalize::same_name(shown, &n.value)
                    || normalize::same_name(shown, &redact(&n.value))
            })
        };
        self.plan
            .changes
            .iter()
            .filter(|c| c.step == Some(index))
            .flat_map(Change::names_shown)
            .flatten()
            .find(|shown| !known(shown))
            .map(|shown| {
                format!(
                    "shows the {kind} {shown:?}, but the config names that address {:?}",
                    redact(&name.value)
                )
            })
    }
}
