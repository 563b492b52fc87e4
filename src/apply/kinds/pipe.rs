//! Sending a pipe's write: a pipe changes only while its service runs, so a 424 wakes the
//! service first (`--wake`) or says how to; `--wait` sees its scaling show.

use super::service::close;
use crate::api::wire::{Pipe, PipeScalingPatch, ResourceTag, ServicePatch, TagsPatch};
use futures_util::future::BoxFuture;

use crate::apply::sends::Sends;
use crate::apply::write::{Context, Created, Doubles, Part, StepError, WriteError};

mod calls;
mod doubles;
mod endpoints;
mod lifecycle;
mod versions;
use calls::{Since, awake, find};
pub(crate) use doubles::doubles;
use lifecycle::{Named, lifecycle};
use serde_json::Value;
use versions::note_version;
pub(crate) use versions::record_versions;

use crate::config::interpolate::secret_reference;
use crate::plan::kinds::pipe::op::{self, CredentialRef, SealedCredential};
use crate::plan::{Operation, PipeOp, Step};

/// Sends `part` of a pipe operation, waking its service first when it is idle and `--wake`
/// was given.
pub(crate) async fn send(
    context: &Context,
    step: &Step,
    operation: &PipeOp,
    part: Part,
) -> Result<Option<Created>, WriteError> {
    let service_id = operation.service_id();
    awake(context, step, service_id, || {
        pipe_write(context, step, operation, part)
    })
    .await
}

/// Sends `stop` to a pipe just created (`state: stopped`; the create body takes no state).
/// Once the pipe exists, a failure is said, never answered by creating it again.
async fn stop_created(
    context: &Context,
    step: &Step,
    service_id: &str,
    pipe_id: &str,
    name: &str,
) -> Result<(), WriteError> {
    let cloud = context.cloud()?;
    let stop = || async {
        cloud
            .pipe_command(service_id, pipe_id, "stop")
            .await
            .map(|_| ())
            .map_err(WriteError::Api)
    };
    awake(context, step, service_id, stop)
        .await
        .map_err(|error| {
            WriteError::Other(format!(
                "pipe `{name}` was created, but stopping it (`state: stopped`) failed: {}; \
                 `converge plan` shows the stop that is left",
                said(error)
            ))
        })
}

/// A write error as a message says it.
fn said(error: WriteError) -> String {
    match error {
        WriteError::Api(error) => error.to_string(),
        WriteError::Other(error) => error,
    }
}

/// Sends `part` of `operation`; a create (or a replacement's create half) answers the pipe it
/// made, whose copies the engine then looks for.
async fn pipe_write(
    context: &Context,
    step: &Step,
    operation: &PipeOp,
    part: Part,
) -> Result<Option<Created>, WriteError> {
    match operation {
        PipeOp::Create {
            service_id,
            name,
            body,
            credentials,
            credentials_version,
            stopped,
        } => {
            let body = with_credentials(body, credentials, &Environment::of(context))?;
            let created = context.cloud()?.create_pipe(service_id, &body).await?;
            if let Some(version) = credentials_version {
                note_version(context, step, service_id, &created.id, *version);
            }
            if *stopped {
                stop_created(context, step, service_id, &created.id, name).await?;
            }
            return Ok(Some(Created {
                id: created.id,
                name: created.name,
            }));
        }
        PipeOp::Replace {
            service_id,
            pipe_id,
            name,
            body,
            credentials,
            credentials_version,
            version_tag,
            stopped,
        } => {
            let replacing = Replacing {
                service_id,
                pipe_id,
                name,
                body,
                credentials,
                credentials_version: *credentials_version,
                version_tag: version_tag.as_deref(),
                stopped: *stopped,
            };
            return replace(context, step, &replacing, part).await;
        }
        PipeOp::Rotate { .. } | PipeOp::Lifecycle { .. } => edit(context, step, operation).await?,
        PipeOp::Update { .. }
        | PipeOp::Scaling { .. }
        | PipeOp::Delete { .. }
        | PipeOp::Settings { .. }
        | PipeOp::Compute { .. }
        | PipeOp::Resync { .. } => one_request(context, operation).await?,
    }
    Ok(None)
}

