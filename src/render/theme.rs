//! Templates and static files: built into the binary, each replaceable by a file of the same
//! name in the user's templates folder (`--templates DIR`: templates at its top level, static
//! files under `DIR/static/`).
//!
//! As in Zola, the user's templates are loaded first and the built-in ones added only where
//! the user has none, so a user file always wins, one file at a time. For a user file that
//! names one, every built-in is also loaded as `builtin/<name>`, for it to extend.

pub mod embedded;
mod export;
mod folder;
mod ignored;
mod translate;

use crate::i18n::Texts;
use crate::problems::{Problem, Problems};
use crate::render::escape::escape_html;
use crate::render::frame::{self, Split};
use crate::render::tera_glue::{errors as tera_errors, panics};
use crate::sanitize::quote;
use crate::view::outputs;
use anyhow::Result;
pub use embedded::{STATIC_FILES, TEMPLATES};
pub use export::exported_files;
pub use folder::PageTemplate;
use folder::{TemplateSource, check_page_templates, read_theme_folder};
pub use ignored::{Ignored, ignored_files};
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};
use tera::Tera;
use translate::{Translate, UNKNOWN_KEY};

/// Page templates left unparsed until a page is rendered whole, with their text
/// ([`Theme::tera_for`]).
type Deferred = Vec<(String, String)>;

/// The folder the built-in templates are also found under, whatever the theme replaces:
/// `{% extends "builtin/index.html" %}`.
pub const BUILTIN_PREFIX: &str = "builtin/";

pub struct Theme {
    parsed: Arc<Parsed>,
    static_files: Vec<(String, Vec<u8>)>,
    /// Each template's text and where it came from, to point errors at a file and line.
    sources: Vec<TemplateSource>,
    /// The words of the pages, in the site's language.
    texts: Arc<Texts>,
}

/// The theme's templates parsed by Tera: most of a small site's build, which `serve` does
/// once while the templates and the words are unchanged ([`TemplateCache`]).
struct Parsed {
    tera: Tera,
    /// The page templates rendered in two parts, frame and content ([`frame`]), by name.
    splits: HashMap<String, Split>,
    /// The split page templates whose whole text `tera` does not hold ([`Theme::tera_for`]).
    deferred: Deferred,
    /// `tera` with the deferred templates, made the first time a page of one is rendered
    /// whole.
    whole: OnceLock<std::result::Result<Tera, Problem>>,
}

/// The templates last parsed, by a hash of what they were parsed from: `serve` keeps one for
/// its rebuilds, and parses again only when a template, its origin or the words changed.
#[derive(Default)]
pub struct TemplateCache(Mutex<Option<(u128, Arc<Parsed>)>>);

impl TemplateCache {
    /// The templates parsed from what `key` hashes, parsed by `parse` unless they are the last.
    fn get(&self, key: u128, parse: impl FnOnce() -> Result<Parsed>) -> Result<Arc<Parsed>> {
        let mut last = self.0.lock().expect("no panic holds the lock");
        if let Some((known, parsed)) = &*last
            && *known == key
        {
            log::debug!("the templates and the words are unchanged: not parsed again");
            return Ok(Arc::clone(parsed));
        }
        let parsed = Arc::new(parse()?);
        *last = Some((key, Arc::clone(&parsed)));
        Ok(parsed)
    }
}

impl std::fmt::Debug for TemplateCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TemplateCache")
    }
}

impl Theme {
    /// The templates of `user_dir` over the built-in ones, every one of them, speaking the
    /// language of `texts` (loaded by the command, which hands the same texts to the view).
    pub fn load(user_dir: Option<&Path>, texts: Arc<Texts>) -> Result<Self> {
        Self::load_with(user_dir, texts, &[], None, &TemplateCache::default())
    }

