//! Data sources of a stack: read only. The observability API's own document names no sources
//! list, and some servers have none (`no-sources`).

use crate::sandbox::model::Quirk;
use crate::sandbox::routes::{Api, ApiError, Call, Ctx, Reply, Route, cloud_template};

use super::common::{stack_index, to_value};

/// The routes of sources, through the managed stack and the observability API.
pub(super) const ROUTES: &[Route] = &[
    Route::new(
        Api::Cloud,
        "GET",
        cloud_template!("/services/{serviceId}/stack/sources"),
        list,
    ),
    Route::new(Api::Observability, "GET", "/api/v2/sources", list).absent_with(Quirk::NoSources),
];

fn list(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let stack_index = stack_index(ctx, call)?;
    Ok(Reply::Ok(to_value(&ctx.world.stacks[stack_index].sources)?))
}
