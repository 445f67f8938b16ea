//! Log lines (`error:`, `warning:`, `info:`), counted and printed through the console's door
//! ([`super::console`]), which scrubs every key the run knows and makes each line safe; in
//! GitHub Actions a warning with a place is also annotated on its file.
//!
//! Keys are known as early as they can be: the ones in the environment and on the command
//! line before the command line is parsed (clap's errors quote the values they refuse), the
//! one in a config file once it is read.

use super::console;
use crate::secret::ApiKey;
use std::ffi::OsString;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The warnings printed so far, for a build's summary.
static WARNINGS: AtomicUsize = AtomicUsize::new(0);

/// How many warnings this run has printed.
pub fn warnings() -> usize {
    WARNINGS.load(Ordering::Relaxed)
}

/// A panic's message passes the door too (it may quote a path or a value holding the key, or
/// untrusted text). One that is safe as it is is printed as Rust prints it, with its
/// backtrace if one is asked for.
pub fn scrub_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let plain = info.to_string();
        if console::safe(&plain) == plain {
            default(info);
        } else {
            console::eprint_lines(&plain);
        }
    }));
}

/// The keys `VATCAR_API_KEY` and `--api-key` give, read before clap parses `args`. A value
/// that is no valid key is left out: the command refuses it before using it, and so short a
/// key could not be scrubbed anyway.
pub fn keys_in(env: Option<OsString>, args: &[OsString]) -> Vec<ApiKey> {
    let mut raw: Vec<&str> = env.iter().filter_map(|v| v.to_str()).collect();
    let mut args = args.iter().map(|a| a.to_str());
    while let Some(arg) = args.next() {
        match arg {
            Some("--api-key") => raw.extend(args.next().flatten()),
            Some(arg) => raw.extend(arg.strip_prefix("--api-key=")),
            None => {}
        }
    }
    raw.into_iter()
        .filter_map(|r| ApiKey::new(r).ok())
        .collect()
}

/// Log lines on stderr, each scrubbed.
pub struct Logger {
    level: log::LevelFilter,
}

impl Logger {
    pub fn install(level: log::LevelFilter) {
        let logger = Box::leak(Box::new(Logger { level }));
        if log::set_logger(logger).is_ok() {
            log::set_max_level(level);
        }
    }
}

impl log::Log for Logger {
    fn enabled(&self, metadata: &log::Metadata) -> bool {
        metadata.level() <= self.level && metadata.target().starts_with("vatcar_site")
    }

    fn log(&self, record: &log::Record) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let text = console::scrub(&record.args().to_string());
        let label = match record.level() {
            log::Level::Error => "error",
            log::Level::Warn => "warning",
            log::Level::Info => "info",
            log::Level::Debug | log::Level::Trace => "debug",
        };
        let warning = record.level() == log::Level::Warn;
        let line = format!("{label}: {text}");
        if warning && !super::repeats::is_new(&line, true) {
            return;
        }
        if warning {
            WARNINGS.fetch_add(1, Ordering::Relaxed);
            if super::github::in_actions()
                && let Some(problem) = super::github::located(&text)
            {
                super::github::annotate("warning", &problem);
            }
        }
        console::eprint_lines(&line);
    }

    fn flush(&self) {}
}

#[cfg(test)]
mod tests {
    use super::keys_in;
    use std::ffi::OsString;

    #[test]
    fn keys_are_read_from_the_environment_and_both_spellings_of_the_flag() {
        let args = |list: &[&str]| list.iter().map(OsString::from).collect::<Vec<_>>();
        let found = keys_in(
            Some("env-key-0123456789abcdef".into()),
            &args(&[
                "vatcar-site",
                "build",
                "--api-key",
                "flag-key-0123456789abcdef",
                "--api-key=joined-key-0123456789abcdef",
                "--api-key=short",
                "--api-key",
            ]),
        );
        let scrubbed: Vec<String> = found
            .iter()
            .map(|k| k.redact("env-key-0123456789abcdef flag-key-0123456789abcdef joined-key-0123456789abcdef"))
            .collect();
        assert_eq!(found.len(), 3);
        assert_eq!(
            scrubbed,
            [
                "[REDACTED] flag-key-0123456789abcdef joined-key-0123456789abcdef",
                "env-key-0123456789abcdef [REDACTED] joined-key-0123456789abcdef",
                "env-key-0123456789abcdef flag-key-0123456789abcdef [REDACTED]",
            ]
        );
    }
}
