//! Dashboards: what a dashboard step sends (create, update, delete).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::address::Address;
use crate::api::wire::DashboardRequest;
use crate::live::LiveState;
use crate::plan::kind::{Kind, Shows};
use crate::plan::target::{Effect, Key, Name, StackRef, Target};

/// A dashboard operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all_fields = "camelCase")]
pub enum DashboardOp {
    /// Dashboard create (POST on the stack's dashboards list).
    #[serde(rename = "dashboard-create")]
    Create {
        /// Where.
        stack: StackRef,
        /// The whole dashboard; tiles carry no ids.
        body: DashboardRequest,
    },
    /// Dashboard update (PUT replaces the whole object).
    #[serde(rename = "dashboard-update")]
    Update {
        /// Where.
        stack: StackRef,
        /// Dashboard id.
        dashboard_id: String,
        /// The whole dashboard; existing tiles carry their ids so alerts on them survive.
        body: DashboardRequest,
    },
    /// Dashboard delete (prune; deletes its alerts on the server too).
    #[serde(rename = "dashboard-delete")]
    Delete {
        /// Where.
        stack: StackRef,
        /// Dashboard id.
        dashboard_id: String,
    },
}

impl DashboardOp {
    /// Its stack, and how it finds its dashboard (by name for a create).
    fn object(&self) -> (&StackRef, Key<'_>) {
        match self {
            DashboardOp::Create { stack, body } => (stack, Key::Name(&body.name)),
            DashboardOp::Update {
                stack,
                dashboard_id,
                ..
            }
            | DashboardOp::Delete {
                stack,
                dashboard_id,
            } => (stack, Key::Id(dashboard_id)),
        }
    }
}

/// Shown as the saved plan stores it.
impl Shows for DashboardOp {}

impl Kind for DashboardOp {
    /// The object it touches.
    fn target(&self) -> Target<'_> {
        let (stack, key) = self.object();
        Target::Dashboard { stack, key }
    }

    /// Its dashboard as `live` holds it.
    fn current(&self, live: &LiveState) -> Option<Value> {
        let (stack, key) = self.object();
        super::live::current(live, stack, key)
    }

    /// What it does.
    fn effect(&self) -> Effect {
        match self {
            DashboardOp::Create { .. } => Effect::Create,
            DashboardOp::Update { .. } => Effect::Update,
            DashboardOp::Delete { .. } => Effect::Delete,
        }
    }

    /// Whether it carries out a change at `address` (the stack is checked by the caller).
    fn fits(&self, address: &Address<'_>) -> bool {
        match self {
            DashboardOp::Create { .. }
            | DashboardOp::Update { .. }
            | DashboardOp::Delete { .. } => {
                matches!(
                    address,
                    Address::Dashboard { .. } | Address::LiveDashboard { .. }
                )
            }
        }
    }

    /// The stack and the whole dashboard a create or update sends.
    fn dashboard_sent(&self) -> Option<(&StackRef, &DashboardRequest)> {
        match self {
            DashboardOp::Create { stack, body } | DashboardOp::Update { stack, body, .. } => {
                Some((stack, body))
            }
            DashboardOp::Delete { .. } => None,
        }
    }

    /// What it is called.
    fn name(&self) -> Name {
        let (op, verb) = match self {
            DashboardOp::Create { .. } => ("dashboard-create", "create"),
            DashboardOp::Update { .. } => ("dashboard-update", "update"),
            DashboardOp::Delete { .. } => ("dashboard-delete", "delete"),
        };
        Name {
            op,
            verb,
            object: "dashboard",
        }
    }
}
