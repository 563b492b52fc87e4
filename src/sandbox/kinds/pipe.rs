//! ClickPipes: the whole lifecycle. Created, changed (only what the document's PATCH schemas
//! take; table mappings of a postgres pipe only while it is paused), started, stopped and
//! resynced through a state machine, their settings put, their scaling patched, the shared
//! compute of database pipes patched, and deleted (slowly, when changes take time).
//! Credentials are checked and dropped: no answer ever holds one.

mod check;
mod create;
mod edit;
mod gcp;
mod members;
mod scaling;
mod state;
mod stored;

use serde_json::Value;

use crate::sandbox::model::Quirk;
use crate::sandbox::routes::{Api, ApiError, Call, Ctx, Reply, Route, cloud_template};

use super::common::{require_running, service_index};
use create::create;
use edit::{get_settings, patch, put_settings};
use scaling::{get_cdc_scaling, patch_cdc_scaling, patch_scaling};
use state::patch_state;
use stored::{STOPPING, find_pipe, render_pipe_record};

/// The routes of pipes.
pub(super) const ROUTES: &[Route] = &[
    Route::new(
        Api::Cloud,
        "GET",
        cloud_template!("/services/{serviceId}/pipes"),
        list,
    ),
    Route::new(
        Api::Cloud,
        "POST",
        cloud_template!("/services/{serviceId}/pipes"),
        create,
    )
    .writes(),
    Route::new(
        Api::Cloud,
        "GET",
        cloud_template!("/services/{serviceId}/pipes/{pipeId}"),
        get,
    )
    .uuid_id("pipeId"),
    Route::new(
        Api::Cloud,
        "PATCH",
        cloud_template!("/services/{serviceId}/pipes/{pipeId}"),
        patch,
    )
    .writes()
    .uuid_id("pipeId"),
    Route::new(
        Api::Cloud,
        "PATCH",
        cloud_template!("/services/{serviceId}/pipes/{pipeId}/state"),
        patch_state,
    )
    .writes()
    .uuid_id("pipeId"),
    Route::new(
        Api::Cloud,
        "GET",
        cloud_template!("/services/{serviceId}/pipes/{pipeId}/settings"),
        get_settings,
    )
    .uuid_id("pipeId"),
    Route::new(
        Api::Cloud,
        "PUT",
        cloud_template!("/services/{serviceId}/pipes/{pipeId}/settings"),
        put_settings,
    )
    .writes()
    .uuid_id("pipeId"),
    Route::new(
        Api::Cloud,
        "GET",
        cloud_template!("/services/{serviceId}/pipesCdcScaling"),
        get_cdc_scaling,
    ),
    Route::new(
        Api::Cloud,
        "PATCH",
        cloud_template!("/services/{serviceId}/pipesCdcScaling"),
        patch_cdc_scaling,
    )
    .writes(),
    Route::new(
        Api::Cloud,
        "DELETE",
        cloud_template!("/services/{serviceId}/pipes/{pipeId}"),
        delete,
    )
    .writes()
    .uuid_id("pipeId"),
    Route::new(
        Api::Cloud,
        "PATCH",
        cloud_template!("/services/{serviceId}/pipes/{pipeId}/scaling"),
        patch_scaling,
    )
    .writes()
    .uuid_id("pipeId"),
];

fn list(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    service_index(ctx, call)?;
    let pipes: Vec<Value> = ctx
        .world
        .pipes
        .iter()
        .filter(|p| p.pipe.service_id == call.service)
        .map(|p| render_pipe_record(p, ctx.quirks))
        .collect::<Result<_, _>>()?;
    Ok(Reply::Ok(Value::Array(pipes)))
}

fn get(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    service_index(ctx, call)?;
    let pipe = find_pipe(ctx.world, call.service, call.id)?;
    Ok(Reply::Ok(render_pipe_record(
        &ctx.world.pipes[pipe],
        ctx.quirks,
    )?))
}

fn delete(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let index = service_index(ctx, call)?;
    let pipe = find_pipe(ctx.world, call.service, call.id)?;
    require_running(ctx.world, index)?;
    // The real API answers before teardown ends: the pipe reads as stopping for a while, then
    // is gone.
    if ctx.delay_ms <= 0 {
        ctx.world.pipes.remove(pipe);
    } else {
        let record = &mut ctx.world.pipes[pipe];
        if record.gone_at.is_none() {
            record.gone_at = Some(ctx.wall_ms.saturating_add(ctx.delay_ms));
            record.pending_states.clear();
            record.pipe.state = Some(STOPPING.into());
        }
    }
    if ctx.quirks.contains(&Quirk::IdleAfterPipeDelete) {
        ctx.world.services[index].service.state = Some("idle".into());
    }
    Ok(Reply::Deleted)
}
