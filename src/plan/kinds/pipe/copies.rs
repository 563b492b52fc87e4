//! Two live pipes answering one pipe of the config (issue 41, part 3): a copy, left by two
//! runs that raced before the creates were checked, a run killed between its create and its
//! clean-up, or a pipe made by hand. The plan takes the pipe the config pins by `id:`, else the
//! oldest (lists come in creation order), as concurrent runs keep it; every other pipe of its
//! name is a copy, said at the pipe's line (`plan::duplicate-pipe`, a warning: the pipe taken
//! is planned as ever). `--dedupe` plans the delete of each copy converge may remove, a
//! destroy gated by `--allow-destroy`: one that reads the source the config declares into its
//! destination, mapped the same way, as the pipe taken does, of a pipe the config declares
//! whole (so converge's own create makes exactly it). A copy that differs is left, and said.

use super::op::{self, PipeOp};
use super::project::made_as;
use crate::api::wire::{Pipe, Service};
use crate::config::model::{PipeConfig, ServiceConfig};
use crate::diagnostic::{Code, Diagnostic};
use crate::plan::address::Address;
use crate::plan::build::builder::Builder;
use crate::plan::diff;
use crate::plan::kind::Live;
use crate::plan::model::{Action, Change, Operation};

impl Builder<'_> {
    /// The copies of the pipe `taken` for `config` among the service's `listed` pipes: with
    /// `--dedupe` and every copy removable, their deletes; otherwise a warning at the pipe.
    pub(super) fn pipe_copies(
        &mut self,
        service: &ServiceConfig,
        live_service: &Service,
        config: &PipeConfig,
        (taken, listed): (&Pipe, &[Pipe]),
    ) {
        let copies: Vec<&Pipe> = listed
            .iter()
            .filter(|p| p.id != taken.id && p.name == taken.name)
            .collect();
        if copies.is_empty() {
            return;
        }
        let declared = serde_json::Value::Object(self.declared_fields(config));
        let whole =
            config.name.is_some() && config.source.is_some() && config.destination.is_some();
        let ours = |pipe: &Pipe| whole && made_as(pipe, &declared);
        let left: Vec<&&Pipe> = copies.iter().filter(|copy| !ours(copy)).collect();
        let removable = left.is_empty() && ours(taken);
        let of = Address::Pipe {
            service: &service.key.value,
            pipe: &config.key.value,
        };
        let kept = if config.id.is_some() {
            "the one the config pins by `id:`"
        } else {
            "the oldest"
        };
        if self.dedupe && removable {
            for copy in &copies {
                self.delete_copy(service, live_service, copy, &of, (kept, &taken.id));
            }
            return;
        }
        let ids: Vec<&str> = copies.iter().map(|p| p.id.as_str()).collect();
        let help = if removable {
            format!(
                "{kept} (id {}) is kept: run `converge apply --dedupe --allow-destroy` to delete \
                 the other ({}), which reads the same source into the same destination",
                taken.id,
                ids.join(", ")
            )
        } else if !whole {
            format!(
                "{kept} (id {}) is planned; converge deletes a copy only of a pipe the config \
                 declares whole (`name`, `source`, `destination`): delete or rename the others \
                 in the console",
                taken.id
            )
        } else {
            format!(
                "{kept} (id {}) is planned; converge may not delete {} (it does not read the \
                 declared source into the declared destination, as converge's own create would): \
                 delete or rename it in the console",
                taken.id,
                left.iter()
                    .chain(std::iter::once(&&taken).filter(|_| !ours(taken)))
                    .map(|p| format!("id {}", p.id))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        self.error(
            Diagnostic::warning(
                Code::PlanDuplicatePipe,
                format!(
                    "service `{}` has {} pipes named \"{}\" (ids {}, {}); `{of}` is one pipe",
                    service.key.value,
                    copies.len() + 1,
                    taken.name,
                    taken.id,
                    ids.join(", ")
                ),
                Some(config.identity_span()),
            )
            .with_label("answered by more than one live pipe")
            .with_help(help),
        );
    }

    /// The delete of `copy`, a copy of the pipe at `of`; (`kept`, its id) says which stays.
    fn delete_copy(
        &mut self,
        service: &ServiceConfig,
        live_service: &Service,
        copy: &Pipe,
        of: &Address<'_>,
        (kept, kept_id): (&str, &str),
    ) {
        let before = super::live::pipe_identity(copy);
        let operation = Operation::Pipe(PipeOp::Delete {
            service_id: live_service.id.clone(),
            pipe_id: copy.id.clone(),
            version_tag: op::recorded_tag(live_service, &copy.id),
        });
        let change = Change {
            address: Address::LivePipe {
                service: &service.key.value,
                name: std::borrow::Cow::Borrowed(&copy.name),
            }
            .into(),
            action: Action::Delete,
            reason: format!(
                "--dedupe: id {} is a copy of `{of}`; {kept} (id {kept_id}) stays",
                copy.id
            ),
            fields: diff::deleted(&before),
            before: Some(before),
            after: None,
            fingerprint: Some(copy.fingerprint()),
            step: None,
            renamed_from: None,
        };
        self.push(change, Some((operation, Vec::new())));
    }
}
