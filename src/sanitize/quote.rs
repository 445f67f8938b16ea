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
    let mut out = visible(line.chars().take(MAX));
    if line.chars().nth(MAX).is_some() || text.lines().nth(1).is_some() {
        out.push('…');
    }
    out
}

/// Text from the server shown in an error: control characters made visible, cut to `max`
/// characters, so that a hostile body can neither flood the terminal nor move its cursor.
pub fn excerpt(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (count, c) in text.chars().enumerate() {
        if count == max {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Every line of `text` cut to [`MAX`] characters: for messages of a library (Tera's) that
/// may quote a line of a file, or a value from one, anywhere in them.
pub fn cut_lines(text: &str) -> String {
    text.lines()
        .map(|line| {
            let mut out: String = line.chars().take(MAX).collect();
            if line.chars().nth(MAX).is_some() {
                out.push('…');
            }
            out
        })
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
            c if c.is_control() => '\u{FFFD}',
            c => c,
        })
        .collect()
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
