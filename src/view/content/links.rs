//! Where a content page's links lead: every target checked, and written relative to the page.

use super::Generated;
use super::ids::PageIds;
use crate::model::content::ContentPage;
use crate::sanitize::quote::one_line;
use percent_encoding::{AsciiSet, CONTROLS, percent_decode_str, utf8_percent_encode};
use std::collections::{HashMap, HashSet};

/// Everything a link may point to.
pub(super) struct Targets<'a> {
    pub(super) generated: &'a HashMap<String, Generated>,
    pub(super) static_paths: &'a HashSet<&'a str>,
    /// Every content page by its path, drafts included.
    pub(super) pages: HashMap<&'a str, &'a ContentPage>,
    /// The folders of the pages being published.
    pub(super) published_urls: HashSet<&'a str>,
    /// The ids of each published page.
    pub(super) ids: &'a HashMap<&'a str, PageIds>,
    pub(super) drafts: bool,
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
            None => {
                // Not a name that shares only `.md` (`x.md` for `b.md`).
                let stem = path.strip_suffix(".md").unwrap_or(path).chars().count();
                let near = crate::suggest::nearest(path, self.pages.keys().copied())
                    .filter(|near| strsim::osa_distance(path, near) < stem);
                Err(format!(
                    "there is no page {path} in the content folder{}",
                    near.map(|near| format!("; did you mean `{near}`?"))
                        .unwrap_or_default()
                ))
            }
        }
    }

    /// The names an `@/` link may give, for suggestions: every page (`join.md`), every file
    /// and every folder with an index (`roster`).
    fn site_names(&self) -> Vec<&str> {
        let files = self.generated.keys().map(String::as_str);
        let files = files.chain(self.static_paths.iter().copied());
        let folders = files
            .clone()
            .filter_map(|path| path.strip_suffix("/index.html"));
        let pages = self.pages.keys().copied();
        let urls = self
            .published_urls
            .iter()
            .map(|url| url.trim_end_matches('/'));
        files.chain(folders).chain(pages).chain(urls).collect()
    }

    /// The file of the site an `@/` target resolved to (`roster/` is `roster/index.html`),
    /// when vatcar-site writes it as a page: its anchors are known once it is rendered.
    fn generated_page(&self, target: &str) -> Option<String> {
        let file = if target.is_empty() || target.ends_with('/') {
            format!("{target}index.html")
        } else {
            target.to_owned()
        };
        (file.ends_with(".html") && self.generated.contains_key(&file)).then_some(file)
    }

    /// An `@/` target (without the `@/`): its path in the site.
    pub(super) fn site_target(&self, target: &str) -> Result<(String, Option<&PageIds>), String> {
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
            "the site has no page or file @/{}{}{}",
            one_line(&target),
            did_you_mean(&target, self.site_names(), "@/"),
            if target.starts_with("events/") {
                " (is the event in the data, and its section on?)"
            } else {
                ""
            }
        ))
    }

    /// A link's destination as it is to be written in `page`, or `None` to keep it as it is.
    pub(super) fn rewrite(&self, page: &ContentPage, dest: &str) -> Result<LinkRewrite, String> {
        let kept = LinkRewrite {
            dest: None,
            anchor_on: None,
            target: None,
        };
        if dest.is_empty() || dest.starts_with('#') || dest.starts_with("//") || has_scheme(dest) {
            return Ok(kept);
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
                    "the site has no page or file {} (a relative link starts from the page's address, {}/); to link from the site's root write @/{}",
                    one_line(&joined),
                    if page.url.is_empty() {
                        "."
                    } else {
                        page.url.trim_end_matches('/')
                    },
                    one_line(path.trim_start_matches("./"))
                ));
            }
            // Right as written; an anchor on a page vatcar-site writes is checked once it is.
            let folder = format!("{}/", joined.trim_end_matches('/'));
            let anchor_on = fragment.and_then(|fragment| {
                let file = self
                    .generated_page(&joined)
                    .or_else(|| self.generated_page(&folder))?;
                Some((file, fragment.to_owned()))
            });
            return Ok(LinkRewrite {
                dest: None,
                anchor_on,
                target: Some(joined),
            });
        };
        // An anchor on a page vatcar-site writes is checked once it is; one on a content page,
        // here.
        let anchor_on = (fragment.filter(|_| ids.is_none()))
            .and_then(|fragment| Some((self.generated_page(&target)?, fragment.to_owned())));
        if let (Some(fragment), Some(ids)) = (fragment, ids) {
            let fragment = decode(fragment)?;
            if !ids.anchors.contains(&fragment) && !ids.around.contains(&fragment.as_str()) {
                let known = some_ids(ids.anchors.iter().map(String::as_str));
                return Err(format!(
                    "#{fragment}: the page has no heading with that anchor{} (it has: {})",
                    did_you_mean(
                        &fragment,
                        ids.anchors
                            .iter()
                            .map(String::as_str)
                            .chain(ids.around.iter().copied()),
                        "#"
                    ),
                    known
                ));
            }
        }
        let relative = format!(
            "{}{}",
            "../".repeat(page.url.matches('/').count()),
            encode(&target)
        );
        Ok(LinkRewrite {
            dest: Some(match (relative.is_empty(), suffix.is_empty()) {
                (true, true) => "./".to_owned(),
                _ => format!("{relative}{suffix}"),
            }),
            anchor_on,
            target: Some(target),
        })
    }
}

