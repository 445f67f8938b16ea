//! The command line: argument parsing, the config file, messages on stderr, and exit codes
//! (0 success, 1 failure, 2 usage).
//!
//! Settings come from, in order of precedence: command-line flags, the environment
//! (`VATCAR_API_KEY`, `VATCAR_BASE_URL`), `vatcar-site.toml`, built-in defaults.

pub mod build;
mod check;
pub mod config;
mod logger;
pub mod progress;
pub mod serve;

use crate::fetch::client::{ClientOptions, DEFAULT_BASE_URL, Observer, RetryPolicy};
use crate::fetch::endpoint::Endpoint;
use crate::fetch::load::{self, Source};
use crate::fetch::secret::{ApiKey, KeyError};
use crate::fetch::snapshot::{self, Snapshot};
use crate::render;
use crate::view::SiteSettings;
use anyhow::{Context, Result, bail};
use build::{BuildOptions, ReportOptions};
use chrono::{DateTime, Utc};
use clap::{Args, CommandFactory, Parser, Subcommand};
use config::Loaded;
use progress::Progress;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Parser, Debug)]
#[command(
    name = "vatcar-site",
    version,
    about = "Builds a VATCAR facility's website, calendars and printable reports from the division's API v2",
    after_help = "Start with `vatcar-site build --demo` (no key needed), then `vatcar-site check` with your key."
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,

    /// The config file (default: vatcar-site.toml in the working folder, if there is one).
    #[arg(long = "config", global = true)]
    config: Option<PathBuf>,

    /// Say more: each request and retry (-vv for debugging detail).
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
    /// Build, serve the site on 127.0.0.1 and rebuild when a template changes.
    Serve(ServeArgs),
    /// Call every endpoint with the key and report what came back; writes nothing.
    Check(CheckArgs),
    /// Save the raw API responses to a snapshot folder, for `build --snapshot` later.
    Fetch(FetchArgs),
    /// Private printable reports, written to their own folder (never into the site).
    Report(ReportArgs),
    /// Work with the built-in templates.
    Templates(TemplatesArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

#[derive(Args, Debug, Clone)]
struct ApiArgs {
    /// The API's address (default https://vatcar.net; older documents used https://vatcar.net/public).
    #[arg(long = "base-url", env = "VATCAR_BASE_URL")]
    base_url: Option<String>,

    /// The facility's API key. Prefer the environment variable: a flag is visible to other
    /// users of the machine.
    #[arg(long = "api-key", env = "VATCAR_API_KEY", hide_env_values = true)]
    api_key: Option<String>,

    /// Seconds one request may take, from connecting to the last byte (default 30).
    #[arg(long = "timeout", value_parser = positive_seconds)]
    timeout: Option<f64>,

    /// Seconds to wait for a connection.
    #[arg(long = "connect-timeout", default_value_t = 10.0, value_parser = positive_seconds)]
    connect_timeout: f64,
}

#[derive(Args, Debug, Clone)]
struct SourceArgs {
    #[command(flatten)]
    api: ApiArgs,

    /// Read a snapshot folder instead of the API.
    #[arg(long = "snapshot", conflicts_with = "demo")]
    snapshot: Option<PathBuf>,

    /// Use the sample data built into the program (no network, no key).
    #[arg(long = "demo")]
    demo: bool,
}

#[derive(Args, Debug, Clone)]
struct SiteArgs {
    /// Output folder (default: output).
    #[arg(long = "output", short = 'o')]
    output: Option<PathBuf>,

    /// Use template and static files from this folder where it has them.
    #[arg(long = "templates")]
    templates: Option<PathBuf>,

    /// Where the site will be published (for the sitemap, the feed, calendar subscribe links).
    #[arg(long = "site-url", value_parser = config::parse_site_url)]
    site_url: Option<url::Url>,

    /// Also show event times in this IANA time zone, e.g. America/Puerto_Rico.
    #[arg(long = "display-zone", value_parser = display_zone)]
    display_zone: Option<chrono_tz::Tz>,

    /// The site's name (default: the facility's name).
    #[arg(long = "title")]
    title: Option<String>,

    /// Write into an output folder that vatcar-site did not create (nothing in it is deleted).
    #[arg(long = "force")]
    force: bool,
}

#[derive(Args, Debug)]
struct BuildArgs {
    #[command(flatten)]
    source: SourceArgs,

    #[command(flatten)]
    site: SiteArgs,

    /// Also save the fetched responses to this snapshot folder.
    #[arg(long = "save-snapshot", conflicts_with_all = ["snapshot", "demo"])]
    save_snapshot: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct ServeArgs {
    #[command(flatten)]
    source: SourceArgs,

    #[command(flatten)]
    site: SiteArgs,

    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long = "port", default_value_t = 8000)]
    port: u16,
}

