//! What each setting is, decided in one place. Precedence, highest first: command-line flags,
//! the environment (`VATCAR_API_KEY`, `VATCAR_BASE_URL`, read by clap as flags), the config
//! file (paths in it relative to the file), built-in defaults.

use super::UsageError;
use super::args::{ApiArgs, ReportCommon, SiteArgs, SourceArgs};
use super::build::BuildOptions;
use super::config::Loaded;
use super::progress::Progress;
use super::report::ReportOptions;
use crate::fetch::client::{ClientOptions, DEFAULT_BASE_URL, FetchObserver, Observer, RetryPolicy};
use crate::fetch::load::Source;
use crate::fetch::site_files::DEMO_LOGO;
use crate::fetch::snapshot;
use crate::secret::{ApiKey, KeyError};
use crate::view::{SiteFile, SiteSettings};
use anyhow::{Context, Result, bail};
use chrono::{DateTime, Utc};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

impl ApiArgs {
    /// The key from the flag or the environment, else from the config file. An empty one is
    /// no key; one too short to keep secret is a usage error, found before any request.
    pub(crate) fn key(&self, config: &Loaded) -> Result<Option<ApiKey>> {
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

    pub(crate) fn client_options(
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
            observer: progress.map(|p| Observer(p as Arc<dyn FetchObserver>)),
            ..ClientOptions::default()
        })
    }
}

impl SourceArgs {
    pub(crate) fn source(
        &self,
        config: &Loaded,
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
        if let Some(limit) = self.feed_limit.or(config.feed_limit) {
            settings.feed_limit = (limit > 0).then_some(limit);
        }
        settings.facility_calendar_name = c.calendar.facility_name.clone();
        settings.division_calendar_name = c.calendar.division_name.clone();
        if let Some(minutes) = &c.calendar.refresh_minutes {
            settings.calendar_refresh_minutes = *minutes.get_ref() as u32;
        }
        settings.facility_bits = config.facility_bits.clone();
        settings.staff_emails = config.staff_emails.clone();
        settings.sections = c.sections;
        settings.menu = config.menu.clone();
        settings.logo = config.logo.clone();
        settings.favicon = config.favicon.clone();
        settings.accent = config.accent.clone();
        settings
    }
}

/// The webmaster's static folder: the config file's `static`, else `static/` beside the config
/// file if there is one. Without a config file there is no site folder, so none: a `static/`
/// that happens to be in the working folder is not taken.
fn static_folder(config: &Loaded) -> Option<PathBuf> {
    site_folder(config, config.config.static_files.as_deref(), "static")
}

/// The webmaster's pages: the config file's `content`, else `content/` beside the config file,
/// on the same terms as [`static_folder`].
fn content_folder(config: &Loaded) -> Option<PathBuf> {
    site_folder(config, config.config.content.as_deref(), "content")
}

fn site_folder(config: &Loaded, configured: Option<&Path>, default: &str) -> Option<PathBuf> {
    match configured {
        Some(dir) => Some(config.relative(dir)),
        None => {
            let beside = config.path.as_ref()?.parent()?.join(default);
            beside.is_dir().then_some(beside)
        }
    }
}

/// The templates folder: the flag's, else the config file's (relative to the file).
pub(crate) fn templates_folder(flag: Option<&PathBuf>, config: &Loaded) -> Option<PathBuf> {
    flag.cloned()
        .or_else(|| config.config.templates.as_ref().map(|p| config.relative(p)))
}

/// How to build the site, for `build` and `serve` alike.
pub(crate) fn site_options(
    source: &SourceArgs,
    site: &SiteArgs,
    config: &Loaded,
    progress: Arc<Progress>,
    key: Option<ApiKey>,
) -> Result<BuildOptions> {
    let source = source.source(config, Some(progress))?;
    let build_time = build_time(&source)?;
    // Bare `build --demo` shows the demo facility's own site folder; with a config file, the
    // webmaster previews theirs over the demo data.
    let demo_site_files = matches!(source, Source::Demo) && config.path.is_none();
    let mut settings = site.settings(config, build_time);
    if demo_site_files {
        settings.logo = Some(SiteFile {
            path: DEMO_LOGO.to_owned(),
            origin: "the demo's logo".to_owned(),
        });
    }
    Ok(BuildOptions {
        source,
        output: site.output(config),
        save_snapshot: None,
        templates: site.templates(config),
        static_files: static_folder(config),
        content: content_folder(config),
        drafts: site.drafts,
        demo_site_files,
        force: site.force,
        wait: site.wait,
        settings,
        language: language(config, site.templates(config).as_deref())?,
        key,
    })
}

pub(crate) fn report_options(
    args: &ReportCommon,
    config: &Loaded,
    include_contact: bool,
    progress: Arc<Progress>,
    key: Option<ApiKey>,
) -> Result<ReportOptions> {
    let source = args.source.source(config, Some(progress))?;
    let templates = templates_folder(args.templates.as_ref(), config);
    Ok(ReportOptions {
        language: language(config, templates.as_deref())?,
        key,
        generated_at: build_time(&source)?,
        source,
        output: args.output.clone(),
        templates,
        force: args.force,
        wait: args.wait,
        include_contact,
    })
}

/// The config file's `language`, if it is one the templates can speak: a built-in one or one
/// the templates folder has `i18n/<language>.toml` for.
fn language(config: &Loaded, templates: Option<&Path>) -> Result<String> {
    let Some(language) = &config.config.language else {
        return Ok(crate::view::texts::DEFAULT_LANGUAGE.to_owned());
    };
    let language = language.get_ref().trim();
    let available = crate::view::texts::available(templates);
    if available.iter().any(|l| l == language) {
        return Ok(language.to_owned());
    }
    let from_theme = match templates {
        Some(dir) => format!("the templates folder's {}", dir.join("i18n").display()),
        None => "a templates folder's i18n/".to_owned(),
    };
    Err(UsageError(format!(
        "{}: language: {language:?} is not available; available: {} (a new language is a catalogue <language>.toml in {from_theme})",
        config.language_at.as_deref().unwrap_or("the config file"),
        available.join(", "),
    ))
    .into())
}

pub(crate) fn key_origin(api: &ApiArgs, config: &Loaded) -> &'static str {
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
