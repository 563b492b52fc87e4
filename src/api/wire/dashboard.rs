//! Dashboards of the observability API: tiles, containers, the dashboard, its request body and
//! its validation answer.

use serde::{Deserialize, Serialize};

use super::compact::CompactJson;
use super::lenient;
use super::series::Series;

/// A dashboard tile.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tile {
    /// Server-assigned id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Name, unique within its dashboard for converge.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub name: String,
    /// Grid column, 0 to 23.
    #[serde(default, deserialize_with = "lenient::i64_or_zero")]
    pub x: i64,
    /// Grid row.
    #[serde(default, deserialize_with = "lenient::i64_or_zero")]
    pub y: i64,
    /// Width, 1 to 24.
    #[serde(default, deserialize_with = "lenient::i64_or_zero")]
    pub w: i64,
    /// Height.
    #[serde(default, deserialize_with = "lenient::i64_or_zero")]
    pub h: i64,
    /// Draw series 0 divided by series 1.
    #[serde(
        default,
        deserialize_with = "lenient::opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub as_ratio: Option<bool>,
    /// Series (the contract's tile format). Left out when empty: a tile of today's format
    /// carries `config` instead.
    #[serde(
        default,
        deserialize_with = "lenient::or_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub series: Vec<Series>,
    /// Today's tile definition (`config` instead of `series`): what servers since 2.18 answer,
    /// and what converge writes to them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<CompactJson>,
    /// The dashboard container the tile is drawn in (today's servers; absent: the ungrouped area).
    #[serde(
        default,
        deserialize_with = "lenient::or_default",
        skip_serializing_if = "Option::is_none"
    )]
    pub container_id: Option<String>,
    /// The tab of its container the tile is on (today's servers).
    #[serde(
        default,
        deserialize_with = "lenient::or_default",
        skip_serializing_if = "Option::is_none"
    )]
    pub tab_id: Option<String>,
}

/// A grouping container of a dashboard's tiles (today's servers: `DashboardContainer`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Container {
    /// Id, unique within the dashboard; tiles join it by `containerId`.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub id: String,
    /// Title shown on its header.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub title: String,
    /// Whether it starts collapsed (the server requires it).
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub collapsed: bool,
    /// Whether a viewer can collapse it (the server's default: true).
    #[serde(
        default,
        deserialize_with = "lenient::opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub collapsible: Option<bool>,
    /// Whether it has a border (the server's default: true).
    #[serde(
        default,
        deserialize_with = "lenient::opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub bordered: Option<bool>,
    /// Its tabs; tiles join one by `tabId`.
    #[serde(
        default,
        deserialize_with = "lenient::or_default",
        skip_serializing_if = "Option::is_none"
    )]
    pub tabs: Option<Vec<ContainerTab>>,
}

/// A tab of a dashboard container.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerTab {
    /// Id, unique within its container.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub id: String,
    /// Title shown on the tab.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub title: String,
}

impl Tile {
    /// Whether the tile is of today's format: `config` and no `series`.
    pub(crate) fn is_newer_format(&self) -> bool {
        self.config.as_ref().is_some_and(|c| !c.is_null()) && self.series.is_empty()
    }
}

/// A dashboard (both stack APIs).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Dashboard {
    /// Server-assigned id.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub id: String,
    /// Name; converge's identity for matching.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub name: String,
    /// Tiles.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub tiles: Vec<Tile>,
    /// Tags.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub tags: Vec<String>,
    /// Grouping containers of the tiles (today's servers; left out when there are none, as
    /// they answer).
    #[serde(
        default,
        deserialize_with = "lenient::or_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub containers: Vec<Container>,
}

/// Body of dashboard create and update (update replaces the whole object).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DashboardRequest {
    /// Name.
    #[serde(default)]
    pub name: String,
    /// Tiles; ids are kept on update only when they already exist on the dashboard.
    #[serde(default)]
    pub tiles: Vec<Tile>,
    /// Tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Grouping containers; left out when neither the config nor the live dashboard has any
    /// (an update without them keeps the server's, and the contract's servers have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub containers: Option<Vec<Container>>,
}

/// The answer of `POST .../dashboards/validate`: 200 for a valid and an invalid body alike.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DashboardValidation {
    /// Whether the body passes every rule of a create.
    pub valid: bool,
    /// What is wrong; empty when valid.
    pub errors: Vec<ValidationProblem>,
}

/// One problem a dashboard validation names.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValidationProblem {
    /// The member, dot-separated (`tiles.0.config`); empty for the body itself.
    #[serde(default)]
    pub path: String,
    /// What is wrong with it.
    pub message: String,
}
