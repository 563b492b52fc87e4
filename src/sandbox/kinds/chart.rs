//! Chart series of the observability API (`POST /api/v2/charts/series`), answered from the
//! deterministic synthetic data of `series`; nothing is stored.

use crate::sandbox::routes::{Api, ApiError, Call, Ctx, Reply, Route};
use crate::sandbox::series;

use super::common::refuse_null;

/// The routes of chart series.
pub(super) const ROUTES: &[Route] =
    &[Route::new(Api::Observability, "POST", "/api/v2/charts/series", answer).chart()];

fn answer(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    if let Some(map) = call.body.as_object() {
        refuse_null(ctx, map, "seriesReturnType", "'ratio' | 'column'")?;
    }
    Ok(Reply::Ok(series::answer(call.body, ctx.quirks)?))
}
