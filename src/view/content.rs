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

use super::SiteView;
use super::outputs::{self, OUTPUTS, Output};
use super::settings::{MenuEntry, MenuTarget};
use crate::model::content::{ContentPage, PageKind, problems};
use anyhow::Result;
use percent_encoding::{AsciiSet, CONTROLS, percent_decode_str, utf8_percent_encode};
use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};
use serde::Serialize;
use std::collections::{BTreeSet, HashMap, HashSet};
use unicase::UniCase;

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
}

/// Ids the built-in templates give elements of their own; an id made for a heading or a
/// footnote never takes one, since an id must be unique on its page.
const TEMPLATE_IDS: &[&str] = &[
    "about",
    "controllers",
    "intro",
    "main",
    "more",
    "next-events",
    "positions",
    "recent",
    "sessions",
    "staff",
    "student",
    "summary",
    "upcoming",
    "visitors",
];

/// The ids around every content page (base.html's `<main id="main">`, which "Skip to content"
/// leads to), which a heading's written id may not take.
const LAYOUT_IDS: &[&str] = &["main"];

/// The ids around the home page's introduction (index.html), likewise.
const HOME_IDS: &[&str] = &["intro", "more", "next-events", "staff"];

/// The folder of the site that `vatcar-site serve` answers itself (its live reload), so that
/// nothing of the webmaster's may be published in it.
const RESERVED_FOLDER: &str = "__vatcar-site/";

