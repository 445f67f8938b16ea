//! The webmaster's own pages: Markdown files under `content/`, each opening with TOML front
//! matter between `+++` lines, as in Zola.
//!
//! Where a page is published follows from its path: `join.md` becomes `join/`,
//! `pilots/guide.md` becomes `pilots/guide/`, a folder's `_index.md` is that folder's section
//! page, and the top `_index.md` is the home page's introduction.

use crate::fetch::site_files::ContentFile;
use crate::problems::Problem;
use crate::toml_errors;
use serde::Deserialize;

/// What a page is, by its place in the content folder.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PageKind {
    /// `content/_index.md`: the home page's introduction.
    HomeIntro,
    /// A folder's `_index.md`: the section's own page, listing the pages in the folder.
    Section,
    #[default]
    Page,
}

/// One page, its front matter read and checked.
#[derive(Clone, Debug, Default)]
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
    /// False for a page with a mistake in its front matter, which stands in for the page in
    /// the checks of links (to it, and in its body when the body could be found), and is
    /// never published: the build fails.
    pub whole: bool,
}

impl ContentPage {
    /// The line of the file holding byte `offset` of `body`, counted from the top ([`Places`]
    /// counts on from the place before).
    pub fn line_of(&self, offset: usize) -> usize {
        Places::new(self).of(offset).0
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

/// Every file's front matter read: the pages, and every mistake found (not one build per
/// mistake). A page whose front matter has a mistake is among the pages all the same, as
/// [`ContentPage::stand_in`], so that the links to it and in it are checked in the same build.
pub fn parse_all(files: &[ContentFile]) -> (Vec<ContentPage>, Vec<Problem>) {
    let mut pages = Vec::new();
    let mut problems = Vec::new();
    for file in files {
        let (page, found) = read(file);
        pages.extend(page);
        problems.extend(found);
    }
    (pages, problems)
}

/// Reads one file's front matter and decides where it is published. Errors name the file and
/// line.
pub fn parse(file: &ContentFile) -> Result<ContentPage, Problem> {
    match read(file) {
        (_, problems) if !problems.is_empty() => Err(problems.into_iter().next().expect("one")),
        (Some(page), _) => Ok(page),
        (None, _) => Err(Problem::in_file(&file.origin, "could not be read")),
    }
}

/// The lines and columns of a page's body, for its errors: each place is counted on from the
/// one asked before it when it comes after it, as a page's links are met, so that a page of
/// thousands of broken links is read once, not once a link.
pub struct Places<'p> {
    page: &'p ContentPage,
    /// The byte of the body last placed, its line in the file and its column (from 1, in
    /// characters).
    at: usize,
    line: usize,
    column: usize,
}

impl<'p> Places<'p> {
    pub fn new(page: &'p ContentPage) -> Self {
        let line = page.body_line;
        Self {
            page,
            at: 0,
            line,
            column: 1,
        }
    }

    pub fn page(&self) -> &'p ContentPage {
        self.page
    }

    /// The line and column of the file holding byte `offset` of the body.
    pub fn of(&mut self, offset: usize) -> (usize, usize) {
        let body = self.page.body.as_str();
        let mut offset = offset.min(body.len());
        while !body.is_char_boundary(offset) {
            offset -= 1;
        }
        if offset < self.at {
            *self = Self::new(self.page);
        }
        let between = &body[self.at..offset];
        self.line += memchr::memchr_iter(b'\n', between.as_bytes()).count();
        self.column = match between.rfind('\n') {
            Some(end) => between[end + 1..].chars().count() + 1,
            None => self.column + between.chars().count(),
        };
        self.at = offset;
        (self.line, self.column)
    }
}

