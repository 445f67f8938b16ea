//! The pipelines, stage by stage: load → decode → view → render → publish, for the site and
//! for the private reports. Nothing touches an output folder until everything has rendered.

use crate::cmd::progress::Progress;
use crate::fetch::client::DEFAULT_BASE_URL;
use crate::fetch::endpoint::Endpoint;
use crate::fetch::load::{self, Source};
use crate::fetch::secret::ApiKey;
use crate::fetch::snapshot::{self, Snapshot};
use crate::model;
use crate::publish::{self, OutputFile, PublishReport};
use crate::render::Theme;
use crate::render::reports::{index_context, report_context};
use crate::render::site;
use crate::view::report;
use crate::view::{self, SiteSettings};
use anyhow::{Context, Result};
use chrono::{DateTime, Utc};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use url::Url;

#[derive(Clone, Debug)]
pub struct BuildOptions {
    pub source: Source,
    pub output: PathBuf,
    pub save_snapshot: Option<PathBuf>,
    pub templates: Option<PathBuf>,
    pub force: bool,
    /// How the site looks; its `base_url` is replaced by the source's.
    pub settings: SiteSettings,
    /// The API key, wherever it came from: no file that contains it is published.
    pub key: Option<ApiKey>,
}

#[derive(Debug)]
pub struct BuildReport {
    pub files: usize,
    pub pages: usize,
    pub calendars: usize,
    pub events: usize,
    pub publish: PublishReport,
}

pub fn build(options: &BuildOptions, progress: &Progress) -> Result<BuildReport> {
    let clock = std::time::Instant::now();
    let lap = |stage: &str| {
        log::debug!(
            "{stage}: {} ms{}",
            clock.elapsed().as_millis(),
            peak_memory()
        )
    };
    // The templates are parsed while the data is fetched and decoded.
    let theme = std::thread::spawn({
        let templates = options.templates.clone();
        move || Theme::load(templates.as_deref())
    });
    let snapshot = load::raw(&options.source, &Endpoint::SITE)?;
    lap("loaded");
    let data = crate::model::decode_site(&snapshot)?;
    lap("decoded");
    progress.step(&format!(
        "read {} controllers, {} visitors, {} facility events, {} division events, {} documents",
        data.roster.controllers.len(),
        data.roster.visitors.len(),
        data.facility_events.len(),
        data.division_events.len(),
        data.documents.iter().map(|c| c.files.len()).sum::<usize>()
    ));
    if let Some(dir) = &options.save_snapshot {
        save_snapshot(&snapshot, dir, options.force, options.key.as_ref())?;
        progress.step(&format!("saved the snapshot in {}", dir.display()));
    }
    let theme = theme
        .join()
        .expect("loading the templates does not panic")?;
    let base_url = match &options.source {
        Source::Api(_) => api_base(&options.source)?,
        _ => {
            let base = snapshot
                .base_url
                .clone()
                .unwrap_or_else(|| DEFAULT_BASE_URL.into());
            Url::parse(base.trim())
                .with_context(|| format!("the base URL {base:?} is not a URL"))?
        }
    };
    let settings = SiteSettings {
        base_url,
        ..options.settings.clone()
    };
    // The raw bodies are saved by now; the view needs only the models.
    drop(snapshot);
    crate::memory::release_freed();
    let view = view::build(&data, &settings);
    lap("view built");
    // The view owns all it needs; the models can go before rendering.
    drop(data);
    crate::memory::release_freed();
    // Files go to the staging folder as they render; the output folder changes only at the
    // commit, and a failed render drops the staging folder with it.
    let staging = publish::Staging::begin(
        &options.output,
        publish::Publish::new("site", options.force).guarding(options.key.as_ref()),
    )
    .with_context(|| format!("could not publish to {}", options.output.display()))?;
    let [files, pages, calendars] = [(); 3].map(|_| AtomicUsize::new(0));
    site::render(&view, &theme, &|file| {
        files.fetch_add(1, Ordering::Relaxed);
        if file.path.ends_with(".html") {
            pages.fetch_add(1, Ordering::Relaxed);
        } else if file.path.ends_with(".ics") {
            calendars.fetch_add(1, Ordering::Relaxed);
        }
        staging.add(&file.path, &file.contents)
    })?;
    let [files, pages, calendars] = [files, pages, calendars].map(AtomicUsize::into_inner);
    lap("rendered and staged");
    progress.step(&format!("rendered {pages} pages and {calendars} calendars"));
    let report = staging
        .commit()
        .with_context(|| format!("could not publish to {}", options.output.display()))?;
    lap("published");
    Ok(BuildReport {
        files,
        pages,
        calendars,
        events: view.event_pages.len(),
        publish: report,
    })
}

/// Writes `snapshot` to `dir`, with the same all-or-nothing care as a site build. A body
/// that holds the key (a server echoing it) stops the whole snapshot: bodies are saved
/// exactly as sent, never rewritten.
pub fn save_snapshot(
    snapshot: &Snapshot,
    dir: &Path,
    force: bool,
    secret: Option<&ApiKey>,
) -> Result<()> {
    let files: Vec<OutputFile> = snapshot
        .files()
        .into_iter()
        .map(|(name, bytes)| OutputFile::new(name, bytes))
        .collect();
    let how = publish::Publish::new("snapshot", force).guarding(secret);
    publish::publish(dir, &files, how)
        .with_context(|| format!("could not save the snapshot in {}", dir.display()))?;
    Ok(())
}

/// The process's peak memory so far, where the system tells it (Linux), for `-vv`.
fn peak_memory() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(format!(", peak {} MiB", kib / 1024))
        })
        .unwrap_or_default()
}

