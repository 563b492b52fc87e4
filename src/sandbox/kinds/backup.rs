//! Backups: read only, newest first.

use crate::sandbox::routes::{Api, ApiError, Call, Ctx, Reply, Route, cloud_template};

use super::common::{service_index, to_value};

/// The routes of backups.
pub(super) const ROUTES: &[Route] = &[
    Route::new(
        Api::Cloud,
        "GET",
        cloud_template!("/services/{serviceId}/backups"),
        list,
    ),
    Route::new(
        Api::Cloud,
        "GET",
        cloud_template!("/services/{serviceId}/backups/{backupId}"),
        get,
    )
    .uuid_id("backupId"),
];

fn list(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    service_index(ctx, call)?;
    let mut backups: Vec<_> = ctx
        .world
        .backups
        .iter()
        .filter(|b| b.service_id == call.service)
        .collect();
    // Newest first, as the real API lists them.
    backups.sort_by(|a, b| b.started_at.cmp(&a.started_at));
    Ok(Reply::Ok(to_value(&backups)?))
}

fn get(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    service_index(ctx, call)?;
    let backup = ctx
        .world
        .backups
        .iter()
        .find(|b| b.service_id == call.service && Some(b.id.as_str()) == call.id)
        .ok_or_else(|| {
            ApiError::not_found(format!("Backup {} not found", call.id.unwrap_or("")))
        })?;
    Ok(Reply::Ok(to_value(backup)?))
}
