//! The checked tree to the typed [`Config`]. Tolerant by design: the schema has already
//! reported wrong types and missing keys, so a value of the wrong shape is skipped here rather
//! than reported twice, and the semantic rules still see everything else.

use std::collections::BTreeMap;

use indexmap::IndexMap;
use smol_str::SmolStr;

use super::interpolate;
use super::model::*;
use super::secret_fields::{KEY_SECRET, TOKEN};
use super::yaml::{Key, Kind, Node, child_pointer};
use crate::diagnostic::{Code, Diagnostic, Span};

/// Whether variables are needed now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadMode {
    /// `validate`: an unset `${env:...}` is a warning, so pull-request checks run without secrets.
    Offline,
    /// `plan`, `apply` and the other commands that talk to the APIs: an unset variable is an error.
    Live,
}

/// Builds the config; `None` when even `version` or `organization` is unusable.
pub(crate) fn build(
    root: &mut Node,
    mode: LoadMode,
    env: &dyn Fn(&str) -> Option<String>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Config> {
    let version = root.get("version").and_then(int)?;
    let organization = root.get("organization").and_then(string)?;
    let secrets = Secrets {
        mode,
        env,
        own: own_variables(root),
    };
    let cloud = root.get("cloud").map(|c| CloudSettings {
        url: c.get("url").and_then(string),
        key_id: c.get("keyId").and_then(string),
        key_secret: c
            .get(KEY_SECRET.key)
            .and_then(|n| secrets.read(n, KEY_SECRET.path, KEY_SECRET.variable, diags)),
    });
    let observability = root.get("observability").map(|o| ObservabilitySettings {
        url: o.get("url").and_then(string),
        token: o
            .get(TOKEN.key)
            .and_then(|n| secrets.read(n, TOKEN.path, TOKEN.variable, diags)),
    });
    let services = entries(root.get("services"))
        .map(|(key, node)| {
            (
                key.name.as_str().into(),
                service(key, node, &secrets, diags),
            )
        })
        .filter_map(|(k, s)| Some((k, s?)))
        .collect();
    let stacks = entries_mut(root.get_mut("stacks"))
        .filter_map(|(key, node)| {
            Some((key.name.as_str().into(), stack(key, node, &secrets, diags)?))
        })
        .collect();
    let ignore = list(root.get("ignore")).filter_map(string).collect();
    let policy = match root.get("policy") {
        Some(
            node @ Node {
                kind: Kind::Str(_), ..
            },
        ) => string(node).into_iter().collect(),
        node => list(node).filter_map(string).collect(),
    };
    let drift = DriftSettings {
        fail_on_unmanaged: root
            .get("drift")
            .and_then(|d| d.get("failOnUnmanaged"))
            .and_then(boolean),
    };
    Some(Config {
        version: u32::try_from(version.value).ok()?,
        organization,
        cloud,
        observability,
        services,
        stacks,
        ignore,
        drift,
        policy,
    })
}

struct Secrets<'e> {
    mode: LoadMode,
    env: &'e dyn Fn(&str) -> Option<String>,
    /// The variables converge's own secrets are read from, each with what reads it
    /// ([`own_variables`]): never a pipe credential's.
    own: Vec<(String, String)>,
}

/// The variables converge's own secrets are read from: the ones the config's `cloud.keySecret`
/// and `observability.token` reference, and the conventional ones (`CONVERGE_KEY_SECRET`,
/// `CONVERGE_OBS_TOKEN`), which `export` and `--sandbox` read whatever the config says.
fn own_variables(root: &Node) -> Vec<(String, String)> {
    let mut own = Vec::new();
    for field in super::secret_fields::SECRET_FIELDS {
        let written = root
            .get(field.section)
            .and_then(|s| s.get(field.key))
            .and_then(Node::as_str)
            .and_then(interpolate::secret_reference);
        for name in written.into_iter().chain([field.variable]) {
            if !own.iter().any(|(known, _)| known == name) {
                own.push((name.to_string(), format!("`{}`", field.path)));
            }
        }
    }
    own
}

