//! The one door every line this program prints passes through, on stdout and stderr, in
//! every mode (a terminal, a CI log, a GitHub Actions step): log lines, errors and their
//! causes, progress and summary lines, the dry run of `announce`, `check`'s table, clap's
//! usage errors and a panic's message. (The one exception is the shell completion script of
//! `completions`, a constant of the program with no outside text in it.)
//!
//! What passes is made safe whatever a message quotes, even when a caller forgot to quote
//! untrusted text ([`safe`]):
//! - every API key and webhook secret the run knows is replaced by `[REDACTED]`;
//! - no address keeps its user name and password (`https://user:pass@host/`), whether the
//!   program shows it or quotes what was typed (clap's usage errors);
//! - no line holds a control character other than tab (a terminal's escape, a CR, a NEL), a
//!   line or paragraph separator or a bidi control: each is shown as its escape (`\u{1b}`);
//! - no line holds `##[`, which GitHub's runner reads as a command anywhere in a line: it is
//!   printed `##\[`;
//! - no line starts with `::` after blanks, which the runner reads as a workflow command
//!   (`::add-mask::`, `::stop-commands::`): the first colon is printed `\:`.
//!
//! The program's own annotations are the only lines that start with `::`, written by
//! [`workflow_command`] with their message escaped as the runner reads it.

use crate::sanitize::quote::breaks_lines;
use crate::secret::{ApiKey, without_userinfo};
use indicatif::MultiProgress;
use std::borrow::Cow;
use std::io::Write;
use std::sync::RwLock;

/// Every secret this run knows.
static KEYS: RwLock<Vec<ApiKey>> = RwLock::new(Vec::new());

/// The progress bars on the terminal, once a command draws some.
static BARS: RwLock<Option<MultiProgress>> = RwLock::new(None);

/// Adds `key` to the secrets scrubbed from what is printed.
pub fn know(key: ApiKey) {
    let mut keys = KEYS.write().unwrap_or_else(|e| e.into_inner());
    if !keys.contains(&key) {
        keys.push(key);
    }
}

/// `text` with every known secret replaced by `[REDACTED]`, and the user name and password
/// of every address left out.
pub fn scrub(text: &str) -> String {
    let keys = KEYS.read().unwrap_or_else(|e| e.into_inner());
    let mut text = without_userinfo(text).into_owned();
    for key in keys.iter() {
        text = key.redact(&text);
    }
    text
}

/// Prints lines on stderr through `bars` from now on, so that none is written into a bar's
/// line: the bars are cleared, the line printed on its own, and the bars drawn again below.
pub fn print_above_bars(bars: MultiProgress) {
    *BARS.write().unwrap_or_else(|e| e.into_inner()) = Some(bars);
}

/// Prints `text` (one line or several) on stderr, made [`safe`].
pub fn eprint_lines(text: &str) {
    let text = safe(text);
    let bars = BARS.read().unwrap_or_else(|e| e.into_inner());
    match bars.as_ref() {
        Some(bars) => bars.suspend(|| eprintln!("{text}")),
        None => eprintln!("{text}"),
    }
}

/// Prints `text` (one line or several) on stdout, made [`safe`].
pub fn print_lines(text: &str) {
    let text = safe(text);
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}");
}

/// Prints text that already ends its own lines (clap's help) on stdout or stderr, made safe.
pub fn print_text(text: &str, on_stderr: bool) {
    let text = safe(text);
    if on_stderr {
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    } else {
        let _ = std::io::stdout().lock().write_all(text.as_bytes());
    }
}

/// One of the program's own GitHub Actions workflow commands, on stdout where the runner
/// reads them: `::NAME PROPERTIES::MESSAGE`. `properties` are escaped by the caller as
/// property values; the message is escaped here as the runner reads a command's data, and
/// holds no `##[` nor any other character that [`safe`] would change.
pub fn workflow_command(name: &str, properties: &str, message: &str) {
    let message = command_data(&safe(message));
    let properties = safe(properties);
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "::{name} {properties}::{message}");
}

/// A workflow command's data, escaped as the runner reads it: `%`, CR and LF.
pub fn command_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// `text` as it may be printed: scrubbed of every known secret, and each of its lines made
/// [`safe_line`].
pub fn safe(text: &str) -> String {
    let scrubbed = scrub(text);
    let lines: Vec<Cow<str>> = scrubbed.split('\n').map(safe_line).collect();
    lines.join("\n")
}

/// One line that can neither command a CI runner nor act on a terminal (see the module's
/// documentation). Unchanged, and not copied, when it is already safe.
pub fn safe_line(line: &str) -> Cow<'_, str> {
    let starts_command = starts_with_command(line);
    if !starts_command && !line.contains("##[") && !line.chars().any(breaks_lines) {
        return line.into();
    }
    let mut out = String::with_capacity(line.len() + 8);
    for c in line.chars() {
        if breaks_lines(c) {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    let mut out = out.replace("##[", "##\\[");
    if starts_command {
        let colon = out.find(':').expect("the line starts with `::`");
        out.insert(colon, '\\');
    }
    out.into()
}

/// Whether the runner would read `line` as a workflow command: `::` after blanks. The runner
/// trims every Unicode blank (.NET's `Trim`), and a zero-width character shows as nothing:
/// both are taken as blanks here.
fn starts_with_command(line: &str) -> bool {
    line.trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}')
    })
    .starts_with("::")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What GitHub's runner would take for a command in `line`: `::` first after blanks, or
    /// `##[` anywhere.
    fn runner_reads_a_command(line: &str) -> bool {
        line.trim().starts_with("::") || line.contains("##[")
    }

    #[test]
    fn no_line_made_safe_commands_the_runner_or_the_terminal() {
        let hostile = [
            "::error title=Forged::Injected Zed joined as a home controller",
            "  ::add-mask::secret",
            "\u{a0}\u{2003}::stop-commands::x",
            "\u{feff}::error::bom",
            "\u{200b}::error::zero width",
            "Fly-in ##[error]Forged",
            "###[error] and ##[[x",
            "a\rb\u{1b}]0;TITLE\u{7}\u{1b}[2J\u{85}::error::nel\u{2028}::x\u{202e}",
        ];
        for text in hostile {
            let shown = safe(text);
            for line in shown.split('\n') {
                assert!(!runner_reads_a_command(line), "{text:?} -> {line:?}");
                assert!(!line.chars().any(breaks_lines), "{text:?} -> {line:?}");
            }
        }
        let shown = safe("first\n  ::add-mask::secret\nFly-in ##[error]Forged");
        assert_eq!(
            shown,
            "first\n  \\::add-mask::secret\nFly-in ##\\[error]Forged"
        );
        assert_eq!(safe_line("a\rb\u{1b}c"), "a\\rb\\u{1b}c");
    }

    #[test]
    fn a_safe_line_is_left_as_it_is() {
        let plain = "warning: content/join.md:3:1: a: b :: c # [x]";
        assert!(matches!(safe_line(plain), Cow::Borrowed(_)));
        assert_eq!(safe("two\nlines"), "two\nlines");
    }

    #[test]
    fn a_commands_data_is_escaped_as_the_runner_reads_it() {
        assert_eq!(command_data("100% done\r\nnext"), "100%25 done%0D%0Anext");
    }
}
