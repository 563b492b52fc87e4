//! Dashboards and their tiles.

mod check;
pub(crate) mod live;
pub(crate) mod op;

use crate::address::AddressBuf;
use crate::plan::kind::Live;
use smol_str::SmolStr;
use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use crate::api::limits::is_object_id;
use crate::api::wire::{self, Container, ContainerTab, Dashboard, DashboardRequest, Series, Tile};
use crate::config::model::{self, DashboardConfig, Generation, SourceRef, StackConfig, TileConfig};
use crate::diagnostic::{Code, Diagnostic, Span};
use crate::plan::address::Address;
use crate::plan::build::builder::{
    Builder, ambiguous, candidates, compared, copies_help, rename_reason,
};
use crate::plan::build::dedupe;
use crate::plan::build::index::StackIndex;
use crate::plan::build::series::{lower, modelled, resolve_config, wire_series};
use crate::plan::diff::{self, diff};
use crate::plan::model::{Action, Change, FieldChange, Operation, StackRef};
use crate::plan::normalize;
use crate::plan::tag::ownership_tag;
use op::DashboardOp;

/// What the builder knows about a config dashboard once planned.
pub(crate) struct PlannedDashboard<'c, 'l> {
    pub(crate) config: &'c DashboardConfig,
    pub(crate) live: Option<&'l Dashboard>,
    /// The create or update step, if any.
    pub(crate) step: Option<usize>,
    /// The live tile id of each config tile that exists live (matched by name, `renamedFrom`
    /// or place), by config tile name; borrowed, as every dashboard's are held until its
    /// stack's alerts are planned.
    pub(crate) tile_ids: BTreeMap<&'c str, &'l str>,
    /// The live dashboard with the names the config gives it and its tiles, when any differ:
    /// alerts on it compare against these names, so a rename is not a change of the alert.
    pub(crate) renamed_view: Option<Dashboard>,
    /// Whether the step is an update (which drops alerts of removed tiles).
    pub(crate) updated: bool,
    /// The copies `--dedupe` deletes once the alerts on them are (copies of the config's).
    pub(crate) copies_going: Vec<CopyGoing>,
}

/// A dashboard copy that `--dedupe` deletes after the alerts on it: planned last, waiting for
/// their steps (deleting it first would take them with it, racing their own deletes).
#[derive(Clone)]
pub(crate) struct CopyGoing {
    /// The copy's id.
    pub(crate) id: String,
    /// Its delete, shown as a destroy.
    pub(crate) change: Change,
    /// The step that deletes it.
    pub(crate) operation: Operation,
}

/// The stack's planned dashboards by config key, and by the id of the live dashboard each is.
pub(crate) type Planned<'p, 'c, 'l> = (
    &'p BTreeMap<&'c str, PlannedDashboard<'c, 'l>>,
    &'p BTreeMap<&'l str, &'p PlannedDashboard<'c, 'l>>,
);

impl PlannedDashboard<'_, '_> {
    /// Whether the live tile `tile_id` is still on the dashboard once applied.
    pub(crate) fn keeps_tile(&self, tile_id: &str) -> bool {
        self.tile_ids.values().any(|id| *id == tile_id)
    }
}