/// The pipe operations that edit a live pipe over several requests: a rotation (the `PATCH`,
/// then its version recorded) and a lifecycle (stop, `PATCH`, start).
async fn edit(context: &Context, step: &Step, operation: &PipeOp) -> Result<(), WriteError> {
    match operation {
        PipeOp::Rotate {
            service_id,
            pipe_id,
            version,
            recorded,
            body,
            salt,
            credentials,
        } => {
            let versions = (*version, *recorded);
            rotate(
                context,
                service_id,
                pipe_id,
                versions,
                body,
                salt,
                credentials,
            )
            .await?;
        }
        PipeOp::Lifecycle {
            service_id,
            pipe_id,
            name,
            body,
            pause,
            keep,
        } => {
            let pipe = Named {
                service_id,
                pipe_id,
                name,
                step,
            };
            lifecycle(context, &pipe, body, *pause, *keep).await?;
        }
        // Sent by `pipe_write` and `one_request`.
        PipeOp::Create { .. }
        | PipeOp::Replace { .. }
        | PipeOp::Update { .. }
        | PipeOp::Scaling { .. }
        | PipeOp::Delete { .. }
        | PipeOp::Settings { .. }
        | PipeOp::Compute { .. }
        | PipeOp::Resync { .. } => {}
    }
    Ok(())
}

/// A rotation: the credentials approved (each value the one the plan was made with) sent with
/// the in-place members, then `versions.0` recorded over the one before (`versions.1`).
async fn rotate(
    context: &Context,
    service_id: &str,
    pipe_id: &str,
    versions: (i64, Option<i64>),
    body: &Value,
    salt: &str,
    credentials: &[SealedCredential],
) -> Result<(), WriteError> {
    let (version, recorded) = versions;
    let refs = approved(credentials, (salt, "credential", "the rotation"), |name| {
        std::env::var(name).ok()
    })?;
    let body = with_credentials(body, &refs, &Environment::of(context))?;
    context
        .cloud()?
        .update_pipe(service_id, pipe_id, &body)
        .await?;
    let key = op::version_tag(pipe_id);
    let stale = recorded.map(|_| key.clone());
    record_version(context, service_id, pipe_id, stale, version).await
}

/// The pipe operations sent as one request (a delete with its version tag's removal).
async fn one_request(context: &Context, operation: &PipeOp) -> Result<(), WriteError> {
    let cloud = context.cloud()?;
    match operation {
        PipeOp::Update {
            service_id,
            pipe_id,
            body,
        } => {
            cloud.update_pipe(service_id, pipe_id, body).await?;
        }
        PipeOp::Scaling {
            service_id,
            pipe_id,
            body,
        } => {
            cloud.update_pipe_scaling(service_id, pipe_id, body).await?;
        }
        PipeOp::Delete {
            service_id,
            pipe_id,
            version_tag,
        } => {
            match cloud.delete_pipe(service_id, pipe_id).await {
                // Gone already (another run removed the same copy): what the delete wanted.
                Err(error) if error.status() == Some(404) => {}
                other => other.map(|_| ())?,
            }
            if let Some(tag) = version_tag {
                forget_version(context, service_id, tag).await?;
            }
        }
        PipeOp::Settings {
            service_id,
            pipe_id,
            body,
        } => {
            cloud.put_pipe_settings(service_id, pipe_id, body).await?;
        }
        PipeOp::Compute { service_id, body } => {
            cloud.update_pipe_compute(service_id, body).await?;
        }
        PipeOp::Resync {
            service_id,
            pipe_id,
        } => {
            cloud.pipe_command(service_id, pipe_id, "resync").await?;
        }
        // Several requests each, sent by `pipe_write`.
        PipeOp::Create { .. }
        | PipeOp::Replace { .. }
        | PipeOp::Rotate { .. }
        | PipeOp::Lifecycle { .. } => {}
    }
    Ok(())
}

