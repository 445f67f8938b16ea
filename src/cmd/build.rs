//! `vatcar-site build`: the site pipeline, stage by stage: load → decode → view → render →
//! publish. Nothing touches the output folder until everything has rendered. `serve` runs the
//! same pipeline.

use super::args::BuildArgs;
use super::options::{BuildOptions, base_url};
use super::progress::Progress;
use super::settings::site_options;
use super::side_reads::{
    bookings_or_warn, fetch_bookings_meanwhile, local_banners, previous_or_warn,
    read_previous_meanwhile,
};
use super::site_folder::{add_banners, content_pages, static_files, static_source};
use super::stages::Stages;
use crate::fetch::endpoint::Endpoint;
use crate::fetch::load;
use crate::fetch::site_files::StaticFile;
use crate::fetch::snapshot::Snapshot;
use crate::i18n::Texts;
use crate::model::SiteData;
use crate::model::content::ContentPage;
use crate::model::previous::Origin;
use crate::problems::{Problem, Problems};
use crate::publish::{self, PublishReport};
use crate::render::Theme;
use crate::render::site;
use crate::render::theme::PageTemplate;
use crate::secret::ApiKey;
use crate::settings::Settings;
use crate::view;
use crate::view::outputs::Kind;
use anyhow::{Context, Result, bail};
use std::collections::{HashMap, HashSet};
use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::Instant;