impl Secrets<'_> {
    /// A secret field: exactly `${env:NAME}`. A literal is reported without echoing it.
    fn read(
        &self,
        node: &Node,
        field: &str,
        suggested: &str,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<SecretValue> {
        // A number or boolean is a literal secret too; other shapes are schema errors.
        let raw = match &node.kind {
            Kind::Str(s) => Some(s.as_str()),
            Kind::Int(_) | Kind::Float(_) | Kind::Bool(_) => None,
            _ => return None,
        };
        let Some((raw, name)) = raw.and_then(|r| Some((r, interpolate::secret_reference(r)?)))
        else {
            diags.push(
                Diagnostic::error(
                    Code::ConfigLiteralSecret,
                    format!("`{field}` must be an environment reference such as `${{env:{suggested}}}`, not a literal value or a default"),
                    Some(node.span),
                )
                .with_label("secret written in the file")
                .with_help(format!(
                    "write `${{env:{suggested}}}` and export {suggested}; remove the secret from the file and rotate it if it was committed"
                )),
            );
            return None;
        };
        // A pipe's source or a webhook's destination would receive converge's access.
        let webhook = is_webhook_secret(field);
        if (webhook || is_pipe_credential(field))
            && let Some((_, reads)) = self.own.iter().find(|(own, _)| own == name)
        {
            // Refused before it is read: the value never enters the config.
            diags.push(own_secret_sent(name, reads, suggested, node.span, webhook));
            return None;
        }
        let value = (self.env)(name);
        // A pipe credential is needed only by the step that sends it (a create, a replacement,
        // a rotation): the planner reports it unset there, so a config exported with
        // placeholders plans and drifts against live pipes without their secrets.
        let needed_now = self.mode == LoadMode::Offline
            || !(is_pipe_credential(field) || is_webhook_secret(field));
        if value.is_none() && needed_now {
            diags.push(unset_variable(self.mode, name, node.span).with_help(format!(
                "export {name} where the value is needed (plan, apply); `validate` runs without it"
            )));
        } else if value.as_deref().is_some_and(|v| v.trim().is_empty()) {
            // An empty secret can only be refused by the server, as a 401 far from its cause.
            let message = format!("environment variable `{name}` is set but empty");
            let diag = match self.mode {
                LoadMode::Offline => {
                    Diagnostic::warning(Code::ConfigEnvEmpty, message, Some(node.span))
                }
                LoadMode::Live => Diagnostic::error(Code::ConfigEnvEmpty, message, Some(node.span)),
            };
            diags.push(
                diag.with_label("empty here")
                    .with_help(format!("export {name} with the {field} value")),
            );
        }
        Some(SecretValue {
            reference: raw.to_string(),
            value,
            span: node.span,
        })
    }
}

/// A pipe credential read from a variable converge's own secret is read from (`reads`, the
/// field that reads it): the pipe would be sent the cloud key secret or the observability
/// token, and whoever runs its source would hold converge's access.
fn own_secret_sent(
    name: &str,
    reads: &str,
    suggested: &str,
    span: Span,
    webhook: bool,
) -> Diagnostic {
    let (sent, to, what) = match webhook {
        false => (
            "sent as a pipe credential",
            "a pipe",
            "the pipe's credential",
        ),
        true => ("sent to a webhook", "a webhook", "the webhook's secret"),
    };
    Diagnostic::error(
        Code::ConfigSecretVariable,
        format!("`{name}` holds converge's own secret ({reads} reads it) and is never {sent}"),
        Some(span),
    )
    .with_label(format!("converge's own secret sent to {to} here"))
    .with_help(format!(
        "read {what} from a variable of its own, such as `${{env:{suggested}}}`"
    ))
}

/// Whether a field path is a webhook's (`stacks.s.webhooks.w.url`): needed only by a step
/// that sends it, as a pipe credential is, so an export's placeholders plan without them.
fn is_webhook_secret(field: &str) -> bool {
    field.starts_with("stacks.") && field.contains(".webhooks.")
}

/// Whether a field path (`services.a.pipes.b.source.kafka.credentials.password`) is a pipe's.
fn is_pipe_credential(field: &str) -> bool {
    field.starts_with("services.") && field.contains(".pipes.")
}

/// The diagnostic for an unset `${env:NAME}` with no default: a warning offline (pull-request
/// checks have no secrets), an error when the value is about to be used.
pub(crate) fn unset_variable(mode: LoadMode, name: &str, span: Span) -> Diagnostic {
    let message = format!("environment variable `{name}` is not set");
    let diag = match mode {
        LoadMode::Offline => Diagnostic::warning(Code::ConfigEnvUnset, message, Some(span)),
        LoadMode::Live => Diagnostic::error(Code::ConfigEnvUnset, message, Some(span)),
    };
    diag.with_label("unset here").with_help(format!(
        "export {name}, or write `${{env:{name}:-default}}`"
    ))
}

