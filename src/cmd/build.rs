//! `vatcar-site build`: the site pipeline, stage by stage: load → decode → view → render →
//! publish. Nothing touches the output folder until everything has rendered. `serve` runs the
//! same pipeline.

use super::args::BuildArgs;
use super::options::{BuildOptions, api_base, base_url};
use super::progress::Progress;
use super::published::warn_overwritten;
use super::settings::site_options;
use crate::fetch::endpoint::Endpoint;
use crate::fetch::load::{self, Source};
use crate::fetch::site_files::{StaticFile, demo_content, demo_static, read_content, read_static};
use crate::fetch::snapshot::Snapshot;
use crate::i18n::Texts;
use crate::model::SiteData;
use crate::model::content::{self, ContentPage};
use crate::publish::{self, PublishReport};
use crate::render::Theme;
use crate::render::site;
use crate::render::theme::PageTemplate;
use crate::secret::ApiKey;
use crate::settings::Settings;
use crate::view;
use crate::view::outputs::Kind;
use anyhow::{Context, Result, bail};
use std::collections::HashSet;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::Instant;
use url::Url;

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
    config: &Settings,
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

/// The site pipeline, step by step; each step is a function below.
pub fn build(options: &BuildOptions, progress: &Progress) -> Result<BuildReport> {
    let how = publish::Publish::new(publish::FolderKind::Site, options.force)
        .guarding(options.key.as_ref())
        .waiting(options.wait);
    publish::tidy(&options.output, how)
        .with_context(|| format!("could not publish to {}", options.output.display()))?;
    let lap = lap_timer();
    let content = content_pages(options)?;
    let theme = load_theme_meanwhile(options, &content);
    let snapshot = load::raw(&options.source, &Endpoint::SITE)?;
    let static_files = static_files(options)?;
    lap("loaded");
    let data = decode(&snapshot, progress)?;
    lap("decoded");
    save_snapshot(options, &snapshot, progress)?;
    let (theme, texts) = theme
        .join()
        .expect("loading the templates does not panic")?;
    let run = view::Run {
        base_url: data_base_url(options, &snapshot)?,
        build_time: options.build_time,
        texts,
    };
    // The raw bodies are saved by now; the view needs only the models.
    drop(snapshot);
    crate::memory::release_freed();
    let (mut view, staging) = view_while_reading_output(&data, options, &run, how);
    lap("view built and output folder read");
    // Read by the content pages' links and by the check that no page overwrites a static file.
    let static_paths: HashSet<&str> = static_files.iter().map(|f| f.path.as_str()).collect();
    view::add_content(
        &mut view,
        &content,
        &static_paths,
        &theme.static_paths(),
        &options.settings.site.menu,
        options.drafts,
        &run.texts,
    )?;
    let staging =
        staging.with_context(|| format!("could not publish to {}", options.output.display()))?;
    // The view owns all it needs; the models can go before rendering.
    drop(data);
    crate::memory::release_freed();
    let [files, pages, calendars] = render(&view, &theme, &staging, &static_paths, options)?;
    for file in &static_files {
        staging.add(&file.path, &file.bytes)?;
    }
    lap("rendered and staged");
    progress.step(&format!("rendered {pages} pages and {calendars} calendars"));
    let report = staging
        .commit()
        .with_context(|| format!("could not publish to {}", options.output.display()))?;
    lap("published");
    Ok(BuildReport {
        files: files + static_files.len(),
        pages,
        calendars,
        events: view.event_pages.len(),
        publish: report,
    })
}

/// Logs, with `-vv`, the time since it was made and the peak memory at each stage.
fn lap_timer() -> impl Fn(&str) {
    let clock = Instant::now();
    move |stage| {
        log::debug!(
            "{stage}: {} ms{}",
            clock.elapsed().as_millis(),
            peak_memory()
        )
    }
}

/// The words and the templates, read while the data is fetched and decoded; the same words
/// go to the view and the theme.
fn load_theme_meanwhile(
    options: &BuildOptions,
    content: &[ContentPage],
) -> JoinHandle<Result<(Theme, Arc<Texts>)>> {
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
    std::thread::spawn(move || {
        let texts = Arc::new(Texts::load(&language, templates.as_deref())?);
        let theme = Theme::load_with(templates.as_deref(), Arc::clone(&texts), &page_templates)?;
        Ok((theme, texts))
    })
}

/// The webmaster's static files, with the logo and favicon the settings name among them,
/// and none named as vatcar-site's own list of the files it wrote.
fn static_files(options: &BuildOptions) -> Result<Vec<StaticFile>> {
    let static_files = match &options.static_files {
        _ if options.demo_site_files => demo_static(),
        Some(dir) => read_static(dir)?,
        None => Vec::new(),
    };
    for named in [&options.settings.site.logo, &options.settings.site.favicon]
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

/// The models, and a line saying what they hold.
fn decode(snapshot: &Snapshot, progress: &Progress) -> Result<SiteData> {
    let data = crate::model::decode_site(snapshot)?;
    progress.step(&format!(
        "read {} controllers, {} visitors, {} facility events, {} division events, {} documents",
        data.roster.controllers.len(),
        data.roster.visitors.len(),
        data.facility_events.len(),
        data.division_events.len(),
        data.documents.iter().map(|c| c.files.len()).sum::<usize>()
    ));
    Ok(data)
}

/// `--save-snapshot`: the raw bodies, as fetched.
fn save_snapshot(options: &BuildOptions, snapshot: &Snapshot, progress: &Progress) -> Result<()> {
    if let Some(dir) = &options.save_snapshot {
        super::fetch::save_snapshot(
            snapshot,
            dir,
            options.force,
            options.wait,
            options.key.as_ref(),
        )?;
        progress.step(&format!("saved the snapshot in {}", dir.display()));
    }
    Ok(())
}

/// The base URL the data came from, against which its relative links resolve.
fn data_base_url(options: &BuildOptions, snapshot: &Snapshot) -> Result<Url> {
    match &options.source {
        Source::Api(_) => api_base(&options.source),
        _ => base_url(snapshot.base_url.clone()),
    }
}

/// The view, built while the output folder is read (its lock taken, its listing scanned:
/// 60,000 entries for a large site).
fn view_while_reading_output(
    data: &SiteData,
    options: &BuildOptions,
    run: &view::Run,
    how: publish::Publish,
) -> (view::SiteView, Result<publish::Staging>) {
    std::thread::scope(|scope| {
        let staging = scope.spawn(|| publish::Staging::begin(&options.output, how));
        let view = view::build(data, &options.settings, run);
        (
            view,
            staging
                .join()
                .expect("reading the output folder does not panic"),
        )
    })
}

/// Every page, feed and calendar, into the staging folder as they render (the output folder
/// changes only at the commit, and a failed render drops the staging folder with it); how
/// many files, pages and calendars.
fn render(
    view: &view::SiteView,
    theme: &Theme,
    staging: &publish::Staging,
    static_paths: &HashSet<&str>,
    options: &BuildOptions,
) -> Result<[usize; 3]> {
    let [files, pages, calendars] = [(); 3].map(|_| AtomicUsize::new(0));
    site::render(view, theme, &|site::Rendered { kind, file }| {
        files.fetch_add(1, Ordering::Relaxed);
        if kind.is_page() {
            pages.fetch_add(1, Ordering::Relaxed);
        } else if kind == Kind::Calendar {
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
    Ok([files, pages, calendars].map(AtomicUsize::into_inner))
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
