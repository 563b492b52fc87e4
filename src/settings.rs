//! The flags every command shares, and the one place they are resolved, together with the
//! environment (`NO_COLOR`, `CONVERGE_SANDBOX_RATE_LIMIT`, `CONVERGE_*_RATE_LIMIT`), into plain
//! settings, as uv's `GlobalSettings` does: the printer and the layers below see values, never
//! clap types. Each command's own flags live beside its code in `commands/`.

use std::ffi::OsStr;

use clap::{Args, ValueEnum};

use crate::api::clients::{RateLimitEnvError, RateLimits};
use crate::error::Result;
use crate::output::{ColorMode, PrinterOptions};
use crate::plan::pipeline::Options;
use crate::sandbox::Generation;

/// Flags every command takes, before or after the command's name.
#[derive(Debug, Clone, Args)]
pub(crate) struct GlobalArgs {
    /// When to color output (`NO_COLOR` is respected under `auto`).
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Log more to stderr: `-v` for requests, `-vv` for everything.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

/// When to color output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColorChoice {
    /// Color each stream (stdout, stderr) only when it is a terminal and `NO_COLOR` is unset.
    Auto,
    /// Always color.
    Always,
    /// Never color.
    Never,
}

impl GlobalArgs {
    /// What these flags and the environment decide for the printer: `NO_COLOR` set (and not
    /// empty) turns `auto` off.
    pub(crate) fn resolve(&self) -> PrinterOptions {
        self.resolve_with(std::env::var_os("NO_COLOR").as_deref())
    }

    fn resolve_with(&self, no_color: Option<&OsStr>) -> PrinterOptions {
        let color = match self.color {
            ColorChoice::Always => ColorMode::Always,
            ColorChoice::Never => ColorMode::Never,
            ColorChoice::Auto if no_color.is_some_and(|v| !v.is_empty()) => ColorMode::Never,
            ColorChoice::Auto => ColorMode::Auto,
        };
        PrinterOptions {
            color,
            verbose: self.verbose,
        }
    }
}

/// Flags of the commands that talk to the APIs (plan, apply, drift, preview, export); the
/// others do not show or take them.
#[derive(Debug, Clone, Args)]
pub(crate) struct ApiArgs {
    /// Run against an in-process sandbox whose state lives in `.converge/sandbox.json`.
    #[arg(long)]
    pub sandbox: bool,
    /// How many requests may be in flight at once (always within the rate limit).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub parallelism: u16,
    /// With `--sandbox`: enforce the real APIs' rate limits (10 requests per 10s, 100 per
    /// minute) in the sandbox and in converge's pacing; without it the sandbox runs unpaced.
    #[arg(
        long,
        env = "CONVERGE_SANDBOX_RATE_LIMIT",
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub sandbox_rate_limit: bool,
    /// With `--sandbox`: the generation of dashboards and alerts the sandbox answers as:
    /// `current` (today's servers: tiles read back as `config`; also `today`) or `contract` (the
    /// API contract's: tiles read back as `series`).
    #[arg(
        long,
        env = "CONVERGE_SANDBOX_GENERATION",
        value_enum,
        default_value_t = Generation::Current
    )]
    pub sandbox_generation: Generation,
}

/// How a run reaches the APIs: [`ApiArgs`] and the environment, resolved once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ApiSettings {
    /// Run against the in-process sandbox.
    pub sandbox: bool,
    /// With `sandbox`: the sandbox enforces the real rate limits, and converge paces by them.
    pub sandbox_rate_limit: bool,
    /// With `sandbox`: the generation of dashboards and alerts it answers as.
    pub sandbox_generation: Generation,
    /// Requests in flight at once.
    pub parallelism: usize,
    /// Each key's pacing, or why the environment's override cannot be used: said when the run
    /// first needs the limits (after the config's own errors), as a message.
    rate_limits: std::result::Result<RateLimits, RateLimitEnvError>,
}

impl ApiSettings {
    /// Resolves the flags, reading `CONVERGE_CLOUD_RATE_LIMIT` and
    /// `CONVERGE_OBSERVABILITY_RATE_LIMIT` unless the in-process sandbox runs unpaced.
    pub(crate) fn resolve(args: &ApiArgs) -> Self {
        Self::resolve_with(args, |name| std::env::var(name).ok())
    }

    fn resolve_with(args: &ApiArgs, lookup: impl Fn(&str) -> Option<String>) -> Self {
        // No pacing against the in-process sandbox unless `--sandbox-rate-limit` asks for the
        // real limits; otherwise the real limits (or `CONVERGE_*_RATE_LIMIT`).
        let rate_limits = if args.sandbox && !args.sandbox_rate_limit {
            Ok(RateLimits::UNLIMITED)
        } else {
            RateLimits::from_lookup(lookup)
        };
        ApiSettings {
            sandbox: args.sandbox,
            sandbox_rate_limit: args.sandbox_rate_limit,
            sandbox_generation: args.sandbox_generation,
            parallelism: usize::from(args.parallelism),
            rate_limits,
        }
    }

    /// Each key's pacing; `Err` when a `CONVERGE_*_RATE_LIMIT` variable cannot be read.
    pub(crate) fn rate_limits(&self) -> Result<RateLimits> {
        Ok(self.rate_limits.clone()?)
    }
}

/// What a command that plans (`plan`, `apply`, `drift`) runs with, resolved once from its
/// flags and the environment: how it reaches the APIs and what it asks of the plan it prints
/// (the options of the one planning pipeline). Each command builds it from its own flags.
#[derive(Debug, Clone)]
pub(crate) struct PlanningSettings {
    /// How it reaches the APIs.
    pub api: ApiSettings,
    /// What it asks of its plan.
    pub plan: Options,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::clients::CLOUD_RATE_LIMIT_ENV;

    #[test]
    fn auto_colors_only_while_no_color_is_unset_or_empty() {
        let args = |color| GlobalArgs { color, verbose: 2 };
        let set = OsStr::new("1");
        let empty = OsStr::new("");
        let auto = args(ColorChoice::Auto);
        assert_eq!(auto.resolve_with(None).color, ColorMode::Auto);
        assert_eq!(auto.resolve_with(Some(empty)).color, ColorMode::Auto);
        assert_eq!(auto.resolve_with(Some(set)).color, ColorMode::Never);
        let always = args(ColorChoice::Always).resolve_with(Some(set));
        assert_eq!(always.color, ColorMode::Always);
        assert_eq!(always.verbose, 2);
        let never = args(ColorChoice::Never).resolve_with(None);
        assert_eq!(never.color, ColorMode::Never);
    }

    #[test]
    fn the_unpaced_sandbox_reads_no_rate_limit_override() {
        let args = |sandbox, sandbox_rate_limit| ApiArgs {
            sandbox,
            parallelism: 8,
            sandbox_rate_limit,
            sandbox_generation: Generation::Current,
        };
        let bad = |name: &str| (name == CLOUD_RATE_LIMIT_ENV).then(|| "fast".to_string());
        let unpaced = ApiSettings::resolve_with(&args(true, false), bad);
        assert_eq!(unpaced.rate_limits().unwrap(), RateLimits::UNLIMITED);
        assert_eq!(unpaced.parallelism, 8);
        let paced = ApiSettings::resolve_with(&args(true, true), bad);
        let error = paced.rate_limits().unwrap_err().to_string();
        assert!(error.starts_with(CLOUD_RATE_LIMIT_ENV), "{error}");
        let real = ApiSettings::resolve_with(&args(false, false), |_| None);
        assert_eq!(real.rate_limits().unwrap(), RateLimits::default());
    }
}