fn service(
    key: &Key,
    node: &Node,
    secrets: &Secrets<'_>,
    diags: &mut Vec<Diagnostic>,
) -> Option<ServiceConfig> {
    Some(ServiceConfig {
        key: located_key(key),
        id: node.get("id").and_then(string)?,
        scaling: node
            .get("scaling")
            .filter(|n| n.as_map().is_some())
            .map(|s| ServiceScaling {
                span: s.span,
                num_replicas: s.get("numReplicas").and_then(number),
                idle_scaling: s.get("idleScaling").and_then(boolean),
                idle_timeout_minutes: s.get("idleTimeoutMinutes").and_then(number),
                min_total_memory_gb: s.get("minTotalMemoryGb").and_then(number),
                max_total_memory_gb: s.get("maxTotalMemoryGb").and_then(number),
                autoscaling_mode: s.get("autoscalingMode").and_then(string),
                min_replicas: s.get("minReplicas").and_then(number),
                max_replicas: s.get("maxReplicas").and_then(number),
                min_replica_memory_gb: s.get("minReplicaMemoryGb").and_then(number),
                max_replica_memory_gb: s.get("maxReplicaMemoryGb").and_then(number),
            }),
        private_endpoints: node.get("privateEndpoints").map(|list_node| {
            list(Some(list_node))
                .filter_map(|e| {
                    Some(PrivateEndpointConfig {
                        id: e.get("id").and_then(string)?,
                        description: e.get("description").and_then(string),
                    })
                })
                .collect()
        }),
        pipes: entries(node.get("pipes"))
            .filter_map(|(k, p)| {
                Some((
                    k.name.as_str().into(),
                    pipe(&key.name, k, p, secrets, diags)?,
                ))
            })
            .collect(),
        reverse_endpoints: super::reverse_endpoints::build(node.get("reversePrivateEndpoints")),
        backups: node
            .get("backups")
            .filter(|n| n.as_map().is_some())
            .map(|b| BackupChecks {
                span: b.span,
                max_age_hours: b.get("maxAgeHours").and_then(number),
                keep: list(b.get("keep")).filter_map(string).collect(),
            }),
        pipe_compute: node
            .get("pipeCompute")
            .filter(|n| n.as_map().is_some())
            .map(|c| PipeComputeConfig {
                span: c.span,
                replica_cpu_millicores: c.get("replicaCpuMillicores").and_then(int),
                replica_memory_gb: c.get("replicaMemoryGb").and_then(number),
            }),
        settings: service_settings(node),
    })
}

/// The members of a service sent through its own PATCH and its state route.
fn service_settings(node: &Node) -> ServiceSettings {
    ServiceSettings {
        name: node.get("name").and_then(string),
        ip_access_list: node.get("ipAccessList").map(|list_node| {
            let entries = list(Some(list_node))
                .filter_map(|e| {
                    Some(IpAccessConfig {
                        source: e.get("source").and_then(string)?,
                        description: e
                            .get("description")
                            .and_then(Node::as_str)
                            .unwrap_or_default()
                            .to_string(),
                    })
                })
                .collect();
            Located::new(entries, list_node.span)
        }),
        tags: node.get("tags").map(|tags| {
            let list = entries(Some(tags))
                .map(|(k, v)| TagConfig {
                    key: Located::new(k.name.to_string(), k.span),
                    value: Located::new(v.as_str().unwrap_or_default().to_string(), v.span),
                })
                .collect();
            Located::new(list, tags.span)
        }),
        release_channel: node.get("releaseChannel").and_then(string),
        mysql_endpoint: node
            .get("endpoints")
            .and_then(|e| e.get("mysql"))
            .and_then(boolean),
        state: node.get("state").and_then(string),
    }
}

