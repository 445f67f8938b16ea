//! The webmaster's pages beside the API's: their Markdown made into HTML, every link in it
//! checked and written relative to the page (so a site works under any base path), the
//! sections' listings and the header's menu.
//!
//! Links a page may use:
//! - `@/join.md`, `@/pilots/_index.md`: a content page, by its path below `content/`;
//! - `@/roster`, `@/events`, `@/events/412`, `@/division`, `@/documents`, `@/` and files such
//!   as `@/calendar/facility.ics` or `@/logo.png` (a static file): anything the site holds;
//! - `join.md`, `../join.md`: a content page, relative to the linking file;
//! - any other relative link, relative to the page's address, checked the same way;
//! - links with a scheme (`https:`, `mailto:`) and fragments on the same page, as written.
//!
//! A link to nothing is a build error naming the file and line. A root-relative link (`/x`)
//! is an error too, since it breaks wherever the site is not served from a domain's root.
//! Raw HTML in a page is the webmaster's own and kept as written, links included.

mod ids;
mod links;
mod menu;

use super::SiteView;
use super::outputs::{self, OUTPUTS, Output, Written};
use super::settings::{MenuEntry, MenuTarget};
use crate::model::content::{ContentPage, PageKind, Places};
use crate::problems::Problem;
use crate::sanitize::frames::FrameTags;
use crate::sanitize::quote::one_line;
use anyhow::Result;
use pulldown_cmark::{CowStr, Event, Options, Parser, Tag};
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use unicase::UniCase;

use ids::{PageIds, page_ids};
use links::Targets;
pub(super) use links::encode;
pub use links::ids_in;
use menu::menu_items;
pub use menu::menu_renames;

/// The pages, ready to render.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ContentView {
    pub pages: Vec<ContentPageView>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ContentPageView {
    /// The folder it is published in, relative to the site root: `join/`.
    pub url: String,
    /// Its file below `content/`: `join.md`.
    pub source: String,
    pub title: String,
    pub description: Option<String>,
    pub html: String,
    /// The template it is rendered with.
    pub template: String,
    /// For a section page: the pages in its folder, by weight, then title.
    pub pages: Vec<PageLink>,
    /// The sections the page is in, outermost first: its breadcrumb. Empty for a page at the
    /// top (a folder without an `_index.md` is no section and has no crumb).
    pub parents: Vec<PageLink>,
    /// The front matter's `[extra]` table, for a theme's own templates.
    pub extra: serde_json::Value,
}

/// A page in a section's listing.
#[derive(Clone, Debug, Serialize)]
pub struct PageLink {
    pub title: String,
    /// Relative to the site root.
    pub url: String,
    pub description: Option<String>,
}

/// The home page's introduction: `content/_index.md`.
#[derive(Clone, Debug, Serialize)]
pub struct HomeIntro {
    /// Empty when the file sets none.
    pub title: String,
    pub html: String,
}

/// An entry of the header's navigation beyond the built-in sections.
#[derive(Clone, Debug, Serialize)]
pub struct MenuItem {
    pub name: String,
    /// Relative to the site root, or an absolute address when `external`.
    pub url: String,
    pub external: bool,
    /// A page of the webmaster's: its front matter's `description`, which the home page's
    /// cards show under its name.
    pub description: Option<String>,
}

/// The folder of the site that `vatcar-site serve` answers itself (its live reload), so that
/// nothing of the webmaster's may be published in it.
const RESERVED_FOLDER: &str = "__vatcar-site/";