/// Adds the webmaster's pages to a built view: the pages themselves, the home page's
/// introduction and the menu. `pages` are all the content files, drafts included (a link to
/// a draft that is left out is an error that says so); `static_paths` are the static files'
/// paths in the site, and `theme_files` the templates' own (`static/style.css`).
///
/// Every problem found is reported, all in one error, each naming its file and line.
pub fn add_content(
    view: &mut SiteView,
    pages: &[ContentPage],
    static_paths: &HashSet<&str>,
    theme_files: &[String],
    menu: &[MenuEntry],
    drafts: bool,
) -> Result<()> {
    let generated = generated_paths(view, theme_files);
    let published: Vec<&ContentPage> = pages.iter().filter(|p| drafts || !p.draft).collect();
    let mut errors = Vec::new();

    let mut reserved: Vec<&&str> = static_paths
        .iter()
        .filter(|path| path.starts_with(RESERVED_FOLDER))
        .collect();
    reserved.sort();
    for path in reserved {
        errors.push(format!(
            "the static file {path}: the folder {RESERVED_FOLDER} is vatcar-site serve's own (its live reload), so nothing may be published in it; move the file"
        ));
    }

    // Where each page goes, and what is there already.
    let mut origins: HashMap<String, String> = HashMap::new();
    for path in static_paths {
        origins.insert((*path).to_owned(), format!("the static file {path}"));
    }
    for page in &published {
        if page.kind == PageKind::HomeIntro {
            continue;
        }
        if page.url.starts_with(RESERVED_FOLDER) {
            errors.push(format!(
                "{}: the folder {RESERVED_FOLDER} is vatcar-site serve's own (its live reload), so no page may be published in it; rename it",
                page.origin
            ));
        }
        let file = format!("{}index.html", page.url);
        if let Some(there) = generated.get(file.as_str()) {
            errors.push(format!(
                "{} would be published at {file}, where vatcar-site writes {}; rename it{}",
                page.origin,
                there.what,
                if there.output.is_switchable_page() {
                    ", or turn that page off under [sections] in vatcar-site.toml"
                } else {
                    ""
                }
            ));
        } else if let Some(other) = origins.insert(file.clone(), page.origin.clone()) {
            errors.push(format!(
                "{} and {other} would both be published at {file}; rename one",
                page.origin
            ));
        }
    }
    // A page is a folder: no file of the site may be where the page needs one of its folders
    // (`feed.xml.md` would be `feed.xml/index.html`, beside the feed `feed.xml`).
    for page in &published {
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
            errors.push(format!(
                "{} would be published at {}index.html, but {folder} is a file ({what}); rename the page",
                page.origin, page.url
            ));
            break;
        }
    }

    // Each page's ids: links to a page's anchors are checked against them, and its headings
    // and footnotes get them.
    let ids: HashMap<&str, PageIds> = published
        .iter()
        .map(|page| (page.path.as_str(), page_ids(page, &mut errors)))
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

    let mut views = Vec::new();
    for page in &published {
        let html = markdown_to_html(page, &ids[page.path.as_str()], &targets, &mut errors);
        match page.kind {
            PageKind::HomeIntro => {
                view.home.intro = Some(HomeIntro {
                    title: page.title.clone(),
                    html,
                });
                if let Some(description) = &page.description {
                    view.site.description = Some(description.clone());
                }
            }
            PageKind::Section | PageKind::Page => {
                let is_section = page.kind == PageKind::Section;
                let mut children: Vec<&&ContentPage> = if is_section {
                    published
                        .iter()
                        .filter(|other| {
                            other.kind != PageKind::HomeIntro
                                && other.path != page.path
                                && other.folder() == page.url
                        })
                        .collect()
                } else {
                    Vec::new()
                };
                children.sort_by(|a, b| (a.weight, &a.title).cmp(&(b.weight, &b.title)));
                views.push(ContentPageView {
                    url: page.url.clone(),
                    source: page.path.clone(),
                    title: page.title.clone(),
                    description: page.description.clone(),
                    html,
                    template: page.template.clone().unwrap_or_else(|| {
                        if is_section {
                            "section.html"
                        } else {
                            "page.html"
                        }
                        .into()
                    }),
                    pages: children
                        .iter()
                        .map(|child| PageLink {
                            title: child.title.clone(),
                            url: child.url.clone(),
                            description: child.description.clone(),
                        })
                        .collect(),
                    extra: serde_json::to_value(&page.extra)?,
                });
            }
        }
    }
    views.sort_by(|a, b| a.url.cmp(&b.url));

    let mut items: Vec<&&ContentPage> = published
        .iter()
        .filter(|p| p.menu && p.kind != PageKind::HomeIntro)
        .collect();
    items.sort_by(|a, b| (a.weight, &a.title, &a.path).cmp(&(b.weight, &b.title, &b.path)));
    let mut menu_items: Vec<MenuItem> = items
        .into_iter()
        .map(|p| MenuItem {
            name: p.title.clone(),
            url: p.url.clone(),
            external: false,
        })
        .collect();
    for entry in menu {
        menu_items.push(match &entry.target {
            MenuTarget::Url(url) => MenuItem {
                name: entry.name.clone(),
                url: url.clone(),
                external: true,
            },
            MenuTarget::Page(target) => {
                let target = target.strip_prefix("@/").unwrap_or(target);
                let url = match targets.site_target(target) {
                    Ok((url, _)) => url,
                    Err(e) => {
                        errors.push(format!("{}: menu: page = {target:?}: {e}", entry.origin));
                        continue;
                    }
                };
                MenuItem {
                    name: entry.name.clone(),
                    url,
                    external: false,
                }
            }
        });
    }
    if !errors.is_empty() {
        return Err(problems(errors));
    }
    view.site.menu = menu_items;
    view.content = ContentView { pages: views };
    Ok(())
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

/// The ids a page's Markdown gives its elements.
#[derive(Debug, Default)]
struct PageIds {
    /// Each heading's, by the byte offset in the body where the heading starts.
    headings: HashMap<usize, String>,
    /// Each footnote's, by its label, matched as pulldown-cmark matches a reference to its
    /// definition: letter case aside (`[^A]` is `[^a]`).
    footnotes: HashMap<UniCase<String>, String>,
    /// All of them, for the anchors of links.
    anchors: BTreeSet<String>,
    /// The ids of the template's elements around the Markdown, which a link may name too.
    around: Vec<&'static str>,
}

