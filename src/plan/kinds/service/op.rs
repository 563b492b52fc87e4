//! Services: what a service step sends: its scaling, through `replicaScaling` (per-replica
//! memory and the autoscaling mode) or, for a config that still writes the deprecated totals,
//! through `scaling`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::address::{Address, Member};
use crate::api::wire::{
    EndpointChange, IpAccessEntry, IpAccessListPatch, ResourceTag, ServicePatch,
    ServiceScalingPatch, StatePatch, TagsPatch,
};
use crate::live::LiveState;
use crate::plan::kind::{Kind, Shows};
use crate::plan::target::{Effect, Name, ScalingWrite, Target};

/// The fields of the deprecated `scaling` route, as the change lists them (wire names).
pub(crate) const SCALING_FIELDS: &[&str] = &[
    "numReplicas",
    "idleScaling",
    "idleTimeoutMinutes",
    "minTotalMemoryGb",
    "maxTotalMemoryGb",
];

/// The fields of `replicaScaling`, as the change lists them (wire names).
pub(crate) const REPLICA_SCALING_FIELDS: &[&str] = &[
    "autoscalingMode",
    "numReplicas",
    "minReplicas",
    "maxReplicas",
    "minReplicaMemoryGb",
    "maxReplicaMemoryGb",
    "idleScaling",
    "idleTimeoutMinutes",
];

/// A service operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all_fields = "camelCase")]
pub enum ServiceOp {
    /// `PATCH /services/{serviceId}/scaling`.
    #[serde(rename = "service-scaling")]
    Scaling {
        /// Service id.
        service_id: String,
        /// Only the fields that differ.
        body: ServiceScalingPatch,
    },
    /// `PATCH /services/{serviceId}/replicaScaling`.
    #[serde(rename = "service-replica-scaling")]
    ReplicaScaling {
        /// Service id.
        service_id: String,
        /// Only the fields that differ.
        body: ServiceScalingPatch,
    },
    /// `PATCH /services/{serviceId}` with one member of the service's settings: the IP access
    /// list or the tags as `{add, remove}` deltas, the release channel, the `mysql` endpoint.
    #[serde(rename = "service-update")]
    Update {
        /// Service id.
        service_id: String,
        /// One member, only what differs.
        body: ServicePatch,
    },
    /// `PATCH /services/{serviceId}/state` with `start` or `stop`.
    #[serde(rename = "service-state")]
    State {
        /// Service id.
        service_id: String,
        /// The command.
        body: StatePatch,
    },
}

impl ServiceOp {
    /// The fields a change carried out by this operation may list: its route's (the saved-plan
    /// check refuses any other).
    pub(crate) fn route_fields(&self) -> &'static [&'static str] {
        match self {
            ServiceOp::Scaling { .. } => SCALING_FIELDS,
            ServiceOp::ReplicaScaling { .. } => REPLICA_SCALING_FIELDS,
            ServiceOp::Update { .. } | ServiceOp::State { .. } => &[],
        }
    }

    /// The service it writes to.
    pub(crate) fn service_id(&self) -> &str {
        match self {
            ServiceOp::Scaling { service_id, .. }
            | ServiceOp::ReplicaScaling { service_id, .. }
            | ServiceOp::Update { service_id, .. }
            | ServiceOp::State { service_id, .. } => service_id,
        }
    }

    /// The member of the service's settings it writes; `None` for scaling.
    pub(crate) fn member(&self) -> Option<Member> {
        match self {
            ServiceOp::Scaling { .. } | ServiceOp::ReplicaScaling { .. } => None,
            ServiceOp::Update { body, .. } => Some(updated_member(body)),
            ServiceOp::State { .. } => Some(Member::State),
        }
    }
}

