//! Alerts: what an alert step sends (create, update, delete).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::address::Address;
use crate::api::wire::AlertRequest;
use crate::live::LiveState;
use crate::plan::kind::{Kind, Shows};
use crate::plan::target::{AlertTarget, Effect, Key, Name, StackRef, Target};

/// An alert operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all_fields = "camelCase")]
pub enum AlertOp {
    /// Alert create (POST on the stack's alerts list).
    #[serde(rename = "alert-create")]
    Create {
        /// Where.
        stack: StackRef,
        /// How the dashboard and tile ids are found.
        target: AlertTarget,
        /// The request; `dashboardId`/`tileId` are set when `target` is `ids`.
        body: AlertRequest,
        /// The ids of the alerts of the same name the plan read as another stack's (on its
        /// dashboards): the check before the write does not take them for this create's.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        theirs: Vec<String>,
    },
    /// Alert update (PUT replaces the whole object).
    #[serde(rename = "alert-update")]
    Update {
        /// Where.
        stack: StackRef,
        /// Alert id.
        alert_id: String,
        /// How the dashboard and tile ids are found.
        target: AlertTarget,
        /// The whole alert.
        body: AlertRequest,
    },
    /// Alert delete (prune).
    #[serde(rename = "alert-delete")]
    Delete {
        /// Where.
        stack: StackRef,
        /// Alert id.
        alert_id: String,
    },
}

impl AlertOp {
    /// Its stack, how it finds its alert, and for a create the alerts of its name another
    /// stack owns (never the object it creates).
    pub(super) fn object(&self) -> (&StackRef, Key<'_>, &[String]) {
        match self {
            AlertOp::Create {
                stack,
                body,
                theirs,
                ..
            } => (
                stack,
                Key::Name(body.name.as_deref().unwrap_or_default()),
                theirs,
            ),
            AlertOp::Update {
                stack, alert_id, ..
            }
            | AlertOp::Delete { stack, alert_id } => (stack, Key::Id(alert_id), &[]),
        }
    }
}

/// Shown as the saved plan stores it.
impl Shows for AlertOp {}

impl Kind for AlertOp {
    /// The object it touches.
    fn target(&self) -> Target<'_> {
        let (stack, key, theirs) = self.object();
        Target::Alert { stack, key, theirs }
    }

    /// Its alert as `live` holds it.
    fn current(&self, live: &LiveState) -> Option<Value> {
        let (stack, key, theirs) = self.object();
        super::live::current(live, stack, key, theirs)
    }

    /// What it does.
    fn effect(&self) -> Effect {
        match self {
            AlertOp::Create { .. } => Effect::Create,
            AlertOp::Update { .. } => Effect::Update,
            AlertOp::Delete { .. } => Effect::Delete,
        }
    }

    /// Whether it carries out a change at `address` (the stack is checked by the caller).
    fn fits(&self, address: &Address<'_>) -> bool {
        match self {
            AlertOp::Create { .. } | AlertOp::Update { .. } | AlertOp::Delete { .. } => {
                matches!(address, Address::Alert { .. } | Address::LiveAlert { .. })
            }
        }
    }

    /// What it is called.
    fn name(&self) -> Name {
        let (op, verb) = match self {
            AlertOp::Create { .. } => ("alert-create", "create"),
            AlertOp::Update { .. } => ("alert-update", "update"),
            AlertOp::Delete { .. } => ("alert-delete", "delete"),
        };
        Name {
            op,
            verb,
            object: "alert",
        }
    }

    /// The stack and the name of the dashboard a create or update finds by name (its ids
    /// looked up when it runs): a step of this plan that writes that dashboard goes first.
    fn dashboard_by_name(&self) -> Option<(&StackRef, &str)> {
        match self.written() {
            Some((AlertTarget::Names { dashboard, .. }, _)) => Some((self.stack(), dashboard)),
            Some((AlertTarget::Ids, _)) | None => None,
        }
    }
}

impl AlertOp {
    /// The stack it writes to.
    pub(crate) fn stack(&self) -> &StackRef {
        match self {
            AlertOp::Create { stack, .. }
            | AlertOp::Update { stack, .. }
            | AlertOp::Delete { stack, .. } => stack,
        }
    }

    /// How the dashboard and tile are found, and the body, for a create or update.
    pub(crate) fn written(&self) -> Option<(&AlertTarget, &AlertRequest)> {
        match self {
            AlertOp::Create { target, body, .. } | AlertOp::Update { target, body, .. } => {
                Some((target, body))
            }
            AlertOp::Delete { .. } => None,
        }
    }

    /// The same, to change in place.
    pub(crate) fn written_mut(&mut self) -> Option<(&mut AlertTarget, &mut AlertRequest)> {
        match self {
            AlertOp::Create { target, body, .. } | AlertOp::Update { target, body, .. } => {
                Some((target, body))
            }
            AlertOp::Delete { .. } => None,
        }
    }
}
