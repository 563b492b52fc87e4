//! An entry's instances: the template looked up, each instance's body bound, substituted,
//! built on its base templates and merged with its overrides.

use std::collections::HashMap;

use smol_str::SmolStr;

use super::declare::{Scope, Template, shape};
use super::matrix::{self, Wanted};
use super::names::{instance_names, key_parameter};
use super::substitute::{bind_defaults, substitute};
use super::tree::{describe, mark, merge};
use crate::config::model::{InstanceNames, InstanceOrigin};
use crate::config::schema_check::closest;
use crate::config::yaml::{Key, Kind, Node};
use crate::diagnostic::{Code, Diagnostic, Span};

/// The keys of a `template:` entry besides its fan-out, copied into each of its instances.
type Shared = Vec<(Key, Node)>;

pub(super) struct Expander<'d> {
    pub(super) instances: Vec<InstanceOrigin>,
    /// The current stack's alert and dashboard entries, as [`InstanceNames`].
    pub(super) names: Vec<InstanceNames>,
    /// By whole-stack template entry, the parameter its instances' keys are made from.
    pub(super) key_parameters: HashMap<String, String>,
    pub(super) diags: &'d mut Vec<Diagnostic>,
}

impl Expander<'_> {
    /// The entries of one `alerts:` or `dashboards:` map with every template entry replaced
    /// by its instances, in place.
    pub(super) fn section(
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
                        .push(crate::config::yaml::duplicate_key(&instance_key, *first));
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
        let Some((shared, wanted)) = self.fan_out(key, node, template) else {
            return Vec::new();
        };
        if kind != "stack"
            && let Some(names) = instance_names(template, &key.name, &wanted)
        {
            self.names.push(names);
        }
        if kind == "stack"
            && let Some(param) = key_parameter(template, &wanted)
        {
            self.key_parameters.insert(key.name.to_string(), param);
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

    /// What a `template:` entry fans out to: its shared keys (every other key of the entry),
    /// and one [`Wanted`] per `forEach` item or per `matrix` row.
    fn fan_out(
        &mut self,
        key: &Key,
        node: &Node,
        template: &Template,
    ) -> Option<(Shared, Vec<Wanted>)> {
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
            (Some((_, list)), None) => matrix::for_each(list, self.diags),
            (None, Some((_, product))) => {
                matrix::product(product, exclude.map(|(_, v)| v), self.diags)
            }
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
                return None;
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
                return None;
            }
        };
        if let (Some((k, _)), None) = (exclude, matrix) {
            self.diags
                .push(shape("`exclude` goes with `matrix`", k.span).with_label("no matrix here"));
        }
        Some((shared, wanted))
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
        let mut ok = self.bind_values(template, &want.values, &mut bound);
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
        substitute(&mut body, &bound, index, template, self.diags);
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
                    crate::config::yaml::duplicate_key(k, first.span)
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

    /// Binds each of `values` to the parameter of `template` it names, when of its type; each
    /// other is an error at the value. Returns whether every value was bound.
    fn bind_values<'t>(
        &mut self,
        template: &'t Template,
        values: &[(Key, Node)],
        bound: &mut HashMap<&'t str, Node>,
    ) -> bool {
        let mut ok = true;
        for (k, v) in values {
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
        ok
    }

    /// Binds each `with:` value of a nested template to the parameter of `base` it names, when
    /// of its type; each other is an error. Returns whether every value was bound.
    fn bind_with<'t>(
        &mut self,
        base: &'t Template,
        values: &[(Key, Node)],
        bound: &mut HashMap<&'t str, Node>,
    ) -> bool {
        let mut ok = true;
        for (k, v) in values {
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
        ok
    }

    /// The template a nested body builds on, `name` (written at `name_node`): an error when
    /// it is unknown or already being expanded (`stack`), which would loop.
    fn base_of<'t>(
        &mut self,
        name_node: &Node,
        name: &str,
        scope: &Scope<'t>,
        stack: &[String],
    ) -> Option<&'t Template> {
        if stack.iter().any(|s| s == name) {
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
        let Some(base) = scope.iter().find_map(|s| s.get(name)) else {
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
        Some(base)
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
        let base = self.base_of(name_node, &name, scope, stack)?;
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
            let mut ok = self.bind_with(base, &want.values, &mut bound);
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
            substitute(&mut b, &bound, index, base, self.diags);
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
}

fn name_node_span(rest: &[(Key, Node)], fallback: Span) -> Span {
    rest.first().map_or(fallback, |(k, _)| k.span)
}

fn article(kind: &str) -> &'static str {
    if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}
