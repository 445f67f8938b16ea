//! What the site and report pipelines run with, decided by `settings.rs` from the flags and
//! the config file; and the API base URL of their source.

use crate::fetch::client::DEFAULT_BASE_URL;
use crate::fetch::load::Source;
use crate::fetch::snapshot;
use crate::render::theme::TemplateCache;
use crate::secret::ApiKey;
use crate::settings::Settings;
use anyhow::{Context, Result};
use chrono::{DateTime, Utc};
use std::path::PathBuf;
use std::sync::Arc;
use url::Url;

#[derive(Clone)]
pub struct BuildOptions {
    pub source: Source,
    pub output: PathBuf,
    pub save_snapshot: Option<PathBuf>,
    /// The webmaster's own files, copied into the site as they are.
    pub static_files: Option<PathBuf>,
    /// The webmaster's own pages.
    pub content: Option<PathBuf>,
    /// Publish the pages marked as drafts too.
    pub drafts: bool,
    /// The demo's own pages and logo instead of `content` and `static_files`: `build --demo`
    /// without a site folder.
    pub demo_site_files: bool,
    /// Built from the demo's data (`--demo`, or `serve --demo`'s rebuilds), which the
    /// published data/changes.json says, so that a real build never compares with it.
    pub demo_data: bool,
    pub force: bool,
    /// Wait for another run publishing to the same folder.
    pub wait: bool,
    /// The config file's settings with the flags laid over them.
    pub settings: Settings,
    /// The "now" that decides upcoming and recent.
    pub build_time: DateTime<Utc>,
    /// The pages' language: `en`, or one [`crate::i18n::available`] lists.
    pub language: String,
    /// The API key, wherever it came from: no file that contains it is published.
    pub key: Option<ApiKey>,
    /// The ATC bookings list (or why it could not be read) as `serve` read it once, when it
    /// started, for every rebuild; `None`: each build reads it.
    pub bookings: Option<Arc<Result<Vec<u8>, String>>>,
    /// The templates last parsed: `serve`'s rebuilds share them while they are unchanged.
    pub templates_parsed: Arc<TemplateCache>,
}

/// What a report run needs besides the CIDs.
#[derive(Clone)]
pub struct ReportOptions {
    pub source: Source,
    pub output: PathBuf,
    /// The reports' language, as for the site.
    pub language: String,
    pub force: bool,
    pub wait: bool,
    pub include_contact: bool,
    pub generated_at: DateTime<Utc>,
    /// The config file's settings with the flags laid over them: the templates, and the
    /// accent, `[extra]` and `[[menu]]`'s renames as the site's pages have them.
    pub settings: Settings,
    /// The API key, wherever it came from: scrubbed from error messages quoted in the index,
    /// and no file that contains it is published.
    pub key: Option<ApiKey>,
}

/// The API's base URL for a source, against which relative links in its data resolve.
pub fn api_base(source: &Source) -> Result<Url> {
    let base = match source {
        Source::Api(client) => Some(client.base_url.clone()),
        // Only the manifest is read: the bodies are read once, by the caller's load.
        Source::Snapshot(dir) => snapshot::base_url_of(dir)?,
        Source::Demo => None,
        Source::Loaded(snapshot) => snapshot.base_url.clone(),
    };
    base_url(base)
}

/// The base URL a snapshot names, the default if it names none.
pub fn base_url(named: Option<String>) -> Result<Url> {
    let base = named.unwrap_or_else(|| DEFAULT_BASE_URL.into());
    Url::parse(base.trim()).with_context(|| format!("the base URL {base:?} is not a URL"))
}
