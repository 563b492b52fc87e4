//! Semantic rules: what the schema cannot say. Each rule has a stable code:
//!
//! | Code | Rule |
//! |---|---|
//! | `semantic::memory-multiple` | `minTotalMemoryGb`/`maxTotalMemoryGb` are multiples of 12 |
//! | `semantic::min-max` | `minTotalMemoryGb` ≤ `maxTotalMemoryGb` |
//! | `semantic::deprecated` (warning) | the memory fields are deprecated |
//! | `semantic::unknown-service` | a stack's `service` names a key under `services` |
//! | `semantic::unknown-dashboard` | an alert's `dashboard` is a dashboard key of the same stack |
//! | `semantic::unknown-tile` | an alert's `tile` is a tile name of that dashboard |
//! | `semantic::duplicate-dashboard-name` | dashboard names are unique within a stack |
//! | `semantic::duplicate-alert-name` | alert names are unique within a stack |
//! | `semantic::duplicate-tile-name` | tile names are unique within a dashboard |
//! | `semantic::duplicate-endpoint` | a private endpoint id is listed once per service |
//! | `semantic::tile-overflow` | `x + w` fits the 24-column grid |
//! | `semantic::ratio-series` | `asRatio: true` needs exactly two series |
//! | `semantic::tile-shape` | a tile has `series` or `config`, one of them; `asRatio` of a `config` tile goes inside it |
//! | `semantic::tile-container` | container ids are unique in a dashboard, tab ids in a container; a tile's `containerId` and `tabId` name ones the dashboard defines |
//! | `semantic::key-name` | local keys are letters, digits, `-` and `_` (they form addresses) |
//! | `semantic::rename-conflict` | a `renamedFrom` name (dashboard, tile, alert, pipe) is not the object's own name, another object's name, or claimed twice (see [`super::rename_rules`]) |
//! | `semantic::unknown-reverse-endpoint` | a kafka pipe's `reversePrivateEndpoints` names an endpoint its service declares (see [`super::reverse_endpoints`]) |
//! | `semantic::shared-object` | two stacks on one server never name the same dashboard (see [`super::shared_rules`]) |
//!
//! `semantic::stack-target` and `semantic::source-conflict` are raised while building;
//! `semantic::invisible-characters` and `semantic::confusable-name` (warnings about names that
//! do not print as written) are in [`super::lookalike`]; what the real server rejects is in
//! [`super::server_rules`].

use smol_str::SmolStr;
use std::collections::{HashMap, HashSet};

use crate::api::limits;

use super::lookalike::Lookalikes;
use super::model::*;
use super::rename_rules::renames;
use super::schema_check::closest;
use super::yaml::{Kind, Node};
use crate::diagnostic::{Code, Diagnostic, Span};

/// Runs every rule and pushes what it finds. `root` is the merged tree the config was built
/// from: a reference to an object that is written there but did not build (its own error is
/// already reported) is not called dangling.
pub(crate) fn check(config: &Config, root: &Node, diags: &mut Vec<Diagnostic>) {
    let written_services = index(root.get("services"));
    let written_stacks = index(root.get("stacks"));
    for service in config.services.values() {
        key_name(&service.key, "service", diags);
        if let Some(scaling) = &service.scaling {
            super::service_rules::check(scaling, diags);
        }
        super::service_settings_rules::check(&service.settings, diags);
        for pipe in service.pipes.values() {
            key_name(&pipe.key, "pipe", diags);
        }
        let written = written_services.get(service.key.value.as_str()).copied();
        super::pipe_rules::check(service, written, diags);
        for endpoint in service.reverse_endpoints.values() {
            key_name(&endpoint.key, "reverse endpoint", diags);
        }
        super::reverse_endpoints::check(service, written, diags);
        let mut seen: HashMap<&str, Span> = HashMap::new();
        for endpoint in service.private_endpoints.iter().flatten() {
            if let Some(first) = seen.insert(&endpoint.id, endpoint.id.span) {
                diags.push(
                    Diagnostic::error(
                        Code::SemanticDuplicateEndpoint,
                        format!("private endpoint `{}` is listed twice", endpoint.id.value),
                        Some(endpoint.id.span),
                    )
                    .with_label("listed again")
                    .with_related(first, "first listed here")
                    .with_help("remove one of the two entries"),
                );
            }
        }
    }
    for stack in config.stacks.values() {
        key_name(&stack.key, "stack", diags);
        if let StackTarget::Managed { service } = &stack.target
            && !config.services.contains_key(&service.value)
            && !written_services.contains_key(service.value.as_str())
        {
            let mut diag = Diagnostic::error(
                Code::SemanticUnknownService,
                format!(
                    "stack `{}` names service `{}`, which is not a key under `services`",
                    stack.key.value, service.value
                ),
                Some(service.span),
            )
            .with_label("no such service key");
            diag = suggest(
                diag,
                &service.value,
                config.services.keys().map(String::as_str),
            );
            if diag.help.is_none() {
                diag = diag.with_help("add the service under `services:`, or name one of its keys");
            }
            diags.push(diag);
        }
        dashboards(stack, diags);
        let written_stack = written_stacks.get(stack.key.value.as_str()).copied();
        alerts(stack, written_stack, diags);
        super::server_rules::check(stack, diags);
        super::alert_rules::check(stack, diags);
        super::webhook_rules::check(stack, diags);
        for webhook in stack.webhooks.values() {
            key_name(&webhook.key, "webhook", diags);
        }
        super::source_rules::check(stack, diags);
        for source in stack.sources.values() {
            key_name(&source.key, "source", diags);
        }
        super::saved_searches::check(stack, written_stack, diags);
        for search in stack.saved_searches.values() {
            key_name(&search.key, "saved search", diags);
        }
    }
    super::shared_rules::check(config, diags);
}