/// `part` of a replacement: the delete, up to the old pipe being gone (the whole, which the
/// engine never asks of a replacement, is the same), or the create once it is. The create's
/// failure is the server's as it came ([`crate::apply::step`] says what is left, after a
/// re-read when the answer was lost).
async fn replace(
    context: &Context,
    step: &Step,
    replacing: &Replacing<'_>,
    part: Part,
) -> Result<Option<Created>, WriteError> {
    let Replacing {
        service_id,
        pipe_id,
        name,
        body,
        credentials,
        ..
    } = *replacing;
    // Read before anything is deleted: a missing variable must not leave the pipe gone.
    let body = with_credentials(body, credentials, &Environment::of(context))?;
    let cloud = context.cloud()?;
    if part != Part::Create {
        // The check right before this write read the pipe in its service's list; a resent
        // delete, or one racing another run replacing it too, finds it gone (404).
        match cloud.delete_pipe(service_id, pipe_id).await {
            Err(error) if error.status() == Some(404) => {}
            other => other.map(|_| ())?,
        }
        return until_gone(context, service_id, pipe_id, name)
            .await
            .map(|()| None);
    }
    // The service may have gone idle since the delete: woken like any pipe write.
    let create = || async {
        cloud
            .create_pipe(service_id, &body)
            .await
            .map_err(WriteError::Api)
    };
    let created = awake(context, step, service_id, create).await?;
    after_replaced(context, step, replacing, &created.id).await?;
    Ok(Some(Created {
        id: created.id,
        name: created.name,
    }))
}

/// What follows a replacement's create (answered, or found by a re-read): the credentials
/// version recorded for the new pipe over the old one's tag, and its stop when declared
/// `state: stopped`.
async fn after_replaced(
    context: &Context,
    step: &Step,
    replacing: &Replacing<'_>,
    new_id: &str,
) -> Result<(), WriteError> {
    let service_id = replacing.service_id;
    match (replacing.credentials_version, replacing.version_tag) {
        (Some(version), old) => {
            let old = old.map(str::to_string);
            record_version(context, service_id, new_id, old, version).await?;
        }
        (None, Some(old)) => forget_version(context, service_id, old).await?,
        (None, None) => {}
    }
    if replacing.stopped {
        stop_created(context, step, service_id, new_id, replacing.name).await?;
    }
    Ok(())
}

/// A [`PipeOp::Replace`], borrowed.
#[derive(Clone, Copy)]
struct Replacing<'a> {
    service_id: &'a str,
    pipe_id: &'a str,
    name: &'a str,
    body: &'a Value,
    credentials: &'a [CredentialRef],
    credentials_version: Option<i64>,
    version_tag: Option<&'a str>,
    stopped: bool,
}

/// Polls until a deleted pipe is no longer listed (the API answers a delete before teardown
/// ends, and a pipe of the same name cannot be created while the old one is there), bounded by
/// `--timeout`.
async fn until_gone(
    context: &Context,
    service_id: &str,
    pipe_id: &str,
    name: &str,
) -> Result<(), WriteError> {
    let (timeout, poll) = context.patience();
    let deadline = tokio::time::Instant::now().checked_add(timeout);
    while find(context, service_id, pipe_id, Since::Now)
        .await?
        .is_some()
    {
        if deadline.is_some_and(|d| tokio::time::Instant::now() >= d) {
            return Err(WriteError::Other(format!(
                "pipe `{name}` was deleted but is still listed after {}s (`--timeout`); \
                 `converge plan` shows what is left once it is gone",
                timeout.as_secs()
            )));
        }
        tokio::time::sleep(poll).await;
    }
    Ok(())
}

/// Records on the service that credentials of `version` were sent to pipe `pipe_id`
/// ([`op::version_tag`]), removing the tag `stale` first (the version before, or the tag of the
/// pipe a replacement deleted).
async fn record_version(
    context: &Context,
    service_id: &str,
    pipe_id: &str,
    stale: Option<String>,
    version: i64,
) -> Result<(), WriteError> {
    let patch = ServicePatch {
        tags: Some(TagsPatch {
            add: vec![ResourceTag {
                key: op::version_tag(pipe_id),
                value: Some(version.to_string()),
            }],
            remove: stale
                .into_iter()
                .map(|key| ResourceTag { key, value: None })
                .collect(),
        }),
        ..ServicePatch::default()
    };
    context
        .cloud()?
        .update_service_tags(service_id, &patch)
        .await
        .map_err(|error| {
            WriteError::Other(format!(
                "the credentials were sent, but recording `credentialsVersion: {version}` on the \
                 service failed: {error}; the next plan rotates them again"
            ))
        })?;
    Ok(())
}

