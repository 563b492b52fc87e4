//! The one place that writes to the terminal and to output files. stdout carries only what can
//! be piped (plans, JSON); messages, progress and logs go to stderr. Writes never panic when the
//! reader has gone away (`converge plan | head`).
//!
//! Everything written goes through `Printer::redact`, fed with the run's secret values (the
//! key secret, the token, and the Basic header made of them), so a server that echoes
//! credentials in an error, or a value that happens to hold one, is shown masked wherever it
//! ends up: messages, `-v` logs, plans, reports and saved files. Text for people also goes
//! through `reveal`, which writes invisible characters (zero-width, bidi controls, unusual
//! spaces) as `\u{..}` so names that differ only by them can be told apart.

use std::borrow::Cow;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan};

/// What a masked secret is replaced by.
pub(crate) const MASK: &str = "***";

/// The secret values of a run, shared by every clone of a [`Printer`] (the transport's logs, the
/// progress lines, the reports). `Debug` shows how many, never what.
#[derive(Clone, Default)]
struct Secrets(Arc<RwLock<Vec<String>>>);

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let count = self.0.read().map_or(0, |values| values.len());
        write!(f, "Secrets({count} values)")
    }
}

impl Secrets {
    fn add(&self, value: String) {
        // Blank values never reach the server (the loader refuses them); masking every space
        // would only garble the output.
        if value.trim().is_empty() {
            return;
        }
        let mut values = match self.0.write() {
            Ok(values) => values,
            Err(poisoned) => poisoned.into_inner(),
        };
        if !values.contains(&value) {
            values.push(value);
            // Longest first, so a value that holds another is masked whole.
            values.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        }
    }

    fn redact<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let values = match self.0.read() {
            Ok(values) => values,
            Err(poisoned) => poisoned.into_inner(),
        };
        let mut out = Cow::Borrowed(text);
        for value in values.iter() {
            if out.contains(value.as_str()) {
                out = Cow::Owned(out.replace(value.as_str(), MASK));
            }
        }
        out
    }
}

/// Whether a character prints as nothing, or as a space that is not one: zero-width spaces and
/// joiners, bidi controls, other format characters, C1 controls, invisible fillers and the
/// unusual spaces. Variation selectors that shape emoji are left alone.
pub(crate) fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{80}'..='\u{a0}'
        | '\u{ad}'
        | '\u{34f}'
        | '\u{600}'..='\u{605}'
        | '\u{61c}'
        | '\u{6dd}'
        | '\u{70f}'
        | '\u{8e2}'
        | '\u{115f}'..='\u{1160}'
        | '\u{1680}'
        | '\u{17b4}'..='\u{17b5}'
        | '\u{180b}'..='\u{180e}'
        | '\u{2000}'..='\u{200f}'
        | '\u{2028}'..='\u{202f}'
        | '\u{205f}'..='\u{206f}'
        | '\u{2800}'
        | '\u{3000}'
        | '\u{3164}'
        | '\u{feff}'
        | '\u{ffa0}'
        | '\u{fff9}'..='\u{fffb}'
        | '\u{110bd}'
        | '\u{110cd}'
        | '\u{13430}'..='\u{1343f}'
        | '\u{1bca0}'..='\u{1bca3}'
        | '\u{1d173}'..='\u{1d17a}'
        | '\u{e0000}'..='\u{e007f}'
        | '\u{e0100}'..='\u{e01ef}'
    )
}

/// Whether `text` holds a character [`reveal`] would escape.
pub(crate) fn has_invisible(text: &str) -> bool {
    text.chars().any(is_invisible)
}