impl Builder<'_> {
    /// The live tile each config tile is: by name or `renamedFrom`; else, for a tile without
    /// `renamedFrom`, the live tile at the same place in the list when no config tile names it
    /// (a tile renamed where it stands). `None` when a tile could be two live tiles (reported).
    pub(crate) fn match_tiles(
        &mut self,
        dashboard_key: &str,
        config: &DashboardConfig,
        live: &Dashboard,
    ) -> Option<Vec<Option<usize>>> {
        let mut matched: Vec<Option<usize>> = vec![None; config.tiles.len()];
        let mut claimed: BTreeSet<usize> = BTreeSet::new();
        let mut failed = false;
        for (i, tile) in config.tiles.iter().enumerate() {
            let found: Vec<(usize, Option<&model::Located<SmolStr>>)> = live
                .tiles
                .iter()
                .enumerate()
                .filter_map(|(j, t)| {
                    if t.name == tile.name.value {
                        Some((j, None))
                    } else {
                        tile.renamed_from
                            .iter()
                            .find(|old| old.value == t.name)
                            .map(|old| (j, Some(old)))
                    }
                })
                .collect();
            match found.as_slice() {
                [] => {}
                [(j, _)] if claimed.insert(*j) => matched[i] = Some(*j),
                _ => {
                    let listed: Vec<(String, String, Option<Span>)> = found
                        .iter()
                        .map(|(j, old)| {
                            let t = &live.tiles[*j];
                            (
                                t.name.clone(),
                                t.id.clone().unwrap_or_default(),
                                old.map(|o| o.span),
                            )
                        })
                        .collect();
                    let what = format!("tile `{}` of dashboard `{dashboard_key}`", tile.name.value);
                    self.error(ambiguous("tile", &what, &tile.name, &listed));
                    failed = true;
                }
            }
        }
        if failed {
            return None;
        }
        let named: BTreeSet<&str> = config
            .tiles
            .iter()
            .flat_map(|t| std::iter::once(&t.name).chain(&t.renamed_from))
            .map(|n| n.value.as_str())
            .collect();
        for (i, tile) in config.tiles.iter().enumerate() {
            if matched[i].is_some() || !tile.renamed_from.is_empty() {
                continue;
            }
            if let Some(live_tile) = live.tiles.get(i)
                && !claimed.contains(&i)
                && !named.contains(live_tile.name.as_str())
            {
                claimed.insert(i);
                matched[i] = Some(i);
            }
        }
        Some(matched)
    }

    /// Plans one config dashboard: its create or update, and what its alerts need to know.
    /// `None` when it has errors (reported); its alerts then get no change either.
    pub(crate) fn dashboard<'c, 'l>(
        &mut self,
        stack: &StackConfig,
        stack_ref: &StackRef,
        index: &StackIndex<'l>,
        tag: &str,
        config: &'c DashboardConfig,
    ) -> Option<PlannedDashboard<'c, 'l>> {
        let mut copies_going = Vec::new();
        let existing = self.live_dashboard(stack, stack_ref, index, config, &mut copies_going)?;
        let matched = match existing {
            Some(live) => self.match_tiles(&config.key.value, config, live)?,
            None => vec![None; config.tiles.len()],
        };
        // Matched under its current name: the name as the server stores it (a renamed one takes
        // the config's).
        let stored = existing.filter(|d| normalize::same_name(&d.name, &config.name.value));
        if let Some(live) = stored {
            self.stored_name("dashboard", &config.name, &live.name);
        }
        let desired_name = stored.map_or_else(|| config.name.value.to_string(), |d| d.name.clone());
        let containers = self.desired_containers(index, config)?;
        let mut tiles = self.desired_tiles(index, config, existing, &matched)?;
        uncontained(&mut tiles.tiles, config, &containers);
        let mut tags: Vec<String> = config.tags.iter().map(|t| t.value.to_string()).collect();
        tags.push(tag.to_string());
        let desired = Dashboard {
            id: String::new(),
            // The name as the server stores it: sending it as written would never stick.
            name: desired_name,
            tiles: tiles.tiles,
            tags: live::tags(&tags),
            containers,
        };
        let after = live::dashboard(&desired);
        let address = Address::Dashboard {
            stack: &stack.key.value,
            dashboard: &config.key.value,
        }
        .into();
        let renamed_view = existing
            .filter(|d| d.name != desired.name || !tiles.renames.is_empty())
            .map(|live| renamed_view(live, &desired.name, config, &matched));
        let mut planned = PlannedDashboard {
            config,
            live: existing,
            step: None,
            tile_ids: tiles.ids,
            renamed_view,
            updated: false,
            copies_going,
        };
        let body = request_of(desired, existing);
        let Some(live) = existing else {
            planned.step = self.create_dashboard(address, body, config, after, stack_ref);
            return Some(planned);
        };
        let view = planned.renamed_view.as_ref();
        let change = updated(address, live, view, after, &body, &tiles.renames, tag);
        if change.action == Action::NoOp {
            self.push(change, None);
            return Some(planned);
        }
        let operation = Operation::Dashboard(DashboardOp::Update {
            stack: stack_ref.clone(),
            dashboard_id: live.id.clone(),
            body,
        });
        planned.step = self.push(change, Some((operation, Vec::new())));
        planned.updated = true;
        Some(planned)
    }

    /// The live dashboard a config dashboard is (`Some(None)`: none yet); `None` when two live
    /// dashboards could be it (reported). With `--dedupe`, the copies that hold alerts are
    /// added to `going` rather than planned here (see [`CopyGoing`]).
    fn live_dashboard<'l>(
        &mut self,
        stack: &StackConfig,
        stack_ref: &StackRef,
        index: &StackIndex<'l>,
        config: &DashboardConfig,
        going: &mut Vec<CopyGoing>,
    ) -> Option<Option<&'l Dashboard>> {
        // Names as the server stores them ([`normalize::name_key`]).
        let by_name = |name: &str| {
            index
                .dashboards_by_name
                .get(&normalize::name_key(name))
                .cloned()
                .unwrap_or_default()
        };
        let same_name: Vec<&'l Dashboard> = by_name(&config.name.value);
        if same_name.len() > 1 {
            return self.duplicate_dashboards(stack, stack_ref, index, config, &same_name, going);
        }
        let found = candidates(by_name, &config.name.value, &config.renamed_from);
        if found.len() > 1 {
            let listed: Vec<(String, String, Option<Span>)> = found
                .iter()
                .map(|(d, old)| (d.name.clone(), d.id.clone(), old.map(|o| o.span)))
                .collect();
            let address = Address::Dashboard {
                stack: &stack.key.value,
                dashboard: &config.key.value,
            };
            let what = format!("`{address}`");
            self.error(ambiguous("dashboard", &what, &config.name, &listed));
            return None;
        }
        Some(found.first().map(|(d, _)| *d))
    }

    /// Several live dashboards of a config dashboard's name: with `--dedupe`, the oldest kept
    /// and the other copies deleted (those holding alerts added to `going`); otherwise an error.
    fn duplicate_dashboards<'l>(
        &mut self,
        stack: &StackConfig,
        stack_ref: &StackRef,
        index: &StackIndex<'l>,
        config: &DashboardConfig,
        same_name: &[&'l Dashboard],
        going: &mut Vec<CopyGoing>,
    ) -> Option<Option<&'l Dashboard>> {
        let tag = ownership_tag(&stack.key.value);
        // The config's alerts on this dashboard, by name as the server stores names.
        let declared: BTreeSet<String> = stack
            .alerts
            .values()
            .filter(|a| a.dashboard.value == config.key.value)
            .map(|a| normalize::name_key(&a.name.value))
            .collect();
        let mut repair = dedupe::dashboards(same_name, &index.live.alerts, &tag, |a| {
            declared.contains(&normalize::name_key(&a.name))
        });
        if let Some(repair) = repair.as_mut() {
            // A copy goes only when it is what the config makes (see `Repair::hold`).
            let made: BTreeSet<&str> = same_name
                .iter()
                .filter(|d| self.made_by_config(index, config, d, &tag))
                .map(|d| d.id.as_str())
                .collect();
            repair.hold(
                |id| made.contains(id),
                "dashboard",
                "its name, tags or tiles",
            );
        }
        if let Some(repair) = repair.as_ref().filter(|r| self.dedupe && r.left.is_empty())
            && let Some(kept) = same_name.iter().find(|d| d.id == repair.kept)
        {
            let of = Address::Dashboard {
                stack: &stack.key.value,
                dashboard: &config.key.value,
            };
            self.delete_copies(stack, stack_ref, &of, repair, same_name, going);
            return Some(Some(*kept));
        }
        let ids: Vec<&str> = same_name.iter().map(|d| d.id.as_str()).collect();
        self.error(
            Diagnostic::error(
                Code::PlanDuplicateDashboard,
                format!(
                    "stack `{}` has {} dashboards named \"{}\" (ids {}); converge matches dashboards by name",
                    stack.key.value,
                    same_name.len(),
                    config.name.value,
                    ids.join(", ")
                ),
                Some(config.name.span),
            )
            .with_label("matches more than one live dashboard")
            .with_help(repair.map_or_else(
                || copies_help(&ids),
                |r| r.help("dashboard", self.dedupe),
            )),
        );
        None
    }

    /// Whether planning `config` against the live dashboard `live` changes nothing: it is what
    /// the config makes. What the comparison reports is not the plan's (its diagnostics are
    /// dropped): the dashboard is planned, and said, once.
    fn made_by_config(
        &mut self,
        index: &StackIndex,
        config: &DashboardConfig,
        live: &Dashboard,
        tag: &str,
    ) -> bool {
        let mark = self.diagnostics.len();
        let made = self
            .desired_against(index, config, live, tag)
            .is_some_and(|after| {
                let before = live::dashboard(live);
                live.name == after.name && diff(&before, &live::dashboard(&after)).is_empty()
            });
        self.diagnostics.truncate(mark);
        made
    }

    /// The dashboard `config` makes when `live` is the one it updates.
    fn desired_against(
        &mut self,
        index: &StackIndex,
        config: &DashboardConfig,
        live: &Dashboard,
        tag: &str,
    ) -> Option<Dashboard> {
        let matched = self.match_tiles(&config.key.value, config, live)?;
        let containers = self.desired_containers(index, config)?;
        let mut tiles = self.desired_tiles(index, config, Some(live), &matched)?;
        if !tiles.renames.is_empty() {
            return None;
        }
        uncontained(&mut tiles.tiles, config, &containers);
        let mut tags: Vec<String> = config.tags.iter().map(|t| t.value.to_string()).collect();
        tags.push(tag.to_string());
        let name = if normalize::same_name(&live.name, &config.name.value) {
            live.name.clone()
        } else {
            config.name.value.to_string()
        };
        Some(Dashboard {
            id: String::new(),
            name,
            tiles: tiles.tiles,
            tags: live::tags(&tags),
            containers,
        })
    }

    /// The deletes of the copies `repair` may remove of the dashboard at `of`.
    fn delete_copies(
        &mut self,
        stack: &StackConfig,
        stack_ref: &StackRef,
        of: &Address<'_>,
        repair: &dedupe::Repair,
        same_name: &[&Dashboard],
        going: &mut Vec<CopyGoing>,
    ) {
        for copy in same_name
            .iter()
            .filter(|d| repair.removable.contains(&d.id))
        {
            let before = live::dashboard(copy);
            let change = dedupe::deleted(
                Address::LiveDashboard {
                    stack: &stack.key.value,
                    name: std::borrow::Cow::Borrowed(&copy.name),
                },
                &copy.id,
                of,
                repair,
                before,
                copy.fingerprint(),
            );
            let operation = Operation::Dashboard(DashboardOp::Delete {
                stack: stack_ref.clone(),
                dashboard_id: copy.id.clone(),
            });
            if repair.holding.iter().any(|(id, _)| *id == copy.id) {
                going.push(CopyGoing {
                    id: copy.id.clone(),
                    change,
                    operation,
                });
            } else {
                self.push(change, Some((operation, Vec::new())));
            }
        }
    }

    /// The config's tiles as they are sent, in the generation the stack speaks, each live
    /// tile's id carried forward, and the live tiles converge does not model after them as the
    /// server has them; `None` when a tile cannot be sent (each one reported).
    fn desired_tiles<'c, 'l>(
        &mut self,
        index: &StackIndex,
        config: &'c DashboardConfig,
        existing: Option<&'l Dashboard>,
        matched: &[Option<usize>],
    ) -> Option<DesiredTiles<'c, 'l>> {
        let generation = index.generation;
        let mut failed = false;
        let mut out = DesiredTiles {
            tiles: Vec::with_capacity(config.tiles.len()),
            ids: BTreeMap::new(),
            renames: Vec::new(),
        };
        for (tile, live_index) in config.tiles.iter().zip(matched) {
            let live_tile = existing.zip(*live_index).map(|(d, j)| &d.tiles[j]);
            // A stack read as today's whose server still answers this tile with `series` (a
            // server that keeps each tile in the shape it was sent): the shorthand goes as
            // `series`, as the server holds it, so an export of a mixed stack plans empty.
            let generation = match live_tile {
                Some(live)
                    if generation == Some(Generation::Config)
                        && !index.declared
                        && tile.config.is_none()
                        && !live.series.is_empty() =>
                {
                    Some(Generation::Series)
                }
                _ => generation,
            };
            let drawn = self.drawn(index, tile, generation);
            failed |= drawn.is_none();
            let (series, tile_config) = drawn.unwrap_or_default();
            // Carry the live tile's id forward so alerts on it survive the update.
            let live_id = live_tile.and_then(|t| t.id.as_deref());
            if let Some(live_id) = live_id {
                out.ids.insert(tile.name.value.as_str(), live_id);
            }
            let id = live_id.map(str::to_string);
            if let Some(live_tile) = live_tile
                && live_tile.name != tile.name.value
            {
                out.renames
                    .push((live_tile.name.clone(), tile.name.value.to_string()));
            }
            out.tiles.push(Tile {
                id,
                name: tile.name.value.to_string(),
                x: tile.x.value,
                y: tile.y.value,
                w: tile.w.value,
                h: tile.h.value,
                // Today's tiles keep `asRatio` inside their `config`.
                as_ratio: tile_config
                    .is_none()
                    .then(|| tile.as_ratio.as_ref().map(|v| v.value))
                    .flatten(),
                series,
                config: tile_config.map(wire::CompactJson::from),
                container_id: tile.container_id.as_ref().map(|c| c.value.to_string()),
                tab_id: tile.tab_id.as_ref().map(|t| t.value.to_string()),
            });
        }
        if failed {
            return None;
        }
        // A live tile converge does not model (a display type it does not know) stays as the
        // server has it, by id: an update built without it would delete it (the stack's
        // warning says so once).
        if let Some(live) = existing {
            let claimed: BTreeSet<usize> = matched.iter().flatten().copied().collect();
            for (j, tile) in live.tiles.iter().enumerate() {
                if !claimed.contains(&j) && carried(tile) {
                    out.tiles.push(tile.clone());
                }
            }
        }
        Some(out)
    }

    /// The dashboard's containers as sent; `None` when the stack's servers, of the contract's
    /// generation, have none to hold them (reported, at the containers and at each tile that
    /// joins one).
    fn desired_containers(
        &mut self,
        index: &StackIndex,
        config: &DashboardConfig,
    ) -> Option<Vec<Container>> {
        let defined = config.containers.as_ref().map_or(&[][..], |c| &c.value);
        if index.generation == Some(Generation::Series) {
            let mut at: Vec<(Span, String)> = Vec::new();
            let dashboard = format!("dashboard `{}`", config.key.value);
            if let Some(containers) = config.containers.as_ref().filter(|c| !c.value.is_empty()) {
                at.push((containers.span, format!("{dashboard} has `containers`")));
            }
            for tile in &config.tiles {
                for (field, id) in [("containerId", &tile.container_id), ("tabId", &tile.tab_id)] {
                    if let Some(id) = id {
                        at.push((id.span, format!("tile `{}` has `{field}`", tile.name.value)));
                    }
                }
            }
            for (span, what) in &at {
                self.error(
                    Diagnostic::error(
                        Code::PlanTileGeneration,
                        format!(
                            "{what}, but this stack speaks the contract's generation (its tiles read back with `series`), whose servers have no containers; today's generation (tiles as `config`) has them"
                        ),
                        Some(*span),
                    )
                    .with_label("the server cannot hold this")
                    .with_help("remove the containers and the tiles' `containerId`/`tabId`, or set `generation: config` on the stack if its server is of today's generation"),
                );
            }
            if !at.is_empty() {
                return None;
            }
        }
        Some(
            defined
                .iter()
                .map(|c| Container {
                    id: c.id.value.to_string(),
                    title: c.title.value.to_string(),
                    collapsed: c.collapsed.as_ref().is_some_and(|v| v.value),
                    collapsible: c.collapsible.as_ref().map(|v| v.value),
                    bordered: c.bordered.as_ref().map(|v| v.value),
                    tabs: (!c.tabs.is_empty()).then(|| {
                        c.tabs
                            .iter()
                            .map(|t| ContainerTab {
                                id: t.id.value.to_string(),
                                title: t.title.value.to_string(),
                            })
                            .collect()
                    }),
                })
                .collect(),
        )
    }

    /// What a config tile draws, as sent to a stack of `generation` (`None`: not known yet, each
    /// tile as written): `(series, config)`, one of them set; `None` when a source is unknown
    /// or the stack cannot hold the tile (reported).
    fn drawn(
        &mut self,
        index: &StackIndex,
        tile: &TileConfig,
        generation: Option<Generation>,
    ) -> Option<(Vec<Series>, Option<Value>)> {
        if let Some(config) = &tile.config {
            if generation == Some(Generation::Series) {
                self.error(
                    Diagnostic::error(
                        Code::PlanTileGeneration,
                        format!(
                            "tile `{}` is written as `config`, but this stack speaks the contract's generation: its tiles read back with `series`",
                            tile.name.value
                        ),
                        Some(config.span),
                    )
                    .with_label("the server needs `series` here")
                    .with_help("write the tile as `series:`, or set `generation: config` on the stack if its server takes `config`"),
                );
                return None;
            }
            if !self.config_source_is_an_object_id(index, tile) {
                return None;
            }
            let listed = &index.live.sources;
            let resolved = resolve_config(config, |name| {
                self.source_id(listed, name).map(|(id, _)| id)
            });
            return match resolved {
                Ok(value) => Some((Vec::new(), Some(value))),
                Err(diagnostic) => {
                    self.error(*diagnostic);
                    None
                }
            };
        }
        let series = self.series_of(index, tile)?;
        if generation != Some(Generation::Config) {
            return Some((series, None));
        }
        match lower(&series, tile.as_ratio.as_ref().map(|r| r.value)) {
            Ok(value) => Some((Vec::new(), Some(value))),
            Err(why) => {
                let at = tile.series.first().map_or(tile.span, |s| s.span);
                self.error(
                    Diagnostic::error(
                        Code::PlanTileGeneration,
                        format!(
                            "tile `{}` cannot be sent to this stack, which speaks today's generation (tiles as `config`): {why}",
                            tile.name.value
                        ),
                        Some(at),
                    )
                    .with_label("the server cannot hold this"),
                );
                None
            }
        }
    }

    /// Today's servers refuse a tile `config` whose `sourceId` is not a 24-hex ObjectId
    /// (`Invalid ObjectId`): an error at its line on a stack of today's generation; `false`
    /// then. A source named by `source:` resolves to the id the stack lists.
    fn config_source_is_an_object_id(&mut self, index: &StackIndex, tile: &TileConfig) -> bool {
        if index.generation != Some(Generation::Config) {
            return true;
        }
        let Some(Value::String(id)) = tile.config.as_ref().and_then(|c| c.value.get("sourceId"))
        else {
            return true;
        };
        if is_object_id(id) {
            return true;
        }
        self.error(
            Diagnostic::error(
                Code::PlanObjectId,
                format!(
                    "tile `{}` names source `{id}` in its `config`, which is not an ObjectId: this stack speaks today's generation, whose servers refuse it (`Invalid ObjectId`)",
                    tile.name.value
                ),
                tile.config_span("/sourceId"),
            )
            .with_label("24 hexadecimal digits here")
            .with_help("name the source by `source: <name>`, or give its id as the stack lists it"),
        );
        false
    }

    /// A tile's series as sent, sources resolved to ids; `None` when a source name is unknown
    /// (each one reported).
    fn series_of(&mut self, index: &StackIndex, tile: &TileConfig) -> Option<Vec<Series>> {
        let mut failed = false;
        let mut series = Vec::with_capacity(tile.series.len());
        for s in &tile.series {
            let source_id = match &s.source {
                None => None,
                Some(SourceRef::Id(id))
                    if index.generation == Some(Generation::Config) && !is_object_id(&id.value) =>
                {
                    self.error(
                        Diagnostic::error(
                            Code::PlanObjectId,
                            format!(
                                "tile `{}` names source `{}`, which is not an ObjectId: this stack speaks today's generation, whose servers refuse it (`Invalid ObjectId`)",
                                tile.name.value, id.value
                            ),
                            Some(id.span),
                        )
                        .with_label("24 hexadecimal digits here")
                        .with_help("name the source by `source: <name>`, or give its id as the stack lists it"),
                    );
                    failed = true;
                    None
                }
                Some(SourceRef::Id(id)) => Some(id.value.to_string()),
                Some(SourceRef::Name(name)) => match self.source_id(&index.live.sources, name) {
                    Ok((id, _)) => Some(id),
                    Err(diagnostic) => {
                        self.error(*diagnostic);
                        failed = true;
                        None
                    }
                },
            };
            series.push(wire_series(s, source_id));
        }
        (!failed).then_some(series)
    }

    /// Plans the create of a dashboard that is not live; returns its step.
    fn create_dashboard(
        &mut self,
        address: AddressBuf,
        body: DashboardRequest,
        config: &DashboardConfig,
        after: Value,
        stack_ref: &StackRef,
    ) -> Option<usize> {
        let operation = Operation::Dashboard(DashboardOp::Create {
            stack: stack_ref.clone(),
            body: DashboardRequest {
                // A create ignores tile ids; none are sent.
                tiles: body
                    .tiles
                    .into_iter()
                    .map(|t| Tile { id: None, ..t })
                    .collect(),
                ..body
            },
        });
        let order: Vec<&str> = config.tiles.iter().map(|t| t.name.value.as_str()).collect();
        let after = tiles_in_order(after, &order);
        self.push(
            Change {
                address,
                action: Action::Create,
                reason: "no dashboard with this name in the stack".into(),
                fields: diff::created(&after),
                before: None,
                after: Some(after),
                fingerprint: None,
                step: None,
                renamed_from: None,
            },
            Some((operation, Vec::new())),
        )
    }
}

