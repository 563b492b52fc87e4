//! The credentials a pipe step sends (a create, a replacement, a rotation), as its change shows
//! them and as the saved-plan check holds them (issue 41, parts 1 and 2): each goes to a
//! credential member of the source's kind, from one `${env:NAME}` reference that is none of
//! converge's own secrets, and the change's reason names each, path and reference, never a
//! value. The reason is part of the text a reviewer reads (and its digest), so a reference
//! edited into a saved step alone disagrees with what was shown.

use crate::config::interpolate::secret_reference;
use crate::config::secret_fields::{PIPE_CREDENTIALS, SECRET_FIELDS};

/// What a change that sends credentials adds to its reason: each one's path and the reference
/// it is read from when the step is sent, so a reviewer knows which variables the apply needs
/// and where each goes. Empty for a source without credentials.
pub(crate) fn note<'a>(credentials: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let each: Vec<String> = credentials
        .into_iter()
        .map(|(path, reference)| format!("`{path}` from `{reference}`"))
        .collect();
    if each.is_empty() {
        String::new()
    } else {
        format!("; sends {}", each.join(", "))
    }
}

/// The source kind a pipe body (or a change's `after`) reads from: the one member of `source`
/// that is an object (`validateSamples` sits beside it).
pub(crate) fn kind_of(pipe: &serde_json::Value) -> Option<&str> {
    pipe.get("source")?
        .as_object()?
        .iter()
        .find(|(_, value)| value.is_object())
        .map(|(kind, _)| kind.as_str())
}

/// Whether `variable` holds one of converge's own secrets: a variable the cloud key secret or
/// the observability token is conventionally read from, or one of `own` (the variables the
/// config's `cloud.keySecret` and `observability.token` read).
pub(crate) fn is_own_secret(variable: &str, own: &[String]) -> bool {
    SECRET_FIELDS.iter().any(|field| field.variable == variable)
        || own.iter().any(|name| name == variable)
}

/// Why a credential a step sends is refused: its path is no credential member of the `kind`'s
/// source (a reference put there would send a secret in a member the server keeps and shows),
/// its reference is not one plain `${env:NAME}`, or it names one of converge's own secrets.
pub(crate) fn refused(
    kind: Option<&str>,
    path: &str,
    reference: &str,
    own: &[String],
) -> Option<String> {
    let member = PIPE_CREDENTIALS
        .iter()
        .any(|(k, p)| Some(*k) == kind && *p == path);
    if !member {
        return Some(format!(
            "the step sends a credential to `{path}`, which is no credential member of a {} source",
            kind.unwrap_or("pipe")
        ));
    }
    if secret_reference(reference).is_none() {
        return Some(format!(
            "credential `{path}` is read from `{reference}`, which is not one `${{env:NAME}}` \
             reference"
        ));
    }
    own_secret(path, reference, own)
}

/// Why a credential read from `reference` is refused when it names one of converge's own
/// secrets ([`is_own_secret`]).
pub(crate) fn own_secret(path: &str, reference: &str, own: &[String]) -> Option<String> {
    let variable = secret_reference(reference)?;
    is_own_secret(variable, own).then(|| {
        format!(
            "credential `{path}` is read from `{reference}`, which holds converge's own secret \
             (the cloud key secret or the observability token): it is never sent to a pipe"
        )
    })
}

/// The variables the config's own secrets read (`cloud.keySecret`, `observability.token`).
pub(crate) fn own_variables(config: &crate::config::model::Config) -> Vec<String> {
    let cloud = config.cloud.as_ref().and_then(|c| c.key_secret.as_ref());
    let token = config.observability.as_ref().and_then(|o| o.token.as_ref());
    cloud
        .into_iter()
        .chain(token)
        .filter_map(|secret| secret_reference(&secret.reference).map(str::to_owned))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_credential_goes_only_to_a_credential_member_from_a_variable_not_converge_s_own() {
        let own = vec!["CI_CLOUD_SECRET".to_string()];
        let kafka = Some("kafka");
        assert_eq!(
            refused(kafka, "credentials.password", "${env:PIPE_PASSWORD}", &own),
            None
        );
        for (path, reference) in [
            ("brokers", "${env:PIPE_PASSWORD}"),
            ("accessKey.secretKey", "${env:PIPE_PASSWORD}"),
            ("credentials.password", "${env:CONVERGE_KEY_SECRET}"),
            ("credentials.password", "${env:CONVERGE_OBS_TOKEN}"),
            ("credentials.password", "${env:CI_CLOUD_SECRET}"),
            ("credentials.password", "${env:PIPE_PASSWORD:-x}"),
            ("credentials.password", "literal"),
        ] {
            assert!(
                refused(kafka, path, reference, &own).is_some(),
                "{path} {reference}"
            );
        }
        assert!(refused(None, "credentials.password", "${env:P}", &own).is_some());
    }

    #[test]
    fn the_note_names_each_path_and_reference() {
        assert_eq!(note([]), "");
        assert_eq!(
            note([
                ("credentials.username", "${env:U}"),
                ("credentials.password", "${env:P}")
            ]),
            "; sends `credentials.username` from `${env:U}`, `credentials.password` from `${env:P}`"
        );
    }
}
