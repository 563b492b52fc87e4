//! Reverse private endpoints of a service's pipes, as the cloud document serves them
//! (`.../pipesReversePrivateEndpoints`: create, list, get, delete): a create checked against
//! `CreateReversePrivateEndpoint` (each type's required members), answered as a
//! `ReversePrivateEndpoint` that reads `Provisioning` and then, after the sandbox's delay,
//! `Ready`.

use serde_json::{Map, Value, json};

use crate::sandbox::model::Quirk;
use crate::sandbox::routes::{Api, ApiError, Call, Ctx, Reply, Route, cloud_template};
use crate::sandbox::seed::uuid_from;
use crate::sandbox::store::ReverseEndpointRecord;
use crate::sandbox::validate;

use super::common::{require_running, service_index};

/// The routes of reverse private endpoints.
pub(super) const ROUTES: &[Route] = &[
    Route::new(
        Api::Cloud,
        "GET",
        cloud_template!("/services/{serviceId}/pipesReversePrivateEndpoints"),
        list,
    ),
    Route::new(
        Api::Cloud,
        "POST",
        cloud_template!("/services/{serviceId}/pipesReversePrivateEndpoints"),
        create,
    )
    .writes(),
    Route::new(
        Api::Cloud,
        "GET",
        cloud_template!(
            "/services/{serviceId}/pipesReversePrivateEndpoints/{reversePrivateEndpointId}"
        ),
        get,
    ),
    Route::new(
        Api::Cloud,
        "DELETE",
        cloud_template!(
            "/services/{serviceId}/pipesReversePrivateEndpoints/{reversePrivateEndpointId}"
        ),
        delete,
    )
    .writes(),
];

/// The endpoint types and the members each requires (`CreateReversePrivateEndpoint`).
const TYPES: [(&str, &[&str]); 4] = [
    ("VPC_ENDPOINT_SERVICE", &["vpcEndpointServiceName"]),
    (
        "VPC_RESOURCE",
        &["vpcResourceConfigurationId", "vpcResourceShareArn"],
    ),
    ("MSK_MULTI_VPC", &["mskClusterArn", "mskAuthentication"]),
    ("GCP_PSC_SERVICE_ATTACHMENT", &["gcpServiceAttachment"]),
];

/// The members a create takes.
const MEMBERS: [&str; 9] = [
    "description",
    "type",
    "vpcEndpointServiceName",
    "vpcResourceConfigurationId",
    "vpcResourceShareArn",
    "mskClusterArn",
    "mskAuthentication",
    "gcpServiceAttachment",
    "customPrivateDnsMappings",
];

/// An endpoint as answered now: its status by the time it was made ready at (`Failed` under
/// `--quirks reverse-endpoints-fail`).
fn render(record: &ReverseEndpointRecord, ctx: &Ctx<'_>) -> Value {
    let mut endpoint = record.endpoint.clone();
    let fails = ctx.quirks.contains(&Quirk::ReverseEndpointsFail);
    endpoint["status"] = json!(match (ctx.wall_ms >= record.ready_at, fails) {
        (false, _) => "Provisioning",
        (true, false) => "Ready",
        (true, true) => "Failed",
    });
    endpoint
}

fn list(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    service_index(ctx, call)?;
    let endpoints: Vec<Value> = ctx
        .world
        .reverse_private_endpoints
        .iter()
        .filter(|r| r.endpoint["serviceId"] == call.service)
        .map(|r| render(r, ctx))
        .collect();
    Ok(Reply::Ok(Value::Array(endpoints)))
}

fn find(ctx: &Ctx<'_>, call: &Call<'_>) -> Result<usize, ApiError> {
    ctx.world
        .reverse_private_endpoints
        .iter()
        .position(|r| {
            r.endpoint["serviceId"] == call.service && r.endpoint["id"].as_str() == call.id
        })
        .ok_or_else(|| {
            ApiError::not_found(format!(
                "reverse private endpoint {} not found",
                call.id.unwrap_or_default()
            ))
        })
}

fn get(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    service_index(ctx, call)?;
    let index = find(ctx, call)?;
    Ok(Reply::Ok(render(
        &ctx.world.reverse_private_endpoints[index],
        ctx,
    )))
}

fn delete(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let service = service_index(ctx, call)?;
    let index = find(ctx, call)?;
    require_running(ctx.world, service)?;
    ctx.world.reverse_private_endpoints.remove(index);
    Ok(Reply::Deleted)
}

