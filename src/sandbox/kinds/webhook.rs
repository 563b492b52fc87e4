//! Webhooks of a stack: listed on both APIs; created, replaced and deleted on the observability
//! API (the managed stack's document only lists them). The rules are hdx-server's
//! (`externalWebhookCreateSchema`, `validateWebhookUrl`, `updateWebhook`, `deleteWebhook`): a
//! URL that names a private or reserved address is refused, `headers` and `queryParams` are
//! write-only (kept here only as a fingerprint, never answered), a PUT keeps them when left
//! out unless the destination changes, and a webhook an alert names cannot be deleted.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use serde_json::{Map, Value};

use crate::api::wire::Webhook;
use crate::sandbox::faults::hash_bytes;
use crate::sandbox::routes::{Api, ApiError, Call, Ctx, Reply, Route, cloud_template};
use crate::sandbox::seed::iso_ms;
use crate::sandbox::store::StoredWebhook;

use super::common::{body_invalid, path_id, stack_index, to_value};

/// The routes of webhooks, through the managed stack (list only) and the observability API.
pub(super) const ROUTES: &[Route] = &[
    Route::new(
        Api::Cloud,
        "GET",
        cloud_template!("/services/{serviceId}/stack/webhooks"),
        list,
    ),
    Route::new(Api::Observability, "GET", "/api/v2/webhooks", list),
    Route::new(Api::Observability, "POST", "/api/v2/webhooks", create).writes(),
    Route::new(Api::Observability, "PUT", "/api/v2/webhooks/{id}", update).writes(),
    Route::new(
        Api::Observability,
        "DELETE",
        "/api/v2/webhooks/{id}",
        delete,
    )
    .writes(),
];

const SERVICES: [&str; 3] = ["slack", "generic", "incidentio"];
const NAME_MAX: usize = 1024;
const URL_MAX: usize = 2048;
const DESCRIPTION_MAX: usize = 2048;
const BODY_MAX: usize = 16 * 1024;
const ENTRIES_MAX: usize = 100;
const DUPLICATE: &str = "A webhook with this service and name already exists";

fn list(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let stack = stack_index(ctx, call)?;
    let webhooks: Vec<&Webhook> = ctx.world.stacks[stack]
        .webhooks
        .iter()
        .map(|w| &w.webhook)
        .collect();
    let total = webhooks.len();
    let page = to_value(&webhooks)?;
    match call.api {
        Api::Observability => Ok(Reply::Paged(
            page,
            serde_json::json!({"total": total, "limit": 1000, "offset": 0}),
        )),
        Api::Cloud => Ok(Reply::Ok(page)),
    }
}

fn create(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let stack = stack_index(ctx, call)?;
    let input = Input::read(call.body)?;
    input.destination_allowed()?;
    let now = iso_ms(ctx.now);
    let world = &mut *ctx.world;
    if world.stacks[stack]
        .webhooks
        .iter()
        .any(|w| w.webhook.service == input.service && w.webhook.name == input.name)
    {
        return Err(ApiError::new(400, "BAD_REQUEST", DUPLICATE));
    }
    let id = world.new_id();
    let stored = input.stored(id, now.clone(), now, None);
    let value = to_value(&stored.webhook)?;
    world.stacks[stack].webhooks.push(stored);
    Ok(Reply::Ok(value))
}

fn update(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let id = path_id(ctx, call)?;
    let stack = stack_index(ctx, call)?;
    let input = Input::read(call.body)?;
    let now = iso_ms(ctx.now);
    let webhooks = &mut ctx.world.stacks[stack].webhooks;
    let Some(at) = webhooks.iter().position(|w| w.webhook.id == id) else {
        return Err(ApiError::new(404, "NOT_FOUND", "Webhook not found"));
    };
    input.destination_allowed()?;
    if webhooks.iter().any(|w| {
        w.webhook.id != id && w.webhook.service == input.service && w.webhook.name == input.name
    }) {
        return Err(ApiError::new(400, "BAD_REQUEST", DUPLICATE));
    }
    let existing = &webhooks[at];
    let stored = input.stored(
        id.to_string(),
        existing.webhook.created_at.clone().unwrap_or_default(),
        now,
        Some(existing),
    );
    let value = to_value(&stored.webhook)?;
    webhooks[at] = stored;
    Ok(Reply::Ok(value))
}