fn pipe(
    service: &str,
    key: &Key,
    node: &Node,
    secrets: &Secrets<'_>,
    diags: &mut Vec<Diagnostic>,
) -> Option<PipeConfig> {
    node.as_map()?;
    let id = node.get("id").and_then(string);
    let name = node.get("name").and_then(string);
    // Neither identity: the schema reported the missing keys.
    if id.is_none() && name.is_none() {
        return None;
    }
    let source = node
        .get("source")
        .and_then(|s| pipe_source(service, key, s, secrets, diags));
    Some(PipeConfig {
        key: located_key(key),
        id,
        name,
        renamed_from: renamed_from(node),
        absent: node
            .get("absent")
            .and_then(boolean)
            .is_some_and(|b| b.value),
        scaling: node
            .get("scaling")
            .filter(|n| n.as_map().is_some())
            .map(|s| PipeScalingConfig {
                span: s.span,
                replicas: s.get("replicas").and_then(int),
                concurrency: s.get("concurrency").and_then(int),
                replica_cpu_millicores: s.get("replicaCpuMillicores").and_then(int),
                replica_memory_gb: s.get("replicaMemoryGb").and_then(number),
            }),
        state: node.get("state").and_then(string).and_then(|s| {
            let state = match s.value.as_str() {
                "running" => PipeState::Running,
                "stopped" => PipeState::Stopped,
                _ => return None,
            };
            Some(Located::new(state, s.span))
        }),
        credentials_version: node.get("credentialsVersion").and_then(int),
        source,
        destination: node.get("destination").map(located_json),
        field_mappings: node.get("fieldMappings").map(located_json),
        settings: node.get("settings").map(located_json),
    })
}

/// `source:` with its one kind; `None` when no kind or more than one is written (reported by
/// the pipe rules). Credentials are taken out of the body and resolved as secrets.
fn pipe_source(
    service: &str,
    key: &Key,
    node: &Node,
    secrets: &Secrets<'_>,
    diags: &mut Vec<Diagnostic>,
) -> Option<PipeSourceConfig> {
    let mut kinds = node
        .as_map()?
        .iter()
        .filter_map(|(k, v)| Some((Located::new(PipeKind::from_key(&k.name)?, k.span), v)));
    let (kind, body_node) = kinds.next()?;
    if kinds.next().is_some() {
        return None;
    }
    let mut body = body_node.to_json();
    let mut credentials = Vec::new();
    for (_, path) in super::secret_fields::PIPE_CREDENTIALS
        .iter()
        .filter(|(k, _)| *k == kind.value.as_str())
    {
        let parts: Vec<&str> = path.split('.').collect();
        let Some(written) = parts.iter().try_fold(body_node, |n, part| n.get(part)) else {
            continue;
        };
        remove_path(&mut body, &parts);
        let field = format!(
            "services.{service}.pipes.{}.source.{}.{path}",
            key.name,
            kind.value.as_str()
        );
        let suggested = format!(
            "PIPE_{}_{}",
            key.name.to_uppercase().replace('-', "_"),
            parts.last().map(|p| p.to_uppercase()).unwrap_or_default()
        );
        if let Some(secret) = secrets.read(written, &field, &suggested, diags) {
            credentials.push(PipeCredential { path, secret });
        }
    }
    Some(PipeSourceConfig {
        span: node.span,
        kind,
        body,
        validate_samples: node
            .get("validateSamples")
            .and_then(boolean)
            .map(|b| b.value),
        credentials,
    })
}

/// Removes the value at `parts` from a JSON tree, and the mappings it leaves empty.
fn remove_path(value: &mut serde_json::Value, parts: &[&str]) {
    let Some((first, rest)) = parts.split_first() else {
        return;
    };
    let Some(map) = value.as_object_mut() else {
        return;
    };
    if rest.is_empty() {
        map.remove(*first);
        return;
    }
    if let Some(child) = map.get_mut(*first) {
        remove_path(child, rest);
        if child.as_object().is_some_and(serde_json::Map::is_empty) {
            map.remove(*first);
        }
    }
}

fn located_json(node: &Node) -> Located<serde_json::Value> {
    Located::new(node.to_json(), node.span)
}

