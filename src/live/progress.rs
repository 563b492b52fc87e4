//! What reading the live state shows while it runs. On a terminal (and without `-v`, whose logs
//! would tear through it), one spinner line on stderr: `reading 24 lists (10 read)… waiting 8s
//! for the cloud API's rate limit`. Elsewhere (CI, pipes) one plain line for the phase; waits
//! worth a word are then said by the transport itself (see [`crate::api::activity`]).

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressState, ProgressStyle};

use crate::api::activity::{Activity, DisplayGuard};
use crate::output::{Printer, SpinnerTerminal, fit_stderr_line};

/// The message, even if a redraw panicked while holding it.
fn lock(message: &Mutex<String>) -> MutexGuard<'_, String> {
    message
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The spinner (or the plain line) of one live read.
pub(crate) struct ReadProgress {
    bar: Option<(ProgressBar, Arc<Mutex<String>>, DisplayGuard)>,
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
                let message = Arc::new(Mutex::new(String::from("the live state")));
                let (shown, said) = (activity.clone(), message.clone());
                // One line, cut to the terminal's width at each redraw (see `fit_stderr_line`).
                let line = move |_: &ProgressState, out: &mut dyn std::fmt::Write| {
                    let mut text = format!("reading {}…", lock(&said));
                    if let Some(wait) = shown.current(None) {
                        text.push_str(&format!(" {}", wait.describe()));
                    }
                    let _ = out.write_str(&fit_stderr_line(&text, 2));
                };
                let bar = ProgressBar::with_draw_target(None, SpinnerTerminal::target());
                if let Ok(style) = ProgressStyle::with_template("{spinner} {line}") {
                    bar.set_style(style.with_key("line", line));
                }
                bar.enable_steady_tick(Duration::from_millis(100));
                Some((bar, message, activity.displaying()))
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
        if let Some((bar, message, _)) = &self.bar {
            let lists = if total == 1 { "list" } else { "lists" };
            *lock(message) = format!("{total} {lists} ({read} read)");
            bar.tick();
        }
    }

    /// Clears the spinner (the plan or the errors come next).
    pub(crate) fn finish(self) {
        if let Some((bar, _, guard)) = self.bar {
            bar.finish_and_clear();
            drop(guard);
        }
    }
}
