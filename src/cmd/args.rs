//! The command line as clap sees it: subcommands, flags and the checks on single values.
//! What a flag means once the config file and the environment are considered is decided in
//! [`super::settings`].

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// Where `announce` reads the webhook's address from unless `--webhook-env` names another
/// variable.
pub(crate) const DEFAULT_WEBHOOK_VARIABLE: &str = "DISCORD_WEBHOOK_URL";

#[derive(Parser, Debug)]
#[command(
    name = "vatcar-site",
    version,
    about = "Builds a VATCAR facility's website, calendars and printable reports from the division's API v2",
    after_help = "Start with `vatcar-site build --demo` (no key needed), then `vatcar-site check` with your key."
)]
pub struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,

    /// The config file (default: vatcar-site.toml in the working folder, if there is one).
    #[arg(long = "config", global = true)]
    pub(crate) config: Option<PathBuf>,

    /// Say more: each request and retry (-vv for debugging detail).
    #[arg(long = "verbose", short = 'v', global = true, action = clap::ArgAction::Count)]
    pub(crate) verbose: u8,

    /// Print only errors.
    #[arg(long = "quiet", short = 'q', global = true, conflicts_with = "verbose")]
    pub(crate) quiet: bool,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// Write a site folder to start from: vatcar-site.toml, content/, static/, .gitignore and
    /// the GitHub Actions workflow that publishes it.
    Init(InitArgs),
    /// Fetch (or read a snapshot), render and write the site.
    Build(BuildArgs),
    /// Build and serve the site on 127.0.0.1; rebuild on changes and reload open pages.
    ///
    /// Rebuilds when the config file, the templates, static/ or content/ change; data is
    /// fetched once. Pages are served with a small live-reload script added (the
    /// built files are left as they are); a rebuild that fails, or a config file that no
    /// longer reads, prints the error and keeps serving the last good site.
    Serve(ServeArgs),
    /// Call every endpoint with the key and report what came back; writes nothing.
    Check(CheckArgs),
    /// Save the raw API responses to a snapshot folder, for `build --snapshot` later.
    Fetch(FetchArgs),
    /// Private printable reports, written to their own folder (never into the site).
    #[command(subcommand)]
    Report(ReportKind),
    /// Work with the built-in templates.
    #[command(subcommand)]
    Templates(TemplatesAction),
    /// Post what the last build found new to a Discord channel, through its webhook.
    ///
    /// Reads DIR/data/changes.json, which `build` writes, and posts the changes marked new,
    /// one embed each, ten to a message. Run it after the site is deployed: see
    /// docs/discord.md. The webhook's address is read from DISCORD_WEBHOOK_URL (or the
    /// variable --webhook-env names) and is never printed.
    Announce(AnnounceArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

impl Command {
    /// Whether the command reads the config file. `init` writes one (and may be run to
    /// replace a broken one); `templates` and `completions` have no use for it, so a broken
    /// config stops neither.
    pub(crate) fn uses_config(&self) -> bool {
        !matches!(
            self,
            Command::Init(_) | Command::Templates(_) | Command::Completions { .. }
        )
    }
}

#[derive(Args, Debug)]
pub(crate) struct InitArgs {
    /// The site folder, made if missing (default: the working folder).
    #[arg(default_value = ".")]
    pub(crate) dir: PathBuf,

    /// Overwrite files that init writes and that already exist in DIR.
    #[arg(long = "force")]
    pub(crate) force: bool,

    /// The site's language: the config's `language`, and the language of its comments and
    /// of the example pages.
    #[arg(long = "language", default_value = "en",
          value_parser = clap::builder::PossibleValuesParser::new(super::init::starters::languages()))]
    pub(crate) language: String,
}

#[derive(Args, Debug, Clone)]
pub(crate) struct ApiArgs {
    /// The API's address (default https://vatcar.net; older documents used https://vatcar.net/public).
    #[arg(long = "base-url", env = "VATCAR_BASE_URL")]
    pub(crate) base_url: Option<String>,

    /// The facility's API key. Prefer the environment variable: a flag is visible to other
    /// users of the machine.
    #[arg(long = "api-key", env = "VATCAR_API_KEY", hide_env_values = true)]
    pub(crate) api_key: Option<String>,

    /// Seconds one request may take, from connecting to the last byte (default 30).
    #[arg(long = "timeout", value_parser = positive_seconds)]
    pub(crate) timeout: Option<f64>,

    /// Seconds to wait for a connection.
    #[arg(long = "connect-timeout", default_value_t = 10.0, value_parser = positive_seconds)]
    pub(crate) connect_timeout: f64,
}

#[derive(Args, Debug, Clone)]
pub(crate) struct SourceArgs {
    #[command(flatten)]
    pub(crate) api: ApiArgs,

    /// Read a snapshot folder instead of the API.
    #[arg(long = "snapshot", conflicts_with = "demo")]
    pub(crate) snapshot: Option<PathBuf>,

    /// Use the sample data built into the program (no network, no key).
    #[arg(long = "demo")]
    pub(crate) demo: bool,
}

