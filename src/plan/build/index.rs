//! A stack's live objects indexed by name and id.

use std::collections::{BTreeMap, BTreeSet};

use crate::api::wire::{Alert, Dashboard, Tile};
use crate::config::model::Generation;
use crate::live::StackLive;
use crate::plan::normalize;

/// A stack's live objects indexed for lookups by name and id, so planning stays linear in the
/// size of the stack.
pub(crate) struct StackIndex<'l> {
    pub(crate) live: &'l StackLive,
    /// The dashboards of each name, as a server that normalises names stores it
    /// ([`normalize::name_key`]): a name sent with two spaces may come back with one.
    pub(crate) dashboards_by_name: BTreeMap<String, Vec<&'l Dashboard>>,
    pub(crate) dashboards_by_id: BTreeMap<&'l str, &'l Dashboard>,
    /// The alerts of each name (more than one is an error for a config alert of that name).
    pub(crate) alerts_by_name: BTreeMap<String, Vec<&'l Alert>>,
    /// The ids of the alerts of each name that another stack owns on the same server (on a
    /// dashboard tagged for it, left out of `live`): a create of the name leaves them alone.
    pub(crate) theirs_by_name: BTreeMap<String, Vec<String>>,
    /// The tile format the stack speaks: its `generation:` setting, else what its GETs answer
    /// (`config` when a live tile reads back with `config`, `series` when one reads back with
    /// `series`); `None` while it has no tiles (each tile is then sent as written).
    pub(crate) generation: Option<Generation>,
    /// Whether the stack's config says its generation (`series` or `config`), rather than
    /// converge reading it from the live tiles.
    pub(crate) declared: bool,
    /// Whether the stack's servers are known to be of the contract's generation for alerts:
    /// declared `generation: series`, else tiles read back as `series`, else (no tiles) live
    /// alerts answered without the `channels` every alert of today's generation has.
    pub(crate) contract_alerts: bool,
}

impl<'l> StackIndex<'l> {
    /// The index of `live`, the part of `all` (the stack's whole live state) that is the
    /// stack's own; the rest of `all`'s alerts are another stack's ([`Self::theirs`]).
    pub(crate) fn new(live: &'l StackLive, all: &StackLive, setting: Option<Generation>) -> Self {
        let mut dashboards_by_name: BTreeMap<String, Vec<&Dashboard>> = BTreeMap::new();
        let mut dashboards_by_id = BTreeMap::new();
        for d in &live.dashboards {
            dashboards_by_name
                .entry(normalize::name_key(&d.name))
                .or_default()
                .push(d);
            dashboards_by_id.entry(d.id.as_str()).or_insert(d);
        }
        let mut alerts_by_name: BTreeMap<String, Vec<&Alert>> = BTreeMap::new();
        for a in &live.alerts {
            alerts_by_name
                .entry(normalize::name_key(&a.name))
                .or_default()
                .push(a);
        }
        let tiles = || live.dashboards.iter().flat_map(|d| &d.tiles);
        let generation = match setting {
            Some(Generation::Auto) | None => {
                if tiles().any(Tile::is_newer_format) {
                    Some(Generation::Config)
                } else if tiles().any(|t| !t.series.is_empty()) {
                    Some(Generation::Series)
                } else {
                    None
                }
            }
            Some(chosen) => Some(chosen),
        };
        let contract_alerts = match generation {
            Some(g) => g == Generation::Series,
            None => {
                !live.alerts.is_empty() && live.alerts.iter().all(|a| a.newer.channels.is_none())
            }
        };
        StackIndex {
            live,
            generation,
            declared: setting.is_some_and(|s| s != Generation::Auto),
            contract_alerts,
            dashboards_by_name,
            dashboards_by_id,
            alerts_by_name,
            theirs_by_name: theirs_by_name(live, all),
        }
    }

    /// The ids of the alerts named `name` that another stack owns.
    pub(crate) fn theirs(&self, name: &str) -> Vec<String> {
        self.theirs_by_name
            .get(&normalize::name_key(name))
            .cloned()
            .unwrap_or_default()
    }

    /// The live dashboard an alert points at.
    pub(crate) fn dashboard_of(&self, alert: &Alert) -> Option<&'l Dashboard> {
        alert
            .dashboard
            .as_deref()
            .and_then(|id| self.dashboards_by_id.get(id).copied())
    }
}

/// The ids of the alerts of `all` that are not in `live` (another stack's), by name.
fn theirs_by_name(live: &StackLive, all: &StackLive) -> BTreeMap<String, Vec<String>> {
    let mine: BTreeSet<&str> = live.alerts.iter().map(|a| a.id.as_str()).collect();
    let mut theirs: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for a in all.alerts.iter().filter(|a| !mine.contains(a.id.as_str())) {
        theirs
            .entry(normalize::name_key(&a.name))
            .or_default()
            .push(a.id.clone());
    }
    theirs
}