/// Removes from the service the version tag of a pipe that was deleted.
async fn forget_version(context: &Context, service_id: &str, tag: &str) -> Result<(), WriteError> {
    let patch = ServicePatch {
        tags: Some(TagsPatch {
            add: Vec::new(),
            remove: vec![ResourceTag {
                key: tag.to_string(),
                value: None,
            }],
        }),
        ..ServicePatch::default()
    };
    context
        .cloud()?
        .update_service_tags(service_id, &patch)
        .await
        .map_err(|error| {
            WriteError::Other(format!(
                "the pipe was deleted, but removing its tag `{tag}` from the service failed: \
                 {error}; the tag names no pipe and is left for a person to remove"
            ))
        })?;
    Ok(())
}

/// After a re-read found a create (or a replacement's create) whose answer was lost: records
/// the `credentialsVersion` the answered create would have ([`op::version_tag`]), so the next
/// plan does not rotate the credentials the create just sent, and stops a pipe declared
/// `state: stopped`, as the answered create would.
pub(crate) async fn found_created(
    context: &Context,
    step: &Step,
    operation: &PipeOp,
    live: &crate::live::LiveState,
) -> Result<(), WriteError> {
    let named = |service_id: &str, name: &str| {
        live.pipes
            .get(service_id)
            .and_then(|pipes| pipes.iter().find(|pipe| pipe.name == name))
            .map(|pipe| pipe.id.clone())
    };
    match operation {
        PipeOp::Create {
            service_id,
            name,
            credentials_version,
            stopped,
            ..
        } => {
            let Some(id) = named(service_id, name) else {
                return Ok(());
            };
            if let Some(version) = credentials_version {
                note_version(context, step, service_id, &id, *version);
            }
            if *stopped {
                stop_created(context, step, service_id, &id, name).await?;
            }
        }
        PipeOp::Replace {
            service_id,
            pipe_id,
            name,
            body,
            credentials,
            credentials_version,
            version_tag,
            stopped,
        } => {
            let Some(id) = named(service_id, name) else {
                return Ok(());
            };
            let replacing = Replacing {
                service_id,
                pipe_id,
                name,
                body,
                credentials,
                credentials_version: *credentials_version,
                version_tag: version_tag.as_deref(),
                stopped: *stopped,
            };
            after_replaced(context, step, &replacing, &id).await?;
        }
        PipeOp::Update { .. }
        | PipeOp::Scaling { .. }
        | PipeOp::Delete { .. }
        | PipeOp::Rotate { .. }
        | PipeOp::Lifecycle { .. }
        | PipeOp::Resync { .. }
        | PipeOp::Settings { .. }
        | PipeOp::Compute { .. } => {}
    }
    Ok(())
}

/// The references of a rotation's credentials, once each value read now is the one the plan
/// was made with: a saved plan applies only the secret its reviewer approved.
/// `salt` with what each credential is called in messages (`credential`) and what was approved
/// (`the rotation`).
pub(super) fn approved(
    credentials: &[SealedCredential],
    (salt, noun, approval): (&str, &str, &str),
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<Vec<CredentialRef>, WriteError> {
    credentials
        .iter()
        .map(|credential| {
            let value = secret_reference(&credential.reference)
                .and_then(&lookup)
                .ok_or_else(|| {
                    WriteError::Other(format!(
                        "{noun} `{}` is read from `{}`, which is not set: set it and apply again",
                        credential.path, credential.reference
                    ))
                })?;
            if op::fingerprint_of(salt, &value) != credential.fingerprint {
                return Err(WriteError::Other(format!(
                    "{noun} `{}` (`{}`) is not the value this plan was made with: {approval} \
                     was approved for another secret; make a new plan",
                    credential.path, credential.reference
                )));
            }
            Ok(CredentialRef {
                path: credential.path.clone(),
                reference: credential.reference.clone(),
            })
        })
        .collect()
}

/// Where a step's credentials are read from: the process environment, against the APIs of
/// the run, which tell a value to be one of converge's own secrets (the key secret or token
/// the run authenticates with).
struct Environment<'a> {
    context: &'a Context,
}