/// The member a settings body writes (the planner sends one a step).
fn updated_member(body: &ServicePatch) -> Member {
    if body.name.is_some() {
        Member::Name
    } else if body.tags.is_some() {
        Member::Tags
    } else if body.release_channel.is_some() {
        Member::ReleaseChannel
    } else if body.endpoints.is_some() {
        Member::Endpoints
    } else {
        Member::IpAccessList
    }
}

/// Shown as the saved plan stores it.
impl Shows for ServiceOp {}

impl Kind for ServiceOp {
    /// The object it touches.
    fn target(&self) -> Target<'_> {
        let service_id = self.service_id();
        match self.member() {
            None => Target::Service { service_id },
            Some(member) => Target::ServiceMember { service_id, member },
        }
    }

    /// Its service, as the member it writes (or its scaling) is compared.
    fn current(&self, live: &LiveState) -> Option<Value> {
        super::live::current(live, self.service_id(), self.member())
    }

    /// What it does.
    fn effect(&self) -> Effect {
        match self {
            ServiceOp::Scaling { .. }
            | ServiceOp::ReplicaScaling { .. }
            | ServiceOp::Update { .. }
            | ServiceOp::State { .. } => Effect::Update,
        }
    }

    /// Whether it carries out a change at `address`.
    fn fits(&self, address: &Address<'_>) -> bool {
        match self {
            ServiceOp::Scaling { .. } | ServiceOp::ReplicaScaling { .. } => {
                matches!(address, Address::ServiceScaling { .. })
            }
            ServiceOp::Update { .. } | ServiceOp::State { .. } => matches!(
                address,
                Address::ServiceMember { member, .. } if Some(*member) == self.member()
            ),
        }
    }

    /// The scaling it writes, for `apply --wait`.
    fn scaling_written(&self) -> Option<ScalingWrite<'_>> {
        match self {
            ServiceOp::Scaling { service_id, body }
            | ServiceOp::ReplicaScaling { service_id, body } => {
                Some(ScalingWrite::Service { service_id, body })
            }
            ServiceOp::Update { .. } | ServiceOp::State { .. } => None,
        }
    }

    /// What it is called.
    fn name(&self) -> Name {
        match self {
            ServiceOp::Scaling { .. } => Name {
                op: "service-scaling",
                verb: "update",
                object: "service scaling",
            },
            ServiceOp::ReplicaScaling { .. } => Name {
                op: "service-replica-scaling",
                verb: "update",
                object: "service scaling",
            },
            ServiceOp::Update { .. } => Name {
                op: "service-update",
                verb: "update",
                object: "service settings",
            },
            ServiceOp::State { body, .. } => Name {
                op: "service-state",
                verb: if body.command == "stop" {
                    "stop"
                } else {
                    "start"
                },
                object: "service",
            },
        }
    }
}

/// The scaling body that writes each `(field, desired value)`: the planner builds it from a
/// change's fields, the saved-plan check builds it again from the saved change and compares.
/// Which route's fields a change may list is the check's (`SCALING_FIELDS`,
/// `REPLICA_SCALING_FIELDS`).
pub(crate) fn scaling_body<'a>(
    fields: impl IntoIterator<Item = (&'a str, Option<&'a Value>)>,
) -> ServiceScalingPatch {
    let mut body = ServiceScalingPatch::default();
    for (path, after) in fields {
        let number = after.and_then(Value::as_f64);
        match path {
            "numReplicas" => body.num_replicas = number,
            "idleScaling" => body.idle_scaling = after.and_then(Value::as_bool),
            "idleTimeoutMinutes" => body.idle_timeout_minutes = number,
            "minTotalMemoryGb" => body.min_total_memory_gb = number,
            "maxTotalMemoryGb" => body.max_total_memory_gb = number,
            "minReplicaMemoryGb" => body.min_replica_memory_gb = number,
            "maxReplicaMemoryGb" => body.max_replica_memory_gb = number,
            "minReplicas" => body.min_replicas = number,
            "maxReplicas" => body.max_replicas = number,
            "autoscalingMode" => {
                body.autoscaling_mode = after.and_then(Value::as_str).map(String::from)
            }
            _ => {}
        }
    }
    body
}

