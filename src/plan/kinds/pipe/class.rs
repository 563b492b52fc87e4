//! How the server takes a change of one declared field of a live pipe ([`Class`]): in place,
//! paused first, or by replacing the pipe, from the cloud document's PATCH schemas.

use super::database::{MONGODB_PATCHABLE, MYSQL_PATCHABLE, patch_settings};
use super::patch::members;

/// How the server takes a change of one declared field of a live pipe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    /// `PATCH .../pipes/{id}` changes it while the pipe runs.
    InPlace,
    /// `PATCH` takes it only while the pipe is paused (postgres table mappings).
    NeedsPause,
    /// The pipe must be deleted and created again: ingestion restarts.
    Replace,
}

/// The source members `PATCH .../pipes/{id}` takes, by kind: the cloud document's
/// `ClickPipePatch*Source` schemas (credentials, sent only on rotation, left out). Database
/// (postgres, mysql, mongodb) `tableMappings` change through `tableMappingsToAdd`/`tableMappingsToRemove`
/// and need a pause; of their `settings` only [`patch_settings`] change in place.
/// `tests` checks this table against the document.
pub(crate) const PATCHABLE_SOURCE: [(&str, &[&str]); 6] = [
    (
        "kafka",
        &[
            "authentication",
            "iamRole",
            "caCertificate",
            "reversePrivateEndpointIds",
        ],
    ),
    (
        "objectStorage",
        &[
            "skipInitialLoad",
            "startAfter",
            "authentication",
            "iamRole",
            "path",
            "azureContainerName",
        ],
    ),
    ("kinesis", &["authentication", "iamRole"]),
    (
        "postgres",
        &[
            "host",
            "port",
            "database",
            "tlsHost",
            "caCertificate",
            "disableTls",
            "skipCertVerification",
        ],
    ),
    ("mysql", &MYSQL_PATCHABLE),
    ("mongodb", &MONGODB_PATCHABLE),
];

/// The one classification of a changed field (a diff path such as `source.kafka.brokers`),
/// and why when it is not in place.
pub(crate) fn class_of(path: &str) -> (Class, &'static str) {
    let parts = members(path);
    match parts.as_slice() {
        ["name", ..]
        | ["fieldMappings", ..]
        | ["settings", ..]
        | ["destination", "columns", ..] => (Class::InPlace, ""),
        ["destination", ..] => (
            Class::Replace,
            "forces replacement: the destination table is fixed when the pipe is created",
        ),
        [
            "source",
            "postgres" | "mysql" | "mongodb",
            "tableMappings",
            ..,
        ] => (
            Class::NeedsPause,
            "needs a pause: table mappings change only while the pipe is paused",
        ),
        ["source", kind, "settings", setting, ..] if patch_settings(kind).contains(setting) => {
            (Class::InPlace, "")
        }
        ["source", kind, member, ..]
            if PATCHABLE_SOURCE
                .iter()
                .any(|(k, members)| k == kind && members.contains(member)) =>
        {
            (Class::InPlace, "")
        }
        ["source", _, _, ..] => (
            Class::Replace,
            "forces replacement: the server takes no change of it once the pipe exists",
        ),
        _ => (
            Class::Replace,
            "forces replacement: a pipe's source kind cannot change",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table is the document's PATCH schemas, credentials and table-mapping edits aside.
    #[test]
    fn the_patchable_table_is_the_documents_patch_schemas() {
        let Some(document) = crate::api::reference::cloud_document() else {
            return;
        };
        let schemas = &document["components"]["schemas"];
        let not_fields = [
            "credentials",
            "accessKey",
            "connectionString",
            "serviceAccountKey",
            "settings",
            "tableMappingsToAdd",
            "tableMappingsToRemove",
        ];
        for (kind, schema) in [
            ("kafka", "ClickPipePatchKafkaSource"),
            ("objectStorage", "ClickPipePatchObjectStorageSource"),
            ("kinesis", "ClickPipePatchKinesisSource"),
            ("postgres", "ClickPipePatchPostgresSource"),
            ("mysql", "ClickPipePatchMySQLSource"),
            ("mongodb", "ClickPipePatchMongoDBSource"),
        ] {
            let mut theirs: Vec<&str> = schemas[schema]["properties"]
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .filter(|k| !not_fields.contains(k))
                .collect();
            let mut ours: Vec<&str> = PATCHABLE_SOURCE
                .iter()
                .find(|(k, _)| *k == kind)
                .unwrap()
                .1
                .to_vec();
            theirs.sort_unstable();
            ours.sort_unstable();
            assert_eq!(ours, theirs, "{kind}");
        }
        for (kind, schema) in [
            ("postgres", "ClickPipePatchPostgresPipeSettings"),
            ("mysql", "ClickPipePatchMySQLPipeSettings"),
            ("mongodb", "ClickPipePatchMongoDBPipeSettings"),
        ] {
            let mut settings: Vec<&str> = schemas[schema]["properties"]
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            let mut ours = patch_settings(kind).to_vec();
            settings.sort_unstable();
            ours.sort_unstable();
            assert_eq!(settings, ours, "{kind}");
        }
        let top: Vec<&str> = schemas["ClickPipePatchRequest"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            top,
            ["destination", "fieldMappings", "name", "settings", "source"]
        );
        let destination: Vec<&str> = schemas["ClickPipePatchDestination"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(destination, ["columns"]);
    }

    #[test]
    fn each_field_is_classed_once() {
        assert_eq!(class_of("source.kafka.brokers").0, Class::Replace);
        assert_eq!(class_of("source.kafka.authentication").0, Class::InPlace);
        assert_eq!(
            class_of("source.postgres.tableMappings").0,
            Class::NeedsPause
        );
        assert_eq!(
            class_of("source.postgres.settings.pullBatchSize").0,
            Class::InPlace
        );
        assert_eq!(
            class_of("source.postgres.settings.replicationMode").0,
            Class::Replace
        );
        assert_eq!(class_of("destination.table").0, Class::Replace);
        assert_eq!(class_of("source.mysql.tableMappings").0, Class::NeedsPause);
        assert_eq!(
            class_of("source.mysql.settings.useCompression").0,
            Class::InPlace
        );
        assert_eq!(class_of("source.mysql.serverId").0, Class::InPlace);
        assert_eq!(class_of("source.mysql.type").0, Class::Replace);
        assert_eq!(
            class_of("source.mongodb.tableMappings").0,
            Class::NeedsPause
        );
        assert_eq!(class_of("source.mongodb.readPreference").0, Class::InPlace);
        assert_eq!(
            class_of("source.mongodb.settings.useJsonNativeFormat").0,
            Class::Replace
        );
        assert_eq!(
            class_of("source.mysql.settings.replicationMechanism").0,
            Class::Replace
        );
        assert_eq!(class_of("destination.columns").0, Class::InPlace);
        assert_eq!(class_of("source.kinesis").0, Class::Replace);
    }
}