#[derive(Args, Debug)]
struct CheckArgs {
    #[command(flatten)]
    source: SourceArgs,
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
    source: SourceArgs,

    /// Folder for the reports.
    #[arg(long = "output", short = 'o', default_value = "reports")]
    output: PathBuf,

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

#[derive(Args, Debug)]
struct TemplatesArgs {
    #[command(subcommand)]
    action: TemplatesAction,
}

#[derive(Subcommand, Debug)]
enum TemplatesAction {
    /// Write the built-in templates and static files to DIR, to edit and use with --templates.
    Export {
        dir: PathBuf,
        /// Overwrite files that already exist in DIR.
        #[arg(long = "force")]
        force: bool,
    },
}

/// A mistake in how the command was called, found after parsing (exit code 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct UsageError(String);

fn positive_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s.is_finite() && s <= 86_400.0 => Ok(s),
        _ => Err(format!(
            "expected a number of seconds between 0 and 86400, got {text:?}"
        )),
    }
}

fn display_zone(text: &str) -> Result<chrono_tz::Tz, String> {
    text.parse().map_err(|_| {
        format!("{text:?} is not an IANA time zone name (such as America/Puerto_Rico)")
    })
}

impl ApiArgs {
    /// The key from the flag or the environment, else from the config file. An empty one is
    /// no key; one too short to keep secret is a usage error, found before any request.
    fn key(&self, config: &Loaded) -> Result<Option<ApiKey>> {
        let from_config = config
            .config
            .api_key
            .as_ref()
            .and_then(|k| k.get_ref().as_str());
        let (raw, origin) = match (self.api_key.as_deref(), from_config) {
            (Some(raw), _) if !raw.trim().is_empty() => (raw, key_origin(self, config)),
            (_, Some(raw)) => (raw, "the config file"),
            _ => return Ok(None),
        };
        match ApiKey::new(raw) {
            Ok(key) => Ok(Some(key)),
            Err(KeyError::Empty) => Ok(None),
            Err(error) => Err(UsageError(format!("{error} (the key from {origin})")).into()),
        }
    }

    fn client_options(
        &self,
        config: &Loaded,
        progress: Option<Arc<Progress>>,
    ) -> Result<ClientOptions> {
        let base_url = self
            .base_url
            .clone()
            .or_else(|| config.config.base_url.as_ref().map(|b| b.get_ref().clone()))
            .unwrap_or_else(|| DEFAULT_BASE_URL.into());
        let timeout = self
            .timeout
            .or_else(|| config.config.timeout.as_ref().map(|t| *t.get_ref()))
            .unwrap_or(30.0);
        Ok(ClientOptions {
            base_url,
            api_key: self.key(config)?,
            connect_timeout: Duration::from_secs_f64(self.connect_timeout),
            timeout: Duration::from_secs_f64(timeout),
            retry: RetryPolicy::default(),
            observer: progress.map(|p| Observer(p as Arc<dyn crate::fetch::client::FetchObserver>)),
            ..ClientOptions::default()
        })
    }
}

