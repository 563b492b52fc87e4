//! The rules of a service's `scaling:` that the cloud document states and a config can break on
//! its own: the deprecated totals (a warning naming the per-replica member, their multiple and
//! order), never mixed with the per-replica members, per-replica memory's multiple and order,
//! and the autoscaling mode's exclusive members. What needs the live service (its current
//! mode, first in its warehouse, paid or not) is checked at plan time.

use crate::api::limits;

use super::model::{Located, ServiceScaling};
use crate::diagnostic::{Code, Diagnostic, Span};

/// Runs every rule of one service's scaling.
pub(crate) fn check(scaling: &ServiceScaling, diags: &mut Vec<Diagnostic>) {
    totals(scaling, diags);
    if mixed(scaling, diags) {
        return;
    }
    let memory = [
        ("minReplicaMemoryGb", &scaling.min_replica_memory_gb),
        ("maxReplicaMemoryGb", &scaling.max_replica_memory_gb),
    ];
    for (name, value) in memory {
        if let Some(value) = value {
            multiple(name, value, limits::SERVICE_REPLICA_MEMORY_STEP_GB, diags);
        }
    }
    ordered(
        ("minReplicaMemoryGb", &scaling.min_replica_memory_gb),
        ("maxReplicaMemoryGb", &scaling.max_replica_memory_gb),
        diags,
    );
    ordered(
        ("minReplicas", &scaling.min_replicas),
        ("maxReplicas", &scaling.max_replicas),
        diags,
    );
    mode(scaling, diags);
}

/// The deprecated totals: a warning naming the per-replica member, a multiple of 12, in order.
fn totals(scaling: &ServiceScaling, diags: &mut Vec<Diagnostic>) {
    let fields = [
        (
            "minTotalMemoryGb",
            "minReplicaMemoryGb",
            &scaling.min_total_memory_gb,
        ),
        (
            "maxTotalMemoryGb",
            "maxReplicaMemoryGb",
            &scaling.max_total_memory_gb,
        ),
    ];
    for (name, replacement, value) in fields {
        let Some(value) = value else { continue };
        diags.push(
            Diagnostic::warning(
                Code::SemanticDeprecated,
                format!("`{name}` is deprecated and inaccurate when the replica count is not the default"),
                Some(value.span),
            )
            .with_label("deprecated")
            .with_help(format!(
                "write `{replacement}` instead: the memory of each replica (the total divided by the replica count, e.g. {} for {} over 3 replicas), sent through replicaScaling",
                value.value / 3.0,
                value.value
            )),
        );
        multiple(name, value, limits::SERVICE_MEMORY_STEP_GB, diags);
    }
    ordered(
        ("minTotalMemoryGb", &scaling.min_total_memory_gb),
        ("maxTotalMemoryGb", &scaling.max_total_memory_gb),
        diags,
    );
}

/// A member that is not a multiple of `step`, with the nearest allowed values.
fn multiple(name: &str, value: &Located<f64>, step: f64, diags: &mut Vec<Diagnostic>) {
    if value.value % step == 0.0 {
        return;
    }
    let below = (value.value / step).floor() * step;
    let above = below + step;
    diags.push(
        Diagnostic::error(
            Code::SemanticMemoryMultiple,
            format!("`{name}` must be a multiple of {step}, not {}", value.value),
            Some(value.span),
        )
        .with_label(format!("not a multiple of {step}"))
        .with_help(format!(
            "the nearest allowed values are {below} and {above}"
        )),
    );
}

/// A `max*` member smaller than its `min*`.
fn ordered(
    (min_name, min): (&str, &Option<Located<f64>>),
    (max_name, max): (&str, &Option<Located<f64>>),
    diags: &mut Vec<Diagnostic>,
) {
    let (Some(min), Some(max)) = (min, max) else {
        return;
    };
    if min.value <= max.value {
        return;
    }
    diags.push(
        Diagnostic::error(
            Code::SemanticMinMax,
            format!(
                "`{max_name}` ({}) is smaller than `{min_name}` ({})",
                max.value, min.value
            ),
            Some(max.span),
        )
        .with_label("smaller than the minimum")
        .with_related(min.span, "minimum here")
        .with_help(format!("make `{min_name}` at most `{max_name}`")),
    );
}

