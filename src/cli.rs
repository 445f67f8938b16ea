//! The command line: argument parsing, logging to stderr, and turning errors into messages
//! and exit codes (0 success, 1 failure, 2 usage).

use crate::build::{self, BuildOptions, ReportOptions};
use crate::client::{ClientOptions, DEFAULT_BASE_URL, RetryPolicy};
use crate::endpoint::Endpoint;
use crate::load::{self, Source};
use crate::secret::ApiKey;
use crate::snapshot::{self, Snapshot};
use anyhow::{Context, Result, bail};
use chrono::{DateTime, Utc};
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(Parser, Debug)]
#[command(
    name = "vatcar-site",
    version,
    about = "Builds a VATCAR facility's website from the division's API v2"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,

    /// Say more: each request, each retry (-vv for debugging detail).
    #[arg(long = "verbose", short = 'v', global = true, action = clap::ArgAction::Count)]
    verbose: u8,

    /// Print only errors.
    #[arg(long = "quiet", short = 'q', global = true, conflicts_with = "verbose")]
    quiet: bool,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Fetch (or read a snapshot), render and write the site.
    Build(BuildArgs),
    /// Save the raw API responses to a snapshot folder, for `build --snapshot` later.
    Fetch(FetchArgs),
    /// Private printable reports, written to their own folder (never into the site).
    Report(ReportArgs),
}

#[derive(Args, Debug)]
struct ReportArgs {
    #[command(subcommand)]
    kind: ReportKind,
}

#[derive(Subcommand, Debug)]
enum ReportKind {
    /// A student's training record: one self-contained HTML file per CID.
    Training(TrainingArgs),
    /// The roster on one printed page.
    Roster(ReportCommon),
}

#[derive(Args, Debug)]
struct ReportCommon {
    #[command(flatten)]
    api: ApiArgs,

    /// Folder for the reports.
    #[arg(long = "output", short = 'o', default_value = "reports")]
    output: PathBuf,

    /// Read from a snapshot folder (with user-N.json and notes-N.json for training reports).
    #[arg(long = "snapshot", conflicts_with = "demo")]
    snapshot: Option<PathBuf>,

    /// Use the sample data built into the program.
    #[arg(long = "demo")]
    demo: bool,

    /// Use templates from this folder where it has them.
    #[arg(long = "templates")]
    templates: Option<PathBuf>,

    /// Write into a folder that vatcar-site did not create.
    #[arg(long = "force")]
    force: bool,
}

#[derive(Args, Debug)]
struct TrainingArgs {
    #[command(flatten)]
    common: ReportCommon,

    /// A student's CID; repeat for several.
    #[arg(long = "cid", value_parser = clap::value_parser!(u64).range(1..))]
    cids: Vec<u64>,

    /// A file of CIDs, separated by spaces, commas or lines; `#` starts a comment.
    #[arg(long = "cids-file")]
    cids_file: Option<PathBuf>,

    /// Also show the student's email, email preferences and integrations.
    #[arg(long = "include-contact")]
    include_contact: bool,
}

/// A mistake in how the command was called, found after parsing (exit code 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct UsageError(String);

impl ReportCommon {
    fn source(&self) -> Source {
        if self.demo {
            Source::Demo
        } else if let Some(dir) = &self.snapshot {
            Source::Snapshot(dir.clone())
        } else {
            Source::Api(self.api.client_options())
        }
    }

    fn options(&self, include_contact: bool) -> Result<ReportOptions> {
        let source = self.source();
        Ok(ReportOptions {
            generated_at: build_time(&source)?,
            source,
            output: self.output.clone(),
            templates: self.templates.clone(),
            force: self.force,
            include_contact,
        })
    }
}

