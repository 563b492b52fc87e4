//! References by name: a `source:` or `webhook:` name resolved to the one id the stack's list
//! gives it, at plan time. A name nothing has, or that two objects have, is an error at the
//! name's line.

use smol_str::SmolStr;

use crate::api::wire::{Source, Webhook};
use crate::config::model::Located;
use crate::diagnostic::{Code, Diagnostic};

/// One listed object a name may resolve to: its id, its name, and what tells two of a name
/// apart in a message (a webhook's service, a source's kind).
pub(crate) struct Named<'l> {
    pub(crate) id: &'l str,
    pub(crate) name: &'l str,
    pub(crate) detail: Option<&'l str>,
}

/// The stack's sources as [`Named`] objects.
pub(crate) fn sources(list: &[Source]) -> Vec<Named<'_>> {
    list.iter()
        .map(|s| Named {
            id: &s.id,
            name: &s.name,
            detail: s.kind.as_deref(),
        })
        .collect()
}

/// The stack's webhooks as [`Named`] objects.
pub(crate) fn webhooks(list: &[Webhook]) -> Vec<Named<'_>> {
    list.iter()
        .map(|w| Named {
            id: &w.id,
            name: &w.name,
            detail: Some(w.service.as_str()).filter(|s| !s.is_empty()),
        })
        .collect()
}

/// What a name refers to: `source` or `webhook`, the code of an unknown name, and the key that
/// gives the id instead (`sourceId`, `webhookId`).
pub(crate) struct Kind {
    pub(crate) noun: &'static str,
    pub(crate) unknown: Code,
    pub(crate) id_key: &'static str,
}

/// A source name.
pub(crate) const SOURCE: Kind = Kind {
    noun: "source",
    unknown: Code::PlanUnknownSource,
    id_key: "sourceId",
};

/// A webhook name.
pub(crate) const WEBHOOK: Kind = Kind {
    noun: "webhook",
    unknown: Code::PlanUnknownWebhook,
    id_key: "webhookId",
};

/// The id of the one listed object named `name`; the diagnostic points at the name and lists
/// the stack's names (none matched) or the ids that share it (two or more matched).
pub(crate) fn resolve(
    kind: &Kind,
    listed: &[Named<'_>],
    name: &Located<SmolStr>,
) -> Result<String, Box<Diagnostic>> {
    let matches: Vec<&Named> = listed.iter().filter(|n| n.name == name.value).collect();
    match matches.as_slice() {
        [one] => Ok(one.id.to_string()),
        [] => Err(Box::new(unknown(kind, listed, name))),
        many => {
            let ids: Vec<String> = many
                .iter()
                .map(|n| match n.detail {
                    Some(detail) => format!("{} ({detail})", n.id),
                    None => n.id.to_string(),
                })
                .collect();
            Err(Box::new(
                Diagnostic::error(
                    Code::PlanAmbiguousName,
                    format!(
                        "{} {}s of the stack are named \"{}\" (ids {})",
                        many.len(),
                        kind.noun,
                        name.value,
                        ids.join(", ")
                    ),
                    Some(name.span),
                )
                .with_label(format!("names more than one {}", kind.noun))
                .with_help(format!(
                    "rename one of them on the server, or give the id: `{}: <id>`",
                    kind.id_key
                )),
            ))
        }
    }
}

fn unknown(kind: &Kind, listed: &[Named<'_>], name: &Located<SmolStr>) -> Diagnostic {
    let mut names: Vec<&str> = listed.iter().map(|n| n.name).collect();
    names.sort_unstable();
    names.dedup();
    let help = if names.is_empty() {
        format!(
            "the stack has no {}s; use `{}:` or create the {} first",
            kind.noun, kind.id_key, kind.noun
        )
    } else {
        format!("{}s of this stack: {}", kind.noun, names.join(", "))
    };
    Diagnostic::error(
        kind.unknown,
        format!("no {} named \"{}\" in the stack", kind.noun, name.value),
        Some(name.span),
    )
    .with_label(format!("not in the stack's {}s", kind.noun))
    .with_help(help)
}