/// Adds the webmaster's pages to a built view: the pages themselves, the home page's
/// introduction and the menu. `pages` are all the content files, drafts included (a link to
/// a draft that is left out is an error that says so); `static_paths` are the static files'
/// paths in the site, and `theme_files` the templates' own (`static/style.css`).
///
/// Every problem found is added to `errors`, each naming its file and line; the view is
/// complete only when none was.
pub fn add_content<'p>(
    view: &mut SiteView,
    pages: &'p [ContentPage],
    // The static files' paths, and the images' sizes among them.
    (static_paths, image_sizes): (&HashSet<&str>, &HashMap<&str, (u32, u32)>),
    theme_files: &[String],
    menu: &[MenuEntry],
    drafts: bool,
    errors: &mut Vec<Problem>,
) -> Result<Vec<GeneratedAnchor<'p>>> {
    let generated = generated_paths(view, theme_files);
    let published: Vec<&ContentPage> = pages.iter().filter(|p| drafts || !p.draft).collect();
    refuse_reserved_static_files(static_paths, errors);
    let origins = place_pages(&published, &generated, static_paths, errors);
    refuse_files_in_folders(&published, &generated, &origins, errors);

    // Each page's ids: links to a page's anchors are checked against them, and its headings
    // and footnotes get them.
    // A page whose body could not be found (its front matter is not closed) has no ids
    // known, and links to its anchors are left unchecked.
    let ids: HashMap<&str, PageIds> = published
        .iter()
        .filter(|page| page.whole || !page.body.is_empty())
        .map(|page| (page.path.as_str(), page_ids(page, errors)))
        .collect();
    let targets = Targets {
        generated: &generated,
        static_paths,
        pages: pages.iter().map(|p| (p.path.as_str(), p)).collect(),
        published_urls: published
            .iter()
            .filter(|p| p.kind != PageKind::HomeIntro)
            .map(|p| p.url.as_str())
            .collect(),
        ids: &ids,
        drafts,
    };

    let frames = view.frames.clone();
    let mut views = Vec::new();
    let mut anchors = Vec::new();
    let no_ids = PageIds::default();
    for page in &published {
        let page_ids = ids.get(page.path.as_str()).unwrap_or(&no_ids);
        let html = markdown_to_html(
            page,
            page_ids,
            (&targets, image_sizes),
            &frames,
            errors,
            &mut anchors,
        );
        match page.kind {
            PageKind::HomeIntro => {
                // The webmaster's words open the home page, in the site's language: the
                // description, else the text itself, which follows; the API's (often in
                // another language) only where they give neither.
                if let Some(description) = &page.description {
                    view.site.description = Some(description.clone());
                    view.home.lead = Some(description.clone());
                } else if !html.trim().is_empty() {
                    view.home.lead = None;
                }
                view.home.intro = Some(HomeIntro {
                    title: page.title.clone(),
                    html,
                });
            }
            PageKind::Section | PageKind::Page => views.push(page_view(page, html, &published)?),
        }
    }
    views.sort_by(|a, b| a.url.cmp(&b.url));
    let menu_items = menu_items(&published, menu, &targets, &view.site.sections, errors);
    view.site.menu = menu_items;
    view.content = ContentView { pages: views };
    Ok(anchors)
}

/// A link to an anchor of a page vatcar-site writes (`@/roster#staff`): the page's ids are
/// known once it is rendered, with the theme's templates.
#[derive(Debug)]
pub struct GeneratedAnchor<'p> {
    /// The linking page, where in its body the link is, and the link as written: its line
    /// and column are counted only for a link found broken, as a page may hold thousands.
    page: &'p ContentPage,
    offset: usize,
    link: String,
    /// The page's file in the site: `roster/index.html`.
    pub file: String,
    fragment: String,
}

