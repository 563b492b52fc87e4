//! Progress on stderr: on a terminal, one line per running step with a spinner and the time it
//! has taken (indicatif), replaced by its outcome when it ends; elsewhere (CI, pipes) one plain
//! line per finished step.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressStyle};

use super::Status;
use crate::output::{Printer, Style};
use crate::plan::Step;

/// Reports steps starting and ending.
#[derive(Debug)]
pub struct Progress {
    printer: Printer,
    bars: Option<(MultiProgress, Mutex<BTreeMap<usize, ProgressBar>>)>,
    quiet: bool,
}

impl Progress {
    /// Spinners when stderr is a terminal, plain lines otherwise.
    pub fn new(printer: &Printer) -> Self {
        let bars = printer
            .is_terminal()
            .then(|| (MultiProgress::new(), Mutex::new(BTreeMap::new())));
        Progress {
            printer: printer.clone(),
            bars,
            quiet: false,
        }
    }

    /// No progress output at all (benchmarks).
    pub fn quiet() -> Self {
        Progress {
            printer: Printer::plain(),
            bars: None,
            quiet: true,
        }
    }

    /// A step started.
    pub fn start(&self, step: &Step) {
        let Some((multi, bars)) = &self.bars else {
            return;
        };
        let bar = multi.add(ProgressBar::new_spinner());
        if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
            bar.set_style(style);
        }
        bar.set_message(self.printer.shown(&format!(
            "{} {}",
            step.address,
            super::operation_name(&step.operation)
        )));
        bar.enable_steady_tick(Duration::from_millis(100));
        let mut bars = match bars.lock() {
            Ok(bars) => bars,
            Err(poisoned) => poisoned.into_inner(),
        };
        bars.insert(step.id, bar);
    }

    /// A step ended (or was skipped without starting).
    pub fn finish(&self, step: &Step, status: Status, message: Option<&str>) {
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
            super::operation_name(&step.operation)
        );
        if let Some(message) = message {
            line.push_str(&format!(": {message}"));
        }
        match &self.bars {
            Some((multi, bars)) => {
                let bar = {
                    let mut bars = match bars.lock() {
                        Ok(bars) => bars,
                        Err(poisoned) => poisoned.into_inner(),
                    };
                    bars.remove(&step.id)
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
