//! The one fact converge keeps about a pipe it stopped for a change (a table-mapping edit):
//! a tag on its service, set before the stop and removed once the pipe runs again. A run
//! killed in between leaves the tag, and the next plan resumes the pipe unless the config
//! says `state: stopped` (issue 41, part 4). A pipe stores nothing free-form, so its service's
//! tags are where a converge fact about it lives between runs, as its credentials version does.

use crate::api::wire::Service;

/// The service tag that says converge stopped pipe `pipe_id` for a change and has not started
/// it again yet.
pub(crate) fn paused_tag(pipe_id: &str) -> String {
    format!("converge.paused-for-change.{pipe_id}")
}

/// Whether the service carries [`paused_tag`] for pipe `pipe_id`.
pub(crate) fn paused_by_converge(service: &Service, pipe_id: &str) -> bool {
    let key = paused_tag(pipe_id);
    service.tags.iter().any(|tag| tag.key == key)
}