impl SourceArgs {
    fn source(&self, config: &Loaded, progress: Option<Arc<Progress>>) -> Result<Source> {
        Ok(if self.demo {
            Source::Demo
        } else if let Some(dir) = &self.snapshot {
            Source::Snapshot(dir.clone())
        } else {
            Source::Api(self.api.client_options(config, progress)?)
        })
    }
}

impl SiteArgs {
    fn output(&self, config: &Loaded) -> PathBuf {
        self.output
            .clone()
            .or_else(|| config.config.output.as_ref().map(|p| config.relative(p)))
            .unwrap_or_else(|| PathBuf::from("output"))
    }

    fn templates(&self, config: &Loaded) -> Option<PathBuf> {
        templates_folder(self.templates.as_ref(), config)
    }

    fn settings(&self, config: &Loaded, build_time: DateTime<Utc>) -> SiteSettings {
        let c = &config.config;
        let placeholder = url::Url::parse(DEFAULT_BASE_URL).expect("a valid URL");
        let mut settings = SiteSettings::new(placeholder, build_time);
        settings.title = self.title.clone().or_else(|| c.title.clone());
        settings.tagline = c.tagline.clone();
        settings.site_url = self.site_url.clone().or_else(|| config.site_url.clone());
        settings.display_zone = self.display_zone.or(config.display_zone);
        if let Some(days) = &c.recent_days {
            settings.recent_days = *days.get_ref();
        }
        settings.facility_calendar_name = c.calendar.facility_name.clone();
        settings.division_calendar_name = c.calendar.division_name.clone();
        if let Some(minutes) = &c.calendar.refresh_minutes {
            settings.calendar_refresh_minutes = *minutes.get_ref() as u32;
        }
        settings.facility_bits = config.facility_bits.clone();
        settings.staff_emails = config.staff_emails.clone();
        settings.sections = c.sections;
        settings
    }
}