    /// [`Theme::load`] for a site's build: the user's templates, those content pages name
    /// among them, and of the built-in ones only those the build renders (`rendered`, all
    /// when `None`) and what these name (parsing is most of a small site's build); parsed
    /// again only when `cache` does not hold them.
    pub fn load_with(
        user_dir: Option<&Path>,
        texts: Arc<Texts>,
        page_templates: &[PageTemplate],
        rendered: Option<&[&str]>,
        cache: &TemplateCache,
    ) -> Result<Self> {
        let mut static_files: Vec<(String, Vec<u8>)> = STATIC_FILES
            .iter()
            .map(|(name, bytes)| (name.to_string(), bytes.to_vec()))
            .collect();
        let sources = gather_sources(user_dir, page_templates, rendered, &mut static_files)?;
        let parsed = cache.get(fingerprint(&texts, &sources), || parse(&sources, &texts))?;
        Ok(Self {
            parsed,
            static_files,
            sources,
            texts,
        })
    }

    /// The templates with every deferred page template parsed whole: `tera` itself when none
    /// is deferred or `template` is not one.
    fn tera_for(&self, template: &str) -> Result<&Tera> {
        let parsed = &self.parsed;
        if !parsed.deferred.iter().any(|(name, _)| name == template) {
            return Ok(&parsed.tera);
        }
        let whole = parsed.whole.get_or_init(|| {
            let mut tera = parsed.tera.clone();
            tera.add_raw_templates(parsed.deferred.clone())
                .map_err(|error| load_error(&error, &self.sources))?;
            Ok(tera)
        });
        whole.as_ref().map_err(|problem| failed(problem.clone()))
    }

    /// The words of the pages, for what the view writes itself.
    pub fn texts(&self) -> Arc<Texts> {
        Arc::clone(&self.texts)
    }

    pub fn render(&self, template: &str, context: &tera::Context) -> Result<String> {
        let rendered = self.render_part(template, context)?;
        // Whatever the data, the config or the theme put in, the file stays well-formed.
        Ok(
            if template.ends_with(".html") || template.ends_with(".xml") {
                crate::sanitize::chars::strip_forbidden(rendered)
            } else {
                rendered
            },
        )
    }

    /// How `template` is rendered in two parts, if it can be ([`frame`]).
    pub fn split(&self, template: &str) -> Option<&Split> {
        self.parsed.splits.get(template)
    }

    /// A part of a page ([`Theme::split`]), as Tera renders it: its forbidden characters are
    /// removed from the whole page it goes into.
    pub fn render_part(&self, template: &str, context: &tera::Context) -> Result<String> {
        let tera = self.tera_for(template)?;
        panics::guarded(template, || tera.render(template, context)).map_err(|error| {
            let message = tera_errors::full_text(&error);
            let located = self
                .locate(&message)
                .or_else(|| self.locate_text_key(&message));
            // Tera's message may quote a line of the template or a value from a catalogue.
            let message = quote::cut_lines(&message);
            match located {
                Some(problem) => failed(Problem {
                    message: format!("{}: {message}", problem.message),
                    ..problem
                }),
                None => anyhow::anyhow!("could not render template {template}: {message}"),
            }
        })
    }

    /// For an undefined variable, the file and line where the variable is used (Tera's render
    /// errors carry no line).
    fn locate(&self, message: &str) -> Option<Problem> {
        let (variable, template) = tera_errors::missing_variable(message)?;
        let TemplateSource { text, origin, .. } =
            self.sources.iter().find(|source| source.name == template)?;
        let line = text.lines().position(|line| line.contains(variable))? + 1;
        let message = format!("variable `{}` is not defined", quote::short(variable));
        Some(Problem::at(origin, line, None, message))
    }

    /// For a `t()` call naming a key no catalogue has, the file and line of the call.
    fn locate_text_key(&self, message: &str) -> Option<Problem> {
        let (template, rest) = tera_errors::failed_function(message, UNKNOWN_KEY)?;
        let key = rest.split('`').next()?;
        let quoted = format!("\"{key}\"");
        // The call may be in a template the page extends, includes or imports.
        let (text, origin) = self
            .sources
            .iter()
            .filter(|source| source.text.contains(&quoted))
            .min_by_key(|source| source.name != template)
            .map(|source| (&source.text, &source.origin))?;
        let line = text.lines().position(|line| line.contains(&quoted))? + 1;
        Some(unknown_key(origin, line, key, &self.texts))
    }

    /// The static files' paths in the site: `static/style.css`.
    pub fn static_paths(&self) -> Vec<String> {
        self.static_files
            .iter()
            .map(|(name, _)| outputs::STATIC.at(name))
            .collect()
    }

