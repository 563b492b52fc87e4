//! Pipe writes need their service `running`; an idle or stopped service answers 424. `plan` and
//! `apply` say so ahead, from the services list they already read, instead of leaving it to
//! the failures.

use std::collections::BTreeMap;

use crate::address::Member;
use crate::live::LiveState;
use crate::plan::model::Plan;
use crate::plan::target::Target;

/// One warning per service that is not running and whose pipes the plan writes, e.g.
/// ``service `analytics` is `idle`: its 3 pipe change(s) will fail with 424 unless `converge
/// apply --wake` wakes it first``.
pub(crate) fn warnings(plan: &Plan, live: &LiveState) -> Vec<String> {
    // Service key (from the address) and id → pipe steps.
    let mut pipes: BTreeMap<(String, String), usize> = BTreeMap::new();
    // A service the plan changes the state of is started by it before its pipe writes (a stop
    // of a service that is not running is never planned).
    let started: Vec<&str> = plan
        .steps
        .iter()
        .filter_map(|step| {
            let Target::ServiceMember {
                service_id,
                member: Member::State,
            } = step.operation.target()
            else {
                return None;
            };
            Some(service_id)
        })
        .collect();
    for step in &plan.steps {
        let Some(service_id) = step.operation.target().pipes_of() else {
            continue;
        };
        if started.contains(&service_id) {
            continue;
        }
        let key = step.address.service().unwrap_or(service_id).to_string();
        *pipes.entry((key, service_id.to_string())).or_insert(0) += 1;
    }
    pipes
        .into_iter()
        .filter_map(|((key, id), count)| {
            let state = live.services.get(&id)?.state.as_deref()?;
            if state == "running" {
                return None;
            }
            let changes = if count == 1 {
                "its pipe change".to_string()
            } else {
                format!("its {count} pipe changes")
            };
            Some(format!(
                "service `{key}` is `{state}`, not running: {changes} will fail with 424 \
                 unless `converge apply --wake` wakes it first"
            ))
        })
        .collect()
}