/// The CIDs of a training run, from `--cid` and `--cids-file`, each once, in the order given.
fn training_cids(args: &TrainingArgs) -> Result<Vec<u64>> {
    let mut cids = args.cids.clone();
    if let Some(path) = &args.cids_file {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("could not read the CIDs file {}", path.display()))?;
        for (number, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("");
            for token in line
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|t| !t.is_empty())
            {
                match token.parse::<u64>() {
                    Ok(cid) if cid > 0 => cids.push(cid),
                    _ => {
                        return Err(UsageError(format!(
                            "{}:{}: {token:?} is not a CID",
                            path.display(),
                            number + 1
                        ))
                        .into());
                    }
                }
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    cids.retain(|cid| seen.insert(*cid));
    if cids.is_empty() {
        return Err(UsageError(
            "no CID given: pass --cid N (repeatable) or --cids-file FILE".into(),
        )
        .into());
    }
    Ok(cids)
}

#[derive(Args, Debug, Clone)]
struct ApiArgs {
    /// The API's address; older documents used https://vatcar.net/public.
    #[arg(long = "base-url", env = "VATCAR_BASE_URL", default_value = DEFAULT_BASE_URL)]
    base_url: String,

    /// The facility's API key. Prefer the environment variable: a flag is visible to other
    /// users of the machine.
    #[arg(long = "api-key", env = "VATCAR_API_KEY", hide_env_values = true)]
    api_key: Option<String>,

    /// Seconds one request may take, from connecting to the last byte.
    #[arg(long = "timeout", default_value_t = 30.0, value_parser = positive_seconds)]
    timeout: f64,

    /// Seconds to wait for a connection.
    #[arg(long = "connect-timeout", default_value_t = 10.0, value_parser = positive_seconds)]
    connect_timeout: f64,
}

#[derive(Args, Debug)]
struct BuildArgs {
    #[command(flatten)]
    api: ApiArgs,

    /// Output folder.
    #[arg(long = "output", short = 'o', default_value = "output")]
    output: PathBuf,

    /// Build from a snapshot folder instead of the API.
    #[arg(long = "snapshot", conflicts_with_all = ["demo", "save_snapshot"])]
    snapshot: Option<PathBuf>,

    /// Build from the sample data built into the program (no network, no key).
    #[arg(long = "demo")]
    demo: bool,

    /// Also save the fetched responses to this snapshot folder.
    #[arg(long = "save-snapshot")]
    save_snapshot: Option<PathBuf>,

    /// Use template and static files from this folder where it has them.
    #[arg(long = "templates")]
    templates: Option<PathBuf>,

    /// Write into an output folder that vatcar-site did not create (nothing in it is deleted).
    #[arg(long = "force")]
    force: bool,

    /// Where the site will be published (for the sitemap, the feed, calendar subscribe links).
    #[arg(long = "site-url", value_parser = site_url)]
    site_url: Option<url::Url>,

    /// Also show event times in this IANA time zone, e.g. America/Puerto_Rico.
    #[arg(long = "display-zone", value_parser = display_zone)]
    display_zone: Option<chrono_tz::Tz>,

    /// The site's name (default: the facility's name).
    #[arg(long = "title")]
    title: Option<String>,
}

fn site_url(text: &str) -> Result<url::Url, String> {
    let url = url::Url::parse(text).map_err(|e| format!("{text:?} is not a URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(format!("{text:?} is not an http(s) address"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(format!("{text:?}: a site URL takes no query or fragment"));
    }
    let mut url = url;
    if !url.path().ends_with('/') {
        let path = format!("{}/", url.path());
        url.set_path(&path);
    }
    Ok(url)
}

fn display_zone(text: &str) -> Result<chrono_tz::Tz, String> {
    text.parse().map_err(|_| {
        format!("{text:?} is not an IANA time zone name (such as America/Puerto_Rico)")
    })
}

#[derive(Args, Debug)]
struct FetchArgs {
    #[command(flatten)]
    api: ApiArgs,

    /// Snapshot folder to write.
    #[arg(long = "output", short = 'o')]
    output: PathBuf,

    /// Write into a folder that vatcar-site did not create.
    #[arg(long = "force")]
    force: bool,
}

fn positive_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s.is_finite() && s <= 86_400.0 => Ok(s),
        _ => Err(format!(
            "expected a number of seconds between 0 and 86400, got {text:?}"
        )),
    }
}

impl ApiArgs {
    fn key(&self) -> Option<ApiKey> {
        self.api_key.as_deref().and_then(ApiKey::new)
    }

    fn client_options(&self) -> ClientOptions {
        ClientOptions {
            base_url: self.base_url.clone(),
            api_key: self.key(),
            connect_timeout: Duration::from_secs_f64(self.connect_timeout),
            timeout: Duration::from_secs_f64(self.timeout),
            retry: RetryPolicy::default(),
            ..ClientOptions::default()
        }
    }
}

