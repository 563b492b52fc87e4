//! Peak resident memory, read from `/proc` (Linux): no allocator hooks, no `unsafe`.
//!
//! In-process figures ([`measure`]): the peak is reset through `/proc/self/clear_refs` (writing
//! `5` sets `VmHWM` back to the current `VmRSS`), the work runs once, and `VmHWM` is read: the
//! process's peak while the work ran, and how far it rose above the resident size before it.
//! Child-process figures ([`timed_command`]): `/usr/bin/time -f %M` reports the child's peak.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

const TIME: &str = "/usr/bin/time";

/// A `Vm*` line of `/proc/self/status`, in KiB.
pub fn vm_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status.lines().find_map(|line| {
        let rest = line.strip_prefix(field)?.strip_prefix(':')?;
        rest.trim().trim_end_matches("kB").trim().parse().ok()
    })
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// Runs `work` once and prints the process's peak resident memory while it ran.
pub fn measure<T>(label: &str, work: impl FnOnce() -> T) -> T {
    let before = vm_kib("VmRSS");
    let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    let out = work();
    match (before, vm_kib("VmHWM")) {
        (Some(before), Some(peak)) if reset => println!(
            "peak memory: {label}: {:.1} MiB resident ({:+.1} MiB over the {:.1} MiB before)",
            mib(peak),
            mib(peak.saturating_sub(before)),
            mib(before)
        ),
        (_, Some(peak)) => println!(
            "peak memory: {label}: {:.1} MiB resident since the process started \
             (/proc/self/clear_refs not writable)",
            mib(peak)
        ),
        _ => println!("peak memory: {label}: not measured (no /proc/self/status)"),
    }
    out
}

/// `program` run under `/usr/bin/time -f %M -o report`, when that tool exists, so the child's
/// peak resident memory can be read back with [`child_peak_kib`]; the plain program otherwise.
pub fn timed_command(program: &Path, report: &Path) -> Command {
    if Path::new(TIME).exists() {
        let mut command = Command::new(TIME);
        command
            .arg("-f")
            .arg("%M")
            .arg("-o")
            .arg(report)
            .arg(program);
        command
    } else {
        Command::new(program)
    }
}

/// The peak (KiB) `/usr/bin/time` wrote to `report`, if it ran.
pub fn child_peak_kib(report: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(report).ok()?;
    text.lines().rev().find_map(|line| line.trim().parse().ok())
}

/// A child's peak as text for the bench output.
pub fn describe_child_peak(peaks: &[u64]) -> String {
    match peaks.iter().max() {
        Some(max) => format!(
            "{:.1} MiB resident (largest of {} runs)",
            mib(*max),
            peaks.len()
        ),
        None => format!("not measured ({TIME} is missing)"),
    }
}

/// Prints the process's peak resident memory since it started.
pub fn report_process_peak(label: &str) {
    match vm_kib("VmHWM") {
        Some(peak) => println!("peak memory: {label}: {:.1} MiB resident", mib(peak)),
        None => println!("peak memory: {label}: not measured (no /proc/self/status)"),
    }
}
