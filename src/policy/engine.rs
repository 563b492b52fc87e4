//! The rules run by `regorus`: each rule file loaded, each package's `deny` and `warn`
//! evaluated on the input within a time bound, and every error of the rules themselves turned
//! into a diagnostic at its `.rego` file's line, never passed over.

use std::num::NonZeroU32;
use std::time::Duration;

use regorus::Engine;
use regorus::utils::limits::ExecutionTimerConfig;
use serde_json::Value;

use super::findings::{Finding, Rule};
use super::set::{PolicyFile, PolicySet};
use crate::diagnostic::{Code, Diagnostic, Span, narrow};

/// A rule to evaluate: its package's `deny` or `warn`, and where it is first defined.
pub(super) struct Target {
    pub package: String,
    pub rule: Rule,
    pub at: Span,
}

/// The findings of every `deny` and `warn` of `set` on `input`, in file order; the errors of
/// the rules (as diagnostics at the `.rego` line, spans into [`PolicySet::sources`]) when any
/// file does not load or any rule fails.
pub(crate) fn evaluate(
    set: &PolicySet,
    input: &Value,
    limit: Duration,
) -> Result<Vec<Finding>, Vec<Diagnostic>> {
    let (mut engine, targets) = loaded(set, set.rules().collect(), limit)?;
    let input = regorus::Value::from_json_str(&input.to_string())
        .map_err(|e| vec![Diagnostic::error(Code::PolicyEval, e.to_string(), None)])?;
    engine.set_input(input);
    let mut findings = Vec::new();
    let mut problems = Vec::new();
    for target in &targets {
        match query(
            &mut engine,
            &format!("{}.{}", target.package, target.rule.as_str()),
        ) {
            Ok(Some(value)) => match Finding::read_all(&value, target.rule, target.at) {
                Ok(found) => findings.extend(found),
                Err(problem) => problems.push(*problem),
            },
            Ok(None) => {}
            Err(message) => problems.push(error(
                set,
                Code::PolicyEval,
                &message,
                Some(target.at),
                limit,
            )),
        }
    }
    if problems.is_empty() {
        // What fails the plan first; each rule's findings in file order.
        findings.sort_by_key(|f| f.rule == Rule::Warn);
        Ok(findings)
    } else {
        Err(problems)
    }
}

/// An engine with `files` loaded, and the `deny` and `warn` rules of their packages.
pub(super) fn loaded(
    set: &PolicySet,
    files: Vec<&PolicyFile>,
    limit: Duration,
) -> Result<(Engine, Vec<Target>), Vec<Diagnostic>> {
    let mut engine = Engine::new();
    engine.set_execution_timer_config(ExecutionTimerConfig {
        limit,
        check_interval: NonZeroU32::MIN,
    });
    let mut problems = Vec::new();
    for file in &files {
        if let Err(e) = engine.add_policy(file.name.clone(), file.text.to_string()) {
            problems.push(error(set, Code::PolicyRule, &e.to_string(), None, limit));
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let packages = engine
        .get_packages()
        .map_err(|e| vec![error(set, Code::PolicyRule, &e.to_string(), None, limit)])?;
    let mut targets: Vec<Target> = Vec::new();
    for (file, package) in files.iter().zip(packages) {
        for rule in [Rule::Deny, Rule::Warn] {
            let Some(at) = head(set, file, rule.as_str()) else {
                continue;
            };
            if !targets
                .iter()
                .any(|t| t.package == package && t.rule == rule)
            {
                targets.push(Target {
                    package: package.clone(),
                    rule,
                    at,
                });
            }
        }
    }
    Ok((engine, targets))
}

/// The value of `query`; `None` when it is undefined.
pub(super) fn query(engine: &mut Engine, query: &str) -> Result<Option<Value>, String> {
    let results = engine
        .eval_query(query.to_string(), false)
        .map_err(|e| e.to_string())?;
    let Some(value) = results
        .result
        .into_iter()
        .next()
        .and_then(|r| r.expressions.into_iter().next())
        .map(|e| e.value)
    else {
        return Ok(None);
    };
    let text = value.to_json_str().map_err(|e| e.to_string())?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| e.to_string())
}

/// Where rule `name` is first defined in `file`: the line that starts with it (`deny contains
/// ... if`, `deny[msg]`, `warn if`).
pub(super) fn head(set: &PolicySet, file: &PolicyFile, name: &str) -> Option<Span> {
    let index = set.files.iter().position(|f| f.name == file.name)?;
    let mut offset = 0;
    for (line, text) in file.text.split_inclusive('\n').enumerate() {
        let trimmed = text.trim_start();
        if let Some(rest) = trimmed.strip_prefix(name)
            && !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_')
        {
            let column = text.len() - trimmed.len();
            return Some(Span::new(
                narrow(index),
                narrow(offset + column),
                narrow(name.len()),
                narrow(line + 1),
                narrow(column + 1),
            ));
        }
        offset += text.len();
    }
    None
}

/// A rule error as a diagnostic: at the `--> file:line:col` that `regorus` names in its
/// message (with its `error:` line as the message), else at `fallback` (the rule being
/// evaluated).
pub(super) fn error(
    set: &PolicySet,
    code: Code,
    message: &str,
    fallback: Option<Span>,
    limit: Duration,
) -> Diagnostic {
    let what = message
        .lines()
        .rev()
        .find_map(|line| line.trim().strip_prefix("error:"))
        .map(str::trim)
        .unwrap_or_else(|| message.trim());
    let what = match what.contains("exceeded time limit") {
        // Its figures are of this run's clock: the bound is what the reader can act on.
        true => format!(
            "they ran past the time bound of {}s (`--policy-timeout`)",
            limit.as_secs()
        ),
        false => what.to_string(),
    };
    let place = message
        .lines()
        .find_map(|line| line.trim().strip_prefix("--> "))
        .and_then(|place| place_of(set, place));
    // A message with a place is about the rule's text (an unsafe or undefined name): a
    // rule error wherever it was found.
    let code = match place {
        Some(_) => Code::PolicyRule,
        None => code,
    };
    Diagnostic::error(
        code,
        format!("the rules do not run: {what}"),
        place.or(fallback),
    )
}

/// The span of `file:line:col` in one of the set's files.
fn place_of(set: &PolicySet, place: &str) -> Option<Span> {
    let mut parts = place.rsplitn(3, ':');
    let column = parts.next()?.trim().parse::<usize>().ok()?;
    let line = parts.next()?.trim().parse::<usize>().ok()?;
    let name = parts.next()?;
    let index = set.files.iter().position(|f| f.name == name)?;
    Some(span_at(&set.files.get(index)?.text, index, line, column))
}

/// The span of the character at 1-based `line` and `column` of `text`.
fn span_at(text: &str, file: usize, line: usize, column: usize) -> Span {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let rest = text.get(start..).unwrap_or("");
    let within: usize = rest
        .chars()
        .take(column.saturating_sub(1))
        .map(char::len_utf8)
        .sum();
    Span::new(
        narrow(file),
        narrow(start + within),
        1,
        narrow(line),
        narrow(column),
    )
}
