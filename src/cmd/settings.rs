//! What each setting is, decided in one place. Precedence, highest first: command-line flags
//! and the environment variables clap reads as flags (`VATCAR_API_KEY`, `VATCAR_BASE_URL`,
//! `VATCAR_BANNERS`, `VATCAR_BOOKINGS_URL`), the config file (paths in it relative to the
//! file), built-in defaults ([`crate::settings`] reads the file over the defaults; the flags
//! are laid over it here, by [`over`]).

use super::args::{
    ApiArgs, BannersBookingsArgs, BuildArgs, Command, ReportCommon, ServeArgs, SiteArgs, SourceArgs,
};
use super::options::{BuildOptions, ReportOptions};
use super::progress::Progress;
use crate::fetch::client::{ClientOptions, FetchObserver};
use crate::fetch::load::Source;
use crate::fetch::site_files::DEMO_LOGO;
use crate::fetch::snapshot;
use crate::secret::{ApiKey, KeyError};
use crate::settings::{
    BannerSource, BaseUrl, FeedLimit, KeyText, Language, LiveAddress, Settings, SiteFile, SiteUrl,
    Timeout, Zone,
};
use crate::usage::UsageError;
use anyhow::{Context, Result, bail};
use chrono::{DateTime, Utc};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The config file's settings with the command's flags laid over them, where they win.
pub(crate) fn over(command: &Command, mut settings: Settings) -> Settings {
    match command {
        Command::Build(BuildArgs { source, site, .. })
        | Command::Serve(ServeArgs { source, site, .. }) => {
            return site_over(&source.api, site, settings);
        }
        Command::Check(args) => args.source.api.over(&mut settings),
        Command::Fetch(args) => {
            args.api.over(&mut settings);
            args.reads.over(&mut settings);
        }
        Command::Report(args) => {
            let common = args.common();
            common.source.api.over(&mut settings);
            theme_over(&common.templates, &common.language, &mut settings);
        }
        Command::Announce(args) => settings.output = args.output.clone().or(settings.output),
        Command::Init(_) | Command::Templates(_) | Command::Completions { .. } => {}
    }
    settings
}

/// `build`'s and `serve`'s flags laid over the config file's settings.
pub(crate) fn site_over(api: &ApiArgs, site: &SiteArgs, mut s: Settings) -> Settings {
    api.over(&mut s);
    s.site_url = site.site_url.clone().map(SiteUrl).or(s.site_url);
    s.display_zone = site.display_zone.map(Zone).or(s.display_zone);
    s.title = site.title.clone().or(s.title);
    s.feed_limit = (site.feed_limit).map_or(s.feed_limit, |n| FeedLimit((n > 0).then_some(n)));
    s.previous = site.previous.clone().map(SiteUrl).or(s.previous);
    s.output = site.output.clone().or(s.output);
    theme_over(&site.templates, &site.language, &mut s);
    site.reads.over(&mut s);
    s
}

/// `--templates` and `--language`, for the site and the reports alike.
fn theme_over(templates: &Option<PathBuf>, language: &Option<String>, s: &mut Settings) {
    s.templates = templates.clone().or(s.templates.take());
    if let Some(language) = language {
        s.language = Some(Language::new(language, "--language"));
    }
}

impl ApiArgs {
    /// An empty key (`VATCAR_API_KEY=""`) is no key: the file's, if it has one, stands.
    fn over(&self, s: &mut Settings) {
        if let Some(base_url) = &self.base_url {
            s.base_url = BaseUrl(base_url.clone());
        }
        if let Some(key) = self.api_key.as_ref().filter(|key| !key.trim().is_empty()) {
            let origin =
                from_flag_or_env("VATCAR_API_KEY", "--api-key", "VATCAR_API_KEY or --api-key");
            s.api_key = Some(KeyText::new(key.clone(), origin));
        }
        s.timeout = self.timeout.map_or(s.timeout, Timeout);
    }