    pub fn static_files(&self) -> &[(String, Vec<u8>)] {
        &self.static_files
    }
}

/// A built-in template with each comment's text left out, its delimiters (and so its
/// whitespace control) and line breaks kept: the comments are a seventh of the built-in
/// templates' text, and parsing them letter by letter a share of every build, for nothing it
/// makes. A theme's own templates are parsed as they are written.
fn blank_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("{#") {
        let Some(length) = rest[start..].find("#}") else {
            break;
        };
        let (comment, after) = rest[start..].split_at(length + 2);
        out.push_str(&rest[..start]);
        rest = after;
        if comment.len() < 6 {
            out.push_str(comment);
            continue;
        }
        out.push_str(if comment.starts_with("{#-") {
            "{#-"
        } else {
            "{#"
        });
        out.extend(comment.matches('\n'));
        out.push_str(if comment.ends_with("-#}") {
            " -#}"
        } else {
            " #}"
        });
    }
    out.push_str(rest);
    out
}

/// The templates of `sources` parsed, checked against the limits and the catalogue (`texts`),
/// and the page templates that may be split, split.
fn parse(sources: &[TemplateSource], texts: &Arc<Texts>) -> Result<Parsed> {
    let mut tera = new_tera(texts);
    let too_deep: Vec<Problem> = (sources.iter().filter(|source| !source.built_in))
        .filter_map(|source| {
            let line = crate::render::limits::too_deep(&source.text)?;
            let message = format!(
                "blocks, brackets and operators nest more than {} deep here, which would overflow \
                 Tera's stack: nest less deeply (a `set` or a macro can hold the inner part)",
                crate::render::limits::MAX_NESTING
            );
            Some(Problem::at(&source.origin, line, None, message))
        })
        .collect();
    if !too_deep.is_empty() {
        return Err(Problems::new(too_deep).into());
    }
    // Page templates are also registered split in two; which of them are used split is
    // decided once the chain each extends is parsed.
    let (split_names, split_texts) = split_pages(sources);
    let deferred = deferred(sources, &split_names);
    let all = sources
        .iter()
        .filter(|source| !deferred.iter().any(|(name, _)| *name == source.name))
        .map(|source| (source.name.as_str(), source.text.as_str()))
        .chain(
            split_texts
                .iter()
                .map(|(name, text)| (name.as_str(), text.as_str())),
        );
    (tera.add_raw_templates(all)).map_err(|error| failed(load_error(&error, sources)))?;
    if let Err((name, error)) = crate::render::limits::check(&tera) {
        let origin = sources
            .iter()
            .find(|source| source.name == name)
            .map_or(name.as_str(), |source| source.origin.as_str());
        let problem = Problem::in_file(origin, quote::cut_lines(&error.to_string()));
        return Err(failed(problem));
    }
    check_text_keys(sources, texts)?;
    tera.autoescape_on(vec![".html", ".xml"]);
    tera.set_escape_fn(escape_html);
    let (splits, deferred) = keep_splits(&mut tera, sources, split_names, deferred)?;
    let mut split_names: Vec<&str> = splits.keys().map(String::as_str).collect();
    split_names.sort_unstable();
    log::debug!(
        "templates whose frame is rendered once for the pages that share it: {}",
        if split_names.is_empty() {
            "none".to_owned()
        } else {
            split_names.join(", ")
        }
    );
    Ok(Parsed {
        tera,
        splits,
        deferred,
        whole: OnceLock::new(),
    })
}

/// A Tera with what the theme's templates may call: the catalogue's texts (`t`), the
/// site's language and locale, and the limits of [`crate::render::limits`].
fn new_tera(texts: &Arc<Texts>) -> Tera {
    let mut tera = Tera::default();
    crate::render::limits::restrict(&mut tera);
    tera.register_function("t", Translate(Arc::clone(texts)));
    let tag = texts.language.clone();
    tera.register_function("language", move |_: &HashMap<String, tera::Value>| {
        Ok(tera::Value::String(tag.clone()))
    });
    // Empty for a language whose catalogue names no territory: no og:locale then.
    let locale = texts.locale.clone().unwrap_or_default();
    tera.register_function("locale", move |_: &HashMap<String, tera::Value>| {
        Ok(tera::Value::String(locale.clone()))
    });
    tera
}

