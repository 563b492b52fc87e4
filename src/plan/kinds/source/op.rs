//! Sources: what a source step sends (create, update, delete). A create or update sends the
//! whole source (a `PUT` replaces it), its `connection` and the other sources it names already
//! resolved to ids, or to [`placeholder`]s of the sources this plan creates, filled in when the
//! step is sent.

use serde::{Deserialize, Serialize};

use crate::address::Address;
use crate::api::wire::SourceRequest;
use crate::plan::kind::{Kind, Shows};
use crate::plan::target::{Effect, Key, Name, StackRef, Target};

/// A source operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all_fields = "camelCase")]
pub enum SourceOp {
    /// `POST /api/v2/sources`.
    #[serde(rename = "source-create")]
    Create {
        /// Where.
        stack: StackRef,
        /// The source as sent.
        body: SourceRequest,
    },
    /// `PUT /api/v2/sources/{id}`: the whole source replaced.
    #[serde(rename = "source-update")]
    Update {
        /// Where.
        stack: StackRef,
        /// Source id.
        source_id: String,
        /// The source as sent.
        body: SourceRequest,
    },
    /// `DELETE /api/v2/sources/{id}` (`absent: true`).
    #[serde(rename = "source-delete")]
    Delete {
        /// Where.
        stack: StackRef,
        /// Source id.
        source_id: String,
    },
}

/// The id a reference to a source carries until the source it names is created in the same
/// apply: apply puts the created source's id in its place.
pub(crate) fn placeholder(name: &str) -> String {
    format!("{PLACEHOLDER}{name:?} this plan creates)")
}

/// How a [`placeholder`] starts.
pub(crate) const PLACEHOLDER: &str = "(the source ";

/// The name a [`placeholder`] holds.
pub(crate) fn placeholder_name(text: &str) -> Option<String> {
    let quoted = text
        .strip_prefix(PLACEHOLDER)?
        .strip_suffix(" this plan creates)")?;
    serde_json::from_str(quoted).ok()
}

impl SourceOp {
    /// The stack, and the key it finds its source by.
    fn object(&self) -> (&StackRef, Key<'_>) {
        match self {
            SourceOp::Create { stack, body } => (
                stack,
                Key::Name(
                    body.get("name")
                        .and_then(|n| n.as_str())
                        .unwrap_or_default(),
                ),
            ),
            SourceOp::Update {
                stack, source_id, ..
            }
            | SourceOp::Delete { stack, source_id } => (stack, Key::Id(source_id)),
        }
    }

    /// The stack it writes to.
    pub(crate) fn stack(&self) -> &StackRef {
        self.object().0
    }

    /// What a create or update sends.
    pub(crate) fn sent(&self) -> Option<&SourceRequest> {
        match self {
            SourceOp::Create { body, .. } | SourceOp::Update { body, .. } => Some(body),
            SourceOp::Delete { .. } => None,
        }
    }

    /// What a create or update sends, to fill in the ids of the sources it names.
    pub(crate) fn sent_mut(&mut self) -> Option<&mut SourceRequest> {
        match self {
            SourceOp::Create { body, .. } | SourceOp::Update { body, .. } => Some(body),
            SourceOp::Delete { .. } => None,
        }
    }
}

/// Shown as saved.
impl Shows for SourceOp {
    fn show<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Serialize::serialize(self, serializer)
    }
}

impl Kind for SourceOp {
    /// The source it writes, as fingerprinted.
    fn current(&self, live: &crate::live::LiveState) -> Option<serde_json::Value> {
        let (stack, key) = self.object();
        super::live::current(live, stack, key)
    }

    /// The object it touches.
    fn target(&self) -> Target<'_> {
        let (stack, key) = self.object();
        Target::Source { stack, key }
    }

    /// What it does.
    fn effect(&self) -> Effect {
        match self {
            SourceOp::Create { .. } => Effect::Create,
            SourceOp::Update { .. } => Effect::Update,
            SourceOp::Delete { .. } => Effect::Delete,
        }
    }

    /// Whether it carries out a change at `address`: a source's.
    fn fits(&self, address: &Address<'_>) -> bool {
        match self {
            SourceOp::Create { .. } | SourceOp::Update { .. } | SourceOp::Delete { .. } => {
                matches!(address, Address::Source { .. })
            }
        }
    }

    /// What it is called.
    fn name(&self) -> Name {
        let (op, verb) = match self {
            SourceOp::Create { .. } => ("source-create", "create"),
            SourceOp::Update { .. } => ("source-update", "update"),
            SourceOp::Delete { .. } => ("source-delete", "delete"),
        };
        Name {
            op,
            verb,
            object: "source",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_placeholder_reads_back_its_name() {
        let text = placeholder("Logs \"eu\"");
        assert_eq!(placeholder_name(&text).as_deref(), Some("Logs \"eu\""));
        assert_eq!(placeholder_name("65f5e4a3b9e77c001a567890"), None);
    }
}
