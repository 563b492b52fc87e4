//! Binding an instance's parameters and substituting them into a template's body.

use std::collections::HashMap;

use super::declare::Template;
use super::tree::{mark, scalar_text};
use crate::config::schema_check::closest;
use crate::config::yaml::{Key, Kind, Node};
use crate::diagnostic::{Code, Diagnostic, Span};

/// Replaces `${name}` in every string of `node`, and marks every span with the instance.
pub(super) fn substitute(
    node: &mut Node,
    bound: &HashMap<&str, Node>,
    index: u32,
    template: &Template,
    diags: &mut Vec<Diagnostic>,
) {
    node.span = node.span.with_instance(index);
    match &mut node.kind {
        Kind::Str(text) => {
            if !text.contains("${") {
                return;
            }
            if let Some(name) = whole_reference(text)
                && let Some(value) = bound.get(name)
            {
                let mut value = value.clone();
                mark(&mut value, index);
                node.kind = value.kind;
                return;
            }
            if let Some(filled) = fill(text, bound, node.span, template, diags) {
                *text = filled.into();
            }
        }
        Kind::Seq(items) => {
            for item in items {
                substitute(item, bound, index, template, diags);
            }
        }
        Kind::Map(entries) => {
            for (key, value) in entries {
                key.span = key.span.with_instance(index);
                substitute(value, bound, index, template, diags);
            }
        }
        Kind::Null | Kind::Bool(_) | Kind::Int(_) | Kind::Float(_) => {}
    }
}

/// `text` with each `${name}` replaced by its scalar's text; `${env:...}` and `$${` kept.
fn fill(
    text: &str,
    bound: &HashMap<&str, Node>,
    span: Span,
    template: &Template,
    diags: &mut Vec<Diagnostic>,
) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(pos) = rest.find('$') {
        out.push_str(&rest[..pos]);
        let after = &rest[pos..];
        if after.starts_with("$${") || !after.starts_with("${") || after.starts_with("${env:") {
            let skip = if after.starts_with("$${") { 3 } else { 1 };
            out.push_str(&after[..skip]);
            rest = &after[skip..];
            continue;
        }
        let Some(end) = after.find('}') else {
            // Unclosed: interpolation reports it.
            out.push_str(after);
            return Some(out);
        };
        let name = &after[2..end];
        match bound.get(name).map(scalar_text) {
            Some(Some(value)) => out.push_str(&value),
            Some(None) => {
                diags.push(
                    Diagnostic::error(
                        Code::TemplateParameterType,
                        format!("`${{{name}}}` is a list: it can stand only as a whole value, not inside a string"),
                        Some(span),
                    )
                    .with_label("list inside a string"),
                );
                return None;
            }
            None => {
                let mut diag = Diagnostic::error(
                    Code::TemplateUnknownReference,
                    format!(
                        "`${{{name}}}` names no parameter of template `{}`",
                        template.name
                    ),
                    Some(span),
                )
                .with_label("unknown parameter");
                let names = template
                    .params
                    .iter()
                    .map(|p| p.name.as_str())
                    .chain(["key"]);
                if let Some(close) = closest(name, names) {
                    diag = diag.with_help(format!("did you mean `${{{close}}}`?"));
                } else {
                    diag = diag.with_help("declare it under the template's `parameters:`; write `$${` for a literal `${`");
                }
                diags.push(diag);
                return None;
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Some(out)
}

/// Binds each parameter of `template` that `given` leaves out to its default; one without a
/// default is an error at the instance (`instance`, where it is written) and at the parameter.
/// Returns whether every parameter is bound or given.
pub(super) fn bind_defaults<'t>(
    template: &'t Template,
    given: &[(Key, Node)],
    bound: &mut HashMap<&'t str, Node>,
    (instance, at): (&str, Span),
    diags: &mut Vec<Diagnostic>,
) -> bool {
    let mut ok = true;
    for param in &template.params {
        if bound.contains_key(param.name.as_str())
            || given.iter().any(|(k, _)| k.name == param.name)
        {
            continue;
        }
        match &param.default {
            Some(default) => {
                bound.insert(param.name.as_str(), default.clone());
            }
            None => {
                ok = false;
                diags.push(
                    Diagnostic::error(
                        Code::TemplateMissingParameter,
                        format!(
                            "instance `{instance}` of template `{}` needs parameter `{}` ({})",
                            template.name,
                            param.name,
                            param.kind.name()
                        ),
                        Some(at),
                    )
                    .with_label("this instance")
                    .with_related(param.span, "the parameter, without a default"),
                );
            }
        }
    }
    ok
}

/// `name` when `text` is exactly `${name}` (not an environment reference).
fn whole_reference(text: &str) -> Option<&str> {
    let name = text.strip_prefix("${")?.strip_suffix('}')?;
    (!name.contains(['$', '{', '}', ':'])).then_some(name)
}