/// Every template of the theme: the user's (with their static files added to
/// `static_files`), the built-in ones the user has not replaced, and, for a theme that names
/// one, each built-in under `builtin/`; with `rendered`, of the built-in ones only those it
/// names and those they name in turn ([`named_from`]).
fn gather_sources(
    user_dir: Option<&Path>,
    page_templates: &[PageTemplate],
    rendered: Option<&[&str]>,
    static_files: &mut [(String, Vec<u8>)],
) -> Result<Vec<TemplateSource>> {
    let user_templates = match user_dir {
        Some(dir) => read_theme_folder(dir, page_templates, static_files)?,
        None => Vec::new(),
    };
    check_page_templates(page_templates, &user_templates, user_dir)?;
    // Each built-in also under `builtin/`, so that a theme's template can extend the one it
    // replaces (Tera cannot extend a template of the same name) and fill a single block.
    // Only for a theme that names one, so that the others' builds parse no template twice.
    let wanted = user_templates
        .iter()
        .any(|user| user.text.contains(BUILTIN_PREFIX));
    let prefixes = [Some(""), wanted.then_some(BUILTIN_PREFIX)];
    let all: Vec<TemplateSource> = (prefixes.into_iter().flatten())
        .flat_map(|prefix| {
            TEMPLATES.iter().map(move |(name, text)| TemplateSource {
                name: format!("{prefix}{name}"),
                text: blank_comments(text),
                origin: format!("built-in {name}"),
                built_in: true,
            })
        })
        .filter(|source| !user_templates.iter().any(|user| user.name == source.name))
        .collect();
    Ok(match rendered {
        Some(rendered) => named_from(user_templates, all, rendered),
        None => user_templates.into_iter().chain(all).collect(),
    })
}

/// The user's templates, and of the built-in ones (`built_in`) those `rendered` names and
/// those these templates name, in turn: Tera's `extends`, `include` and `import` take a
/// literal name, in one of its three quotes.
fn named_from(
    user: Vec<TemplateSource>,
    built_in: Vec<TemplateSource>,
    rendered: &[&str],
) -> Vec<TemplateSource> {
    let (mut kept, mut rest): (Vec<_>, Vec<_>) =
        (built_in.into_iter()).partition(|source| rendered.contains(&source.name.as_str()));
    kept.splice(0..0, user);
    loop {
        let named = |source: &TemplateSource| {
            let quoted = ['"', '\'', '`'].map(|quote| format!("{quote}{}{quote}", source.name));
            (kept.iter()).any(|k| quoted.iter().any(|quoted| k.text.contains(quoted.as_str())))
        };
        let (more, others): (Vec<_>, Vec<_>) = rest.into_iter().partition(named);
        if more.is_empty() {
            return kept;
        }
        kept.extend(more);
        rest = others;
    }
}

/// The page templates that may be rendered in two parts ([`frame`]), the theme's and the
/// built-in ones alike, and the templates of their parts, to register.
fn split_pages(sources: &[TemplateSource]) -> (Vec<String>, Vec<(String, String)>) {
    let mut splits = Vec::new();
    let mut texts = Vec::new();
    let pages = (sources.iter())
        .filter(|s| s.name.ends_with(".html") && !s.name.starts_with(BUILTIN_PREFIX));
    for source in pages {
        if let Some(parts) = frame::split_sources(&source.name, &source.text) {
            splits.push(source.name.clone());
            texts.extend(parts);
        }
    }
    if !splits.is_empty() {
        let parent = (frame::CONTENT_PARENT, frame::CONTENT_PARENT_TEXT);
        texts.push((parent.0.to_owned(), parent.1.to_owned()));
    }
    (splits, texts)
}

/// The split page templates left unparsed for now. A split page template is parsed as its
/// content, and its frame extends layout.html: its whole text is needed only to render a page
/// whole, which a build does only when a frame cannot be used or to name a template in an
/// error. It is left unparsed then (a tenth of the parse), unless another template names it
/// (`section.html` extends `page.html`), or the split is not kept ([`keep_splits`]).
fn deferred(sources: &[TemplateSource], splits: &[String]) -> Vec<(String, String)> {
    sources
        .iter()
        .filter(|source| splits.contains(&source.name))
        .filter(|source| {
            let quoted = format!("\"{}\"", source.name);
            !(sources.iter()).any(|other| other.name != source.name && other.text.contains(&quoted))
        })
        .map(|source| (source.name.clone(), source.text.clone()))
        .collect()
}