/// `text` with every invisible character written as `\u{..}`, so `API health` and
/// `API health\u{200b}` print differently. Line breaks, tabs and terminal escapes are kept.
pub(crate) fn reveal(text: &str) -> Cow<'_, str> {
    if !has_invisible(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_invisible(c) {
            out.push_str(&c.escape_unicode().to_string());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `text` as the data of a GitHub workflow command (`::warning ...::DATA`): `%`, `\r` and `\n`
/// percent-encoded, so the text stays on its line and cannot start a command of its own.
pub(crate) fn annotation_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// `text` as a property value of a GitHub workflow command (`file=`, `title=`): as
/// [`annotation_data`], with the `:` and `,` that would end the property also encoded.
pub(crate) fn annotation_property(text: &str) -> String {
    annotation_data(text)
        .replace(':', "%3A")
        .replace(',', "%2C")
}

/// `text` inside a JSON string, without the quotes.
fn json_inner(text: &str) -> String {
    serde_json::to_string(text).map_or_else(|_| text.to_string(), |quoted| inside_quotes(&quoted))
}

/// `text` as Rust's `{:?}` writes it (addresses of live names), without the quotes.
fn debug_inner(text: &str) -> String {
    inside_quotes(&format!("{text:?}"))
}

fn inside_quotes(quoted: &str) -> String {
    let inside = quoted.strip_prefix('"').and_then(|q| q.strip_suffix('"'));
    inside.unwrap_or(quoted).to_string()
}

/// `text` with XML's five entities (the SVG previews, HTML inside Markdown).
fn xml(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

/// `text` with control characters but the line break written as `\u{..}` (diagnostics).
fn printable(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() && c != '\n' {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The escapes a renderer applies to a value, each one character at a time, so the escaped
/// form of a secret is a substring of the escaped form of any text that holds it.
const ESCAPES: [fn(&str) -> String; 9] = [
    json_inner,
    debug_inner,
    crate::markdown::escape,
    crate::markdown::escape_html,
    |text| reveal(text).into_owned(),
    printable,
    annotation_data,
    annotation_property,
    xml,
];

/// How many escapes in a row a value can go through on its way out: a name quoted as JSON in a
/// plan line, escaped for Markdown, then revealed.
const ESCAPE_DEPTH: usize = 3;

/// `value` and every form it takes after up to [`ESCAPE_DEPTH`] of the [`ESCAPES`], each once:
/// what masking looks for, since masking runs on the rendered text. A value that needs no
/// escaping has one form.
fn rendered_forms(value: &str) -> Vec<String> {
    let mut forms = vec![value.to_string()];
    let mut newest = forms.clone();
    for _ in 0..ESCAPE_DEPTH {
        let mut next = Vec::new();
        for form in &newest {
            for escape in ESCAPES {
                let escaped = escape(form);
                if !forms.contains(&escaped) && !next.contains(&escaped) {
                    next.push(escaped);
                }
            }
        }
        forms.extend(next.iter().cloned());
        newest = next;
    }
    forms
}

/// `path` as messages show it: control characters (a line break, a carriage return, an escape)
/// written as `\u{..}`, so a file name cannot end the line it is printed on and start one that a
/// CI system reads as a command (`::warning title=Approved::`), nor move the terminal's cursor.
pub(crate) fn path_text(path: &Path) -> String {
    let shown = path.display().to_string();
    if !shown.chars().any(char::is_control) {
        return shown;
    }
    shown
        .chars()
        .map(|c| {
            if c.is_control() {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Decides color, verbosity and where each kind of output goes.
#[derive(Debug, Clone)]
pub struct Printer {
    color: bool,
    /// Color for text bound for stdout: under `auto`, only when stdout itself is a terminal, so
    /// `converge plan > plan.txt` writes no escape codes into the file.
    stdout_color: bool,
    verbose: u8,
    stderr_terminal: bool,
    secrets: Secrets,
    /// Columns of the terminal stderr is on, else [`DEFAULT_WIDTH`].
    width: usize,
    /// Columns of the terminal stdout is on, else [`DEFAULT_WIDTH`].
    stdout_width: usize,
}

/// The line width assumed when output goes to no terminal (a file, a pipe, a PR comment), so the
/// same plan gives the same bytes wherever it is written.
pub(crate) const DEFAULT_WIDTH: usize = 100;

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

/// Columns a message on stderr may take: `COLUMNS` when it holds a width (a terminal too small
/// or too large for what `terminal_size` reads, a multiplexer's pane, a user's choice), else the
/// terminal's width, else [`DEFAULT_WIDTH`]. Diagnostics are wrapped to it, so a terminal never
/// wraps them again in the middle of a word.
fn stderr_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|columns| columns.trim().parse::<usize>().ok())
        .filter(|width| (20..=1000).contains(width))
        .unwrap_or_else(|| width_of(std::io::stderr()))
}

/// `text` cut to fit one spinner line after `reserved` columns (a spinner and its space),
/// ending in `…` when cut. A spinner line must never wrap: clearing or redrawing a spinner
/// whose line wrapped can leave its first half on screen. Read at each redraw, so a resized
/// terminal is followed.
pub(crate) fn fit_stderr_line(text: &str, reserved: usize) -> String {
    fit_line(text, stderr_width().saturating_sub(reserved + 1))
}

/// Where spinners draw: stderr, with each spinner line ended by a real line break. indicatif
/// ends a line by padding it with spaces to the terminal's width, so the cursor rests at the
/// last column of the last spinner; the echo of a Ctrl-C (`^C`) wraps there and scrolls the
/// screen under the spinners, and their next redraw leaves the top frame behind (seen at 60
/// columns). Here the padding becomes "clear to the end of the line, go to the next one", so
/// the cursor rests on the line below the spinners, where an echo is harmless and the next
/// redraw clears it; moving up counts that line.
#[derive(Debug)]
pub(crate) struct SpinnerTerminal {
    term: console::Term,
    /// The cursor is on the line below the last one drawn.
    below: std::sync::atomic::AtomicBool,
}

impl SpinnerTerminal {
    /// The draw target of a spinner or of a set of them.
    pub(crate) fn target() -> indicatif::ProgressDrawTarget {
        indicatif::ProgressDrawTarget::term_like_with_hz(
            Box::new(SpinnerTerminal {
                term: console::Term::buffered_stderr(),
                below: std::sync::atomic::AtomicBool::new(false),
            }),
            20,
        )
    }

    /// Whether the cursor was below the last line drawn; it no longer is after a move.
    fn take_below(&self) -> bool {
        self.below.swap(false, std::sync::atomic::Ordering::Relaxed)
    }
}

impl indicatif::TermLike for SpinnerTerminal {
    fn width(&self) -> u16 {
        self.term.size().1
    }
    fn height(&self) -> u16 {
        // The line below the spinners is the terminal's too.
        self.term.size().0.saturating_sub(1).max(1)
    }
    fn move_cursor_up(&self, n: usize) -> std::io::Result<()> {
        self.term.move_cursor_up(n + usize::from(self.take_below()))
    }
    fn move_cursor_down(&self, n: usize) -> std::io::Result<()> {
        self.take_below();
        self.term.move_cursor_down(n)
    }
    fn move_cursor_right(&self, n: usize) -> std::io::Result<()> {
        self.term.move_cursor_right(n)
    }
    fn move_cursor_left(&self, n: usize) -> std::io::Result<()> {
        self.term.move_cursor_left(n)
    }
    fn write_line(&self, s: &str) -> std::io::Result<()> {
        self.term.write_line(s)
    }
    fn write_str(&self, s: &str) -> std::io::Result<()> {
        // indicatif's line end: the padding after a line (empty when the line fills the width).
        if s.bytes().all(|b| b == b' ') {
            self.below.store(true, std::sync::atomic::Ordering::Relaxed);
            return self.term.write_str("\x1b[K\r\n\x1b[K");
        }
        self.term.write_str(s)
    }
    fn clear_line(&self) -> std::io::Result<()> {
        self.term.clear_line()
    }
    fn flush(&self) -> std::io::Result<()> {
        self.term.flush()
    }
}

/// `text` cut to at most `width` display columns, ending in `…` when cut.
fn fit_line(text: &str, width: usize) -> String {
    if textwrap::core::display_width(text) <= width {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    let mut buffer = [0u8; 4];
    for ch in text.chars() {
        let columns = textwrap::core::display_width(ch.encode_utf8(&mut buffer));
        if used + columns + 1 > width {
            break;
        }
        used += columns;
        out.push(ch);
    }
    if width > 0 {
        out.push('…');
    }
    out
}

/// When output is colored, as the command line and the environment decided it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ColorMode {
    /// Each stream (stdout, stderr) only when it is a terminal.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// The plain values a [`Printer`] is built from; the command line resolves them once
/// (`crate::settings`), so this module knows nothing of flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PrinterOptions {
    /// When to color.
    pub color: ColorMode,
    /// How much to log on stderr: 1 for requests, 2 for everything.
    pub verbose: u8,
}

/// Whether a stream gets color: `always`, `never`, or under `auto` when it is a terminal.
fn colors(mode: ColorMode, terminal: bool) -> bool {
    match mode {
        ColorMode::Always => true,
        ColorMode::Never => false,
        ColorMode::Auto => terminal,
    }
}

impl Printer {
    /// Builds the printer from resolved options and the terminals stdout and stderr are on.
    pub(crate) fn new(options: PrinterOptions) -> Self {
        let stderr_terminal = std::io::stderr().is_terminal();
        Printer {
            color: colors(options.color, stderr_terminal),
            stdout_color: colors(options.color, std::io::stdout().is_terminal()),
            verbose: options.verbose,
            stderr_terminal,
            secrets: Secrets::default(),
            width: stderr_width(),
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
            secrets: Secrets::default(),
            width: DEFAULT_WIDTH,
            stdout_width: DEFAULT_WIDTH,
        }
    }

    /// This printer for rendering text that goes to stdout: colored only when stdout may be.
    pub(crate) fn for_stdout(&self) -> Printer {
        Printer {
            color: self.stdout_color,
            width: self.stdout_width,
            ..self.clone()
        }
    }

    /// Whether output may carry ANSI colors.
    pub(crate) fn color(&self) -> bool {
        self.color
    }

    /// Columns a line of this printer's output may take.
    pub(crate) fn width(&self) -> usize {
        self.width
    }

    /// Whether stderr is a terminal (progress bars, confirmations).
    pub(crate) fn is_terminal(&self) -> bool {
        self.stderr_terminal
    }

    /// The `-v` count.
    pub(crate) fn verbosity(&self) -> u8 {
        self.verbose
    }

    /// Masks `value` in everything this printer (and every clone of it) writes from now on:
    /// stdout, stderr and files, in every form a renderer can give it. For the run's secrets:
    /// the key secret and the token.
    pub(crate) fn add_secret(&self, value: &str) {
        for form in rendered_forms(value) {
            self.secrets.add(form);
        }
    }

    /// Masks a key secret, and the Basic `Authorization` value it is sent in (the base64 of
    /// `key_id:key_secret`), which a server may echo back.
    pub(crate) fn add_basic_credentials(&self, key_id: &str, key_secret: &str) {
        use base64::Engine as _;
        self.add_secret(key_secret);
        if !key_secret.trim().is_empty() {
            let pair = format!("{key_id}:{key_secret}");
            self.secrets
                .add(base64::engine::general_purpose::STANDARD.encode(pair));
        }
    }

    /// `text` with every secret value of the run replaced by [`MASK`]. Every write of this
    /// printer goes through it; anything written some other way must too.
    pub(crate) fn redact<'t>(&self, text: &'t str) -> Cow<'t, str> {
        self.secrets.redact(text)
    }

    /// Writes machine output to stdout (JSON, a config, a script): masked, otherwise byte for
    /// byte. A closed pipe is not an error.
    pub(crate) fn out(&self, text: &str) {
        let text = self.redact(text);
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(text.as_bytes());
        let _ = stdout.flush();
    }

    /// Writes machine output to stdout as `write` produces it, masked as [`Printer::out`]
    /// masks, without holding the whole document: a JSON plan of a large config is hundreds of
    /// megabytes. A closed pipe is not an error.
    pub(crate) fn out_streamed(&self, write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) {
        let mut out = MaskedLines {
            printer: self,
            pending: Vec::new(),
            stdout: std::io::stdout().lock(),
        };
        if write(&mut out).is_ok() {
            let _ = out.flush();
        }
    }

    /// Writes text for people to stdout (a text or Markdown plan, a drift report, a chart):
    /// masked, with invisible characters revealed.
    pub(crate) fn out_text(&self, text: &str) {
        self.out(&reveal(&self.redact(text)));
    }

    /// `text` as stderr shows it: masked, invisible characters revealed. For what reaches the
    /// terminal some other way (progress lines drawn by indicatif).
    pub(crate) fn shown(&self, text: &str) -> String {
        reveal(&self.redact(text)).into_owned()
    }

    /// Writes a message line to stderr, masked, invisible characters revealed.
    pub(crate) fn err(&self, line: &str) {
        let line = self.shown(line);
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(stderr, "{line}");
    }

    /// Writes a file so that a reader never sees half of it (a temporary file beside it, then a
    /// rename), masked like stdout.
    pub(crate) fn write_file(&self, path: &Path, text: &str) -> Result<(), WriteFileError> {
        let failed = |cause| WriteFileError {
            path: path_text(path),
            cause,
        };
        let mut temporary = path.as_os_str().to_owned();
        temporary.push(".tmp");
        let temporary = PathBuf::from(temporary);
        std::fs::write(&temporary, self.redact(text).as_bytes()).map_err(failed)?;
        std::fs::rename(&temporary, path).map_err(|e| {
            // A failed save leaves no half-made file beside the target.
            let _ = std::fs::remove_file(&temporary);
            failed(e)
        })
    }

    /// A `warning:` line on stderr.
    pub(crate) fn warn(&self, message: &str) {
        self.err(&format!(
            "{}: {message}",
            self.paint("warning", Style::Warning)
        ));
    }

    /// A log line shown with `-v`.
    pub(crate) fn info(&self, message: &str) {
        if self.verbose >= 1 {
            self.err(message);
        }
    }

    /// A log line shown with `-vv`.
    pub(crate) fn debug(&self, message: &str) {
        if self.verbose >= 2 {
            self.err(message);
        }
    }

    /// Renders a diagnostic the way this printer shows them: graphical with color on a
    /// terminal, plain ASCII otherwise. Its texts are masked before miette wraps them, since a
    /// secret cut in two by a line break would no longer be found.
    pub fn render(&self, diagnostic: &dyn Diagnostic) -> String {
        let theme = if self.color {
            GraphicalTheme::unicode()
        } else {
            GraphicalTheme::none()
        };
        // Lines break only at spaces: the default splitter also breaks at hyphens, which cut
        // ids (service UUIDs, `semantic::...` codes) in two where a reader copies them whole.
        let handler = GraphicalReportHandler::new_themed(theme)
            .with_width(self.width)
            .with_word_splitter(textwrap::WordSplitter::NoHyphenation);
        let masked = Masked::new(diagnostic, &self.secrets);
        let mut text = String::new();
        if handler.render_report(&mut text, &masked).is_err() {
            text = masked.message.clone();
        }
        self.redact(&text).into_owned()
    }

    /// Prints an error that ends the command.
    pub(crate) fn report(&self, diagnostic: &dyn Diagnostic) {
        let text = self.render(diagnostic);
        self.err(text.strip_suffix('\n').unwrap_or(&text));
    }

    /// Wraps text in an ANSI style when color is on.
    pub(crate) fn paint(&self, text: &str, style: Style) -> String {
        if !self.color {
            return text.to_string();
        }
        format!("\u{1b}[{}m{text}\u{1b}[0m", code(style))
    }

    /// As [`Printer::paint`], with the text also bold and underlined: the changed words of a
    /// line diff. Without color it is plain, like everything else.
    pub(crate) fn paint_strong(&self, text: &str, style: Style) -> String {
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

/// A diagnostic with its message, help and labels masked, for miette to render.
struct Masked<'a> {
    inner: &'a dyn Diagnostic,
    message: String,
    help: Option<String>,
    labels: Option<Vec<LabeledSpan>>,
    related: Vec<Masked<'a>>,
}

impl<'a> Masked<'a> {
    fn new(inner: &'a dyn Diagnostic, secrets: &Secrets) -> Self {
        let mask = |text: String| secrets.redact(&text).into_owned();
        Masked {
            inner,
            message: mask(inner.to_string()),
            help: inner.help().map(|h| mask(h.to_string())),
            labels: inner.labels().map(|labels| {
                labels
                    .map(|label| {
                        let text = label.label().map(|t| mask(t.to_string()));
                        if label.primary() {
                            LabeledSpan::new_primary_with_span(text, *label.inner())
                        } else {
                            LabeledSpan::new_with_span(text, *label.inner())
                        }
                    })
                    .collect()
            }),
            related: inner
                .related()
                .map(|related| related.map(|r| Masked::new(r, secrets)).collect())
                .unwrap_or_default(),
        }
    }
}

impl std::fmt::Debug for Masked<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::fmt::Display for Masked<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Masked<'_> {}

impl Diagnostic for Masked<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn std::fmt::Display + 'b>> {
        self.inner.code()
    }

    fn severity(&self) -> Option<miette::Severity> {
        self.inner.severity()
    }

    fn help<'b>(&'b self) -> Option<Box<dyn std::fmt::Display + 'b>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn std::fmt::Display>)
    }

    fn url<'b>(&'b self) -> Option<Box<dyn std::fmt::Display + 'b>> {
        self.inner.url()
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.inner.source_code()
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.labels
            .as_ref()
            .map(|labels| Box::new(labels.iter().cloned()) as Box<dyn Iterator<Item = _>>)
    }

    fn related<'b>(&'b self) -> Option<Box<dyn Iterator<Item = &'b dyn Diagnostic> + 'b>> {
        if self.related.is_empty() {
            return None;
        }
        Some(Box::new(self.related.iter().map(|r| r as &dyn Diagnostic)))
    }
}

