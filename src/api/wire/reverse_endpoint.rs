//! Reverse private endpoints of a service's pipes (`.../pipesReversePrivateEndpoints`): what a
//! create sends (`CreateReversePrivateEndpoint`) and what the list and get answer
//! (`ReversePrivateEndpoint`).

use serde::{Deserialize, Serialize};

use super::lenient;

/// The members a reverse private endpoint is created with, as `CreateReversePrivateEndpoint`
/// names them; also the part of a live one a config declares. The cloud changes none of them
/// (the document has no `PATCH`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReverseEndpointSpec {
    /// Description (at most 255 characters); converge finds the endpoint by it.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub description: String,
    /// `VPC_ENDPOINT_SERVICE`, `VPC_RESOURCE`, `MSK_MULTI_VPC` or `GCP_PSC_SERVICE_ATTACHMENT`.
    #[serde(rename = "type", default, deserialize_with = "lenient::or_default")]
    pub kind: String,
    /// VPC endpoint service name (`VPC_ENDPOINT_SERVICE`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vpc_endpoint_service_name: Option<String>,
    /// VPC resource configuration id (`VPC_RESOURCE`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vpc_resource_configuration_id: Option<String>,
    /// VPC resource share ARN (`VPC_RESOURCE`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vpc_resource_share_arn: Option<String>,
    /// MSK cluster ARN (`MSK_MULTI_VPC`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub msk_cluster_arn: Option<String>,
    /// `SASL_IAM` or `SASL_SCRAM` (`MSK_MULTI_VPC`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub msk_authentication: Option<String>,
    /// GCP PSC service attachment URI (`GCP_PSC_SERVICE_ATTACHMENT`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gcp_service_attachment: Option<String>,
    /// Private DNS names.
    #[serde(
        default,
        deserialize_with = "lenient::or_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub custom_private_dns_mappings: Vec<DnsMapping>,
}

/// One of `customPrivateDnsMappings`.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DnsMapping {
    /// An exact name or a leading wildcard (`*.example.com`).
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub private_dns_name: String,
}

/// A reverse private endpoint as the list and get answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReversePrivateEndpoint {
    /// Its id (a UUID): what pipes name in `reversePrivateEndpointIds`.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub id: String,
    /// What it was created with.
    #[serde(flatten)]
    pub spec: ReverseEndpointSpec,
    /// `Provisioning`, `Ready`, `Failed`, ... (`Unknown` when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// The cloud's endpoint id (`vpce-...`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint_id: Option<String>,
}
