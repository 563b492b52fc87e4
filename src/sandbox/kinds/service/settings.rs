//! The members of `PATCH /services/{id}` beside its private endpoints: the IP access list as
//! `{add, remove}` (remove runs first; each source an IP address or CIDR), the release channel
//! (other than `default` only on a production service) and the `mysql` endpoint switched on
//! or off. Each is checked whole before anything is changed, so a 400 changes nothing.

use serde_json::{Map, Value};

use crate::api::limits::is_ip_source;
use crate::api::wire::{IpAccessEntry, Service, ServiceEndpoint};
use crate::sandbox::validate::{self, Check, invalid};

/// The port the MySQL interface answers on.
const MYSQL_PORT: i64 = 3306;

/// What a PATCH asks of these members, checked.
#[derive(Debug, Default)]
pub(crate) struct SettingsPatch {
    /// Entries removed (by source), then added.
    ip_access_list: Option<(Vec<String>, Vec<IpAccessEntry>)>,
    /// The new channel.
    release_channel: Option<String>,
    /// The `mysql` endpoint on or off.
    mysql: Option<bool>,
}

/// Checks the members of a service PATCH; `paid` is whether the service is a production one.
pub(crate) fn patch(map: &Map<String, Value>, paid: bool) -> Check<SettingsPatch> {
    let mut patch = SettingsPatch::default();
    if let Some(list) = map.get("ipAccessList").filter(|v| !v.is_null()) {
        let list = validate::object(list, "ipAccessList")?;
        let remove = entries(list, "remove")?
            .into_iter()
            .map(|e| e.source)
            .collect();
        patch.ip_access_list = Some((remove, entries(list, "add")?));
    }
    patch.release_channel =
        validate::enumerated(map, "releaseChannel", "", &["slow", "default", "fast"])?;
    if let Some(channel) = &patch.release_channel
        && channel != "default"
        && !paid
    {
        return invalid(
            "releaseChannel",
            format!("{channel} is only available for production services"),
        );
    }
    if let Some(endpoints) = validate::array(map, "endpoints", "")? {
        for (i, endpoint) in endpoints.iter().enumerate() {
            let at = format!("endpoints[{i}]");
            let endpoint = validate::object(endpoint, &at)?;
            validate::enumerated(endpoint, "protocol", &at, &["mysql"])?;
            let Some(enabled) = validate::boolean(endpoint, "enabled", &at)? else {
                return invalid(format!("{at}.enabled"), "is required");
            };
            patch.mysql = Some(enabled);
        }
    }
    Ok(patch)
}

/// The entries of `ipAccessList.add` or `.remove`.
fn entries(list: &Map<String, Value>, key: &str) -> Check<Vec<IpAccessEntry>> {
    let prefix = format!("ipAccessList.{key}");
    let Some(items) = validate::array(list, key, "ipAccessList")? else {
        return Ok(Vec::new());
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let at = format!("{prefix}[{i}]");
            let item = validate::object(item, &at)?;
            let source = validate::required_string(item, "source", &at, 64)?;
            if !is_ip_source(&source) {
                return invalid(
                    format!("{at}.source"),
                    format!("`{source}` is not an IP address or CIDR"),
                );
            }
            let description = validate::string(item, "description", &at, 1024)?.unwrap_or_default();
            Ok(IpAccessEntry {
                source,
                description,
            })
        })
        .collect()
}

/// Applies a checked patch: what a GET answers afterwards.
pub(crate) fn apply(service: &mut Service, patch: SettingsPatch) {
    if let Some((remove, add)) = patch.ip_access_list {
        let list = &mut service.ip_access_list;
        list.retain(|e| !remove.contains(&e.source));
        for entry in add {
            // One entry a source: an added source replaces the one listed.
            list.retain(|e| e.source != entry.source);
            list.push(entry);
        }
    }
    if let Some(channel) = patch.release_channel {
        service.release_channel = Some(channel);
    }
    match patch.mysql {
        Some(true) if !has_mysql(service) => {
            let host = service.endpoints.iter().find_map(|e| e.host.clone());
            service.endpoints.push(ServiceEndpoint {
                protocol: Some("mysql".into()),
                host,
                port: Some(MYSQL_PORT),
                username: Some("default".into()),
            });
        }
        Some(false) => service
            .endpoints
            .retain(|e| e.protocol.as_deref() != Some("mysql")),
        Some(true) | None => {}
    }
}

fn has_mysql(service: &Service) -> bool {
    service
        .endpoints
        .iter()
        .any(|e| e.protocol.as_deref() == Some("mysql"))
}