pub fn run() -> ExitCode {
    let cli = Cli::parse();
    let key = match &cli.command {
        Command::Build(args) => args.api.key(),
        Command::Fetch(args) => args.api.key(),
        Command::Report(ReportArgs {
            kind: ReportKind::Training(args),
        }) => args.common.api.key(),
        Command::Report(ReportArgs {
            kind: ReportKind::Roster(args),
        }) => args.api.key(),
    };
    let level = match (cli.quiet, cli.verbose) {
        (true, _) => log::LevelFilter::Error,
        (false, 0) => log::LevelFilter::Warn,
        (false, 1) => log::LevelFilter::Info,
        _ => log::LevelFilter::Debug,
    };
    Logger::install(level, key.clone());
    match execute(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let redact = |text: String| match &key {
                Some(key) => key.redact(&text),
                None => text,
            };
            eprintln!("error: {}", redact(error.to_string()));
            for cause in error.chain().skip(1) {
                eprintln!("  caused by: {}", redact(cause.to_string()));
            }
            if error.downcast_ref::<UsageError>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

fn execute(cli: &Cli) -> Result<()> {
    let started = Instant::now();
    match &cli.command {
        Command::Build(args) => {
            let source = if args.demo {
                Source::Demo
            } else if let Some(dir) = &args.snapshot {
                Source::Snapshot(dir.clone())
            } else {
                Source::Api(args.api.client_options())
            };
            let build_time = build_time(&source)?;
            let options = BuildOptions {
                source,
                output: args.output.clone(),
                save_snapshot: args.save_snapshot.clone(),
                templates: args.templates.clone(),
                force: args.force,
                build_time,
                site_url: args.site_url.clone(),
                display_zone: args.display_zone,
                title: args.title.clone(),
            };
            let report = build::build(&options)?;
            if !cli.quiet {
                eprintln!(
                    "built {} files into {} ({} written, {} unchanged, {} removed) in {:.2} s",
                    report.files,
                    options.output.display(),
                    report.publish.written,
                    report.publish.unchanged,
                    report.publish.removed,
                    started.elapsed().as_secs_f64()
                );
            }
        }
        Command::Report(ReportArgs {
            kind: ReportKind::Training(args),
        }) => {
            let cids = training_cids(args)?;
            let options = args.common.options(args.include_contact)?;
            let outcome = build::training_reports(&options, &cids)?;
            if !cli.quiet {
                for (_, file) in &outcome.written {
                    eprintln!("wrote {}", options.output.join(file).display());
                }
            }
            match outcome.failed.len() {
                0 => {}
                1 if cids.len() == 1 => {
                    let (_, error) = outcome.failed.into_iter().next().expect("one failure");
                    return Err(error);
                }
                failed => {
                    for (cid, error) in &outcome.failed {
                        log::error!("CID {cid}: {error:#}");
                    }
                    anyhow::bail!("{failed} of {} reports could not be made", cids.len());
                }
            }
        }
        Command::Report(ReportArgs {
            kind: ReportKind::Roster(args),
        }) => {
            let path = build::roster_report(&args.options(false)?)?;
            if !cli.quiet {
                eprintln!("wrote {}", path.display());
            }
        }
        Command::Fetch(args) => {
            let source = Source::Api(args.api.client_options());
            let snapshot: Snapshot = load::raw(&source, &Endpoint::SITE)?;
            // Decoding now means a snapshot that cannot build is reported today, not at the
            // next build.
            load::decode_site(&snapshot).context("the fetched data would not build")?;
            snapshot.write_dir(&args.output, args.force)?;
            if !cli.quiet {
                eprintln!(
                    "saved {} responses into {} in {:.2} s",
                    Endpoint::SITE.len(),
                    args.output.display(),
                    started.elapsed().as_secs_f64()
                );
            }
        }
    }
    Ok(())
}

/// `SOURCE_DATE_EPOCH` if set (reproducible builds); for the demo, the moment its data was
/// captured; otherwise the clock.
fn build_time(source: &Source) -> Result<DateTime<Utc>> {
    if let Ok(text) = std::env::var("SOURCE_DATE_EPOCH") {
        let seconds: i64 = text
            .trim()
            .parse()
            .with_context(|| format!("SOURCE_DATE_EPOCH={text:?} is not a number of seconds"))?;
        return match DateTime::from_timestamp(seconds, 0) {
            Some(time) => Ok(time),
            None => bail!("SOURCE_DATE_EPOCH={text:?} is out of range"),
        };
    }
    if let Source::Demo = source {
        return Ok(DateTime::parse_from_rfc3339(snapshot::DEMO_FETCHED_AT)?.with_timezone(&Utc));
    }
    Ok(Utc::now())
}

/// Log lines on stderr, each scrubbed of the API key as a last line of defence.
struct Logger {
    level: log::LevelFilter,
    key: Option<ApiKey>,
}

impl Logger {
    fn install(level: log::LevelFilter, key: Option<ApiKey>) {
        let logger = Box::leak(Box::new(Logger { level, key }));
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
        let text = record.args().to_string();
        let text = match &self.key {
            Some(key) => key.redact(&text),
            None => text,
        };
        let label = match record.level() {
            log::Level::Error => "error",
            log::Level::Warn => "warning",
            log::Level::Info => "info",
            log::Level::Debug | log::Level::Trace => "debug",
        };
        eprintln!("{label}: {text}");
    }

    fn flush(&self) {}
}