impl<'a> Environment<'a> {
    fn of(context: &'a Context) -> Self {
        Environment { context }
    }

    fn lookup(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }

    fn own(&self, value: &str) -> bool {
        let clients = self.context.clients();
        clients
            .cloud
            .as_ref()
            .is_some_and(|c| c.api().authenticates_with(value))
            || clients
                .observability
                .as_ref()
                .is_some_and(|o| o.api().authenticates_with(value))
    }
}

/// A create's body with each credential read from its reference now, put at its path under
/// the source kind: the plan, saved or not, holds only the references. A value that is one of
/// converge's own secrets is never sent, whatever variable holds it (issue 41, part 2).
fn with_credentials(
    body: &Value,
    credentials: &[CredentialRef],
    environment: &Environment<'_>,
) -> Result<Value, WriteError> {
    let mut body = body.clone();
    let Some(source) = body
        .get_mut("source")
        .and_then(Value::as_object_mut)
        .and_then(|source| source.values_mut().find(|v| v.is_object()))
    else {
        return Ok(body);
    };
    for credential in credentials {
        let value = secret_reference(&credential.reference)
            .and_then(|name| environment.lookup(name))
            .ok_or_else(|| {
                WriteError::Other(format!(
                    "credential `{}` is read from `{}`, which is not set: set it and apply again",
                    credential.path, credential.reference
                ))
            })?;
        if environment.own(&value) {
            return Err(WriteError::Other(format!(
                "credential `{}` is read from `{}`, which holds converge's own secret (the key \
                 secret or token this run authenticates with): it is never sent to a pipe; \
                 nothing was sent",
                credential.path, credential.reference
            )));
        }
        let parts: Vec<&str> = credential.path.split('.').collect();
        let Some((last, parents)) = parts.split_last() else {
            continue;
        };
        let mut at = &mut *source;
        for part in parents {
            if !at.get(*part).is_some_and(Value::is_object) {
                at[*part] = Value::Object(serde_json::Map::new());
            }
            at = &mut at[*part];
        }
        at[*last] = Value::String(value);
    }
    Ok(body)
}

/// Whether a pipe shows every field of a scaling patch.
pub(crate) fn shows(pipe: &Pipe, patch: &PipeScalingPatch) -> bool {
    let Some(scaling) = &pipe.scaling else {
        return false;
    };
    let integer = |want: Option<i64>, have: Option<i64>| want.is_none() || want == have;
    integer(patch.replicas, scaling.replicas)
        && integer(patch.concurrency, scaling.concurrency)
        && integer(patch.replica_cpu_millicores, scaling.replica_cpu_millicores)
        && (patch.replica_memory_gb.is_none()
            || close(patch.replica_memory_gb, scaling.replica_memory_gb))
}

impl Sends for PipeOp {
    fn send<'a>(
        &'a self,
        context: &'a Context,
        step: &'a Step,
        part: Part,
    ) -> BoxFuture<'a, Result<Option<Created>, WriteError>> {
        Box::pin(send(context, step, self, part))
    }

    fn doubles(&self) -> Option<Box<dyn Doubles + '_>> {
        doubles(self).map(|p| Box::new(p) as Box<dyn Doubles>)
    }

    /// Its body's endpoint ids filled in and each endpoint `Ready`
    /// ([`endpoints::resolve`]).
    fn resolve<'a>(
        &'a self,
        context: &'a Context,
    ) -> BoxFuture<'a, Result<Option<Operation>, StepError>> {
        Box::pin(endpoints::resolve(context, self))
    }

    fn found_created<'a>(
        &'a self,
        context: &'a Context,
        step: &'a Step,
        live: &'a crate::live::LiveState,
    ) -> BoxFuture<'a, Result<(), WriteError>> {
        Box::pin(found_created(context, step, self, live))
    }
}

#[cfg(test)]
mod tests;