#[derive(Args, Debug, Clone)]
pub(crate) struct SiteArgs {
    /// Output folder (default: output).
    #[arg(long = "output", short = 'o')]
    pub(crate) output: Option<PathBuf>,

    /// Use template and static files from this folder where it has them.
    #[arg(long = "templates")]
    pub(crate) templates: Option<PathBuf>,

    /// Where the site will be published (for the sitemap, the feed, calendar subscribe links).
    #[arg(long = "site-url", value_parser = crate::settings::parse_site_url)]
    pub(crate) site_url: Option<url::Url>,

    /// Also show event times in this IANA time zone, e.g. America/Puerto_Rico.
    #[arg(long = "display-zone", value_parser = crate::settings::parse_zone)]
    pub(crate) display_zone: Option<chrono_tz::Tz>,

    /// The site's name (default: the facility's name).
    #[arg(long = "title")]
    pub(crate) title: Option<String>,

    /// Entries in feed.xml, soonest first (default 50; 0 lists every upcoming event).
    #[arg(long = "feed-limit", value_name = "N")]
    pub(crate) feed_limit: Option<usize>,

    /// Write into an output folder that vatcar-site did not create, and overwrite files in it
    /// that vatcar-site did not write (each one is named in a warning; nothing else of yours
    /// is changed or deleted).
    #[arg(long = "force")]
    pub(crate) force: bool,

    /// If another vatcar-site is publishing to the same folder, wait for it instead of
    /// failing at once.
    #[arg(long = "wait")]
    pub(crate) wait: bool,

    /// Also publish the content pages marked `draft = true`, to preview them.
    #[arg(long = "drafts")]
    pub(crate) drafts: bool,

    /// The pages' language, over the config's `language`: en, es, fr, nl, or one the
    /// templates folder has a catalogue for.
    #[arg(long = "language", value_name = "LANGUAGE")]
    pub(crate) language: Option<String>,

    /// The published site to compare with for What's new (its data/changes.json and
    /// data/roster.json), where the output folder holds no previous build (CI). Default: the
    /// output folder's previous build.
    #[arg(long = "previous", value_name = "URL", value_parser = crate::settings::parse_previous_url)]
    pub(crate) previous: Option<url::Url>,

    #[command(flatten)]
    pub(crate) reads: BannersBookingsArgs,
}

/// Where event banners and the ATC bookings list come from, which only the commands that
/// read them take (`build`, `serve`, `fetch`): a report or `check` reads neither.
#[derive(Args, Clone, Debug)]
pub(crate) struct BannersBookingsArgs {
    /// Where event banners are loaded from, over the config's `banners`: `local` (fetched
    /// at build time, resized, published with the site; `fetch` saves them in the snapshot)
    /// or `remote` (the API's addresses).
    #[arg(long = "banners", env = "VATCAR_BANNERS", value_name = "WHERE",
          value_parser = clap::builder::PossibleValuesParser::new(["local", "remote"]))]
    pub(crate) banners: Option<String>,

    /// Where the ATC bookings list is read, for the live page (default: `bookings` under
    /// [live] in the config file, else https://atc-bookings.vatsim.net/api/booking).
    #[arg(long = "bookings-url", env = "VATCAR_BOOKINGS_URL", value_parser = crate::settings::parse_live_url)]
    pub(crate) bookings_url: Option<url::Url>,
}

#[derive(Args, Debug)]
pub(crate) struct BuildArgs {
    #[command(flatten)]
    pub(crate) source: SourceArgs,

    #[command(flatten)]
    pub(crate) site: SiteArgs,

    /// Also save the fetched responses to this snapshot folder.
    #[arg(long = "save-snapshot", conflicts_with_all = ["snapshot", "demo"])]
    pub(crate) save_snapshot: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub(crate) struct ServeArgs {
    #[command(flatten)]
    pub(crate) source: SourceArgs,

    #[command(flatten)]
    pub(crate) site: SiteArgs,

    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long = "port", default_value_t = 8000)]
    pub(crate) port: u16,

    /// Look for changes three times a second instead of waiting for the system's file
    /// events (for folders whose events do not arrive, which serve otherwise finds out by
    /// itself within seconds).
    #[arg(long = "poll")]
    pub(crate) poll: bool,
}

#[derive(Args, Debug)]
pub(crate) struct CheckArgs {
    #[command(flatten)]
    pub(crate) source: SourceArgs,
}

#[derive(Args, Debug)]
pub(crate) struct FetchArgs {
    #[command(flatten)]
    pub(crate) api: ApiArgs,

    /// Snapshot folder to write (default: snapshot, which the .gitignore init writes keeps
    /// out of the repository: a snapshot holds every member's e-mail address).
    #[arg(long = "output", short = 'o', default_value = "snapshot")]
    pub(crate) output: PathBuf,

    /// Also save this student's record and training notes, for `report training --snapshot`
    /// (personal data: keep the folder private); repeat for several.
    #[arg(long = "cid", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) cids: Vec<u64>,

