use super::build::{Keys, slug};
use super::*;
use crate::api::wire::{
    Alert, Channel, Dashboard, IpAccessEntry, PipeScaling, ResourceTag, Series, Source, Tile,
};

#[test]
fn keys_are_slugs_made_unique_in_name_order() {
    assert_eq!(slug("API health", "d"), "api-health");
    assert_eq!(slug("  Latency (p95) ", "d"), "latency-p95");
    assert_eq!(slug("日本", "dashboard"), "dashboard");
    let mut keys = Keys::default();
    assert_eq!(keys.take("orders".into()), "orders");
    assert_eq!(keys.take("orders".into()), "orders-2");
    assert_eq!(keys.take("orders".into()), "orders-3");
}

#[test]
fn accented_latin_letters_keep_their_base_letter_in_keys() {
    assert_eq!(slug("Café Überblick", "d"), "cafe-uberblick");
    assert_eq!(slug("Ünïcødé 📈", "d"), "unicode");
    assert_eq!(slug("Straße Æon", "d"), "strasse-aeon");
}

fn tile(id: &str, name: &str, source: &str) -> Tile {
    Tile {
        id: Some(id.into()),
        name: name.into(),
        x: 0,
        y: 0,
        w: 6,
        h: 4,
        as_ratio: None,
        series: vec![Series {
            kind: Some("time".into()),
            source_id: Some(source.into()),
            agg_fn: Some("count".into()),
            where_: Some("cost ${env:X}".into()),
            ..Series::default()
        }],
        config: None,
        container_id: None,
        tab_id: None,
    }
}

fn source(id: &str, name: &str) -> Source {
    Source {
        id: id.into(),
        name: name.into(),
        kind: None,
        connection: None,
        from: None,
        details: Default::default(),
    }
}

fn stack() -> StackLive {
    StackLive {
        dashboards: vec![
            Dashboard {
                id: "d1".into(),
                name: "API health".into(),
                tiles: vec![tile("t1", "Requests", "s1"), tile("t2", "Errors", "s2")],
                tags: vec!["team".into(), "converge:prod".into()],
                containers: Vec::new(),
            },
            Dashboard {
                id: "d2".into(),
                name: "Twice".into(),
                tiles: Vec::new(),
                tags: Vec::new(),
                containers: Vec::new(),
            },
            Dashboard {
                id: "d3".into(),
                name: "Twice".into(),
                tiles: Vec::new(),
                tags: Vec::new(),
                containers: Vec::new(),
            },
        ],
        alerts: vec![
            Alert {
                id: "a1".into(),
                name: "API errors".into(),
                dashboard: Some("d1".into()),
                tile_id: Some("t2".into()),
                threshold: Some(100.0),
                threshold_type: Some("above".into()),
                interval: Some("5m".into()),
                channel: Some(Channel {
                    kind: "webhook".into(),
                    webhook_id: Some("w1".into()),
                    email_recipients: None,
                }),
                ..Alert::default()
            },
            Alert {
                id: "a2".into(),
                name: "Orphan".into(),
                dashboard: Some("gone".into()),
                tile_id: Some("t9".into()),
                ..Alert::default()
            },
        ],
        // "Logs" names one source; "Dup" names two, so it is written by id.
        sources: vec![
            source("s1", "Logs"),
            source("s2", "Dup"),
            source("s3", "Dup"),
        ],
        ..StackLive::default()
    }
}

#[test]
fn a_stack_keeps_its_owner_key_and_leaves_out_what_a_config_cannot_hold() {
    let input = ExportInput {
        stacks: vec![StackExport {
            target: ExportTarget::Observability,
            live: stack(),
        }],
        ..ExportInput::default()
    };
    let exported = export(&input, true);
    let yaml = &exported.yaml;
    // The stack was managed as `prod`: its key stays, its ownership tag is not written.
    assert!(
        yaml.contains("stacks:\n  prod:\n    api: observability\n"),
        "{yaml}"
    );
    assert!(yaml.contains("tags: [team]\n"), "{yaml}");
    assert!(
        !yaml.contains("cloud:"),
        "no service, no cloud section: {yaml}"
    );
    assert!(yaml.contains("source: Logs\n"), "{yaml}");
    assert!(yaml.contains("sourceId: s2\n"), "{yaml}");
    assert!(yaml.contains("where: \"cost $${env:X}\"\n"), "{yaml}");
    assert!(
        yaml.contains("dashboard: api-health\n        tile: Errors\n"),
        "{yaml}"
    );
    assert!(
        !yaml.contains("Twice") && !yaml.contains("Orphan"),
        "{yaml}"
    );
    // Two sources share the name `Dup`: neither is exported (sources are found by name).
    assert_eq!(exported.warnings.len(), 4, "{:?}", exported.warnings);
    assert!(exported.warnings[0].contains("source \"Dup\" (id s2) is left out"));
    assert!(exported.warnings[2].contains("2 dashboards are named \"Twice\""));
    assert!(exported.warnings[3].contains("alert \"Orphan\" not exported"));
}

#[test]
fn services_export_scaling_endpoints_and_pipes_but_no_credentials() {
    let service = Service {
        id: "s-1".into(),
        name: "Analytics".into(),
        num_replicas: Some(3.0),
        idle_scaling: None,
        idle_timeout_minutes: Some(15.0),
        private_endpoint_ids: vec!["vpce-b".into(), "vpce-a".into()],
        ip_access_list: vec![IpAccessEntry {
            source: "10.0.0.0/8".into(),
            description: "office VPN".into(),
        }],
        tags: vec![
            ResourceTag {
                key: "team".into(),
                value: Some("data".into()),
            },
            ResourceTag {
                key: "converge.credentials-version.p-1".into(),
                value: Some("2".into()),
            },
        ],
        release_channel: Some("fast".into()),
        ..Service::default()
    };
    let pipe = Pipe {
        id: "p-1".into(),
        name: "Orders".into(),
        scaling: Some(PipeScaling {
            replicas: Some(4),
            replica_memory_gb: Some(0.5),
            ..PipeScaling::default()
        }),
        ..Pipe::default()
    };
    let input = ExportInput {
        services: vec![(service, vec![pipe])],
        ..ExportInput::default()
    };
    let yaml = export(&input, false).yaml;
    assert!(
        yaml.ends_with(
            "services:\n  analytics:\n    id: s-1\n    scaling:\n      numReplicas: 3\n      \
             idleScaling: true\n      idleTimeoutMinutes: 15\n    ipAccessList:\n      \
             - source: \"10.0.0.0/8\"\n        description: office VPN\n    tags:\n      team: data\n    \
             releaseChannel: fast\n    privateEndpoints:\n      \
             - id: vpce-a\n      - id: vpce-b\n    pipes:\n      orders:\n        id: p-1\n        \
             name: Orders\n        scaling:\n          replicas: 4\n          replicaMemoryGb: 0.5\n"
        ),
        "{yaml}"
    );
    assert!(yaml.contains("keySecret: ${env:CONVERGE_KEY_SECRET}"));
    assert!(!yaml.contains("observability:"));
}
