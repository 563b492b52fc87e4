//! Private endpoints: registered in the organization with `POST .../privateEndpoint` (which
//! attaches it too), attached and detached through the service's own PATCH, which also takes
//! the service's tags and settings.

use crate::api::wire::{PrivateEndpoint, TagsPatch};
use crate::sandbox::routes::{Api, ApiError, Call, Ctx, Reply, Route, cloud_template};
use crate::sandbox::validate;

use super::common::{require_settled, service_index, to_value};
use super::service::render_service;

/// The routes of private endpoints.
pub(super) const ROUTES: &[Route] = &[
    Route::new(
        Api::Cloud,
        "PATCH",
        cloud_template!("/services/{serviceId}"),
        patch_service,
    )
    .writes(),
    Route::new(
        Api::Cloud,
        "POST",
        cloud_template!("/services/{serviceId}/privateEndpoint"),
        create,
    )
    .writes(),
];

/// PATCH of a service: its private endpoint list (remove, then add; each added endpoint
/// must be registered in the organization), its tags, and the members `service::settings`
/// checks (IP access list, release channel, `mysql` endpoint).
fn patch_service(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let index = service_index(ctx, call)?;
    let map = validate::object(call.body, "")?;
    require_settled(ctx.world, index)?;
    let mut remove = Vec::new();
    let mut add = Vec::new();
    if let Some(ids) = map.get("privateEndpointIds").filter(|v| !v.is_null()) {
        let ids = validate::object(ids, "privateEndpointIds")?;
        remove = validate::strings(ids, "remove", "privateEndpointIds")?.unwrap_or_default();
        add = validate::strings(ids, "add", "privateEndpointIds")?.unwrap_or_default();
    }
    for (i, endpoint) in add.iter().enumerate() {
        if !ctx
            .world
            .private_endpoints
            .iter()
            .any(|e| &e.id == endpoint)
        {
            return Err(ApiError::body(
                format!("privateEndpointIds.add[{i}]"),
                format!(
                    "private endpoint {endpoint} is not registered in the organization; register it with POST .../privateEndpoint"
                ),
            ));
        }
    }
    let settings = super::service::settings::patch(map, ctx.world.services[index].paid)?;
    let tags = tags_patch(map)?
        .map(|patch| {
            let mut tags = ctx.world.services[index].service.tags.clone();
            // Remove runs before add, as for endpoints.
            tags.retain(|tag| !patch.remove.iter().any(|r| r.key == tag.key));
            for tag in patch.add {
                tags.retain(|t| t.key != tag.key);
                tags.push(tag);
            }
            if tags.len() > MAX_TAGS {
                return Err(ApiError::body(
                    "tags",
                    format!("a service has at most {MAX_TAGS} tags"),
                ));
            }
            Ok(tags)
        })
        .transpose()?;
    let service = &mut ctx.world.services[index].service;
    if let Some(tags) = tags {
        service.tags = tags;
    }
    super::service::settings::apply(service, settings);
    // Remove runs before add, as the real API documents.
    service
        .private_endpoint_ids
        .retain(|id| !remove.contains(id));
    for endpoint in add {
        if !service.private_endpoint_ids.contains(&endpoint) {
            service.private_endpoint_ids.push(endpoint);
        }
    }
    let attached = service.private_endpoint_ids.clone();
    service
        .available_private_endpoint_ids
        .retain(|id| !attached.contains(id));
    Ok(Reply::Ok(render_service(
        &ctx.world.services[index].service,
    )?))
}

/// The most tags a service holds (`Service.tags.maxItems`).
const MAX_TAGS: usize = 50;

/// The `tags` member of a service PATCH, each key and value checked as `ResourceTagsV1` says.
fn tags_patch(
    map: &serde_json::Map<String, serde_json::Value>,
) -> Result<Option<TagsPatch>, ApiError> {
    let Some(tags) = map.get("tags").filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let patch: TagsPatch = serde_json::from_value(tags.clone())
        .map_err(|error| ApiError::body("tags", format!("expected {{add, remove}}: {error}")))?;
    let allowed = |text: &str| {
        text.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
    };
    for (list, tags) in [("add", &patch.add), ("remove", &patch.remove)] {
        for (i, tag) in tags.iter().enumerate() {
            let value = tag.value.as_deref().unwrap_or_default();
            if tag.key.is_empty() || tag.key.len() > 128 || !allowed(&tag.key) {
                return Err(ApiError::body(
                    format!("tags.{list}[{i}].key"),
                    "must be 1 to 128 characters of letters, digits, dots, dashes and underscores",
                ));
            }
            if value.len() > 256 || !allowed(value) {
                return Err(ApiError::body(
                    format!("tags.{list}[{i}].value"),
                    "must be at most 256 characters of letters, digits, dots, dashes and underscores",
                ));
            }
        }
    }
    Ok(Some(patch))
}

/// Registers an endpoint in the organization (or describes it again) and attaches it.
fn create(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let index = service_index(ctx, call)?;
    let map = validate::object(call.body, "")?;
    let id = validate::required_string(map, "id", "", 256)?;
    let description = validate::string(map, "description", "", 1024)?.unwrap_or_default();
    require_settled(ctx.world, index)?;
    let service = &ctx.world.services[index].service;
    let endpoint = PrivateEndpoint {
        id: id.clone(),
        description,
        cloud_provider: service.provider.clone(),
        region: service.region.clone(),
    };
    match ctx.world.private_endpoints.iter_mut().find(|e| e.id == id) {
        Some(existing) => *existing = endpoint.clone(),
        None => ctx.world.private_endpoints.push(endpoint.clone()),
    }
    let service = &mut ctx.world.services[index].service;
    if !service.private_endpoint_ids.contains(&id) {
        service.private_endpoint_ids.push(id.clone());
    }
    service.available_private_endpoint_ids.retain(|e| e != &id);
    Ok(Reply::Ok(to_value(&endpoint)?))
}