/// The links to anchors that the rendered pages do not have; `ids` holds the ids of each
/// file that [`GeneratedAnchor::file`] names.
pub fn check_generated_anchors(
    anchors: &[GeneratedAnchor<'_>],
    ids: &HashMap<String, HashSet<String>>,
) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut places: Option<Places> = None;
    for anchor in anchors {
        let Some(known) = ids.get(&anchor.file) else {
            continue;
        };
        let fragment = percent_encoding::percent_decode_str(&anchor.fragment).decode_utf8_lossy();
        if known.contains(fragment.as_ref()) {
            continue;
        }
        let mut listed: Vec<&str> = known.iter().map(String::as_str).collect();
        listed.sort();
        let (page, offset) = (anchor.page, anchor.offset);
        let message = format!(
            "link {}: #{fragment}: {} has no element with that id{} (it has: {})",
            anchor.link,
            anchor.file,
            links::did_you_mean(&fragment, listed.iter().copied(), "#"),
            links::some_ids(listed.iter().copied())
        );
        // The anchors of a page are listed together, in the order of its text.
        let places = match places.as_mut() {
            Some(places) if std::ptr::eq(places.page(), page) => places,
            _ => places.insert(Places::new(page)),
        };
        let (line, column) = places.of(offset);
        problems.push(Problem::at(&page.origin, line, Some(column), message));
    }
    problems
}

/// Refuses the static files in the folder `vatcar-site serve` keeps for itself.
fn refuse_reserved_static_files(static_paths: &HashSet<&str>, errors: &mut Vec<Problem>) {
    let mut reserved: Vec<&&str> = static_paths
        .iter()
        .filter(|path| path.starts_with(RESERVED_FOLDER))
        .collect();
    reserved.sort();
    for path in reserved {
        errors.push(Problem::other(format!(
            "the static file {path}: the folder {RESERVED_FOLDER} is vatcar-site serve's own (its live reload), so nothing may be published in it; move the file"
        )));
    }
}

/// Where each page goes, and what is there already: the webmaster's files by path, with
/// where each came from. A page where the site writes a file of its own, or where another
/// page or a static file is, is refused.
fn place_pages(
    published: &[&ContentPage],
    generated: &HashMap<String, Generated>,
    static_paths: &HashSet<&str>,
    errors: &mut Vec<Problem>,
) -> HashMap<String, String> {
    let mut origins: HashMap<String, String> = HashMap::new();
    for path in static_paths {
        origins.insert((*path).to_owned(), format!("the static file {path}"));
    }
    for page in published {
        if page.kind == PageKind::HomeIntro {
            continue;
        }
        if page.url.starts_with(RESERVED_FOLDER) {
            errors.push(Problem::in_file(&page.origin, format!(
                "the folder {RESERVED_FOLDER} is vatcar-site serve's own (its live reload), so no page may be published in it; rename it"
            )));
        }
        let file = format!("{}index.html", page.url);
        if let Some(there) = generated.get(file.as_str()) {
            errors.push(Problem::in_file(
                &page.origin,
                format!(
                    "would be published at {file}, where vatcar-site writes {}; rename it{}",
                    there.what,
                    match there.output.written {
                        Written::UnlessOff(section) if there.output.is_switchable_page() => {
                            format!(", or turn that page off {}", section.switch())
                        }
                        _ => String::new(),
                    }
                ),
            ));
        } else if let Some(other) = origins.insert(file.clone(), page.origin.clone()) {
            errors.push(Problem::in_file(
                &page.origin,
                format!("this page and {other} would both be published at {file}; rename one"),
            ));
        }
    }
    origins
}

/// A page is a folder: no file of the site may be where the page needs one of its folders
/// (`feed.xml.md` would be `feed.xml/index.html`, beside the feed `feed.xml`).
fn refuse_files_in_folders(
    published: &[&ContentPage],
    generated: &HashMap<String, Generated>,
    origins: &HashMap<String, String>,
    errors: &mut Vec<Problem>,
) {
    for page in published {
        let url = page.url.trim_end_matches('/');
        for (at, _) in url.match_indices('/').chain([(url.len(), "")]) {
            let folder = &url[..at];
            let what = match (generated.get(folder), origins.get(folder)) {
                (Some(there), _) => format!("vatcar-site writes {} there", there.what),
                (None, Some(other)) if other.starts_with("the static file") => {
                    format!("{other} is there")
                }
                (None, Some(other)) => format!("{other} is published there"),
                (None, None) => continue,
            };
            errors.push(Problem::in_file(&page.origin, format!(
                "would be published at {}index.html, but {folder} is a file ({what}); rename the page",
                page.url
            )));
            break;
        }
    }
}

