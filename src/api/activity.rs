//! What the transport is waiting for: its own pacing under a key's rate limit, or a wait the
//! server asked for. Requests record their waits here; whatever shows progress reads them (a
//! spinner line on a terminal says `waiting 8s for the cloud API's rate limit`). While no
//! spinner is drawing, the waits worth a word go to the reporter as lines (stderr) instead: the
//! first pacing wait of each API in a phase, and the first wait a server asked for; the further
//! waits a server asked for in that phase are counted and said in one line when it ends (the next
//! phase, or the end of the run), so back-to-back 429s do not fill the log with a line each.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use super::report::Reporter;

/// Waits shorter than this are not worth a word in plain output.
const NOTEWORTHY: Duration = Duration::from_millis(500);

/// Why requests of an API are held back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WaitReason {
    /// converge paces itself under the key's rate limit (or a window the server said is used up).
    RateLimit,
    /// The server answered 429 or 503 and asked for this wait (`Retry-After`,
    /// `X-RateLimit-Reset`).
    ServerAsked,
    /// A retry after a failure, waiting out its backoff.
    Retry,
}

/// The longest wait of one API right now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Wait {
    /// The API, e.g. `the cloud API`.
    pub api: String,
    /// Why.
    pub reason: WaitReason,
    /// Time left.
    pub left: Duration,
}

impl Wait {
    /// `waiting 8s for the cloud API's rate limit`, for spinner lines.
    pub(crate) fn describe(&self) -> String {
        let seconds = self.left.as_secs_f64().ceil().max(1.0) as u64;
        match self.reason {
            WaitReason::RateLimit => {
                format!("waiting {seconds}s for {}'s rate limit", self.api)
            }
            WaitReason::ServerAsked => {
                format!("waiting {seconds}s: {} asked to wait", self.api)
            }
            WaitReason::Retry => format!("retrying {} in {seconds}s", self.api),
        }
    }
}

#[derive(Debug)]
struct Waiting {
    count: usize,
    until: Instant,
    reason: WaitReason,
}

#[derive(Debug, Default)]
struct State {
    /// Spinners drawing now; while any is, waits are shown there, not printed.
    displays: usize,
    /// Requests waiting now, by API.
    waits: BTreeMap<String, Waiting>,
    /// APIs whose pacing was already said in this phase (plain output).
    said: BTreeSet<String>,
    /// APIs whose first asked-for wait was said in this phase, with the further ones not said
    /// (plain output): how many, and their seconds in all.
    asked: BTreeMap<String, (usize, u64)>,
}

impl State {
    /// The line that sums up the asked-for waits of this phase not said one by one, and a new
    /// count.
    fn take_asked(&mut self) -> Vec<String> {
        std::mem::take(&mut self.asked)
            .into_iter()
            .filter(|(_, (more, _))| *more > 0)
            .map(|(api, (more, seconds))| {
                let times = if more == 1 { "time" } else { "times" };
                format!("{api} asked to wait {more} more {times} ({seconds}s in all)")
            })
            .collect()
    }
}

/// The waits of every request of one run. Shared by the transport and the progress displays.
#[derive(Debug)]
pub(crate) struct Activity {
    reporter: Arc<dyn Reporter>,
    state: Mutex<State>,
}

