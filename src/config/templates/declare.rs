//! Reading `templates:`: each template's typed parameters and its one body.

use std::collections::HashMap;

use crate::config::schema_check::closest;
use crate::config::yaml::{Key, Kind, Node};
use crate::diagnostic::{Code, Diagnostic, Span};

/// The kinds of object a template declares, by the key holding its body.
pub(super) const KINDS: &[&str] = &["alert", "dashboard", "stack"];

/// A parameter's declared type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Type {
    String,
    Number,
    Integer,
    Boolean,
    List(Option<Item>),
}

/// The type of a list's items.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Item {
    String,
    Number,
    Integer,
    Boolean,
}

impl Type {
    fn parse(text: &str) -> Option<Type> {
        Some(match text {
            "string" => Type::String,
            "number" => Type::Number,
            "integer" => Type::Integer,
            "boolean" => Type::Boolean,
            "list" => Type::List(None),
            _ => return None,
        })
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Type::String => "a string",
            Type::Number => "a number",
            Type::Integer => "an integer",
            Type::Boolean => "a boolean",
            Type::List(None) => "a list",
            Type::List(Some(Item::String)) => "a list of strings",
            Type::List(Some(Item::Number)) => "a list of numbers",
            Type::List(Some(Item::Integer)) => "a list of integers",
            Type::List(Some(Item::Boolean)) => "a list of booleans",
        }
    }

    pub(super) fn accepts(self, node: &Node) -> bool {
        match (self, &node.kind) {
            (Type::List(None), Kind::Seq(_)) => true,
            (Type::List(Some(item)), Kind::Seq(items)) => {
                items.iter().all(|i| Type::from_item(item).accepts(i))
            }
            (Type::String, Kind::Str(_))
            | (Type::Number, Kind::Int(_) | Kind::Float(_))
            | (Type::Integer, Kind::Int(_))
            | (Type::Boolean, Kind::Bool(_)) => true,
            _ => false,
        }
    }

    fn from_item(item: Item) -> Type {
        match item {
            Item::String => Type::String,
            Item::Number => Type::Number,
            Item::Integer => Type::Integer,
            Item::Boolean => Type::Boolean,
        }
    }
}

/// One declared parameter.
#[derive(Debug, Clone)]
pub(super) struct Param {
    pub(super) name: String,
    pub(super) kind: Type,
    pub(super) default: Option<Node>,
    /// Where the parameter is declared.
    pub(super) span: Span,
}

/// One template, as declared.
#[derive(Debug, Clone)]
pub(super) struct Template {
    pub(super) name: String,
    /// `alert`, `dashboard` or `stack`.
    pub(super) kind: &'static str,
    pub(super) params: Vec<Param>,
    pub(super) body: Node,
    /// The template's key under `templates:`.
    pub(super) span: Span,
}

/// The templates a stack sees: its own, then the top-level ones.
pub(super) type Scope<'t> = [&'t HashMap<String, Template>];

/// Removes `templates:` from a mapping and reads its templates.
pub(super) fn take_templates(
    entries: &mut Vec<(Key, Node)>,
    diags: &mut Vec<Diagnostic>,
) -> HashMap<String, Template> {
    let Some(at) = entries.iter().position(|(k, _)| k.name == "templates") else {
        return HashMap::new();
    };
    let (_, node) = entries.remove(at);
    let mut templates = HashMap::new();
    let Kind::Map(declared) = node.kind else {
        if node.kind != Kind::Null {
            diags.push(shape(
                "`templates` is a mapping of template names to templates",
                node.span,
            ));
        }
        return templates;
    };
    for (key, body) in declared {
        if let Some(template) = read_template(&key, body, diags) {
            templates.insert(key.name.to_string(), template);
        }
    }
    templates
}

pub(super) fn shape(message: impl Into<String>, span: Span) -> Diagnostic {
    Diagnostic::error(Code::TemplateShape, message, Some(span))
}

