//! The route table of both APIs: which operation a method and path name, with the route
//! template the request log records, and the reply every handler gives.

use serde_json::Value;

/// Which API a route belongs to: it decides auth, envelopes, error bodies and rate limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Api {
    /// Cloud management API (and the managed stack): Basic auth, `{status, requestId, result}`.
    Cloud,
    /// Observability API: Bearer auth, `{data}`.
    Observability,
}

/// An operation of either API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    ListServices,
    GetService,
    PatchService,
    PatchServiceScaling,
    PatchServiceState,
    CreatePrivateEndpoint,
    ListBackups,
    GetBackup,
    ListPipes,
    GetPipe,
    DeletePipe,
    PatchPipeScaling,
    ListDashboards,
    CreateDashboard,
    GetDashboard,
    UpdateDashboard,
    DeleteDashboard,
    ListAlerts,
    CreateAlert,
    GetAlert,
    UpdateAlert,
    DeleteAlert,
    ListSources,
    ChartSeries,
}

impl Op {
    /// Whether the operation changes the world (and so is persisted and may be `lost`).
    pub(crate) fn writes(self) -> bool {
        use Op::*;
        matches!(
            self,
            PatchService
                | PatchServiceScaling
                | PatchServiceState
                | CreatePrivateEndpoint
                | DeletePipe
                | PatchPipeScaling
                | CreateDashboard
                | UpdateDashboard
                | DeleteDashboard
                | CreateAlert
                | UpdateAlert
                | DeleteAlert
        )
    }
}

/// A matched request.
#[derive(Debug, Clone)]
pub(crate) struct Matched {
    pub api: Api,
    pub op: Op,
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

macro_rules! cloud_template {
    ($rest:literal) => {
        concat!("/v1/organizations/{organizationId}", $rest)
    };
}

/// Matches a method and path; `None` is a path the gateway does not serve.
pub(crate) fn match_route(method: &str, path: &str) -> Option<Matched> {
    let path = path.strip_suffix('/').unwrap_or(path);
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    match segments.as_slice() {
        ["v1", "organizations", org, rest @ ..] => cloud(method, org, rest),
        ["api", "v2", rest @ ..] => observability(method, rest),
        _ => None,
    }
}

fn cloud(method: &str, org: &str, rest: &[&str]) -> Option<Matched> {
    let (op, template, service, id) = match rest {
        ["services"] if method == "GET" => {
            (Op::ListServices, cloud_template!("/services"), None, None)
        }
        ["services", s, "stack", stack @ ..] => {
            let (op, template, id) = stack_route(method, stack)?;
            (op, template, Some(*s), id)
        }
        ["services", s, service @ ..] => {
            let (op, template, id) = service_route(method, service)?;
            (op, template, Some(*s), id)
        }
        _ => return None,
    };
    Some(Matched {
        api: Api::Cloud,
        op,
        template,
        org: Some(org.to_string()),
        service: service.map(str::to_string),
        id: id.map(str::to_string),
    })
}

/// A route of one service (what follows `services/{serviceId}`, its stack aside): the
/// operation, the template and the last id of the path.
fn service_route<'p>(
    method: &str,
    rest: &[&'p str],
) -> Option<(Op, &'static str, Option<&'p str>)> {
    use Op::*;
    Some(match (method, rest) {
        ("GET", []) => (GetService, cloud_template!("/services/{serviceId}"), None),
        ("PATCH", []) => (PatchService, cloud_template!("/services/{serviceId}"), None),
        ("PATCH", ["scaling"]) => (
            PatchServiceScaling,
            cloud_template!("/services/{serviceId}/scaling"),
            None,
        ),
        ("PATCH", ["state"]) => (
            PatchServiceState,
            cloud_template!("/services/{serviceId}/state"),
            None,
        ),
        ("POST", ["privateEndpoint"]) => (
            CreatePrivateEndpoint,
            cloud_template!("/services/{serviceId}/privateEndpoint"),
            None,
        ),
        ("GET", ["backups"]) => (
            ListBackups,
            cloud_template!("/services/{serviceId}/backups"),
            None,
        ),
        ("GET", ["backups", b]) => (
            GetBackup,
            cloud_template!("/services/{serviceId}/backups/{backupId}"),
            Some(b),
        ),
        ("GET", ["pipes"]) => (
            ListPipes,
            cloud_template!("/services/{serviceId}/pipes"),
            None,
        ),
        ("GET", ["pipes", p]) => (
            GetPipe,
            cloud_template!("/services/{serviceId}/pipes/{pipeId}"),
            Some(p),
        ),
        ("DELETE", ["pipes", p]) => (
            DeletePipe,
            cloud_template!("/services/{serviceId}/pipes/{pipeId}"),
            Some(p),
        ),
        ("PATCH", ["pipes", p, "scaling"]) => (
            PatchPipeScaling,
            cloud_template!("/services/{serviceId}/pipes/{pipeId}/scaling"),
            Some(p),
        ),
        _ => return None,
    })
}

/// A route of a service's managed stack (what follows `services/{serviceId}/stack`).
fn stack_route<'p>(method: &str, rest: &[&'p str]) -> Option<(Op, &'static str, Option<&'p str>)> {
    use Op::*;
    Some(match (method, rest) {
        ("GET", ["dashboards"]) => (
            ListDashboards,
            cloud_template!("/services/{serviceId}/stack/dashboards"),
            None,
        ),
        ("POST", ["dashboards"]) => (
            CreateDashboard,
            cloud_template!("/services/{serviceId}/stack/dashboards"),
            None,
        ),
        (m, ["dashboards", d]) => (
            match m {
                "GET" => GetDashboard,
                "PUT" => UpdateDashboard,
                "DELETE" => DeleteDashboard,
                _ => return None,
            },
            cloud_template!("/services/{serviceId}/stack/dashboards/{dashboardId}"),
            Some(d),
        ),
        ("GET", ["alerts"]) => (
            ListAlerts,
            cloud_template!("/services/{serviceId}/stack/alerts"),
            None,
        ),
        ("POST", ["alerts"]) => (
            CreateAlert,
            cloud_template!("/services/{serviceId}/stack/alerts"),
            None,
        ),
        (m, ["alerts", a]) => (
            match m {
                "GET" => GetAlert,
                "PUT" => UpdateAlert,
                "DELETE" => DeleteAlert,
                _ => return None,
            },
            cloud_template!("/services/{serviceId}/stack/alerts/{alertId}"),
            Some(a),
        ),
        ("GET", ["sources"]) => (
            ListSources,
            cloud_template!("/services/{serviceId}/stack/sources"),
            None,
        ),
        _ => return None,
    })
}

