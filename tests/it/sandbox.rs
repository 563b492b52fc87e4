//! The sandbox over real HTTP: every route, every limit, the behaviours that trip reconcilers,
//! faults, persistence, the `sandbox serve` command, and conformance with the OpenAPI documents.

mod behaviours;
mod conformance;
mod faults;
mod generation;
mod limits;
mod pipe_lifecycle;
mod reverse_endpoints;
mod routes;
mod serve;

/// The demo world's ids (they match `examples/quickstart.yaml`).
pub use crate::common::ANALYTICS;
pub const ORDERS: &str = "0f9d3b1e-6a52-4c0b-8f7e-2d5a9c1b4e77";
pub const EVENTS: &str = "5b2e8c4a-1d3f-4a6b-9c7e-8f0a1b2c3d4e";
pub const CLICKS: &str = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d";
pub const CUSTOMERS: &str = "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f";
pub const ENDPOINT: &str = "vpce-0a1b2c3d4e5f67890";

/// A dashboard body with tiles of the given names.
pub fn dashboard(name: &str, tiles: &[&str]) -> serde_json::Value {
    let tiles: Vec<serde_json::Value> = tiles
        .iter()
        .enumerate()
        .map(|(i, tile)| {
            serde_json::json!({
                "name": tile, "x": (i % 2) * 6, "y": (i / 2) * 4, "w": 6, "h": 4,
                "series": [{"type": "time", "dataSource": "events", "sourceId": "65f5e4a30000000100000001",
                    "aggFn": "count", "where": "service:api", "whereLanguage": "lucene",
                    "groupBy": []}]
            })
        })
        .collect();
    serde_json::json!({"name": name, "tags": ["team-api"], "tiles": tiles})
}

/// An alert body on a tile.
pub fn alert(name: &str, dashboard_id: &str, tile_id: &str) -> serde_json::Value {
    serde_json::json!({
        "name": name, "message": "it fired", "dashboardId": dashboard_id, "tileId": tile_id,
        "threshold": 100, "thresholdType": "above", "interval": "5m", "source": "tile",
        "channel": {"type": "webhook", "webhookId": "65f5e4a3b9e77c001a789012"}
    })
}
