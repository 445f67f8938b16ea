//! The webmaster's own pages: Markdown files under `content/`, each opening with TOML front
//! matter between `+++` lines, as in Zola.
//!
//! Where a page is published follows from its path: `join.md` becomes `join/`,
//! `pilots/guide.md` becomes `pilots/guide/`, a folder's `_index.md` is that folder's section
//! page, and the top `_index.md` is the home page's introduction.

use crate::fetch::site_files::ContentFile;
use crate::toml_errors;
use anyhow::{Result, bail};
use serde::Deserialize;
use std::sync::OnceLock;

/// What a page is, by its place in the content folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageKind {
    /// `content/_index.md`: the home page's introduction.
    HomeIntro,
    /// A folder's `_index.md`: the section's own page, listing the pages in the folder.
    Section,
    Page,
}

/// One page, its front matter read and checked.
#[derive(Clone, Debug)]
pub struct ContentPage {
    pub path: String,
    pub origin: String,
    pub kind: PageKind,
    /// The folder it is published in, relative to the site root: `join/`, `pilots/`, or `""`
    /// for the home page's introduction.
    pub url: String,
    pub title: String,
    pub description: Option<String>,
    pub weight: i64,
    pub draft: bool,
    /// A template of the theme's to render the page with instead of the built-in one.
    pub template: Option<String>,
    /// The front matter line naming the template, for errors.
    pub template_line: usize,
    /// Listed in the header's navigation.
    pub menu: bool,
    /// `[extra]`: anything a theme's own templates want, passed through.
    pub extra: toml::Table,
    /// The Markdown below the front matter.
    pub body: String,
    /// The line of the file where `body` starts, so that errors in the body name file lines.
    pub body_line: usize,
    /// Where each line of `body` starts, made on the first error that needs a line (a page
    /// of 50,000 links would otherwise count lines from the top 50,000 times).
    line_starts: OnceLock<Vec<usize>>,
}

impl ContentPage {
    /// The line of the file holding byte `offset` of `body`.
    pub fn line_of(&self, offset: usize) -> usize {
        let starts = self.line_starts.get_or_init(|| {
            std::iter::once(0)
                .chain(memchr::memchr_iter(b'\n', self.body.as_bytes()).map(|at| at + 1))
                .collect()
        });
        // The number of lines starting at or before `offset`, less the first.
        self.body_line + starts.partition_point(|&start| start <= offset) - 1
    }

