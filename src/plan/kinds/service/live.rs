//! The live side of services: a service's scaling and its own settings as the planner
//! compares them and the fingerprint hashes ([`Live`] on [`Service`], its scaling), with the
//! server's defaults on both sides: `idleScaling` absent is `true` (the contract's default),
//! `autoscalingMode` absent is `vertical`, the release channel absent is `default`.

use serde_json::{Map, Value, json};

use crate::address::Member;
use crate::api::wire::Service;
use crate::config::service_settings_rules::RESERVED_TAG_PREFIX;
use crate::live::LiveState;
use crate::plan::kind::Live;
use crate::plan::normalize::{num, put};

impl Live for Service {
    /// Its scaling (address `service.<key>.scaling`).
    fn fingerprinted(&self) -> Value {
        service_scaling(self)
    }
}

/// The service of id `service_id` in `live`, as the member `member` (or, with none, its
/// scaling) is compared: what a step that writes it finds now.
pub(crate) fn current(live: &LiveState, service_id: &str, member: Option<Member>) -> Option<Value> {
    let service = live.services.get(service_id)?;
    Some(member.map_or_else(|| service.fingerprinted(), |m| service_member(service, m)))
}

/// A service's scaling fields (`service.<key>.scaling`).
pub(crate) fn service_scaling(service: &Service) -> Value {
    let mut map = Map::new();
    put(&mut map, "numReplicas", service.num_replicas.map(num));
    put(
        &mut map,
        "idleScaling",
        Some(Value::Bool(service.idle_scaling.unwrap_or(true))),
    );
    put(
        &mut map,
        "idleTimeoutMinutes",
        service.idle_timeout_minutes.map(num),
    );
    put(
        &mut map,
        "minTotalMemoryGb",
        service.min_total_memory_gb.map(num),
    );
    put(
        &mut map,
        "maxTotalMemoryGb",
        service.max_total_memory_gb.map(num),
    );
    let mode = service.autoscaling_mode.as_deref().unwrap_or("vertical");
    put(&mut map, "autoscalingMode", Some(Value::from(mode)));
    put(&mut map, "minReplicas", service.min_replicas.map(num));
    put(&mut map, "maxReplicas", service.max_replicas.map(num));
    let memory = [
        ("minReplicaMemoryGb", service.min_replica_memory_gb),
        ("maxReplicaMemoryGb", service.max_replica_memory_gb),
    ];
    for (key, value) in memory {
        put(&mut map, key, value.map(num));
    }
    Value::Object(map)
}

/// One member of a service's own settings as the server stores it, keyed by its config name
/// (`{"tags": {...}}`), so a change's fields read as the config writes them (`tags.team`):
/// the IP access list as source to description (`""` when none; order is not kept), the
/// tags as key to value without converge's own (`converge.*`, never the config's), the
/// release channel `default` when absent, the `mysql` endpoint on when the service lists
/// it, and the state as `running` or `stopped` (an idle, awaking or starting service is
/// running: `--wake` is what wakes one).
pub(crate) fn service_member(service: &Service, member: Member) -> Value {
    let value = match member {
        Member::Name => Value::from(service.name.as_str()),
        Member::IpAccessList => Value::Object(
            service
                .ip_access_list
                .iter()
                .map(|e| (e.source.clone(), Value::from(e.description.as_str())))
                .collect(),
        ),
        Member::Tags => Value::Object(
            service
                .tags
                .iter()
                .filter(|t| !t.key.starts_with(RESERVED_TAG_PREFIX))
                .map(|t| {
                    (
                        t.key.clone(),
                        Value::from(t.value.clone().unwrap_or_default()),
                    )
                })
                .collect(),
        ),
        Member::ReleaseChannel => Value::from(
            service
                .release_channel
                .as_deref()
                .filter(|c| !c.is_empty())
                .unwrap_or("default"),
        ),
        Member::Endpoints => json!({
            "mysql": service.endpoints.iter().any(|e| e.protocol.as_deref() == Some("mysql"))
        }),
        Member::State => Value::from(running_or_stopped(service.state.as_deref())),
    };
    json!({ member.as_str(): value })
}

/// A service's state as `state:` compares it: `stopped` while stopped or stopping, `running`
/// otherwise.
pub(crate) fn running_or_stopped(state: Option<&str>) -> &'static str {
    match state {
        Some("stopped" | "stopping") => "stopped",
        _ => "running",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_scaling_drops_server_fields_and_defaults_idle_scaling() {
        let service = Service {
            id: "s".into(),
            state: Some("running".into()),
            num_replicas: Some(3.0),
            ..Default::default()
        };
        assert_eq!(
            service_scaling(&service),
            json!({"numReplicas": 3, "idleScaling": true, "autoscalingMode": "vertical"})
        );
    }
}
