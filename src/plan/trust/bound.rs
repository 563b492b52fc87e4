//! A step whose object the config finds by name (a pipe declared without `id:`): the config
//! ties its address to a name, never to an id, so the id the saved plan carries is held to
//! the object the plan read by reading it again before any write. The pipe the config's name
//! (or a name of its `renamedFrom:`, or its hinted rename) finds now must be the step's; the
//! fingerprint compared
//! before each write (its id, name and scaling) says whether it changed or vanished since the
//! plan was made (a stale plan, exit 3).

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::api::wire::Pipe;

use crate::live::LiveState;
use crate::plan::model::Plan;

/// The id of the pipe a config pipe's hinted rename takes among a service's live pipes (the
/// one unclaimed pipe that reads its source into its destination), asked again before any
/// write; `plan/kinds/pipe/check.rs` makes it from the config.
pub(crate) type Hinted = Arc<dyn Fn(&[Pipe]) -> Option<String> + Send + Sync>;

/// A step of a saved plan that writes to a pipe the applying run's config finds by name.
#[derive(Clone)]
pub(crate) struct Bound {
    /// The step's address (a plan kept to `--only` numbers its steps again).
    pub address: String,
    /// The service the step writes to.
    pub service_id: String,
    /// The pipe id the step writes to.
    pub pipe_id: String,
    /// The name the config finds the pipe by.
    pub name: String,
    /// The names the config says the pipe had before (`renamedFrom:`), in order.
    pub renamed_from: Vec<String>,
    /// The pipe a hinted rename takes, for a pipe declared whole that no pipe has a name of.
    pub hinted: Option<Hinted>,
}

/// Every bound step of `plan` that would write to another pipe than the one its config's name
/// finds in `live` (holding the pipes of each step's service): one line each. Steps in `stale`
/// are left to the stale check, and a pipe gone since the plan was made is one of them.
pub(crate) fn bound_against_live(
    plan: &Plan,
    bound: &[Bound],
    live: &LiveState,
    stale: &BTreeSet<usize>,
) -> Vec<String> {
    let mut problems = Vec::new();
    let kept = |b: &&Bound| {
        plan.steps
            .iter()
            .any(|s| s.address.to_string() == b.address && !stale.contains(&s.id))
    };
    for b in bound.iter().filter(kept) {
        let pipes = live.pipes.get(&b.service_id).map_or(&[][..], Vec::as_slice);
        // As the plan finds it: by its name, else by a name it had before.
        let found = pipes.iter().find(|p| p.name == b.name).or_else(|| {
            b.renamed_from
                .iter()
                .find_map(|old| pipes.iter().find(|p| &p.name == old))
        });
        let written = pipes.iter().find(|p| p.id == b.pipe_id);
        // A hinted rename, as the plan took it: the one unclaimed pipe of its source and
        // destination, while no pipe has a name the config gives.
        let hinted = || b.hinted.as_ref().and_then(|h| h(pipes));
        let problem = match (found, written) {
            (Some(found), _) if found.id == b.pipe_id => continue,
            (None, Some(_)) if hinted().as_deref() == Some(b.pipe_id.as_str()) => continue,
            // Gone since the plan was made: the stale check says so.
            (None, None) => continue,
            (Some(found), _) => format!(
                "the step writes to pipe {}, but the pipe the config finds by the name `{}` is \
                 {} (named `{}`): the file was edited to write to another pipe, or the pipes \
                 changed since the plan was made; plan again with this config",
                b.pipe_id, b.name, found.id, found.name
            ),
            (None, Some(written)) => format!(
                "the step writes to pipe {} (named `{}`), but the config finds this pipe by the \
                 name `{}`{}, which no pipe has, and that pipe is not the one pipe reading its \
                 source into its destination: the file was edited to write to another pipe, or \
                 the pipes changed since the plan was made; plan again with this config (to \
                 keep `{}` as this pipe, write `renamedFrom: [{}]`)",
                b.pipe_id,
                written.name,
                b.name,
                renamed_text(&b.renamed_from),
                written.name,
                written.name
            ),
        };
        problems.push(format!("{}: {problem}", b.address));
    }
    problems
}

/// ` (or the names of its renamedFrom: ...)` when the config lists names the pipe had before.
fn renamed_text(renamed_from: &[String]) -> String {
    if renamed_from.is_empty() {
        return String::new();
    }
    let names: Vec<String> = renamed_from.iter().map(|n| format!("`{n}`")).collect();
    format!(" (or its `renamedFrom:` {})", names.join(", "))
}