/// One warning per stack whose planned dashboard updates would delete tiles the server does not
/// list: the observability API leaves PromQL tiles out of every answer, and an update replaces
/// the tiles with those sent, deleting the rest with their alerts. Without an alert on one
/// nothing shows such a tile; a live alert on a tile id its dashboard does not list does.
pub(crate) fn unlisted_tiles(
    stack: &StackConfig,
    index: &StackIndex<'_>,
    planned: &BTreeMap<&str, PlannedDashboard<'_, '_>>,
) -> Option<Diagnostic> {
    let mut found: Vec<String> = Vec::new();
    for dashboard in planned.values().filter(|p| p.updated) {
        let Some(live) = dashboard.live else {
            continue;
        };
        let listed: BTreeSet<&str> = live.tiles.iter().filter_map(|t| t.id.as_deref()).collect();
        for alert in &index.live.alerts {
            let on_tile = alert.source.as_deref().is_none_or(|s| s == "tile");
            if on_tile
                && alert.dashboard.as_deref() == Some(live.id.as_str())
                && let Some(tile) = alert.tile_id.as_deref().filter(|t| !listed.contains(t))
            {
                found.push(format!(
                    "{} / alert \"{}\" on tile {tile}",
                    live.name, alert.name
                ));
            }
        }
    }
    let first = found.first()?;
    let more = match found.len() {
        1 => String::new(),
        n => format!(" and {} more", n - 1),
    };
    Some(
        Diagnostic::warning(
            Code::PlanUnlistedTiles,
            format!(
                "stack `{}`: {} alert(s) ({first}{more}) watch a tile the dashboard's GET does not list (a PromQL tile, which the server leaves out of every answer); the update sends the tiles converge sees, and the server deletes the others with their alerts",
                stack.key.value,
                found.len(),
            ),
            Some(stack.key.span),
        )
        .with_help("move the PromQL tiles to a dashboard converge does not manage before applying, or leave these dashboards' updates out with `--only`"),
    )
}

