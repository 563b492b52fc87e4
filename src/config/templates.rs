//! Templates: an alert or a dashboard declared once under `templates:` (at the top level or in
//! a stack) with typed parameters, and fanned out by `template:` plus `forEach:` or `matrix:`
//! where an alert or a dashboard would stand; or a whole-stack fragment (its dashboards and
//! alerts together, top-level only) fanned out where a stack would stand, each instance a
//! stack of its own keyed `entry[key]` (`stack.env[prod]`, `alert.env[prod].api-errors`).
//!
//! Expansion works on the YAML tree, after the files merge and before `${env:...}` interpolation,
//! so every later stage (interpolation and its secret checks, the schema, the typed config, the
//! rules) sees ordinary alerts and dashboards. Each instance takes the key `entry[key]` (a
//! matrix joins its values with `,`), so its address is `alert.prod.api-errors[checkout]`: from
//! the key, never from a list position or a rendered name. Every node copied from a template
//! keeps the template's span with [`Span::instance`] set, so a problem found later in a
//! template's text names both the template line and the instance line; the instances are
//! listed in [`Sources::instances`](super::model::Sources) for that.
//!
//! Substitution only: `${name}` inside a string is replaced by the parameter's text, and a
//! whole scalar `${name}` takes the parameter's value with its type (a number stays a number, a
//! list a list). `${env:...}` and `$${` are left for interpolation.

use std::collections::HashMap;

use smol_str::SmolStr;

use super::model::{InstanceNames, InstanceOrigin, NamePart};
use super::schema_check::closest;
use super::yaml::{Key, Kind, Node};
use crate::diagnostic::{Code, Diagnostic, Span};

/// The kinds of object a template declares, by the key holding its body.
const KINDS: &[&str] = &["alert", "dashboard", "stack"];

/// A parameter's declared type.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Type {
    String,
    Number,
    Integer,
    Boolean,
    List(Option<Item>),
}

/// The type of a list's items.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Item {
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

    fn name(self) -> &'static str {
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

    fn accepts(self, node: &Node) -> bool {
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
struct Param {
    name: String,
    kind: Type,
    default: Option<Node>,
    /// Where the parameter is declared.
    span: Span,
}

/// One template, as declared.
#[derive(Debug, Clone)]
struct Template {
    name: String,
    /// `alert`, `dashboard` or `stack`.
    kind: &'static str,
    params: Vec<Param>,
    body: Node,
    /// The template's key under `templates:`.
    span: Span,
}

/// The templates a stack sees: its own, then the top-level ones.
type Scope<'t> = [&'t HashMap<String, Template>];

/// What expanding made: the instances, indexed by [`Span::instance`], and by stack key how
/// the live names of its alert and dashboard instances read back as their keys.
#[derive(Debug, Default)]
pub(crate) struct Expansion {
    /// Every instance made.
    pub instances: Vec<InstanceOrigin>,
    /// Each stack's [`InstanceNames`].
    pub names: HashMap<String, Vec<InstanceNames>>,
}

/// Expands every `template:` entry of every stack in place and takes the `templates:` maps
/// out of the tree.
pub(crate) fn expand(root: &mut Node, diags: &mut Vec<Diagnostic>) -> Expansion {
    let Kind::Map(entries) = &mut root.kind else {
        return Expansion::default();
    };
    let global = take_templates(entries, diags);
    let mut expander = Expander {
        instances: Vec::new(),
        names: Vec::new(),
        diags,
    };
    let mut names = HashMap::new();
    let Some((_, stacks)) = entries.iter_mut().find(|(k, _)| k.name == "stacks") else {
        return Expansion::default();
    };
    let Kind::Map(stacks) = &mut stacks.kind else {
        return Expansion::default();
    };
    // Whole stacks first: an instance's own alerts and dashboards may use templates too.
    let written = std::mem::take(stacks);
    *stacks = expander.section(written, "stack", &[&global]);
    for (stack_key, stack) in stacks.iter_mut() {
        let Kind::Map(stack) = &mut stack.kind else {
            continue;
        };
        let local = take_templates(stack, expander.diags);
        let scope: [&HashMap<String, Template>; 2] = [&local, &global];
        for (section, kind) in [("alerts", "alert"), ("dashboards", "dashboard")] {
            if let Some((_, objects)) = stack.iter_mut().find(|(k, _)| k.name == section)
                && let Kind::Map(objects) = &mut objects.kind
            {
                let written = std::mem::take(objects);
                *objects = expander.section(written, kind, &scope);
            }
        }
        let made = std::mem::take(&mut expander.names);
        if !made.is_empty() {
            names.insert(stack_key.name.to_string(), made);
        }
    }
    Expansion {
        instances: expander.instances,
        names,
    }
}