/// The entries of a written mapping by key, built or not. Looked up once per reference, so an
/// index keeps a stack of many dashboards and alerts linear.
fn index(node: Option<&Node>) -> HashMap<&str, &Node> {
    node.and_then(Node::as_map)
        .unwrap_or_default()
        .iter()
        .map(|(key, value)| (key.name.as_str(), value))
        .collect()
}

/// What the alerts of one stack may point at: its dashboards as written, and the tile names of
/// each (built or not), gathered once per stack.
struct Targets<'a> {
    dashboards: HashMap<&'a str, &'a Node>,
    tiles: HashMap<&'a str, HashSet<&'a str>>,
}

impl<'a> Targets<'a> {
    fn new(stack: &'a StackConfig, written_stack: Option<&'a Node>) -> Self {
        let dashboards = index(written_stack.and_then(|s| s.get("dashboards")));
        let mut tiles: HashMap<&str, HashSet<&str>> = HashMap::new();
        for (key, node) in &dashboards {
            let names = tiles.entry(*key).or_default();
            if let Some(Kind::Seq(written)) = node.get("tiles").map(|t| &t.kind) {
                names.extend(
                    written
                        .iter()
                        .filter_map(|t| t.get("name").and_then(Node::as_str)),
                );
            }
        }
        for (key, dashboard) in &stack.dashboards {
            tiles
                .entry(key.as_str())
                .or_default()
                .extend(dashboard.tiles.iter().map(|t| t.name.value.as_str()));
        }
        Targets { dashboards, tiles }
    }
}

/// A name used twice where names identify objects (dashboards and alerts in a stack, tiles in a
/// dashboard): the second use underlined, the first shown beside it.
fn used_twice(
    code: Code,
    kind: &str,
    name: &Located<SmolStr>,
    first: Span,
    scope_kind: &str,
    scope: &str,
    why: &str,
) -> Diagnostic {
    Diagnostic::error(
        code,
        format!(
            "{kind} name `{}` is used twice in {scope_kind} `{scope}`; {why}",
            name.value
        ),
        Some(name.span),
    )
    .with_label("used again")
    .with_related(first, "first used here")
    .with_help(format!(
        "give each {kind} in {scope_kind} `{scope}` its own name (or remove the copy)"
    ))
}

fn dashboards(stack: &StackConfig, diags: &mut Vec<Diagnostic>) {
    renames(
        "dashboard",
        ("stack", &stack.key.value),
        stack
            .dashboards
            .values()
            .map(|d| (&d.name, d.renamed_from.as_slice())),
        diags,
    );
    let mut names: HashMap<&str, Span> = HashMap::new();
    let mut looks = Lookalikes::default();
    for dashboard in stack.dashboards.values() {
        key_name(&dashboard.key, "dashboard", diags);
        renames(
            "tile",
            ("dashboard", &dashboard.key.value),
            dashboard
                .tiles
                .iter()
                .map(|t| (&t.name, t.renamed_from.as_slice())),
            diags,
        );
        looks.check("dashboard", &dashboard.name, diags);
        if let Some(first) = names.insert(&dashboard.name, dashboard.name.span) {
            diags.push(used_twice(
                Code::SemanticDuplicateDashboardName,
                "dashboard",
                &dashboard.name,
                first,
                "stack",
                &stack.key.value,
                "names identify dashboards",
            ));
        }
        containers(dashboard, diags);
        tiles(dashboard, diags);
    }
}