/// Whether a live tile is carried over as the server has it: today's format, of a display
/// type converge does not model.
pub(crate) fn carried(tile: &Tile) -> bool {
    tile.is_newer_format() && tile.config.as_ref().is_some_and(|c| !modelled(&c.value()))
}

/// Takes the tiles carried over as the server has them (those converge does not model) out of
/// a container or tab the config no longer defines: the server refuses a tile that names one.
fn uncontained(tiles: &mut [Tile], config: &DashboardConfig, containers: &[Container]) {
    let configured = config.tiles.len().min(tiles.len());
    for tile in &mut tiles[configured..] {
        let Some(container) = tile
            .container_id
            .as_deref()
            .map(|id| containers.iter().find(|c| c.id == id))
        else {
            continue;
        };
        match container {
            None => {
                tile.container_id = None;
                tile.tab_id = None;
            }
            Some(container) => {
                let has_tab = |id: &str| container.tabs.iter().flatten().any(|t| t.id == id);
                if tile.tab_id.as_deref().is_some_and(|id| !has_tab(id)) {
                    tile.tab_id = None;
                }
            }
        }
    }
}

/// A config dashboard's tiles as they are sent.
struct DesiredTiles<'c, 'l> {
    tiles: Vec<Tile>,
    /// The live tile id of each config tile that exists live, by config tile name.
    ids: BTreeMap<&'c str, &'l str>,
    /// `(live name, config name)` of each tile renamed where it stands.
    renames: Vec<(String, String)>,
}