/// Removes `templates:` from a mapping and reads its templates.
fn take_templates(
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

fn shape(message: impl Into<String>, span: Span) -> Diagnostic {
    Diagnostic::error(Code::TemplateShape, message, Some(span))
}

fn read_template(key: &Key, node: Node, diags: &mut Vec<Diagnostic>) -> Option<Template> {
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

fn read_params(node: &Node, diags: &mut Vec<Diagnostic>) -> Vec<Param> {
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
fn is_name(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn is_key_part(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// One instance to make: its key, where it is written, its parameter values and overrides.
struct Wanted {
    key: String,
    span: Span,
    values: Vec<(Key, Node)>,
    overrides: Option<Node>,
}

struct Expander<'d> {
    instances: Vec<InstanceOrigin>,
    /// The current stack's alert and dashboard entries, as [`InstanceNames`].
    names: Vec<InstanceNames>,
    diags: &'d mut Vec<Diagnostic>,
}

impl Expander<'_> {
    /// The entries of one `alerts:` or `dashboards:` map with every template entry replaced
    /// by its instances, in place.
    fn section(
        &mut self,
        written: Vec<(Key, Node)>,
        kind: &str,
        scope: &Scope,
    ) -> Vec<(Key, Node)> {
        let mut out = Vec::with_capacity(written.len());
        let mut seen: HashMap<SmolStr, Span> = HashMap::new();
        for (key, node) in written {
            if node.get("template").is_none() {
                seen.insert(key.name.clone(), key.span);
                out.push((key, node));
                continue;
            }
            for (instance_key, instance) in self.entry(&key, &node, kind, scope) {
                if let Some(first) = seen.get(&instance_key.name) {
                    self.diags
                        .push(super::yaml::duplicate_key(&instance_key, *first));
                    continue;
                }
                seen.insert(instance_key.name.clone(), instance_key.span);
                out.push((instance_key, instance));
            }
        }
        out
    }

    /// The instances of one `template:` entry.
    fn entry(&mut self, key: &Key, node: &Node, kind: &str, scope: &Scope) -> Vec<(Key, Node)> {
        let Some(template) = self.lookup(node, kind, scope) else {
            return Vec::new();
        };
        let mut shared = Vec::new();
        let mut for_each = None;
        let mut matrix = None;
        let mut exclude = None;
        for (k, v) in node.as_map().unwrap_or_default() {
            match k.name.as_str() {
                "template" => {}
                "forEach" => for_each = Some((k, v)),
                "matrix" => matrix = Some((k, v)),
                "exclude" => exclude = Some((k, v)),
                _ => shared.push((k.clone(), v.clone())),
            }
        }
        let wanted = match (for_each, matrix) {
            (Some((_, list)), None) => self.for_each(list),
            (None, Some((_, product))) => self.matrix(product, exclude.map(|(_, v)| v)),
            (Some(_), Some((second, _))) => {
                self.diags.push(
                    shape(
                        format!(
                            "`{}` fans out with `forEach` or `matrix`, not both",
                            key.name
                        ),
                        second.span,
                    )
                    .with_label("a second fan-out"),
                );
                return Vec::new();
            }
            (None, None) => {
                self.diags.push(
                    shape(
                        format!(
                            "`{}` uses template `{}` without `forEach:` or `matrix:`",
                            key.name, template.name
                        ),
                        key.span,
                    )
                    .with_label("no instances")
                    .with_help(
                        "list the instances: `forEach: [{key: checkout, service: checkout}]`",
                    ),
                );
                return Vec::new();
            }
        };
        if let (Some((k, _)), None) = (exclude, matrix) {
            self.diags
                .push(shape("`exclude` goes with `matrix`", k.span).with_label("no matrix here"));
        }
        if kind != "stack"
            && let Some(names) = instance_names(template, &key.name, &wanted)
        {
            self.names.push(names);
        }
        let mut keys: HashMap<String, Span> = HashMap::new();
        let mut out = Vec::new();
        for want in wanted {
            if let Some(first) = keys.get(&want.key) {
                self.diags.push(
                    Diagnostic::error(
                        Code::TemplateDuplicateInstance,
                        format!(
                            "two instances of `{}` have the key `{}`",
                            key.name, want.key
                        ),
                        Some(want.span),
                    )
                    .with_label("second instance")
                    .with_related(*first, "first instance")
                    .with_help("an instance's key is its address; give each instance its own"),
                );
                continue;
            }
            keys.insert(want.key.clone(), want.span);
            let name = format!("{}[{}]", key.name, want.key);
            let mut stack = vec![template.name.clone()];
            if let Some(body) = self.instance(template, &want, &shared, key, scope, &mut stack) {
                out.push((
                    Key {
                        name: name.into(),
                        span: want.span,
                    },
                    body,
                ));
            }
        }
        out
    }

    fn lookup<'t>(&mut self, node: &Node, kind: &str, scope: &Scope<'t>) -> Option<&'t Template> {
        let name_node = node.get("template")?;
        let Some(name) = name_node.as_str() else {
            self.diags.push(
                shape(
                    "`template` names a template under `templates:`",
                    name_node.span,
                )
                .with_label("not a name"),
            );
            return None;
        };
        let Some(template) = scope.iter().find_map(|s| s.get(name)) else {
            let mut diag = Diagnostic::error(
                Code::TemplateUnknown,
                format!("no template is named `{name}`"),
                Some(name_node.span),
            )
            .with_label("unknown template");
            let mut known: Vec<&str> = scope
                .iter()
                .flat_map(|s| s.keys().map(String::as_str))
                .collect();
            known.sort_unstable();
            if let Some(close) = closest(name, known.iter().copied()) {
                diag = diag.with_help(format!("did you mean `{close}`?"));
            }
            self.diags.push(diag);
            return None;
        };
        if template.kind != kind {
            self.diags.push(
                Diagnostic::error(
                    Code::TemplateKind,
                    format!(
                        "template `{name}` declares {} {}, not {} {kind}",
                        article(template.kind),
                        template.kind,
                        article(kind)
                    ),
                    Some(name_node.span),
                )
                .with_label("used here")
                .with_related(template.span, "the template"),
            );
            return None;
        }
        Some(template)
    }

    fn for_each(&mut self, list: &Node) -> Vec<Wanted> {
        let Kind::Seq(items) = &list.kind else {
            self.diags.push(not_list_of_maps(list.span));
            return Vec::new();
        };
        let mut wanted = Vec::new();
        for item in items {
            let Some(entries) = item.as_map() else {
                self.diags.push(not_list_of_maps(item.span));
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
                self.diags.push(
                    shape("an instance of `forEach` needs a `key`", item.span)
                        .with_label("no key")
                        .with_help("the key names the instance for good: `key: checkout`"),
                );
                continue;
            };
            let Some(text) = scalar_text(key).filter(|t| is_key_part(t)) else {
                self.diags.push(bad_key(key.span));
                continue;
            };
            if let Some(overrides) = &overrides
                && overrides.as_map().is_none()
            {
                self.diags.push(
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

    fn matrix(&mut self, product: &Node, exclude: Option<&Node>) -> Vec<Wanted> {
        let Some(axes) = product.as_map() else {
            self.diags.push(
                shape(
                    "`matrix` maps each parameter to a list of values",
                    product.span,
                )
                .with_label("not a mapping"),
            );
            return Vec::new();
        };
        let mut columns: Vec<(&Key, &[Node])> = Vec::new();
        for (k, v) in axes {
            match &v.kind {
                Kind::Seq(values) if !values.is_empty() => {
                    for value in values {
                        if !scalar_text(value).is_some_and(|t| is_key_part(&t)) {
                            self.diags.push(bad_key(value.span));
                            return Vec::new();
                        }
                    }
                    columns.push((k, values));
                }
                _ => {
                    self.diags.push(
                        shape(
                            format!("`matrix.{}` is a non-empty list of values", k.name),
                            v.span,
                        )
                        .with_label("not a list"),
                    );
                    return Vec::new();
                }
            }
        }
        let excluded: Vec<&[(Key, Node)]> = match exclude.map(|e| &e.kind) {
            None => Vec::new(),
            Some(Kind::Seq(items)) if items.iter().all(|i| i.as_map().is_some()) => {
                items.iter().filter_map(Node::as_map).collect()
            }
            Some(_) => {
                self.diags.push(
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

    /// One instance: the template's body with the parameters substituted, the entry's shared
    /// keys added and the overrides merged in.
    fn instance(
        &mut self,
        template: &Template,
        want: &Wanted,
        shared: &[(Key, Node)],
        entry: &Key,
        scope: &Scope,
        stack: &mut Vec<String>,
    ) -> Option<Node> {
        let index = u32::try_from(self.instances.len()).ok()?;
        let origin = InstanceOrigin {
            template: template.name.clone(),
            template_span: template.span,
            key: format!("{}[{}]", entry.name, want.key),
            span: want.span,
        };
        let mut bound: HashMap<&str, Node> = HashMap::new();
        bound.insert(
            "key",
            Node {
                kind: Kind::Str(want.key.as_str().into()),
                span: want.span,
            },
        );
        let mut ok = true;
        for (k, v) in &want.values {
            match template.params.iter().find(|p| p.name == k.name) {
                Some(param) if param.kind.accepts(v) => {
                    bound.insert(param.name.as_str(), v.clone());
                }
                Some(param) => {
                    ok = false;
                    self.diags.push(
                        Diagnostic::error(
                            Code::TemplateParameterType,
                            format!(
                                "parameter `{}` of template `{}` is {}; this is {}",
                                param.name,
                                template.name,
                                param.kind.name(),
                                describe(v)
                            ),
                            Some(v.span),
                        )
                        .with_label("wrong type")
                        .with_related(param.span, "the parameter"),
                    );
                }
                None => {
                    ok = false;
                    let mut diag = Diagnostic::error(
                        Code::TemplateUnknownParameter,
                        format!("template `{}` has no parameter `{}`", template.name, k.name),
                        Some(k.span),
                    )
                    .with_label("unknown parameter")
                    .with_related(template.span, "the template");
                    let names = template.params.iter().map(|p| p.name.as_str());
                    if let Some(close) = closest(&k.name, names) {
                        diag = diag.with_help(format!("did you mean `{close}`?"));
                    } else {
                        diag = diag.with_help(
                            "change a value the template does not take with `overrides:`",
                        );
                    }
                    self.diags.push(diag);
                }
            }
        }
        ok &= bind_defaults(
            template,
            &want.values,
            &mut bound,
            (&origin.key, want.span),
            self.diags,
        );
        if !ok {
            return None;
        }
        self.instances.push(origin);
        let mut body = template.body.clone();
        // A stack fragment's own `templates:` are taken as written: their `${name}` are their
        // own parameters, bound when the fragment's alerts and dashboards use them.
        let own = match (&mut body.kind, template.kind) {
            (Kind::Map(entries), "stack") => entries
                .iter()
                .position(|(k, _)| k.name == "templates")
                .map(|at| entries.remove(at)),
            _ => None,
        };
        self.substitute(&mut body, &bound, index, template);
        if let (Kind::Map(entries), Some((key, mut templates))) = (&mut body.kind, own) {
            mark(&mut templates, index);
            entries.push((key, templates));
        }
        let body = self.nested(body, scope, stack, index)?;
        let Kind::Map(mut entries) = body.kind else {
            return None;
        };
        for (k, v) in shared {
            if let Some((first, _)) = entries.iter().find(|(t, _)| t.name == k.name) {
                self.diags.push(
                    super::yaml::duplicate_key(k, first.span)
                        .with_help("change a value of the template for this entry with `overrides:` in each instance"),
                );
                continue;
            }
            entries.push((k.clone(), v.clone()));
        }
        let body = Node {
            kind: Kind::Map(entries),
            span: body.span.with_instance(index),
        };
        Some(match &want.overrides {
            Some(overrides) => merge(body, overrides.clone()),
            None => body,
        })
    }

    /// A body that is itself `template: other` with `with:` values: the other template's
    /// body, the rest merged over it. Templates that use each other in a cycle are an error.
    fn nested(
        &mut self,
        body: Node,
        scope: &Scope,
        stack: &mut Vec<String>,
        index: u32,
    ) -> Option<Node> {
        let Some(name_node) = body.get("template") else {
            return Some(body);
        };
        let name = name_node.as_str().unwrap_or_default().to_string();
        if stack.contains(&name) {
            let chain = stack.join("` → `");
            self.diags.push(
                Diagnostic::error(
                    Code::TemplateCycle,
                    format!("templates use each other in a cycle: `{chain}` → `{name}`"),
                    Some(name_node.span),
                )
                .with_label("uses a template already being expanded")
                .with_help("a template may build on another, never on itself"),
            );
            return None;
        }
        let Some(base) = scope.iter().find_map(|s| s.get(&name)) else {
            self.diags.push(
                Diagnostic::error(
                    Code::TemplateUnknown,
                    format!("no template is named `{name}`"),
                    Some(name_node.span),
                )
                .with_label("unknown template"),
            );
            return None;
        };
        let Kind::Map(entries) = body.kind else {
            return None;
        };
        let mut values = Vec::new();
        let mut rest = Vec::new();
        for (k, v) in entries {
            match k.name.as_str() {
                "template" => {}
                "with" => values = v.as_map().map(<[_]>::to_vec).unwrap_or_default(),
                _ => rest.push((k, v)),
            }
        }
        let origin = self.instances.get(usize::try_from(index).ok()?)?;
        let want = Wanted {
            key: origin.key.clone(),
            span: origin.span,
            values,
            overrides: None,
        };
        stack.push(name);
        let base_body = {
            let mut bound: HashMap<&str, Node> = HashMap::new();
            let mut ok = true;
            for (k, v) in &want.values {
                match base.params.iter().find(|p| p.name == k.name) {
                    Some(p) if p.kind.accepts(v) => {
                        bound.insert(p.name.as_str(), v.clone());
                    }
                    _ => {
                        ok = false;
                        self.diags.push(
                            Diagnostic::error(
                                Code::TemplateUnknownParameter,
                                format!(
                                    "template `{}` has no parameter `{}` of this type",
                                    base.name, k.name
                                ),
                                Some(k.span),
                            )
                            .with_related(base.span, "the template"),
                        );
                    }
                }
            }
            ok &= bind_defaults(
                base,
                &want.values,
                &mut bound,
                (&want.key, name_node_span(&rest, want.span)),
                self.diags,
            );
            if !ok {
                stack.pop();
                return None;
            }
            let mut b = base.body.clone();
            self.substitute(&mut b, &bound, index, base);
            b
        };
        let base_body = self.nested(base_body, scope, stack, index);
        stack.pop();
        let rest = Node {
            kind: Kind::Map(rest),
            span: body.span,
        };
        Some(merge(base_body?, rest))
    }

    /// Replaces `${name}` in every string of `node`, and marks every span with the instance.
    fn substitute(
        &mut self,
        node: &mut Node,
        bound: &HashMap<&str, Node>,
        index: u32,
        template: &Template,
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
                if let Some(filled) = self.fill(text, bound, node.span, template) {
                    *text = filled.into();
                }
            }
            Kind::Seq(items) => {
                for item in items {
                    self.substitute(item, bound, index, template);
                }
            }
            Kind::Map(entries) => {
                for (key, value) in entries {
                    key.span = key.span.with_instance(index);
                    self.substitute(value, bound, index, template);
                }
            }
            Kind::Null | Kind::Bool(_) | Kind::Int(_) | Kind::Float(_) => {}
        }
    }

    /// `text` with each `${name}` replaced by its scalar's text; `${env:...}` and `$${` kept.
    fn fill(
        &mut self,
        text: &str,
        bound: &HashMap<&str, Node>,
        span: Span,
        template: &Template,
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
                    self.diags.push(
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
                    self.diags.push(diag);
                    return None;
                }
            }
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Some(out)
    }
}

/// Binds each parameter of `template` that `given` leaves out to its default; one without a
/// default is an error at the instance (`instance`, where it is written) and at the parameter.
/// Returns whether every parameter is bound or given.
fn bind_defaults<'t>(
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

/// How the live names of an entry's instances read back as their keys; `None` when the
/// template's `name` is not one string, or no parameters of it make every instance's key.
fn instance_names(template: &Template, entry: &str, wanted: &[Wanted]) -> Option<InstanceNames> {
    let name = name_parts(template.body.get("name")?.as_str()?);
    let holes: Vec<&str> = name
        .iter()
        .filter_map(|p| match p {
            NamePart::Param(param) => Some(param.as_str()),
            NamePart::Text(_) => None,
        })
        .collect();
    let value = |want: &Wanted, param: &str| -> Option<String> {
        if param == "key" {
            return Some(want.key.clone());
        }
        match want.values.iter().find(|(k, _)| k.name == param) {
            Some((_, v)) => scalar_text(v),
            None => scalar_text(
                template
                    .params
                    .iter()
                    .find(|p| p.name == param)?
                    .default
                    .as_ref()?,
            ),
        }
    };
    // `${key}` itself; one parameter every key repeats; a matrix's axes, joined.
    let axes: Vec<&str> = wanted
        .first()
        .map(|w| w.values.iter().map(|(k, _)| k.name.as_str()).collect())
        .unwrap_or_default();
    let candidates = std::iter::once(vec!["key"])
        .chain(holes.iter().map(|h| vec![*h]))
        .chain(std::iter::once(axes));
    let key = candidates
        .filter(|params| !params.is_empty() && params.iter().all(|p| holes.contains(p)))
        .find(|params| {
            wanted.iter().all(|want| {
                params
                    .iter()
                    .map(|p| value(want, p))
                    .collect::<Option<Vec<_>>>()
                    .is_some_and(|values| values.join(",") == want.key)
            })
        })?;
    let key = key.iter().map(|p| (*p).to_string()).collect();
    Some(InstanceNames {
        kind: template.kind.to_string(),
        entry: entry.to_string(),
        name,
        key,
        keys: wanted.iter().map(|w| w.key.clone()).collect(),
    })
}

/// A template's `name` as literal text and `${parameter}` holes; `${env:...}` and `$${` stay
/// text.
fn name_parts(text: &str) -> Vec<NamePart> {
    let mut parts = Vec::new();
    let mut literal = String::new();
    let mut rest = text;
    while let Some(pos) = rest.find("${") {
        let after = &rest[pos..];
        let hole = after[2..]
            .find('}')
            .map(|end| &after[2..2 + end])
            .filter(|name| is_name(name) && !rest[..pos].ends_with('$'));
        match hole {
            Some(name) => {
                literal.push_str(&rest[..pos]);
                if !literal.is_empty() {
                    parts.push(NamePart::Text(std::mem::take(&mut literal)));
                }
                parts.push(NamePart::Param(name.to_string()));
                rest = &after[name.len() + 3..];
            }
            None => {
                literal.push_str(&rest[..pos + 2]);
                rest = &after[2..];
            }
        }
    }
    literal.push_str(rest);
    if !literal.is_empty() {
        parts.push(NamePart::Text(literal));
    }
    parts
}

fn name_node_span(rest: &[(Key, Node)], fallback: Span) -> Span {
    rest.first().map_or(fallback, |(k, _)| k.span)
}

/// `name` when `text` is exactly `${name}` (not an environment reference).
fn whole_reference(text: &str) -> Option<&str> {
    let name = text.strip_prefix("${")?.strip_suffix('}')?;
    (!name.contains(['$', '{', '}', ':'])).then_some(name)
}

fn mark(node: &mut Node, index: u32) {
    node.span = node.span.with_instance(index);
    match &mut node.kind {
        Kind::Seq(items) => items.iter_mut().for_each(|i| mark(i, index)),
        Kind::Map(entries) => entries.iter_mut().for_each(|(_, v)| mark(v, index)),
        Kind::Null | Kind::Bool(_) | Kind::Int(_) | Kind::Float(_) | Kind::Str(_) => {}
    }
}

/// A scalar's text as it substitutes into a string; `None` for a list or a mapping.
fn scalar_text(node: &Node) -> Option<String> {
    Some(match &node.kind {
        Kind::Str(s) => s.to_string(),
        Kind::Int(i) => i.to_string(),
        Kind::Float(f) => f.to_string(),
        Kind::Bool(b) => b.to_string(),
        Kind::Null => String::new(),
        Kind::Seq(_) | Kind::Map(_) => return None,
    })
}

fn describe(node: &Node) -> &'static str {
    match node.kind {
        Kind::Null => "empty",
        Kind::Bool(_) => "a boolean",
        Kind::Int(_) => "an integer",
        Kind::Float(_) => "a number",
        Kind::Str(_) => "a string",
        Kind::Seq(_) => "a list",
        Kind::Map(_) => "a mapping",
    }
}

fn article(kind: &str) -> &'static str {
    if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

fn not_list_of_maps(span: Span) -> Diagnostic {
    shape(
        "`forEach` is a list of mappings, one per instance, each with a `key`",
        span,
    )
    .with_label("not a mapping")
    .with_help("write `forEach: [{key: checkout, service: checkout}, ...]`")
}

fn bad_key(span: Span) -> Diagnostic {
    shape(
        "an instance key is a word of letters, digits, `-` and `_`: it becomes part of the address",
        span,
    )
    .with_label("not a valid key")
}

/// `over` deep-merged into `base`: mappings merge key by key, anything else replaces.
fn merge(base: Node, over: Node) -> Node {
    match (base.kind, over.kind) {
        (Kind::Map(mut entries), Kind::Map(more)) => {
            for (k, v) in more {
                match entries.iter_mut().find(|(e, _)| e.name == k.name) {
                    Some((_, existing)) => {
                        let old = std::mem::replace(
                            existing,
                            Node {
                                kind: Kind::Null,
                                span: v.span,
                            },
                        );
                        *existing = merge(old, v);
                    }
                    None => entries.push((k, v)),
                }
            }
            Node {
                kind: Kind::Map(entries),
                span: base.span,
            }
        }
        (_, kind) => Node {
            kind,
            span: over.span,
        },
    }
}

/// The expanded tree as YAML, for `validate --expand`: each instance preceded by a comment
/// naming its template and where the instance is written, `${env:...}` as written.
pub(crate) fn to_yaml(root: &Node, sources: &super::model::Sources) -> String {
    let mut out = String::new();
    write_map_entries(root, 0, sources, &mut out);
    out
}

fn write_map_entries(
    node: &Node,
    indent: usize,
    sources: &super::model::Sources,
    out: &mut String,
) {
    let Some(entries) = node.as_map() else {
        return;
    };
    let pad = " ".repeat(indent);
    for (key, value) in entries {
        if let Some(origin) = sources.instance(value.span)
            && origin.key == key.name
        {
            let file = sources
                .file(origin.span.file_index())
                .map(|f| crate::output::path_text(&f.path))
                .unwrap_or_default();
            out.push_str(&format!(
                "{pad}# template `{}`, instance at {file}:{}\n",
                origin.template, origin.span.line
            ));
        }
        out.push_str(&pad);
        out.push_str(&scalar(&Kind::Str(key.name.clone())));
        out.push(':');
        write_value(value, indent, sources, out);
    }
}

/// Writes a value after `key:` (or `-`): a scalar on the same line, a collection below.
fn write_value(value: &Node, indent: usize, sources: &super::model::Sources, out: &mut String) {
    match &value.kind {
        Kind::Map(entries) if !entries.is_empty() => {
            out.push('\n');
            write_map_entries(value, indent + 2, sources, out);
        }
        Kind::Seq(items) if !items.is_empty() => {
            out.push('\n');
            let pad = " ".repeat(indent + 2);
            for item in items {
                out.push_str(&pad);
                out.push('-');
                match &item.kind {
                    Kind::Map(entries) if !entries.is_empty() => {
                        // The first entry on the dash's line, the rest aligned under it.
                        let mut nested = String::new();
                        write_map_entries(item, indent + 4, sources, &mut nested);
                        out.push(' ');
                        out.push_str(nested.trim_start_matches(' '));
                    }
                    _ => write_value(item, indent + 2, sources, out),
                }
            }
        }
        Kind::Map(_) => out.push_str(" {}\n"),
        Kind::Seq(_) => out.push_str(" []\n"),
        kind => {
            out.push(' ');
            out.push_str(&scalar(kind));
            out.push('\n');
        }
    }
}

/// A scalar as YAML: plain when it reads back as the same string, double-quoted otherwise.
fn scalar(kind: &Kind) -> String {
    match kind {
        Kind::Null => "null".to_string(),
        Kind::Bool(b) => b.to_string(),
        Kind::Int(i) => i.to_string(),
        Kind::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{f:.1}"),
        Kind::Float(f) => f.to_string(),
        Kind::Str(text) => {
            let plain = text.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && text
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c))
                && matches!(super::yaml::resolve_plain(text), Kind::Str(_));
            if plain {
                text.to_string()
            } else {
                serde_json::to_string(text.as_str()).unwrap_or_default()
            }
        }
        Kind::Seq(_) | Kind::Map(_) => String::new(),
    }
}

/// The instance names of `forEach` keys seen twice, for tests.
#[cfg(test)]
fn keys_of(root: &Node, stack: &str, section: &str) -> Vec<String> {
    root.get("stacks")
        .and_then(|s| s.get(stack))
        .and_then(|s| s.get(section))
        .and_then(Node::as_map)
        .map(|m| m.iter().map(|(k, _)| k.name.to_string()).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand_text(text: &str) -> (Node, Vec<InstanceOrigin>, Vec<Diagnostic>) {
        let mut diags = Vec::new();
        let mut root = super::super::yaml::parse(text, 0, &mut diags).unwrap();
        let instances = expand(&mut root, &mut diags).instances;
        (root, instances, diags)
    }

    const BASE: &str = "templates:
  errors:
    parameters:
      service: string
      threshold: { type: number, default: 100 }
    alert:
      name: ${service} errors
      threshold: ${threshold}
      message: \"${service} is failing (${env:TEAM})\"
stacks:
  prod:
    alerts:
      api:
        template: errors
";

    #[test]
    fn for_each_makes_keyed_instances_with_typed_values() {
        let text = format!(
            "{BASE}        forEach:\n          - {{key: checkout, service: checkout}}\n          - {{key: search, service: search, threshold: 5.5}}\n"
        );
        let (root, instances, diags) = expand_text(&text);
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(
            keys_of(&root, "prod", "alerts"),
            ["api[checkout]", "api[search]"]
        );
        let search = root
            .get("stacks")
            .unwrap()
            .get("prod")
            .unwrap()
            .get("alerts")
            .unwrap()
            .get("api[search]")
            .unwrap();
        assert_eq!(search.get("threshold").unwrap().kind, Kind::Float(5.5));
        assert_eq!(
            search.get("name").unwrap().kind,
            Kind::Str("search errors".into())
        );
        assert_eq!(
            search.get("message").unwrap().kind,
            Kind::Str("search is failing (${env:TEAM})".into())
        );
        assert_eq!(search.get("name").unwrap().span.line, 7);
        assert_eq!(search.get("name").unwrap().span.instance(), Some(1));
        assert_eq!(instances[1].key, "api[search]");
        assert!(root.get("templates").is_none());
    }

    #[test]
    fn matrix_expands_the_product_without_the_excluded() {
        let text = format!(
            "{BASE}        matrix:\n          service: [a, b]\n          threshold: [1, 2]\n        exclude:\n          - {{service: b, threshold: 2}}\n"
        );
        let (root, _, diags) = expand_text(&text);
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(
            keys_of(&root, "prod", "alerts"),
            ["api[a,1]", "api[a,2]", "api[b,1]"]
        );
    }

    #[test]
    fn bad_instances_are_errors_at_the_instance() {
        let cases = [
            ("        forEach: {key: a}\n", Code::TemplateShape),
            ("        forEach: [a]\n", Code::TemplateShape),
            (
                "        forEach:\n          - {service: a}\n",
                Code::TemplateShape,
            ),
            (
                "        forEach:\n          - {key: a, service: a}\n          - {key: a, service: b}\n",
                Code::TemplateDuplicateInstance,
            ),
            (
                "        forEach:\n          - {key: a, service: a, servise: a}\n",
                Code::TemplateUnknownParameter,
            ),
            (
                "        forEach:\n          - {key: a}\n",
                Code::TemplateMissingParameter,
            ),
            (
                "        forEach:\n          - {key: a, service: a, threshold: high}\n",
                Code::TemplateParameterType,
            ),
        ];
        for (tail, code) in cases {
            let (_, _, diags) = expand_text(&format!("{BASE}{tail}"));
            assert_eq!(
                diags.iter().map(|d| d.code).collect::<Vec<_>>(),
                [code],
                "{tail}"
            );
        }
    }

    #[test]
    fn a_removed_instance_reads_back_from_its_live_name() {
        let names = |text: &str| {
            let mut diags = Vec::new();
            let mut root = super::super::yaml::parse(text, 0, &mut diags).unwrap();
            let names = expand(&mut root, &mut diags).names;
            assert!(diags.is_empty(), "{diags:?}");
            names.get("prod").cloned().unwrap_or_default()
        };
        // Every key repeats `service`: the key is the service the name holds.
        let each = names(&format!(
            "{BASE}        forEach:\n          - {{key: checkout, service: checkout}}\n          - {{key: search, service: search}}\n"
        ));
        assert_eq!(each[0].key, ["service"]);
        assert_eq!(
            each[0].removed_key("billing errors").as_deref(),
            Some("billing")
        );
        assert_eq!(each[0].removed_key("search errors"), None, "still listed");
        assert_eq!(each[0].removed_key("billing failures"), None);
        assert_eq!(each[0].removed_key("two words errors"), None, "not a key");
        // Keys unrelated to the name: nothing reads back.
        let unrelated = names(&format!(
            "{BASE}        forEach:\n          - {{key: a, service: checkout}}\n"
        ));
        assert!(unrelated.is_empty(), "{unrelated:?}");
        // A matrix: its axes, joined.
        let matrix = names(
            "templates:
  t:
    parameters: { service: string, env: string }
    alert: { name: \"${env}/${service} errors\" }
stacks:
  prod:
    alerts:
      x:
        template: t
        matrix: { service: [a, b], env: [eu, us] }
",
        );
        assert_eq!(matrix[0].key, ["service", "env"]);
        assert_eq!(
            matrix[0].removed_key("us/c errors").as_deref(),
            Some("c,us")
        );
        assert_eq!(matrix[0].removed_key("us/a errors"), None, "still listed");
    }

    #[test]
    fn templates_building_on_each_other_in_a_cycle_stop() {
        let text = "templates:
  a:
    alert: { template: b, name: x }
  b:
    alert: { template: a }
stacks:
  prod:
    alerts:
      x: { template: a, forEach: [{key: one}] }
";
        let (_, _, diags) = expand_text(text);
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert_eq!(diags[0].code, Code::TemplateCycle);
    }

    #[test]
    fn overrides_merge_deeply_into_their_instance_only() {
        let text = "templates:
  t:
    alert: { name: \"n-${key}\", channel: { type: webhook, webhookId: w } }
stacks:
  prod:
    alerts:
      x:
        template: t
        forEach:
          - { key: a, overrides: { channel: { webhookId: v } } }
          - { key: b }
";
        let (root, _, diags) = expand_text(text);
        assert!(diags.is_empty(), "{diags:?}");
        let alerts = root
            .get("stacks")
            .unwrap()
            .get("prod")
            .unwrap()
            .get("alerts")
            .unwrap();
        let a = alerts.get("x[a]").unwrap().get("channel").unwrap();
        assert_eq!(a.get("webhookId").unwrap().kind, Kind::Str("v".into()));
        assert_eq!(a.get("type").unwrap().kind, Kind::Str("webhook".into()));
        let b = alerts.get("x[b]").unwrap().get("channel").unwrap();
        assert_eq!(b.get("webhookId").unwrap().kind, Kind::Str("w".into()));
    }

    #[test]
    fn a_key_of_the_entry_and_the_template_both_is_a_duplicate() {
        let text = "templates:
  t:
    alert: { name: n }
stacks:
  prod:
    alerts:
      x: { template: t, name: m, forEach: [{key: a}] }
";
        let (_, _, diags) = expand_text(text);
        assert_eq!(diags[0].code, Code::ConfigDuplicateKey, "{diags:?}");
    }
}
