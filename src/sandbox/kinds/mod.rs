//! The kinds the sandbox serves, one file each: its routes, handlers and validation. A kind is
//! registered with one line in [`KINDS`]; the route table is assembled from it.
//!
//! Shared machinery stays outside: the server (auth, limits, faults, envelopes, the request
//! log), the store and its persistence, the seeds, the chart series, body validation helpers.

mod alert;
mod backup;
mod chart;
mod common;
mod dashboard;
mod pipe;
mod private_endpoint;
mod reverse_endpoint;
mod saved_search;
mod service;
mod source;
mod webhook;

use super::routes::Route;

/// The routes of every kind, in the order they are matched.
const KINDS: &[&[Route]] = &[
    service::ROUTES,
    private_endpoint::ROUTES,
    reverse_endpoint::ROUTES,
    backup::ROUTES,
    pipe::ROUTES,
    dashboard::ROUTES,
    alert::ROUTES,
    source::ROUTES,
    webhook::ROUTES,
    saved_search::ROUTES,
    chart::ROUTES,
];

/// The route table of both APIs.
pub(crate) fn routes() -> impl Iterator<Item = &'static Route> {
    KINDS.iter().flat_map(|routes| routes.iter())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::routes::{Api, match_route};

    #[test]
    fn templates_name_the_route_not_the_ids() {
        let m = match_route(
            routes(),
            "PATCH",
            "/v1/organizations/o/services/s/pipes/p/scaling",
        )
        .unwrap();
        assert_eq!(m.route.method, "PATCH");
        assert_eq!(
            m.template,
            "/v1/organizations/{organizationId}/services/{serviceId}/pipes/{pipeId}/scaling"
        );
        assert_eq!(m.service.as_deref(), Some("s"));
        assert_eq!(m.id.as_deref(), Some("p"));
        let m = match_route(routes(), "DELETE", "/api/v2/dashboards/abc").unwrap();
        assert_eq!(
            (m.api, m.route.method, m.template),
            (Api::Observability, "DELETE", "/api/v2/dashboards/{id}")
        );
        assert!(match_route(routes(), "POST", "/v1/organizations/o/services").is_none());
        assert!(match_route(routes(), "GET", "/v2/whatever").is_none());
    }

    #[test]
    fn no_two_routes_share_a_method_and_template() {
        let mut seen = std::collections::BTreeSet::new();
        for route in routes() {
            assert!(
                seen.insert((route.method, route.template)),
                "{} {} is registered twice",
                route.method,
                route.template
            );
        }
        assert_eq!(seen.len(), 63, "every route of both APIs");
    }
}
