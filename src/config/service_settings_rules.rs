//! The rules of a service's own settings that the cloud document states and a config can break
//! on its own: each `ipAccessList` source an IP address or CIDR, listed once; each tag's key and
//! value of the characters and lengths `ResourceTagsV1` allows, at most 50, and none under
//! `converge.` (converge keeps its own facts there, e.g. the credentials version last sent to a
//! pipe, and never removes them). The release channel's tier rule needs the live service and is
//! checked at plan time.

use std::collections::HashMap;

use super::model::{Located, ServiceSettings};
use crate::api::limits::{self, is_ip_source};
use crate::diagnostic::{Code, Diagnostic, Span};

/// The prefix of the service tags converge writes for itself.
pub const RESERVED_TAG_PREFIX: &str = "converge.";

/// Runs every rule of one service's settings.
pub(crate) fn check(settings: &ServiceSettings, diags: &mut Vec<Diagnostic>) {
    if let Some(list) = &settings.ip_access_list {
        let mut seen: HashMap<&str, Span> = HashMap::new();
        for entry in &list.value {
            source(&entry.source, diags);
            if let Some(first) = seen.insert(&entry.source.value, entry.source.span) {
                diags.push(
                    Diagnostic::error(
                        Code::SemanticDuplicateIpSource,
                        format!("`{}` is listed twice in ipAccessList", entry.source.value),
                        Some(entry.source.span),
                    )
                    .with_label("listed again")
                    .with_related(first, "first listed here")
                    .with_help("list each source once, with one description"),
                );
            }
        }
    }
    if let Some(tags) = &settings.tags {
        if tags.value.len() > limits::SERVICE_TAGS_MAX {
            diags.push(
                Diagnostic::error(
                    Code::SemanticServiceTag,
                    format!(
                        "{} tags, and a service holds at most {}",
                        tags.value.len(),
                        limits::SERVICE_TAGS_MAX
                    ),
                    Some(tags.span),
                )
                .with_label("too many tags")
                .with_help("keep at most 50 tags"),
            );
        }
        for tag in &tags.value {
            tag_text(&tag.key, "key", 1, 128, diags);
            tag_text(&tag.value, "value", 0, 256, diags);
            if tag.key.value.starts_with(RESERVED_TAG_PREFIX) {
                diags.push(
                    Diagnostic::error(
                        Code::SemanticReservedTag,
                        format!(
                            "tag `{}` is under `{RESERVED_TAG_PREFIX}`, which converge keeps for itself",
                            tag.key.value
                        ),
                        Some(tag.key.span),
                    )
                    .with_label("reserved")
                    .with_help("choose a key that does not start with `converge.`"),
                );
            }
        }
    }
}

fn source(source: &Located<String>, diags: &mut Vec<Diagnostic>) {
    if is_ip_source(&source.value) {
        return;
    }
    diags.push(
        Diagnostic::error(
            Code::SemanticIpSource,
            format!(
                "`{}` is not an IP address or CIDR",
                source.value.escape_debug()
            ),
            Some(source.span),
        )
        .with_label("not an address")
        .with_help(
            "write an address (203.0.113.7) or a CIDR (10.0.0.0/8); 0.0.0.0/0 allows anywhere",
        ),
    );
}

/// A tag key or value outside `ResourceTagsV1`: `min` to `max` characters of letters, digits,
/// dots, dashes and underscores.
fn tag_text(
    text: &Located<String>,
    what: &str,
    min: usize,
    max: usize,
    diags: &mut Vec<Diagnostic>,
) {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    let length = text.value.chars().count();
    if (min..=max).contains(&length) && text.value.chars().all(allowed) {
        return;
    }
    diags.push(
        Diagnostic::error(
            Code::SemanticServiceTag,
            format!(
                "tag {what} `{}` is not {min} to {max} letters, digits, dots, dashes and underscores",
                text.value.escape_debug()
            ),
            Some(text.span),
        )
        .with_label(format!("not a tag {what}"))
        .with_help("the cloud API takes [a-zA-Z0-9._-] in tag keys and values"),
    );
}
