//! The secret fields of a config, named once: the loader, the schema check, the interpolation
//! and the snippet renderer all ask this list which fields hold a secret, so a new one is a line
//! here, not a hunt through four files.

/// A field whose value is a secret: written only as one `${env:NAME}` reference, resolved into
/// a [`super::model::SecretValue`] and never echoed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SecretField {
    /// The section that holds it (`cloud`).
    pub section: &'static str,
    /// Its key in the section (`keySecret`).
    pub key: &'static str,
    /// Its JSON pointer, as the schema check names places (`/cloud/keySecret`).
    pub pointer: &'static str,
    /// Its path, as messages name it (`cloud.keySecret`).
    pub path: &'static str,
    /// The variable it is conventionally read from (`CONVERGE_KEY_SECRET`), a secret whatever
    /// the config says: `export` and `--sandbox` read it.
    pub variable: &'static str,
}

/// `cloud.keySecret`: the cloud API key's secret.
pub(crate) const KEY_SECRET: SecretField = SecretField {
    section: "cloud",
    key: "keySecret",
    pointer: "/cloud/keySecret",
    path: "cloud.keySecret",
    variable: "CONVERGE_KEY_SECRET",
};

/// `observability.token`: the observability API's bearer token.
pub(crate) const TOKEN: SecretField = SecretField {
    section: "observability",
    key: "token",
    pointer: "/observability/token",
    path: "observability.token",
    variable: "CONVERGE_OBS_TOKEN",
};

/// Every secret field.
pub(crate) const SECRET_FIELDS: [SecretField; 2] = [KEY_SECRET, TOKEN];

/// A pipe's write-only credential fields, by source kind: each one's path under the kind
/// (`credentials.password`). Written only as `${env:NAME}`, sent on create and on a
/// `credentialsVersion` bump, never read back, printed or saved.
pub(crate) const PIPE_CREDENTIALS: [(&str, &str); 23] = [
    ("kafka", "credentials.username"),
    ("kafka", "credentials.password"),
    ("kafka", "credentials.accessKeyId"),
    ("kafka", "credentials.secretKey"),
    ("kafka", "credentials.connectionString"),
    ("kafka", "credentials.certificate"),
    ("kafka", "credentials.privateKey"),
    ("kafka", "schemaRegistry.credentials.username"),
    ("kafka", "schemaRegistry.credentials.password"),
    ("objectStorage", "accessKey.accessKeyId"),
    ("objectStorage", "accessKey.secretKey"),
    ("objectStorage", "connectionString"),
    ("objectStorage", "serviceAccountKey"),
    ("kinesis", "accessKey.accessKeyId"),
    ("kinesis", "accessKey.secretKey"),
    ("postgres", "credentials.username"),
    ("postgres", "credentials.password"),
    ("mysql", "credentials.username"),
    ("mysql", "credentials.password"),
    ("mongodb", "credentials.username"),
    ("mongodb", "credentials.password"),
    ("bigquery", "credentials.serviceAccountFile"),
    ("pubsub", "serviceAccountKey.serviceAccountFile"),
];

/// The credentials a live pipe's source takes, as [`PIPE_CREDENTIALS`] paths: which ones
/// follow from its kind, `type` and `authentication` (the server never answers them, so an
/// export writes a placeholder for each).
pub(crate) fn pipe_credentials_taken(kind: &str, source: &serde_json::Value) -> Vec<&'static str> {
    let member = |name: &str| source.get(name).and_then(serde_json::Value::as_str);
    let paths: &[&str] = match (kind, member("authentication"), member("type")) {
        ("kafka", _, Some("azureeventhub")) => &["credentials.connectionString"],
        ("kafka", Some("PLAIN" | "SCRAM-SHA-256" | "SCRAM-SHA-512"), _) => {
            &["credentials.username", "credentials.password"]
        }
        ("kafka", Some("IAM_USER"), _) => &["credentials.accessKeyId", "credentials.secretKey"],
        ("kafka", Some("MUTUAL_TLS"), _) => &["credentials.certificate", "credentials.privateKey"],
        ("objectStorage", Some("IAM_USER"), _) | ("kinesis", Some("IAM_USER"), _) => {
            &["accessKey.accessKeyId", "accessKey.secretKey"]
        }
        ("objectStorage", Some("CONNECTION_STRING"), _)
        | ("objectStorage", _, Some("azureblobstorage")) => &["connectionString"],
        ("objectStorage", Some("SERVICE_ACCOUNT"), _) => &["serviceAccountKey"],
        ("postgres" | "mysql" | "mongodb", _, _) => {
            &["credentials.username", "credentials.password"]
        }
        // A BigQuery or Pub/Sub pipe authenticates with a service-account key only.
        ("bigquery", _, _) => &["credentials.serviceAccountFile"],
        ("pubsub", _, _) => &["serviceAccountKey.serviceAccountFile"],
        _ => &[],
    };
    // A kafka schema registry authenticates on its own (`PLAIN` is the one method the
    // document names), whatever the brokers take.
    let registry: &[&str] = match source
        .pointer("/schemaRegistry/authentication")
        .and_then(serde_json::Value::as_str)
    {
        Some("PLAIN") if kind == "kafka" => &[
            "schemaRegistry.credentials.username",
            "schemaRegistry.credentials.password",
        ],
        _ => &[],
    };
    PIPE_CREDENTIALS
        .iter()
        .filter(|(k, path)| *k == kind && (paths.contains(path) || registry.contains(path)))
        .map(|(_, path)| *path)
        .collect()
}

