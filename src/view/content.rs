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
use super::settings::{MenuEntry, MenuTarget};
use crate::model::content::{ContentPage, PageKind};
use anyhow::{Result, bail};
use percent_encoding::{AsciiSet, CONTROLS, percent_decode_str, utf8_percent_encode};
use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};
use serde::Serialize;
use std::collections::{BTreeSet, HashMap, HashSet};

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

/// Ids the built-in templates give elements of their own; a heading of a page never takes
/// one, since an id must be unique on its page.
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

/// Adds the webmaster's pages to a built view: the pages themselves, the home page's
/// introduction and the menu. `pages` are all the content files, drafts included (a link to
/// a draft that is left out is an error that says so); `static_paths` are the static files'
/// paths in the site.
pub fn add_content(
    view: &mut SiteView,
    pages: &[ContentPage],
    static_paths: &HashSet<&str>,
    menu: &[MenuEntry],
    drafts: bool,
) -> Result<()> {
    let generated = generated_paths(view);
    let published: Vec<&ContentPage> = pages.iter().filter(|p| drafts || !p.draft).collect();

    // Where each page goes, and what is there already.
    let mut origins: HashMap<String, String> = HashMap::new();
    for path in static_paths {
        origins.insert((*path).to_owned(), format!("the static file {path}"));
    }
    for page in &published {
        if page.kind == PageKind::HomeIntro {
            continue;
        }
        let file = format!("{}index.html", page.url);
        if let Some(what) = generated.get(file.as_str()) {
            bail!(
                "{} would be published at {file}, where vatcar-site writes {what}; rename it{}",
                page.origin,
                match what.as_str() {
                    "the roster page"
                    | "the events page"
                    | "the division's events page"
                    | "the documents page" =>
                        ", or turn that page off under [sections] in vatcar-site.toml",
                    _ => "",
                }
            );
        }
        if let Some(other) = origins.insert(file.clone(), page.origin.clone()) {
            bail!(
                "{} and {other} would both be published at {file}; rename one",
                page.origin
            );
        }
    }

    // Each page's heading ids, by where the heading starts: links to a page's anchors are
    // checked against them, and its headings get them.
    let ids: HashMap<&str, HeadingIds> = published
        .iter()
        .map(|page| (page.path.as_str(), heading_ids(page)))
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
        let html = markdown_to_html(page, &ids[page.path.as_str()], &targets)?;
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
                let (url, _) = targets.site_target(target).map_err(|e| {
                    anyhow::anyhow!("{}: menu: page = {target:?}: {e}", entry.origin)
                })?;
                MenuItem {
                    name: entry.name.clone(),
                    url,
                    external: false,
                }
            }
        });
    }
    view.site.menu = menu_items;
    view.content = ContentView { pages: views };
    Ok(())
}

/// What the site holds besides the webmaster's files, by path, with what it is.
fn generated_paths(view: &SiteView) -> HashMap<String, String> {
    let mut paths = HashMap::new();
    let mut add = |path: String, what: &str| {
        paths.insert(path, what.to_owned());
    };
    add("index.html".into(), "the home page");
    add("404.html".into(), "the page-not-found page");
    let sections = view.site.sections;
    for (on, path, what) in [
        (sections.roster, "roster/index.html", "the roster page"),
        (sections.events, "events/index.html", "the events page"),
        (
            sections.division,
            "division/index.html",
            "the division's events page",
        ),
        (
            sections.documents,
            "documents/index.html",
            "the documents page",
        ),
        (
            sections.events,
            view.site.calendars.facility,
            "the facility's calendar",
        ),
        (
            sections.division,
            view.site.calendars.division,
            "the division's calendar",
        ),
        (view.site.has_feed, "feed.xml", "the Atom feed"),
        (view.site.has_feed, "sitemap.xml", "the sitemap"),
    ] {
        if on {
            add(path.to_owned(), what);
        }
    }
    for event in &view.event_pages {
        add(
            format!("{}index.html", event.summary.url),
            &format!("the page of event {}", event.summary.id),
        );
    }
    for entry in view.calendars.entries.values() {
        add(entry.path.clone(), "an event's calendar file");
    }
    paths
}

/// A page's heading ids, by the byte offset in its body where the heading starts.
type HeadingIds = HashMap<usize, String>;

