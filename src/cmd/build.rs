//! `vatcar-site build`: the site pipeline, stage by stage: load → decode → view → render →
//! publish. Nothing touches the output folder until everything has rendered. `serve` runs the
//! same pipeline.

use super::args::BuildArgs;
use super::config::Loaded;
use super::progress::Progress;
use super::settings::site_options;
use crate::fetch::client::DEFAULT_BASE_URL;
use crate::fetch::endpoint::Endpoint;
use crate::fetch::load::{self, Source};
use crate::fetch::secret::ApiKey;
use crate::fetch::site_files::{StaticFile, demo_content, demo_static, read_content, read_static};
use crate::fetch::snapshot;
use crate::model::content::{self, ContentPage};
use crate::publish::{self, PublishReport};
use crate::render::Theme;
use crate::render::site;
use crate::render::theme::PageTemplate;
use crate::view::outputs::Kind;
use crate::view::{self, SiteSettings};
use anyhow::{Context, Result, bail};
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;
use url::Url;

#[derive(Clone, Debug)]
pub struct BuildOptions {
    pub source: Source,
    pub output: PathBuf,
    pub save_snapshot: Option<PathBuf>,
    pub templates: Option<PathBuf>,
    /// The webmaster's own files, copied into the site as they are.
    pub static_files: Option<PathBuf>,
    /// The webmaster's own pages.
    pub content: Option<PathBuf>,
    /// Publish the pages marked as drafts too.
    pub drafts: bool,
    /// The demo's own pages and logo instead of `content` and `static_files`: `build --demo`
    /// without a site folder.
    pub demo_site_files: bool,
    pub force: bool,
    /// Wait for another run publishing to the same folder.
    pub wait: bool,
    /// How the site looks; its `base_url` is replaced by the source's.
    pub settings: SiteSettings,
    /// The pages' language: `en`, or one [`crate::view::texts::available`] lists.
    pub language: String,
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

/// The `build` command: the pipeline, then one line saying what changed.
pub(crate) fn run(
    args: &BuildArgs,
    config: &Loaded,
    progress: &Arc<Progress>,
    key: Option<ApiKey>,
    started: Instant,
) -> Result<()> {
    let options = BuildOptions {
        save_snapshot: args.save_snapshot.clone(),
        ..site_options(&args.source, &args.site, config, progress.clone(), key)?
    };
    if let Some(snapshot) = &options.save_snapshot {
        crate::publish::check_apart(&options.output, snapshot)?;
    }
    let report = build(&options, progress)?;
    warn_overwritten(&options.output, &report.publish);
    // The event pages are among the pages, and said to be.
    let events = match report.events {
        0 => String::new(),
        1 => ", 1 of them an event page,".to_owned(),
        n => format!(", {n} of them event pages,"),
    };
    progress.done(&format!(
        "built {} pages{events} and {} calendars into {} in {:.2} s ({} written, {} unchanged, {} removed)",
        report.pages,
        report.calendars,
        options.output.display(),
        started.elapsed().as_secs_f64(),
        report.publish.written,
        report.publish.unchanged,
        report.publish.removed,
    ));
    tell_github_actions(&options.output);
    Ok(())
}

/// Lists, as a warning, the webmaster's files in `dir` that a publication overwrote because
/// `--force` was given: every command that publishes says so the same way.
pub(crate) fn warn_overwritten(dir: &Path, report: &PublishReport) {
    let overwritten = &report.overwritten;
    if overwritten.is_empty() {
        return;
    }
    log::warn!(
        "--force: overwrote {} file{} in {} that vatcar-site had not written: {}",
        overwritten.len(),
        if overwritten.len() == 1 { "" } else { "s" },
        dir.display(),
        overwritten.join(", ")
    );
}

/// In a GitHub Actions step, names the output folder as the step's output `output` (the
/// vatcar-site action passes it on), absolute since later steps may run in another folder.
fn tell_github_actions(output: &Path) {
    let Some(outputs_file) = std::env::var_os("GITHUB_OUTPUT").filter(|f| !f.is_empty()) else {
        return;
    };
    let written = std::path::absolute(output).and_then(|folder| {
        let folder = folder.to_string_lossy();
        // One line per output: a line break in the path would forge another output.
        if folder.contains(['\n', '\r']) {
            return Err(std::io::Error::other("the path holds a line break"));
        }
        let mut file = OpenOptions::new().append(true).open(&outputs_file)?;
        writeln!(file, "output={folder}")
    });
    if let Err(err) = written {
        log::warn!("could not name the output folder in GITHUB_OUTPUT: {err}");
    }
}

pub fn build(options: &BuildOptions, progress: &Progress) -> Result<BuildReport> {
    let how = publish::Publish::new("site", options.force)
        .guarding(options.key.as_ref())
        .waiting(options.wait);
    publish::tidy(&options.output, how)
        .with_context(|| format!("could not publish to {}", options.output.display()))?;
    let clock = std::time::Instant::now();
    let lap = |stage: &str| {
        log::debug!(
            "{stage}: {} ms{}",
            clock.elapsed().as_millis(),
            peak_memory()
        )
    };
    let content = content_pages(options)?;
    // The templates are parsed while the data is fetched and decoded.
    let theme = load_theme(options, &content);
    let snapshot = load::raw(&options.source, &Endpoint::SITE)?;
    let static_files = static_files(options)?;
    lap("loaded");
    let data = crate::model::decode_site(&snapshot)?;
    lap("decoded");
    progress.step(&what_was_read(&data));
    if let Some(dir) = &options.save_snapshot {
        super::fetch::save_snapshot(
            &snapshot,
            dir,
            options.force,
            options.wait,
            options.key.as_ref(),
        )?;
        progress.step(&format!("saved the snapshot in {}", dir.display()));
    }
    let theme = theme
        .join()
        .expect("loading the templates does not panic")?;
    let settings = SiteSettings {
        base_url: site_base_url(options, &snapshot)?,
        texts: theme.texts(),
        ..options.settings.clone()
    };
    // The raw bodies are saved by now; the view needs only the models.
    drop(snapshot);
    crate::memory::release_freed();
    // The output folder is read (its lock taken, its listing scanned: 60,000 entries for a
    // large site) while the view is built.
    let (mut view, staging) = std::thread::scope(|scope| {
        let staging = scope.spawn(|| publish::Staging::begin(&options.output, how));
        let view = view::build(&data, &settings);
        (
            view,
            staging
                .join()
                .expect("reading the output folder does not panic"),
        )
    });
    lap("view built and output folder read");
    // Read by the content pages' links and by the check that no page overwrites a static file.
    let static_paths: std::collections::HashSet<&str> =
        static_files.iter().map(|f| f.path.as_str()).collect();
    view::add_content(
        &mut view,
        &content,
        &static_paths,
        &theme.static_paths(),
        &settings.menu,
        options.drafts,
    )?;
    // Files go to the staging folder as they render; the output folder changes only at the
    // commit, and a failed render drops the staging folder with it.
    let staging =
        staging.with_context(|| format!("could not publish to {}", options.output.display()))?;
    // The view owns all it needs; the models can go before rendering.
    drop(data);
    crate::memory::release_freed();
    let counts = render_and_stage(
        &view,
        &theme,
        &static_paths,
        &static_files,
        &staging,
        options,
    )?;
    lap("rendered and staged");
    progress.step(&format!(
        "rendered {} pages and {} calendars",
        counts.pages, counts.calendars
    ));
    let report = staging
        .commit()
        .with_context(|| format!("could not publish to {}", options.output.display()))?;
    lap("published");
    Ok(BuildReport {
        files: counts.files,
        pages: counts.pages,
        calendars: counts.calendars,
        events: counts.events,
        publish: report,
    })
}

/// What the data holds, as the build tells it.
fn what_was_read(data: &crate::model::SiteData) -> String {
    format!(
        "read {} controllers, {} visitors, {} facility events, {} division events, {} documents",
        data.roster.controllers.len(),
        data.roster.visitors.len(),
        data.facility_events.len(),
        data.division_events.len(),
        data.documents.iter().map(|c| c.files.len()).sum::<usize>()
    )
}

/// The theme, loaded on a thread of its own, with the templates the published content pages
/// name.
fn load_theme(
    options: &BuildOptions,
    content: &[ContentPage],
) -> std::thread::JoinHandle<Result<Theme>> {
    let page_templates: Vec<PageTemplate> = content
        .iter()
        .filter(|page| options.drafts || !page.draft)
        .filter_map(|page| {
            Some(PageTemplate {
                name: page.template.clone()?,
                origin: format!("{}:{}", page.origin, page.template_line),
            })
        })
        .collect();
    let templates = options.templates.clone();
    let language = options.language.clone();
    std::thread::spawn(move || Theme::load_with(templates.as_deref(), &language, &page_templates))
}

/// The base URL the data's relative links resolve against: the API's, or the one the
/// snapshot was fetched from.
fn site_base_url(options: &BuildOptions, snapshot: &snapshot::Snapshot) -> Result<Url> {
    Ok(match &options.source {
        Source::Api(_) => api_base(&options.source)?,
        _ => {
            let base = snapshot
                .base_url
                .clone()
                .unwrap_or_else(|| DEFAULT_BASE_URL.into());
            Url::parse(base.trim())
                .with_context(|| format!("the base URL {base:?} is not a URL"))?
        }
    })
}

/// The webmaster's static files, read and checked: the files a setting names are there, and
/// none takes the name of the list of files vatcar-site wrote.
fn static_files(options: &BuildOptions) -> Result<Vec<StaticFile>> {
    let static_files = match &options.static_files {
        _ if options.demo_site_files => demo_static(),
        Some(dir) => read_static(dir)?,
        None => Vec::new(),
    };
    for named in [&options.settings.logo, &options.settings.favicon]
        .into_iter()
        .flatten()
    {
        if !static_files.iter().any(|f| f.path == named.path) {
            bail!(
                "{}: there is no {} in the static folder{}",
                named.origin,
                named.path,
                options
                    .static_files
                    .as_ref()
                    .map(|d| format!(" ({})", d.display()))
                    .unwrap_or_else(|| " (static/ beside vatcar-site.toml)".into())
            );
        }
    }
    if let Some(file) = static_files.iter().find(|f| f.path == publish::MARKER) {
        bail!(
            "{} has the name of vatcar-site's own list of the files it wrote; rename it",
            static_source(options, &file.path)
        );
    }
    Ok(static_files)
}

/// What `build` made, by kind.
struct Counts {
    files: usize,
    pages: usize,
    calendars: usize,
    /// The event pages, among the pages.
    events: usize,
}

/// Renders the site into `staging`, beside the webmaster's static files, and counts what was
/// made by its kind. A static file where the site makes a file is refused.
fn render_and_stage(
    view: &view::SiteView,
    theme: &Theme,
    static_paths: &std::collections::HashSet<&str>,
    static_files: &[StaticFile],
    staging: &publish::Staging,
    options: &BuildOptions,
) -> Result<Counts> {
    let [files, pages, calendars, events] = [(); 4].map(|_| AtomicUsize::new(0));
    site::render(view, theme, &|site::Rendered { kind, file }| {
        files.fetch_add(1, Ordering::Relaxed);
        if kind.is_page() {
            pages.fetch_add(1, Ordering::Relaxed);
        }
        if kind == Kind::EventPage {
            events.fetch_add(1, Ordering::Relaxed);
        }
        if kind == Kind::Calendar {
            calendars.fetch_add(1, Ordering::Relaxed);
        }
        if static_paths.contains(file.path.as_str()) {
            bail!(
                "{} would overwrite the page vatcar-site makes at {}; rename or move it",
                static_source(options, &file.path),
                file.path
            );
        }
        staging.add(&file.path, &file.contents)
    })?;
    for file in static_files {
        staging.add(&file.path, &file.bytes)?;
    }
    let [files, pages, calendars, events] =
        [files, pages, calendars, events].map(AtomicUsize::into_inner);
    let files = files + static_files.len();
    Ok(Counts {
        files,
        pages,
        calendars,
        events,
    })
}

/// The webmaster's pages, read and their front matter checked: before anything is fetched,
/// since a mistake in them fails the build anyway.
fn content_pages(options: &BuildOptions) -> Result<Vec<ContentPage>> {
    let files = match &options.content {
        _ if options.demo_site_files => demo_content(),
        Some(dir) => read_content(dir)?,
        None => return Ok(Vec::new()),
    };
    content::parse_all(&files)
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

/// Where a static file came from, for messages.
fn static_source(options: &BuildOptions, path: &str) -> String {
    let dir = options
        .static_files
        .as_deref()
        .unwrap_or(std::path::Path::new("static"));
    dir.join(path).display().to_string()
}

/// The API's base URL for a source, against which relative links in its data resolve.
pub(crate) fn api_base(source: &Source) -> Result<Url> {
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