/// The members only `replicaScaling` takes, where written.
fn replica_members(scaling: &ServiceScaling) -> Vec<(&'static str, Span)> {
    let numbers = [
        ("minReplicaMemoryGb", &scaling.min_replica_memory_gb),
        ("maxReplicaMemoryGb", &scaling.max_replica_memory_gb),
        ("minReplicas", &scaling.min_replicas),
        ("maxReplicas", &scaling.max_replicas),
    ];
    let mode = scaling
        .autoscaling_mode
        .as_ref()
        .map(|m| ("autoscalingMode", m.span));
    mode.into_iter()
        .chain(
            numbers
                .into_iter()
                .filter_map(|(name, v)| v.as_ref().map(|v| (name, v.span))),
        )
        .collect()
}

/// A deprecated total beside a per-replica member: one scaling goes through one route.
/// Returns whether it reported one.
fn mixed(scaling: &ServiceScaling, diags: &mut Vec<Diagnostic>) -> bool {
    let total = [
        ("minTotalMemoryGb", &scaling.min_total_memory_gb),
        ("maxTotalMemoryGb", &scaling.max_total_memory_gb),
    ]
    .into_iter()
    .find_map(|(name, v)| v.as_ref().map(|v| (name, v.span)));
    let Some((total, total_span)) = total else {
        return false;
    };
    let Some((member, span)) = replica_members(scaling).into_iter().next() else {
        return false;
    };
    diags.push(
        Diagnostic::error(
            Code::SemanticScalingMixed,
            format!("`{member}` is written beside the deprecated `{total}`"),
            Some(span),
        )
        .with_label("a per-replica member")
        .with_related(total_span, "deprecated total here")
        .with_help(
            "write the per-replica members only (minReplicaMemoryGb, maxReplicaMemoryGb), or \
             the deprecated totals only",
        ),
    );
    true
}

/// The autoscaling mode's exclusive members: `numReplicas` never beside a band, a band with
/// both ends, an unequal band only in horizontal mode, a fixed memory in horizontal mode.
fn mode(scaling: &ServiceScaling, diags: &mut Vec<Diagnostic>) {
    let mode = scaling.autoscaling_mode.as_ref().map(|m| m.value.as_str());
    let mut report = |span: Span, message: String, label: &str, help: &str| {
        diags.push(
            Diagnostic::error(Code::SemanticScalingMode, message, Some(span))
                .with_label(label.to_string())
                .with_help(help.to_string()),
        );
    };
    let band = (&scaling.min_replicas, &scaling.max_replicas);
    if let (Some(fixed), (Some(_), _) | (_, Some(_))) = (&scaling.num_replicas, band) {
        report(
            fixed.span,
            "`numReplicas` is written beside `minReplicas`/`maxReplicas`".into(),
            "a vertical fixed count",
            "numReplicas is vertical autoscaling's, minReplicas/maxReplicas horizontal's: write one",
        );
        return;
    }
    match band {
        (Some(min), None) | (None, Some(min)) => {
            let (written, missing) = if scaling.min_replicas.is_some() {
                ("minReplicas", "maxReplicas")
            } else {
                ("maxReplicas", "minReplicas")
            };
            report(
                min.span,
                format!("`{written}` is written without `{missing}`"),
                "one end of the band",
                "write both ends of the replica band",
            );
            return;
        }
        (Some(min), Some(max)) if min.value != max.value && mode == Some("vertical") => report(
            min.span,
            format!(
                "a replica band of {} to {} in vertical autoscaling, which runs a fixed count",
                min.value, max.value
            ),
            "an unequal band",
            "write autoscalingMode: horizontal, or numReplicas for a fixed count",
        ),
        _ => {}
    }
    if mode != Some("horizontal") {
        return;
    }
    if let Some(fixed) = &scaling.num_replicas {
        report(
            fixed.span,
            "`numReplicas` in horizontal autoscaling, which scales the replica count".into(),
            "vertical only",
            "write minReplicas and maxReplicas instead",
        );
    }
    if let (Some(min), Some(max)) = (
        &scaling.min_replica_memory_gb,
        &scaling.max_replica_memory_gb,
    ) && min.value != max.value
    {
        report(
            max.span,
            format!(
                "a memory range of {} to {} GB per replica in horizontal autoscaling, which fixes it",
                min.value, max.value
            ),
            "unequal to minReplicaMemoryGb",
            "make minReplicaMemoryGb and maxReplicaMemoryGb equal",
        );
    }
}