/// A file [`Printer::write_file`] could not write.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("cannot write `{path}`: {cause}")]
pub(crate) struct WriteFileError {
    /// The file.
    pub path: String,
    /// The underlying error: part of the message, not a `source`, so that it is said once.
    pub cause: std::io::Error,
}

/// The few styles converge uses; color is never the only carrier of meaning.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Style {
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

/// Stdout behind [`Printer::out_streamed`]: bytes are held until a line ends, then masked and
/// written. A secret never spans two lines of the JSON written so (its strings hold no raw
/// newline, and every form a secret can be rendered in is masked within one line).
struct MaskedLines<'p> {
    printer: &'p Printer,
    pending: Vec<u8>,
    stdout: std::io::StdoutLock<'static>,
}

/// How many bytes [`MaskedLines`] holds before it masks and writes the lines it has.
const MASKED_CHUNK: usize = 64 * 1024;

impl MaskedLines<'_> {
    /// Masks and writes the pending bytes up to the last line end (all of them when `all`).
    fn emit(&mut self, all: bool) -> std::io::Result<()> {
        let end = if all {
            self.pending.len()
        } else {
            match self.pending.iter().rposition(|byte| *byte == b'\n') {
                Some(index) => index + 1,
                None => return Ok(()),
            }
        };
        let chunk: Vec<u8> = self.pending.drain(..end).collect();
        let text = String::from_utf8_lossy(&chunk);
        self.stdout.write_all(self.printer.redact(&text).as_bytes())
    }
}