/// A page or a section, ready to render; a section lists the pages in its folder.
fn page_view(
    page: &ContentPage,
    html: String,
    published: &[&ContentPage],
) -> Result<ContentPageView> {
    let is_section = page.kind == PageKind::Section;
    let mut children: Vec<&&ContentPage> = (published.iter())
        .filter(|other| {
            is_section
                && other.kind != PageKind::HomeIntro
                && other.path != page.path
                && other.folder() == page.url
        })
        .collect();
    children.sort_by(|a, b| (a.weight, &a.title).cmp(&(b.weight, &b.title)));
    Ok(ContentPageView {
        url: page.url.clone(),
        source: page.path.clone(),
        title: page.title.clone(),
        description: page.description.clone(),
        html,
        template: (page.template.clone()).unwrap_or_else(|| match is_section {
            true => "section.html".into(),
            false => "page.html".into(),
        }),
        pages: children.iter().map(|child| link(child)).collect(),
        parents: parents(page, published).into_iter().map(link).collect(),
        extra: serde_json::to_value(&page.extra)?,
    })
}

fn link(page: &ContentPage) -> PageLink {
    PageLink {
        title: page.title.clone(),
        url: page.url.clone(),
        description: page.description.clone(),
    }
}

/// The published sections a page is in, outermost first.
fn parents<'p>(page: &ContentPage, published: &[&'p ContentPage]) -> Vec<&'p ContentPage> {
    let mut parents = Vec::new();
    let mut folder = page.folder();
    while !folder.is_empty() {
        if let Some(section) = published
            .iter()
            .find(|p| p.kind == PageKind::Section && p.url == folder)
        {
            parents.push(*section);
        }
        let above = folder.trim_end_matches('/');
        folder = above.rfind('/').map_or("", |slash| &above[..=slash]);
    }
    parents.reverse();
    parents
}

/// A file the site writes, for the messages of a page that would take its place.
struct Generated {
    /// "the roster page", "the page of event 412".
    what: String,
    output: &'static Output,
}

/// What the site holds besides the webmaster's files, by path: every single file of
/// [`OUTPUTS`] this build writes, each event's files and the templates' own.
fn generated_paths(view: &SiteView, theme_files: &[String]) -> HashMap<String, Generated> {
    let mut paths = HashMap::new();
    let mut add = |path: String, what: String, output: &'static Output| {
        paths.insert(path, Generated { what, output });
    };
    for output in OUTPUTS {
        if output.is_single() && output.is_written(&view.site.sections, view.site.has_feed) {
            add(output.path.to_owned(), output.what.to_owned(), output);
        }
    }
    for event in &view.event_pages {
        add(
            format!("{}index.html", event.summary.url),
            format!("the page of event {}", event.summary.id),
            &outputs::EVENT_PAGE,
        );
    }
    for person in &view.people {
        add(
            outputs::PERSON_PAGE.at(&person.row.cid.to_string()),
            format!("the page of member {}", person.row.cid),
            &outputs::PERSON_PAGE,
        );
    }
    for entry in view.calendars.entries.values() {
        add(
            entry.path.clone(),
            outputs::EVENT_CALENDAR.what.to_owned(),
            &outputs::EVENT_CALENDAR,
        );
    }
    for path in theme_files {
        add(
            path.clone(),
            format!("{} {path}", outputs::STATIC.what),
            &outputs::STATIC,
        );
    }
    paths
}

/// Markdown as Zola writes it, less task lists: their checkboxes are form controls without
/// labels, which screen readers announce as nothing.
fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_HEADING_ATTRIBUTES
}

