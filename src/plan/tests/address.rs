//! Addresses are written in one place and read back in one: every kind renders as plans have
//! always shown it, and reads back as itself, whatever a live name holds.

use std::borrow::Cow;

use proptest::prelude::*;

use crate::plan::address::Address;

fn every_kind(name: &str) -> Vec<(Address<'_>, String)> {
    let quoted = format!("{name:?}");
    vec![
        (
            Address::ServiceScaling {
                service: "analytics",
            },
            "service.analytics.scaling".into(),
        ),
        (
            Address::PrivateEndpoint {
                service: "analytics",
                id: "vpce-0a1b.2c",
            },
            "service.analytics.private_endpoint[vpce-0a1b.2c]".into(),
        ),
        (
            Address::Pipe {
                service: "analytics",
                pipe: "orders",
            },
            "pipe.analytics.orders".into(),
        ),
        (
            Address::PipeScaling {
                service: "analytics",
                pipe: "orders",
            },
            "pipe.analytics.orders.scaling".into(),
        ),
        (
            Address::PipeSettings {
                service: "analytics",
                pipe: "orders",
            },
            "pipe.analytics.orders.settings".into(),
        ),
        (
            Address::PipeCompute {
                service: "analytics",
            },
            "service.analytics.pipe_compute".into(),
        ),
        (
            Address::LivePipe {
                service: "analytics",
                name: Cow::Borrowed(name),
            },
            format!("pipe.analytics[{quoted}]"),
        ),
        (
            Address::Backups {
                service: "analytics",
            },
            "check.analytics.backups".into(),
        ),
        (
            Address::Dashboard {
                stack: "prod",
                dashboard: "api-health",
            },
            "dashboard.prod.api-health".into(),
        ),
        (
            Address::LiveDashboard {
                stack: "prod",
                name: Cow::Borrowed(name),
            },
            format!("dashboard.prod[{quoted}]"),
        ),
        (
            Address::Tile {
                stack: "prod",
                dashboard: "api-health",
                tile: "p99 [ms]. latency",
            },
            "dashboard.prod.api-health.tile[p99 [ms]. latency]".into(),
        ),
        (
            Address::Alert {
                stack: "prod",
                alert: "api-errors",
            },
            "alert.prod.api-errors".into(),
        ),
        (
            Address::LiveAlert {
                stack: "prod",
                name: Cow::Borrowed(name),
            },
            format!("alert.prod[{quoted}]"),
        ),
        (
            Address::Alert {
                stack: "prod",
                alert: "api-errors[checkout]",
            },
            "alert.prod.api-errors[checkout]".into(),
        ),
        (
            Address::Dashboard {
                stack: "prod",
                dashboard: "health[eu,prod]",
            },
            "dashboard.prod.health[eu,prod]".into(),
        ),
        (
            Address::Tile {
                stack: "prod",
                dashboard: "health[eu,prod]",
                tile: "Errors",
            },
            "dashboard.prod.health[eu,prod].tile[Errors]".into(),
        ),
    ]
}

#[test]
fn every_kind_renders_as_plans_show_it_and_reads_back_as_itself() {
    for name in [
        "Old board",
        "",
        "with \"quotes\" and \\ backslash",
        "line\nbreak\ttab\r\0nul",
        "bell \u{7} escape \u{1b} and combining e\u{301}",
        "emoji 🚀 and dots. [brackets]",
    ] {
        for (address, text) in every_kind(name) {
            assert_eq!(address.to_string(), text);
            assert_eq!(Address::parse(&text), Some(address), "{text}");
        }
    }
}

#[test]
fn a_stack_instance_key_holds_its_bracket() {
    let stack = "env[prod]";
    let name = Cow::Borrowed("Health (prod)");
    for address in [
        Address::Dashboard {
            stack,
            dashboard: "health",
        },
        Address::Alert {
            stack,
            alert: "errors[checkout]",
        },
        Address::Tile {
            stack,
            dashboard: "health",
            tile: "Errors",
        },
        Address::LiveDashboard {
            stack,
            name: name.clone(),
        },
        Address::LiveAlert { stack, name },
    ] {
        let text = address.to_string();
        assert_eq!(Address::parse(&text), Some(address), "{text}");
    }
    assert_eq!(
        Address::parse("alert.env[prod][\"Errors\"]").and_then(|a| a.stack()),
        Some("env[prod]")
    );
}

#[test]
fn the_keys_an_address_names() {
    let pipe = Address::parse("pipe.analytics.orders.scaling").unwrap();
    assert_eq!((pipe.service(), pipe.stack()), (Some("analytics"), None));
    let alert = Address::parse("alert.prod[\"Old alert\"]").unwrap();
    assert_eq!((alert.service(), alert.stack()), (None, Some("prod")));
}

#[test]
fn text_that_is_no_address_reads_as_none() {
    for text in [
        "",
        "service",
        "service.analytics",
        "service.analytics.",
        "service..scaling",
        "service.analytics.scaling.extra",
        "service.analytics.private_endpoint[vpce",
        "check.analytics.restores",
        "pipe.analytics.orders.replicas",
        "pipe.analytics.a.b",
        "dashboard.prod.api-health.tiles[x]",
        "dashboard.prod[\"unterminated]",
        "dashboard.prod[\"bad \\q escape\"]",
        "dashboard.prod[\"inner \" quote\"]",
        "alert.prod.a.b",
        "alert.prod.api-errors[]",
        "alert.prod.api-errors[a,]",
        "alert.prod.api-errors[a]b",
        "alert.prod.[a]",
        "dashboard.prod.health[a.b]",
        "service.analytics[\"name\"]",
        "widget.prod.x",
    ] {
        assert_eq!(Address::parse(text), None, "{text}");
    }
}

#[test]
fn an_open_family_is_the_text_around_its_live_part() {
    let open = |address: Address<'_>| address.around_open_part();
    assert_eq!(
        open(Address::LiveDashboard {
            stack: "prod",
            name: Cow::Borrowed("")
        }),
        Some(("dashboard.prod[\"".to_string(), "\"]"))
    );
    assert_eq!(
        open(Address::PrivateEndpoint {
            service: "analytics",
            id: ""
        }),
        Some(("service.analytics.private_endpoint[".to_string(), "]"))
    );
    assert_eq!(
        open(Address::Alert {
            stack: "prod",
            alert: "a"
        }),
        None
    );
}

proptest! {
    #[test]
    fn any_live_name_reads_back_as_itself(name in any::<String>()) {
        for (address, text) in every_kind(&name) {
            prop_assert_eq!(address.to_string(), text.clone());
            prop_assert_eq!(Address::parse(&text), Some(address));
        }
    }
}
