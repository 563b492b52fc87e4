//! The cloud management API (`/v1/organizations/{organizationId}/...`): services, scaling,
//! private endpoints, backups, pipes and the managed observability stack's paths. Basic auth;
//! every success is the `{status, requestId, result}` envelope.

use reqwest::Method;
use serde::de::DeserializeOwned;

use super::error::ApiError;
use super::transport::{Api, Call};
use super::wire::{
    Alert, AlertRequest, Backup, Dashboard, DashboardRequest, Pipe, PipeScaling, PipeScalingPatch,
    PrivateEndpoint, ReverseEndpointSpec, ReversePrivateEndpoint, Service, ServicePatch,
    ServiceScalingPatch, Source, StatePatch, Webhook,
};

/// A typed client of the cloud API for one organization. Cheap to clone.
#[derive(Debug, Clone)]
pub struct CloudClient {
    api: Api,
    organization: String,
}

/// One path segment, percent-encoded so an id can never change the path's shape.
pub(crate) fn segment(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    for byte in id.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Sends a DELETE. A 404 after a retry means an earlier attempt (whose answer was lost)
/// already deleted the object: that is success.
pub(crate) async fn delete(api: &Api, call: &Call) -> Result<(), ApiError> {
    match api.send(call).await {
        Ok(_) => Ok(()),
        Err(error) if error.is_not_found() && error.attempts > 1 => Ok(()),
        Err(error) => Err(error),
    }
}

/// Sends the DELETE of an object another write may have deleted with it (an alert goes with
/// its tile or dashboard): a 404 on any attempt means it is gone, which is what was asked.
pub(crate) async fn delete_gone(api: &Api, call: &Call) -> Result<(), ApiError> {
    match api.send(call).await {
        Ok(_) => Ok(()),
        Err(error) if error.is_not_found() => Ok(()),
        Err(error) => Err(error),
    }
}

impl CloudClient {
    /// A client of `organization` through `api` (Basic auth, the cloud rate limit).
    pub fn new(api: Api, organization: &str) -> Self {
        CloudClient {
            api,
            organization: organization.to_string(),
        }
    }

    /// The transport-level API (base URL, rate bucket).
    pub fn api(&self) -> &Api {
        &self.api
    }

    /// The organization id.
    pub(crate) fn organization(&self) -> &str {
        &self.organization
    }

    fn org_path(&self, rest: &str) -> String {
        format!("/v1/organizations/{}{rest}", segment(&self.organization))
    }

    fn service_path(&self, service: &str, rest: &str) -> String {
        self.org_path(&format!("/services/{}{rest}", segment(service)))
    }

    async fn result<T: DeserializeOwned>(&self, call: Call) -> Result<T, ApiError> {
        self.api.cloud_result(&call).await
    }

    /// `GET /services`: every service of the organization.
    pub async fn list_services(&self) -> Result<Vec<Service>, ApiError> {
        self.result(Call::new(
            "list services",
            Method::GET,
            self.org_path("/services"),
        ))
        .await
    }

    /// `GET /services/{id}`.
    pub async fn get_service(&self, service: &str) -> Result<Service, ApiError> {
        self.result(Call::new(
            "get service",
            Method::GET,
            self.service_path(service, ""),
        ))
        .await
    }

    /// `PATCH /services/{id}/scaling`.
    pub async fn update_service_scaling(
        &self,
        service: &str,
        patch: &ServiceScalingPatch,
    ) -> Result<Service, ApiError> {
        let call = Call::new(
            "update service scaling",
            Method::PATCH,
            self.service_path(service, "/scaling"),
        )
        .json(patch)?;
        self.result(call).await
    }

    /// `PATCH /services/{id}/replicaScaling`: per-replica memory, the autoscaling mode and its
    /// replica members, idle settings.
    pub(crate) async fn update_service_replica_scaling(
        &self,
        service: &str,
        patch: &ServiceScalingPatch,
    ) -> Result<Service, ApiError> {
        let call = Call::new(
            "update service scaling",
            Method::PATCH,
            self.service_path(service, "/replicaScaling"),
        )
        .json(patch)?;
        self.result(call).await
    }

    /// `PATCH /services/{id}` with `privateEndpointIds` `{add, remove}` (remove runs first).
    pub(crate) async fn update_service_private_endpoints(
        &self,
        service: &str,
        patch: &ServicePatch,
    ) -> Result<Service, ApiError> {
        let call = Call::new(
            "update service private endpoints",
            Method::PATCH,
            self.service_path(service, ""),
        )
        .json(patch)?;
        self.result(call).await
    }

    /// `PATCH /services/{id}` with `tags` `{add, remove}` (remove runs first).
    pub(crate) async fn update_service_tags(
        &self,
        service: &str,
        patch: &ServicePatch,
    ) -> Result<Service, ApiError> {
        let call = Call::new(
            "update service tags",
            Method::PATCH,
            self.service_path(service, ""),
        )
        .json(patch)?;
        self.result(call).await
    }

    /// `PATCH /services/{id}` with one member of the service's settings (the IP access list
    /// or tags as `{add, remove}`, the release channel, an endpoint switched).
    pub(crate) async fn update_service(
        &self,
        service: &str,
        patch: &ServicePatch,
    ) -> Result<Service, ApiError> {
        let call = Call::new(
            "update service",
            Method::PATCH,
            self.service_path(service, ""),
        )
        .json(patch)?;
        self.result(call).await
    }

    /// `PATCH /services/{id}/state` with `start`, `stop` or `awake`.
    pub(crate) async fn change_service_state(
        &self,
        service: &str,
        command: &str,
    ) -> Result<Service, ApiError> {
        let call = Call::new(
            "change service state",
            Method::PATCH,
            self.service_path(service, "/state"),
        )
        .json(&StatePatch {
            command: command.to_string(),
        })?;
        self.result(call).await
    }

    /// `POST /services/{id}/privateEndpoint`: registers a private endpoint. Not retried after an
    /// ambiguous failure (see [`ApiError::is_ambiguous`]).
    pub async fn create_private_endpoint(
        &self,
        service: &str,
        endpoint: &PrivateEndpoint,
    ) -> Result<PrivateEndpoint, ApiError> {
        let call = Call::new(
            "register private endpoint",
            Method::POST,
            self.service_path(service, "/privateEndpoint"),
        )
        .json(endpoint)?;
        self.result(call).await
    }

    /// `GET /services/{id}/backups`, newest first.
    pub(crate) async fn list_backups(&self, service: &str) -> Result<Vec<Backup>, ApiError> {
        self.result(Call::new(
            "list backups",
            Method::GET,
            self.service_path(service, "/backups"),
        ))
        .await
    }

    /// `GET /services/{id}/backups/{backupId}`.
    pub(crate) async fn get_backup(&self, service: &str, backup: &str) -> Result<Backup, ApiError> {
        self.result(Call::new(
            "get backup",
            Method::GET,
            self.service_path(service, &format!("/backups/{}", segment(backup))),
        ))
        .await
    }

    /// `GET /services/{id}/pipes`.
    pub async fn list_pipes(&self, service: &str) -> Result<Vec<Pipe>, ApiError> {
        self.result(Call::new(
            "list pipes",
            Method::GET,
            self.service_path(service, "/pipes"),
        ))
        .await
    }

    /// `GET /services/{id}/pipesReversePrivateEndpoints`.
    pub(crate) async fn list_reverse_endpoints(
        &self,
        service: &str,
    ) -> Result<Vec<ReversePrivateEndpoint>, ApiError> {
        self.result(Call::new(
            "list reverse private endpoints",
            Method::GET,
            self.service_path(service, "/pipesReversePrivateEndpoints"),
        ))
        .await
    }

    /// `GET /services/{id}/pipesReversePrivateEndpoints/{endpointId}`.
    pub(crate) async fn get_reverse_endpoint(
        &self,
        service: &str,
        endpoint: &str,
    ) -> Result<ReversePrivateEndpoint, ApiError> {
        self.result(Call::new(
            "get reverse private endpoint",
            Method::GET,
            self.service_path(
                service,
                &format!("/pipesReversePrivateEndpoints/{}", segment(endpoint)),
            ),
        ))
        .await
    }

    /// `POST /services/{id}/pipesReversePrivateEndpoints`. Not retried after an ambiguous
    /// failure (see [`ApiError::is_ambiguous`]).
    pub(crate) async fn create_reverse_endpoint(
        &self,
        service: &str,
        body: &ReverseEndpointSpec,
    ) -> Result<ReversePrivateEndpoint, ApiError> {
        let call = Call::new(
            "create reverse private endpoint",
            Method::POST,
            self.service_path(service, "/pipesReversePrivateEndpoints"),
        )
        .json(body)?;
        self.result(call).await
    }

    /// `DELETE /services/{id}/pipesReversePrivateEndpoints/{endpointId}`.
    pub(crate) async fn delete_reverse_endpoint(
        &self,
        service: &str,
        endpoint: &str,
    ) -> Result<(), ApiError> {
        let call = Call::new(
            "delete reverse private endpoint",
            Method::DELETE,
            self.service_path(
                service,
                &format!("/pipesReversePrivateEndpoints/{}", segment(endpoint)),
            ),
        );
        delete(&self.api, &call).await
    }

    /// `DELETE /services/{id}/pipes/{pipeId}` (answers before teardown ends).
    pub async fn delete_pipe(&self, service: &str, pipe: &str) -> Result<(), ApiError> {
        let call = Call::new(
            "delete pipe",
            Method::DELETE,
            self.service_path(service, &format!("/pipes/{}", segment(pipe))),
        );
        delete(&self.api, &call).await
    }

    /// `POST /services/{id}/pipes`: the whole pipe, credentials included.
    pub(crate) async fn create_pipe(
        &self,
        service: &str,
        body: &serde_json::Value,
    ) -> Result<Pipe, ApiError> {
        let call = Call::new(
            "create pipe",
            Method::POST,
            self.service_path(service, "/pipes"),
        )
        .json(body)?;
        self.result(call).await
    }

    /// `PATCH /services/{id}/pipes/{pipeId}`: only the members that change.
    pub(crate) async fn update_pipe(
        &self,
        service: &str,
        pipe: &str,
        body: &serde_json::Value,
    ) -> Result<Pipe, ApiError> {
        let call = Call::new(
            "update pipe",
            Method::PATCH,
            self.service_path(service, &format!("/pipes/{}", segment(pipe))),
        )
        .json(body)?;
        self.result(call).await
    }

    /// `PATCH /services/{id}/pipes/{pipeId}/scaling`.
    pub(crate) async fn update_pipe_scaling(
        &self,
        service: &str,
        pipe: &str,
        patch: &PipeScalingPatch,
    ) -> Result<Pipe, ApiError> {
        let call = Call::new(
            "update pipe scaling",
            Method::PATCH,
            self.service_path(service, &format!("/pipes/{}/scaling", segment(pipe))),
        )
        .json(patch)?;
        self.result(call).await
    }

    /// `PATCH /services/{id}/pipes/{pipeId}/state` with `{"command": ...}`: `start`, `stop`
    /// or `resync`.
    pub(crate) async fn pipe_command(
        &self,
        service: &str,
        pipe: &str,
        command: &str,
    ) -> Result<Pipe, ApiError> {
        let call = Call::new(
            "change pipe state",
            Method::PATCH,
            self.service_path(service, &format!("/pipes/{}/state", segment(pipe))),
        )
        .json(&serde_json::json!({ "command": command }))?;
        self.result(call).await
    }

    /// `PUT /services/{id}/pipes/{pipeId}/settings`: the whole settings map.
    pub(crate) async fn put_pipe_settings(
        &self,
        service: &str,
        pipe: &str,
        settings: &serde_json::Value,
    ) -> Result<serde_json::Value, ApiError> {
        let call = Call::new(
            "put pipe settings",
            Method::PUT,
            self.service_path(service, &format!("/pipes/{}/settings", segment(pipe))),
        )
        .json(settings)?;
        self.result(call).await
    }

    /// `GET /services/{id}/pipesCdcScaling`: the compute shared by the service's database pipes.
    pub(crate) async fn pipe_compute(&self, service: &str) -> Result<PipeScaling, ApiError> {
        self.result(Call::new(
            "read database pipe compute",
            Method::GET,
            self.service_path(service, "/pipesCdcScaling"),
        ))
        .await
    }

    /// `PATCH /services/{id}/pipesCdcScaling`: only the members that change.
    pub(crate) async fn update_pipe_compute(
        &self,
        service: &str,
        patch: &PipeScalingPatch,
    ) -> Result<PipeScaling, ApiError> {
        let call = Call::new(
            "update database pipe compute",
            Method::PATCH,
            self.service_path(service, "/pipesCdcScaling"),
        )
        .json(patch)?;
        self.result(call).await
    }

    fn stack_path(&self, service: &str, rest: &str) -> String {
        self.service_path(service, &format!("/stack{rest}"))
    }

    /// `GET .../stack/dashboards` of the managed stack of `service`.
    pub(crate) async fn list_stack_dashboards(
        &self,
        service: &str,
    ) -> Result<Vec<Dashboard>, ApiError> {
        self.result(Call::new(
            "list dashboards",
            Method::GET,
            self.stack_path(service, "/dashboards"),
        ))
        .await
    }

    /// `POST .../stack/dashboards`.
    pub(crate) async fn create_stack_dashboard(
        &self,
        service: &str,
        dashboard: &DashboardRequest,
    ) -> Result<Dashboard, ApiError> {
        let call = Call::new(
            "create dashboard",
            Method::POST,
            self.stack_path(service, "/dashboards"),
        )
        .json(dashboard)?;
        self.result(call).await
    }

    /// `POST .../stack/dashboards/validate`: the checks of a create, nothing stored. A read, so
    /// resent like one.
    pub(crate) async fn validate_stack_dashboard(
        &self,
        service: &str,
        dashboard: &DashboardRequest,
    ) -> Result<super::wire::DashboardValidation, ApiError> {
        let call = Call::new(
            "validate dashboard",
            Method::POST,
            self.stack_path(service, "/dashboards/validate"),
        )
        .json(dashboard)?
        .idempotent();
        self.result(call).await
    }

    /// `PUT .../stack/dashboards/{id}` (replaces the whole dashboard).
    pub(crate) async fn update_stack_dashboard(
        &self,
        service: &str,
        id: &str,
        dashboard: &DashboardRequest,
    ) -> Result<Dashboard, ApiError> {
        let call = Call::new(
            "update dashboard",
            Method::PUT,
            self.stack_path(service, &format!("/dashboards/{}", segment(id))),
        )
        .json(dashboard)?;
        self.result(call).await
    }

    /// `DELETE .../stack/dashboards/{id}` (its alerts go with it).
    pub(crate) async fn delete_stack_dashboard(
        &self,
        service: &str,
        id: &str,
    ) -> Result<(), ApiError> {
        let call = Call::new(
            "delete dashboard",
            Method::DELETE,
            self.stack_path(service, &format!("/dashboards/{}", segment(id))),
        );
        delete(&self.api, &call).await
    }

    /// `GET .../stack/alerts`.
    pub(crate) async fn list_stack_alerts(&self, service: &str) -> Result<Vec<Alert>, ApiError> {
        self.result(Call::new(
            "list alerts",
            Method::GET,
            self.stack_path(service, "/alerts"),
        ))
        .await
    }

    /// `POST .../stack/alerts`.
    pub(crate) async fn create_stack_alert(
        &self,
        service: &str,
        alert: &AlertRequest,
    ) -> Result<Alert, ApiError> {
        let call = Call::new(
            "create alert",
            Method::POST,
            self.stack_path(service, "/alerts"),
        )
        .json(alert)?;
        self.result(call).await
    }

    /// `PUT .../stack/alerts/{id}` (replaces the whole alert).
    pub(crate) async fn update_stack_alert(
        &self,
        service: &str,
        id: &str,
        alert: &AlertRequest,
    ) -> Result<Alert, ApiError> {
        let call = Call::new(
            "update alert",
            Method::PUT,
            self.stack_path(service, &format!("/alerts/{}", segment(id))),
        )
        .json(alert)?;
        self.result(call).await
    }

    /// `DELETE .../stack/alerts/{id}`; an alert already gone (404) is deleted.
    pub(crate) async fn delete_stack_alert(&self, service: &str, id: &str) -> Result<(), ApiError> {
        let call = Call::new(
            "delete alert",
            Method::DELETE,
            self.stack_path(service, &format!("/alerts/{}", segment(id))),
        );
        delete_gone(&self.api, &call).await
    }

    /// `GET .../stack/sources` (read-only).
    pub async fn list_stack_sources(&self, service: &str) -> Result<Vec<Source>, ApiError> {
        self.result(Call::new(
            "list sources",
            Method::GET,
            self.stack_path(service, "/sources"),
        ))
        .await
    }

    /// The webhooks of a service's managed stack (`.../stack/webhooks`; the document only
    /// lists them).
    pub async fn list_stack_webhooks(&self, service: &str) -> Result<Vec<Webhook>, ApiError> {
        self.result(Call::new(
            "list webhooks",
            Method::GET,
            self.stack_path(service, "/webhooks"),
        ))
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_cannot_reshape_a_path() {
        assert_eq!(
            segment("1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11"),
            "1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11"
        );
        assert_eq!(segment("../x?y=1"), "..%2Fx%3Fy%3D1");
    }
}
