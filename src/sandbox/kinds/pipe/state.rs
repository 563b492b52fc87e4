//! `PATCH .../pipes/{id}/state`: stop, start and resync through the state machine.

use crate::api::wire::SourceKind;
use crate::sandbox::kinds::common::{require_running, service_index};
use crate::sandbox::model::Quirk;
use crate::sandbox::routes::{ApiError, Call, Ctx, Reply};
use crate::sandbox::seed::iso;
use crate::sandbox::validate;

use super::stored::{
    FAILED, PAUSED, PAUSING, PROVISIONING, RESYNC, RUNNING, STOPPED, STOPPING, advance, answer_in,
    find_pipe,
};

/// `PATCH .../pipes/{id}/state`: `stop` from any state, `start` only from stopped or failed,
/// `resync` only for database pipes.
pub(super) fn patch_state(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let index = service_index(ctx, call)?;
    let pipe_index = find_pipe(ctx.world, call.service, call.id)?;
    let map = validate::object(call.body, "")?;
    let command = validate::enumerated(map, "command", "", &["start", "stop", "resync"])?
        .ok_or_else(|| ApiError::body("command", "is required"))?;
    let record = &ctx.world.pipes[pipe_index];
    let state = record.pipe.state.clone().unwrap_or_default();
    let kind = record.pipe.source.as_ref().and_then(|s| s.kind());
    let database = kind.is_some_and(SourceKind::is_database);
    let fails = ctx.quirks.contains(&Quirk::PipesFail);
    let (now, then): (&str, &[&str]) = match command.as_str() {
        "stop" if state == STOPPED || state == PAUSED => (state.as_str(), &[]),
        "stop" if database => (PAUSING, &[PAUSED]),
        "stop" => (STOPPING, &[STOPPED]),
        "start" if state == RUNNING => {
            return Err(ApiError::new(
                400,
                "BAD_REQUEST",
                "ClickPipe is already running",
            ));
        }
        "start" if [STOPPED, PAUSED, FAILED].contains(&state.as_str()) => {
            (PROVISIONING, if fails { &[FAILED] } else { &[RUNNING] })
        }
        "start" => {
            return Err(ApiError::new(
                400,
                "BAD_REQUEST",
                format!(
                    "ClickPipe can only be started when Stopped or Failed. Current state: {state}"
                ),
            ));
        }
        _ if !kind.is_some_and(SourceKind::resyncs) => {
            return Err(ApiError::new(
                400,
                "BAD_REQUEST",
                "Resync is only supported for database ClickPipes",
            ));
        }
        _ => (RESYNC, &[RUNNING]),
    };
    require_running(ctx.world, index)?;
    let now = now.to_string();
    let clock = (ctx.wall_ms, ctx.delay_ms);
    let record = &mut ctx.world.pipes[pipe_index];
    record.pipe.updated_at = Some(iso(ctx.now));
    advance(record, clock, &now, then);
    let answer = answer_in(record, &now, ctx.quirks)?;
    if command == "stop" && ctx.quirks.contains(&Quirk::IdleAfterPipeStop) {
        ctx.world.services[index].service.state = Some("idle".into());
    }
    Ok(Reply::Ok(answer))
}