/// What a link becomes.
pub(super) struct LinkRewrite {
    /// Its new destination, or `None` to keep it as written.
    pub(super) dest: Option<String>,
    /// The page vatcar-site writes that it names an anchor of, and the anchor (as written):
    /// checked once that page is rendered.
    pub(super) anchor_on: Option<(String, String)>,
    /// The site's own path it leads to (`img/tower.png`), when it leads into the site.
    pub(super) target: Option<String>,
}

/// The first few of a page's ids (`#staff, #visitors, and 12 more`), or "none": a page may
/// have thousands, and a few show what they look like.
pub(super) fn some_ids<'i>(ids: impl ExactSizeIterator<Item = &'i str>) -> String {
    match ids.len() {
        0 => "none".to_owned(),
        _ => crate::sanitize::quote::first_few(ids.map(|id| format!("#{id}")), 10),
    }
}

/// "; did you mean `@/roster`?" for the known name nearest to `unknown`, written after
/// `prefix`, or nothing.
pub(super) fn did_you_mean<'k>(
    unknown: &str,
    known: impl IntoIterator<Item = &'k str>,
    prefix: &str,
) -> String {
    crate::suggest::nearest(unknown, known)
        .map(|near| format!("; did you mean `{prefix}{near}`?"))
        .unwrap_or_default()
}

/// The ids of the elements of a rendered page: what `id="..."` attributes it holds.
/// Markdown and the templates escape the quotes of text, so every ` id="` is an attribute's.
pub fn ids_in(html: &str) -> HashSet<String> {
    let mut ids = HashSet::new();
    for (at, _) in html.match_indices("id=") {
        let before = html[..at].chars().next_back();
        if !before.is_some_and(char::is_whitespace) {
            continue;
        }
        let rest = &html[at + 3..];
        match rest.chars().next() {
            Some(quote @ ('"' | '\'')) => {
                if let Some(end) = rest[1..].find(quote) {
                    ids.insert(rest[1..1 + end].to_owned());
                }
            }
            // Unquoted, as HTML allows: to the next space or `>`.
            Some(_) => {
                let end = rest
                    .find(|c: char| c.is_ascii_whitespace() || c == '>')
                    .unwrap_or(rest.len());
                ids.insert(rest[..end].to_owned());
            }
            None => {}
        }
    }
    ids
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
pub(in crate::view) fn encode(path: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::{ids_in, join, some_ids, split_suffix};

    #[test]
    fn relative_paths_join_and_stop_at_the_top() {
        assert_eq!(join("pilots/", "../join.md").as_deref(), Some("join.md"));
        assert_eq!(join("pilots/guide/", "../").as_deref(), Some("pilots/"));
        assert_eq!(join("", "./logo.png").as_deref(), Some("logo.png"));
        assert_eq!(join("", "../x"), None);
        assert_eq!(split_suffix("a.md#b?c"), ("a.md", "#b?c"));
    }

    #[test]
    fn the_ids_of_a_rendered_page_are_its_attributes_only() {
        let html = r#"<main id="main"><h2 id='staff'>Staff</h2><p data-id="no">id="text"</p>
<a href="x?id=1" xid="no" id=bare>x</a><h3 id="información">I</h3><p id="open"#;
        let mut ids: Vec<String> = ids_in(html).into_iter().collect();
        ids.sort();
        // `id="text"` inside text is escaped in real pages; here it follows no space.
        assert_eq!(ids, ["bare", "información", "main", "staff"]);
    }

    #[test]
    fn a_few_ids_are_listed_and_the_rest_counted() {
        assert_eq!(some_ids([].into_iter()), "none");
        assert_eq!(some_ids(["a", "b"].into_iter()), "#a, #b");
        let many: Vec<String> = (0..25).map(|n| format!("row-{n:02}")).collect();
        let listed = some_ids(many.iter().map(String::as_str));
        assert!(listed.starts_with("#row-00, #row-01,"), "{listed}");
        assert!(listed.ends_with("#row-09, and 15 more"), "{listed}");
    }
}
