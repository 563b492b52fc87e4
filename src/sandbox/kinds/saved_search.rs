//! Saved searches of the observability API (the managed stack's document has none), with
//! hdx-server's rules (`savedSearchRequestSchema`, `requireValidSourceId`, the handlers of
//! `routers/external-api/v2/savedSearches.ts`): the body is a full replace, each member left
//! out is stored as its default (`''`, `lucene`, `[]`), the name is trimmed, the source must
//! be one of the team's, and a new or changed pinned filter must render as one sidebar facet
//! (`<column> IN (...)`, `NOT IN (...)` or `BETWEEN <n> AND <n>`).

use serde_json::{Map, Value, json};

use crate::api::limits::is_object_id;
use crate::api::wire::SavedSearch;
use crate::sandbox::routes::{Api, ApiError, Call, Ctx, Reply, Route};

use super::common::{body_invalid, path_id, stack_index, to_value};

/// The routes of saved searches, on the observability API only.
pub(super) const ROUTES: &[Route] = &[
    Route::new(Api::Observability, "GET", "/api/v2/saved-searches", list),
    Route::new(Api::Observability, "POST", "/api/v2/saved-searches", create).writes(),
    Route::new(
        Api::Observability,
        "PUT",
        "/api/v2/saved-searches/{id}",
        update,
    )
    .writes(),
    Route::new(
        Api::Observability,
        "DELETE",
        "/api/v2/saved-searches/{id}",
        delete,
    )
    .writes(),
];

const NOT_FOUND: &str = "Saved search not found";

fn list(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let stack = stack_index(ctx, call)?;
    let searches = &ctx.world.stacks[stack].saved_searches;
    let total = searches.len();
    Ok(Reply::Paged(
        to_value(searches)?,
        json!({"total": total, "limit": 1000, "offset": 0}),
    ))
}

fn create(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let stack = stack_index(ctx, call)?;
    let mut search = read(call.body)?;
    source_known(ctx, stack, &search)?;
    renderable(&search.filters, &[])?;
    search.id = ctx.world.new_id();
    let value = to_value(&search)?;
    ctx.world.stacks[stack].saved_searches.push(search);
    Ok(Reply::Ok(value))
}

fn update(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let id = path_id(ctx, call)?.to_string();
    let stack = stack_index(ctx, call)?;
    let mut search = read(call.body)?;
    source_known(ctx, stack, &search)?;
    let searches = &mut ctx.world.stacks[stack].saved_searches;
    let Some(at) = searches.iter().position(|s| s.id == id) else {
        return Err(ApiError::new(404, "NOT_FOUND", NOT_FOUND));
    };
    // A filter echoed back unchanged from the stored search is kept, rendering or not.
    renderable(&search.filters, &searches[at].filters)?;
    search.id = id;
    let value = to_value(&search)?;
    searches[at] = search;
    Ok(Reply::Ok(value))
}

fn delete(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let id = path_id(ctx, call)?.to_string();
    let stack = stack_index(ctx, call)?;
    let searches = &mut ctx.world.stacks[stack].saved_searches;
    let before = searches.len();
    searches.retain(|s| s.id != id);
    if searches.len() == before {
        return Err(ApiError::new(404, "NOT_FOUND", NOT_FOUND));
    }
    Ok(Reply::Deleted)
}

/// `sourceId` must name one of the team's sources.
fn source_known(ctx: &Ctx<'_>, stack: usize, search: &SavedSearch) -> Result<(), ApiError> {
    if ctx.world.stacks[stack]
        .sources
        .iter()
        .any(|s| s.id == search.source_id)
    {
        return Ok(());
    }
    Err(ApiError::new(
        400,
        "BAD_REQUEST",
        "sourceId must be an existing source id",
    ))
}

/// The body as `savedSearchRequestSchema` reads it, defaults applied.
fn read(body: &Value) -> Result<SavedSearch, ApiError> {
    let empty = Map::new();
    let map = body.as_object().unwrap_or(&empty);
    let name = text(map, "name", 1024)?
        .unwrap_or_default()
        .trim()
        .to_string();
    if name.is_empty() {
        return Err(body_invalid(
            "name",
            "String must contain at least 1 character(s)",
        ));
    }
    let source_id = text(map, "sourceId", usize::MAX)?.unwrap_or_default();
    if !is_object_id(&source_id) {
        return Err(body_invalid("sourceId", "Invalid ObjectId"));
    }
    let where_language = text(map, "whereLanguage", usize::MAX)?.unwrap_or("lucene".into());
    if !["lucene", "sql"].contains(&where_language.as_str()) {
        return Err(body_invalid(
            "whereLanguage",
            &format!("Invalid enum value. Expected 'lucene' | 'sql', received '{where_language}'"),
        ));
    }
    Ok(SavedSearch {
        id: String::new(),
        name,
        source_id,
        select: text(map, "select", 4 * 1024)?.unwrap_or_default(),
        where_: text(map, "where", 8 * 1024)?.unwrap_or_default(),
        where_language,
        order_by: text(map, "orderBy", 1024)?.unwrap_or_default(),
        tags: tags(map)?,
        filters: filters(map)?,
    })
}

