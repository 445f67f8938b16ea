//! Lines of a user's file quoted in an error message: one line at a time, at most [`MAX`]
//! characters of it, control characters made visible. A generated or hostile file (a
//! minified template, a catalogue that is really `/proc/self/environ`) can neither flood the
//! terminal nor carry a file into a CI log; the file, line and column say where the rest is.
//! Text from the server is quoted on the same terms ([`excerpt`]).

/// The most characters of one line an error quotes.
pub const MAX: usize = 200;

/// Characters shown around the column an error points at.
const WINDOW: usize = 120;

/// `text` as a message mentions it (a key, a parser's message): its first line, cut to
/// [`MAX`] characters, `…` where anything is left out.
pub fn short(text: &str) -> String {
    let line = text.lines().next().unwrap_or("");
    let more = text.lines().nth(1).is_some() && line.chars().nth(MAX).is_none();
    cut(line, MAX, |line| visible(line.chars())) + if more { "…" } else { "" }
}

/// `text` cut to `max` characters and shown by `show`, `…` after it where anything is left out.
fn cut(text: &str, max: usize, show: impl FnOnce(&str) -> String) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => show(&text[..end]) + "…",
        None => show(text),
    }
}

/// Text from the server shown in an error: control characters made visible, cut to `max`
/// characters, so that a hostile body can neither flood the terminal nor move its cursor.
pub fn excerpt(text: &str, max: usize) -> String {
    cut(text, max, |text| one_line(text).into_owned())
}

/// The first `shown` of `items`, for a message that names what it is about, and how many
/// more there are: `a, b, c, and 12 more`.
pub fn first_few(items: impl ExactSizeIterator<Item = String>, shown: usize) -> String {
    let more = items.len().saturating_sub(shown);
    let last = (more > 0).then(|| format!("and {more} more"));
    (items.take(shown).chain(last))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every line of `text` cut to [`MAX`] characters: for messages of a library (Tera's) that
/// may quote a line of a file, or a value from one, anywhere in them.
pub fn cut_lines(text: &str) -> String {
    (text.lines())
        .map(|line| cut(line, MAX, str::to_owned))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Line `line` of `text` (from 1) quoted with a caret under character `column` (from 1), as
/// two lines (`  3 | <p>{{ oops oops }}</p>` and the caret): at most [`WINDOW`] characters
/// around the column, `…` where the line goes on. `None` if there is no such line.
pub fn pointing(text: &str, line: usize, column: usize) -> Option<String> {
    let source = text.lines().nth(line.checked_sub(1)?)?;
    let chars: Vec<char> = source.chars().collect();
    let at = column.saturating_sub(1).min(chars.len());
    let start = at.saturating_sub(WINDOW / 2);
    let end = (start + WINDOW).min(chars.len());
    let start = end.saturating_sub(WINDOW).min(start);
    let mut shown = String::new();
    let mut caret = at - start;
    if start > 0 {
        shown.push('…');
        caret += 1;
    }
    shown.push_str(&visible(chars[start..end].iter().copied()));
    if end < chars.len() {
        shown.push('…');
    }
    let number = line.to_string();
    Some(format!(
        "  {number} | {shown}\n  {} | {}^",
        " ".repeat(number.len()),
        " ".repeat(caret)
    ))
}

/// Characters with the control ones (a terminal's escapes, a NUL) shown as `�`, one for one,
/// so that a caret below stays in its column; a tab as a space.
fn visible(chars: impl Iterator<Item = char>) -> String {
    chars
        .map(|c| match c {
            '\t' => ' ',
            c if breaks_lines(c) => '\u{FFFD}',
            c => c,
        })
        .collect()
}

/// Whether `c`, printed as itself, could end a line, act on a terminal or reorder the text
/// around it: a control other than tab (a newline, CR, NEL, an escape), a line or paragraph
/// separator (U+2028, U+2029), or a bidi embedding, override or isolate (U+202A to U+202E,
/// U+2066 to U+2069).
pub fn breaks_lines(c: char) -> bool {
    (c.is_control() && c != '\t') || matches!(c, '\u{2028}' | '\u{2029}') || is_bidi_control(c)
}

/// The bidi embedding, override and isolate controls, which make a right-to-left override
/// show text in another order than it is read.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Untrusted text on one line of a message, after a label of ours: each character that
/// [`breaks_lines`] shown as its escape (`\n`, `\u{1b}`), the rest as it is. Unchanged, and
/// not copied, when it has none.
pub fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(breaks_lines) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 8);
    push_escaped(&mut out, text, false);
    out.into()
}

/// `text` pushed onto `out` with each character that [`breaks_lines`] as its escape, and with
/// `quote`, quotes and backslashes escaped too.
fn push_escaped(out: &mut String, text: &str, quote: bool) {
    for c in text.chars() {
        match c {
            '"' | '\\' if quote => {
                out.push('\\');
                out.push(c);
            }
            c if breaks_lines(c) => out.extend(c.escape_debug()),
            c => out.push(c),
        }
    }
}

/// Untrusted text that stands alone in a message (a title, a name, a value refused): in
/// double quotes, with quotes, backslashes and every character that [`breaks_lines`] escaped,
/// so that it can neither end the line nor start one.
pub fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    push_escaped(&mut out, text, true);
    out.push('"');
    out
}

