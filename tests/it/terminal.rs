//! What the binary draws on a terminal: the progress spinners, and the log lines printed while
//! they turn. The binary runs on a pseudo-terminal made by util-linux's `script` (Linux only;
//! the test skips, saying so, where `script` is missing), and what it wrote is replayed on a
//! small model of a terminal screen ([`Screen`]), so that the assertions are about the lines a
//! user sees, not about escape sequences.

use crate::support::{AgainstMock, KEY, MockServer, Reply, demo_body, vatcar};
use std::process::Command;
use vatcar_site::fetch::endpoint::Endpoint;

/// The width the pseudo-terminal is given: indicatif pads each bar to it and leaves the
/// terminal to wrap, so the model wraps there too.
const WIDTH: usize = 100;

/// The lines of a terminal as the bytes written to it leave them: every line the cursor left
/// by a newline or a wrap (`passed`), and the screen at the end (`rows`). Knows what indicatif
/// and console send: `\r`, `\n`, cursor up and down, erase in line and erase below; other
/// escape sequences (colours, cursor visibility) change no text and are skipped.
#[derive(Default)]
struct Screen {
    rows: Vec<Vec<char>>,
    row: usize,
    col: usize,
    passed: Vec<String>,
}

impl Screen {
    fn replay(bytes: &[u8]) -> Screen {
        let text = String::from_utf8_lossy(bytes);
        let mut screen = Screen::default();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\x1b' if chars.peek() == Some(&'[') => {
                    chars.next();
                    let mut params = String::new();
                    let mut end = None;
                    for c in chars.by_ref() {
                        if ('\x40'..='\x7e').contains(&c) {
                            end = Some(c);
                            break;
                        }
                        params.push(c);
                    }
                    screen.control(&params, end);
                }
                '\x1b' => {
                    chars.next();
                }
                '\r' => screen.col = 0,
                '\n' => screen.next_line(),
                c if c.is_control() => {}
                c => {
                    if screen.col >= WIDTH {
                        screen.next_line();
                    }
                    let (row, col) = (screen.row, screen.col);
                    let line = screen.row_mut(row);
                    if line.len() <= col {
                        line.resize(col + 1, ' ');
                    }
                    line[col] = c;
                    screen.col += 1;
                }
            }
        }
        screen
    }

    fn next_line(&mut self) {
        self.passed.push(self.line(self.row));
        self.row += 1;
        self.col = 0;
    }

    fn control(&mut self, params: &str, end: Option<char>) {
        let n = params.trim_start_matches('?').parse::<usize>().ok();
        let row = self.row;
        let col = self.col;
        match end {
            Some('A') => {
                self.row = row.saturating_sub(n.unwrap_or(1).max(1));
                self.col = col.min(WIDTH - 1);
            }
            Some('B') => {
                self.row = row + n.unwrap_or(1).max(1);
                self.col = col.min(WIDTH - 1);
            }
            Some('G') => self.col = n.unwrap_or(1).clamp(1, WIDTH) - 1,
            Some('K') => match n.unwrap_or(0) {
                0 => self.row_mut(row).truncate(col),
                1 => {
                    let line = self.row_mut(row);
                    let end = col.min(line.len());
                    line[..end].fill(' ');
                }
                _ => self.row_mut(row).clear(),
            },
            Some('J') if n.unwrap_or(0) == 0 => {
                self.row_mut(row).truncate(col);
                self.rows.truncate(row + 1);
            }
            _ => {}
        }
    }

    fn row_mut(&mut self, row: usize) -> &mut Vec<char> {
        if self.rows.len() <= row {
            self.rows.resize(row + 1, Vec::new());
        }
        &mut self.rows[row]
    }

    fn line(&self, row: usize) -> String {
        let line: String = self.rows.get(row).into_iter().flatten().collect();
        line.trim_end().to_owned()
    }

    /// The lines on the screen at the end.
    fn shown(&self) -> Vec<String> {
        (0..self.rows.len()).map(|row| self.line(row)).collect()
    }
}

