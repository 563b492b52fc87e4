//! The one place that writes to the terminal. stdout carries only what can be piped (plans,
//! JSON); messages, progress and logs go to stderr. Writes never panic when the reader has gone
//! away (`converge plan | head`).

use std::io::{IsTerminal, Write};

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme};

use crate::cli::{ColorChoice, GlobalArgs};

/// Decides color, verbosity and where each kind of output goes.
#[derive(Debug, Clone)]
pub struct Printer {
    color: bool,
    /// Color for text bound for stdout: under `auto`, only when stdout itself is a terminal, so
    /// `converge plan > plan.txt` writes no escape codes into the file.
    stdout_color: bool,
    verbose: u8,
    stderr_terminal: bool,
    /// Columns of the terminal stderr is on, else [`DEFAULT_WIDTH`].
    width: usize,
    /// Columns of the terminal stdout is on, else [`DEFAULT_WIDTH`].
    stdout_width: usize,
}

/// The line width assumed when output goes to no terminal (a file, a pipe, a PR comment), so the
/// same plan gives the same bytes wherever it is written.
pub const DEFAULT_WIDTH: usize = 100;

/// The terminal's width when `stream` is on one (the first terminal among stdout, stderr and
/// stdin: the same one when both streams are terminals), else [`DEFAULT_WIDTH`].
fn width_of(stream: impl IsTerminal) -> usize {
    if !stream.is_terminal() {
        return DEFAULT_WIDTH;
    }
    terminal_size::terminal_size()
        .map(|(w, _)| usize::from(w.0))
        .filter(|w| *w > 0)
        .unwrap_or(DEFAULT_WIDTH)
}

/// Whether a stream gets color: `always`, `never`, or under `auto` when it is a terminal and
/// `NO_COLOR` is unset or empty.
fn colors(choice: ColorChoice, terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => terminal && no_color.is_none_or(|v| v.is_empty()),
    }
}

impl Printer {
    /// Builds the printer from the global flags and the environment (`NO_COLOR`, terminals).
    pub fn new(global: &GlobalArgs) -> Self {
        let stderr_terminal = std::io::stderr().is_terminal();
        let no_color = std::env::var_os("NO_COLOR");
        Printer {
            color: colors(global.color, stderr_terminal, no_color.as_deref()),
            stdout_color: colors(
                global.color,
                std::io::stdout().is_terminal(),
                no_color.as_deref(),
            ),
            verbose: global.verbose,
            stderr_terminal,
            width: width_of(std::io::stderr()),
            stdout_width: width_of(std::io::stdout()),
        }
    }

    /// A printer with no color and no logs, for tests and benchmarks.
    pub fn plain() -> Self {
        Printer {
            color: false,
            stdout_color: false,
            verbose: 0,
            stderr_terminal: false,
            width: DEFAULT_WIDTH,
            stdout_width: DEFAULT_WIDTH,
        }
    }

    /// This printer for rendering text that goes to stdout: colored only when stdout may be.
    pub fn for_stdout(&self) -> Printer {
        Printer {
            color: self.stdout_color,
            width: self.stdout_width,
            ..self.clone()
        }
    }

    /// Whether output may carry ANSI colors.
    pub fn color(&self) -> bool {
        self.color
    }

    /// Columns a line of this printer's output may take.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Whether stderr is a terminal (progress bars, confirmations).
    pub fn is_terminal(&self) -> bool {
        self.stderr_terminal
    }

    /// The `-v` count.
    pub fn verbosity(&self) -> u8 {
        self.verbose
    }

    /// Writes machine or plan output to stdout. A closed pipe is not an error.
    pub fn out(&self, text: &str) {
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(text.as_bytes());
        let _ = stdout.flush();
    }

    /// Writes a message line to stderr.
    pub fn err(&self, line: &str) {
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(stderr, "{line}");
    }

    /// A `warning:` line on stderr.
    pub fn warn(&self, message: &str) {
        self.err(&format!(
            "{}: {message}",
            self.paint("warning", Style::Warning)
        ));
    }

    /// A log line shown with `-v`.
    pub fn info(&self, message: &str) {
        if self.verbose >= 1 {
            self.err(message);
        }
    }

    /// A log line shown with `-vv`.
    pub fn debug(&self, message: &str) {
        if self.verbose >= 2 {
            self.err(message);
        }
    }

    /// Renders a diagnostic the way this printer shows them: graphical with color on a
    /// terminal, plain ASCII otherwise.
    pub fn render(&self, diagnostic: &dyn Diagnostic) -> String {
        let theme = if self.color {
            GraphicalTheme::unicode()
        } else {
            GraphicalTheme::none()
        };
        let handler = GraphicalReportHandler::new_themed(theme).with_width(100);
        let mut text = String::new();
        if handler.render_report(&mut text, diagnostic).is_err() {
            text = diagnostic.to_string();
        }
        text
    }

    /// Prints an error that ends the command.
    pub fn report(&self, diagnostic: &dyn Diagnostic) {
        let text = self.render(diagnostic);
        let mut stderr = std::io::stderr().lock();
        let _ = write!(stderr, "{text}");
        if !text.ends_with('\n') {
            let _ = writeln!(stderr);
        }
    }

    /// Wraps text in an ANSI style when color is on.
    pub fn paint(&self, text: &str, style: Style) -> String {
        if !self.color {
            return text.to_string();
        }
        format!("\u{1b}[{}m{text}\u{1b}[0m", code(style))
    }

    /// As [`Printer::paint`], with the text also bold and underlined: the changed words of a
    /// line diff. Without color it is plain, like everything else.
    pub fn paint_strong(&self, text: &str, style: Style) -> String {
        if !self.color {
            return text.to_string();
        }
        format!("\u{1b}[{};1;4m{text}\u{1b}[0m", code(style))
    }
}

fn code(style: Style) -> &'static str {
    match style {
        Style::Add => "32",
        Style::Remove => "31",
        Style::Change => "33",
        Style::Warning => "33;1",
        Style::Error => "31;1",
        Style::Bold => "1",
        Style::Dim => "2",
    }
}

/// The few styles converge uses; color is never the only carrier of meaning.
#[derive(Debug, Clone, Copy)]
pub enum Style {
    /// Something created or added (green).
    Add,
    /// Something deleted or removed (red).
    Remove,
    /// Something changed in place (yellow).
    Change,
    /// A warning label.
    Warning,
    /// An error label.
    Error,
    /// Emphasis.
    Bold,
    /// De-emphasis.
    Dim,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_colors_a_stream_only_when_it_is_a_terminal_and_no_color_is_unset() {
        let set = std::ffi::OsStr::new("1");
        let empty = std::ffi::OsStr::new("");
        assert!(colors(ColorChoice::Auto, true, None));
        assert!(colors(ColorChoice::Auto, true, Some(empty)));
        assert!(
            !colors(ColorChoice::Auto, false, None),
            "a redirected stream"
        );
        assert!(!colors(ColorChoice::Auto, true, Some(set)));
        assert!(colors(ColorChoice::Always, false, Some(set)));
        assert!(!colors(ColorChoice::Never, true, None));
        assert!(!Printer::plain().for_stdout().color());
    }
}