/// `POST`: the type and its required members, the description's length, the DNS mappings
/// (which MSK multi-VPC endpoints do not take).
fn create(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let service = service_index(ctx, call)?;
    let map = validate::object(call.body, "")?;
    if let Some(member) = map.keys().find(|k| !MEMBERS.contains(&k.as_str())) {
        return Err(ApiError::body(
            member.as_str(),
            "is not a member of the request",
        ));
    }
    let kinds: Vec<&str> = TYPES.iter().map(|(kind, _)| *kind).collect();
    let kind = validate::enumerated(map, "type", "", &kinds)?
        .ok_or_else(|| ApiError::body("type", "is required"))?;
    validate::string(map, "description", "", 255)?;
    for (_, required) in TYPES.iter().filter(|(k, _)| *k == kind) {
        for member in *required {
            validate::required_string(map, member, "", 2048)?;
        }
    }
    validate::enumerated(map, "mskAuthentication", "", &["SASL_IAM", "SASL_SCRAM"])?;
    let names = dns_names(map, &kind)?;
    require_running(ctx.world, service)?;
    let counter = ctx.world.new_id();
    let id = uuid_from(&format!("{}/reverse-endpoint/{counter}", call.service));
    let mut endpoint: Map<String, Value> = map.clone();
    let short: String = id
        .chars()
        .filter(char::is_ascii_hexdigit)
        .take(17)
        .collect();
    endpoint.insert("id".into(), json!(id));
    endpoint.insert("serviceId".into(), json!(call.service));
    endpoint.insert("endpointId".into(), json!(format!("vpce-{short}")));
    endpoint.insert(
        "dnsNames".into(),
        json!([format!("vpce-{short}.sandbox.vpce.local")]),
    );
    endpoint.insert("privateDnsNames".into(), json!(names));
    let record = ReverseEndpointRecord {
        endpoint: Value::Object(endpoint),
        ready_at: ctx.wall_ms.saturating_add(ctx.delay_ms),
    };
    let answer = render(&record, ctx);
    ctx.world.reverse_private_endpoints.push(record);
    Ok(Reply::Ok(answer))
}

/// The private DNS names of `customPrivateDnsMappings`, each a name; none for MSK multi-VPC.
fn dns_names(map: &Map<String, Value>, kind: &str) -> Result<Vec<String>, ApiError> {
    let Some(mappings) = validate::array(map, "customPrivateDnsMappings", "")? else {
        return Ok(Vec::new());
    };
    if kind == "MSK_MULTI_VPC" && !mappings.is_empty() {
        return Err(ApiError::body(
            "customPrivateDnsMappings",
            "is not supported for MSK multi-VPC endpoints",
        ));
    }
    mappings
        .iter()
        .enumerate()
        .map(|(i, mapping)| {
            let at = format!("customPrivateDnsMappings[{i}]");
            let mapping = validate::object(mapping, &at)?;
            Ok(validate::required_string(
                mapping,
                "privateDnsName",
                &at,
                253,
            )?)
        })
        .collect()
}

/// The `reversePrivateEndpointIds` a kafka source (`source`, as a pipe stores or a request
/// sends it) names: each an endpoint of service `service` that is `Ready` (an endpoint still
/// provisioning carries no traffic; the document answers a refused request 400).
pub(super) fn check_named(ctx: &Ctx<'_>, service: &str, source: &Value) -> Result<(), ApiError> {
    let ids = source
        .pointer("/kafka/reversePrivateEndpointIds")
        .and_then(Value::as_array);
    for (i, id) in ids.into_iter().flatten().enumerate() {
        let at = format!("source.kafka.reversePrivateEndpointIds[{i}]");
        let found = ctx
            .world
            .reverse_private_endpoints
            .iter()
            .find(|r| r.endpoint["serviceId"] == service && r.endpoint["id"] == *id);
        let Some(found) = found else {
            return Err(ApiError::body(
                at.as_str(),
                format!("reverse private endpoint {id} does not exist on the service"),
            ));
        };
        if render(found, ctx)["status"] != "Ready" {
            return Err(ApiError::body(
                at.as_str(),
                format!("reverse private endpoint {id} is not Ready"),
            ));
        }
    }
    Ok(())
}
