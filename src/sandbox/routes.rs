//! What a route is (method, template, handler, and the few ways the server treats it), how a
//! request is matched against the routes the kinds register (`kinds::routes`), what a handler
//! works with, and the reply every handler gives.

use jiff::Timestamp;
use serde_json::{Map, Value};

use super::model::{Generation, Quirk};
use super::store::World;

/// Which API a route belongs to: it decides auth, envelopes, error bodies and rate limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Api {
    /// Cloud management API (and the managed stack): Basic auth, `{status, requestId, result}`.
    Cloud,
    /// Observability API: Bearer auth, `{data}`.
    Observability,
}

/// What a handler works with.
pub(crate) struct Ctx<'a> {
    pub world: &'a mut World,
    /// Real wall-clock epoch ms: when pending changes become visible.
    pub wall_ms: i64,
    /// The sandbox's "now" for timestamps it writes.
    pub now: Timestamp,
    /// Scaling delay in ms.
    pub delay_ms: i64,
    pub quirks: &'a [Quirk],
    /// The generation of dashboards and alerts answered.
    pub generation: Generation,
}

impl Ctx<'_> {
    /// Whether the sandbox answers as today's servers.
    pub(crate) fn today(&self) -> bool {
        self.generation == Generation::Current
    }
}

/// A matched request as a handler sees it.
pub(crate) struct Call<'a> {
    pub api: Api,
    /// `serviceId` (cloud only; empty otherwise).
    pub service: &'a str,
    /// The last id of the path (`pipeId`, `backupId`, `dashboardId`, `alertId`, `id`).
    pub id: Option<&'a str>,
    pub query: Option<&'a str>,
    /// The request body (null when there is none).
    pub body: &'a Value,
}

/// Runs one operation.
pub(crate) type Handler = fn(&mut Ctx<'_>, &Call<'_>) -> Result<Reply, ApiError>;

/// How a server writes one object of a kind in an answer: the API answering and whether it is
/// of today's generation.
pub(crate) type Shape = fn(&mut Map<String, Value>, Api, bool);

/// One route of either API, as a kind registers it.
#[derive(Clone, Copy)]
pub(crate) struct Route {
    pub api: Api,
    pub method: &'static str,
    /// The route template the request log records, e.g.
    /// `/v1/organizations/{organizationId}/services/{serviceId}`.
    pub template: &'static str,
    pub handler: Handler,
    /// Whether the operation changes the world (and so is persisted and may be `lost`).
    pub writes: bool,
    /// The path id the cloud API checks to be a UUID (`pipeId`), if any.
    pub uuid_id: Option<&'static str>,
    /// A quirk under which the route does not exist (the gateway's 404).
    pub absent_with: Option<Quirk>,
    /// The charts route: its body's series are counted in the log and its errors are
    /// `{error}`.
    pub chart: bool,
    /// The server's way of writing each object of a successful answer.
    pub shape: Option<Shape>,
    /// The route exists on today's servers only: the contract's generation has no such path
    /// (the gateway's 404).
    pub current_only: bool,
}

impl Route {
    /// A plain read: no write, no checked id, no quirk, no shape.
    pub(crate) const fn new(
        api: Api,
        method: &'static str,
        template: &'static str,
        handler: Handler,
    ) -> Route {
        Route {
            api,
            method,
            template,
            handler,
            writes: false,
            uuid_id: None,
            absent_with: None,
            chart: false,
            shape: None,
            current_only: false,
        }
    }

    /// The route changes the world.
    pub(crate) const fn writes(self) -> Route {
        Route {
            writes: true,
            ..self
        }
    }

    /// The route's last path id, `name`, must be a UUID.
    pub(crate) const fn uuid_id(self, name: &'static str) -> Route {
        Route {
            uuid_id: Some(name),
            ..self
        }
    }

    /// The route does not exist when `quirk` is on.
    pub(crate) const fn absent_with(self, quirk: Quirk) -> Route {
        Route {
            absent_with: Some(quirk),
            ..self
        }
    }

    /// The charts route.
    pub(crate) const fn chart(self) -> Route {
        Route {
            chart: true,
            ..self
        }
    }

    /// The route exists on today's servers only.
    pub(crate) const fn current_only(self) -> Route {
        Route {
            current_only: true,
            ..self
        }
    }

    /// The server writes the answer's objects with `shape`.
    pub(crate) const fn shape(self, shape: Shape) -> Route {
        Route {
            shape: Some(shape),
            ..self
        }
    }
}

impl Route {
    /// Runs the route's handler; an answer is written the way the API of the generation does.
    pub(crate) fn run(&self, ctx: &mut Ctx<'_>, call: &Call<'_>) -> Reply {
        match (self.handler)(ctx, call) {
            Ok(Reply::Paged(mut value, meta)) => {
                self.reshape(ctx, &mut value);
                Reply::Paged(value, meta)
            }
            Ok(Reply::Ok(mut value)) => {
                self.reshape(ctx, &mut value);
                Reply::Ok(value)
            }
            Ok(reply) => reply,
            Err(error) => Reply::Err(error),
        }
    }

