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
    fn plain_names_are_unchanged() {
        assert_eq!(escape("API health 2.0 - prod"), "API health 2.0 - prod");
        assert_eq!(escape("Café Überblick"), "Café Überblick");
    }
}
