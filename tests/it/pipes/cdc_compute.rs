//! The shared compute of database pipes (`pipesCdcScaling`, issue 35 part 3) for every kind the
//! cloud document names for it (PostgreSQL, MySQL, MongoDB, BigQuery), through the binary: the
//! sandbox, as the document says, serves it only once the service has a database pipe, so a
//! `pipeCompute:` on a service without one fails at its line; once a mysql, mongodb or bigquery
//! pipe is created there, the same `pipeCompute:` is planned, patched and then plans empty.

use crate::common::{Converge, Workspace};

/// The demo world's service that has no pipe.
const REPORTING: &str = "2e4f6a8b-3c5d-4e7f-8a9b-0c1d2e3f4a5b";

/// Credential variables and their values.
type Secrets = &'static [(&'static str, &'static str)];

/// Each database kind: a pipe of it declared whole, its credential variables and values.
const KINDS: [(&str, &str, Secrets); 3] = [
    (
        "mysql",
        "          mysql:\n            host: mysql.example.com\n            port: 3306\n            credentials:\n              username: ${env:PIPE_CDC_USER}\n              password: ${env:PIPE_CDC_PASSWORD}\n            settings: { replicationMode: cdc }\n            tableMappings: [{ sourceSchemaName: shop, sourceTable: orders, targetTable: shop_orders }]\n",
        &[
            ("PIPE_CDC_USER", "cdc-user"),
            ("PIPE_CDC_PASSWORD", "cdc-password-71c2"),
        ],
    ),
    (
        "mongodb",
        "          mongodb:\n            uri: mongodb://mongo.example.com:27017/shop\n            readPreference: primary\n            credentials:\n              username: ${env:PIPE_CDC_USER}\n              password: ${env:PIPE_CDC_PASSWORD}\n            settings: { replicationMode: cdc }\n            tableMappings: [{ sourceDatabaseName: shop, sourceCollection: orders, targetTable: shop_orders }]\n",
        &[
            ("PIPE_CDC_USER", "cdc-user"),
            ("PIPE_CDC_PASSWORD", "cdc-password-71c2"),
        ],
    ),
    (
        "bigquery",
        "          bigquery:\n            snapshotStagingPath: gs://shop-staging/cdc/\n            credentials:\n              serviceAccountFile: ${env:PIPE_CDC_KEY}\n            settings: { replicationMode: snapshot }\n            tableMappings: [{ sourceDatasetName: shop, sourceTable: orders, targetTable: shop_orders }]\n",
        &[("PIPE_CDC_KEY", "Y2RjLWtleS05ZDNh")],
    ),
];

/// `reporting` with `compute` (its `pipeCompute:` lines) and `pipes` (its `pipes:` entries).
fn reporting(compute: &str, pipes: &str) -> String {
    format!(
        "version: 1\norganization: ${{env:CONVERGE_ORG_ID}}\ncloud:\n  url: ${{env:CONVERGE_CLOUD_URL}}\n  keyId: ${{env:CONVERGE_KEY_ID}}\n  keySecret: ${{env:CONVERGE_KEY_SECRET}}\nservices:\n  reporting:\n    id: {REPORTING}\n    scaling: {{ numReplicas: 1 }}\n{compute}    pipes:\n{pipes}"
    )
}

/// One pipe of `source` (the kind's lines under `source:`).
fn pipe(source: &str) -> String {
    format!(
        "      orders:\n        name: orders\n        source:\n{source}        destination:\n          database: shop\n"
    )
}

const COMPUTE: &str = "    pipeCompute: { replicaCpuMillicores: 4000, replicaMemoryGb: 16 }\n";

#[test]
fn pipe_compute_applies_to_every_database_kind_once_the_service_has_one() {
    let sandbox = crate::common::fast_sandbox();
    let workspace = Workspace::new();
    // No database pipe yet: the cloud does not serve the compute, and the plan says so at
    // the `pipeCompute:` line.
    let early = reporting(COMPUTE, "      {}\n").replace("    pipes:\n      {}\n", "");
    let path = workspace.write("early.yaml", &early);
    let refused = Converge::new(&sandbox).fast().run(["plan", &path]);
    assert_eq!(refused.code, 1, "{refused:?}");
    let line = 1 + early[..early.find("pipeCompute").unwrap()]
        .matches('\n')
        .count();
    assert!(
        refused.stderr.contains(&format!("early.yaml:{line}:"))
            && refused.stderr.contains("at least one database ClickPipe"),
        "{refused:?}"
    );
    for (kind, source, secrets) in KINDS {
        let sandbox = crate::common::fast_sandbox();
        let declared = pipe(source);
        let converge = Converge::new(&sandbox).fast().envs(secrets.iter().copied());
        converge
            .clone()
            .config(&reporting("", &declared))
            .run(["apply", "--yes", "--wake"])
            .assert_exit(0);
        let config = reporting(COMPUTE, &declared);
        let planned = converge.clone().config(&config).run(["plan"]);
        assert!(
            planned.stdout.contains("service.reporting.pipe_compute"),
            "{kind}: {planned:?}"
        );
        let applied = converge
            .clone()
            .config(&config)
            .run(["apply", "--yes", "--wake"]);
        assert_eq!(applied.code, 0, "{kind}: {applied:?}");
        assert_eq!(
            applied.writes(),
            ["PATCH /v1/organizations/{organizationId}/services/{serviceId}/pipesCdcScaling"],
            "{kind}"
        );
        converge
            .config(&config)
            .run(["plan", "--detailed-exitcode"])
            .assert_exit(0);
    }
}
