//! Escaping for Markdown output (pull-request comments, drift issues). Names and values come
//! from the config and from the server; in a comment they must read as the text they are, never
//! as an image, a link, emphasis or HTML. Every Markdown renderer interpolates them through
//! [`escape`].

/// `text` as literal inline Markdown, also inside the `<code>` and `<summary>` elements the
/// renderers use (GitHub parses Markdown inside inline HTML):
///
/// - `&`, `<`, `>` and `` ` `` become HTML entities, so no tag, comment or code span opens;
/// - the punctuation that makes inline syntax (`\ * _ [ ] ~ | #`) is escaped with a
///   backslash: with its brackets escaped, `![t](https://...)` shows as written instead of
///   loading an image, and no link, emphasis, strike-through or table cell can form;
/// - line breaks and other control characters are written as `\u{..}`, so a value cannot end
///   the list item it sits in and start a block of its own.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '`' => out.push_str("&#96;"),
            '\\' | '*' | '_' | '[' | ']' | '~' | '|' | '#' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() && c != '\t' => out.push_str(&c.escape_unicode().to_string()),
            c => out.push(c),
        }
    }
    out
}

/// `text` as literal text inside a raw HTML block (a line that starts with `<details>`): there
/// GitHub processes no Markdown, so a backslash escape would show as written; `&`, `<`, `>` and
/// `` ` `` become HTML entities instead (quotes are plain text there), and control characters
/// `\u{..}` as in [`escape`].
pub(crate) fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '`' => out.push_str("&#96;"),
            c if c.is_control() && c != '\t' => out.push_str(&c.escape_unicode().to_string()),
            c => out.push(c),
        }
    }
    out
}

/// A message converge wrote (a reason, a warning, its help) as inline Markdown: what it quotes
/// between backticks (`` `converge:prod` ``, `` `--allow-destroy` ``) becomes a code span, as
/// the text output means it, and the rest is [`escape`]d. A code span is literal on GitHub (no
/// link, emphasis or HTML forms inside it, no autolink), so a name quoted there reads as
/// written; a backtick without its pair is an entity.
pub(crate) fn prose(text: &str) -> String {
    spans(text, escape, |code| format!("`{code}`"))
}

/// [`prose`] for a raw HTML block (a `<summary>`), where no Markdown is read: quoted parts
/// become `<code>` elements, the rest is [`escape_html`]d.
pub(crate) fn prose_html(text: &str) -> String {
    spans(text, escape_html, |code| {
        format!("<code>{}</code>", escape_html(code))
    })
}

/// `text` with the inside of each pair of backticks given to `code` and the rest to `plain`.
fn spans(text: &str, plain: fn(&str) -> String, code: impl Fn(&str) -> String) -> String {
    let parts: Vec<&str> = text.split('`').collect();
    let mut out = String::with_capacity(text.len() + 16);
    for (at, part) in parts.iter().enumerate() {
        // A part at an odd place follows a backtick; it is quoted when another one closes it.
        let opened = at % 2 == 1;
        let closed = at + 1 < parts.len();
        // Blanks only, or a control character: not code worth showing as such.
        let code_like = !part.trim().is_empty() && !part.chars().any(char::is_control);
        match (opened, closed && code_like) {
            (true, true) => out.push_str(&code(part)),
            (true, false) => {
                out.push_str(&plain("`"));
                out.push_str(&plain(part));
                if closed {
                    out.push_str(&plain("`"));
                }
            }
            (false, _) => out.push_str(&plain(part)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_image_a_link_and_html_stay_text() {
        assert_eq!(
            escape("![t](https://evil.example/c.png)"),
            "!\\[t\\](https://evil.example/c.png)"
        );
        assert_eq!(
            escape("<img src=x> & `code`"),
            "&lt;img src=x&gt; &amp; &#96;code&#96;"
        );
        assert_eq!(
            escape("**bold** _it_ ~~s~~ a|b"),
            "\\*\\*bold\\*\\* \\_it\\_ \\~\\~s\\~\\~ a\\|b"
        );
    }

    #[test]
    fn a_line_break_cannot_start_a_block() {
        assert_eq!(escape("a\n# heading\r"), "a\\u{a}\\# heading\\u{d}");
    }

    #[test]
    fn a_message_quotes_as_code_spans_and_escapes_the_rest() {
        assert_eq!(
            prose("no `converge:prod` tag on *it*"),
            "no `converge:prod` tag on \\*it\\*"
        );
        assert_eq!(prose("one ` alone"), "one &#96; alone");
        assert_eq!(prose("`a` and `b"), "`a` and &#96;b");
        assert_eq!(prose("a `` b"), "a &#96;&#96; b");
        assert_eq!(
            prose_html("marked `absent: true` & <b>"),
            "marked <code>absent: true</code> &amp; &lt;b&gt;"
        );
        assert_eq!(prose_html("`<i>`"), "<code>&lt;i&gt;</code>");
    }

    #[test]
    fn plain_names_are_unchanged() {
        assert_eq!(escape("API health 2.0 - prod"), "API health 2.0 - prod");
        assert_eq!(escape("Café Überblick"), "Café Überblick");
    }
}