    /// Writes each object of an answer the way the API of the generation does.
    fn reshape(&self, ctx: &Ctx<'_>, value: &mut Value) {
        let Some(shape) = self.shape else {
            return;
        };
        let (api, today) = (self.api, ctx.today());
        match value {
            Value::Array(items) => items
                .iter_mut()
                .filter_map(Value::as_object_mut)
                .for_each(|object| shape(object, api, today)),
            Value::Object(object) => shape(object, api, today),
            _ => {}
        }
    }
}

impl std::fmt::Debug for Route {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Route")
            .field("method", &self.method)
            .field("template", &self.template)
            .finish()
    }
}

/// A cloud route template: `rest` after `/v1/organizations/{organizationId}`.
macro_rules! cloud_template {
    ($rest:literal) => {
        concat!("/v1/organizations/{organizationId}", $rest)
    };
}
pub(crate) use cloud_template;

/// A matched request.
#[derive(Debug, Clone)]
pub(crate) struct Matched {
    pub route: &'static Route,
    pub api: Api,
    /// The route template, e.g. `/v1/organizations/{organizationId}/services/{serviceId}`.
    pub template: &'static str,
    /// `organizationId` (cloud only).
    pub org: Option<String>,
    /// `serviceId` (cloud only).
    pub service: Option<String>,
    /// The last id of the path (`pipeId`, `backupId`, `dashboardId`, `alertId`, `id`).
    pub id: Option<String>,
}

/// A handler's answer, rendered by the server in the API's own envelope.
#[derive(Debug)]
pub(crate) enum Reply {
    /// 200 with a payload (`result` or `data`).
    Ok(Value),
    /// 200 for a delete: `{status, requestId}` on the cloud API, `{}` on observability.
    Deleted,
    /// An error.
    Err(ApiError),
    /// An answer in plain text, as Express's `sendStatus` gives (`404 Not Found`).
    Text(u16, &'static str),
    /// 200 with one page of a list and, on the observability API, its `meta` (`{total, limit,
    /// offset}`) beside `data`, as today's servers page their alerts.
    Paged(Value, Value),
    /// 200 with a payload the observability API sends as the whole body, without `data` (its
    /// dashboard validation answers so); the cloud API puts it in `result` as always.
    Bare(Value),
}

/// An error as the real services phrase it: a status, a code and a message.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ApiError {
    pub status: u16,
    pub code: &'static str,
    /// Where the problem is (`request body.numReplicas`), if anywhere.
    pub field: Option<String>,
    pub message: String,
}

impl ApiError {
    pub(crate) fn new(status: u16, code: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            field: None,
            message: message.into(),
        }
    }

    /// 400 naming a member of the request body.
    pub(crate) fn body(field: impl Into<String>, message: impl Into<String>) -> Self {
        let field = field.into();
        ApiError {
            status: 400,
            code: "BAD_REQUEST",
            field: Some(if field.is_empty() {
                "request body".to_string()
            } else {
                format!("request body.{field}")
            }),
            message: message.into(),
        }
    }

    pub(crate) fn not_found(what: impl Into<String>) -> Self {
        ApiError::new(404, "NOT_FOUND", what)
    }

    /// The cloud API's `error` text: `CODE: field: message`.
    pub(crate) fn cloud_text(&self) -> String {
        match &self.field {
            Some(field) => format!("{}: {field}: {}", self.code, self.message),
            None => format!("{}: {}", self.code, self.message),
        }
    }

    /// The observability API's `message` text: `field: message` (no code, no `request body.`).
    pub(crate) fn observability_text(&self) -> String {
        match &self.field {
            Some(field) => {
                let field = field
                    .strip_prefix("request body.")
                    .unwrap_or(field.as_str());
                format!("{field}: {}", self.message)
            }
            None => self.message.clone(),
        }
    }
}

impl From<super::validate::Invalid> for ApiError {
    fn from(invalid: super::validate::Invalid) -> Self {
        ApiError::body(invalid.field, invalid.message)
    }
}

/// Matches a method and path against `routes`, the first that fits; `None` is a path the
/// gateway does not serve. A `{name}` segment of a template takes any one segment of the path.
pub(crate) fn match_route(
    routes: impl IntoIterator<Item = &'static Route>,
    method: &str,
    path: &str,
) -> Option<Matched> {
    let path = path.strip_suffix('/').unwrap_or(path);
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    routes
        .into_iter()
        .filter(|route| route.method == method)
        .find_map(|route| captures(route, &segments))
}

/// The request as `route` reads it, if the path fits its template.
fn captures(route: &'static Route, segments: &[&str]) -> Option<Matched> {
    let template: Vec<&str> = route.template.split('/').skip(1).collect();
    if template.len() != segments.len() {
        return None;
    }
    let mut matched = Matched {
        route,
        api: route.api,
        template: route.template,
        org: None,
        service: None,
        id: None,
    };
    for (part, segment) in template.iter().zip(segments) {
        match part.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
            Some("organizationId") => matched.org = Some(segment.to_string()),
            Some("serviceId") => matched.service = Some(segment.to_string()),
            Some(_) => matched.id = Some(segment.to_string()),
            None if part == segment => {}
            None => return None,
        }
    }
    Some(matched)
}