/// The file's page and the mistakes in it (all its front matter's at once): a page with a
/// mistake in its front matter comes back as a stand-in, read as far as it could be.
fn read(file: &ContentFile) -> (Option<ContentPage>, Vec<Problem>) {
    let origin = &file.origin;
    let (kind, url) = match place(&file.path) {
        Ok(placed) => placed,
        Err(e) => return (None, vec![Problem::in_file(origin, e)]),
    };
    let stand_in = |body: String, body_line: usize| ContentPage {
        path: file.path.clone(),
        origin: origin.clone(),
        kind,
        url: url.clone(),
        title: file.path.clone(),
        body,
        body_line,
        ..ContentPage::default()
    };
    // A byte-order mark is what some Windows editors put first; it is not part of the fence.
    let text = file.text.strip_prefix('\u{feff}').unwrap_or(&file.text);
    let fenced = match fences(text) {
        Fenced::Toml(fenced) => fenced,
        Fenced::Other { problem, body } => {
            let page = body.map(|(body, line)| stand_in(body.to_owned(), line));
            let page = page.unwrap_or_else(|| stand_in(String::new(), 1));
            return (Some(page), vec![Problem::at(origin, 1, None, problem)]);
        }
    };
    let body = text[fenced.body_start..].to_owned();
    let body_line = fenced.closing_line + 1;
    let front = fenced.front;

    let mut matter = match front_matter(front, origin) {
        Ok(matter) => matter,
        Err(problems) => return (Some(stand_in(body, body_line)), problems),
    };
    let checked = title(matter.title.take(), kind, origin)
        .and_then(|title| Ok((title, template(matter.template.take(), front, origin)?)));
    let (title, (template, template_line)) = match checked {
        Ok(checked) => checked,
        Err(problem) => return (Some(stand_in(body, body_line)), vec![problem]),
    };
    let page = ContentPage {
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
        whole: true,
        ..stand_in(body, body_line)
    };
    (Some(page), Vec::new())
}

/// The front matter, read; every mistake in it at its line (the front matter starts on the
/// file's second line).
fn front_matter(front: &str, origin: &str) -> Result<FrontMatter, Vec<Problem>> {
    toml_errors::every_mistake(front).map_err(|mistakes| {
        (mistakes.iter())
            .map(|e| {
                let line = toml_errors::place(e, front).map_or(1, |(line, _)| line + 1);
                let message = format!("front matter: {}", front_matter_error(e));
                Problem::at(origin, line, None, message)
            })
            .collect()
    })
}

/// The page's title, required but on the home page's introduction, which has the site's
/// title above it.
fn title(title: Option<String>, kind: PageKind, origin: &str) -> Result<String, Problem> {
    match title.map(|t| t.trim().to_owned()) {
        Some(title) if !title.is_empty() => Ok(title),
        _ if kind == PageKind::HomeIntro => Ok(String::new()),
        _ => Err(Problem::at(
            origin,
            1,
            None,
            "front matter: `title` is required (title = \"The page's title\")",
        )),
    }
}

/// The template the page names, if any, with its line: a file of the templates folder, never
/// a path out of it.
fn template(
    template: Option<toml::Spanned<String>>,
    front: &str,
    origin: &str,
) -> Result<(Option<String>, usize), Problem> {
    let Some(template) = template else {
        return Ok((None, 0));
    };
    let byte = template.span().start;
    let line = front[..byte.min(front.len())].matches('\n').count() + 2;
    let name = template.into_inner();
    if name.is_empty() || name.contains("..") || name.starts_with('/') {
        return Err(Problem::at(
            origin,
            line,
            None,
            format!(
                "front matter: template = {name:?} is not a template name (a file in your templates folder, such as \"visiting.html\")"
            ),
        ));
    }
    Ok((Some(name), line))
}