fn stack(
    key: &Key,
    node: &mut Node,
    secrets: &Secrets<'_>,
    diags: &mut Vec<Diagnostic>,
) -> Option<StackConfig> {
    node.as_map()?;
    let service = node.get("service").and_then(string);
    let api = node.get("api").and_then(string);
    let target = match (service, api) {
        (Some(service), None) => StackTarget::Managed { service },
        (None, Some(_)) => StackTarget::Observability,
        (Some(service), Some(api)) => {
            diags.push(
                Diagnostic::error(
                    Code::SemanticStackTarget,
                    format!(
                        "stack `{}` has both `service` and `api`; a stack lives behind one API",
                        key.name
                    ),
                    Some(api.span),
                )
                .with_label("remove this or `service`")
                .with_related(service.span, "managed stack of this service")
                .with_help(
                    "keep `service:` for the service's managed stack, or `api: observability` for the standalone API",
                ),
            );
            StackTarget::Managed { service }
        }
        (None, None) => {
            diags.push(
                Diagnostic::error(
                    Code::SemanticStackTarget,
                    format!(
                        "stack `{}` says neither `service: <key>` (managed stack) nor `api: observability`",
                        key.name
                    ),
                    Some(key.span),
                )
                .with_label("which API?")
                .with_help("add `service: <a key under services>` or `api: observability`"),
            );
            return None;
        }
    };
    let dashboards = exact_map(
        entries_mut(node.get_mut("dashboards"))
            .filter_map(|(k, d)| Some((k.name.clone(), dashboard(k, d, diags)?))),
    );
    let mut webhooks = Shared::default();
    let alerts = exact_map(entries_mut(node.get_mut("alerts")).filter_map(|(k, a)| {
        let built = alert(k, a, &mut webhooks)?;
        // The rules read only the alerts that did not build (their references are still
        // checked); a built one's tree is freed here, while the typed config grows.
        a.kind = Kind::Null;
        Some((k.name.clone(), built))
    }));
    Some(StackConfig {
        key: located_key(key),
        target,
        prune: node.get("prune").and_then(boolean).is_some_and(|b| b.value),
        generation: node.get("generation").and_then(generation),
        dashboards,
        alerts,
        // Set by the load, from the expansion.
        instance_names: Vec::new(),
        key_parameter: None,
        read_webhooks: false,
        webhooks: stack_webhooks(&key.name, node, secrets, diags),
        sources: super::source_rules::build(node),
        saved_searches: super::saved_searches::build(node),
    })
}

/// A stack's `generation:`.
fn generation(node: &Node) -> Option<Located<Generation>> {
    let g = string(node)?;
    let generation = match g.value.as_str() {
        "auto" => Generation::Auto,
        "series" => Generation::Series,
        "config" => Generation::Config,
        // The schema names the three values.
        _ => return None,
    };
    Some(Located::new(generation, g.span))
}

/// A stack's `webhooks:`.
fn stack_webhooks(
    stack: &str,
    node: &Node,
    secrets: &Secrets<'_>,
    diags: &mut Vec<Diagnostic>,
) -> IndexMap<SmolStr, WebhookConfig> {
    exact_map(
        entries(node.get("webhooks"))
            .filter_map(|(k, w)| Some((k.name.clone(), webhook(stack, k, w, secrets, diags)?))),
    )
}

/// A webhook entry; its secrets read as `${env:NAME}` references.
fn webhook(
    stack: &str,
    key: &Key,
    node: &Node,
    secrets: &Secrets<'_>,
    diags: &mut Vec<Diagnostic>,
) -> Option<WebhookConfig> {
    let at = format!("stacks.{stack}.webhooks.{}", key.name);
    let upper = key.name.to_uppercase().replace('-', "_");
    // A webhook to delete sends nothing: its secrets are not read.
    let absent = node
        .get("absent")
        .and_then(boolean)
        .is_some_and(|b| b.value);
    let secret = |member: &str, node: &Node, diags: &mut Vec<Diagnostic>| {
        if absent {
            return None;
        }
        let last = member.rsplit('.').next().unwrap_or(member);
        let word: String = last
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_uppercase()
                } else {
                    '_'
                }
            })
            .collect();
        let suggested = format!("WEBHOOK_{upper}_{word}");
        secrets.read(node, &format!("{at}.{member}"), &suggested, diags)
    };
    let map = |name: &str, diags: &mut Vec<Diagnostic>| {
        let node = node.get(name)?;
        let entries: Vec<(SmolStr, SecretValue)> = entries(Some(node))
            .filter_map(|(k, v)| {
                Some((
                    k.name.clone(),
                    secret(&format!("{name}.{}", k.name), v, diags)?,
                ))
            })
            .collect();
        Some(entries)
    };
    if node.get("url").is_none() && !absent {
        diags.push(
            Diagnostic::error(
                Code::SemanticWebhook,
                format!("webhook `{}` has no `url`", key.name),
                Some(key.span),
            )
            .with_label("no destination")
            .with_help("add `url: ${env:NAME}` (or `absent: true` to delete it)"),
        );
    }
    let headers = map("headers", diags);
    let query_params = map("queryParams", diags);
    Some(WebhookConfig {
        key: located_key_text(key),
        name: node.get("name").and_then(text)?,
        renamed_from: renamed_from(node),
        service: node.get("service").and_then(text)?,
        url: node.get("url").and_then(|n| secret("url", n, diags)),
        description: node.get("description").and_then(text),
        body: node.get("body").and_then(|n| secret("body", n, diags)),
        headers,
        query_params,
        credentials_version: node.get("credentialsVersion").and_then(int),
        absent,
        span: node.span,
    })
}

