//! The credential versions a run's pipe creates sent, recorded on their services' tags once
//! every step has run: one `PATCH` per service for all of its creates.

use crate::api::wire::{ResourceTag, ServicePatch, TagsPatch};
use crate::apply::write::{Context, Version, WriteError};
use crate::plan::Step;
use crate::plan::kinds::pipe::op;

/// Notes that credentials of `version` were sent to the new pipe `pipe_id`, to be recorded with
/// the other creates of its service ([`record_versions`]).
pub(super) fn note_version(
    context: &Context,
    step: &Step,
    service_id: &str,
    pipe_id: &str,
    version: i64,
) {
    context.note_version(Version {
        step: step.id,
        service_id: service_id.to_string(),
        pipe_id: pipe_id.to_string(),
        version,
    });
}

/// Records the credential versions the run's creates sent, once every step has run: one
/// `PATCH` of each service's tags for all of its creates ([`op::version_tag`]). A step whose
/// tag could not be recorded fails (its index and message are returned), saying the next plan rotates its credentials again.
pub(crate) async fn record_versions(
    context: &Context,
    versions: Vec<Version>,
) -> Vec<(usize, String)> {
    let mut by_service: std::collections::BTreeMap<&str, Vec<&Version>> = Default::default();
    for version in &versions {
        by_service
            .entry(version.service_id.as_str())
            .or_default()
            .push(version);
    }
    let mut failed = Vec::new();
    for (service_id, versions) in by_service {
        let patch = ServicePatch {
            tags: Some(TagsPatch {
                add: versions
                    .iter()
                    .map(|version| ResourceTag {
                        key: op::version_tag(&version.pipe_id),
                        value: Some(version.version.to_string()),
                    })
                    .collect(),
                remove: Vec::new(),
            }),
            ..ServicePatch::default()
        };
        let sent = match context.cloud() {
            Ok(cloud) => cloud
                .update_service_tags(service_id, &patch)
                .await
                .map_err(|error| error.to_string()),
            Err(WriteError::Api(error)) => Err(error.to_string()),
            Err(WriteError::Other(error)) => Err(error),
        };
        if let Err(error) = sent {
            failed.extend(versions.iter().map(|version| {
                let message = format!(
                    "the credentials were sent, but recording `credentialsVersion: {}` on the \
                     service failed: {error}; the next plan rotates them again",
                    version.version
                );
                (version.step, message)
            }));
        }
    }
    failed
}
