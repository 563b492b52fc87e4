//! A pipe found under another name (issue 40, part 2): by the names its `renamedFrom:` lists,
//! or, for a pipe declared whole that no live pipe has the name of, as the one unmanaged pipe
//! that reads the same source into the same destination (a hinted rename, said as a warning):
//! renaming a pipe never creates a second one that ingests the same data.

use serde_json::Value;

use crate::api::wire::Pipe;
use crate::config::model::{PipeConfig, ServiceConfig};
use crate::diagnostic::{Code, Diagnostic};
use crate::plan::build::builder::Builder;

/// The live pipe with one of the names `config` was renamed from.
pub(super) fn renamed<'l>(config: &PipeConfig, pipes: &'l [Pipe]) -> Option<&'l Pipe> {
    pipes.iter().find(|pipe| {
        config
            .renamed_from
            .iter()
            .any(|old| old.value.as_str() == pipe.name)
    })
}

/// The one live pipe no other pipe of the service's config claims that reads the source and
/// writes the destination `config` declares (a pipe declared whole): the pipe a hinted rename
/// takes. The saved-plan check asks it again of the pipes read before any write.
pub(super) fn same_source_and_destination<'l>(
    service: &ServiceConfig,
    config: &PipeConfig,
    pipes: &'l [Pipe],
) -> Option<&'l Pipe> {
    let (_, source, destination) = (
        config.name.as_ref()?,
        config.source.as_ref()?,
        config.destination.as_ref()?,
    );
    let claimed = |pipe: &Pipe| {
        service.pipes.values().any(|other| {
            other.is(&pipe.id, &pipe.name)
                || (other.id.is_some() && other.name.as_ref().is_some_and(|n| n.value == pipe.name))
                || other
                    .renamed_from
                    .iter()
                    .any(|old| old.value.as_str() == pipe.name)
        })
    };
    let mut same = pipes.iter().filter(|pipe| {
        if claimed(pipe) {
            return false;
        }
        let live = serde_json::to_value(pipe).unwrap_or(Value::Null);
        let live_source = live
            .get("source")
            .and_then(|s| s.get(source.kind.value.as_str()));
        live_source.is_some_and(|have| agrees(have, &source.body))
            && live
                .get("destination")
                .is_some_and(|have| agrees(have, &destination.value))
    });
    let (found, None) = (same.next()?, same.next()) else {
        return None;
    };
    Some(found)
}

impl Builder<'_> {
    /// The pipe `config` is taken as when it is this pipe renamed without `renamedFrom`
    /// ([`same_source_and_destination`]), with a warning at its name that says to write it.
    pub(super) fn hinted_rename<'l>(
        &mut self,
        service: &ServiceConfig,
        config: &PipeConfig,
        pipes: &'l [Pipe],
    ) -> Option<&'l Pipe> {
        let name = config.name.as_ref()?;
        let found = same_source_and_destination(service, config, pipes)?;
        self.error(
            Diagnostic::warning(
                Code::PlanPipeRenameHinted,
                format!(
                    "pipe `{}.{}`: no pipe is named `{}`, and pipe `{}` (id {}), which no other \
                     pipe of the config names, reads the same source into the same destination; \
                     it is taken as this pipe, renamed (creating another would ingest the same \
                     data twice)",
                    service.key.value, config.key.value, name.value, found.name, found.id
                ),
                Some(name.span),
            )
            .with_label("renamed from a live pipe")
            .with_help(format!(
                "write `renamedFrom: [{}]` to say it is a rename, or give the pipe its `id: {}`",
                found.name, found.id
            )),
        );
        Some(found)
    }
}

/// Whether `live` agrees with `declared` wherever both say something: every member of an
/// object that both hold (credentials, which no read shows, are only in `declared`), and
/// lists element by element.
fn agrees(live: &Value, declared: &Value) -> bool {
    match (live, declared) {
        (Value::Object(have), Value::Object(want)) => want
            .iter()
            .all(|(key, want)| have.get(key).is_none_or(|have| agrees(have, want))),
        (Value::Array(have), Value::Array(want)) => {
            have.len() == want.len() && have.iter().zip(want).all(|(h, w)| agrees(h, w))
        }
        (have, want) => have == want,
    }
}