/// Everything a link may point to.
struct Targets<'a> {
    generated: &'a HashMap<String, Generated>,
    static_paths: &'a HashSet<&'a str>,
    /// Every content page by its path, drafts included.
    pages: HashMap<&'a str, &'a ContentPage>,
    /// The folders of the pages being published.
    published_urls: HashSet<&'a str>,
    /// The ids of each published page.
    ids: &'a HashMap<&'a str, PageIds>,
    drafts: bool,
}

impl Targets<'_> {
    /// Whether the site holds `path` (a file, or a folder ending in `/` with an index).
    fn holds(&self, path: &str) -> bool {
        if path.is_empty() || path.ends_with('/') {
            let index = format!("{path}index.html");
            self.generated.contains_key(&index)
                || self.static_paths.contains(index.as_str())
                || self.published_urls.contains(path)
        } else {
            self.generated.contains_key(path) || self.static_paths.contains(path)
        }
    }

    /// A content page by its path below `content/`: its folder in the site and its
    /// ids.
    fn page(&self, path: &str) -> Result<(String, Option<&PageIds>), String> {
        match self.pages.get(path) {
            Some(page) if page.draft && !self.drafts => Err(format!(
                "{path} is a draft (draft = true) and is not published; build with --drafts to preview it"
            )),
            Some(page) => Ok((page.url.clone(), self.ids.get(path))),
            None => Err(format!("there is no page {path} in the content folder")),
        }
    }

    /// An `@/` target (without the `@/`): its path in the site.
    fn site_target(&self, target: &str) -> Result<(String, Option<&PageIds>), String> {
        let target = decode(target)?;
        if target.ends_with(".md") {
            return self.page(&target);
        }
        if self.holds(&target) {
            return Ok((target, None));
        }
        let folder = format!("{}/", target.trim_end_matches('/'));
        if self.holds(&folder) {
            return Ok((folder, None));
        }
        Err(format!(
            "the site has no page or file @/{target}{}",
            if target.starts_with("events/") {
                " (is the event in the data, and its section on?)"
            } else {
                ""
            }
        ))
    }

    /// A link's destination as it is to be written in `page`, or `None` to keep it as it is.
    fn rewrite(&self, page: &ContentPage, dest: &str) -> Result<Option<String>, String> {
        if dest.is_empty() || dest.starts_with('#') || dest.starts_with("//") || has_scheme(dest) {
            return Ok(None);
        }
        let (path, suffix) = split_suffix(dest);
        let fragment = suffix
            .split_once('#')
            .map(|(_, fragment)| fragment)
            .filter(|f| !f.is_empty());
        let (target, ids) = if let Some(target) = path.strip_prefix("@/") {
            self.site_target(target)?
        } else if path.starts_with('/') {
            return Err(format!(
                "a link from the domain's root breaks wherever the site is published below it (https://owner.github.io/repo/); write @{path} to link to the site's own {path}"
            ));
        } else if path.ends_with(".md") {
            let file_folder = match page.path.rfind('/') {
                Some(slash) => &page.path[..=slash],
                None => "",
            };
            let joined = join(file_folder, &decode(path)?)
                .ok_or_else(|| format!("{path} is outside the content folder"))?;
            self.page(&joined)?
        } else {
            let joined = join(&page.url, &decode(path)?)
                .ok_or_else(|| format!("{path} is outside the site"))?;
            if !self.holds(&joined) && !self.holds(&format!("{joined}/")) {
                return Err(format!(
                    "the site has no page or file {joined} (a relative link starts from the page's address, {}/); to link from the site's root write @/{}",
                    if page.url.is_empty() {
                        "."
                    } else {
                        page.url.trim_end_matches('/')
                    },
                    path.trim_start_matches("./")
                ));
            }
            // Right as written.
            return Ok(None);
        };
        if let (Some(fragment), Some(ids)) = (fragment, ids) {
            let fragment = decode(fragment)?;
            if !ids.anchors.contains(&fragment) && !ids.around.contains(&fragment.as_str()) {
                // A page may have thousands; the first few show what they look like.
                const SHOWN: usize = 10;
                let mut known: Vec<String> = ids
                    .anchors
                    .iter()
                    .take(SHOWN)
                    .map(|id| format!("#{id}"))
                    .collect();
                if ids.anchors.len() > SHOWN {
                    known.push(format!("and {} more", ids.anchors.len() - SHOWN));
                }
                return Err(format!(
                    "#{fragment}: the page has no heading with that anchor (it has: {})",
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    }
                ));
            }
        }
        let relative = format!(
            "{}{}",
            "../".repeat(page.url.matches('/').count()),
            encode(&target)
        );
        Ok(Some(match (relative.is_empty(), suffix.is_empty()) {
            (true, true) => "./".to_owned(),
            _ => format!("{relative}{suffix}"),
        }))
    }
}

