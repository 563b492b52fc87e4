//! The output formats of every report: diagnostics, plans, drift reports, apply reports and
//! previews. One enum for all of them; each command's `--format` offers only the formats it can
//! print, each with its own help line, through a [`Choices`] list.

use std::ffi::OsStr;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

/// How a report is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// For people, colored on a terminal.
    #[default]
    Text,
    /// For programs, with a versioned `format` field where the document has one.
    Json,
    /// For a pull-request comment or an issue body.
    Markdown,
}

impl Format {
    /// The name `--format` takes.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Json => "json",
            Format::Markdown => "markdown",
        }
    }
}

/// The formats one command's `--format` offers, each with the line its `--help` shows: the value
/// parser of that flag.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Choices(&'static [(Format, &'static str)]);

impl Choices {
    /// `validate`: diagnostics.
    pub(crate) const VALIDATE: Choices = Choices(&[
        (
            Format::Text,
            "Human-readable reports on stderr with the value underlined",
        ),
        (
            Format::Json,
            "A JSON array on stdout: objects with `file`, `line`, `column`, `severity`, `code`, \
             `message`",
        ),
    ]);

    /// `plan` and `show`: a plan (`show` prints an apply report in the same formats).
    pub(crate) const PLAN: Choices = Choices(&[
        (
            Format::Text,
            "A field diff for people, colored on a terminal",
        ),
        (Format::Json, "`converge-plan/1` JSON for programs"),
        (
            Format::Markdown,
            "A pull-request comment of at most 65,000 characters",
        ),
    ]);

    /// `drift`: a drift report.
    pub(crate) const DRIFT: Choices = Choices(&[
        (Format::Text, "Lines for people, colored on a terminal"),
        (Format::Json, "`converge-drift/1` JSON for programs"),
        (
            Format::Markdown,
            "An issue or comment body of at most 65,000 bytes",
        ),
    ]);

    /// `apply`: the apply report.
    pub(crate) const APPLY: Choices = Choices(&[
        (
            Format::Text,
            "The plan on stdout, progress and the report on stderr",
        ),
        (
            Format::Json,
            "The report as `converge-apply-report/1` JSON on stdout (the plan goes to stderr)",
        ),
    ]);

    /// `preview`: charts.
    pub(crate) const PREVIEW: Choices = Choices(&[
        (Format::Text, "A terminal chart and a summary"),
        (
            Format::Json,
            "`converge-preview/1` JSON: points, threshold, firing buckets and runs",
        ),
    ]);

    fn values(self) -> impl Iterator<Item = PossibleValue> {
        self.0
            .iter()
            .map(|(format, help)| PossibleValue::new(format.as_str()).help(*help))
    }
}

impl TypedValueParser for Choices {
    type Value = Format;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<Format, clap::Error> {
        // As clap's parser of a `ValueEnum`: text that is not UTF-8 is an unknown value, shown
        // lossily, with the same message and suggestions as any other.
        let lossy = value.to_string_lossy();
        let name =
            PossibleValuesParser::new(self.values()).parse_ref(cmd, arg, OsStr::new(&*lossy))?;
        let ignore_case = arg.is_some_and(clap::Arg::is_ignore_case_set);
        self.0
            .iter()
            .map(|(format, _)| *format)
            .find(|format| PossibleValue::new(format.as_str()).matches(&name, ignore_case))
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::InvalidValue).with_cmd(cmd))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.values()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(choices: Choices) -> clap::Command {
        clap::Command::new("converge").arg(
            clap::Arg::new("format")
                .long("format")
                .default_value("text")
                .value_parser(choices),
        )
    }

    #[test]
    fn each_command_takes_only_its_own_formats() {
        let parse = |choices: Choices, value: &str| {
            command(choices)
                .try_get_matches_from(["converge", "--format", value])
                .map(|matches| matches.get_one::<Format>("format").copied())
        };
        assert_eq!(
            parse(Choices::PLAN, "markdown").ok(),
            Some(Some(Format::Markdown))
        );
        assert_eq!(parse(Choices::DRIFT, "json").ok(), Some(Some(Format::Json)));
        let refused = parse(Choices::VALIDATE, "markdown").unwrap_err();
        assert_eq!(refused.kind(), clap::error::ErrorKind::InvalidValue);
        assert!(
            refused
                .to_string()
                .contains("[possible values: text, json]"),
            "{refused}"
        );
    }
}
