//! Saved searches: what a saved search step sends (create, update, delete). The `PUT` is a
//! full replace, so a create and an update send the whole body.

use serde::{Deserialize, Serialize};

use crate::address::Address;
use crate::api::wire::SavedSearchRequest;
use crate::plan::kind::{Kind, Shows};
use crate::plan::target::{Effect, Key, Name, StackRef, Target};

/// A saved search operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all_fields = "camelCase")]
pub enum SavedSearchOp {
    /// `POST /api/v2/saved-searches`.
    #[serde(rename = "saved-search-create")]
    Create {
        /// Where.
        stack: StackRef,
        /// What it sends.
        body: SavedSearchRequest,
    },
    /// `PUT /api/v2/saved-searches/{id}`.
    #[serde(rename = "saved-search-update")]
    Update {
        /// Where.
        stack: StackRef,
        /// Saved search id.
        saved_search_id: String,
        /// What it sends.
        body: SavedSearchRequest,
    },
    /// `DELETE /api/v2/saved-searches/{id}` (`absent: true`).
    #[serde(rename = "saved-search-delete")]
    Delete {
        /// Where.
        stack: StackRef,
        /// Saved search id.
        saved_search_id: String,
    },
}

impl SavedSearchOp {
    /// The stack, and the key it finds its saved search by (a create's name).
    fn object(&self) -> (&StackRef, Key<'_>) {
        match self {
            SavedSearchOp::Create { stack, body } => (stack, Key::Name(&body.name)),
            SavedSearchOp::Update {
                stack,
                saved_search_id,
                ..
            }
            | SavedSearchOp::Delete {
                stack,
                saved_search_id,
            } => (stack, Key::Id(saved_search_id)),
        }
    }

    /// The stack it writes to.
    pub(crate) fn stack(&self) -> &StackRef {
        self.object().0
    }

    /// What a create or update sends.
    pub(crate) fn sent(&self) -> Option<&SavedSearchRequest> {
        match self {
            SavedSearchOp::Create { body, .. } | SavedSearchOp::Update { body, .. } => Some(body),
            SavedSearchOp::Delete { .. } => None,
        }
    }
}

/// Shown as saved: a saved search holds no secret.
impl Shows for SavedSearchOp {}

impl Kind for SavedSearchOp {
    /// The saved search it writes, as fingerprinted.
    fn current(&self, live: &crate::live::LiveState) -> Option<serde_json::Value> {
        let (stack, key) = self.object();
        super::live::current(live, stack, key)
    }

    /// The object it touches.
    fn target(&self) -> Target<'_> {
        let (stack, key) = self.object();
        Target::SavedSearch { stack, key }
    }

    /// What it does.
    fn effect(&self) -> Effect {
        match self {
            SavedSearchOp::Create { .. } => Effect::Create,
            SavedSearchOp::Update { .. } => Effect::Update,
            SavedSearchOp::Delete { .. } => Effect::Delete,
        }
    }

    /// Whether it carries out a change at `address`: a saved search's.
    fn fits(&self, address: &Address<'_>) -> bool {
        match self {
            SavedSearchOp::Create { .. }
            | SavedSearchOp::Update { .. }
            | SavedSearchOp::Delete { .. } => matches!(address, Address::SavedSearch { .. }),
        }
    }

    /// What it is called.
    fn name(&self) -> Name {
        let (op, verb) = match self {
            SavedSearchOp::Create { .. } => ("saved-search-create", "create"),
            SavedSearchOp::Update { .. } => ("saved-search-update", "update"),
            SavedSearchOp::Delete { .. } => ("saved-search-delete", "delete"),
        };
        Name {
            op,
            verb,
            object: "saved search",
        }
    }
}