/// A dashboard's tiles: names unique and not lookalikes, within the grid's columns, of one
/// shape, and a ratio of exactly two series.
fn tiles(dashboard: &DashboardConfig, diags: &mut Vec<Diagnostic>) {
    let mut tiles: HashMap<&str, Span> = HashMap::new();
    let mut tile_looks = Lookalikes::default();
    for tile in &dashboard.tiles {
        tile_looks.check("tile", &tile.name, diags);
        if let Some(first) = tiles.insert(&tile.name, tile.name.span) {
            diags.push(used_twice(
                Code::SemanticDuplicateTileName,
                "tile",
                &tile.name,
                first,
                "dashboard",
                &dashboard.key.value,
                "tiles are matched by name",
            ));
        }
        let columns = limits::TILE_W.max as i64;
        if tile.x.value + tile.w.value > columns {
            diags.push(
                Diagnostic::error(
                    Code::SemanticTileOverflow,
                    format!(
                        "tile `{}` ends at column {} but the grid has {columns} columns (x + w ≤ {columns})",
                        tile.name.value,
                        tile.x.value + tile.w.value
                    ),
                    Some(tile.w.span),
                )
                .with_label("too wide for its x")
                .with_related(tile.x.span, "x here")
                .with_help(match columns - tile.x.value {
                    room if room >= 1 => format!(
                        "make x + w at most {columns}: `w: {room}` fits at this x, or move the tile left"
                    ),
                    _ => format!("move the tile left: x must be below {columns}"),
                }),
            );
        }
        if let Some(shape) = tile_shape(tile) {
            diags.push(shape);
            continue;
        }
        if tile.config.is_none()
            && tile.as_ratio.as_ref().is_some_and(|r| r.value)
            && tile.series.len() != 2
        {
            let at = tile.as_ratio.as_ref().map_or(tile.span, |r| r.span);
            diags.push(
                Diagnostic::error(
                    Code::SemanticRatioSeries,
                    format!(
                        "tile `{}` has `asRatio: true` and {} series; a ratio divides series 0 by series 1",
                        tile.name.value,
                        tile.series.len()
                    ),
                    Some(at),
                )
                .with_label("needs exactly two series")
                .with_help(
                    "give the tile exactly two series (the numerator, then the denominator), or remove `asRatio`",
                ),
            );
        }
    }
}

/// Container ids unique in the dashboard and tab ids in their container, and each tile's
/// `containerId`/`tabId` one the dashboard defines: what the server answers 400 for.
fn containers(dashboard: &DashboardConfig, diags: &mut Vec<Diagnostic>) {
    let defined = dashboard.containers.as_ref().map_or(&[][..], |c| &c.value);
    let by_id = container_ids(dashboard, defined, diags);
    let ids = || {
        let mut ids: Vec<&str> = Vec::new();
        for c in defined {
            if !ids.contains(&c.id.value.as_str()) {
                ids.push(&c.id.value);
            }
        }
        ids
    };
    for tile in &dashboard.tiles {
        let name = &tile.name.value;
        let container = match &tile.container_id {
            Some(id) => match by_id.get(id.value.as_str()) {
                Some(container) => Some(*container),
                None => {
                    let defined = ids();
                    let help = if defined.is_empty() {
                        format!(
                            "define it under the dashboard's `containers:` (`- {{ id: {}, title: ... }}`), or remove `containerId`",
                            id.value
                        )
                    } else {
                        format!("the dashboard's containers are {}", quoted(&defined))
                    };
                    diags.push(
                        Diagnostic::error(
                            Code::SemanticTileContainer,
                            format!(
                                "tile `{name}` is in container `{}`, which dashboard `{}` does not define",
                                id.value, dashboard.key.value
                            ),
                            Some(id.span),
                        )
                        .with_label("no container with this id")
                        .with_help(help),
                    );
                    continue;
                }
            },
            None => None,
        };
        let Some(tab) = &tile.tab_id else {
            continue;
        };
        let Some(container) = container else {
            diags.push(
                Diagnostic::error(
                    Code::SemanticTileContainer,
                    format!("tile `{name}` has `tabId` but no `containerId`; a tab is a tab of a container"),
                    Some(tab.span),
                )
                .with_label("in which container?")
                .with_help("add `containerId:` naming the container that has this tab"),
            );
            continue;
        };
        tab_in(name, tab, container, diags);
    }
}