/// Whether a JSON pointer names a pipe credential
/// (`/services/<s>/pipes/<p>/source/<kind>/credentials/password`).
pub(crate) fn is_pipe_credential_pointer(pointer: &str) -> bool {
    let parts: Vec<&str> = pointer.split('/').collect();
    let ["", "services", _, "pipes", _, "source", kind, rest @ ..] = parts.as_slice() else {
        return false;
    };
    let path = rest.join(".");
    PIPE_CREDENTIALS
        .iter()
        .any(|(k, p)| k == kind && *p == path)
}

/// A webhook's members that may hold a secret (a Slack URL is one, a header an API token):
/// each written only as `${env:NAME}`, never printed, saved or logged. `headers` and
/// `queryParams` are maps, each value of which is one.
pub(crate) const WEBHOOK_SECRETS: [&str; 2] = ["url", "body"];

/// The webhook maps whose every value is a secret.
pub(crate) const WEBHOOK_SECRET_MAPS: [&str; 2] = ["headers", "queryParams"];

/// Whether a JSON pointer names a webhook secret (`/stacks/<s>/webhooks/<w>/url`,
/// `/stacks/<s>/webhooks/<w>/headers/<name>`).
pub(crate) fn is_webhook_secret_pointer(pointer: &str) -> bool {
    let parts: Vec<&str> = pointer.split('/').collect();
    match parts.as_slice() {
        ["", "stacks", _, "webhooks", _, member] => WEBHOOK_SECRETS.contains(member),
        ["", "stacks", _, "webhooks", _, map, _] => WEBHOOK_SECRET_MAPS.contains(map),
        _ => false,
    }
}

/// Whether a JSON pointer (`/cloud/keySecret`) names a secret field.
pub(crate) fn is_secret_pointer(pointer: &str) -> bool {
    SECRET_FIELDS.iter().any(|field| field.pointer == pointer)
        || is_pipe_credential_pointer(pointer)
        || is_webhook_secret_pointer(pointer)
}

/// Whether a key, in whatever section, is spelled as a secret field's (`keySecret`, `token`).
pub(crate) fn is_secret_field_key(key: &str) -> bool {
    SECRET_FIELDS.iter().any(|field| field.key == key)
        || PIPE_CREDENTIALS
            .iter()
            .any(|(_, path)| path.rsplit('.').next() == Some(key))
}