/// A TOML front matter's error in the webmaster's words; an unknown key gets the nearest
/// known one.
fn front_matter_error(error: &toml::de::Error) -> String {
    match toml_errors::complaint(error) {
        toml_errors::Complaint::UnknownField { unknown, known } => {
            match crate::suggest::nearest(unknown, known.iter().copied()) {
                Some(near) => format!("unknown key `{unknown}`: did you mean `{near}`?"),
                None => format!(
                    "unknown key `{unknown}`; the keys are {}, and a theme's own go under [extra]",
                    known
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }
        }
        _ => toml_errors::message(error).to_owned(),
    }
}

/// A file split at its front matter's fences.
enum Fenced<'t> {
    Toml(TomlFenced<'t>),
    /// No TOML front matter: what to say, and the body when the fences were found.
    Other {
        problem: String,
        body: Option<(&'t str, usize)>,
    },
}

struct TomlFenced<'t> {
    front: &'t str,
    /// The line of the closing fence.
    closing_line: usize,
    /// The byte where the body starts.
    body_start: usize,
}

/// Where the front matter between the file's first line and the next line that is `fence`
/// is: its bytes, the line of the closing fence and the byte after that line; `None` when it
/// is never closed.
fn between(text: &str, fence: &str) -> Option<(std::ops::Range<usize>, usize, usize)> {
    let mut lines = text.split_inclusive('\n');
    let first = lines.next()?.len();
    let mut at = first;
    for (index, line) in lines.enumerate() {
        if line.trim_end() == fence {
            return Some((first..at, index + 2, at + line.len()));
        }
        at += line.len();
    }
    None
}

/// Finds the front matter: TOML between `+++` lines, or YAML (`---`) or JSON (`{`), which
/// are recognised and refused with the TOML form of their simple keys shown.
fn fences(text: &str) -> Fenced<'_> {
    let first = text.split_inclusive('\n').next().unwrap_or("").trim_end();
    let example = format!("{FENCE}\n{TITLE_LINE}{FENCE}");
    match first {
        FENCE => match between(text, FENCE) {
            Some((front, closing_line, body_start)) => Fenced::Toml(TomlFenced {
                front: &text[front],
                closing_line,
                body_start,
            }),
            None => Fenced::Other {
                problem: format!(
                    "the front matter opened here is never closed with a {FENCE} line"
                ),
                body: None,
            },
        },
        "---" => {
            let found = between(text, "---");
            let toml = found
                .clone()
                .map(|(front, _, _)| yaml_as_toml(&text[front]));
            not_toml(text, "YAML (between --- lines)", found, toml)
        }
        _ if first.starts_with('{') => {
            let found = between(text, "}");
            let toml = (found.clone()).and_then(|(_, _, end)| json_as_toml(&text[..end]));
            not_toml(text, "JSON", found, toml)
        }
        _ => Fenced::Other {
            problem: format!(
                "a page starts with front matter between {FENCE} lines, at least:\n\n{example}"
            ),
            body: None,
        },
    }
}

/// The front matter's line a page needs at least.
const TITLE_LINE: &str = "title = \"The page's title\"\n";

/// A front matter in another language than TOML, its fences `found` (as [`between`] finds
/// them), refused: the TOML form of its simple keys (`toml`), else of a title, is shown to
/// write instead.
fn not_toml<'t>(
    text: &'t str,
    language: &str,
    found: Option<(std::ops::Range<usize>, usize, usize)>,
    toml: Option<String>,
) -> Fenced<'t> {
    let toml = toml.filter(|toml| !toml.is_empty());
    Fenced::Other {
        problem: format!(
            "this front matter is {language}, which vatcar-site does not read; write it in TOML between {FENCE} lines:\n\n{FENCE}\n{}{FENCE}",
            toml.as_deref().unwrap_or(TITLE_LINE)
        ),
        body: found.map(|(_, line, end)| (&text[end..], line + 1)),
    }
}

/// The simple `key: value` lines of a YAML front matter (and its closing fence), as TOML
/// lines; the rest (lists, nesting, comments) is left for the webmaster to write.
fn yaml_as_toml(yaml: &str) -> String {
    let mut toml = String::new();
    for line in yaml.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if key.is_empty() || key.starts_with([' ', '\t', '-', '#']) || value.is_empty() {
            continue;
        }
        let unquoted = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')));
        let value = match unquoted {
            Some(text) => toml_string(text),
            None if matches!(value, "true" | "false") || value.parse::<i64>().is_ok() => {
                value.to_owned()
            }
            None => toml_string(value),
        };
        toml.push_str(&format!("{} = {value}\n", key.trim()));
    }
    toml
}

/// The top-level text, number and true/false values of a JSON front matter, as TOML lines.
fn json_as_toml(json: &str) -> Option<String> {
    let object: serde_json::Map<String, serde_json::Value> = serde_json::from_str(json).ok()?;
    let mut toml = String::new();
    for (key, value) in object {
        let value = match value {
            serde_json::Value::String(text) => toml_string(&text),
            serde_json::Value::Bool(_) | serde_json::Value::Number(_) => value.to_string(),
            _ => continue,
        };
        toml.push_str(&format!("{key} = {value}\n"));
    }
    Some(toml)
}

