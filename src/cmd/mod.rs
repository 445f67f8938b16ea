//! The command line: one file per subcommand, each running the stages in order; the flags in
//! `args.rs`, what they mean beside the config file (`crate::settings`) and the environment in
//! `settings.rs`; messages on stderr and exit codes (0 success, 1 failure, 2 usage) here.

mod activity;
mod announce;
mod args;
pub mod build;
mod check;
mod completions;
mod console;
mod fetch;
mod github;
pub mod init;
mod logger;
mod new_files;
pub mod options;
pub mod progress;
mod repeats;
pub mod report;
pub mod serve;
mod settings;
mod side_reads;
mod site_folder;
mod stages;
mod templates;

use crate::problems::{ConfigMistakes, Problems};
use crate::secret::{ApiKey, Secrets};
use crate::settings::Settings;
use anyhow::Result;
use args::{Cli, Command};
use clap::Parser;
use progress::Progress;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use crate::usage::UsageError;

/// The exit code of a run that failed: 2 for a mistake in how the program was called
/// ([`UsageError`], whichever layer found it, or the config file's mistakes), 1 for anything
/// else.
fn exit_code(error: &anyhow::Error) -> u8 {
    let in_config = |e: &(dyn std::error::Error + 'static)| {
        e.is::<ConfigMistakes>()
            || e.downcast_ref::<Problems>()
                .is_some_and(Problems::in_config)
    };
    if error.chain().any(|e| e.is::<UsageError>() || in_config(e)) {
        2
    } else {
        1
    }
}

pub fn run() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    for key in logger::keys_in(std::env::var_os("VATCAR_API_KEY"), &args) {
        console::know(key);
    }
    announce::Webhook::know_default();
    logger::scrub_panics();
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(error) => return usage_error(&error),
    };
    let level = match (cli.quiet, cli.verbose) {
        (true, _) => log::LevelFilter::Error,
        (false, 0) => log::LevelFilter::Warn,
        (false, 1) => log::LevelFilter::Info,
        _ => log::LevelFilter::Debug,
    };
    logger::Logger::install(level);
    stop_on_signals();
    // A config file that does not read is a usage error, like a bad flag. Only the commands
    // that use one read it: `init` may be run to replace a broken one, and `templates` and
    // `completions` have nothing to do with it.
    let config = if cli.command.uses_config() {
        Settings::load(cli.config.as_deref()).map_err(|e| config_error(e, &cli))
    } else {
        Ok(Settings::default())
    };
    let (config, result) = match config {
        Ok(config) => {
            let settings = settings::over(&cli.command, config);
            // Every key that could be used is known to the logger, the error printer and the
            // checks on output files. A key that is refused is refused by the command that
            // would send it; a demo build does not need one.
            let known = settings::api_key(&settings).ok().flatten();
            if let Some(key) = &known {
                console::know(key.clone());
            }
            let result = execute(&cli, &settings, known);
            (Some(settings), result)
        }
        Err(error) => (None, Err(error)),
    };
    // A signal that came while a publication finished its swap: the work is done, but the
    // caller asked to stop, and learns so from the exit code.
    let stopped = crate::publish::interrupted();
    let code = match result {
        Ok(()) => 0,
        Err(error) => {
            if github::in_actions() {
                github::annotate_error(&error);
                if let Command::Build(args) = &cli.command {
                    let from_config = config.as_ref().and_then(|c| c.site_url.as_ref());
                    let site_url = from_config.map(|u| &u.0).or(args.site.site_url.as_ref());
                    github::summarize(&github::BuildSummary {
                        pages: 0,
                        calendars: 0,
                        warnings: logger::warnings(),
                        site_url: site_url.map(url::Url::as_str),
                        error: Some(&error),
                    });
                }
            }
            let mut text = format!("error: {error}");
            for cause in error.chain().skip(1) {
                text.push_str(&format!("\n  caused by: {cause}"));
            }
            if let Some(hint) = hint(&error) {
                text.push_str(&format!("\n  hint: {hint}"));
            }
            console::eprint_lines(&text);
            exit_code(&error)
        }
    };
    match stopped {
        Some(signal) => ExitCode::from(128 + signal as u8),
        None => ExitCode::from(code),
    }
}

/// A config file that does not read: a usage error. Where the command builds the site, the
/// mistakes of its pages' front matter come with the file's, so that one run names them all.
fn config_error(error: anyhow::Error, cli: &Cli) -> anyhow::Error {
    let Some(mistakes) = error.downcast_ref::<ConfigMistakes>() else {
        return UsageError(format!("{error:#}")).into();
    };
    let pages = match cli.command {
        Command::Build(_) | Command::Serve(_) => {
            site_folder::front_matter_problems(cli.config.as_deref())
        }
        _ => Vec::new(),
    };
    match pages.is_empty() {
        true => error,
        false => Problems::with_config(mistakes, pages).into(),
    }
}

