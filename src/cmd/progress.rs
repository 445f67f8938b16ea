//! What the user sees while a command runs: on a terminal, a line per endpoint that turns
//! into a tick (indicatif); elsewhere (CI logs), one plain line per step; nothing with
//! `--quiet`.

use crate::fetch::client::FetchObserver;
use crate::fetch::endpoint::Endpoint;
use crate::fetch::error::ApiError;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use std::collections::HashMap;
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::Duration;

/// How progress shows: not at all, a line per step, or bars on a terminal.
pub enum Progress {
    Quiet,
    Lines,
    Bars {
        multi: MultiProgress,
        bars: Mutex<HashMap<Endpoint, ProgressBar>>,
        /// The banners read and copied, while they are.
        banners: Mutex<Option<ProgressBar>>,
    },
}

impl Progress {
    pub fn new(quiet: bool) -> Self {
        if quiet {
            Progress::Quiet
        } else if std::io::stderr().is_terminal() && std::env::var_os("CI").is_none() {
            let multi = MultiProgress::new();
            super::console::print_above_bars(multi.clone());
            Progress::Bars {
                multi,
                bars: Mutex::new(HashMap::new()),
                banners: Mutex::new(None),
            }
        } else {
            Progress::Lines
        }
    }

    /// One step of a command: a line in CI, above the bars on a terminal. Lines name the
    /// user's paths, which may hold the key or anything else: each passes the door.
    pub fn step(&self, text: &str) {
        if !matches!(self, Progress::Quiet) && super::repeats::is_new(text, false) {
            super::console::eprint_lines(text);
        }
    }

    /// Prints the closing summary line, whatever the mode but quiet.
    pub fn done(&self, text: &str) {
        if let Progress::Bars { multi, .. } = self {
            let _ = multi.clear();
        }
        if !matches!(self, Progress::Quiet) {
            super::console::eprint_lines(text);
        }
    }
}

/// A number of bytes for people: `512 B`, `1.5 KiB`, `184.7 MiB`.
pub(crate) fn size(bytes: u64) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else if bytes < 1024 * 1024 {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
    }
}

/// `n` things, in the singular or the plural.
pub(crate) fn count(n: usize, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}

impl FetchObserver for Progress {
    fn started(&self, endpoint: Endpoint) {
        if let Progress::Bars { multi, bars, .. } = self {
            let bar = multi.add(ProgressBar::new_spinner());
            bar.set_style(ProgressStyle::with_template("{spinner} {msg}").expect("valid template"));
            bar.set_message(super::console::safe(&format!(
                "fetching {}",
                endpoint.label()
            )));
            bar.enable_steady_tick(Duration::from_millis(100));
            bars.lock().expect("not poisoned").insert(endpoint, bar);
        }
    }

    fn finished(&self, endpoint: Endpoint, outcome: Result<usize, &ApiError>, elapsed: Duration) {
        let text = match outcome {
            Ok(bytes) => format!(
                "fetched {} ({}, {} ms)",
                endpoint.label(),
                size(bytes as u64),
                elapsed.as_millis()
            ),
            Err(_) => format!("failed: {}", endpoint.label()),
        };
        match self {
            Progress::Quiet => {}
            // A failure is the command's to say, once, with its reason (an error, or `check`'s
            // table); a line of its own here would say it twice.
            Progress::Lines if outcome.is_err() => {}
            Progress::Lines => super::console::eprint_lines(&text),
            Progress::Bars { bars, .. } => {
                if let Some(bar) = bars.lock().expect("not poisoned").get(&endpoint) {
                    bar.set_style(ProgressStyle::with_template("{msg}").expect("valid template"));
                    let mark = if outcome.is_ok() { "✓" } else { "✗" };
                    bar.finish_with_message(super::console::safe(&format!("{mark} {text}")));
                }
            }
        }
    }
}

/// A bar on a terminal while the banners are read and copied (a first build's photographs can
/// take seconds), gone once the last is copied; the stage's line under `-v` says the rest.
impl crate::fetch::banners::Observer for Progress {
    fn reading(&self, count: usize) {
        if let Progress::Bars { multi, banners, .. } = self {
            let bar = multi.add(ProgressBar::new(count as u64));
            bar.set_style(
                ProgressStyle::with_template("{bar:24} {pos}/{len} banners copied")
                    .expect("valid template"),
            );
            bar.tick();
            *banners.lock().expect("not poisoned") = Some(bar);
        }
    }

    fn copied(&self) {
        if let Progress::Bars { banners, .. } = self {
            let banners = banners.lock().expect("not poisoned");
            if let Some(bar) = banners.as_ref() {
                bar.inc(1);
                if Some(bar.position()) >= bar.length() {
                    bar.finish_and_clear();
                }
            }
        }
    }
}