fn dashboard(key: &Key, node: &mut Node, diags: &mut Vec<Diagnostic>) -> Option<DashboardConfig> {
    let name = node.get("name").and_then(text)?;
    let renamed_from = renamed_from(node);
    let tags = exact(list(node.get("tags")).filter_map(text));
    let containers = node
        .get("containers")
        .map(|c| Located::new(list(Some(c)).filter_map(container).collect(), c.span))
        .map(Box::new);
    let tiles = exact(list_mut(node.get_mut("tiles")).filter_map(|t| {
        let built = tile(t, diags)?;
        // The rules read only a tile's name from the tree (what an alert may point at); the
        // rest of a built tile, its series most of all, is freed here while the typed config
        // grows, so the two are not held whole side by side.
        if let Kind::Map(entries) = &mut t.kind {
            entries.retain(|(k, _)| k.name == "name");
            entries.shrink_to_fit();
        }
        Some(built)
    }));
    Some(DashboardConfig {
        key: located_key_text(key),
        name,
        renamed_from,
        tags,
        tiles,
        containers,
    })
}

fn container(node: &Node) -> Option<ContainerConfig> {
    Some(ContainerConfig {
        span: node.span,
        id: node.get("id").and_then(text)?,
        title: node.get("title").and_then(text)?,
        collapsed: node.get("collapsed").and_then(boolean),
        collapsible: node.get("collapsible").and_then(boolean),
        bordered: node.get("bordered").and_then(boolean),
        tabs: list(node.get("tabs"))
            .filter_map(|t| {
                Some(ContainerTabConfig {
                    id: t.get("id").and_then(text)?,
                    title: t.get("title").and_then(text)?,
                })
            })
            .collect(),
    })
}

fn tile(node: &Node, diags: &mut Vec<Diagnostic>) -> Option<TileConfig> {
    Some(TileConfig {
        span: node.span,
        name: node.get("name").and_then(text)?,
        renamed_from: renamed_from(node),
        x: node.get("x").and_then(int)?,
        y: node.get("y").and_then(int)?,
        w: node.get("w").and_then(int)?,
        h: node.get("h").and_then(int)?,
        as_ratio: node.get("asRatio").and_then(boolean).map(Box::new),
        series: exact(
            list(node.get("series"))
                .filter(|s| s.as_map().is_some())
                .map(|s| series(s, diags)),
        ),
        config: node
            .get("config")
            .filter(|c| c.as_map().is_some())
            .map(|c| Box::new(Located::new(c.to_json(), c.span))),
        config_at: node
            .get("config")
            .map(|c| {
                let mut at = BTreeMap::new();
                spans(c, String::new(), &mut at);
                at
            })
            .unwrap_or_default(),
        container_id: node.get("containerId").and_then(text).map(Box::new),
        tab_id: node.get("tabId").and_then(text).map(Box::new),
    })
}

/// Records where each node under `node` was written, by its JSON pointer from `node`.
fn spans(node: &Node, pointer: String, at: &mut BTreeMap<String, Span>) {
    match &node.kind {
        Kind::Map(entries) => {
            for (key, value) in entries {
                spans(value, child_pointer(&pointer, &key.name), at);
            }
        }
        Kind::Seq(items) => {
            for (i, item) in items.iter().enumerate() {
                spans(item, child_pointer(&pointer, &i.to_string()), at);
            }
        }
        _ => {}
    }
    at.insert(pointer, node.span);
}