/// The page's Markdown as HTML: headings and footnotes with the ids [`page_ids`] gave them,
/// links and images rewritten, or refused with a problem added to `errors`; tables and code
/// blocks in the frames they scroll in.
/// `html` with the `width` and `height` of each image in `sized` (its address as
/// pulldown-cmark's writer wrote it, and its size), so that its room is kept while it loads;
/// CSS scales it to the column as before. One pass over the page, however many images it has;
/// a tag that has either already (the webmaster's own HTML) is left as it is.
fn with_image_sizes(html: String, sized: &HashMap<String, (u32, u32)>) -> String {
    const IMG: &str = "<img src=\"";
    let mut out = String::with_capacity(html.len() + sized.len() * 32);
    let mut rest = html.as_str();
    while let Some(at) = rest.find(IMG) {
        let (before, after) = rest.split_at(at + IMG.len());
        out.push_str(before);
        let end = after.find('"').unwrap_or(after.len());
        let tag_end = after.find('>').unwrap_or(after.len());
        let has_size =
            after[..tag_end].contains(" width=") || after[..tag_end].contains(" height=");
        out.push_str(&after[..end]);
        match sized.get(&after[..end]) {
            Some((width, height)) if !has_size && end < after.len() => {
                out.push_str(&format!("\" width=\"{width}\" height=\"{height}"));
            }
            _ => {}
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

fn markdown_to_html<'p>(
    page: &'p ContentPage,
    ids: &PageIds,
    // Where links lead, and the sizes of the images among the static files.
    (targets, sizes): (&Targets, &HashMap<&str, (u32, u32)>),
    frames: &FrameTags,
    errors: &mut Vec<Problem>,
    anchors: &mut Vec<GeneratedAnchor<'p>>,
) -> String {
    let footnote = |label: &mut CowStr| {
        if let Some(id) = ids.footnotes.get(&UniCase::new(label.to_string())) {
            *label = CowStr::from(id.clone());
        }
    };
    // The site's own images the page shows, by their address as the writer writes it.
    let mut sized: HashMap<String, (u32, u32)> = HashMap::new();
    // Each event is changed on its way to the writer: a page's events are never all held.
    let mut places = Places::new(page);
    let events = Parser::new_ext(&page.body, options())
        .into_offset_iter()
        .map(|(mut event, range)| {
            let image = matches!(event, Event::Start(Tag::Image { .. }));
            match &mut event {
                Event::Start(Tag::Heading { id, attrs, .. }) => {
                    *id = ids.headings.get(&range.start).cloned().map(CowStr::from);
                    // The id is written once, as `id`.
                    attrs.retain(|(name, _)| !name.eq_ignore_ascii_case("id"));
                }
                Event::Start(Tag::FootnoteDefinition(label)) | Event::FootnoteReference(label) => {
                    footnote(label)
                }
                Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                    match targets.rewrite(page, dest_url) {
                        Ok(rewrite) => {
                            let size = (rewrite.target.as_deref()).and_then(|t| sizes.get(t));
                            if let (true, Some(&size)) = (image, size) {
                                let dest = rewrite.dest.as_deref().unwrap_or(dest_url);
                                let mut href = String::new();
                                let _ = pulldown_cmark_escape::escape_href(&mut href, dest);
                                sized.insert(href, size);
                            }
                            if let Some((file, fragment)) = rewrite.anchor_on {
                                anchors.push(GeneratedAnchor {
                                    page,
                                    offset: range.start,
                                    link: one_line(dest_url).into_owned(),
                                    file,
                                    fragment,
                                });
                            }
                            if let Some(new) = rewrite.dest {
                                *dest_url = CowStr::from(new);
                            }
                        }
                        Err(why) => {
                            let (line, column) = places.of(range.start);
                            let message = format!("link {}: {why}", one_line(dest_url));
                            errors.push(Problem::at(&page.origin, line, Some(column), message))
                        }
                    }
                }
                _ => {}
            }
            event
        });
    let mut html = String::with_capacity(page.body.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, frames.around(events));
    with_image_sizes(html, &sized)
}