    /// How the client reaches the API: the settings' address, timeout and key, and this
    /// command's `--connect-timeout` (no key of the file).
    pub(crate) fn client_options(
        &self,
        settings: &Settings,
        progress: Arc<Progress>,
    ) -> Result<ClientOptions> {
        Ok(ClientOptions {
            base_url: settings.base_url.0.clone(),
            api_key: api_key(settings)?,
            connect_timeout: Duration::from_secs_f64(self.connect_timeout),
            timeout: Duration::from_secs_f64(settings.timeout.0),
            observer: Some(progress as Arc<dyn FetchObserver>),
            ..ClientOptions::default()
        })
    }
}

impl BannersBookingsArgs {
    fn over(&self, s: &mut Settings) {
        match self.banners.as_deref() {
            Some("local") => s.banners = BannerSource::Local,
            Some("remote") => s.banners = BannerSource::Remote,
            _ => {}
        }
        if let Some(url) = &self.bookings_url {
            let origin = from_flag_or_env(
                "VATCAR_BOOKINGS_URL",
                "--bookings-url",
                "--bookings-url (or VATCAR_BOOKINGS_URL)",
            );
            s.live.bookings = LiveAddress::new(url.clone(), origin);
        }
    }
}

/// The API key the settings hold (from a flag, the environment or the file). An empty one is
/// no key; one too short to keep secret is a usage error, found before any request.
pub(crate) fn api_key(settings: &Settings) -> Result<Option<ApiKey>> {
    let Some(key) = &settings.api_key else {
        return Ok(None);
    };
    match ApiKey::new(&key.text) {
        Ok(key) => Ok(Some(key)),
        Err(KeyError::Empty) => Ok(None),
        Err(error) => Err(UsageError(format!("{error} (the key from {})", key.origin)).into()),
    }
}

/// Where a value clap read from `flag` or `variable` came from, for messages: `flag`, or
/// `either` where the variable is set (clap takes the flag over it).
fn from_flag_or_env(variable: &str, flag: &'static str, either: &'static str) -> &'static str {
    match std::env::var_os(variable) {
        Some(_) => either,
        None => flag,
    }
}

impl SourceArgs {
    pub(crate) fn source(&self, settings: &Settings, progress: Arc<Progress>) -> Result<Source> {
        Ok(if self.demo {
            Source::Demo
        } else if let Some(dir) = &self.snapshot {
            Source::Snapshot(dir.clone())
        } else {
            Source::Api(self.api.client_options(settings, progress)?)
        })
    }
}

/// A folder of the webmaster's site folder: the one the config file names (`static`,
/// `content`), else `default` beside the config file if there is one. Without a config file
/// there is no site folder, so none: a `static/` that happens to be in the working folder is
/// not taken.
fn site_folder(settings: &Settings, configured: Option<&Path>, default: &str) -> Option<PathBuf> {
    if let Some(dir) = configured {
        return Some(dir.to_path_buf());
    }
    let beside = settings.path.as_ref()?.parent()?.join(default);
    beside.is_dir().then_some(beside)
}