/// The splits of the page templates `names` whose content holds the page template's blocks
/// and whose frame's chain (layout.html, base.html) is built in; parses the deferred templates
/// of the others, which are rendered whole every time; and returns the deferred templates
/// left.
fn keep_splits(
    tera: &mut Tera,
    sources: &[TemplateSource],
    names: Vec<String>,
    deferred: Deferred,
) -> Result<(HashMap<String, Split>, Deferred)> {
    let built_in = |name: &str| sources.iter().any(|s| s.name == name && s.built_in);
    let split = |name: String| {
        let [frame, content] = frame::names(&name);
        let content = tera
            .get_template(&content)
            .ok()
            .filter(|c| frame::splittable(c))?;
        let chain = &tera.get_template(&frame).ok()?.parents;
        let split = Split::new(content);
        chain
            .iter()
            .all(|parent| built_in(parent))
            .then_some((name, split))
    };
    let splits: HashMap<String, Split> = names.into_iter().filter_map(split).collect();
    let (kept, whole_now): (Vec<_>, Vec<_>) = deferred
        .into_iter()
        .partition(|(name, _)| splits.contains_key(name));
    if !whole_now.is_empty() {
        (tera.add_raw_templates(whole_now)).map_err(|error| failed(load_error(&error, sources)))?;
    }
    Ok((splits, kept))
}

/// A hash of the program's version, the texts and every template with where it came from
/// (which decides which are built in, and the errors): what the parsed templates are made of.
fn fingerprint(texts: &Texts, sources: &[TemplateSource]) -> u128 {
    use std::hash::Hash;
    // A text is hashed with an end mark, so that no two lists of texts hash the same bytes.
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    (env!("CARGO_PKG_VERSION"), format!("{texts:?}")).hash(&mut hasher);
    for source in sources {
        (&source.origin, &source.name, &source.text).hash(&mut hasher);
    }
    hasher.digest128()
}

/// Every `t(key="...")` with a literal key names a text the catalogues have: a mistyped key
/// stops the build when the theme loads, naming the file and line, even in a template the
/// build would render only for some data.
fn check_text_keys(sources: &[TemplateSource], texts: &Texts) -> Result<()> {
    const CALL: &str = "t(key=\"";
    for TemplateSource { text, origin, .. } in sources {
        for (number, line) in text.lines().enumerate() {
            for (at, _) in line.match_indices(CALL) {
                // Part of a longer name (`get_t(key=...)`) is another function.
                let before = line[..at].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    continue;
                }
                let rest = &line[at + CALL.len()..];
                let Some(end) = rest.find('"') else { continue };
                let key = &rest[..end];
                // A key built with `~` is checked when it is rendered.
                if rest[end + 1..].trim_start().starts_with('~') {
                    continue;
                }
                let known =
                    texts.get(key).is_some() || texts.get(&format!("{key}.other")).is_some();
                if !known {
                    return Err(failed(unknown_key(origin, number + 1, key, texts)));
                }
            }
        }
    }
    Ok(())
}

/// A `t()` call at `line` of the template at `origin` naming a key no catalogue has.
fn unknown_key(origin: &str, line: usize, key: &str, texts: &Texts) -> Problem {
    let message = format!(
        "t(): no catalogue has the text key `{}` (language {})",
        quote::short(key),
        texts.language
    );
    Problem::at(origin, line, None, message)
}

/// `problem` alone, as the error the build stops with.
fn failed(problem: Problem) -> anyhow::Error {
    Problems::new(vec![problem]).into()
}