fn delete(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let id = path_id(ctx, call)?;
    let at = stack_index(ctx, call)?;
    let stack = &mut ctx.world.stacks[at];
    // Any alert naming it blocks the delete, whatever its channel's type (`deleteWebhook`).
    let referencing = stack
        .alerts
        .iter()
        .filter(|a| {
            a.channel.as_ref().and_then(|c| c.webhook_id.as_deref()) == Some(id)
                || a.newer
                    .channels
                    .iter()
                    .flatten()
                    .any(|c| c.webhook_id.as_deref() == Some(id))
        })
        .count();
    if referencing > 0 {
        return Err(ApiError::new(
            409,
            "CONFLICT",
            format!(
                "Cannot delete webhook: {referencing} alert(s) still reference it. Reassign or remove those alerts first."
            ),
        ));
    }
    let before = stack.webhooks.len();
    stack.webhooks.retain(|w| w.webhook.id != id);
    if stack.webhooks.len() == before {
        return Err(ApiError::new(404, "NOT_FOUND", "Webhook not found"));
    }
    Ok(Reply::Deleted)
}

/// A create or update body, checked as `externalWebhookCreateSchema` checks it.
struct Input {
    name: String,
    service: String,
    url: String,
    description: Option<String>,
    body: Option<String>,
    /// `None`: left out; `Some(None)`: `{}` (cleared); `Some(Some(fp))`: written.
    headers: Option<Option<String>>,
    query_params: Option<Option<String>>,
}

impl Input {
    fn read(body: &Value) -> Result<Input, ApiError> {
        let map = body
            .as_object()
            .ok_or_else(|| body_invalid("", "Expected object, received other"))?;
        let mut problems: Vec<(String, String)> = Vec::new();
        let name = text(map, "name", &mut problems).map(|n| n.trim().to_string());
        match &name {
            Some(n) if n.is_empty() => problems.push((
                "name".into(),
                "String must contain at least 1 character(s)".into(),
            )),
            Some(n) if n.chars().count() > NAME_MAX => problems.push((
                "name".into(),
                format!("String must contain at most {NAME_MAX} character(s)"),
            )),
            _ => {}
        }
        let service = text(map, "service", &mut problems);
        if let Some(s) = service.as_deref().filter(|s| !SERVICES.contains(s)) {
            problems.push((
                "service".into(),
                format!(
                    "Invalid enum value. Expected 'slack' | 'generic' | 'incidentio', received '{s}'"
                ),
            ));
        }
        let url = text(map, "url", &mut problems);
        if let Some(u) = &url {
            if reqwest::Url::parse(u).is_err() {
                problems.push(("url".into(), "Invalid url".into()));
            } else if u.chars().count() > URL_MAX {
                problems.push((
                    "url".into(),
                    format!("String must contain at most {URL_MAX} character(s)"),
                ));
            }
        }
        let description = optional_text(map, "description", DESCRIPTION_MAX, &mut problems);
        let template = optional_text(map, "body", BODY_MAX, &mut problems);
        let headers = entries(map, "headers", true, &mut problems);
        let query_params = entries(map, "queryParams", false, &mut problems);
        if service.as_deref() == Some("slack") {
            for field in ["headers", "queryParams", "body"] {
                if map.get(field).is_some_and(|v| !v.is_null()) {
                    problems.push((
                        field.into(),
                        format!("{field} is not supported for the slack webhook service"),
                    ));
                }
            }
        }
        match (name, service, url) {
            (Some(name), Some(service), Some(url)) if problems.is_empty() => Ok(Input {
                name,
                service,
                url,
                description,
                body: template,
                headers,
                query_params,
            }),
            _ => {
                let joined: Vec<String> =
                    problems.iter().map(|(p, m)| format!("{p}: {m}")).collect();
                Err(ApiError::new(
                    400,
                    "BAD_REQUEST",
                    format!("Body validation failed: {}", joined.join("; ")),
                ))
            }
        }
    }