/// How to build the site, for `build` and `serve` alike, from the settings with the flags
/// laid over them.
pub(crate) fn site_options(
    source_args: &SourceArgs,
    site: &SiteArgs,
    settings: &Settings,
    progress: Arc<Progress>,
    key: Option<ApiKey>,
) -> Result<BuildOptions> {
    let source = source_args.source(settings, progress)?;
    let build_time = build_time(&source)?;
    // Bare `build --demo` shows the demo facility's own site folder; with a config file, the
    // webmaster previews theirs over the demo data.
    let demo_site_files = matches!(source, Source::Demo) && settings.path.is_none();
    check_live_addresses(settings)?;
    let mut settings = settings.clone();
    if matches!(source, Source::Demo) {
        demo_positions(&mut settings);
    }
    if demo_site_files {
        settings.logo = Some(SiteFile::new(DEMO_LOGO, "the demo's logo"));
        // The demo shows what a facility can switch on: the hours from its sample of
        // sessions, the month's most active on the home page, and a page per member.
        settings.activity.enabled = true;
        settings.activity.home_top = true;
        settings.people.enabled = true;
        settings.sections.activity = true;
        settings.sections.people = true;
    }
    Ok(BuildOptions {
        demo_data: matches!(source, Source::Demo),
        source,
        output: settings.output_folder(),
        save_snapshot: None,
        language: language(&settings)?,
        static_files: site_folder(&settings, settings.static_files.as_deref(), "static"),
        content: site_folder(&settings, settings.content.as_deref(), "content"),
        drafts: site.drafts,
        demo_site_files,
        force: site.force,
        wait: site.wait,
        settings,
        build_time,
        key,
        bookings: None,
        templates_parsed: Default::default(),
    })
}

/// `[live] feed` and `bookings` are read over https, or over http on this machine only
/// ([`crate::fetch::public::may_read`], the rule `--previous` is held to): the feed by every
/// visitor's browser, the bookings by the build. A mistake in the config file: exit code 2.
fn check_live_addresses(settings: &Settings) -> Result<()> {
    use crate::fetch::public::{https_rule, may_read};
    use crate::secret::shown_url;
    if !settings.sections.live {
        return Ok(());
    }
    let live = &settings.live;
    for (address, what) in [
        (&live.feed, "VATSIM's data feed"),
        (&live.bookings, "the bookings list"),
    ] {
        if !may_read(&address.url) {
            return Err(UsageError(format!(
                "{}: {} is not read over plain http: {}; write its https address",
                address.origin,
                shown_url(&address.url),
                https_rule(what)
            ))
            .into());
        }
    }
    Ok(())
}

pub(crate) fn report_options(
    args: &ReportCommon,
    settings: &Settings,
    include_contact: bool,
    progress: Arc<Progress>,
    key: Option<ApiKey>,
) -> Result<ReportOptions> {
    let source = args.source.source(settings, progress)?;
    Ok(ReportOptions {
        language: language(settings)?,
        key,
        generated_at: build_time(&source)?,
        source,
        output: args.output.clone(),
        force: args.force,
        wait: args.wait,
        include_contact,
        settings: settings.clone(),
    })
}

/// The demo facility's callsigns and airports where the config file gives none: the demo's
/// data is the demo facility's, whose roster gives no code.
pub(crate) fn demo_positions(settings: &mut Settings) {
    let live = &mut settings.live;
    if live.callsigns.0.is_empty() {
        live.callsigns.0 = snapshot::DEMO_CALLSIGNS.map(str::to_owned).to_vec();
    }
    if live.airports.0.is_empty() {
        live.airports.0 = snapshot::DEMO_AIRPORTS.map(str::to_owned).to_vec();
    }
}

/// `--language`, else the config file's `language`, if it is one the templates can speak: a
/// built-in one or one the templates folder has `i18n/<language>.toml` for.
fn language(settings: &Settings) -> Result<String> {
    let Some(chosen) = &settings.language else {
        return Ok(crate::i18n::DEFAULT_LANGUAGE.to_owned());
    };
    let (language, origin, templates) =
        (&chosen.name, &chosen.origin, settings.templates.as_deref());
    let available = crate::i18n::available(templates);
    if available.iter().any(|l| l == language) {
        return Ok(language.to_owned());
    }
    let from_theme = match templates {
        Some(dir) => format!("the templates folder's {}", dir.join("i18n").display()),
        None => "a templates folder's i18n/".to_owned(),
    };
    Err(UsageError(format!(
        "{origin}: {language:?} is not available; available: {} (a new language is a catalogue <language>.toml in {from_theme})",
        available.join(", "),
    ))
    .into())
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
