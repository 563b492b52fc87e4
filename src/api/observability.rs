//! The standalone observability API (`/api/v2/...`): dashboards, alerts, sources and chart
//! series. Bearer auth; every success wraps its payload in `{data}`.

use std::collections::HashSet;

use reqwest::Method;
use serde_json::Value;

use super::cloud::{delete, delete_gone, segment};
use super::error::{ApiError, FailureKind};
use super::transport::{Api, Call};
use super::wire::{
    Alert, AlertRequest, Connection, Dashboard, DashboardRequest, DashboardValidation, SavedSearch,
    SavedSearchRequest, SeriesPoint, SeriesQuery, Source, SourceRequest, Webhook, WebhookRequest,
};

/// Page size of the alerts list (the API's maximum).
pub(crate) const ALERTS_PAGE: usize = 1000;

/// The most alerts converge reads from one stack: far beyond any real stack, and a bound on a
/// server whose pages never end.
pub(crate) const MAX_ALERTS: usize = 100_000;

/// Pages of [`ALERTS_PAGE`] alerts that hold [`MAX_ALERTS`].
pub(crate) const MAX_ALERT_PAGES: usize = MAX_ALERTS / ALERTS_PAGE;

/// A typed client of the observability API. Cheap to clone.
#[derive(Debug, Clone)]
pub struct ObservabilityClient {
    api: Api,
}

impl ObservabilityClient {
    /// A client through `api` (Bearer auth, the observability rate limit).
    pub fn new(api: Api) -> Self {
        ObservabilityClient { api }
    }

    /// The transport-level API (base URL, rate bucket).
    pub(crate) fn api(&self) -> &Api {
        &self.api
    }

    /// `GET /api/v2/dashboards` (not paginated).
    pub async fn list_dashboards(&self) -> Result<Vec<Dashboard>, ApiError> {
        let call = Call::new("list dashboards", Method::GET, "/api/v2/dashboards");
        self.api.observability_data(&call).await
    }

    /// `POST /api/v2/dashboards`.
    pub async fn create_dashboard(&self, body: &DashboardRequest) -> Result<Dashboard, ApiError> {
        let call = Call::new("create dashboard", Method::POST, "/api/v2/dashboards").json(body)?;
        self.api.observability_data(&call).await
    }

    /// `PUT /api/v2/dashboards/{id}` (replaces the whole dashboard).
    pub(crate) async fn update_dashboard(
        &self,
        id: &str,
        body: &DashboardRequest,
    ) -> Result<Dashboard, ApiError> {
        let call = Call::new(
            "update dashboard",
            Method::PUT,
            format!("/api/v2/dashboards/{}", segment(id)),
        )
        .json(body)?;
        self.api.observability_data(&call).await
    }

    /// `POST /api/v2/dashboards/validate`: the checks of a create, nothing stored; answered
    /// without the `data` wrapper. A read, so resent like one.
    pub(crate) async fn validate_dashboard(
        &self,
        body: &DashboardRequest,
    ) -> Result<DashboardValidation, ApiError> {
        let call = Call::new(
            "validate dashboard",
            Method::POST,
            "/api/v2/dashboards/validate",
        )
        .json(body)?
        .idempotent();
        self.api.observability_whole(&call).await
    }

    /// `DELETE /api/v2/dashboards/{id}` (answers `{}` even for an unknown id).
    pub async fn delete_dashboard(&self, id: &str) -> Result<(), ApiError> {
        let call = Call::new(
            "delete dashboard",
            Method::DELETE,
            format!("/api/v2/dashboards/{}", segment(id)),
        );
        delete(&self.api, &call).await
    }