pub fn run() -> ExitCode {
    let cli = Cli::parse();
    let level = match (cli.quiet, cli.verbose) {
        (true, _) => log::LevelFilter::Error,
        (false, 0) => log::LevelFilter::Warn,
        (false, 1) => log::LevelFilter::Info,
        _ => log::LevelFilter::Debug,
    };
    let keys = Arc::new(std::sync::Mutex::new(Vec::<ApiKey>::new()));
    logger::Logger::install(level, keys.clone());
    // A config file that does not read is a usage error, like a bad flag.
    let config = Loaded::load(cli.config.as_deref())
        .map_err(|e| anyhow::Error::new(UsageError(format!("{e:#}"))));
    let result = config.and_then(|config| {
        // Every key that could be used is known to the logger, the error printer and the
        // checks on output files. A key that is refused is refused by the command that would
        // send it; a demo build does not need one.
        let known = command_api(&cli.command).and_then(|api| api.key(&config).ok().flatten());
        keys.lock().expect("not poisoned").extend(known.clone());
        execute(&cli, &config, known)
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let keys = keys.lock().expect("not poisoned").clone();
            let redact = |mut text: String| {
                for key in &keys {
                    text = key.redact(&text);
                }
                text
            };
            eprintln!("error: {}", redact(error.to_string()));
            for cause in error.chain().skip(1) {
                eprintln!("  caused by: {}", redact(cause.to_string()));
            }
            if let Some(hint) = hint(&error) {
                eprintln!("  hint: {hint}");
            }
            if error.downcast_ref::<UsageError>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

fn command_api(command: &Command) -> Option<&ApiArgs> {
    match command {
        Command::Build(a) => Some(&a.source.api),
        Command::Serve(a) => Some(&a.source.api),
        Command::Check(a) => Some(&a.source.api),
        Command::Fetch(a) => Some(&a.api),
        Command::Report(ReportArgs {
            kind: ReportKind::Training(a),
        }) => Some(&a.common.source.api),
        Command::Report(ReportArgs {
            kind: ReportKind::Roster(a),
        }) => Some(&a.source.api),
        Command::Templates(_) | Command::Completions { .. } => None,
    }
}

/// What to do next, for the errors where that is known.
fn hint(error: &anyhow::Error) -> Option<&'static str> {
    use crate::fetch::error::ApiError;
    let api = error.chain().find_map(|e| e.downcast_ref::<ApiError>());
    match api {
        Some(ApiError::MissingKey) => {
            Some("try `vatcar-site build --demo` to see the site without a key")
        }
        Some(ApiError::KeyRejected { .. }) => Some(
            "run `vatcar-site check` after fixing the key; keys are issued by your facility's staff",
        ),
        Some(ApiError::Timeout { .. }) => {
            Some("the service may be slow or down; raise --timeout or try again later")
        }
        Some(ApiError::Connect { .. }) => Some("check the network and --base-url"),
        Some(ApiError::NotFound { .. }) => {
            Some("check --base-url (older documents used https://vatcar.net/public)")
        }
        _ => None,
    }
}

fn execute(cli: &Cli, config: &Loaded, key: Option<ApiKey>) -> Result<()> {
    let started = Instant::now();
    let progress = Arc::new(Progress::new(cli.quiet));
    match &cli.command {
        Command::Build(args) => {
            let options = BuildOptions {
                save_snapshot: args.save_snapshot.clone(),
                ..site_options(&args.source, &args.site, config, progress.clone(), key)?
            };
            let report = build::build(&options, &progress)?;
            progress.done(&format!(
                "built {} pages, {} calendars and {} event pages into {} in {:.2} s ({} written, {} unchanged, {} removed)",
                report.pages,
                report.calendars,
                report.events,
                options.output.display(),
                started.elapsed().as_secs_f64(),
                report.publish.written,
                report.publish.unchanged,
                report.publish.removed,
            ));
        }
        Command::Serve(args) => {
            let options = site_options(&args.source, &args.site, config, progress.clone(), key)?;
            serve::serve(&options, args.port, &progress)?;
        }
        Command::Check(args) => check::check(args, config, &progress, key.as_ref())?,
        Command::Fetch(args) => {
            let source = Source::Api(args.api.client_options(config, Some(progress.clone()))?);
            let snapshot: Snapshot = load::raw(&source, &Endpoint::SITE)?;
            // Decoding now means a snapshot that cannot build is reported today, not at the
            // next build.
            crate::model::decode_site(&snapshot).context("the fetched data would not build")?;
            build::save_snapshot(&snapshot, &args.output, args.force, key.as_ref())?;
            progress.done(&format!(
                "saved {} responses into {} in {:.2} s",
                Endpoint::SITE.len(),
                args.output.display(),
                started.elapsed().as_secs_f64()
            ));
        }
        Command::Report(ReportArgs {
            kind: ReportKind::Training(args),
        }) => {
            let cids = training_cids(args)?;
            let options = report_options(
                &args.common,
                config,
                args.include_contact,
                progress.clone(),
                key,
            )?;
            let outcome = build::training_reports(&options, &cids)?;
            for (_, file) in &outcome.written {
                progress.step(&format!("wrote {}", options.output.join(file).display()));
            }
            match outcome.failed.len() {
                0 => progress.done(&format!(
                    "wrote {} training report{} into {}",
                    outcome.written.len(),
                    if outcome.written.len() == 1 { "" } else { "s" },
                    options.output.display()
                )),
                1 if cids.len() == 1 => {
                    let (_, error) = outcome.failed.into_iter().next().expect("one failure");
                    return Err(error);
                }
                failed => {
                    for (cid, error) in &outcome.failed {
                        log::error!("CID {cid}: {error:#}");
                    }
                    bail!("{failed} of {} reports could not be made", cids.len());
                }
            }
        }
        Command::Report(ReportArgs {
            kind: ReportKind::Roster(args),
        }) => {
            let path =
                build::roster_report(&report_options(args, config, false, progress.clone(), key)?)?;
            progress.done(&format!("wrote {}", path.display()));
        }
        Command::Templates(TemplatesArgs {
            action: TemplatesAction::Export { dir, force },
        }) => {
            let written = render::export(dir, *force)?;
            progress.done(&format!(
                "wrote {written} files into {}; use them with --templates {} (or `templates = \"{}\"` in vatcar-site.toml)",
                dir.display(),
                dir.display(),
                dir.display()
            ));
        }
        Command::Completions { shell } => {
            clap_complete::generate(
                *shell,
                &mut Cli::command(),
                "vatcar-site",
                &mut std::io::stdout(),
            );
        }
    }
    Ok(())
}

/// The templates folder: the flag's, else the config file's (relative to the file).
fn templates_folder(flag: Option<&PathBuf>, config: &Loaded) -> Option<PathBuf> {
    flag.cloned()
        .or_else(|| config.config.templates.as_ref().map(|p| config.relative(p)))
}

/// How to build the site, for `build` and `serve` alike.
fn site_options(
    source: &SourceArgs,
    site: &SiteArgs,
    config: &Loaded,
    progress: Arc<Progress>,
    key: Option<ApiKey>,
) -> Result<BuildOptions> {
    let source = source.source(config, Some(progress))?;
    let build_time = build_time(&source)?;
    Ok(BuildOptions {
        source,
        output: site.output(config),
        save_snapshot: None,
        templates: site.templates(config),
        force: site.force,
        settings: site.settings(config, build_time),
        key,
    })
}

fn report_options(
    args: &ReportCommon,
    config: &Loaded,
    include_contact: bool,
    progress: Arc<Progress>,
    key: Option<ApiKey>,
) -> Result<ReportOptions> {
    let source = args.source.source(config, Some(progress))?;
    Ok(ReportOptions {
        key,
        generated_at: build_time(&source)?,
        source,
        output: args.output.clone(),
        templates: templates_folder(args.templates.as_ref(), config),
        force: args.force,
        include_contact,
    })
}

fn key_origin(api: &ApiArgs, config: &Loaded) -> &'static str {
    if api.api_key.is_some() {
        if std::env::var_os("VATCAR_API_KEY").is_some() {
            "VATCAR_API_KEY or --api-key"
        } else {
            "--api-key"
        }
    } else if config.config.api_key.is_some() {
        "the config file"
    } else {
        "nowhere (no key set)"
    }
}

/// The CIDs of a training run, from `--cid` and `--cids-file`, each once, in the order given.
fn training_cids(args: &TrainingArgs) -> Result<Vec<u64>> {
    let mut cids = args.cids.clone();
    if let Some(path) = &args.cids_file {
        cids.extend(read_cids_file(path)?);
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

fn read_cids_file(path: &Path) -> Result<Vec<u64>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("could not read the CIDs file {}", path.display()))?;
    // Windows editors start UTF-8 files with a byte-order mark.
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let mut cids = Vec::new();
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
    Ok(cids)
}

/// `SOURCE_DATE_EPOCH` if set (reproducible builds); for the demo, the moment its data was
/// captured; otherwise the clock.
fn build_time(source: &Source) -> Result<DateTime<Utc>> {
    if let Ok(text) = std::env::var("SOURCE_DATE_EPOCH") {
        let seconds: i64 = text
            .trim()
            .parse()
            .with_context(|| format!("SOURCE_DATE_EPOCH={text:?} is not a number of seconds"))?;
        // Builds are dated within years 1970 to 9999, like the data (see model::timestamp).
        return match DateTime::from_timestamp(seconds, 0) {
            Some(time) if seconds >= 0 && time <= crate::model::timestamp::latest() => Ok(time),
            _ => bail!(
                "SOURCE_DATE_EPOCH={text:?} is out of range: expected seconds from 0 to {} (the end of year 9999)",
                crate::model::timestamp::latest().timestamp()
            ),
        };
    }
    if let Source::Demo = source {
        return Ok(DateTime::parse_from_rfc3339(snapshot::DEMO_FETCHED_AT)?.with_timezone(&Utc));
    }
    Ok(Utc::now())
}
