//! Progress on stderr: on a terminal, one line per running step with a spinner, the time it has
//! taken and, while its API holds requests back, why (`waiting 6s for the cloud API's rate
//! limit`), replaced by its outcome when it ends (indicatif); elsewhere (CI, pipes) one plain
//! line for the phase and one per finished step. Why a step did not succeed is left to the
//! report, which says each reason once.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use indicatif::{HumanDuration, MultiProgress, ProgressBar, ProgressState, ProgressStyle};

use super::model::{Status, operation_name};
use crate::api::activity::{Activity, DisplayGuard};
use crate::api::clients::{CLOUD_API, OBSERVABILITY_API};
use crate::output::{Printer, SpinnerTerminal, Style, fit_stderr_line};
use crate::plan::{Operation, Step};

/// The spinners of the running steps, and the claim on showing waits while any runs.
#[derive(Debug, Default)]
struct Bars {
    running: BTreeMap<usize, ProgressBar>,
    showing_waits: Option<DisplayGuard>,
}

/// Says a line on stderr while steps may be running: above their spinners on a terminal (a line
/// written past them would leave their frames on screen), as a plain line elsewhere.
#[derive(Debug, Clone)]
pub(crate) struct Announcer {
    printer: Printer,
    multi: Option<MultiProgress>,
}

impl Announcer {
    /// Says `line`, masked.
    pub(crate) fn say(&self, line: &str) {
        match &self.multi {
            Some(multi) => {
                if multi.println(self.printer.shown(line)).is_err() {
                    self.printer.err(line);
                }
            }
            None => self.printer.err(line),
        }
    }
}

/// Reports steps starting and ending.
#[derive(Debug)]
pub struct Progress {
    printer: Printer,
    bars: Option<(MultiProgress, Mutex<Bars>)>,
    activity: Option<Arc<Activity>>,
    quiet: bool,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// The API a step's requests go to, as waits name it.
fn api_of(operation: &Operation) -> &'static str {
    match operation.target().stack().map(|stack| &stack.target) {
        Some(crate::plan::StackTarget::Observability) => OBSERVABILITY_API,
        Some(crate::plan::StackTarget::Managed { .. }) | None => CLOUD_API,
    }
}

impl Progress {
    /// Spinners when stderr is a terminal, plain lines otherwise.
    pub(crate) fn new(printer: &Printer) -> Self {
        let bars = printer.is_terminal().then(|| {
            let multi = MultiProgress::with_draw_target(SpinnerTerminal::target());
            (multi, Mutex::new(Bars::default()))
        });
        Progress {
            printer: printer.clone(),
            bars,
            activity: None,
            quiet: false,
        }
    }

    /// What says lines from elsewhere (a signal handler) without breaking the spinners.
    pub(crate) fn announcer(&self) -> Announcer {
        Announcer {
            printer: self.printer.clone(),
            multi: self.bars.as_ref().map(|(multi, _)| multi.clone()),
        }
    }

    /// Shows, on each running step's line, what its API is waiting for.
    pub(crate) fn with_activity(mut self, activity: Option<Arc<Activity>>) -> Self {
        self.activity = activity;
        self
    }

    /// No progress output at all (benchmarks).
    pub fn quiet() -> Self {
        Progress {
            printer: Printer::plain(),
            bars: None,
            activity: None,
            quiet: true,
        }
    }

    /// The apply phase begins with `steps` steps to run.
    pub(crate) fn begin(&self, steps: usize) {
        if let Some(activity) = &self.activity {
            activity.begin_phase();
        }
        if self.quiet || self.bars.is_some() {
            return;
        }
        let noun = if steps == 1 { "step" } else { "steps" };
        self.printer.err(&format!("applying {steps} {noun}…"));
    }

    /// A step started.
    pub(crate) fn start(&self, step: &Step) {
        let Some((multi, bars)) = &self.bars else {
            return;
        };
        let bar = multi.add(ProgressBar::new_spinner());
        let what = self.printer.shown(&format!(
            "{} {}",
            step.address,
            operation_name(&step.operation)
        ));
        let (activity, api) = (self.activity.clone(), api_of(&step.operation));
        // One line, cut to the terminal's width at each redraw (see `fit_stderr_line`).
        let line = move |state: &ProgressState, out: &mut dyn std::fmt::Write| {
            let mut text = format!("{what} ({:#})", HumanDuration(state.elapsed()));
            if let Some(wait) = activity.as_ref().and_then(|a| a.current(Some(api))) {
                text.push_str(&format!(": {}", wait.describe()));
            }
            let _ = out.write_str(&fit_stderr_line(&text, 2));
        };
        if let Ok(style) = ProgressStyle::with_template("{spinner} {line}") {
            bar.set_style(style.with_key("line", line));
        }
        bar.enable_steady_tick(Duration::from_millis(100));
        let mut bars = lock(bars);
        if bars.showing_waits.is_none() {
            bars.showing_waits = self.activity.as_ref().map(Activity::displaying);
        }
        bars.running.insert(step.id, bar);
    }

    /// A step ended (or was skipped without starting).
    pub(crate) fn finish(&self, step: &Step, status: Status, message: Option<&str>) {
        if self.quiet {
            return;
        }
        let style = match status {
            Status::Done => Style::Add,
            Status::Skipped | Status::NotStarted => Style::Dim,
            Status::Failed | Status::Stale => Style::Error,
        };
        // Padded before painting: escape codes would count as width.
        let mut line = format!(
            "{} {} ({})",
            self.printer
                .paint(&format!("{:<8}", status.as_str()), style),
            step.address,
            operation_name(&step.operation)
        );
        match message {
            // A note on a step that succeeded (`already gone`) is said only here.
            Some(message) if status == Status::Done => line.push_str(&format!(": {message}")),
            Some(_) if status == Status::NotStarted => {}
            // Why a step did not succeed is said once, in the report that ends the run, where
            // steps failing for one reason (every pipe of an idle service) share one line.
            Some(_) => line.push_str(": see below"),
            None => {}
        }
        match &self.bars {
            Some((multi, bars)) => {
                let bar = {
                    let mut bars = lock(bars);
                    let bar = bars.running.remove(&step.id);
                    if bars.running.is_empty() {
                        bars.showing_waits = None;
                    }
                    bar
                };
                match bar {
                    Some(bar) => {
                        let elapsed = bar.elapsed();
                        bar.finish_and_clear();
                        multi.remove(&bar);
                        let line = format!("{line} [{:.1}s]", elapsed.as_secs_f64());
                        let _ = multi.println(self.printer.shown(&line));
                    }
                    None => {
                        let _ = multi.println(self.printer.shown(&line));
                    }
                }
            }
            None => self.printer.err(&line),
        }
    }
}