/// The characters written percent-encoded in a path: what is not safe in an `href`'s path.
const PATH: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'`')
    .add(b'{')
    .add(b'}');

/// A path in the site as it is written in an address: the `@/` links here, and the logo's and
/// favicon's addresses (a file named `logo #1.svg` is `logo%20%231.svg`).
pub(super) fn encode(path: &str) -> String {
    utf8_percent_encode(path, PATH).to_string()
}

fn decode(text: &str) -> Result<String, String> {
    percent_decode_str(text)
        .decode_utf8()
        .map(|t| t.into_owned())
        .map_err(|_| format!("{text} is not UTF-8 once percent-decoded"))
}

fn has_scheme(dest: &str) -> bool {
    match dest.split_once(':') {
        Some((scheme, _)) => {
            scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        }
        None => false,
    }
}

/// `path?query#fragment` split into the path and the rest.
fn split_suffix(dest: &str) -> (&str, &str) {
    let at = dest.find(['?', '#']).unwrap_or(dest.len());
    dest.split_at(at)
}

/// `relative` taken from `folder` (ending in `/` or empty), with `.` and `..` resolved; `None`
/// when it climbs above the top.
fn join(folder: &str, relative: &str) -> Option<String> {
    let mut parts: Vec<&str> = folder.split('/').filter(|p| !p.is_empty()).collect();
    let trailing = relative.ends_with('/') || relative.ends_with("/.") || relative == ".";
    for part in relative.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    let mut joined = parts.join("/");
    if trailing && !joined.is_empty() {
        joined.push('/');
    }
    Some(joined)
}

/// Markdown as Zola writes it, less task lists: their checkboxes are form controls without
/// labels, which screen readers announce as nothing.
fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_HEADING_ATTRIBUTES
}

/// A heading or a footnote definition, in the order of the page.
enum Named {
    Heading {
        start: usize,
        written: Option<String>,
        text: String,
    },
    Footnote {
        start: usize,
        label: String,
    },
}

