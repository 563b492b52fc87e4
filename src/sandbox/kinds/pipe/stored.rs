//! A stored pipe: how it is found, how reads and write answers show it, and the states it
//! moves through.

use serde_json::{Value, json};

use crate::api::wire::Pipe;
use crate::sandbox::kinds::common::to_value;
use crate::sandbox::model::Quirk;
use crate::sandbox::routes::ApiError;
use crate::sandbox::store::{PipeRecord, World};

pub(super) fn find_pipe(
    world: &World,
    service_id: &str,
    id: Option<&str>,
) -> Result<usize, ApiError> {
    world
        .pipes
        .iter()
        .position(|p| p.pipe.service_id == service_id && Some(p.pipe.id.as_str()) == id)
        .ok_or_else(|| ApiError::not_found(format!("ClickPipe {} not found", id.unwrap_or(""))))
}

/// A stored pipe as reads show it: with the scaling-gaps quirk, the members of a change still
/// in flight read back as null, as real servers briefly do.
pub(super) fn render_pipe_record(record: &PipeRecord, quirks: &[Quirk]) -> Result<Value, ApiError> {
    let mut value = render_pipe(&record.pipe, quirks)?;
    if quirks.contains(&Quirk::ScalingGaps)
        && let Some((_, pending)) = &record.pending_scaling
        && let Some(scaling) = value.get_mut("scaling").and_then(Value::as_object_mut)
    {
        let changed = [
            ("replicas", pending.replicas.is_some()),
            ("concurrency", pending.concurrency.is_some()),
            (
                "replicaCpuMillicores",
                pending.replica_cpu_millicores.is_some(),
            ),
            ("replicaMemoryGb", pending.replica_memory_gb.is_some()),
        ];
        for (member, in_flight) in changed {
            if in_flight {
                scaling.insert(member.into(), Value::Null);
            }
        }
    }
    Ok(value)
}

/// A pipe as JSON, with CPU and memory as quantity strings when that quirk is on.
pub(super) fn render_pipe(pipe: &Pipe, quirks: &[Quirk]) -> Result<Value, ApiError> {
    let mut value = to_value(pipe)?;
    if quirks.contains(&Quirk::QuantityStrings)
        && let Some(scaling) = value.get_mut("scaling").and_then(Value::as_object_mut)
    {
        if let Some(cpu) = scaling.get("replicaCpuMillicores").and_then(Value::as_f64) {
            scaling.insert("replicaCpuMillicores".into(), json!(format!("{cpu}m")));
        }
        if let Some(mem) = scaling.get("replicaMemoryGb").and_then(Value::as_f64) {
            scaling.insert("replicaMemoryGb".into(), json!(format!("{mem}Gi")));
        }
    }
    Ok(value)
}

pub(super) const PROVISIONING: &str = "Provisioning";
pub(super) const RUNNING: &str = "Running";
pub(super) const STOPPING: &str = "Stopping";
pub(super) const STOPPED: &str = "Stopped";
pub(super) const PAUSING: &str = "Pausing";
pub(super) const PAUSED: &str = "Paused";
pub(super) const FAILED: &str = "Failed";
pub(super) const COMPLETED: &str = "Completed";
pub(super) const MODIFYING: &str = "Modifying";
pub(super) const RESYNC: &str = "Resync";

/// Shows `now` and schedules `then`, one scaling delay apart from the wall clock (`clock` is
/// the epoch ms and the delay); with no delay the last state shows at once.
pub(super) fn advance(record: &mut PipeRecord, clock: (i64, i64), now: &str, then: &[&str]) {
    let (wall_ms, delay_ms) = clock;
    record.pending_states.clear();
    record.pipe.state = Some(now.to_string());
    if delay_ms <= 0 {
        if let Some(last) = then.last() {
            record.pipe.state = Some((*last).to_string());
        }
        return;
    }
    let mut at = wall_ms;
    for state in then {
        at = at.saturating_add(delay_ms);
        record.pending_states.push((at, (*state).to_string()));
    }
}

/// The answer to a write: the pipe as stored, in the state the write started it in.
pub(super) fn answer_in(
    record: &PipeRecord,
    state: &str,
    quirks: &[Quirk],
) -> Result<Value, ApiError> {
    let mut value = render_pipe_record(record, quirks)?;
    value["state"] = json!(state);
    Ok(value)
}

/// A finished one-shot pipe takes no edit.
pub(super) fn refuse_finished(state: &str, what: &str) -> Result<(), ApiError> {
    if state == COMPLETED {
        return Err(ApiError::new(
            400,
            "BAD_REQUEST",
            format!("A Completed ClickPipe cannot be {what}; delete it and create it again"),
        ));
    }
    Ok(())
}