/// Tera's error when the templates load, in the theme's words. A syntax error (pest's message
/// quotes the whole line, however long) becomes `file:line:column`, what was expected, and the
/// part of the line around the column; anything else is Tera's message, naming the file,
/// each line cut short.
fn load_error(error: &tera::Error, sources: &[TemplateSource]) -> Problem {
    let message = tera_errors::full_text(error);
    let source = sources
        .iter()
        .find(|source| tera_errors::names_template(&message, &source.name));
    let origin = source.map_or("a template", |source| source.origin.as_str());
    match (tera_errors::syntax(error), source) {
        (Some(syntax), Some(source)) => {
            let (line, column) = (syntax.line, syntax.column);
            let quoted = quote::pointing(&source.text, line, column)
                .map(|q| format!("\n{q}"))
                .unwrap_or_default();
            let message = format!("does not parse: {}{quoted}", quote::short(&syntax.expected));
            Problem::at(origin, line, Some(column), message)
        }
        _ => Problem::in_file(
            origin,
            format!("does not parse: {}", quote::cut_lines(&message)),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::{PageTemplate, TemplateCache, Texts, Theme};

    #[test]
    fn a_built_in_templates_comments_are_blanked_keeping_their_lines_and_whitespace_control() {
        let text = "a\n{#- one\ntwo -#}\nb {# three #} c {#-#} {#- four\n#}\n";
        let blank = super::blank_comments(text);
        assert_eq!(blank, "a\n{#-\n -#}\nb {# #} c {#-#} {#-\n #}\n");
        assert_eq!(blank.lines().count(), text.lines().count());
    }
    use crate::settings::Sections;
    use std::path::Path;
    use std::sync::Arc;

    fn texts() -> Arc<Texts> {
        Arc::new(Texts::load("en", None).unwrap())
    }

    /// Whether `theme` parsed the template `name`.
    fn parsed(theme: &Theme, name: &str) -> bool {
        theme.parsed.tera.get_template(name).is_ok()
    }

    /// The theme of `dir` as a site's build with every section, a site's address and
    /// content pages loads it, with `cache`.
    fn site_theme(dir: Option<&Path>, pages: &[PageTemplate], cache: &TemplateCache) -> Theme {
        let rendered = crate::render::site::templates_rendered(&Sections::default(), true, true);
        Theme::load_with(dir, texts(), pages, Some(&rendered), cache).unwrap()
    }

    #[test]
    fn a_site_build_parses_the_templates_it_renders_and_those_they_name_and_no_other() {
        let reports = [
            "report.css",
            "report-layout.html",
            "report-training.html",
            "report-roster.html",
            "report-activity.html",
        ];
        let all = Theme::load(None, texts()).unwrap();
        assert!(reports.iter().all(|name| parsed(&all, name)));
        let cache = TemplateCache::default();
        let full = site_theme(None, &[], &cache);
        assert!(reports.iter().all(|name| !parsed(&full, name)));
        for name in [
            "base.html",
            "macros.html",
            "live-home.html",
            "sitemap.xml",
            "page.html",
        ] {
            assert!(parsed(&full, name), "{name}");
        }
        // No site address, no content, no live page: no sitemap, feeds, content templates,
        // nor the live page's and the home page's live block.
        let sections = Sections {
            live: false,
            ..Sections::default()
        };
        let rendered = crate::render::site::templates_rendered(&sections, false, false);
        let small = Theme::load_with(None, texts(), &[], Some(&rendered), &cache).unwrap();
        for name in [
            "sitemap.xml",
            "feed.xml",
            "whats-new.xml",
            "page.html",
            "live.html",
        ] {
            assert!(!parsed(&small, name), "{name}");
        }
        assert!(parsed(&small, "index.html") && parsed(&small, "base.html"));

        // A theme's own report template is still parsed (so a build reports its errors),
        // with the built-in one it includes.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("report-roster.html"), "{{ broken").unwrap();
        let rendered = crate::render::site::templates_rendered(&Sections::default(), true, true);
        let error = Theme::load_with(Some(dir.path()), texts(), &[], Some(&rendered), &cache)
            .err()
            .expect("a broken report template fails the site's build");
        assert!(error.to_string().contains("report-roster.html"), "{error}");
        let include = "{% include 'report.css' %}";
        std::fs::write(dir.path().join("report-roster.html"), include).unwrap();
        let themed = site_theme(Some(dir.path()), &[], &cache);
        assert!(parsed(&themed, "report-roster.html") && parsed(&themed, "report.css"));
        assert!(!parsed(&themed, "report-training.html"));
    }

    #[test]
    fn a_theme_template_nested_deeper_than_the_stack_allows_is_refused_at_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let deep = "{% if true %}".repeat(5_000) + &"{% endif %}".repeat(5_000);
        std::fs::write(dir.path().join("404.html"), format!("<p>\n{deep}")).unwrap();
        std::fs::write(dir.path().join("page.html"), deep).unwrap();
        let indexes = format!("{{{{ {}0{} }}}}", "a[".repeat(5_000), "]".repeat(5_000));
        std::fs::write(dir.path().join("section.html"), indexes).unwrap();
        let sum = format!("{{{{ {} }}}}", vec!["1"; 20_000].join(" + "));
        std::fs::write(dir.path().join("roster.html"), sum).unwrap();
        let cache = TemplateCache::default();
        let error = Theme::load_with(Some(dir.path()), texts(), &[], None, &cache)
            .err()
            .expect("refused, not a crash");
        let error = error.to_string();
        assert!(
            [
                "404.html:2",
                "page.html:1",
                "section.html:1",
                "roster.html:1"
            ]
            .iter()
            .all(|at| error.contains(at)),
            "{error}"
        );
        assert!(error.contains("nest more than 64 deep"), "{error}");
    }

    #[test]
    fn the_templates_are_parsed_again_only_when_they_or_the_words_change() {
        let cache = TemplateCache::default();
        let first = site_theme(None, &[], &cache);
        let again = site_theme(None, &[], &cache);
        assert!(Arc::ptr_eq(&first.parsed, &again.parsed));
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("404.html"), "Lost").unwrap();
        let themed = site_theme(Some(dir.path()), &[], &cache);
        assert!(!Arc::ptr_eq(&again.parsed, &themed.parsed));
        assert!(Arc::ptr_eq(
            &themed.parsed,
            &site_theme(Some(dir.path()), &[], &cache).parsed
        ));
        std::fs::write(dir.path().join("404.html"), "Gone").unwrap();
        let edited = site_theme(Some(dir.path()), &[], &cache);
        assert!(!Arc::ptr_eq(&themed.parsed, &edited.parsed));
        let mut spanish = Texts::load("es", None).unwrap();
        spanish.rename("nav.roster", "Plantilla");
        let rendered = crate::render::site::templates_rendered(&Default::default(), true, true);
        let dir = Some(dir.path());
        let other = Theme::load_with(dir, Arc::new(spanish), &[], Some(&rendered), &cache).unwrap();
        assert!(!Arc::ptr_eq(&edited.parsed, &other.parsed));
    }

    #[test]
    fn a_split_page_template_is_parsed_whole_only_when_a_page_needs_it() {
        let site = site_theme(None, &[], &TemplateCache::default());
        assert!(site.split("event.html").is_some());
        assert!(!parsed(&site, "event.html"), "event.html was parsed whole");
        // A template of more than one block is not split, and its parts are not parsed.
        for name in ["404.html", "documents.html", "whats-new.html", "page.html"] {
            assert!(site.split(name).is_none(), "{name}");
            assert!(parsed(&site, name), "{name}");
            assert!(
                !parsed(&site, &format!("__split__/content/{name}")),
                "{name}"
            );
        }
        // A page rendered whole (its frame unusable, or an error to name) gets the template.
        let context = tera::Context::from_value(serde_json::json!({
            "site": {"name": "Test", "menu": [], "languages": []},
            "root": "../",
            "page": {"title": "Lost", "url": "404.html", "section": ""},
        }))
        .unwrap();
        assert!(site.parsed.whole.get().is_none());
        // The page's values are missing here, not the template: it renders as far as base.html.
        let error = site.render("event.html", &context).unwrap_err().to_string();
        assert!(error.contains("Variable `site."), "{error}");
        assert!(
            !error.contains("Template 'event.html' not found"),
            "{error}"
        );
        assert!(site.parsed.whole.get().is_some_and(Result::is_ok));

        // A theme's template that extends one keeps it whole.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("special.html"),
            "{% extends \"event.html\" %}",
        )
        .unwrap();
        let named = [PageTemplate {
            name: "special.html".to_owned(),
            origin: "content/special.md:2".to_owned(),
        }];
        let themed = site_theme(Some(dir.path()), &named, &TemplateCache::default());
        assert!(parsed(&themed, "event.html"));
    }
}