pub(super) fn read_template(
    key: &Key,
    node: Node,
    diags: &mut Vec<Diagnostic>,
) -> Option<Template> {
    let Kind::Map(entries) = node.kind else {
        diags.push(
            shape(
                format!(
                    "template `{}` is a mapping with `parameters` and one `alert`, `dashboard` or `stack`",
                    key.name
                ),
                node.span,
            )
            .with_label("not a mapping"),
        );
        return None;
    };
    let mut params = Vec::new();
    let mut body = None;
    for (k, v) in entries {
        match k.name.as_str() {
            "parameters" => params = read_params(&v, diags),
            "description" => {}
            name => match KINDS.iter().find(|kind| **kind == name) {
                Some(kind) if body.is_none() => body = Some((*kind, v)),
                Some(_) => diags.push(
                    shape(
                        format!(
                            "template `{}` declares one body: `alert`, `dashboard` or `stack`",
                            key.name
                        ),
                        k.span,
                    )
                    .with_label("a second body"),
                ),
                None => {
                    let mut diag = Diagnostic::error(
                        Code::ConfigUnknownKey,
                        format!("unknown key `{name}` in template `{}`", key.name),
                        Some(k.span),
                    )
                    .with_label("unknown key");
                    let known = ["parameters", "description", "alert", "dashboard", "stack"];
                    if let Some(close) = closest(name, known.iter().copied()) {
                        diag = diag.with_help(format!("did you mean `{close}`?"));
                    }
                    diags.push(diag);
                }
            },
        }
    }
    let Some((kind, body)) = body else {
        diags.push(
            shape(
                format!(
                    "template `{}` needs a body: `alert:`, `dashboard:` or `stack:`",
                    key.name
                ),
                key.span,
            )
            .with_label("no body"),
        );
        return None;
    };
    if body.as_map().is_none() {
        diags.push(shape(
            format!("the body of template `{}` is a mapping", key.name),
            body.span,
        ));
        return None;
    }
    Some(Template {
        name: key.name.to_string(),
        kind,
        params,
        body,
        span: key.span,
    })
}

pub(super) fn read_params(node: &Node, diags: &mut Vec<Diagnostic>) -> Vec<Param> {
    let Some(entries) = node.as_map() else {
        diags.push(shape(
            "`parameters` is a mapping of names to types (`string`, `number`, `integer`, `boolean`, `list`)",
            node.span,
        ));
        return Vec::new();
    };
    let mut params = Vec::new();
    for (key, spec) in entries {
        if key.name == "key" || !is_name(&key.name) {
            diags.push(
                shape(
                    format!(
                        "`{}` cannot name a parameter: names are letters, digits and `_`, and `key` is the instance's own",
                        key.name
                    ),
                    key.span,
                )
                .with_label("parameter name"),
            );
            continue;
        }
        let (type_node, default, items) = match &spec.kind {
            Kind::Str(_) => (Some(spec), None, None),
            Kind::Map(_) => (spec.get("type"), spec.get("default"), spec.get("items")),
            _ => (None, None, None),
        };
        let kind = type_node.and_then(Node::as_str).and_then(Type::parse);
        let item = items.map(|i| i.as_str().and_then(Type::parse));
        let kind = match (kind, item) {
            (Some(Type::List(None)), Some(Some(Type::String))) => Type::List(Some(Item::String)),
            (Some(Type::List(None)), Some(Some(Type::Number))) => Type::List(Some(Item::Number)),
            (Some(Type::List(None)), Some(Some(Type::Integer))) => Type::List(Some(Item::Integer)),
            (Some(Type::List(None)), Some(Some(Type::Boolean))) => Type::List(Some(Item::Boolean)),
            (Some(kind), None) => kind,
            _ => {
                diags.push(
                    shape(
                        format!(
                            "parameter `{}` needs a type: `string`, `number`, `integer`, `boolean` or `list` (with `items:` one of the first four)",
                            key.name
                        ),
                        type_node.map_or(spec.span, |t| t.span),
                    )
                    .with_label("no known type"),
                );
                continue;
            }
        };
        if let Some(default) = default
            && !kind.accepts(default)
        {
            diags.push(
                Diagnostic::error(
                    Code::TemplateParameterType,
                    format!(
                        "the default of parameter `{}` is not {}",
                        key.name,
                        kind.name()
                    ),
                    Some(default.span),
                )
                .with_label("wrong type"),
            );
            continue;
        }
        params.push(Param {
            name: key.name.to_string(),
            kind,
            default: default.cloned(),
            span: key.span,
        });
    }
    params
}

/// A parameter or instance-key name: letters, digits and `_` (`-` too for keys).
pub(super) fn is_name(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

pub(super) fn is_key_part(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}