fn text(map: &Map<String, Value>, key: &str, max: usize) -> Result<Option<String>, ApiError> {
    match map.get(key) {
        None => Ok(None),
        Some(Value::String(s)) if s.chars().count() <= max => Ok(Some(s.clone())),
        Some(Value::String(_)) => Err(body_invalid(
            key,
            &format!("String must contain at most {max} character(s)"),
        )),
        Some(other) => Err(body_invalid(
            key,
            &format!("Expected string, received {}", kind(other)),
        )),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn tags(map: &Map<String, Value>) -> Result<Vec<String>, ApiError> {
    let Some(value) = map.get("tags") else {
        return Ok(Vec::new());
    };
    let Some(items) = value.as_array() else {
        return Err(body_invalid("tags", "Expected array"));
    };
    if items.len() > 50 {
        return Err(body_invalid(
            "tags",
            "Array must contain at most 50 element(s)",
        ));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, tag)| match tag.as_str() {
            Some(t) if t.chars().count() <= 32 => Ok(t.to_string()),
            _ => Err(body_invalid(
                &format!("tags.{i}"),
                "String must contain at most 32 character(s)",
            )),
        })
        .collect()
}

/// `filters`: each `{type?, condition}` (type `sql` by default) or a `sql_ast` shape.
fn filters(map: &Map<String, Value>) -> Result<Vec<Value>, ApiError> {
    let Some(value) = map.get("filters") else {
        return Ok(Vec::new());
    };
    let Some(items) = value.as_array() else {
        return Err(body_invalid("filters", "Expected array"));
    };
    if items.len() > 100 {
        return Err(body_invalid(
            "filters",
            "Array must contain at most 100 element(s)",
        ));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, filter)| {
            let kind = filter.get("type").and_then(Value::as_str).unwrap_or("sql");
            match (kind, filter.get("condition").and_then(Value::as_str)) {
                ("sql" | "lucene", Some(condition)) if condition.len() <= 8 * 1024 => {
                    Ok(json!({"type": kind, "condition": condition}))
                }
                ("sql_ast", _) => Ok(filter.clone()),
                _ => Err(body_invalid(&format!("filters.{i}"), "Invalid input")),
            }
        })
        .collect()
}

/// Every filter renders as one sidebar facet, or is one of `kept` unchanged.
fn renderable(filters: &[Value], kept: &[Value]) -> Result<(), ApiError> {
    let Some(index) = filters
        .iter()
        .position(|f| !renders(f) && !kept.contains(f))
    else {
        return Ok(());
    };
    Err(ApiError::new(
        400,
        "BAD_REQUEST",
        format!(
            "filters[{index}] must be a sidebar-renderable SQL predicate (e.g. \"<column> IN \
             ('<value>', ...)\", \"NOT IN (...)\", or \"BETWEEN <n> AND <n>\"). Other shapes are \
             only accepted on update when preserved unchanged from the stored saved search."
        ),
    ))
}

/// `isRenderablePinnedFilter`, in the shapes the sidebar writes: one column, then `IN (...)`,
/// `NOT IN (...)` or `BETWEEN <a> AND <b>`, with no other top-level `AND`.
fn renders(filter: &Value) -> bool {
    if filter.get("type").and_then(Value::as_str) != Some("sql") {
        return false;
    }
    let condition = filter
        .get("condition")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .trim();
    let upper = condition.to_uppercase();
    let Some(space) = condition.find(char::is_whitespace) else {
        return false;
    };
    let column = &upper[..space];
    if ["NOT", "AND", "OR"].contains(&column) || column.contains('(') {
        return false;
    }
    let rest = upper[space..].trim_start();
    let list = rest
        .strip_prefix("NOT IN")
        .or_else(|| rest.strip_prefix("IN"))
        .map(str::trim_start);
    if let Some(list) = list {
        return list.starts_with('(') && list.ends_with(')') && !list.contains(" AND ");
    }
    rest.strip_prefix("BETWEEN ")
        .is_some_and(|range| range.matches(" AND ").count() == 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sidebar_shapes_render() {
        for (condition, renders_) in [
            ("ServiceName IN ('checkout', 'payments')", true),
            ("ServiceName NOT IN ('checkout')", true),
            ("Duration BETWEEN 1 AND 5", true),
            ("ServiceName IN ('a') AND x = 1", false),
            ("ServiceName = 'a'", false),
            ("NOT (ServiceName IN ('a'))", false),
        ] {
            let filter = json!({"type": "sql", "condition": condition});
            assert_eq!(renders(&filter), renders_, "{condition}");
        }
    }
}