/// Everything a link may point to.
struct Targets<'a> {
    generated: &'a HashMap<String, String>,
    static_paths: &'a HashSet<&'a str>,
    /// Every content page by its path, drafts included.
    pages: HashMap<&'a str, &'a ContentPage>,
    /// The folders of the pages being published.
    published_urls: HashSet<&'a str>,
    /// The heading ids of each published page.
    ids: &'a HashMap<&'a str, HeadingIds>,
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

    /// A content page by its path below `content/`: its folder in the site and its heading
    /// ids.
    fn page(&self, path: &str) -> Result<(String, Option<&HeadingIds>), String> {
        match self.pages.get(path) {
            Some(page) if page.draft && !self.drafts => Err(format!(
                "{path} is a draft (draft = true) and is not published; build with --drafts to preview it"
            )),
            Some(page) => Ok((page.url.clone(), self.ids.get(path))),
            None => Err(format!("there is no page {path} in the content folder")),
        }
    }

    /// An `@/` target (without the `@/`): its path in the site.
    fn site_target(&self, target: &str) -> Result<(String, Option<&HeadingIds>), String> {
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
            if !ids.values().any(|id| *id == fragment) && !TEMPLATE_IDS.contains(&fragment.as_str())
            {
                let mut known: Vec<&String> = ids.values().collect();
                known.sort();
                return Err(format!(
                    "#{fragment}: the page has no heading with that anchor (it has: {})",
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known
                            .iter()
                            .map(|id| format!("#{id}"))
                            .collect::<Vec<_>>()
                            .join(", ")
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

/// The id each heading gets, by the byte offset of the heading in the body: the one written
/// (`## Visiting {#visit}`), else one made from its text, unique on the page.
fn heading_ids(page: &ContentPage) -> HeadingIds {
    let mut taken: BTreeSet<String> = TEMPLATE_IDS.iter().map(|s| (*s).to_owned()).collect();
    let mut ids = HashMap::new();
    let mut open: Option<(usize, Option<String>, String)> = None;
    for (event, range) in Parser::new_ext(&page.body, options()).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { id, .. }) => {
                open = Some((range.start, id.map(|i| i.to_string()), String::new()));
            }
            Event::Text(text) | Event::Code(text) => {
                if let Some((_, _, heading)) = &mut open {
                    heading.push_str(&text);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((start, written, text)) = open.take() {
                    let id = match written {
                        Some(id) => id,
                        None => {
                            let base = heading_slug(&text);
                            let mut id = base.clone();
                            let mut n = 1;
                            while taken.contains(&id) {
                                id = format!("{base}-{n}");
                                n += 1;
                            }
                            id
                        }
                    };
                    taken.insert(id.clone());
                    ids.insert(start, id);
                }
            }
            _ => {}
        }
    }
    ids
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

/// The page's Markdown as HTML: headings with the ids [`heading_ids`] gave them, links and
/// images rewritten or refused.
fn markdown_to_html(page: &ContentPage, ids: &HeadingIds, targets: &Targets) -> Result<String> {
    let line_of = |offset: usize| page.body_line + page.body[..offset].matches('\n').count();
    let mut events = Vec::new();
    for (mut event, range) in Parser::new_ext(&page.body, options()).into_offset_iter() {
        match &mut event {
            Event::Start(Tag::Heading { id, .. }) => {
                *id = ids.get(&range.start).cloned().map(CowStr::from);
            }
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                let dest = std::mem::replace(dest_url, CowStr::Borrowed(""));
                *dest_url = rewritten(page, targets, dest, line_of(range.start))?;
            }
            _ => {}
        }
        events.push(event);
    }
    let mut html = String::with_capacity(page.body.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, events.into_iter());
    Ok(html)
}

fn rewritten<'a>(
    page: &ContentPage,
    targets: &Targets,
    dest: CowStr<'a>,
    line: usize,
) -> Result<CowStr<'a>> {
    match targets.rewrite(page, &dest) {
        Ok(Some(new)) => Ok(CowStr::from(new)),
        Ok(None) => Ok(dest),
        Err(why) => bail!("{}:{line}: link {dest}: {why}", page.origin),
    }
}

#[cfg(test)]
mod tests {
    use super::{heading_slug, join, split_suffix};

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
}