/// [`quoted`], cut to `max` characters, `…` after the closing quote where anything is left
/// out: a name from the API, which may be huge.
pub fn quoted_cut(text: &str, max: usize) -> String {
    cut(text, max, quoted)
}

/// A path where a message starts with it (`content/join.md:12: ...`): as it is when it is
/// plain, [`quoted`] when it holds a character that [`breaks_lines`], a quote, or starts
/// with a blank or a `:`, so that a file's name can neither end the line nor start it with
/// something else.
pub fn path(text: &str) -> std::borrow::Cow<'_, str> {
    let plain = !text.starts_with(|c: char| c.is_whitespace() || c == ':')
        && !text.chars().any(|c| breaks_lines(c) || c == '"');
    if plain {
        text.into()
    } else {
        quoted(text).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_is_quoted_around_the_column_and_cut() {
        let line = format!("{}{{{{ oops }}}}{}", "a".repeat(5000), "b".repeat(5000));
        let text = format!("first\n{line}\nlast");
        let quoted = pointing(&text, 2, 5004).unwrap();
        let lines: Vec<&str> = quoted.lines().collect();
        assert_eq!(lines.len(), 2, "{quoted}");
        assert!(
            lines[0].starts_with("  2 | …a") && lines[0].ends_with("b…"),
            "{quoted}"
        );
        assert!(lines[0].chars().count() <= MAX, "{quoted}");
        assert!(lines[0].contains("{{ oops }}"));
        // The caret is under the column pointed at.
        let caret = lines[1].chars().count() - 1;
        assert_eq!(lines[0].chars().nth(caret), Some('o'), "{quoted}");
        assert_eq!(pointing(&text, 4, 1), None);
        assert_eq!(pointing("x", 0, 1), None);
        assert_eq!(pointing("ab", 1, 1).unwrap(), "  1 | ab\n    | ^");
    }

    #[test]
    fn untrusted_text_can_neither_end_a_line_nor_start_one() {
        let hostile = "a\nb\rc\u{85}d\u{2028}e\u{2029}f\u{1b}[2Jg\u{202e}h\u{2066}i\u{7}j\tk";
        let shown = one_line(hostile);
        assert!(!shown.chars().any(breaks_lines), "{shown}");
        assert_eq!(
            shown,
            "a\\nb\\rc\\u{85}d\\u{2028}e\\u{2029}f\\u{1b}[2Jg\\u{202e}h\\u{2066}i\\u{7}j\tk"
        );
        assert!(matches!(
            one_line("plain: café ✈"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(quoted("::error::x\n\"y\\"), r#""::error::x\n\"y\\""#);
        assert_eq!(quoted_cut("Fly-in\n##[x]", 9), r#""Fly-in\n##"…"#);
        assert_eq!(quoted_cut("short", 9), r#""short""#);
        assert_eq!(path("content/join.md"), "content/join.md");
        assert_eq!(
            path("content/nl\n::error::x.md"),
            r#""content/nl\n::error::x.md""#
        );
        assert_eq!(path("::x.md"), r#""::x.md""#);
        assert_eq!(path(" x.md"), r#"" x.md""#);
    }

    #[test]
    fn short_mentions_are_one_visible_line() {
        assert_eq!(short("key\nsecond line"), "key…");
        assert_eq!(short("a\u{1b}[2Jb"), "a\u{FFFD}[2Jb");
        let long = "k".repeat(5000);
        assert_eq!(short(&long).chars().count(), MAX + 1);
        assert_eq!(
            cut_lines(&format!("ok\n{long}"))
                .lines()
                .last()
                .unwrap()
                .chars()
                .count(),
            MAX + 1
        );
    }
}