fn series(node: &Node, diags: &mut Vec<Diagnostic>) -> SeriesConfig {
    let by_id = node.get("sourceId").and_then(text);
    let by_name = node.get("source").and_then(text);
    let source = match (by_id, by_name) {
        (Some(id), Some(name)) => {
            diags.push(
                Diagnostic::error(
                    Code::SemanticSourceConflict,
                    "a series names its source once: `source` (a name) or `sourceId`, not both",
                    Some(name.span),
                )
                .with_label("remove this or `sourceId`")
                .with_related(id.span, "sourceId here")
                .with_help("keep `source: <name>` or `sourceId: <id>`, and remove the other"),
            );
            Some(SourceRef::Id(id))
        }
        (Some(id), None) => Some(SourceRef::Id(id)),
        (None, Some(name)) => Some(SourceRef::Name(name)),
        (None, None) => None,
    };
    SeriesConfig {
        span: node.span,
        kind: node.get("type").and_then(text),
        data_source: node.get("dataSource").and_then(text),
        source,
        agg_fn: node.get("aggFn").and_then(text),
        field: node.get("field").and_then(text),
        level: node.get("level").and_then(number).map(Box::new),
        content: node.get("content").and_then(text).map(Box::new),
        fields: node
            .get("fields")
            .filter(|f| matches!(f.kind, Kind::Seq(_)))
            .map(|f| list(Some(f)).filter_map(text).collect()),
        where_: node.get("where").and_then(text),
        where_language: node.get("whereLanguage").and_then(text),
        group_by: node
            .get("groupBy")
            .filter(|g| matches!(g.kind, Kind::Seq(_)))
            .map(|g| list(Some(g)).filter_map(text).collect()),
        metric_name: node.get("metricName").and_then(text).map(Box::new),
        metric_data_type: node.get("metricDataType").and_then(text).map(Box::new),
    }
}

fn alert(key: &Key, node: &Node, webhooks: &mut Shared) -> Option<AlertConfig> {
    let channel = node.get("channel").map(|c| channel(c, webhooks));
    let channels = node
        .get("channels")
        .filter(|c| matches!(c.kind, Kind::Seq(_)))
        .map(|c| {
            let items: Vec<Option<ChannelConfig>> =
                list(Some(c)).map(|c| self::channel(c, webhooks)).collect();
            Located::new(items, c.span)
        });
    // Without either the schema has reported it; the alert cannot be planned.
    let channel = match (channel, &channels) {
        (Some(one), _) => Some(one?),
        (None, Some(_)) => None,
        (None, None) => return None,
    };
    let channels = match channels {
        Some(list) => {
            let items: Option<Vec<ChannelConfig>> = list.value.into_iter().collect();
            Some(Box::new(Located::new(items?, list.span)))
        }
        None => None,
    };
    Some(AlertConfig {
        key: located_key_text(key),
        name: node.get("name").and_then(text)?,
        renamed_from: renamed_from(node),
        dashboard: node.get("dashboard").and_then(text)?,
        tile: node.get("tile").and_then(text)?,
        threshold: node.get("threshold").and_then(number)?,
        threshold_type: node.get("thresholdType").and_then(text)?,
        interval: node.get("interval").and_then(text)?,
        channel,
        channels,
        message: node.get("message").and_then(text),
        source: node.get("source").and_then(text).map(Box::new),
        threshold_max: node.get("thresholdMax").and_then(number).map(Box::new),
        num_consecutive_windows: node
            .get("numConsecutiveWindows")
            .and_then(int)
            .map(Box::new),
        schedule_offset_minutes: node
            .get("scheduleOffsetMinutes")
            .and_then(int)
            .map(Box::new),
        schedule_start_at: node.get("scheduleStartAt").and_then(text).map(Box::new),
        note: node.get("note").and_then(text).map(Box::new),
        cleared: super::model::ClearedMembers::of(
            crate::api::wire::Cleared::MEMBERS
                .into_iter()
                .chain(["message"])
                .filter(|m| node.get(m).is_some_and(|v| matches!(v.kind, Kind::Null))),
        ),
    })
}

/// One channel; `None` without its `type` (the schema has reported it).
fn channel(node: &Node, webhooks: &mut Shared) -> Option<ChannelConfig> {
    let webhook = node.get("webhook").and_then(text);
    // `type` may be left out beside `webhook:` (a channel naming a webhook is a webhook one).
    let kind = node.get("type").and_then(text).or_else(|| {
        webhook
            .as_ref()
            .map(|w| Located::new("webhook".into(), w.span))
    })?;
    Some(ChannelConfig {
        span: node.span,
        kind,
        webhook_id: node
            .get("webhookId")
            .and_then(text)
            .map(|id| Located::new(webhooks.one(id.value), id.span)),
        webhook: webhook.map(|w| Box::new(Located::new(webhooks.one(w.value), w.span))),
        email_recipients: node
            .get("emailRecipients")
            .filter(|r| matches!(r.kind, Kind::Seq(_)))
            .map(|r| list(Some(r)).filter_map(text).collect()),
    })
}

