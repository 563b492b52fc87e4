//! Peak resident memory, read from `/proc` (Linux): no allocator hooks, no `unsafe`.
//!
//! In-process figures ([`isolated`]): a fresh process builds the inputs, the peak is reset
//! through `/proc/self/clear_refs` (writing `5` sets `VmHWM` back to the current `VmRSS`), the
//! work runs once, and `VmHWM` is read: the process's peak, and how far the work took it above
//! the resident size before it.
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

const ISOLATED: &str = "CONVERGE_BENCH_PEAK";

/// The peak resident memory of `setup` then `work`, measured in a fresh process (this bench
/// binary run again with `CONVERGE_BENCH_PEAK=<label>`), so memory freed by earlier work in
/// this process cannot hide it. Prints the process's peak and how far `work` took it above the
/// resident size `setup` left. Call it before any criterion benchmark of the same binary: the
/// child runs the bench function from its start and stops at the matching call.
pub fn isolated<S, T>(label: &str, setup: impl FnOnce() -> S, work: impl FnOnce(&S) -> T) {
    match std::env::var(ISOLATED) {
        Ok(wanted) if wanted == label => {
            let input = setup();
            let before = vm_kib("VmRSS");
            let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
            let output = work(&input);
            let peak = vm_kib("VmHWM");
            drop(output);
            match (before, peak) {
                (Some(before), Some(peak)) if reset => println!(
                    "peak memory: {label}: {:.1} MiB resident ({:.1} MiB of inputs, {:+.1} MiB \
                     for the work)",
                    mib(peak),
                    mib(before),
                    mib(peak.saturating_sub(before))
                ),
                (_, Some(peak)) => println!(
                    "peak memory: {label}: {:.1} MiB resident, inputs included",
                    mib(peak)
                ),
                _ => println!("peak memory: {label}: not measured (no /proc/self/status)"),
            }
            std::process::exit(0);
        }
        // Another measurement's child: only that one runs here.
        Ok(_) => {}
        Err(_) => {
            let child = std::env::current_exe().and_then(|exe| {
                Command::new(exe)
                    .args(std::env::args_os().skip(1))
                    .env(ISOLATED, label)
                    .output()
            });
            match child {
                Ok(output) => {
                    let text = String::from_utf8_lossy(&output.stdout);
                    let lines: Vec<&str> = text
                        .lines()
                        .filter(|line| line.starts_with("peak memory:"))
                        .collect();
                    if lines.is_empty() {
                        println!("peak memory: {label}: not measured (the child printed none)");
                    }
                    for line in lines {
                        println!("{line}");
                    }
                }
                Err(error) => println!("peak memory: {label}: not measured ({error})"),
            }
        }
    }
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