impl Write for MaskedLines<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(buf);
        if self.pending.len() >= MASKED_CHUNK {
            self.emit(false)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.emit(true)?;
        self.stdout.flush()
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_spinner_line_is_cut_to_the_width_never_wrapped() {
        assert_eq!(
            fit_line("dashboard.platform.a create", 40),
            "dashboard.platform.a create"
        );
        assert_eq!(fit_line("abcdefghij", 6), "abcde…");
        assert_eq!(fit_line("abcdefghij", 10), "abcdefghij");
        // Wide characters count as two columns.
        assert_eq!(fit_line("日本語のテキスト", 7), "日本語…");
        assert_eq!(fit_line("abc", 0), "");
    }

    use super::*;

    #[test]
    fn secrets_are_masked_by_every_clone_longest_first() {
        let printer = Printer::plain();
        let clone = printer.clone();
        printer.add_basic_credentials("key", "s3cret-value");
        clone.add_secret("s3cret-value-longer");
        let basic = {
            use base64::Engine as _;
            base64::engine::general_purpose::STANDARD.encode("key:s3cret-value")
        };
        let text = format!("a s3cret-value-longer b s3cret-value c Basic {basic} d");
        assert_eq!(
            printer.redact(&text),
            "a *** b *** c Basic *** d",
            "the clone's secret is the printer's too"
        );
        assert_eq!(clone.shown("plain"), "plain");
        printer.add_secret("  ");
        assert_eq!(printer.redact("a  b"), "a  b", "a blank is never a secret");
        assert!(!format!("{printer:?}").contains("s3cret"));
    }

    #[test]
    fn a_secret_is_masked_in_each_escaped_form() {
        let printer = Printer::plain();
        let secret = "k\u{a0}\"q\\%:,<\n";
        printer.add_secret(secret);
        let renderings = [
            serde_json::to_string(&format!("a {secret} b")).unwrap_or_default(),
            format!("{:?}", format!("a {secret} b")),
            reveal(&crate::markdown::escape(&json_inner(secret))).into_owned(),
            crate::markdown::escape_html(&debug_inner(secret)),
            annotation_data(secret),
            annotation_property(secret),
            xml(secret),
            printable(secret),
        ];
        for rendered in renderings {
            let masked = printer.redact(&rendered);
            assert!(masked.contains(MASK), "{rendered} is masked as {masked}");
            assert!(!masked.contains('q'), "{rendered} is masked as {masked}");
        }
        assert_eq!(rendered_forms("plain-value"), ["plain-value"]);
    }

    #[test]
    fn invisible_characters_are_revealed_and_the_rest_kept() {
        assert_eq!(reveal("API health\u{200b}"), "API health\\u{200b}");
        assert_eq!(
            reveal("a\u{202e}b\u{a0}c\u{feff}"),
            "a\\u{202e}b\\u{a0}c\\u{feff}"
        );
        assert_eq!(reveal("\u{e0041}"), "\\u{e0041}");
        let kept = "line\n\ttab \u{1b}[1mbold\u{1b}[0m ❤\u{fe0f} Überblick Панель";
        assert!(matches!(reveal(kept), Cow::Borrowed(_)));
    }

    #[test]
    fn auto_colors_a_stream_only_when_it_is_a_terminal() {
        assert!(colors(ColorMode::Auto, true));
        assert!(!colors(ColorMode::Auto, false), "a redirected stream");
        assert!(colors(ColorMode::Always, false));
        assert!(!colors(ColorMode::Never, true));
        assert!(!Printer::plain().for_stdout().color());
    }
}