/// The dashboard's containers by id, each id said once; an id used twice, and a tab id used
/// twice in its container, are errors.
fn container_ids<'d>(
    dashboard: &DashboardConfig,
    defined: &'d [ContainerConfig],
    diags: &mut Vec<Diagnostic>,
) -> HashMap<&'d str, &'d ContainerConfig> {
    let mut by_id: HashMap<&str, &ContainerConfig> = HashMap::new();
    for container in defined {
        if let Some(first) = by_id.get(container.id.value.as_str()) {
            diags.push(id_twice(
                "container",
                &container.id,
                first.id.span,
                "dashboard",
                &dashboard.key.value,
            ));
        } else {
            by_id.insert(&container.id, container);
        }
        let mut tabs: HashMap<&str, Span> = HashMap::new();
        for tab in &container.tabs {
            if let Some(first) = tabs.insert(&tab.id, tab.id.span) {
                diags.push(id_twice(
                    "tab",
                    &tab.id,
                    first,
                    "container",
                    &container.id.value,
                ));
            }
        }
    }
    by_id
}

/// A tile's `tabId` must be a tab of its container.
fn tab_in(
    name: &str,
    tab: &Located<SmolStr>,
    container: &ContainerConfig,
    diags: &mut Vec<Diagnostic>,
) {
    if container.tabs.iter().any(|t| t.id.value == tab.value) {
        return;
    }
    let mut tabs: Vec<&str> = Vec::new();
    for t in &container.tabs {
        if !tabs.contains(&t.id.value.as_str()) {
            tabs.push(&t.id.value);
        }
    }
    let help = if tabs.is_empty() {
        format!(
            "container `{}` has no tabs: add one under its `tabs:`, or remove `tabId`",
            container.id.value
        )
    } else {
        format!(
            "the tabs of container `{}` are {}",
            container.id.value,
            quoted(&tabs)
        )
    };
    diags.push(
        Diagnostic::error(
            Code::SemanticTileContainer,
            format!(
                "tile `{name}` is on tab `{}`, which container `{}` does not have",
                tab.value, container.id.value
            ),
            Some(tab.span),
        )
        .with_label("no tab with this id")
        .with_related(container.id.span, "container defined here")
        .with_help(help),
    );
}

/// A container or tab id used twice in its scope.
fn id_twice(
    kind: &str,
    id: &Located<SmolStr>,
    first: Span,
    scope_kind: &str,
    scope: &str,
) -> Diagnostic {
    Diagnostic::error(
        Code::SemanticTileContainer,
        format!(
            "{kind} id `{}` is used twice in {scope_kind} `{scope}`; tiles join a {kind} by its id",
            id.value
        ),
        Some(id.span),
    )
    .with_label("used again")
    .with_related(first, "first used here")
    .with_help(format!(
        "give each {kind} in {scope_kind} `{scope}` its own id"
    ))
}

