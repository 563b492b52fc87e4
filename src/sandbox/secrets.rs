//! The seed's fake secrets of pipe sources: derived from the pipe id, so they are the same on
//! every run, filled in when the world is built or loaded and never written to disk.

use crate::api::wire::{Pipe, Secret};

use super::faults::{hash_bytes, mix};

/// Puts the seed's deterministic fake secrets back into a pipe's source (they are never saved).
pub(crate) fn fill_secrets(pipe: &mut Pipe) {
    let h = hash_bytes(pipe.id.as_bytes());
    let Some(source) = pipe.source.as_mut() else {
        return;
    };
    if let Some(kafka) = source.kafka.as_mut() {
        let pem = format!(
            "-----BEGIN CERTIFICATE-----\nMIIDsandbox{h:016x}CA\n-----END CERTIFICATE-----\n"
        );
        kafka.ca_certificate = Some(Secret(pem.clone()));
        if let Some(registry) = kafka.schema_registry.as_mut() {
            registry.ca_certificate = Some(Secret(pem));
        }
    }
    if let Some(storage) = source.object_storage.as_mut() {
        storage.connection_string = Some(Secret(format!(
            "DefaultEndpointsProtocol=https;AccountName=sandboxdata;AccountKey=c2FuZGJveC1zZWNyZXQt{:016x}==;EndpointSuffix=core.windows.net",
            mix(h)
        )));
    }
}

/// Removes the secrets of a pipe's source before it is written to disk.
pub(crate) fn strip_secrets(pipe: &mut Pipe) {
    if let Some(source) = pipe.source.as_mut() {
        if let Some(kafka) = source.kafka.as_mut() {
            kafka.ca_certificate = None;
            if let Some(registry) = kafka.schema_registry.as_mut() {
                registry.ca_certificate = None;
            }
        }
        if let Some(storage) = source.object_storage.as_mut() {
            storage.connection_string = None;
        }
    }
}
