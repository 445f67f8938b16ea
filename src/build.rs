//! The site build, stage by stage: load → decode → render → publish. Nothing touches the
//! output folder until everything has rendered.

use crate::endpoint::Endpoint;
use crate::load::{self, SiteData, Source};
use crate::publish::{self, OutputFile, PublishReport};
use crate::render::Theme;
use anyhow::{Context, Result};
use chrono::{DateTime, Utc};
use std::path::PathBuf;

#[derive(Clone, Debug)]
pub struct BuildOptions {
    pub source: Source,
    pub output: PathBuf,
    pub save_snapshot: Option<PathBuf>,
    pub templates: Option<PathBuf>,
    pub force: bool,
    /// The "now" that decides upcoming and recent; fixed for reproducible builds.
    pub build_time: DateTime<Utc>,
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
    let files = render_site(&data, &theme, options)?;
    let report = publish::publish(&options.output, &files, options.force)
        .with_context(|| format!("could not publish to {}", options.output.display()))?;
    Ok(BuildReport {
        files: files.len(),
        publish: report,
    })
}

fn render_site(data: &SiteData, theme: &Theme, options: &BuildOptions) -> Result<Vec<OutputFile>> {
    let title = data
        .roster
        .facility
        .as_ref()
        .and_then(|f| f.display_name())
        .unwrap_or_else(|| "VATCAR facility".into());
    let source = match &options.source {
        Source::Api(_) => "the VATCAR API",
        Source::Snapshot(_) => "a saved snapshot",
        Source::Demo => "the built-in demo data",
    };
    let mut context = tera::Context::new();
    context.insert("root", "./");
    context.insert(
        "site",
        &serde_json::json!({
            "title": title,
            "source": source,
            "built_at": options.build_time.format("%Y-%m-%d %H:%MZ").to_string(),
        }),
    );
    context.insert(
        "counts",
        &serde_json::json!({
            "controllers": data.roster.controllers.len(),
            "visitors": data.roster.visitors.len(),
            "facility_events": data.facility_events.len(),
            "division_events": data.division_events.len(),
            "documents": data.documents.iter().map(|c| c.files.len()).sum::<usize>(),
        }),
    );
    let mut files = vec![OutputFile::new(
        "index.html",
        theme.render("index.html", &context)?,
    )];
    for (name, bytes) in theme.static_files() {
        files.push(OutputFile::new(format!("static/{name}"), bytes.clone()));
    }
    Ok(files)
}