/// What a report run needs besides the CIDs.
#[derive(Clone, Debug)]
pub struct ReportOptions {
    pub source: Source,
    pub output: PathBuf,
    pub templates: Option<PathBuf>,
    pub force: bool,
    pub include_contact: bool,
    pub generated_at: DateTime<Utc>,
    /// The API key, wherever it came from: scrubbed from error messages quoted in the index,
    /// and no file that contains it is published.
    pub key: Option<ApiKey>,
}

/// The outcome of a training-report run: which students got a report, and why the others
/// did not.
#[derive(Debug, Default)]
pub struct TrainingOutcome {
    pub written: Vec<(u64, String)>,
    pub failed: Vec<(u64, anyhow::Error)>,
}

/// Requests in flight at once for a report run: enough to hide latency, few enough to be
/// polite to a volunteer-run API.
pub const REPORT_CONCURRENCY: usize = 4;

/// One `training-<cid>.html` per student, and an `index.html` when there are several.
/// Students whose data cannot be read are reported in the outcome; the others are written.
pub fn training_reports(options: &ReportOptions, cids: &[u64]) -> Result<TrainingOutcome> {
    let endpoints: Vec<Endpoint> = cids
        .iter()
        .flat_map(|&cid| [Endpoint::User(cid), Endpoint::UserNotes(cid)])
        .collect();
    let mut bodies = load::raw_each(&options.source, &endpoints, REPORT_CONCURRENCY)?.into_iter();
    let theme = Theme::load(options.templates.as_deref())?;
    let settings = report::ReportSettings {
        include_contact: options.include_contact,
        generated_at: options.generated_at,
        base_url: api_base(&options.source)?,
    };
    let mut outcome = TrainingOutcome::default();
    let mut files = Vec::new();
    let mut index = Vec::new();
    for &cid in cids {
        let (user, notes) = (
            bodies.next().expect("two per CID"),
            bodies.next().expect("two per CID"),
        );
        let decoded = user
            .and_then(|b| Ok(model::decode_user(cid, &b)?))
            .and_then(|user| {
                let notes = notes.and_then(|b| Ok(model::decode_notes(cid, &b)?))?;
                Ok((user, notes))
            });
        let rendered = decoded.and_then(|(user, notes)| {
            let view = report::training(&user, &notes, &settings);
            let html = theme.render("report-training.html", &report_context(&view))?;
            Ok((view, html))
        });
        match rendered {
            Ok((view, html)) => {
                let file = format!("training-{cid}.html");
                index.push(report::IndexEntry {
                    cid,
                    name: Some(view.student.name.clone()),
                    file: Some(file.clone()),
                    sessions: Some(view.summary.sessions),
                    error: None,
                });
                files.push(OutputFile::new(file.clone(), html));
                outcome.written.push((cid, file));
            }
            Err(error) => {
                // The error may quote the server, and the server may echo the key.
                let message = format!("{error:#}");
                index.push(report::IndexEntry {
                    cid,
                    name: None,
                    file: None,
                    sessions: None,
                    error: Some(match &options.key {
                        Some(key) => key.redact(&message),
                        None => message,
                    }),
                });
                outcome.failed.push((cid, error));
            }
        }
    }
    if files.is_empty() {
        return Ok(outcome);
    }
    if cids.len() > 1 {
        files.push(OutputFile::new(
            "index.html",
            theme.render(
                "report-index.html",
                &index_context(&index, options.generated_at),
            )?,
        ));
    }
    let how = publish::Publish {
        prune: false,
        ..publish::Publish::new("reports", options.force).guarding(options.key.as_ref())
    };
    publish::publish(&options.output, &files, how).with_context(|| {
        format!(
            "could not write the reports to {}",
            options.output.display()
        )
    })?;
    Ok(outcome)
}

/// `roster.html`: the roster on one printed page.
pub fn roster_report(options: &ReportOptions) -> Result<PathBuf> {
    let snapshot = load::raw(&options.source, &[Endpoint::FacilityRoster])?;
    let roster = model::decode_roster(snapshot.body(Endpoint::FacilityRoster)?)?;
    let theme = Theme::load(options.templates.as_deref())?;
    let settings = report::ReportSettings {
        include_contact: false,
        generated_at: options.generated_at,
        base_url: api_base(&options.source)?,
    };
    let html = theme.render(
        "report-roster.html",
        &report_context(&report::roster(&roster, &settings)),
    )?;
    let how = publish::Publish {
        prune: false,
        ..publish::Publish::new("reports", options.force).guarding(options.key.as_ref())
    };
    publish::publish(
        &options.output,
        &[OutputFile::new("roster.html", html)],
        how,
    )
    .with_context(|| format!("could not write the report to {}", options.output.display()))?;
    Ok(options.output.join("roster.html"))
}

/// The API's base URL for a source, against which relative links in its data resolve.
fn api_base(source: &Source) -> Result<Url> {
    let base = match source {
        Source::Api(client) => client.base_url.clone(),
        // Only the manifest is read: the bodies are read once, by the caller's load.
        Source::Snapshot(dir) => {
            snapshot::base_url_of(dir)?.unwrap_or_else(|| DEFAULT_BASE_URL.into())
        }
        Source::Demo => DEFAULT_BASE_URL.into(),
        Source::Loaded(snapshot) => snapshot
            .base_url
            .clone()
            .unwrap_or_else(|| DEFAULT_BASE_URL.into()),
    };
    Url::parse(base.trim()).with_context(|| format!("the base URL {base:?} is not a URL"))
}
