//! What a rule reports. The contract: `deny` and `warn` are sets of objects
//! `{"msg": string, "address": string, "field": string?}`; `address` names a change, a config
//! object or a live object (as the plan writes it), `field` a path inside it
//! (`scaling.maxReplicas`, `channel`). Each finding is shown at the config line of that field,
//! else of its object, else (a live object the config does not list) of its service or stack.

use serde_json::Value;

use super::input::Tree;
use crate::config::model::Sources;
use crate::config::render;
use crate::diagnostic::{Code, Diagnostic, Span};
use crate::plan::model::Warning;

/// Which rule reported a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rule {
    /// Fails the plan.
    Deny,
    /// Shown only.
    Warn,
}

impl Rule {
    /// The rule's name in Rego.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Rule::Deny => "deny",
            Rule::Warn => "warn",
        }
    }

    fn code(self) -> Code {
        match self {
            Rule::Deny => Code::PolicyDeny,
            Rule::Warn => Code::PolicyWarn,
        }
    }
}

/// One finding of a rule.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Finding {
    /// `deny` or `warn`.
    pub rule: Rule,
    /// What is wrong, as the rule says it.
    pub msg: String,
    /// The object it names.
    pub address: String,
    /// The field of that object, when it names one.
    pub field: Option<String>,
    /// Where the rule is defined (a span into the policy set's sources).
    pub at: Span,
}

impl Finding {
    /// The findings in the value of a rule (a set, read as an array), or the diagnostic at the
    /// rule's line for a value that breaks the contract.
    pub(super) fn read_all(
        value: &Value,
        rule: Rule,
        at: Span,
    ) -> Result<Vec<Finding>, Box<Diagnostic>> {
        let items = match value {
            Value::Array(items) => items.as_slice(),
            other => return Err(Box::new(broken(rule, at, other))),
        };
        items
            .iter()
            .map(|item| {
                let text = |key: &str| item.get(key).and_then(Value::as_str).map(str::to_string);
                let field = match item.get("field") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(field)) => Some(field.clone()),
                    Some(_) => return Err(Box::new(broken(rule, at, item))),
                };
                match (text("msg"), text("address")) {
                    (Some(msg), Some(address)) => Ok(Finding {
                        rule,
                        msg,
                        address,
                        field,
                        at,
                    }),
                    _ => Err(Box::new(broken(rule, at, item))),
                }
            })
            .collect()
    }

    /// `address` or `address` `field`, as the finding names its object.
    fn named(&self) -> String {
        match &self.field {
            Some(field) => format!("{} `{field}`", self.address),
            None => self.address.clone(),
        }
    }
}

fn broken(rule: Rule, at: Span, value: &Value) -> Diagnostic {
    let mut shown = value.to_string();
    if shown.len() > 200 {
        let mut end = 200;
        while !shown.is_char_boundary(end) {
            end -= 1;
        }
        shown.truncate(end);
        shown.push_str("...");
    }
    Diagnostic::error(
        Code::PolicyFinding,
        format!(
            "rule `{}` gave {shown}, not a set of {{msg, address[, field]}} objects",
            rule.as_str()
        ),
        Some(at),
    )
    .with_help(format!(
        "write it as `{} contains {{\"msg\": ..., \"address\": ...}} if {{ ... }}`",
        rule.as_str()
    ))
}

/// Where a rule is defined, `file:line`.
fn rule_place(finding: &Finding, policy: &Sources) -> String {
    let file = policy
        .file(finding.at.file_index())
        .map(|f| crate::output::path_text(&f.path))
        .unwrap_or_default();
    format!("{file}:{}", finding.at.line)
}

/// The findings as diagnostics at their config line (spans into the config's sources), the
/// rule's place in their help.
pub(crate) fn diagnostics(findings: &[Finding], tree: &Tree, policy: &Sources) -> Vec<Diagnostic> {
    findings
        .iter()
        .map(|finding| {
            let span = tree.place(&finding.address, finding.field.as_deref());
            let diagnostic = Diagnostic::error(finding.rule.code(), finding.msg.clone(), span)
                .with_label(format!("{}: {}", finding.rule.as_str(), finding.named()))
                .with_help(format!(
                    "reported by rule `{}` at {}",
                    finding.rule.as_str(),
                    rule_place(finding, policy)
                ));
            match finding.rule {
                Rule::Deny => diagnostic,
                Rule::Warn => Diagnostic {
                    severity: crate::diagnostic::Severity::Warning,
                    ..diagnostic
                },
            }
        })
        .collect()
}

/// The findings as the plan's review carries them (the Markdown comment, the JSON plan, a
/// saved plan): code, config place, message and the rule's place.
pub(crate) fn warnings(
    findings: &[Finding],
    tree: &Tree,
    sources: &Sources,
    policy: &Sources,
) -> Vec<Warning> {
    findings
        .iter()
        .map(|finding| Warning {
            code: Some(finding.rule.code().as_str().to_string()),
            place: tree
                .place(&finding.address, finding.field.as_deref())
                .map(|span| render::span_place(span, sources)),
            message: format!("{} ({})", finding.msg, finding.named()),
            help: Some(format!(
                "reported by rule `{}` at {}",
                finding.rule.as_str(),
                rule_place(finding, policy)
            )),
        })
        .collect()
}
