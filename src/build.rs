//! The site build, stage by stage: load → decode → render → publish. Nothing touches the
//! output folder until everything has rendered.

use crate::client::DEFAULT_BASE_URL;
use crate::endpoint::Endpoint;
use crate::load::{self, Source};
use crate::publish::{self, PublishReport};
use crate::render::Theme;
use crate::site;
use crate::view::{self, SiteSettings};
use anyhow::{Context, Result};
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use std::path::PathBuf;
use url::Url;

#[derive(Clone, Debug)]
pub struct BuildOptions {
    pub source: Source,
    pub output: PathBuf,
    pub save_snapshot: Option<PathBuf>,
    pub templates: Option<PathBuf>,
    pub force: bool,
    /// The "now" that decides upcoming and recent; fixed for reproducible builds.
    pub build_time: DateTime<Utc>,
    pub site_url: Option<Url>,
    pub display_zone: Option<Tz>,
    pub title: Option<String>,
}

#[derive(Debug)]
pub struct BuildReport {
    pub files: usize,
    pub publish: PublishReport,
}

pub fn build(options: &BuildOptions) -> Result<BuildReport> {
    let snapshot = load::raw(&options.source, &Endpoint::SITE)?;
    let data = load::decode_site(&snapshot)?;
    if let Some(dir) = &options.save_snapshot {
        snapshot.write_dir(dir, options.force)?;
        log::info!("saved the snapshot in {}", dir.display());
    }
    let theme = Theme::load(options.templates.as_deref())?;
    let base = match &options.source {
        Source::Api(client) => client.base_url.clone(),
        _ => snapshot
            .base_url
            .clone()
            .unwrap_or_else(|| DEFAULT_BASE_URL.into()),
    };
    let base_url =
        Url::parse(base.trim()).with_context(|| format!("the base URL {base:?} is not a URL"))?;
    let settings = SiteSettings {
        title: options.title.clone(),
        site_url: options.site_url.clone(),
        display_zone: options.display_zone,
        ..SiteSettings::new(base_url, options.build_time)
    };
    let view = view::build(&data, &settings);
    let files = site::render(&view, &theme)?;
    let report = publish::publish(&options.output, &files, options.force)
        .with_context(|| format!("could not publish to {}", options.output.display()))?;
    Ok(BuildReport {
        files: files.len(),
        publish: report,
    })
}