    /// `GET /api/v2/alerts?limit=1000&offset=N`, page after page until a short page, at most
    /// `MAX_ALERT_PAGES` pages.
    pub async fn list_alerts(&self) -> Result<Vec<Alert>, ApiError> {
        let mut alerts: Vec<Alert> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        for _ in 0..MAX_ALERT_PAGES {
            let call = Call::new(
                "list alerts",
                Method::GET,
                format!("/api/v2/alerts?limit={ALERTS_PAGE}&offset={}", alerts.len()),
            );
            let page: Vec<Alert> = self.api.observability_data(&call).await?;
            let short = page.len() < ALERTS_PAGE;
            // A server that ignores `offset` would send the same page forever.
            if !page.is_empty() && page.iter().all(|alert| seen.contains(&alert.id)) {
                return Err(call.body_error(
                    200,
                    "the server sent the same page of alerts again (is `offset` ignored?)",
                ));
            }
            seen.extend(page.iter().map(|alert| alert.id.clone()));
            alerts.extend(page);
            if short {
                return Ok(alerts);
            }
        }
        let last_offset = alerts.len().saturating_sub(ALERTS_PAGE);
        let call = Call::new(
            "list alerts",
            Method::GET,
            format!("/api/v2/alerts?limit={ALERTS_PAGE}&offset={last_offset}"),
        );
        Err(call.error_of(
            FailureKind::TooMuch(200),
            format!(
                "after {MAX_ALERT_PAGES} full pages ({MAX_ALERTS} alerts) it still had more: \
                 converge reads at most {MAX_ALERTS} alerts per stack and stopped there"
            ),
        ))
    }

    /// `POST /api/v2/alerts`.
    pub async fn create_alert(&self, body: &AlertRequest) -> Result<Alert, ApiError> {
        let call = Call::new("create alert", Method::POST, "/api/v2/alerts").json(body)?;
        self.api.observability_data(&call).await
    }

    /// `PUT /api/v2/alerts/{id}` (replaces the whole alert).
    pub async fn update_alert(&self, id: &str, body: &AlertRequest) -> Result<Alert, ApiError> {
        let call = Call::new(
            "update alert",
            Method::PUT,
            format!("/api/v2/alerts/{}", segment(id)),
        )
        .json(body)?;
        self.api.observability_data(&call).await
    }

    /// `DELETE /api/v2/alerts/{id}`; an alert already gone (404, today's servers) is deleted.
    pub async fn delete_alert(&self, id: &str) -> Result<(), ApiError> {
        let call = Call::new(
            "delete alert",
            Method::DELETE,
            format!("/api/v2/alerts/{}", segment(id)),
        );
        delete_gone(&self.api, &call).await
    }

    /// `GET /api/v2/sources`: the data sources series refer to. The contract names no such
    /// path for the standalone API; the sandbox serves it beside the managed stack's list.
    pub(crate) async fn list_sources(&self) -> Result<Vec<Source>, ApiError> {
        let call = Call::new("list sources", Method::GET, "/api/v2/sources");
        self.api.observability_data(&call).await
    }

    /// `POST /api/v2/sources`.
    pub(crate) async fn create_source(&self, body: &SourceRequest) -> Result<Source, ApiError> {
        let call = Call::new("create source", Method::POST, "/api/v2/sources").json(body)?;
        self.api.observability_data(&call).await
    }

    /// `PUT /api/v2/sources/{id}`: replaces the whole source.
    pub(crate) async fn update_source(
        &self,
        id: &str,
        body: &SourceRequest,
    ) -> Result<Source, ApiError> {
        let call = Call::new(
            "update source",
            Method::PUT,
            format!("/api/v2/sources/{}", segment(id)),
        )
        .json(body)?;
        self.api.observability_data(&call).await
    }

    /// `DELETE /api/v2/sources/{id}`; a source already gone (404) is deleted.
    pub(crate) async fn delete_source(&self, id: &str) -> Result<(), ApiError> {
        let call = Call::new(
            "delete source",
            Method::DELETE,
            format!("/api/v2/sources/{}", segment(id)),
        );
        delete_gone(&self.api, &call).await
    }

    /// `GET /api/v2/connections`: the ClickHouse connections a source names.
    pub(crate) async fn list_connections(&self) -> Result<Vec<Connection>, ApiError> {
        let call = Call::new("list connections", Method::GET, "/api/v2/connections");
        self.api.observability_data(&call).await
    }