    /// `validateWebhookUrl`: HTTP or HTTPS, a Slack URL on `slack.com`, and no private or
    /// reserved address (`localhost` and IP literals; no name is resolved).
    fn destination_allowed(&self) -> Result<(), ApiError> {
        let refuse = |message: String| Err(ApiError::new(400, "BAD_REQUEST", message));
        let Ok(url) = reqwest::Url::parse(&self.url) else {
            return refuse("Webhook URL is invalid".into());
        };
        if !matches!(url.scheme(), "http" | "https") {
            return refuse("Webhook URL must use HTTP or HTTPS".into());
        }
        let host = url
            .host_str()
            .unwrap_or_default()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .trim_end_matches('.')
            .to_ascii_lowercase();
        if self.service == "slack" {
            let parts: Vec<&str> = host.split('.').collect();
            let domain = if parts.len() >= 2 {
                parts[parts.len() - 2..].join(".")
            } else {
                host.clone()
            };
            if domain != "slack.com" {
                return refuse(format!(
                    "Slack Webhook URL {} does not have hostname that ends in 'slack.com'",
                    self.url
                ));
            }
        }
        let localhost = host == "localhost" || host.ends_with(".localhost");
        if localhost || host.parse::<IpAddr>().is_ok_and(is_private) {
            return refuse("Webhook URL resolves to a private or reserved address.".into());
        }
        Ok(())
    }

    /// The stored webhook; `existing` is the one a PUT replaces (its write-only members kept
    /// when left out, unless the destination changes).
    fn stored(
        self,
        id: String,
        created: String,
        updated: String,
        existing: Option<&StoredWebhook>,
    ) -> StoredWebhook {
        let moved = existing.is_none_or(|e| {
            e.webhook.url.as_deref() != Some(&self.url) || e.webhook.service != self.service
        });
        let kept = |written: Option<Option<String>>, old: Option<&String>| match written {
            Some(value) => value,
            None if moved => None,
            None => old.cloned(),
        };
        let headers = kept(self.headers, existing.and_then(|e| e.headers.as_ref()));
        let query_params = kept(
            self.query_params,
            existing.and_then(|e| e.query_params.as_ref()),
        );
        StoredWebhook {
            webhook: Webhook {
                id,
                name: self.name,
                body: self.body.filter(|_| self.service == "generic"),
                service: self.service,
                url: Some(self.url),
                description: self.description,
                updated_at: Some(updated),
                created_at: Some(created),
            },
            headers,
            query_params,
        }
    }
}

fn text(
    map: &Map<String, Value>,
    key: &str,
    problems: &mut Vec<(String, String)>,
) -> Option<String> {
    match map.get(key) {
        Some(Value::String(s)) => Some(s.clone()),
        None => {
            problems.push((key.into(), "Required".into()));
            None
        }
        Some(_) => {
            problems.push((key.into(), "Expected string".into()));
            None
        }
    }
}

fn optional_text(
    map: &Map<String, Value>,
    key: &str,
    max: usize,
    problems: &mut Vec<(String, String)>,
) -> Option<String> {
    match map.get(key) {
        None => None,
        Some(Value::String(s)) if s.chars().count() <= max => Some(s.clone()),
        Some(Value::String(_)) => {
            problems.push((
                key.into(),
                format!("String must contain at most {max} character(s)"),
            ));
            None
        }
        Some(_) => {
            problems.push((key.into(), "Expected string".into()));
            None
        }
    }
}

