//! A pipe left twice by two runs at once: two creates of one declared pipe, or two
//! replacements of one pipe (each creates once the old pipe is gone). Settled by
//! `crate::apply::duplicates` like dashboards and alerts: the oldest stays, a run removes only
//! the copy whose id its create answered.

use serde_json::Value;

use crate::address::Address;
use crate::apply::fresh::Data;
use crate::apply::write::{Context, Doubles};
use crate::plan::kinds::pipe::made_as;
use crate::plan::kinds::pipe::op;
use crate::plan::{AddressBuf, Operation, PipeOp};

/// A pipe operation that can leave its pipe twice: a create, or a replacement's create half
/// (two runs replacing one pipe at once both create once the old pipe is gone).
pub(crate) fn doubles(operation: &PipeOp) -> Option<PipeCreate<'_>> {
    match operation {
        PipeOp::Create {
            service_id,
            name,
            body,
            credentials_version,
            ..
        }
        | PipeOp::Replace {
            service_id,
            name,
            body,
            credentials_version,
            ..
        } => Some(PipeCreate {
            service_id,
            name,
            body,
            versioned: credentials_version.is_some(),
        }),
        PipeOp::Update { .. }
        | PipeOp::Scaling { .. }
        | PipeOp::Delete { .. }
        | PipeOp::Rotate { .. }
        | PipeOp::Lifecycle { .. }
        | PipeOp::Resync { .. }
        | PipeOp::Settings { .. }
        | PipeOp::Compute { .. } => None,
    }
}

/// The pipe a create makes, as its copies are found: by name within the service.
pub(crate) struct PipeCreate<'a> {
    service_id: &'a str,
    name: &'a str,
    body: &'a Value,
    /// Whether the create records a credentials version (a removed copy's tag goes with it).
    versioned: bool,
}

impl Doubles for PipeCreate<'_> {
    fn kind(&self) -> &'static str {
        "pipe"
    }

    fn name(&self) -> &str {
        self.name
    }

    fn tags_its_copies(&self) -> bool {
        false
    }

    fn copies<'d>(&self, data: &'d Data) -> Vec<(&'d str, &'d [String])> {
        let Data::Pipes(list) = data else {
            return Vec::new();
        };
        // A pipe carries no tags: it is this run's only by the id its create answered.
        list.iter()
            .filter(|p| p.name == self.name)
            .map(|p| (p.id.as_str(), &[][..]))
            .collect()
    }

    fn removal(&self, own_id: &str) -> (Operation, AddressBuf) {
        let operation = Operation::Pipe(PipeOp::Delete {
            service_id: self.service_id.to_string(),
            pipe_id: own_id.to_string(),
            version_tag: self.versioned.then(|| op::version_tag(own_id)),
        });
        let address = Address::LivePipe {
            service: self.service_id,
            name: std::borrow::Cow::Borrowed(self.name),
        };
        (operation, address.into())
    }

    fn claims_untagged(&self, id: &str, data: &Data) -> bool {
        self.kept_as_wanted_in(id, data)
    }

    fn kept_as_wanted(&self, _context: &Context, kept: &str, data: &Data) -> bool {
        self.kept_as_wanted_in(kept, data)
    }
}

impl PipeCreate<'_> {
    /// Whether the pipe `id` in `data` is the one this create makes ([`made_as`]).
    fn kept_as_wanted_in(&self, kept: &str, data: &Data) -> bool {
        let Data::Pipes(list) = data else {
            return false;
        };
        list.iter()
            .find(|p| p.id == kept)
            .is_some_and(|pipe| made_as(pipe, self.body))
    }
}
