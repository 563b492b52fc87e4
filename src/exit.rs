//! Exit codes, the same for every command (DESIGN section 4).

use std::process::ExitCode;

/// How a command ended, as the process exit code scripts and CI read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Exit {
    /// Success; nothing to change (plan), in sync (drift).
    Success = 0,
    /// An error: config, network, API, partial apply.
    Error = 1,
    /// Changes planned (`plan --detailed-exitcode`) or drift found (`drift`).
    Changes = 2,
    /// A saved plan is stale: live objects changed since it was made.
    Stale = 3,
    /// Refused: a destroy without `--allow-destroy`, a confirmation declined at the prompt, or
    /// a confirmation needed with no terminal.
    Refused = 4,
    /// `drift --write`/`--diff`: drift found, and some of it must be written into the config
    /// by hand (listed on stderr: values behind anchors, `${env:...}`, templates, secrets).
    ManualEdits = 5,
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> Self {
        ExitCode::from(exit as u8)
    }
}