/// `text` quoted for `sh`.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// Runs `command` on a pseudo-terminal [`WIDTH`] columns wide, both its stdout and stderr,
/// and returns what it wrote there; `None` if util-linux's `script` cannot be run here.
fn on_a_terminal(command: &Command) -> Option<Vec<u8>> {
    let mut line = format!("stty cols {WIDTH} rows 50 && exec ");
    line.push_str(&quoted(&command.get_program().to_string_lossy()));
    for arg in command.get_args() {
        line.push(' ');
        line.push_str(&quoted(&arg.to_string_lossy()));
    }
    let mut script = Command::new("script");
    // -q: no "Script started" lines; -e: the command's exit code; -f: written as it comes.
    script.args(["-qef", "-c", &line, "/dev/null"]);
    for (name, value) in command.get_envs() {
        match value {
            Some(value) => script.env(name, value),
            None => script.env_remove(name),
        };
    }
    script.env("TERM", "xterm-256color");
    match script.output() {
        Ok(output) => {
            assert!(
                output.status.success(),
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
            Some(output.stdout)
        }
        Err(error) => {
            eprintln!("skipped: util-linux's `script` could not be run ({error})");
            None
        }
    }
}

#[test]
fn a_warning_during_a_retry_is_printed_on_its_own_line_above_the_spinners() {
    let server = MockServer::start();
    for endpoint in Endpoint::SITE {
        let body = demo_body(&endpoint.snapshot_file());
        server.replies(endpoint, vec![Reply::status(503), Reply::ok(body)]);
    }
    let out = tempfile::tempdir().unwrap();
    let site = out.path().join("site");
    let mut command = vatcar(&["build", "--output", site.to_str().unwrap()]);
    command.against(&server);
    let Some(written) = on_a_terminal(&command) else {
        return;
    };
    let raw = String::from_utf8_lossy(&written);
    assert!(!raw.contains(KEY), "the key was printed: {raw:?}");

    let screen = Screen::replay(&written);
    // The bars were drawn (a terminal, not CI lines).
    assert!(
        screen.passed.iter().any(|l| l.contains("fetching ")),
        "no spinner was drawn: {raw:?}"
    );
    // What is left when the command is done: each warning on a line of its own, none lost
    // under a bar drawn over it, and no spinner left behind above one.
    let shown = screen.shown();
    for line in shown.iter().filter(|l| l.contains("warning:")) {
        assert!(
            line.starts_with("warning: ") && !line.contains("fetching "),
            "a warning shares its line with a spinner: {line:?}\n{shown:#?}"
        );
    }
    let retries = shown
        .iter()
        .filter(|l| l.starts_with("warning: GET ") && l.contains("HTTP 503; retrying"))
        .count();
    assert_eq!(
        retries,
        Endpoint::SITE.len(),
        "a retry warning is lost: {shown:#?}"
    );
    assert!(
        shown
            .iter()
            .any(|l| l.starts_with("warning: no --site-url")),
        "{shown:#?}"
    );
    assert!(
        !shown.iter().any(|l| l.contains("fetching ")),
        "a spinner is left on the screen: {shown:#?}"
    );
}

/// Issue 47: a first build's banners can take seconds; on a terminal a bar counts them as
/// they are copied, and is gone when the build is done.
#[test]
fn a_bar_counts_the_banners_while_they_are_copied_and_goes() {
    use crate::banners::{api_with_banners, image_reply, png};
    let server = api_with_banners(&["/one.png", "/two.png"]);
    server.route_path("/one.png", vec![image_reply(png(960, 320), "image/png")]);
    server.route_path(
        "/two.png",
        vec![image_reply(png(961, 320), "image/png").delay(std::time::Duration::from_millis(600))],
    );
    let out = tempfile::tempdir().unwrap();
    let site = out.path().join("site");
    let mut command =
        crate::support::vatcar_at_demo_time(&["build", "--output", site.to_str().unwrap()]);
    command.against(&server).env("VATCAR_BANNERS", "local");
    let Some(written) = on_a_terminal(&command) else {
        return;
    };
    let raw = String::from_utf8_lossy(&written);
    assert!(!raw.contains(KEY), "the key was printed: {raw:?}");
    assert!(
        raw.contains("/2 banners copied"),
        "no bar counted the banners: {raw:?}"
    );
    let shown = Screen::replay(&written).shown();
    assert!(
        !shown.iter().any(|l| l.contains("banners copied")),
        "the bar is left on the screen: {shown:#?}"
    );
}
