//! Why `converge apply --plan FILE` refuses a saved plan: the checks a saved plan passes before
//! a step is written (`connect`, `session` and `apply` raise them).

use std::path::PathBuf;

use crate::api::transport::ApiSetupError;
use crate::apply::fresh::ReadError;
use crate::diagnostic::Code;
use crate::error::CommandError;
use crate::plan::saved::LoadError;

/// Why `converge apply --plan FILE` refused a saved plan, or cannot connect to apply it.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub(crate) enum SavedPlanError {
    /// The file cannot be read as a saved plan.
    #[error("`{}`: {cause}", crate::output::path_text(path))]
    #[diagnostic(help("save a plan with `converge plan PATH... --out FILE`"))]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why it cannot be read.
        cause: LoadError,
    },
    /// With a config given, the plan's steps write to objects the config does not name.
    #[error(
        "`{}` writes to other objects than the config names; nothing was written:\n{}",
        crate::output::path_text(path),
        listed(problems)
    )]
    #[diagnostic(help(
        "a saved plan applies only with the config it was made from, unedited: plan again \
         from this config (`converge plan PATH... --out FILE`), review the new plan and apply it"
    ))]
    OtherObjects {
        /// The file.
        path: PathBuf,
        /// One line per step that does not fit the config.
        problems: Vec<String>,
    },
    /// The run connects to another organization than the plan was made for.
    #[error(
        "`{}` was made for organization {planned}, but this run connects to organization \
         {connected} (from {origin}); nothing was written",
        crate::output::path_text(path)
    )]
    #[diagnostic(help(
        "apply it with the config or environment of the organization it was made for"
    ))]
    OtherOrganization {
        /// The file.
        path: PathBuf,
        /// The organization the plan was made for.
        planned: String,
        /// The organization this run connects to.
        connected: String,
        /// Where this run's organization comes from: the sandbox, the config, a variable.
        origin: String,
    },
    /// The plan writes to an API the run has no settings for.
    #[error(
        "`{}` writes to {api}, which the config given does not set up; nothing was written",
        crate::output::path_text(path)
    )]
    ApiNotSetUp {
        /// The file.
        path: PathBuf,
        /// Which API, e.g. "the cloud API".
        api: &'static str,
    },
    /// With no config given, a `CONVERGE_*` variable the plan's APIs need is not set.
    #[error("applying a saved plan needs `{variable}`, which is not set")]
    #[diagnostic(help(
        "export {variable}, or give the config after the plan file: `converge apply --plan FILE \
         PATH...`"
    ))]
    MissingVariable {
        /// The variable.
        variable: &'static str,
    },
    /// A `CONVERGE_*_URL` variable that cannot be used to make a client.
    #[error("`{variable}` cannot be used: {problem}")]
    UnusableVariable {
        /// The variable.
        variable: &'static str,
        /// Why.
        problem: ApiSetupError,
    },
    /// The config given cannot be connected with; the diagnostics were already printed.
    #[error("cannot connect with the config given ({errors} error(s) above); nothing was written")]
    CannotConnect {
        /// How many errors were reported.
        errors: usize,
    },
    /// The reads that check the plan against the live state failed.
    #[error("cannot read the live state to check the saved plan: {cause}")]
    Precheck {
        /// The read that failed.
        cause: ReadError,
    },
    /// The steps write other than the changes show, as only the live state can tell.
    #[error(
        "the saved plan's steps are not what its changes show (was the file edited?); nothing \
         was written:\n{}",
        listed(disagreements)
    )]
    #[diagnostic(help("run `converge plan --out FILE` again and review the new plan"))]
    Edited {
        /// One line per disagreement.
        disagreements: Vec<String>,
    },
}

impl CommandError for SavedPlanError {
    fn code(&self) -> Code {
        match self {
            SavedPlanError::Unreadable { .. } => Code::SavedPlanUnreadable,
            SavedPlanError::OtherObjects { .. } => Code::SavedPlanOtherObjects,
            SavedPlanError::OtherOrganization { .. } => Code::SavedPlanOtherOrganization,
            SavedPlanError::ApiNotSetUp { .. } => Code::SavedPlanApiNotSetUp,
            SavedPlanError::MissingVariable { .. } | SavedPlanError::UnusableVariable { .. } => {
                Code::SavedPlanVariable
            }
            SavedPlanError::CannotConnect { .. } => Code::SavedPlanCannotConnect,
            SavedPlanError::Precheck { .. } => Code::SavedPlanPrecheck,
            SavedPlanError::Edited { .. } => Code::SavedPlanEdited,
        }
    }
}

/// Problems as a list under a message, one `  - ` line each.
fn listed(problems: &[String]) -> String {
    problems
        .iter()
        .map(|problem| format!("  - {problem}"))
        .collect::<Vec<_>>()
        .join("\n")
}