    #[command(flatten)]
    pub(crate) reads: BannersBookingsArgs,

    /// Write into a folder that vatcar-site did not create, and overwrite files in it that
    /// vatcar-site did not write (each one is named in a warning).
    #[arg(long = "force")]
    pub(crate) force: bool,

    /// If another vatcar-site is publishing to the same folder, wait for it instead of
    /// failing at once.
    #[arg(long = "wait")]
    pub(crate) wait: bool,
}

#[derive(Subcommand, Debug)]
pub(crate) enum ReportKind {
    /// A student's training record: one self-contained HTML file per CID.
    Training(TrainingArgs),
    /// The roster on one printed page.
    Roster(ReportCommon),
    /// Every member's hours against the [activity] rule: who is below it, who is unknown.
    ///
    /// Every roster member's hours in the window, with the members below `rule_hours`
    /// furthest behind first, and those whose sessions were never read listed as unknown
    /// (neither 0 h nor below the rule). The sessions are those the site's builds kept
    /// (beside --site, in its data/activity.json, and the published site's with `previous`):
    /// the report reads none from VATSIM; with --demo, the demo's sample. The roster is read
    /// as `report roster` reads it.
    Activity(ActivityArgs),
}

impl ReportKind {
    /// What every report takes.
    pub(crate) fn common(&self) -> &ReportCommon {
        match self {
            ReportKind::Training(args) => &args.common,
            ReportKind::Roster(args) => args,
            ReportKind::Activity(args) => &args.common,
        }
    }
}

#[derive(Args, Debug)]
pub(crate) struct ReportCommon {
    #[command(flatten)]
    pub(crate) source: SourceArgs,

    /// Folder for the reports.
    #[arg(long = "output", short = 'o', default_value = "reports")]
    pub(crate) output: PathBuf,

    /// Use templates from this folder where it has them.
    #[arg(long = "templates")]
    pub(crate) templates: Option<PathBuf>,

    /// The reports' language, over the config's `language`: en, es, fr, nl, or one the
    /// templates folder has a catalogue for.
    #[arg(long = "language", value_name = "LANGUAGE")]
    pub(crate) language: Option<String>,

    /// Write into a folder that vatcar-site did not create, and overwrite files in it that
    /// vatcar-site did not write (each one is named in a warning).
    #[arg(long = "force")]
    pub(crate) force: bool,

    /// If another vatcar-site is publishing to the same folder, wait for it instead of
    /// failing at once.
    #[arg(long = "wait")]
    pub(crate) wait: bool,
}

#[derive(Args, Debug)]
pub(crate) struct ActivityArgs {
    #[command(flatten)]
    pub(crate) common: ReportCommon,

    /// The folder `build` wrote the site into: its members' sessions are read from the copy
    /// kept beside it (.vatcar-site-cache/activity.json) and from its data/activity.json
    /// (default: the config's `output`, else output).
    #[arg(long = "site", value_name = "DIR")]
    pub(crate) site: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub(crate) struct TrainingArgs {
    #[command(flatten)]
    pub(crate) common: ReportCommon,

    /// A student's CID; repeat for several.
    #[arg(long = "cid", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) cids: Vec<u64>,

    /// A file of CIDs, separated by spaces, commas or lines; `#` starts a comment.
    #[arg(long = "cids-file")]
    pub(crate) cids_file: Option<PathBuf>,

    /// Also show the student's email, email preferences and integrations.
    #[arg(long = "include-contact")]
    pub(crate) include_contact: bool,
}

#[derive(Args, Debug)]
pub(crate) struct AnnounceArgs {
    /// The folder the site was built into (default: the config's output folder).
    #[arg(long = "output", short = 'o', value_name = "DIR")]
    pub(crate) output: Option<PathBuf>,

    /// The environment variable holding the webhook's address.
    #[arg(
        long = "webhook-env",
        value_name = "NAME",
        default_value = DEFAULT_WEBHOOK_VARIABLE
    )]
    pub(crate) webhook_env: String,

    /// Print what would be posted, and post nothing (no webhook needed).
    #[arg(long = "dry-run")]
    pub(crate) dry_run: bool,

    /// Also post the changes of a first build (one with no previous build to compare with),
    /// which otherwise posts nothing: every entry of its history would look new.
    #[arg(long = "backlog")]
    pub(crate) backlog: bool,
}

#[derive(Subcommand, Debug)]
pub(crate) enum TemplatesAction {
    /// Write the built-in templates and static files to DIR, to edit and use with --templates.
    Export {
        dir: PathBuf,
        /// Overwrite files that already exist in DIR.
        #[arg(long = "force")]
        force: bool,
        /// Export only this file, named as it is written into DIR (`roster.html`,
        /// `static/style.css`, `i18n/es.toml`); repeat for more.
        #[arg(long = "only", value_name = "FILE")]
        only: Vec<String>,
    },
}

pub(crate) fn positive_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s.is_finite() && s <= 86_400.0 => Ok(s),
        _ => Err(format!(
            "expected a number of seconds between 0 and 86400, got {text:?}"
        )),
    }
}