/// `text` as a TOML basic string, in quotes.
fn toml_string(text: &str) -> String {
    let mut quoted = String::from('"');
    for c in text.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            c if c.is_control() => quoted.push_str(&format!("\\u{:04X}", c as u32)),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
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
                "content/join.md:4: front matter: unknown key `titel`: did you mean `title`?",
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
    fn yaml_and_json_front_matter_are_named_and_shown_in_toml() {
        let yaml = "---\ntitle: \"Join: us\"\nweight: 3\ndraft: false\ntags:\n  - a\ndescription: It's \"easy\"\n---\n[x](@/y.md)\n";
        let (page, problem) = read(&file("join.md", yaml));
        let problem = problem[0].to_string();
        assert!(
            problem.starts_with("content/join.md:1: this front matter is YAML"),
            "{problem}"
        );
        assert!(
            problem.ends_with(
                "+++\ntitle = \"Join: us\"\nweight = 3\ndraft = false\ndescription = \"It's \\\"easy\\\"\"\n+++"
            ),
            "{problem}"
        );
        // The page stands in for itself, its body found: its links are checked too.
        let page = page.unwrap();
        assert!(!page.whole);
        assert_eq!((page.body.as_str(), page.body_line), ("[x](@/y.md)\n", 9));

        let json = "{\n  \"title\": \"Join\",\n  \"menu\": true,\n  \"extra\": {}\n}\nBody\n";
        let (page, problem) = read(&file("join.md", json));
        let problem = problem[0].to_string();
        assert!(problem.contains("this front matter is JSON"), "{problem}");
        assert!(
            problem.ends_with("+++\nmenu = true\ntitle = \"Join\"\n+++"),
            "{problem}"
        );
        assert_eq!(page.unwrap().body, "Body\n");
    }

    #[test]
    fn an_unknown_front_matter_key_gets_the_nearest_or_the_list() {
        let near = parse(&file(
            "a.md",
            "+++\ntitle = \"A\"\ndescripton = \"x\"\n+++\n",
        ));
        assert_eq!(
            near.unwrap_err().to_string(),
            "content/a.md:3: front matter: unknown key `descripton`: did you mean `description`?"
        );
        let far = parse(&file("a.md", "+++\ntitle = \"A\"\ncolour = \"red\"\n+++\n"));
        assert!(
            far.unwrap_err()
                .to_string()
                .ends_with("unknown key `colour`; the keys are `title`, `description`, `weight`, `draft`, `template`, `menu`, `extra`, and a theme's own go under [extra]"),
        );
    }

    /// Every mistake of a front matter at once (issue 50: `descripcion` first, then
    /// `menu = "yes"`), each at its line, in the file's order.
    #[test]
    fn every_mistake_of_a_front_matter_is_named_at_once() {
        let (page, problems) = read(&file(
            "a.md",
            "+++\ntitle = \"A\"\ndescripcion = \"x\"\nmenu = \"yes\"\nweight = 2\n+++\nBody\n",
        ));
        let problems: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
        assert_eq!(
            problems,
            [
                "content/a.md:3: front matter: unknown key `descripcion`: did you mean `description`?",
                "content/a.md:4: front matter: invalid type: string \"yes\", expected a boolean",
            ]
        );
        // The page stands in for itself: its body's links are checked with the rest.
        assert_eq!(page.unwrap().body, "Body\n");
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
    fn places_are_the_lines_and_columns_of_the_file_asked_in_any_order() {
        let page = parse(&file(
            "p.md",
            "+++\ntitle = \"P\"\n+++\nécrit [a](b)\n\n  → x\r\nend",
        ))
        .unwrap();
        let body = page.body.as_str();
        // Counted from the top of the file, with nothing carried from one place to the next.
        let counted = |offset: usize| {
            let before = &body[..offset];
            let start = before.rfind('\n').map_or(0, |at| at + 1);
            let line = page.body_line + before.matches('\n').count();
            (line, before[start..].chars().count() + 1)
        };
        let offsets: Vec<usize> = (0..=body.len())
            .filter(|at| body.is_char_boundary(*at))
            .collect();
        let mut places = super::Places::new(&page);
        for &offset in offsets.iter().chain(offsets.iter().rev()).chain(&offsets) {
            assert_eq!(places.of(offset), counted(offset), "at {offset}");
        }
        assert_eq!(
            places.of(body.find("→").unwrap() + 1),
            (6, 3),
            "inside a character"
        );
        assert_eq!(places.of(usize::MAX), (7, 4));
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