/// The id each heading and footnote gets. A heading's is the one written (`## Visiting
/// {#visit}` or `{id=visit}`), which may be neither an id of the page's templates nor another
/// heading's, else one made from its text; a footnote's is made from its label (`[^two
/// words]` is `fn-two-words`). A made id never takes one that is written or was made before:
/// the second `## Notes` is `notes-1`. Problems are added to `errors`, naming the file and line.
fn page_ids(page: &ContentPage, errors: &mut Vec<String>) -> PageIds {
    let mut named = Vec::new();
    let mut open: Option<(usize, Option<String>, String)> = None;
    for (event, range) in Parser::new_ext(&page.body, options()).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { id, attrs, .. }) => {
                let written = id.map(|i| i.to_string()).or_else(|| {
                    id_attribute(&attrs).map(|value| value.unwrap_or_default().to_owned())
                });
                open = Some((range.start, written, String::new()));
            }
            Event::Text(text) | Event::Code(text) => {
                if let Some((_, _, heading)) = &mut open {
                    heading.push_str(&text);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((start, written, text)) = open.take() {
                    named.push(Named::Heading {
                        start,
                        written,
                        text,
                    });
                }
            }
            Event::Start(Tag::FootnoteDefinition(label)) => named.push(Named::Footnote {
                start: range.start,
                label: label.to_string(),
            }),
            _ => {}
        }
    }

    let around = match page.kind {
        PageKind::HomeIntro => [LAYOUT_IDS, HOME_IDS].concat(),
        PageKind::Section | PageKind::Page => LAYOUT_IDS.to_vec(),
    };
    // Where each id is written first; a line is worked out only for an error.
    let mut written: HashMap<&str, usize> = HashMap::new();
    for item in &named {
        let Named::Heading {
            start,
            written: Some(id),
            ..
        } = item
        else {
            continue;
        };
        let problem = if id.is_empty() || id.contains(|c: char| c.is_ascii_whitespace()) {
            format!("the heading's id {id:?} is empty or holds a space, which an id may not")
        } else if around.contains(&id.as_str()) {
            format!(
                "the heading's id #{id} is one the page's template gives its own element{}; write another ({{#{id}-section}})",
                if id == "main" {
                    " (the \"Skip to content\" link leads to it)"
                } else {
                    ""
                }
            )
        } else if let Some(first) = written.get(id.as_str()) {
            format!(
                "the heading's id #{id} is also written on line {}, and an id must be unique on its page; write another",
                page.line_of(*first)
            )
        } else {
            written.insert(id, *start);
            continue;
        };
        errors.push(format!(
            "{}:{}: {problem}",
            page.origin,
            page.line_of(*start)
        ));
    }

    let mut made = UniqueIds::new(
        TEMPLATE_IDS
            .iter()
            .copied()
            .chain(written.keys().copied())
            .map(str::to_owned),
    );
    let mut ids = PageIds {
        around,
        ..PageIds::default()
    };
    let mut footnote_starts: HashMap<UniCase<String>, usize> = HashMap::new();
    for item in named {
        match item {
            Named::Heading {
                start,
                written,
                text,
            } => {
                let id = match written {
                    Some(id) => id,
                    None => made.make(heading_slug(&text)),
                };
                ids.anchors.insert(id.clone());
                ids.headings.insert(start, id);
            }
            Named::Footnote { start, label } => {
                let key = UniCase::new(label.clone());
                if let Some(first) = footnote_starts.get(&key) {
                    errors.push(format!(
                        "{}:{}: the footnote [^{label}] is also defined on line {}; remove one, or rename it and its references",
                        page.origin,
                        page.line_of(start),
                        page.line_of(*first)
                    ));
                    continue;
                }
                footnote_starts.insert(key.clone(), start);
                let id = made.make(format!("fn-{}", heading_slug(&label)));
                ids.anchors.insert(id.clone());
                ids.footnotes.insert(key, id);
            }
        }
    }
    ids
}

/// The value of a heading's `id=` attribute (`## Title {id=x}`), if it has one: `Some(None)`
/// for a bare `{id}`.
fn id_attribute<'a>(attrs: &'a [(CowStr<'a>, Option<CowStr<'a>>)]) -> Option<Option<&'a str>> {
    attrs
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("id"))
        .map(|(_, value)| value.as_deref())
}

/// Ids made unique: one that is taken gets the first free `-1`, `-2`, … after the last suffix
/// its base was given, so that N identical headings take N steps, not N²/2.
struct UniqueIds {
    taken: HashSet<String>,
    /// The suffix to try next, by base.
    next: HashMap<String, usize>,
    /// The ids tried, for a test of the work done.
    #[cfg(test)]
    tried: usize,
}

impl UniqueIds {
    fn new(taken: impl IntoIterator<Item = String>) -> Self {
        UniqueIds {
            taken: taken.into_iter().collect(),
            next: HashMap::new(),
            #[cfg(test)]
            tried: 0,
        }
    }

