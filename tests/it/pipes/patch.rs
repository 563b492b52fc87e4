//! What an in-place pipe change sends (issue 35's bug, through the binary against the
//! sandbox): each changed member is written at the member the API replaces whole, as the
//! cloud document's `ClickPipePatch*` schemas name them; a destination column change sends the
//! whole `destination.columns` array.

use converge::sandbox::SandboxOptions;
use serde_json::{Value, json};

use crate::common::Converge;
use crate::pipes::analytics_with;

/// One kinesis pipe whose `url` column is of `kind`, and a second column `at`.
fn clicks(kind: &str) -> String {
    analytics_with(&format!(
        "      stream:\n        name: clicks from kinesis\n        source:\n          kinesis: {{ streamName: clicks, region: us-east-1, format: JSONEachRow, iteratorType: LATEST, authentication: IAM_ROLE, iamRole: 'arn:aws:iam::1:role/r' }}\n        destination:\n          database: default\n          table: clicks_in\n          managedTable: false\n          columns: [{{ name: url, type: '{kind}' }}, {{ name: at, type: DateTime }}]\n        fieldMappings: [{{ sourceField: url, destinationField: url }}, {{ sourceField: at, destinationField: at }}]\n"
    ))
}

/// A destination column's type changed in place: one `PATCH .../pipes/{id}` whose body is the
/// whole `destination.columns` array, and the plan after is empty.
#[test]
fn a_destination_column_change_patches_the_whole_columns_array() {
    let sandbox = crate::common::sandbox(SandboxOptions {
        rate_limit: false,
        log_bodies: true,
        ..SandboxOptions::default()
    });
    let converge = |config: &str| Converge::new(&sandbox).fast().config(config);
    converge(&clicks("String"))
        .run(["apply", "--yes"])
        .assert_exit(0);
    let changed = clicks("LowCardinality(String)");
    let applied = converge(&changed).run(["apply", "--yes"]);
    applied.assert_exit(0);
    let route = "/v1/organizations/{organizationId}/services/{serviceId}/pipes/{pipeId}";
    assert_eq!(applied.writes(), [format!("PATCH {route}")], "{applied:?}");
    let sent = applied
        .requests
        .iter()
        .find(|e| e.method == "PATCH")
        .and_then(|e| e.request_body.as_deref())
        .unwrap();
    let sent: Value = serde_json::from_str(sent).unwrap();
    assert_eq!(
        sent,
        json!({"destination": {"columns": [
            {"name": "url", "type": "LowCardinality(String)"},
            {"name": "at", "type": "DateTime"}
        ]}})
    );
    converge(&changed)
        .run(["plan", "--detailed-exitcode"])
        .assert_exit(0);
}