/// The secret fields as a message lists them: `` `cloud.keySecret` or `observability.token` ``.
pub(crate) fn described() -> String {
    SECRET_FIELDS
        .iter()
        .map(|field| format!("`{}`", field.path))
        .collect::<Vec<_>>()
        .join(" or ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_credentials_a_source_takes_are_all_pipe_credentials() {
        let taken = |kind, source| pipe_credentials_taken(kind, &source);
        use serde_json::json;
        assert_eq!(
            taken("kafka", json!({"authentication": "SCRAM-SHA-512"})),
            ["credentials.username", "credentials.password"]
        );
        assert_eq!(
            taken("kafka", json!({"authentication": "MUTUAL_TLS"})),
            ["credentials.certificate", "credentials.privateKey"]
        );
        assert_eq!(
            taken("objectStorage", json!({"type": "azureblobstorage"})),
            ["connectionString"]
        );
        assert_eq!(
            taken("kinesis", json!({"authentication": "IAM_USER"})),
            ["accessKey.accessKeyId", "accessKey.secretKey"]
        );
        assert_eq!(
            taken("postgres", json!({})),
            ["credentials.username", "credentials.password"]
        );
        assert!(taken("kinesis", json!({"authentication": "IAM_ROLE"})).is_empty());
    }

    #[test]
    fn a_schema_registry_with_plain_authentication_takes_its_own_credentials() {
        let source = serde_json::json!({"authentication": "MUTUAL_TLS",
            "schemaRegistry": {"url": "https://r", "authentication": "PLAIN"}});
        assert_eq!(
            pipe_credentials_taken("kafka", &source),
            [
                "credentials.certificate",
                "credentials.privateKey",
                "schemaRegistry.credentials.username",
                "schemaRegistry.credentials.password"
            ]
        );
        let open = serde_json::json!({"authentication": "PLAIN",
            "schemaRegistry": {"url": "https://r"}});
        assert_eq!(
            pipe_credentials_taken("kafka", &open),
            ["credentials.username", "credentials.password"]
        );
    }

    /// The leaf paths under `schema` (a schema object, a `$ref` or a `oneOf` of them), each
    /// prefixed with `at`.
    fn leaves(schemas: &serde_json::Value, schema: &serde_json::Value, at: &str) -> Vec<String> {
        if let Some(name) = schema["$ref"].as_str() {
            let name = name.rsplit('/').next().unwrap_or_default();
            return leaves(schemas, &schemas[name], at);
        }
        if let Some(choices) = schema["oneOf"].as_array() {
            return choices
                .iter()
                .flat_map(|c| leaves(schemas, c, at))
                .collect();
        }
        match schema["properties"].as_object() {
            Some(members) => members
                .iter()
                .flat_map(|(name, member)| leaves(schemas, member, &format!("{at}.{name}")))
                .collect(),
            None if schema["type"] == "null" => Vec::new(),
            None => vec![at.trim_start_matches('.').to_string()],
        }
    }

    /// Every credential member of each source kind's create schema in the cloud document is a
    /// pipe credential, and some authentication (or type, or schema registry) of the kind takes
    /// it, so an export writes a placeholder for it; no other path is.
    #[test]
    fn every_credential_member_of_the_document_is_taken_by_some_authentication() {
        let Some(document) = crate::api::reference::cloud_document() else {
            return;
        };
        let schemas = &document["components"]["schemas"];
        let credential_members = [
            "credentials",
            "accessKey",
            "connectionString",
            "serviceAccountKey",
        ];
        let authentications = [
            "PLAIN",
            "SCRAM-SHA-256",
            "SCRAM-SHA-512",
            "MUTUAL_TLS",
            "IAM_ROLE",
            "IAM_USER",
            "CONNECTION_STRING",
            "SERVICE_ACCOUNT",
            "basic",
        ];
        for (kind, schema) in [
            ("kafka", "ClickPipePostKafkaSource"),
            ("objectStorage", "ClickPipePostObjectStorageSource"),
            ("kinesis", "ClickPipePostKinesisSource"),
            ("postgres", "ClickPipeMutatePostgresSource"),
            ("mysql", "ClickPipeMutateMySQLSource"),
            ("mongodb", "ClickPipeMutateMongoDBSource"),
            ("bigquery", "ClickPipeMutateBigQuerySource"),
            ("pubsub", "ClickPipePostPubSubSource"),
        ] {
            let members = &schemas[schema]["properties"];
            let mut theirs: Vec<String> = credential_members
                .iter()
                .filter(|member| !members[**member].is_null())
                .flat_map(|member| leaves(schemas, &members[*member], member))
                .collect();
            if !members["schemaRegistry"].is_null() {
                let registry = leaves(schemas, &members["schemaRegistry"], "schemaRegistry");
                theirs.extend(
                    registry
                        .into_iter()
                        .filter(|path| path.starts_with("schemaRegistry.credentials.")),
                );
            }
            theirs.sort();
            theirs.dedup();
            let mut ours: Vec<String> = PIPE_CREDENTIALS
                .iter()
                .filter(|(k, _)| *k == kind)
                .map(|(_, path)| path.to_string())
                .collect();
            ours.sort();
            assert_eq!(ours, theirs, "{kind}: PIPE_CREDENTIALS against {schema}");
            let types: Vec<serde_json::Value> = members["type"]["enum"]
                .as_array()
                .cloned()
                .unwrap_or_else(|| vec![serde_json::Value::Null]);
            let mut taken: Vec<String> = Vec::new();
            for authentication in authentications {
                for r#type in &types {
                    let source = serde_json::json!({"authentication": authentication,
                        "type": r#type,
                        "schemaRegistry": {"authentication": "PLAIN"}});
                    taken.extend(
                        pipe_credentials_taken(kind, &source)
                            .into_iter()
                            .map(str::to_string),
                    );
                }
            }
            taken.sort();
            taken.dedup();
            assert_eq!(
                taken, theirs,
                "{kind}: no authentication takes some credential"
            );
        }
    }

    #[test]
    fn each_field_is_named_the_same_way_in_every_spelling() {
        for field in SECRET_FIELDS {
            assert_eq!(field.pointer, format!("/{}/{}", field.section, field.key));
            assert_eq!(field.path, format!("{}.{}", field.section, field.key));
            assert!(is_secret_pointer(field.pointer));
            assert!(is_secret_field_key(field.key));
        }
        assert!(!is_secret_pointer("/cloud/keyId"));
        assert!(!is_secret_field_key("keyId"));
        assert_eq!(described(), "`cloud.keySecret` or `observability.token`");
        assert!(is_secret_pointer(
            "/services/a/pipes/b/source/postgres/credentials/password"
        ));
        assert!(is_secret_pointer(
            "/services/a/pipes/b/source/kafka/schemaRegistry/credentials/password"
        ));
        assert!(!is_secret_pointer(
            "/services/a/pipes/b/source/postgres/host"
        ));
        assert!(!is_secret_pointer(
            "/services/a/pipes/b/source/kinesis/credentials/password"
        ));
    }
}