/// The body that writes member `member` from a change's `(field, before, after)`: the
/// planner builds it, the saved-plan check builds it again from the saved change and
/// compares. An IP access list entry or a tag that differs is removed as it was and added as
/// it is wanted (the document's `remove` runs before `add`), so a description change is one
/// remove and one add of that entry, and nothing else of the list is sent.
pub(crate) fn member_body<'a>(
    member: Member,
    fields: impl IntoIterator<Item = (&'a str, Option<&'a Value>, Option<&'a Value>)>,
) -> ServicePatch {
    let mut body = ServicePatch::default();
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(String::from);
    for (path, before, after) in fields {
        match member {
            Member::IpAccessList => {
                let Some(source) = path.strip_prefix("ipAccessList.") else {
                    continue;
                };
                let list = body
                    .ip_access_list
                    .get_or_insert_with(IpAccessListPatch::default);
                let entry = |description: String| IpAccessEntry {
                    source: source.to_string(),
                    description,
                };
                list.remove.extend(text(before).map(entry));
                list.add.extend(text(after).map(entry));
            }
            Member::Tags => {
                let Some(key) = path.strip_prefix("tags.") else {
                    continue;
                };
                let tags = body.tags.get_or_insert_with(TagsPatch::default);
                let tag = |value: String| ResourceTag {
                    key: key.to_string(),
                    value: Some(value).filter(|v| !v.is_empty()),
                };
                tags.remove.extend(text(before).map(tag));
                tags.add.extend(text(after).map(tag));
            }
            Member::Name => body.name = text(after),
            Member::ReleaseChannel => body.release_channel = text(after),
            Member::Endpoints => {
                let enabled = after.and_then(Value::as_bool);
                if let (Some("endpoints.mysql"), Some(enabled)) = (Some(path), enabled) {
                    body.endpoints = Some(vec![EndpointChange {
                        protocol: "mysql".into(),
                        enabled,
                    }]);
                }
            }
            Member::State => {}
        }
    }
    body
}

/// The state command that makes a service `wanted` (`running` or `stopped`).
pub(crate) fn state_body(wanted: &str) -> StatePatch {
    StatePatch {
        command: if wanted == "stopped" { "stop" } else { "start" }.into(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_changed_entry_is_one_remove_and_one_add_and_nothing_else_is_sent() {
        let (old, new) = (json!("office VPN"), json!("office"));
        let added = json!("ci");
        let body = member_body(
            Member::IpAccessList,
            [
                ("ipAccessList.10.0.0.0/8", Some(&old), Some(&new)),
                ("ipAccessList.198.51.100.0/24", None, Some(&added)),
            ],
        );
        assert_eq!(
            serde_json::to_value(&body).unwrap(),
            json!({"ipAccessList": {
                "add": [{"source": "10.0.0.0/8", "description": "office"},
                        {"source": "198.51.100.0/24", "description": "ci"}],
                "remove": [{"source": "10.0.0.0/8", "description": "office VPN"}]
            }})
        );
        assert_eq!(updated_member(&body), Member::IpAccessList);
    }

    #[test]
    fn a_tag_without_a_value_is_sent_without_one() {
        let (empty, value) = (json!(""), json!("data"));
        let body = member_body(
            Member::Tags,
            [
                ("tags.pci", None, Some(&empty)),
                ("tags.team", Some(&value), None),
            ],
        );
        assert_eq!(
            serde_json::to_value(&body).unwrap(),
            json!({"tags": {"add": [{"key": "pci"}], "remove": [{"key": "team", "value": "data"}]}})
        );
        assert_eq!(updated_member(&body), Member::Tags);
        assert_eq!(state_body("stopped").command, "stop");
        assert_eq!(state_body("running").command, "start");
    }
}