/// Prints clap's message (help and version on stdout, a usage error on stderr) and returns
/// its exit code. clap quotes the values it refuses, so an error that holds a known key or a
/// line that is not safe as it is is printed through the door (and then without colours).
fn usage_error(error: &clap::Error) -> ExitCode {
    let plain = error.to_string();
    if console::safe(&plain) == plain {
        let _ = error.print();
    } else {
        console::print_text(&plain, error.use_stderr());
    }
    ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2))
}

/// SIGINT and SIGTERM (Ctrl-C, a cancelled CI job) stop the run at once, unless a
/// publication is under way: then it is asked to stop, puts the output folder back (or
/// finishes a swap it has begun), and the run exits with 128 + the signal's number. A second
/// signal stops at once; what that leaves is cleaned up by the next run.
fn stop_on_signals() {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
            return;
        };
        std::thread::spawn(move || {
            let mut asked = false;
            for signal in signals.forever() {
                if asked || !crate::publish::interrupt(signal) {
                    std::process::exit(128 + signal);
                }
                asked = true;
                log::warn!("stopping: the output folder is being left as it was");
            }
        });
    }
}

/// The secrets no file of this run may hold, whatever it publishes (a site, reports, a
/// snapshot): the API key it uses, and the Discord webhook's address in the environment,
/// which any command may run beside.
pub(crate) fn guarded(key: Option<&ApiKey>) -> Secrets {
    let mut secrets = Secrets::default();
    if let Some(key) = key {
        secrets.guard(key.clone(), "the API key");
    }
    announce::Webhook::guard_default(&mut secrets);
    secrets
}

/// What to do next, for the errors where that is known.
fn hint(error: &anyhow::Error) -> Option<&'static str> {
    use crate::fetch::endpoint::Endpoint;
    use crate::fetch::error::ApiError;
    let api = error.chain().find_map(|e| e.downcast_ref::<ApiError>());
    match api {
        Some(ApiError::MissingKey) => {
            Some("try `vatcar-site build --demo` to see the site without a key")
        }
        Some(ApiError::KeyRejected { .. }) => Some(
            "run `vatcar-site check` after fixing the key; for a new key, ask your facility's Air Traffic Manager or the division's staff (README.md, \"Your facility's API key\")",
        ),
        Some(ApiError::Timeout { .. }) => {
            Some("the service may be slow or down; raise --timeout or try again later")
        }
        Some(ApiError::Connect { .. }) => Some("check the network and --base-url"),
        // Other endpoints answered at the same address: the base URL is right, and the
        // message says what to check instead.
        Some(ApiError::NotFound {
            others_answered: true,
            ..
        }) => None,
        Some(ApiError::NotFound {
            endpoint: Endpoint::User(_) | Endpoint::UserNotes(_),
            ..
        }) => Some(
            "if the CID is right, check --base-url (older documents used https://vatcar.net/public)",
        ),
        Some(ApiError::NotFound { .. }) => {
            Some("check --base-url (older documents used https://vatcar.net/public)")
        }
        _ => None,
    }
}

/// `settings`: the config file's, with the command's flags laid over them.
fn execute(cli: &Cli, config: &Settings, key: Option<ApiKey>) -> Result<()> {
    let started = Instant::now();
    let progress = Arc::new(Progress::new(cli.quiet));
    match &cli.command {
        Command::Init(args) => init::run(args, &progress),
        Command::Build(args) => build::run(args, config, &progress, key, started),
        Command::Serve(args) => serve::run(args, config, &progress, key),
        Command::Check(args) => check::run(args, config, &progress, key.as_ref()),
        Command::Fetch(args) => fetch::run(args, config, &progress, key.as_ref(), started),
        Command::Report(kind) => report::run(kind, config, &progress, key),
        Command::Templates(action) => templates::run(action, &progress),
        Command::Announce(args) => announce::run(args, config, &progress),
        Command::Completions { shell } => {
            completions::run(*shell);
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;
    use std::path::Path;

    #[test]
    fn a_usage_mistake_from_any_layer_exits_2_and_anything_else_1() {
        let usage: Result<()> = Err(UsageError("--snapshot is a file".into()).into());
        let wrapped = usage.context("could not publish to site");
        assert_eq!(exit_code(&wrapped.unwrap_err()), 2);
        let nested = crate::publish::check_apart(Path::new("."), Path::new("./snapshot"));
        assert_eq!(exit_code(&nested.unwrap_err()), 2);
        assert_eq!(exit_code(&anyhow::anyhow!("the API did not answer")), 1);
    }
}