/// The live dashboard with the names the config gives it and its tiles.
fn renamed_view(
    live: &Dashboard,
    name: &str,
    config: &DashboardConfig,
    matched: &[Option<usize>],
) -> Dashboard {
    let mut view = live.clone();
    view.name = name.to_string();
    for (tile, live_index) in config.tiles.iter().zip(matched) {
        if let Some(t) = live_index.and_then(|j| view.tiles.get_mut(j)) {
            t.name = tile.name.value.to_string();
        }
    }
    view
}

/// The change of a dashboard that exists live, `body` being what the config asks for: compared
/// under the names the config gives (`view`: a renamed tile is matched to its live self), the
/// renames themselves leading the field list.
fn updated(
    address: AddressBuf,
    live: &Dashboard,
    view: Option<&Dashboard>,
    mut after: Value,
    body: &DashboardRequest,
    tile_renames: &[(String, String)],
    tag: &str,
) -> Change {
    let before = live::dashboard(live);
    let compared_before = view.map_or_else(|| before.clone(), live::dashboard);
    let mut fields = diff(&compared_before, &after);
    if !live.tags.iter().any(|t| t == tag) && tile_renames.is_empty() {
        // A dashboard the config adopts gets the ownership tag with its next real change; the
        // tag alone is no reason to write (an exported config plans to no changes).
        let comparable = untagged(&after, &body.tags, tag);
        if diff(&compared_before, &comparable).is_empty() && live.name == body.name {
            fields.clear();
            after = comparable;
        }
    }
    let mut renames = Vec::new();
    if live.name != body.name {
        renames.push(FieldChange {
            path: "name".into(),
            before: Some(json!(live.name)),
            after: Some(json!(body.name)),
        });
    }
    for (old, new) in tile_renames {
        renames.push(FieldChange {
            path: format!("tiles[{new}].name"),
            before: Some(json!(old)),
            after: Some(json!(new)),
        });
    }
    renames.append(&mut fields);
    let mut change = compared(address, before, after, renames, live.fingerprint());
    if live.name != body.name {
        change.reason = rename_reason(&live.name, &change.fields);
        change.renamed_from = Some(live.name.clone());
    }
    change
}