fn observability(method: &str, rest: &[&str]) -> Option<Matched> {
    use Op::*;
    let (op, template, id): (Op, &'static str, Option<&str>) = match (method, rest) {
        ("GET", ["dashboards"]) => (ListDashboards, "/api/v2/dashboards", None),
        ("POST", ["dashboards"]) => (CreateDashboard, "/api/v2/dashboards", None),
        ("GET", ["dashboards", d]) => (GetDashboard, "/api/v2/dashboards/{id}", Some(d)),
        ("PUT", ["dashboards", d]) => (UpdateDashboard, "/api/v2/dashboards/{id}", Some(d)),
        ("DELETE", ["dashboards", d]) => (DeleteDashboard, "/api/v2/dashboards/{id}", Some(d)),
        ("GET", ["alerts"]) => (ListAlerts, "/api/v2/alerts", None),
        ("POST", ["alerts"]) => (CreateAlert, "/api/v2/alerts", None),
        ("GET", ["alerts", a]) => (GetAlert, "/api/v2/alerts/{id}", Some(a)),
        ("PUT", ["alerts", a]) => (UpdateAlert, "/api/v2/alerts/{id}", Some(a)),
        ("DELETE", ["alerts", a]) => (DeleteAlert, "/api/v2/alerts/{id}", Some(a)),
        ("GET", ["sources"]) => (ListSources, "/api/v2/sources", None),
        ("POST", ["charts", "series"]) => (ChartSeries, "/api/v2/charts/series", None),
        _ => return None,
    };
    Some(Matched {
        api: Api::Observability,
        op,
        template,
        org: None,
        service: None,
        id: id.map(str::to_string),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_name_the_route_not_the_ids() {
        let m = match_route("PATCH", "/v1/organizations/o/services/s/pipes/p/scaling").unwrap();
        assert_eq!(m.op, Op::PatchPipeScaling);
        assert_eq!(
            m.template,
            "/v1/organizations/{organizationId}/services/{serviceId}/pipes/{pipeId}/scaling"
        );
        assert_eq!(m.service.as_deref(), Some("s"));
        assert_eq!(m.id.as_deref(), Some("p"));
        let m = match_route("DELETE", "/api/v2/dashboards/abc").unwrap();
        assert_eq!((m.api, m.op), (Api::Observability, Op::DeleteDashboard));
        assert!(match_route("POST", "/v1/organizations/o/services").is_none());
        assert!(match_route("GET", "/v2/whatever").is_none());
    }
}