/// Ids as a list for a message: `` `a`, `b` ``.
fn quoted(ids: &[&str]) -> String {
    ids.iter()
        .map(|id| format!("`{id}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A tile says what it draws once: `series` (the contract's shorthand) or `config` (today's
/// shape, which holds its own `asRatio`).
fn tile_shape(tile: &TileConfig) -> Option<Diagnostic> {
    let name = &tile.name.value;
    let (message, at, label) = match (&tile.config, tile.series.is_empty()) {
        (Some(config), false) => (
            format!("tile `{name}` has both `series` and `config`; a tile is drawn by one of them"),
            config.span,
            "remove this or `series`",
        ),
        (Some(config), true) => {
            let ratio = tile.as_ratio.as_ref()?;
            return Some(
                Diagnostic::error(
                    Code::SemanticTileShape,
                    format!("tile `{name}` has `asRatio` beside `config`; today's tiles keep it inside `config`"),
                    Some(ratio.span),
                )
                .with_label("move into `config`")
                .with_related(config.span, "config here"),
            );
        }
        // Neither is the schema's to report (`series` is required without `config`).
        (None, _) => return None,
    };
    Some(
        Diagnostic::error(Code::SemanticTileShape, message, Some(at))
            .with_label(label)
            .with_help("write the tile as `series:` (the contract's shorthand) or as `config:` (today's shape with `displayType`)"),
    )
}

fn alerts(stack: &StackConfig, written_stack: Option<&Node>, diags: &mut Vec<Diagnostic>) {
    renames(
        "alert",
        ("stack", &stack.key.value),
        stack
            .alerts
            .values()
            .map(|a| (&a.name, a.renamed_from.as_slice())),
        diags,
    );
    let targets = Targets::new(stack, written_stack);
    let mut names: HashMap<&str, Span> = HashMap::new();
    let mut looks = Lookalikes::default();
    for alert in stack.alerts.values() {
        key_name(&alert.key, "alert", diags);
        looks.check("alert", &alert.name, diags);
        if let Some(first) = names.insert(&alert.name, alert.name.span) {
            diags.push(used_twice(
                Code::SemanticDuplicateAlertName,
                "alert",
                &alert.name,
                first,
                "stack",
                &stack.key.value,
                "names identify alerts",
            ));
        }
        references(
            stack,
            &targets,
            &alert.key.value,
            &alert.dashboard,
            &alert.tile,
            diags,
        );
    }
    // An alert with a schema error did not build; its references are still checked, so that
    // every error of the run shows at once.
    for (key, node) in written_stack
        .and_then(|s| s.get("alerts"))
        .and_then(Node::as_map)
        .unwrap_or_default()
    {
        if stack.alerts.contains_key(key.name.as_str()) {
            continue;
        }
        let text = |field: &str| {
            let value = node.get(field)?;
            Some(Located::new(SmolStr::new(value.as_str()?), value.span))
        };
        if let (Some(dashboard), Some(tile)) = (text("dashboard"), text("tile")) {
            references(stack, &targets, &key.name, &dashboard, &tile, diags);
        }
    }
}

/// The dashboard and tile an alert names must exist in its stack.
fn references(
    stack: &StackConfig,
    targets: &Targets<'_>,
    alert: &str,
    dashboard_key: &Located<SmolStr>,
    tile: &Located<SmolStr>,
    diags: &mut Vec<Diagnostic>,
) {
    let Some(dashboard) = stack.dashboards.get(&dashboard_key.value) else {
        if targets
            .dashboards
            .contains_key(dashboard_key.value.as_str())
        {
            return;
        }
        let diag = Diagnostic::error(
            Code::SemanticUnknownDashboard,
            format!(
                "alert `{alert}` points at dashboard `{}`, which is not a dashboard key of stack `{}`",
                dashboard_key.value, stack.key.value
            ),
            Some(dashboard_key.span),
        )
        .with_label("no such dashboard key");
        diags.push(suggest(
            diag,
            &dashboard_key.value,
            stack.dashboards.keys().map(SmolStr::as_str),
        ));
        return;
    };
    let known = targets
        .tiles
        .get(dashboard_key.value.as_str())
        .is_some_and(|names| names.contains(tile.value.as_str()));
    if !known {
        let diag = Diagnostic::error(
            Code::SemanticUnknownTile,
            format!(
                "alert `{alert}` points at tile `{}`, which dashboard `{}` does not have",
                tile.value, dashboard.key.value
            ),
            Some(tile.span),
        )
        .with_label("no such tile name")
        .with_related(dashboard.key.span, "the dashboard");
        let names = dashboard.tiles.iter().map(|t| t.name.value.as_str());
        diags.push(suggest(diag, &tile.value, names));
    }
}

fn key_name(key: &Located<impl AsRef<str>>, what: &str, diags: &mut Vec<Diagnostic>) {
    let written = key.value.as_ref();
    let word = |text: &str| {
        !text.is_empty()
            && text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    };
    // A template instance's key, `entry[key]` (a matrix's values joined by `,`), is made by
    // the expansion from words it checked; one written by hand must be of that form too.
    let instance = |text: &str| {
        text.strip_suffix(']')
            .and_then(|t| t.split_once('['))
            .is_some_and(|(entry, keys)| word(entry) && keys.split(',').all(word))
    };
    let ok =
        word(written) || (matches!(what, "alert" | "dashboard" | "stack") && instance(written));
    if !ok {
        diags.push(
            Diagnostic::error(
                Code::SemanticKeyName,
                format!(
                    "{what} key `{}` may hold only letters, digits, `-` and `_`; keys form addresses like `{what}.<key>`",
                    written
                ),
                Some(key.span),
            )
            .with_label("invalid key")
            .with_help(format!(
                "rename the key, e.g. `{}`",
                written
                    .chars()
                    .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '-' })
                    .collect::<String>()
            )),
        );
    }
}

fn suggest<'a>(
    diag: Diagnostic,
    written: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Diagnostic {
    let candidates: Vec<&str> = candidates.collect();
    match closest(written, candidates.iter().copied()) {
        Some(close) => diag.with_help(format!("did you mean `{close}`?")),
        None if candidates.is_empty() => diag,
        None => diag.with_help(format!(
            "known: {}",
            candidates
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}
