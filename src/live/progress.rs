//! What reading the live state shows while it runs. On a terminal (and without `-v`, whose logs
//! would tear through it), one spinner line on stderr: `reading 24 lists (10 read)… waiting 8s
//! for the cloud API's rate limit`. Elsewhere (CI, pipes) one plain line for the phase; waits
//! worth a word are then said by the transport itself (see [`crate::api::activity`]).

use std::sync::Arc;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressState, ProgressStyle};

use crate::api::activity::{Activity, DisplayGuard};
use crate::output::Printer;

/// The spinner (or the plain line) of one live read.
pub(crate) struct ReadProgress {
    bar: Option<(ProgressBar, DisplayGuard)>,
}

impl ReadProgress {
    /// Starts showing progress; `what` says what is read, for the plain line.
    pub(crate) fn start(printer: &Printer, activity: Option<Arc<Activity>>, what: &str) -> Self {
        if let Some(activity) = &activity {
            activity.begin_phase();
        }
        let spinner = printer.is_terminal() && printer.verbosity() == 0;
        let bar = match activity {
            Some(activity) if spinner => {
                let shown = activity.clone();
                let wait = move |_: &ProgressState, out: &mut dyn std::fmt::Write| {
                    if let Some(wait) = shown.current(None) {
                        let _ = write!(out, " {}", wait.describe());
                    }
                };
                let bar = ProgressBar::new_spinner();
                if let Ok(style) = ProgressStyle::with_template("{spinner} reading {msg}…{wait}")
                    .map(|style| style.with_key("wait", wait))
                {
                    bar.set_style(style);
                }
                bar.set_message("the live state");
                bar.enable_steady_tick(Duration::from_millis(100));
                Some((bar, activity.displaying()))
            }
            _ => {
                printer.err(&format!("reading the live state of {what}…"));
                None
            }
        };
        ReadProgress { bar }
    }

    /// `total` lists are known so far, `read` of them are in.
    pub(crate) fn update(&self, read: usize, total: usize) {
        if let Some((bar, _)) = &self.bar {
            let lists = if total == 1 { "list" } else { "lists" };
            bar.set_message(format!("{total} {lists} ({read} read)"));
        }
    }

    /// Clears the spinner (the plan or the errors come next).
    pub(crate) fn finish(self) {
        if let Some((bar, guard)) = self.bar {
            bar.finish_and_clear();
            drop(guard);
        }
    }
}