/// The desired dashboard value with `tags` but without the ownership tag.
fn untagged(after: &Value, tags: &[String], tag: &str) -> Value {
    let mut untagged = tags.to_vec();
    untagged.retain(|t| t != tag);
    let mut comparable = after.clone();
    if let Value::Object(map) = &mut comparable {
        map.insert("tags".into(), json!(untagged));
    }
    comparable
}

/// A created dashboard's tiles in the config's order (the normalized value sorts them by
/// name), so its rendering reads as the config does.
pub(crate) fn tiles_in_order(mut dashboard: Value, order: &[&str]) -> Value {
    if let Some(Value::Array(tiles)) = dashboard.get_mut("tiles") {
        tiles.sort_by_key(|t| {
            let name = t.get("name").and_then(Value::as_str).unwrap_or_default();
            order.iter().position(|n| *n == name).unwrap_or(usize::MAX)
        });
    }
    dashboard
}

/// The request that writes `desired`. Its containers are sent when there are any to write or
/// to remove: an update without them keeps the server's, and a server of the contract's
/// generation has none.
fn request_of(desired: Dashboard, existing: Option<&Dashboard>) -> DashboardRequest {
    let send_containers =
        !desired.containers.is_empty() || existing.is_some_and(|live| !live.containers.is_empty());
    DashboardRequest {
        name: desired.name,
        tiles: desired.tiles,
        tags: desired.tags,
        containers: send_containers.then_some(desired.containers),
    }
}