impl Activity {
    /// Nothing waiting yet; plain lines go to `reporter`.
    pub(crate) fn new(reporter: Arc<dyn Reporter>) -> Self {
        Activity {
            reporter,
            state: Mutex::new(State::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        match self.state.lock() {
            Ok(state) => state,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// A new phase (reading, applying, waiting for scaling): the last one's further asked-for
    /// waits are summed up, and the new one's first waits are said again.
    pub(crate) fn begin_phase(&self) {
        self.lock().said.clear();
        self.sum_up_asked();
    }

    /// Says the line that sums up this phase's further asked-for waits, if there were any.
    fn sum_up_asked(&self) {
        let lines = self.lock().take_asked();
        for line in lines {
            self.reporter.on_wait(&line);
        }
    }

    /// While the returned guard lives a spinner shows the waits, so none is printed as a line.
    pub(crate) fn displaying(self: &Arc<Self>) -> DisplayGuard {
        self.lock().displays += 1;
        DisplayGuard {
            activity: self.clone(),
        }
    }

    /// A request of `api` waits until `until`; `detail` is what a plain line says about it
    /// (`10 requests per 10s`, or the server's answer). The wait counts until the guard drops.
    pub(crate) fn wait(
        self: &Arc<Self>,
        api: &str,
        until: Instant,
        reason: WaitReason,
        detail: &str,
    ) -> WaitGuard {
        let left = until.saturating_duration_since(Instant::now());
        let line = {
            let mut state = self.lock();
            let entry = state.waits.entry(api.to_string()).or_insert(Waiting {
                count: 0,
                until,
                reason,
            });
            entry.count += 1;
            if until >= entry.until {
                entry.until = until;
                entry.reason = reason;
            }
            let quiet = state.displays > 0 || left < NOTEWORTHY;
            match reason {
                _ if quiet => None,
                WaitReason::RateLimit => state.said.insert(api.to_string()).then(|| {
                    format!("waiting for {api}'s rate limit ({detail}); this phase takes longer")
                }),
                WaitReason::ServerAsked => {
                    let seconds = left.as_secs_f64().ceil() as u64;
                    match state.asked.get_mut(api) {
                        Some((more, total)) => {
                            *more += 1;
                            *total += seconds;
                            None
                        }
                        None => {
                            state.asked.insert(api.to_string(), (0, 0));
                            Some(format!(
                                "waiting {seconds}s: {api} asked to wait ({detail})"
                            ))
                        }
                    }
                }
                WaitReason::Retry => None,
            }
        };
        if let Some(line) = line {
            self.reporter.on_wait(&line);
        }
        WaitGuard {
            activity: self.clone(),
            api: api.to_string(),
        }
    }

    /// A line about a wait the caller runs itself (a pipe stopping, a pipe provisioning), said
    /// to the user as a request's waits are.
    pub(crate) fn say(&self, line: &str) {
        self.reporter.on_wait(line);
    }

    /// The longest wait now, of `api` only when given.
    pub(crate) fn current(&self, api: Option<&str>) -> Option<Wait> {
        let now = Instant::now();
        let state = self.lock();
        state
            .waits
            .iter()
            .filter(|(name, waiting)| {
                waiting.count > 0
                    && waiting.until > now
                    && api.is_none_or(|api| api == name.as_str())
            })
            .max_by_key(|(_, waiting)| waiting.until)
            .map(|(name, waiting)| Wait {
                api: name.clone(),
                reason: waiting.reason,
                left: waiting.until - now,
            })
    }
}

impl Drop for Activity {
    /// The run is over: its last phase's further asked-for waits are summed up.
    fn drop(&mut self) {
        self.sum_up_asked();
    }
}

/// Ends a spinner's claim on showing waits when dropped.
#[derive(Debug)]
pub(crate) struct DisplayGuard {
    activity: Arc<Activity>,
}

impl Drop for DisplayGuard {
    fn drop(&mut self) {
        let mut state = self.activity.lock();
        state.displays = state.displays.saturating_sub(1);
    }
}

/// Ends one request's wait when dropped.
#[derive(Debug)]
pub(crate) struct WaitGuard {
    activity: Arc<Activity>,
    api: String,
}

impl Drop for WaitGuard {
    fn drop(&mut self) {
        let mut state = self.activity.lock();
        let done = match state.waits.get_mut(self.api.as_str()) {
            Some(waiting) => {
                waiting.count = waiting.count.saturating_sub(1);
                waiting.count == 0
            }
            None => false,
        };
        if done {
            state.waits.remove(self.api.as_str());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::report::recorder::Recorder;

    #[tokio::test]
    async fn the_longest_wait_shows_until_its_request_goes() {
        let reporter = Arc::new(Recorder::default());
        let activity = Arc::new(Activity::new(reporter.clone()));
        let now = Instant::now();
        let first = activity.wait(
            "the cloud API",
            now + Duration::from_secs(8),
            WaitReason::RateLimit,
            "10 requests per 10s",
        );
        let second = activity.wait(
            "the observability API",
            now + Duration::from_secs(3),
            WaitReason::ServerAsked,
            "429",
        );
        let shown = activity.current(None).unwrap();
        assert_eq!(shown.api, "the cloud API");
        assert_eq!(
            shown.describe(),
            "waiting 8s for the cloud API's rate limit"
        );
        assert_eq!(
            activity
                .current(Some("the observability API"))
                .unwrap()
                .describe(),
            "waiting 3s: the observability API asked to wait"
        );
        drop(first);
        assert_eq!(activity.current(None).unwrap().api, "the observability API");
        drop(second);
        assert_eq!(activity.current(None), None);
    }

    #[tokio::test]
    async fn plain_lines_say_a_phase_s_first_pacing_wait_and_its_first_asked_for_wait() {
        let reporter = Arc::new(Recorder::default());
        let activity = Arc::new(Activity::new(reporter.clone()));
        let in_8s = || Instant::now() + Duration::from_secs(8);
        let pace = || {
            activity.wait(
                "the cloud API",
                in_8s(),
                WaitReason::RateLimit,
                "10 requests per 10s",
            )
        };
        drop(pace());
        drop(pace());
        let asked = || activity.wait("the cloud API", in_8s(), WaitReason::ServerAsked, "429");
        drop(asked());
        drop(activity.wait("the cloud API", in_8s(), WaitReason::Retry, ""));
        let spinner = activity.displaying();
        drop(asked());
        drop(spinner);
        // Two more in this phase: counted, said in one line when the phase ends.
        drop(asked());
        drop(asked());
        activity.begin_phase();
        drop(pace());
        drop(asked());
        drop(asked());
        let paced = "wait: waiting for the cloud API's rate limit (10 requests per 10s); this \
                     phase takes longer";
        let first = "wait: waiting 8s: the cloud API asked to wait (429)";
        assert_eq!(
            reporter.lines(),
            [
                paced,
                first,
                "wait: the cloud API asked to wait 2 more times (16s in all)",
                paced,
                first,
            ]
        );
        drop(activity);
        assert_eq!(
            reporter.lines().last().map(String::as_str),
            Some("wait: the cloud API asked to wait 1 more time (8s in all)"),
            "the last phase's are summed up when the run ends"
        );
    }
}