    /// `GET /api/v2/webhooks`: the webhooks alert channels name (one page of the server's
    /// maximum, 1000; a team has far fewer).
    pub(crate) async fn list_webhooks(&self) -> Result<Vec<Webhook>, ApiError> {
        let call = Call::new("list webhooks", Method::GET, "/api/v2/webhooks");
        self.api.observability_data(&call).await
    }

    /// `POST /api/v2/webhooks`.
    pub(crate) async fn create_webhook(&self, body: &WebhookRequest) -> Result<Webhook, ApiError> {
        let call = Call::new("create webhook", Method::POST, "/api/v2/webhooks").json(body)?;
        self.api.observability_data(&call).await
    }

    /// `PUT /api/v2/webhooks/{id}` (replaces the readable members; keeps write-only ones left
    /// out while the destination stays).
    pub(crate) async fn update_webhook(
        &self,
        id: &str,
        body: &WebhookRequest,
    ) -> Result<Webhook, ApiError> {
        let call = Call::new(
            "update webhook",
            Method::PUT,
            format!("/api/v2/webhooks/{}", segment(id)),
        )
        .json(body)?;
        self.api.observability_data(&call).await
    }

    /// `DELETE /api/v2/webhooks/{id}`; a webhook already gone (404) is deleted.
    pub(crate) async fn delete_webhook(&self, id: &str) -> Result<(), ApiError> {
        let call = Call::new(
            "delete webhook",
            Method::DELETE,
            format!("/api/v2/webhooks/{}", segment(id)),
        );
        delete_gone(&self.api, &call).await
    }

    /// `GET /api/v2/saved-searches`: the team's saved searches (one page of the server's
    /// maximum, 1000).
    pub(crate) async fn list_saved_searches(&self) -> Result<Vec<SavedSearch>, ApiError> {
        let call = Call::new("list saved searches", Method::GET, "/api/v2/saved-searches");
        self.api.observability_data(&call).await
    }

    /// `POST /api/v2/saved-searches`.
    pub(crate) async fn create_saved_search(
        &self,
        body: &SavedSearchRequest,
    ) -> Result<SavedSearch, ApiError> {
        let call = Call::new(
            "create saved search",
            Method::POST,
            "/api/v2/saved-searches",
        )
        .json(body)?;
        self.api.observability_data(&call).await
    }

    /// `PUT /api/v2/saved-searches/{id}` (a full replace).
    pub(crate) async fn update_saved_search(
        &self,
        id: &str,
        body: &SavedSearchRequest,
    ) -> Result<SavedSearch, ApiError> {
        let call = Call::new(
            "update saved search",
            Method::PUT,
            format!("/api/v2/saved-searches/{}", segment(id)),
        )
        .json(body)?;
        self.api.observability_data(&call).await
    }

    /// `DELETE /api/v2/saved-searches/{id}`; one already gone (404) is deleted.
    pub(crate) async fn delete_saved_search(&self, id: &str) -> Result<(), ApiError> {
        let call = Call::new(
            "delete saved search",
            Method::DELETE,
            format!("/api/v2/saved-searches/{}", segment(id)),
        );
        delete_gone(&self.api, &call).await
    }

    /// `POST /api/v2/charts/series`: a read, so it is retried like a GET. Points without a
    /// usable `ts_bucket` are skipped; values may be numbers or numeric strings.
    pub async fn chart_series(&self, query: &SeriesQuery) -> Result<Vec<SeriesPoint>, ApiError> {
        let call = Call::new("query chart series", Method::POST, "/api/v2/charts/series")
            .json(query)?
            .idempotent();
        let points: Vec<Value> = self.api.observability_data(&call).await?;
        Ok(points
            .iter()
            .filter_map(Value::as_object)
            .filter_map(|object| SeriesPoint::from_json(object, query.series.len()))
            .collect())
    }
}
