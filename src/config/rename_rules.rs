//! `semantic::rename-conflict`: each name a `renamedFrom:` lists identifies one object of its
//! scope (dashboards of a stack, tiles of a dashboard, alerts of a stack, pipes of a service).

use smol_str::SmolStr;
use std::collections::HashMap;

use super::model::Located;
use crate::diagnostic::{Code, Diagnostic, Span};

/// `renamedFrom` must name exactly one object: not the object's own name (it is matched by
/// that anyway), not another object's current name, not an old name another object claims.
/// Otherwise two config objects could both be one live object.
pub(crate) fn renames<'a, N: AsRef<str> + 'a>(
    kind: &str,
    (scope_kind, scope): (&str, &str),
    objects: impl Iterator<Item = (&'a Located<N>, &'a [Located<SmolStr>])> + Clone,
    diags: &mut Vec<Diagnostic>,
) {
    let current: HashMap<&str, Span> = objects
        .clone()
        .map(|(name, _)| (name.value.as_ref(), name.span))
        .collect();
    let mut claimed: HashMap<&str, Span> = HashMap::new();
    for (name, old_names) in objects {
        for old in old_names {
            let conflict = if old.value == name.value.as_ref() {
                Some((
                    format!("`renamedFrom` lists `{}`, the {kind}'s own name", old.value),
                    "its current name".to_string(),
                    None,
                ))
            } else if let Some(span) = current.get(old.value.as_str()) {
                Some((
                    format!(
                        "`renamedFrom` of {kind} `{}` lists `{}`, the name of another {kind} in {scope_kind} `{scope}`",
                        name.value.as_ref(),
                        old.value
                    ),
                    format!("another {kind} is named this"),
                    Some((*span, format!("the {kind} named `{}`", old.value))),
                ))
            } else {
                claimed.insert(&old.value, old.span).map(|first| {
                    (
                        format!(
                            "`{}` is listed in `renamedFrom` of two {kind}s of {scope_kind} `{scope}`",
                            old.value
                        ),
                        "claimed again".to_string(),
                        Some((first, "first claimed here".to_string())),
                    )
                })
            };
            if let Some((message, label, related)) = conflict {
                let mut diag = Diagnostic::error(
                    Code::SemanticRenameConflict,
                    message,
                    Some(old.span),
                )
                .with_label(label)
                .with_help(format!(
                    "an old name must identify one {kind}: list it under the {kind} that had it, once"
                ));
                if let Some((span, text)) = related {
                    diag = diag.with_related(span, text);
                }
                diags.push(diag);
            }
        }
    }
}
