//! Sending a service's scaling, settings and state, and seeing scaling show (`--wait`).

use futures_util::future::BoxFuture;

use crate::api::wire::{Service, ServiceScalingPatch};
use crate::apply::sends::Sends;
use crate::apply::write::Part;
use crate::apply::write::{Context, Created, WriteError};
use crate::plan::ServiceOp;
use crate::plan::Step;

/// Sends a service operation once.
pub(crate) async fn send(
    context: &Context,
    operation: &ServiceOp,
) -> Result<Option<Created>, WriteError> {
    match operation {
        ServiceOp::Scaling { service_id, body } => {
            context
                .cloud()?
                .update_service_scaling(service_id, body)
                .await?;
        }
        ServiceOp::ReplicaScaling { service_id, body } => {
            context
                .cloud()?
                .update_service_replica_scaling(service_id, body)
                .await?;
        }
        ServiceOp::Update { service_id, body } => {
            context.cloud()?.update_service(service_id, body).await?;
        }
        ServiceOp::State { service_id, body } => {
            context
                .cloud()?
                .change_service_state(service_id, &body.command)
                .await?;
        }
    }
    Ok(None)
}

/// Whether two numbers are equal as sent and as read back (within float noise).
pub(crate) fn close(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => (a - b).abs() < 1e-9,
        _ => false,
    }
}

/// Whether a service shows every field of a scaling patch.
pub(crate) fn shows(service: &Service, patch: &ServiceScalingPatch) -> bool {
    let number = |want: Option<f64>, have: Option<f64>| want.is_none() || close(want, have);
    number(patch.num_replicas, service.num_replicas)
        && number(patch.min_total_memory_gb, service.min_total_memory_gb)
        && number(patch.max_total_memory_gb, service.max_total_memory_gb)
        && number(patch.idle_timeout_minutes, service.idle_timeout_minutes)
        && number(patch.min_replica_memory_gb, service.min_replica_memory_gb)
        && number(patch.max_replica_memory_gb, service.max_replica_memory_gb)
        && number(patch.min_replicas, service.min_replicas)
        && number(patch.max_replicas, service.max_replicas)
        && patch
            .autoscaling_mode
            .as_ref()
            .is_none_or(|want| service.autoscaling_mode.as_ref() == Some(want))
        && patch
            .idle_scaling
            .is_none_or(|want| service.idle_scaling == Some(want))
}

impl Sends for ServiceOp {
    fn send<'a>(
        &'a self,
        context: &'a Context,
        _step: &'a Step,
        _part: Part,
    ) -> BoxFuture<'a, Result<Option<Created>, WriteError>> {
        Box::pin(send(context, self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_service_shows_a_patch_only_when_every_sent_field_matches() {
        let service = Service {
            num_replicas: Some(3.0),
            idle_scaling: Some(true),
            idle_timeout_minutes: Some(15.0),
            ..Service::default()
        };
        let patch = ServiceScalingPatch {
            num_replicas: Some(3.0),
            idle_scaling: Some(true),
            ..ServiceScalingPatch::default()
        };
        assert!(shows(&service, &patch));
        let other = ServiceScalingPatch {
            idle_timeout_minutes: Some(20.0),
            ..patch
        };
        assert!(!shows(&service, &other));
    }
}