#[derive(Debug)]
pub struct BuildReport {
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
    if super::github::in_actions() {
        super::github::summarize(&super::github::BuildSummary {
            pages: report.pages,
            calendars: report.calendars,
            warnings: super::logger::warnings(),
            site_url: options.settings.site_url.as_ref().map(|u| u.0.as_str()),
            error: None,
        });
    }
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

/// The site pipeline, stage by stage (load, decode, view, render, publish), each timed under
/// `-v` ([`Stages`]).
fn could_not_publish(output: &std::path::Path) -> String {
    format!("could not publish to {}", output.display())
}

pub fn build(options: &BuildOptions, progress: &Progress) -> Result<BuildReport> {
    let secrets = super::guarded(options.key.as_ref());
    let publishing = publish::PublishOptions::new(publish::FolderKind::Site, options.force)
        .guarding(&secrets)
        .waiting(options.wait);
    let could_not_publish = || could_not_publish(&options.output);
    publish::check_and_recover(&options.output, publishing).with_context(could_not_publish)?;
    let mut stages = Stages::start();
    // Every mistake in the webmaster's files, from every stage, reported together at the end.
    let mut problems = Vec::new();

    // Load: the API's bodies and the webmaster's files, with the reads that go on meanwhile
    // (the previous build, the bookings list, the words and templates).
    let previous = read_previous_meanwhile(options);
    let bookings = fetch_bookings_meanwhile(options);
    let content = content_pages(options, &mut problems)?;
    let theme = load_theme_meanwhile(options, &content);
    let mut snapshot = load::raw(&options.source, &Endpoint::SITE)?;
    let static_files = static_files(options)?;
    stages.done("load");

    // Decode: the models, and the bookings list (which, once read, goes into a saved snapshot).
    let data = decode_models(&snapshot, progress)?;
    let bookings = bookings_or_warn(options, bookings, &mut snapshot);
    stages.done("decode");
    if let Some(dir) = &options.save_snapshot {
        let key = options.key.as_ref();
        super::fetch::save_snapshot(&snapshot, dir, options.force, options.wait, key)?;
        progress.step(&format!("saved the snapshot in {}", dir.display()));
        stages.done("save snapshot");
    }
    // The base URL the data came from, against which its relative links resolve.
    let base_url = base_url(snapshot.base_url.clone())?;
    let banners = local_banners(options, &data, &snapshot, &base_url, &secrets, progress);
    stages.done("banners");
    let activity = super::activity::activity(options, &data.roster);
    if activity.is_some() {
        stages.done("activity");
    }

    // View: the theme, unless its mistakes are among the problems.
    let (theme, texts) = theme
        .join()
        .expect("loading the templates does not panic")?;
    let theme = theme.map_err(|e| problems.extend(as_problems(e))).ok();
    let origin = Origin::of(&data.roster, options.demo_data);
    let logo = (options.settings.logo.as_ref())
        .and_then(|logo| static_files.iter().find(|file| file.path == logo.path))
        .map(|file| view::LogoFile::of(&file.bytes));
    let inputs = view::BuildInputs {
        base_url,
        build_time: options.build_time,
        texts,
        previous: previous_or_warn(previous, &origin),
        origin,
        bookings,
        activity,
        banners,
        logo,
    };
    // The raw bodies are saved by now; the view needs only the models.
    drop(snapshot);
    // The view takes the models, and drops each part once it has made what it needs of it.
    let view = view::build(data, &options.settings, &inputs);
    stages.done("view");

    let events = view.event_pages.len();
    let site_files = (content.as_slice(), static_files.as_slice());
    let (staging, [pages, calendars]) =
        render_all(options, view, publishing, theme, site_files, problems)?;
    add_banners(&inputs.banners, &static_files, options, &staging)?;
    stages.done("render");
    progress.step(&format!("rendered {pages} pages and {calendars} calendars"));

    // Publish: the staged tree put in place of the output folder.
    let publish = staging.commit().with_context(could_not_publish)?;
    stages.done("publish");
    Ok(BuildReport {
        pages,
        calendars,
        events,
        publish,
    })
}

/// The webmaster's pages put among the views, then every file rendered and staged with the
/// static files; the problems of every stage are reported here, together. How many pages and
/// calendars.
fn render_all(
    options: &BuildOptions,
    mut view: view::SiteView,
    publishing: publish::PublishOptions,
    theme: Option<Theme>,
    (content, static_files): (&[ContentPage], &[StaticFile]),
    mut problems: Vec<Problem>,
) -> Result<(publish::Staging, [usize; 2])> {
    // Read by the content pages' links and by the check that no page overwrites a static file.
    let static_paths: HashSet<&str> = static_files.iter().map(|f| f.path.as_str()).collect();
    // The images among the static files, by their size, for the pages that show them.
    let image = |path: &str| {
        let extension = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
        matches!(
            extension.as_deref(),
            Some("png" | "jpg" | "jpeg" | "webp" | "svg")
        )
    };
    let image_sizes: HashMap<&str, (u32, u32)> = (static_files.iter())
        .filter(|file| image(&file.path))
        .filter_map(|file| {
            Some((
                file.path.as_str(),
                crate::images::natural_size(&file.bytes)?,
            ))
        })
        .collect();
    let anchors = view::add_content(
        &mut view,
        content,
        (&static_paths, &image_sizes),
        &theme.as_ref().map(Theme::static_paths).unwrap_or_default(),
        &options.settings.menu,
        options.drafts,
        &mut problems,
    )?;
    // The output folder's lock taken and its listing read; refused only once the content's
    // mistakes are known.
    let staging = publish::Staging::begin(&options.output, publishing)
        .with_context(|| could_not_publish(&options.output))?;
    // Rendered even when there are problems already: the anchors of the pages vatcar-site
    // writes are known only then, and a mistake in one is reported with the others. Such a
    // render is for those pages alone (the webmaster's may be where they cannot go).
    let Some(theme) = theme else {
        return Err(Problems::new(problems).into());
    };
    if !problems.is_empty() {
        view.content.pages.clear();
    }
    let wanted: HashSet<&str> = anchors.iter().map(|a| a.file.as_str()).collect();
    let ids = Mutex::new(HashMap::new());
    // Every page, feed and calendar, into the staging folder as they render (the output
    // folder changes only at the commit, and a failed render drops the staging folder with it).
    let [pages, calendars] = [(); 2].map(|_| AtomicUsize::new(0));
    let sink = |site::Rendered { kind, file }| {
        if wanted.contains(file.path.as_str()) {
            let found = view::ids_in(&String::from_utf8_lossy(&file.contents));
            let mut ids = ids.lock().unwrap_or_else(|e| e.into_inner());
            ids.insert(file.path.clone(), found);
        }
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
    };
    match site::render(view, &theme, &sink) {
        Ok(()) => {}
        Err(e) if problems.is_empty() => return Err(e),
        Err(e) => {
            problems.extend(as_problems(e));
            return Err(Problems::new(problems).into());
        }
    }
    let ids = ids.into_inner().unwrap_or_else(|e| e.into_inner());
    problems.extend(view::check_generated_anchors(&anchors, &ids));
    Problems::check(problems)?;
    for file in static_files {
        staging.add(&file.path, &file.bytes)?;
    }
    Ok((staging, [pages, calendars].map(AtomicUsize::into_inner)))
}

/// The problems an error of the webmaster's files holds: each of a [`Problems`] (the
/// templates' and the pages' mistakes, each at its place), or the error itself.
fn as_problems(error: anyhow::Error) -> Vec<Problem> {
    match error.downcast::<Problems>() {
        Ok(problems) => problems.all().to_vec(),
        Err(error) => vec![Problem::other(format!("{error:#}"))],
    }
}

/// The words and the templates, read while the data is fetched and decoded; the same words
/// go to the view and the theme. The words must load; the theme's mistakes are reported with
/// the content's.
fn load_theme_meanwhile(
    options: &BuildOptions,
    content: &[ContentPage],
) -> JoinHandle<Result<(Result<Theme>, Arc<Texts>)>> {
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
    let templates = options.settings.templates.clone();
    let language = options.language.clone();
    let site = &options.settings;
    let rendered = crate::render::site::templates_rendered(
        &site.sections,
        site.site_url.is_some(),
        !content.is_empty(),
    );
    let cache = Arc::clone(&options.templates_parsed);
    // A [[menu]] entry for a built-in page renames its entry, and the page's title with it.
    let renames = crate::view::menu_renames(&options.settings.menu, &options.settings.sections);
    std::thread::spawn(move || {
        let mut texts = Texts::load(&language, templates.as_deref())?;
        for (key, text) in &renames {
            texts.rename(key, text);
        }
        let texts = Arc::new(texts);
        let theme = Theme::load_with(
            templates.as_deref(),
            Arc::clone(&texts),
            &page_templates,
            Some(&rendered),
            &cache,
        );
        Ok((theme, texts))
    })
}

/// The models, and a line saying what they hold.
fn decode_models(snapshot: &Snapshot, progress: &Progress) -> Result<SiteData> {
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