    fn make(&mut self, base: String) -> String {
        #[cfg(test)]
        {
            self.tried += 1;
        }
        if !self.taken.contains(&base) {
            self.taken.insert(base.clone());
            return base;
        }
        let next = self.next.entry(base.clone()).or_insert(1);
        loop {
            #[cfg(test)]
            {
                self.tried += 1;
            }
            let id = format!("{base}-{next}");
            *next += 1;
            if self.taken.insert(id.clone()) {
                return id;
            }
        }
    }
}

/// A heading's text as an id: lower case, letters and digits of any script kept, the rest
/// runs of `-` ("Información de vuelo" → `información-de-vuelo`).
fn heading_slug(text: &str) -> String {
    let mut slug = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() {
            slug.extend(c.to_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug = slug.trim_end_matches('-');
    if slug.is_empty() {
        "section".to_owned()
    } else {
        slug.to_owned()
    }
}

/// The page's Markdown as HTML: headings and footnotes with the ids [`page_ids`] gave them,
/// links and images rewritten, or refused with a problem added to `errors`.
fn markdown_to_html(
    page: &ContentPage,
    ids: &PageIds,
    targets: &Targets,
    errors: &mut Vec<String>,
) -> String {
    let footnote = |label: &mut CowStr| {
        if let Some(id) = ids.footnotes.get(&UniCase::new(label.to_string())) {
            *label = CowStr::from(id.clone());
        }
    };
    // Each event is changed on its way to the writer: a page's events are never all held.
    let events = Parser::new_ext(&page.body, options())
        .into_offset_iter()
        .map(|(mut event, range)| {
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
                        Ok(Some(new)) => *dest_url = CowStr::from(new),
                        Ok(None) => {}
                        Err(why) => errors.push(format!(
                            "{}:{}: link {dest_url}: {why}",
                            page.origin,
                            page.line_of(range.start)
                        )),
                    }
                }
                _ => {}
            }
            event
        });
    let mut html = String::with_capacity(page.body.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, events);
    html
}

#[cfg(test)]
mod tests {
    use super::{HOME_IDS, LAYOUT_IDS, TEMPLATE_IDS, UniqueIds, heading_slug, join, split_suffix};

    #[test]
    fn relative_paths_join_and_stop_at_the_top() {
        assert_eq!(join("pilots/", "../join.md").as_deref(), Some("join.md"));
        assert_eq!(join("pilots/guide/", "../").as_deref(), Some("pilots/"));
        assert_eq!(join("", "./logo.png").as_deref(), Some("logo.png"));
        assert_eq!(join("", "../x"), None);
        assert_eq!(split_suffix("a.md#b?c"), ("a.md", "#b?c"));
    }

    #[test]
    fn heading_ids_keep_letters_of_any_script() {
        assert_eq!(heading_slug("Información de vuelo"), "información-de-vuelo");
        assert_eq!(heading_slug("  Step 1: S1 → S2!  "), "step-1-s1-s2");
        assert_eq!(heading_slug("→"), "section");
    }

    #[test]
    fn a_made_id_takes_the_next_free_suffix_in_one_step() {
        let mut ids = UniqueIds::new(["x-3".to_owned()]);
        let made: Vec<String> = (0..5).map(|_| ids.make("x".into())).collect();
        assert_eq!(made, ["x", "x-1", "x-2", "x-4", "x-5"]);
        assert_eq!(ids.make("x-1".into()), "x-1-1");

        // N identical headings: one try for the first, then the base and its next suffix for
        // each of the others (restarting the suffixes at 1 would take N²/2).
        let mut ids = UniqueIds::new([]);
        for _ in 0..10_000 {
            ids.make("same".into());
        }
        assert_eq!(ids.tried, 1 + 2 * 9_999);
    }

    #[test]
    fn the_ids_a_written_id_may_not_take_are_template_ids() {
        for id in LAYOUT_IDS.iter().chain(HOME_IDS) {
            assert!(TEMPLATE_IDS.contains(id), "{id}");
        }
    }
}