/// `headers` (header names checked as HTTP tokens) or `queryParams`: `None` when left out,
/// `Some(None)` for `{}`, else a fingerprint of the entries.
fn entries(
    map: &Map<String, Value>,
    key: &str,
    header_names: bool,
    problems: &mut Vec<(String, String)>,
) -> Option<Option<String>> {
    let value = map.get(key)?;
    let Some(entries) = value.as_object() else {
        problems.push((key.into(), "Expected object".into()));
        return None;
    };
    let control = |s: &str| s.chars().any(|c| c.is_control());
    for (name, v) in entries {
        let at = format!("{key}.{name}");
        let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
        if name.is_empty() {
            problems.push((at.clone(), "name cannot be empty".into()));
        } else if header_names && !name.chars().all(token) {
            problems.push((
                at.clone(),
                "Invalid header name. Only alphanumeric characters and !#$%&'*+-.^_`|~ are allowed"
                    .into(),
            ));
        } else if header_names && name.starts_with(|c: char| c.is_ascii_digit()) {
            problems.push((at.clone(), "Header name cannot start with a number".into()));
        } else if !header_names && control(name) {
            problems.push((
                at.clone(),
                "Query parameter names cannot contain control characters".into(),
            ));
        }
        match v.as_str() {
            Some(s) if control(s) => problems.push((
                at,
                if header_names {
                    "Header values cannot contain control characters".into()
                } else {
                    "Query parameter values cannot contain control characters".into()
                },
            )),
            Some(_) => {}
            None => problems.push((at, "Expected string".into())),
        }
    }
    if entries.len() > ENTRIES_MAX {
        problems.push((
            key.into(),
            format!("A webhook cannot have more than {ENTRIES_MAX} entries"),
        ));
    }
    if entries.is_empty() {
        return Some(None);
    }
    let text = serde_json::to_string(entries).unwrap_or_default();
    Some(Some(format!("{:016x}", hash_bytes(text.as_bytes()))))
}

/// `isPrivateIp`: loopback, private, link-local, multicast, shared (CGNAT), unspecified and the
/// reserved IPv4 blocks; loopback, link-local, unique-local, multicast, unspecified,
/// documentation and discard IPv6, and IPv4 addresses mapped into IPv6.
fn is_private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => private_v4(v4),
        IpAddr::V6(v6) => private_v6(v6),
    }
}

fn private_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_multicast()
        || ip.is_unspecified()
        || (a == 100 && (64..128).contains(&b))
        || a == 0
        || (a == 192 && b == 0 && c == 0)
        || (a == 198 && (b == 18 || b == 19))
        || (a == 192 && b == 0 && c == 2)
        || (a == 198 && b == 51 && c == 100)
        || (a == 203 && b == 0 && c == 113)
        || a >= 240
}

fn private_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    // `::ffff:a.b.c.d` and the deprecated `::a.b.c.d` (but `::` and `::1` are their own).
    let mapped = s[..5] == [0; 5] && s[5] == 0xffff;
    let compatible = s[..6] == [0; 6] && !(ip.is_unspecified() || ip.is_loopback());
    if mapped || compatible {
        let v4 = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
        return private_v4(v4);
    }
    ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        || (s[0] & 0xffc0) == 0xfe80
        || (s[0] & 0xfe00) == 0xfc00
        || (s[0] == 0x2001 && s[1] == 0x0db8)
        || (s[..4] == [0x0100, 0, 0, 0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_and_reserved_addresses_are_refused() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.1.1",
            "100.64.0.1",
            "0.1.2.3",
            "198.18.0.1",
            "203.0.113.9",
            "240.0.0.1",
            "224.0.0.1",
            "::1",
            "::",
            "fe80::1",
            "fd00::1",
            "2001:db8::1",
            "::ffff:10.0.0.1",
            "100::1",
        ] {
            assert!(is_private(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["8.8.8.8", "1.1.1.1", "2606:4700::1111", "::ffff:8.8.8.8"] {
            assert!(!is_private(ip.parse().unwrap()), "{ip}");
        }
    }
}