fn renamed_from(node: &Node) -> Vec<Located<SmolStr>> {
    list(node.get("renamedFrom")).filter_map(text).collect()
}

fn located_key(key: &Key) -> Located<String> {
    Located::new(key.name.as_str().into(), key.span)
}

/// As [`located_key`], for the dashboards' and alerts' many keys.
fn located_key_text(key: &Key) -> Located<SmolStr> {
    Located::new(key.name.clone(), key.span)
}

fn entries(node: Option<&Node>) -> impl Iterator<Item = (&Key, &Node)> {
    node.and_then(Node::as_map)
        .unwrap_or_default()
        .iter()
        .map(|(k, v)| (k, v))
}

/// The items in a vector without spare room: a filtered iterator does not know its length, so
/// `collect` starts at four places, three of them empty for a tile's one series (a third of a
/// large config's typed memory).
fn exact<T>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut items: Vec<T> = items.collect();
    items.shrink_to_fit();
    items
}

/// As [`exact`] for a map: `IndexMap` gives its entries the room its hash table has, which
/// for 8,000 alerts is room for 14,336 (nearly half a large config's alerts' memory unused).
fn exact_map<V>(items: impl Iterator<Item = (SmolStr, V)>) -> IndexMap<SmolStr, V> {
    let mut map: IndexMap<SmolStr, V> = items.collect();
    map.shrink_to_fit();
    map
}

/// As [`entries`], each value changeable (to free what the rules will not read).
fn entries_mut(node: Option<&mut Node>) -> impl Iterator<Item = (&Key, &mut Node)> {
    let entries: &mut [(Key, Node)] = match node.map(|n| &mut n.kind) {
        Some(Kind::Map(entries)) => entries,
        _ => &mut [],
    };
    entries.iter_mut().map(|(k, v)| (&*k, v))
}

/// As [`list`], each item changeable.
fn list_mut(node: Option<&mut Node>) -> impl Iterator<Item = &mut Node> {
    let items: &mut [Node] = match node.map(|n| &mut n.kind) {
        Some(Kind::Seq(items)) => items,
        _ => &mut [],
    };
    items.iter_mut()
}

fn list(node: Option<&Node>) -> impl Iterator<Item = &Node> {
    let items: &[Node] = match node.map(|n| &n.kind) {
        Some(Kind::Seq(items)) => items,
        _ => &[],
    };
    items.iter()
}

fn string(node: &Node) -> Option<Located<String>> {
    node.as_str()
        .map(|s| Located::new(s.to_string(), node.span))
}

/// The one copy of each text many objects repeat (a stack's webhook ids, 24 characters: one
/// past what a `SmolStr` holds inline), so thousands of alerts on a few webhooks share it.
#[derive(Default)]
struct Shared(std::collections::HashSet<SmolStr>);

impl Shared {
    fn one(&mut self, text: SmolStr) -> SmolStr {
        if !text.is_heap_allocated() {
            return text;
        }
        if let Some(kept) = self.0.get(text.as_str()) {
            return kept.clone();
        }
        self.0.insert(text.clone());
        text
    }
}

/// As [`string`], for the dashboards', tiles', series' and alerts' many short strings.
fn text(node: &Node) -> Option<Located<SmolStr>> {
    match &node.kind {
        // The tree's own text: shared with it, not copied, when it is on the heap.
        Kind::Str(s) => Some(Located::new(s.clone(), node.span)),
        _ => None,
    }
}

fn int(node: &Node) -> Option<Located<i64>> {
    match node.kind {
        Kind::Int(i) => Some(Located::new(i, node.span)),
        _ => None,
    }
}

fn number(node: &Node) -> Option<Located<f64>> {
    match node.kind {
        // Config numbers are small; an i64 beyond 2^53 would already be out of every range.
        #[allow(clippy::cast_precision_loss)]
        Kind::Int(i) => Some(Located::new(i as f64, node.span)),
        Kind::Float(f) => Some(Located::new(f, node.span)),
        _ => None,
    }
}

fn boolean(node: &Node) -> Option<Located<bool>> {
    match node.kind {
        Kind::Bool(b) => Some(Located::new(b, node.span)),
        _ => None,
    }
}
