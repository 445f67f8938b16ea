//! What each setting is, decided in one place. Precedence, highest first: command-line flags,
//! the environment (`VATCAR_API_KEY`, `VATCAR_BASE_URL`, read by clap as flags), the config
//! file (paths in it relative to the file), built-in defaults ([`crate::settings`] reads the
//! file over the defaults; the flags are laid over it here).

use super::args::{ApiArgs, ReportCommon, SiteArgs, SourceArgs};
use super::options::{BuildOptions, ReportOptions};
use super::progress::Progress;
use crate::fetch::client::{ClientOptions, FetchObserver, Observer, RetryPolicy};
use crate::fetch::load::Source;
use crate::fetch::site_files::DEMO_LOGO;
use crate::fetch::snapshot;
use crate::secret::{ApiKey, KeyError};
use crate::settings::{LiveAddress, Settings, SiteFile};
use crate::usage::UsageError;
use anyhow::{Context, Result, bail};
use chrono::{DateTime, Utc};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

impl ApiArgs {
    /// The key from the flag or the environment, else from the config file. An empty one is
    /// no key; one too short to keep secret is a usage error, found before any request.
    pub(crate) fn key(&self, config: &Settings) -> Result<Option<ApiKey>> {
        let from_config = config.api.key.as_deref();
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

    pub(crate) fn client_options(
        &self,
        config: &Settings,
        progress: Option<Arc<Progress>>,
    ) -> Result<ClientOptions> {
        Ok(ClientOptions {
            base_url: (self.base_url.clone()).unwrap_or_else(|| config.api.base_url.clone()),
            api_key: self.key(config)?,
            connect_timeout: Duration::from_secs_f64(self.connect_timeout),
            timeout: Duration::from_secs_f64(self.timeout.unwrap_or(config.api.timeout)),
            retry: RetryPolicy::default(),
            observer: progress.map(|p| Observer(p as Arc<dyn FetchObserver>)),
            ..ClientOptions::default()
        })
    }
}

impl SourceArgs {
    pub(crate) fn source(
        &self,
        config: &Settings,
        progress: Option<Arc<Progress>>,
    ) -> Result<Source> {
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
    /// The config file's settings with this command's flags laid over them.
    fn over(&self, config: &Settings) -> Settings {
        let mut settings = config.clone();
        let site = &mut settings.site;
        site.title = self.title.clone().or(site.title.take());
        site.site_url = self.site_url.clone().or(site.site_url.take());
        site.display_zone = self.display_zone.or(site.display_zone);
        let whats_new = &mut settings.whats_new;
        whats_new.previous = self.previous.clone().or(whats_new.previous.take());
        if let Some(limit) = self.feed_limit {
            settings.feeds.feed_limit = (limit > 0).then_some(limit);
        }
        if let Some(output) = &self.output {
            settings.folders.output = output.clone();
        }
        settings.events.banners = self.banners.over(settings.events.banners);
        settings.folders.templates = templates_folder(self.templates.as_ref(), config);
        settings
    }
}

/// The webmaster's static folder: the config file's `static`, else `static/` beside the config
/// file if there is one. Without a config file there is no site folder, so none: a `static/`
/// that happens to be in the working folder is not taken.
fn static_folder(config: &Settings) -> Option<PathBuf> {
    site_folder(config, config.folders.static_files.as_deref(), "static")
}

/// The webmaster's pages: the config file's `content`, else `content/` beside the config file,
/// on the same terms as [`static_folder`].
fn content_folder(config: &Settings) -> Option<PathBuf> {
    site_folder(config, config.folders.content.as_deref(), "content")
}

fn site_folder(config: &Settings, configured: Option<&Path>, default: &str) -> Option<PathBuf> {
    match configured {
        Some(dir) => Some(dir.to_path_buf()),
        None => {
            let beside = config.path.as_ref()?.parent()?.join(default);
            beside.is_dir().then_some(beside)
        }
    }
}

/// The templates folder: the flag's, else the config file's (relative to the file).
pub(crate) fn templates_folder(flag: Option<&PathBuf>, config: &Settings) -> Option<PathBuf> {
    flag.cloned().or_else(|| config.folders.templates.clone())
}

/// How to build the site, for `build` and `serve` alike.
pub(crate) fn site_options(
    source_args: &SourceArgs,
    site: &SiteArgs,
    config: &Settings,
    progress: Arc<Progress>,
    key: Option<ApiKey>,
) -> Result<BuildOptions> {
    let source = source_args.source(config, Some(progress))?;
    let build_time = build_time(&source)?;
    // Bare `build --demo` shows the demo facility's own site folder; with a config file, the
    // webmaster previews theirs over the demo data.
    let demo_site_files = matches!(source, Source::Demo) && config.path.is_none();
    let mut settings = site.over(config);
    if let Some(url) = &site.bookings.bookings_url {
        settings.live.bookings = LiveAddress {
            url: url.clone(),
            origin: bookings_url_origin().to_owned(),
        };
    }
    check_live_addresses(&settings)?;
    if matches!(source, Source::Demo) {
        // The demo's data is the demo facility's, whose roster gives no code.
        let live = &mut settings.live;
        if live.callsigns.is_empty() {
            live.callsigns = snapshot::DEMO_CALLSIGNS.map(str::to_owned).to_vec();
        }
        if live.airports.is_empty() {
            live.airports = snapshot::DEMO_AIRPORTS.map(str::to_owned).to_vec();
        }
    }
    if demo_site_files {
        settings.site.logo = Some(SiteFile {
            path: DEMO_LOGO.to_owned(),
            origin: "the demo's logo".to_owned(),
        });
    }
    let templates = settings.folders.templates.clone();
    Ok(BuildOptions {
        demo_data: matches!(source, Source::Demo),
        source,
        output: settings.folders.output.clone(),
        save_snapshot: None,
        language: language(site.language.as_deref(), config, templates.as_deref())?,
        templates,
        static_files: static_folder(config),
        content: content_folder(config),
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

/// Where `--bookings-url` came from, for errors.
pub(crate) fn bookings_url_origin() -> &'static str {
    if std::env::var_os("VATCAR_BOOKINGS_URL").is_some() {
        "--bookings-url (or VATCAR_BOOKINGS_URL)"
    } else {
        "--bookings-url"
    }
}

/// `[live] feed` and `bookings` are read over https, or over http on this machine only
/// ([`crate::fetch::public::may_read`], the rule `--previous` is held to): the feed by every
/// visitor's browser, the bookings by the build. A mistake in the config file: exit code 2.
fn check_live_addresses(settings: &Settings) -> Result<()> {
    use crate::fetch::public::{https_rule, may_read};
    use crate::secret::shown_url;
    if !settings.site.sections.live {
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
    config: &Settings,
    include_contact: bool,
    progress: Arc<Progress>,
    key: Option<ApiKey>,
) -> Result<ReportOptions> {
    let source = args.source.source(config, Some(progress))?;
    let templates = templates_folder(args.templates.as_ref(), config);
    Ok(ReportOptions {
        language: language(args.language.as_deref(), config, templates.as_deref())?,
        key,
        generated_at: build_time(&source)?,
        source,
        output: args.output.clone(),
        templates,
        force: args.force,
        wait: args.wait,
        include_contact,
        // Checked when the config was read; as for the site.
        accent: (config.site.accent.as_deref()).and_then(|c| crate::view::accent(c).ok()),
        extra: serde_json::Value::Object(config.site.extra.clone()),
        renames: crate::view::menu_renames(&config.site.menu, &config.site.sections),
    })
}

/// `--language`, else the config file's `language`, if it is one the templates can speak: a
/// built-in one or one the templates folder has `i18n/<language>.toml` for.
fn language(flag: Option<&str>, config: &Settings, templates: Option<&Path>) -> Result<String> {
    let (language, origin) = match (flag, &config.language) {
        (Some(flag), _) => (flag, "--language".to_owned()),
        (None, Some(chosen)) => (chosen.name.as_str(), format!("{}: language", chosen.origin)),
        (None, None) => return Ok(crate::i18n::DEFAULT_LANGUAGE.to_owned()),
    };
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

pub(crate) fn key_origin(api: &ApiArgs, config: &Settings) -> &'static str {
    if api.api_key.is_some() {
        if std::env::var_os("VATCAR_API_KEY").is_some() {
            "VATCAR_API_KEY or --api-key"
        } else {
            "--api-key"
        }
    } else if config.api.key.is_some() {
        "the config file"
    } else {
        "nowhere (no key set)"
    }
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
