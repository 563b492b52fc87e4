//! `converge validate`: offline checks of configuration files. No network, no secrets needed:
//! an unset `${env:...}` is a warning here.

use crate::config::render;
use crate::config::{self, LoadMode};
use crate::error::{Error, Result};
use crate::exit::Exit;
use crate::format::{Choices, Format};
use crate::output::Printer;

/// Flags of `converge validate`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Exit codes:\n  0  valid (warnings allowed)\n  1  errors\n\n\
    Examples:\n  converge validate examples/quickstart.yaml\n  \
    converge validate examples/production --format json\n  \
    converge validate --expand examples/templates.yaml"
)]
pub(crate) struct Args {
    /// Config files or directories of `*.yaml`/`*.yml` files (merged; a key defined twice is an error).
    #[arg(required = true)]
    pub paths: Vec<std::path::PathBuf>,
    /// How to print problems: `text` (stderr, value underlined) or `json` (an array on stdout).
    #[arg(long, default_value = "text", value_parser = Choices::VALIDATE)]
    pub format: Format,
    /// Also print the config with its templates expanded (YAML on stdout, each instance marked
    /// with its template), `${env:...}` as written; only when the config is valid.
    #[arg(long, conflicts_with = "format")]
    pub expand: bool,
}

/// Runs `converge validate`: exit 0 when valid (warnings allowed), 1 otherwise.
pub(crate) fn run(args: Args, printer: &Printer) -> Result<Exit> {
    let loaded = config::load(&args.paths, LoadMode::Offline);
    if let Some(config) = &loaded.config {
        crate::commands::session::mask_secrets(config, printer);
    }
    render::render(&loaded.diagnostics, &loaded.sources, args.format, printer);
    let errors = loaded.error_count();
    let warnings = loaded.warning_count();
    if errors > 0 {
        return Err(Error::Config { count: errors });
    }
    if args.expand
        && let Some(yaml) = loaded.expanded_yaml()
    {
        printer.out(&yaml);
    }
    let files = loaded.sources.files.len();
    printer.err(&format!("valid: {files} file(s), {warnings} warning(s)"));
    Ok(Exit::Success)
}
