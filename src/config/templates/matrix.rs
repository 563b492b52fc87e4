//! The instances an entry asks for: one per `forEach` item, or one per row of a `matrix`
//! product less its `exclude` rows.

use super::declare::{is_key_part, shape};
use super::tree::{merge, scalar_text};
use crate::config::yaml::{Key, Kind, Node};
use crate::diagnostic::{Diagnostic, Span};

/// One instance to make: its key, where it is written, its parameter values and overrides.
pub(super) struct Wanted {
    pub(super) key: String,
    pub(super) span: Span,
    pub(super) values: Vec<(Key, Node)>,
    pub(super) overrides: Option<Node>,
}

pub(super) fn for_each(list: &Node, diags: &mut Vec<Diagnostic>) -> Vec<Wanted> {
    let Kind::Seq(items) = &list.kind else {
        diags.push(not_list_of_maps(list.span));
        return Vec::new();
    };
    let mut wanted = Vec::new();
    for item in items {
        let Some(entries) = item.as_map() else {
            diags.push(not_list_of_maps(item.span));
            continue;
        };
        let mut key = None;
        let mut values = Vec::new();
        let mut overrides = None;
        let mut renamed = None;
        for (k, v) in entries {
            match k.name.as_str() {
                "key" => key = Some(v),
                "overrides" => overrides = Some(v.clone()),
                "renamedFrom" => renamed = Some((k.clone(), v.clone())),
                _ => values.push((k.clone(), v.clone())),
            }
        }
        let Some(key) = key else {
            diags.push(
                shape("an instance of `forEach` needs a `key`", item.span)
                    .with_label("no key")
                    .with_help("the key names the instance for good: `key: checkout`"),
            );
            continue;
        };
        let Some(text) = scalar_text(key).filter(|t| is_key_part(t)) else {
            diags.push(bad_key(key.span));
            continue;
        };
        if let Some(overrides) = &overrides
            && overrides.as_map().is_none()
        {
            diags.push(
                shape(
                    "`overrides` is a mapping merged into the instance",
                    overrides.span,
                )
                .with_label("not a mapping"),
            );
            continue;
        }
        // `renamedFrom` beside the key is the instance's own, as if in its overrides.
        if let Some((k, v)) = renamed {
            let entry = vec![(k, v)];
            let span = item.span;
            overrides = Some(match overrides {
                Some(o) => merge(
                    o,
                    Node {
                        kind: Kind::Map(entry),
                        span,
                    },
                ),
                None => Node {
                    kind: Kind::Map(entry),
                    span,
                },
            });
        }
        wanted.push(Wanted {
            key: text,
            span: key.span,
            values,
            overrides,
        });
    }
    wanted
}

/// The axes of a `matrix`, each a parameter and its non-empty list of key-worthy values;
/// `None` (with the error) when it is not that.
fn columns<'n>(
    product: &'n Node,
    diags: &mut Vec<Diagnostic>,
) -> Option<Vec<(&'n Key, &'n [Node])>> {
    let Some(axes) = product.as_map() else {
        diags.push(
            shape(
                "`matrix` maps each parameter to a list of values",
                product.span,
            )
            .with_label("not a mapping"),
        );
        return None;
    };
    let mut columns: Vec<(&Key, &[Node])> = Vec::new();
    for (k, v) in axes {
        match &v.kind {
            Kind::Seq(values) if !values.is_empty() => {
                for value in values {
                    if !scalar_text(value).is_some_and(|t| is_key_part(&t)) {
                        diags.push(bad_key(value.span));
                        return None;
                    }
                }
                columns.push((k, values));
            }
            _ => {
                diags.push(
                    shape(
                        format!("`matrix.{}` is a non-empty list of values", k.name),
                        v.span,
                    )
                    .with_label("not a list"),
                );
                return None;
            }
        }
    }
    Some(columns)
}

pub(super) fn product(
    product: &Node,
    exclude: Option<&Node>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Wanted> {
    let Some(columns) = columns(product, diags) else {
        return Vec::new();
    };
    let excluded: Vec<&[(Key, Node)]> = match exclude.map(|e| &e.kind) {
        None => Vec::new(),
        Some(Kind::Seq(items)) if items.iter().all(|i| i.as_map().is_some()) => {
            items.iter().filter_map(Node::as_map).collect()
        }
        Some(_) => {
            diags.push(
                shape(
                    "`exclude` is a list of mappings, each naming values to leave out",
                    exclude.map_or(product.span, |e| e.span),
                )
                .with_label("not a list of mappings"),
            );
            return Vec::new();
        }
    };
    let mut rows: Vec<Vec<&Node>> = vec![Vec::new()];
    for (_, values) in &columns {
        rows = rows
            .into_iter()
            .flat_map(|row| {
                values.iter().map(move |v| {
                    let mut row = row.clone();
                    row.push(v);
                    row
                })
            })
            .collect();
    }
    rows.into_iter()
        .filter(|row| {
            !excluded.iter().any(|rule| {
                rule.iter().all(|(k, v)| {
                    columns
                        .iter()
                        .position(|(name, _)| name.name == k.name)
                        .is_some_and(|at| row[at].kind == v.kind)
                })
            })
        })
        .map(|row| Wanted {
            key: row
                .iter()
                .filter_map(|v| scalar_text(v))
                .collect::<Vec<_>>()
                .join(","),
            span: row.first().map_or(product.span, |v| v.span),
            values: columns
                .iter()
                .zip(&row)
                .map(|((k, _), v)| ((*k).clone(), (*v).clone()))
                .collect(),
            overrides: None,
        })
        .collect()
}

pub(super) fn not_list_of_maps(span: Span) -> Diagnostic {
    shape(
        "`forEach` is a list of mappings, one per instance, each with a `key`",
        span,
    )
    .with_label("not a mapping")
    .with_help("write `forEach: [{key: checkout, service: checkout}, ...]`")
}

pub(super) fn bad_key(span: Span) -> Diagnostic {
    shape(
        "an instance key is a word of letters, digits, `-` and `_`: it becomes part of the address",
        span,
    )
    .with_label("not a valid key")
}
