//! `--format json`: the plan as a versioned JSON document (`"format": "converge-plan/1"`).
//! Keys come out in a fixed order (struct field order, sorted maps), so the same plan gives the
//! same bytes.

use std::io::Write as _;

use serde::Serialize;

use super::checks::CheckResult;
use super::kind::Shows;
use super::model::{
    Action, FieldChange, Fingerprint, Operation, Plan, Step, Summary, Unmanaged, Warning,
};

/// The format identifier of the JSON rendering.
pub(crate) const FORMAT: &str = "converge-plan/1";

#[derive(Serialize)]
struct Document<'a> {
    format: &'static str,
    organization: &'a str,
    /// The `--only` patterns of a partial plan; absent for a whole plan.
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    only: &'a [String],
    summary: Summary,
    changes: Changes<'a>,
    unmanaged: &'a [Unmanaged],
    checks: &'a [CheckResult],
    steps: Steps<'a>,
    /// What the text shows on stderr; absent when there is none.
    #[serde(skip_serializing_if = "<[Warning]>::is_empty")]
    warnings: &'a [Warning],
    /// The addresses of `unmanaged` the config's `ignore:` acknowledges; absent when none.
    #[serde(skip_serializing_if = "<[crate::address::AddressBuf]>::is_empty")]
    acknowledged: &'a [crate::address::AddressBuf],
}

#[derive(Serialize)]
struct ChangeOut<'a> {
    address: &'a crate::address::AddressBuf,
    action: Action,
    reason: &'a str,
    before: &'a Option<serde_json::Value>,
    after: &'a Option<serde_json::Value>,
    fields: &'a [FieldChange],
    fingerprint: Option<String>,
    step: Option<usize>,
    /// The live name of an object renamed in place; only on such changes.
    #[serde(rename = "renamedFrom", skip_serializing_if = "Option::is_none")]
    renamed_from: Option<&'a str>,
}

/// A step as the rendering shows it: the saved step's members in their order, its operation as
/// the operation's kind shows it (a pipe rotation without the salt and fingerprints the saved
/// plan keeps, so the same plan renders the same bytes in every run).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StepOut<'a> {
    id: usize,
    address: &'a crate::address::AddressBuf,
    depends_on: &'a [usize],
    fingerprint: Option<Fingerprint>,
    operation: OperationOut<'a>,
}

/// An operation as its kind shows it ([`Shows`]).
struct OperationOut<'a>(&'a Operation);

impl Serialize for OperationOut<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        crate::plan::kinds::registry::kinds!(dispatch(self.0, op => Shows::show(op, serializer)))
    }
}

fn step_shown(step: &Step) -> StepOut<'_> {
    StepOut {
        id: step.id,
        address: &step.address,
        depends_on: &step.depends_on,
        fingerprint: step.fingerprint,
        operation: OperationOut(&step.operation),
    }
}

/// Renders the plan as pretty JSON with a trailing newline.
pub fn render(plan: &Plan) -> String {
    let mut bytes = Vec::new();
    // Serializing plain data with string keys into memory cannot fail; fall back to an empty
    // object anyway.
    if render_to(plan, &mut bytes).is_err() {
        return "{}\n".to_string();
    }
    String::from_utf8(bytes).unwrap_or_else(|_| "{}\n".to_string())
}

/// Writes the plan as pretty JSON with a trailing newline to `out` as it is produced (the same
/// bytes as [`render`]), never holding the whole document: `plan --format json` streams it.
pub fn render_to(plan: &Plan, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let document = Document {
        format: FORMAT,
        organization: &plan.organization,
        only: &plan.only,
        summary: plan.summary(),
        changes: Changes(plan),
        unmanaged: &plan.unmanaged,
        checks: &plan.checks,
        steps: Steps(&plan.steps),
        warnings: &plan.warnings,
        acknowledged: &plan.acknowledged,
    };
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, out);
    serde_json::to_writer_pretty(&mut out, &document)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// The plan's changes in display order, serialized one at a time.
struct Changes<'a>(&'a Plan);

impl Serialize for Changes<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.display_order().map(|c| ChangeOut {
            address: &c.address,
            action: c.action,
            reason: &c.reason,
            before: &c.before,
            after: &c.after,
            fields: &c.fields,
            fingerprint: c.fingerprint.map(|f| f.to_string()),
            step: c.step,
            renamed_from: c.renamed_from.as_deref(),
        }))
    }
}

/// The plan's steps as the rendering shows them, serialized one at a time.
struct Steps<'a>(&'a [Step]);

impl Serialize for Steps<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(step_shown))
    }
}