    /// The section (folder) a page belongs to, relative to the content folder: `""` for the
    /// top, `pilots/`. A section page belongs to its parent folder.
    pub fn folder(&self) -> &str {
        let own = match self.kind {
            PageKind::HomeIntro => return "",
            PageKind::Section => self.path.trim_end_matches("_index.md"),
            PageKind::Page => &self.path,
        };
        let own = own.trim_end_matches('/');
        match own.rfind('/') {
            Some(slash) => &own[..=slash],
            None => "",
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FrontMatter {
    title: Option<String>,
    description: Option<String>,
    #[serde(default)]
    weight: i64,
    #[serde(default)]
    draft: bool,
    template: Option<toml::Spanned<String>>,
    #[serde(default)]
    menu: bool,
    #[serde(default)]
    extra: toml::Table,
}

const FENCE: &str = "+++";

/// Every file's front matter read: the pages, or one error naming every mistake (not one
/// build per mistake).
pub fn parse_all(files: &[ContentFile]) -> Result<Vec<ContentPage>> {
    let mut pages = Vec::new();
    let mut errors = Vec::new();
    for file in files {
        match parse(file) {
            Ok(page) => pages.push(page),
            Err(error) => errors.push(format!("{error:#}")),
        }
    }
    if errors.is_empty() {
        Ok(pages)
    } else {
        Err(problems(errors))
    }
}

/// One error for all the problems found in the site's pages, one per line.
pub fn problems(mut errors: Vec<String>) -> anyhow::Error {
    if errors.len() == 1 {
        return anyhow::anyhow!(errors.remove(0));
    }
    let mut message = format!("{} problems with the site's pages:", errors.len());
    for error in errors {
        message.push_str("\n  - ");
        message.push_str(&error);
    }
    anyhow::anyhow!(message)
}

/// Reads one file's front matter and decides where it is published. Errors name the file and
/// line.
pub fn parse(file: &ContentFile) -> Result<ContentPage> {
    let origin = &file.origin;
    let (kind, url) = place(&file.path).map_err(|e| anyhow::anyhow!("{origin}: {e}"))?;
    // A byte-order mark is what some Windows editors put first; it is not part of the fence.
    let text = file.text.strip_prefix('\u{feff}').unwrap_or(&file.text);
    let mut lines = text.split_inclusive('\n');
    if lines.next().map(str::trim_end) != Some(FENCE) {
        bail!(
            "{origin}:1: a page starts with front matter between {FENCE} lines, at least:\n\n{FENCE}\ntitle = \"The page's title\"\n{FENCE}"
        );
    }
    let mut front = String::new();
    let mut closing_line = None;
    for (index, line) in lines.by_ref().enumerate() {
        if line.trim_end() == FENCE {
            closing_line = Some(index + 2);
            break;
        }
        front.push_str(line);
    }
    let Some(closing_line) = closing_line else {
        bail!("{origin}:1: the front matter opened here is never closed with a {FENCE} line");
    };
    let fenced: usize = text
        .split_inclusive('\n')
        .take(closing_line)
        .map(str::len)
        .sum();
    let body = text[fenced..].to_owned();

    let front_line = |byte: usize| front[..byte.min(front.len())].matches('\n').count() + 2;
    let matter: FrontMatter = toml::from_str(&front).map_err(|e| {
        // The front matter starts on the file's second line.
        let line = toml_errors::place(&e, &front).map_or(1, |(line, _)| line + 1);
        let message = toml_errors::message(&e);
        anyhow::anyhow!("{origin}:{line}: front matter: {message}")
    })?;
    let title = match matter.title.map(|t| t.trim().to_owned()) {
        Some(title) if !title.is_empty() => title,
        // The home page's introduction has the site's title above it.
        _ if kind == PageKind::HomeIntro => String::new(),
        _ => bail!("{origin}:1: front matter: `title` is required (title = \"The page's title\")"),
    };
    let (template, template_line) = match matter.template {
        Some(template) => {
            let line = front_line(template.span().start);
            let name = template.into_inner();
            if name.is_empty() || name.contains("..") || name.starts_with('/') {
                bail!(
                    "{origin}:{line}: front matter: template = {name:?} is not a template name (a file in your templates folder, such as \"visiting.html\")"
                );
            }
            (Some(name), line)
        }
        None => (None, 0),
    };
    Ok(ContentPage {
        path: file.path.clone(),
        origin: origin.clone(),
        kind,
        url,
        title,
        description: matter
            .description
            .map(|d| d.trim().to_owned())
            .filter(|d| !d.is_empty()),
        weight: matter.weight,
        draft: matter.draft,
        template,
        template_line,
        menu: matter.menu,
        extra: matter.extra,
        body,
        body_line: closing_line + 1,
        line_starts: OnceLock::new(),
    })
}

/// What a content path is and the folder it is published in.
fn place(path: &str) -> Result<(PageKind, String), String> {
    let Some(stem) = path.strip_suffix(".md") else {
        return Err("not a Markdown (.md) file".into());
    };
    for part in stem.split('/') {
        let plain = !part.is_empty()
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            && !part.starts_with('.');
        if !plain {
            return Err(format!(
                "{path:?}: page and folder names become addresses, so they may hold only letters a-z, digits, '-', '_' and '.'; rename it"
            ));
        }
    }
    Ok(if stem == "_index" {
        (PageKind::HomeIntro, String::new())
    } else if let Some(folder) = stem.strip_suffix("/_index") {
        (PageKind::Section, format!("{folder}/"))
    } else {
        (PageKind::Page, format!("{stem}/"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, text: &str) -> ContentFile {
        ContentFile {
            path: path.into(),
            origin: format!("content/{path}"),
            text: text.into(),
        }
    }

    #[test]
    fn a_page_is_published_at_its_path() {
        let page = parse(&file(
            "pilots/guide.md",
            "+++\ntitle = \"Guide\"\nweight = 3\nmenu = true\n+++\n# Hello\n",
        ))
        .unwrap();
        assert_eq!(page.kind, PageKind::Page);
        assert_eq!(page.url, "pilots/guide/");
        assert_eq!(page.folder(), "pilots/");
        assert_eq!(
            (page.title.as_str(), page.weight, page.menu),
            ("Guide", 3, true)
        );
        assert_eq!(page.body, "# Hello\n");
        assert_eq!(page.body_line, 6);
        assert_eq!(page.line_of(0), 6);

        let section = parse(&file("pilots/_index.md", "+++\ntitle = \"Pilots\"\n+++\n")).unwrap();
        assert_eq!(
            (section.kind, section.url.as_str()),
            (PageKind::Section, "pilots/")
        );
        assert_eq!(section.folder(), "");
        let home = parse(&file("_index.md", "+++\n+++\nWelcome\n")).unwrap();
        assert_eq!((home.kind, home.url.as_str()), (PageKind::HomeIntro, ""));
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let cases = [
            (
                "join.md",
                "title = \"x\"\n",
                "content/join.md:1: a page starts with front matter",
            ),
            (
                "join.md",
                "+++\ntitle = \"x\"\n",
                "content/join.md:1: the front matter opened here is never closed",
            ),
            (
                "join.md",
                "+++\ndescription = \"x\"\n+++\n",
                "content/join.md:1: front matter: `title` is required",
            ),
            (
                "join.md",
                "+++\ntitle = \"x\"\n\ntitel = \"y\"\n+++\n",
                "content/join.md:4: front matter: unknown field `titel`",
            ),
            (
                "join.md",
                "+++\ntitle = \"x\"\nweight = \"first\"\n+++\n",
                "content/join.md:3: front matter: invalid type",
            ),
            (
                "join.md",
                "+++\ntitle = \"x\"\ntemplate = \"../x.html\"\n+++\n",
                "content/join.md:3: front matter: template = \"../x.html\"",
            ),
            (
                "Join Us.md",
                "+++\ntitle = \"x\"\n+++\n",
                "content/Join Us.md: \"Join Us.md\": page and folder names",
            ),
        ];
        for (path, text, expected) in cases {
            let error = parse(&file(path, text)).unwrap_err().to_string();
            assert!(
                error.starts_with(expected),
                "{text:?}\n  gave {error}\n  want {expected}"
            );
        }
    }

    #[test]
    fn a_body_offset_is_on_the_line_of_the_file_that_holds_it() {
        let page = parse(&file(
            "join.md",
            "+++\ntitle = \"J\"\n+++\none\n\nthree\r\nfour",
        ))
        .unwrap();
        let line = |text: &str| page.line_of(page.body.find(text).unwrap());
        assert_eq!(
            [line("one"), line("\n\nthree"), line("three"), line("four")],
            [4, 4, 6, 7]
        );
        // The last line, and past the end, with no newline after them.
        assert_eq!(page.line_of(page.body.len()), 7);
        assert_eq!(page.line_of(usize::MAX), 7);
    }

    #[test]
    fn windows_line_endings_and_a_byte_order_mark_are_read() {
        let page = parse(&file(
            "join.md",
            "\u{feff}+++\r\ntitle = \"Join\"\r\n+++\r\nBody\r\n",
        ))
        .unwrap();
        assert_eq!(page.title, "Join");
        assert_eq!(page.body, "Body\r\n");
    }
}
