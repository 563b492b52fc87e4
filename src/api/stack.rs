//! "A stack", whichever API it lives behind: the managed stack of a service through the cloud
//! API (`.../services/{id}/stack/...`, Basic auth, cloud rate limit) or the standalone
//! observability API (`/api/v2/...`, Bearer auth). The planner and the applier talk to this.

use super::cloud::CloudClient;
use super::error::ApiError;
use super::observability::ObservabilityClient;
use super::wire::{
    Alert, AlertRequest, Dashboard, DashboardRequest, DashboardValidation, SavedSearch, Source,
    Webhook,
};

/// The dashboards, alerts and sources of one stack.
#[derive(Debug, Clone)]
pub(crate) enum StackApi {
    /// The managed stack of a service, through the cloud API.
    Managed {
        /// The cloud client.
        cloud: CloudClient,
        /// The service whose stack this is.
        service_id: String,
    },
    /// The standalone observability API.
    Standalone(ObservabilityClient),
}

/// The key of the lists a stack reads: its managed service's (`Some(service id)`), or the
/// config's one observability API's (`None`). See [`StackApi::lists_key`].
pub(crate) fn lists_key(managed_service: Option<&str>) -> String {
    match managed_service {
        Some(service_id) => format!("managed {service_id}"),
        None => "observability".to_string(),
    }
}

impl StackApi {
    /// Which lists the stack's are: stacks with the same key read the same dashboards, alerts,
    /// sources and webhooks (a config has one observability API; a managed stack is its
    /// service's), so they are read once for all of them.
    pub(crate) fn lists_key(&self) -> String {
        match self {
            StackApi::Managed { service_id, .. } => lists_key(Some(service_id)),
            StackApi::Standalone(_) => lists_key(None),
        }
    }

    /// Every dashboard.
    pub(crate) async fn list_dashboards(&self) -> Result<Vec<Dashboard>, ApiError> {
        match self {
            StackApi::Managed { cloud, service_id } => {
                cloud.list_stack_dashboards(service_id).await
            }
            StackApi::Standalone(client) => client.list_dashboards().await,
        }
    }

    /// Creates a dashboard (never retried after an ambiguous failure).
    pub(crate) async fn create_dashboard(
        &self,
        body: &DashboardRequest,
    ) -> Result<Dashboard, ApiError> {
        match self {
            StackApi::Managed { cloud, service_id } => {
                cloud.create_stack_dashboard(service_id, body).await
            }
            StackApi::Standalone(client) => client.create_dashboard(body).await,
        }
    }

    /// Replaces a dashboard.
    pub(crate) async fn update_dashboard(
        &self,
        id: &str,
        body: &DashboardRequest,
    ) -> Result<Dashboard, ApiError> {
        match self {
            StackApi::Managed { cloud, service_id } => {
                cloud.update_stack_dashboard(service_id, id, body).await
            }
            StackApi::Standalone(client) => client.update_dashboard(id, body).await,
        }
    }

    /// Checks a dashboard body as a create would, storing nothing.
    pub(crate) async fn validate_dashboard(
        &self,
        body: &DashboardRequest,
    ) -> Result<DashboardValidation, ApiError> {
        match self {
            StackApi::Managed { cloud, service_id } => {
                cloud.validate_stack_dashboard(service_id, body).await
            }
            StackApi::Standalone(client) => client.validate_dashboard(body).await,
        }
    }

    /// Deletes a dashboard (and, server-side, its alerts).
    pub(crate) async fn delete_dashboard(&self, id: &str) -> Result<(), ApiError> {
        match self {
            StackApi::Managed { cloud, service_id } => {
                cloud.delete_stack_dashboard(service_id, id).await
            }
            StackApi::Standalone(client) => client.delete_dashboard(id).await,
        }
    }

    /// Every alert (all pages on the standalone API).
    pub(crate) async fn list_alerts(&self) -> Result<Vec<Alert>, ApiError> {
        match self {
            StackApi::Managed { cloud, service_id } => cloud.list_stack_alerts(service_id).await,
            StackApi::Standalone(client) => client.list_alerts().await,
        }
    }

    /// Creates an alert (never retried after an ambiguous failure).
    pub(crate) async fn create_alert(&self, body: &AlertRequest) -> Result<Alert, ApiError> {
        match self {
            StackApi::Managed { cloud, service_id } => {
                cloud.create_stack_alert(service_id, body).await
            }
            StackApi::Standalone(client) => client.create_alert(body).await,
        }
    }

    /// Replaces an alert.
    pub(crate) async fn update_alert(
        &self,
        id: &str,
        body: &AlertRequest,
    ) -> Result<Alert, ApiError> {
        match self {
            StackApi::Managed { cloud, service_id } => {
                cloud.update_stack_alert(service_id, id, body).await
            }
            StackApi::Standalone(client) => client.update_alert(id, body).await,
        }
    }

    /// Deletes an alert.
    pub(crate) async fn delete_alert(&self, id: &str) -> Result<(), ApiError> {
        match self {
            StackApi::Managed { cloud, service_id } => {
                cloud.delete_stack_alert(service_id, id).await
            }
            StackApi::Standalone(client) => client.delete_alert(id).await,
        }
    }

    /// The data sources, to resolve `source:` names.
    pub(crate) async fn list_sources(&self) -> Result<Vec<Source>, ApiError> {
        match self {
            StackApi::Managed { cloud, service_id } => cloud.list_stack_sources(service_id).await,
            StackApi::Standalone(client) => client.list_sources().await,
        }
    }

    /// The ClickHouse connections, to resolve a declared source's `connection:` name; the
    /// managed stack's document lists none (its sources cannot be written there).
    pub(crate) async fn list_connections(
        &self,
    ) -> Result<Vec<crate::api::wire::Connection>, ApiError> {
        match self {
            StackApi::Managed { .. } => Ok(Vec::new()),
            StackApi::Standalone(client) => client.list_connections().await,
        }
    }
    /// The saved searches: the observability API's; the managed stack's document has none.
    pub(crate) async fn list_saved_searches(&self) -> Result<Vec<SavedSearch>, ApiError> {
        match self {
            StackApi::Managed { .. } => Ok(Vec::new()),
            StackApi::Standalone(client) => client.list_saved_searches().await,
        }
    }

    /// The webhooks, to resolve `webhook:` names.
    pub(crate) async fn list_webhooks(&self) -> Result<Vec<Webhook>, ApiError> {
        match self {
            StackApi::Managed { cloud, service_id } => cloud.list_stack_webhooks(service_id).await,
            StackApi::Standalone(client) => client.list_webhooks().await,
        }
    }
}
