//! What the Google Cloud source kinds, BigQuery and Pub/Sub, need of a pipe's plan beyond the
//! shared table: the cloud's `ClickPipePatchSource` has no `bigquery` member, so every change
//! of a BigQuery source (its table mappings and a new service-account key too) replaces the
//! pipe; `ClickPipePatchPubSubSource` changes `authentication` and `ackDeadline` in place and
//! requires `authentication` and `serviceAccountKey` (each nullable) in every pubsub source of
//! a `PATCH`.

use serde_json::Value;

use crate::api::wire::{Pipe, SourceKind};

/// The pubsub source members `PATCH` takes (`ClickPipePatchPubSubSource`, its key aside).
pub(crate) const PUBSUB_PATCHABLE: [&str; 2] = ["authentication", "ackDeadline"];

/// Why a change of a BigQuery source replaces the pipe.
pub(crate) const BIGQUERY_REPLACES: &str =
    "forces replacement: the cloud's PATCH takes no bigquery source";

/// Why a rotation of a live pipe's credentials replaces it, for a BigQuery pipe: its key can be
/// sent only by creating the pipe again (`credentialsVersion` is then the forcing field).
pub(crate) fn rotation_replaces(live: &Pipe, rotates: bool) -> Option<&'static str> {
    let bigquery = live.source.as_ref().and_then(|s| s.kind()) == Some(SourceKind::Bigquery);
    (bigquery && rotates).then_some(
        "forces replacement: the cloud's PATCH takes no bigquery source, so a new service-account key is sent by creating the pipe again",
    )
}

/// Adds to a `PATCH` body's pubsub source what the document requires of it: the declared
/// `authentication`, and `serviceAccountKey: null` (the key left as it is) unless the body
/// sends one.
pub(crate) fn complete(body: &mut Value, after: &Value) {
    let Some(Value::Object(source)) = body.pointer_mut("/source/pubsub") else {
        return;
    };
    let authentication = after
        .pointer("/source/pubsub/authentication")
        .cloned()
        .unwrap_or(Value::Null);
    source.entry("authentication").or_insert(authentication);
    source.entry("serviceAccountKey").or_insert(Value::Null);
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The document's PATCH has no bigquery source, and requires of a pubsub one exactly what
    /// [`complete`] adds.
    #[test]
    fn the_patch_shapes_are_the_documents() {
        let Some(document) = crate::api::reference::cloud_document() else {
            return;
        };
        let schemas = &document["components"]["schemas"];
        assert!(schemas["ClickPipePatchSource"]["properties"]["bigquery"].is_null());
        assert!(!schemas["ClickPipePostSource"]["properties"]["bigquery"].is_null());
        assert_eq!(
            schemas["ClickPipePatchPubSubSource"]["required"],
            json!(["authentication", "serviceAccountKey"])
        );
        let mut body = json!({"source": {"pubsub": {"ackDeadline": 60}}});
        complete(
            &mut body,
            &json!({"source": {"pubsub": {"authentication": "SERVICE_ACCOUNT"}}}),
        );
        assert_eq!(
            body,
            json!({"source": {"pubsub": {"ackDeadline": 60,
                "authentication": "SERVICE_ACCOUNT", "serviceAccountKey": null}}})
        );
    }
}
