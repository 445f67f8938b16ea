//! Templates and static files: built into the binary, each replaceable by a file of the same
//! name in the user's templates folder (`--templates DIR`: templates at its top level, static
//! files under `DIR/static/`).
//!
//! As in Zola, the user's templates are loaded first and the built-in ones added only where
//! the user has none, so a user file always wins, one file at a time.

use crate::fetch::site_files::read_plain;
use crate::sanitize::quote;
use crate::view::outputs;
use crate::view::texts::{self, Texts};
use anyhow::{Context, Result};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tera::Tera;

/// Built-in templates, by name.
macro_rules! embedded {
    ($macro:ident, $folder:literal, $($name:literal),* $(,)?) => {
        &[$(($name, $macro!(concat!(env!("CARGO_MANIFEST_DIR"), "/", $folder, "/", $name)))),*]
    };
}

pub const TEMPLATES: &[(&str, &str)] = embedded!(
    include_str,
    "templates",
    "base.html",
    "layout.html",
    "macros.html",
    "index.html",
    "roster.html",
    "event_lists.html",
    "event_list_page.html",
    "events.html",
    "division.html",
    "event.html",
    "documents.html",
    "page.html",
    "section.html",
    "404.html",
    "sitemap.xml",
    "feed.xml",
    "report.css",
    "report-training.html",
    "report-roster.html",
    "report-index.html",
);

/// Built-in static files, by path below `static/`.
pub const STATIC_FILES: &[(&str, &[u8])] = embedded!(
    include_bytes,
    "static",
    "style.css",
    "local-time.js",
    "icon.svg",
);

pub struct Theme {
    tera: Tera,
    static_files: Vec<(String, Vec<u8>)>,
    /// Every context rendered, when recording (for the generated template documentation).
    recorded: Option<std::sync::Mutex<Vec<(String, serde_json::Value)>>>,
    /// Each template's text and where it came from, to point errors at a file and line.
    sources: Vec<(String, String, String)>,
    /// The words of the pages, in the site's language.
    texts: Arc<Texts>,
}

/// A template a content page names in its front matter (`template = "visiting.html"`).
#[derive(Clone, Debug)]
pub struct PageTemplate {
    pub name: String,
    /// The file and line naming it, for errors.
    pub origin: String,
}

impl Theme {
    /// The templates of `user_dir` over the built-in ones, speaking `language` (a built-in
    /// language or one the folder's `i18n/` has a catalogue for).
    pub fn load(user_dir: Option<&Path>, language: &str) -> Result<Self> {
        Self::load_with(user_dir, language, &[])
    }

    /// [`Theme::load`], with the further templates that content pages name.
    pub fn load_with(
        user_dir: Option<&Path>,
        language: &str,
        page_templates: &[PageTemplate],
    ) -> Result<Self> {
        let mut tera = Tera::default();
        crate::render::limits::restrict(&mut tera);
        let texts = Arc::new(Texts::load(language, user_dir)?);
        tera.register_function("t", Translate(Arc::clone(&texts)));
        let tag = texts.language.clone();
        tera.register_function("language", move |_: &HashMap<String, tera::Value>| {
            Ok(tera::Value::String(tag.clone()))
        });
        let mut user_templates = Vec::new();
        let mut static_files: Vec<(String, Vec<u8>)> = STATIC_FILES
            .iter()
            .map(|(name, bytes)| (name.to_string(), bytes.to_vec()))
            .collect();
        if let Some(dir) = user_dir {
            if !dir.is_dir() {
                anyhow::bail!("templates folder {} does not exist", dir.display());
            }
            // Read besides the built-in names: the templates content pages name, and the
            // catalogues.
            let named: BTreeSet<String> = page_templates.iter().map(|t| t.name.clone()).collect();
            let catalogues: BTreeSet<String> = texts::theme_catalogues(Some(dir))
                .into_iter()
                .map(|(language, _)| format!("i18n/{language}.toml"))
                .collect();
            warn_ignored(dir, &named.union(&catalogues).cloned().collect());
            // Links are left out (`warn_ignored` has named them): the built-in file stands in.
            let builtin_names = TEMPLATES.iter().map(|(name, _)| name.to_string());
            let extra_names = named
                .iter()
                .filter(|name| !TEMPLATES.iter().any(|(builtin, _)| builtin == *name))
                .cloned();
            for name in extra_names.chain(builtin_names) {
                if let Some(bytes) = read_plain(dir, &name)? {
                    let path = dir.join(&name);
                    let text = String::from_utf8(bytes).map_err(|_| {
                        anyhow::anyhow!(
                            "could not read template {}: it is not UTF-8 text",
                            path.display()
                        )
                    })?;
                    user_templates.push((name, text, path.display().to_string()));
                }
            }
            for (name, bytes) in &mut static_files {
                if let Some(theirs) = read_plain(dir, &format!("static/{name}"))? {
                    *bytes = theirs;
                }
            }
        }
        for template in page_templates {
            let known = TEMPLATES.iter().any(|(name, _)| *name == template.name)
                || user_templates
                    .iter()
                    .any(|(name, ..)| *name == template.name);
            if !known {
                match user_dir {
                    Some(dir) => anyhow::bail!(
                        "{}: template = {:?}: there is no such file in the templates folder {}",
                        template.origin,
                        template.name,
                        dir.display()
                    ),
                    None => anyhow::bail!(
                        "{}: template = {:?}: no templates folder is set (templates = \"templates\" in vatcar-site.toml)",
                        template.origin,
                        template.name
                    ),
                }
            }
        }
        let builtin: Vec<(String, String, String)> = TEMPLATES
            .iter()
            .filter(|(name, _)| !user_templates.iter().any(|(user, ..)| user == name))
            .map(|(name, text)| {
                (
                    name.to_string(),
                    text.to_string(),
                    format!("built-in {name}"),
                )
            })
            .collect();
        let sources: Vec<(String, String, String)> =
            user_templates.into_iter().chain(builtin).collect();
        let all = sources
            .iter()
            .map(|(name, text, _)| (name.as_str(), text.as_str()));
        if let Err(error) = tera.add_raw_templates(all) {
            anyhow::bail!(load_error(&error, &sources));
        }
        if let Err((name, error)) = crate::render::limits::check(&tera) {
            let origin = sources
                .iter()
                .find(|(source, ..)| *source == name)
                .map_or(name.as_str(), |(_, _, origin)| origin.as_str());
            anyhow::bail!("{origin}: {}", quote::cut_lines(&error.to_string()));
        }
        check_text_keys(&sources, &texts)?;
        tera.autoescape_on(vec![".html", ".xml"]);
        tera.set_escape_fn(escape_html);
        Ok(Self {
            tera,
            static_files,
            recorded: None,
            sources,
            texts,
        })
    }

    /// The words of the pages, for what the view writes itself.
    pub fn texts(&self) -> Arc<Texts> {
        Arc::clone(&self.texts)
    }

    /// The built-in theme, keeping a copy of every context it renders.
    pub fn recording() -> Result<Self> {
        let mut theme = Self::load(None, texts::DEFAULT_LANGUAGE)?;
        theme.recorded = Some(std::sync::Mutex::new(Vec::new()));
        Ok(theme)
    }

    /// The contexts rendered so far, by template name, when recording.
    pub fn recorded(&self) -> Vec<(String, serde_json::Value)> {
        self.recorded
            .as_ref()
            .map(|r| r.lock().expect("not poisoned").clone())
            .unwrap_or_default()
    }

    pub fn render(&self, template: &str, context: &tera::Context) -> Result<String> {
        if let Some(recorded) = &self.recorded {
            let json = context.clone().into_json();
            recorded
                .lock()
                .expect("not poisoned")
                .push((template.to_owned(), json));
        }
        let rendered = self.tera.render(template, context).map_err(|error| {
            let message = tera_error(error).to_string();
            let located = self
                .locate(&message)
                .or_else(|| self.locate_text_key(&message));
            // Tera's message may quote a line of the template or a value from a catalogue.
            let message = quote::cut_lines(&message);
            match located {
                Some(place) => anyhow::anyhow!("{}: {message}", quote::short(&place)),
                None => anyhow::anyhow!("could not render template {template}: {message}"),
            }
        })?;
        // Whatever the data, the config or the theme put in, the file stays well-formed.
        Ok(
            if template.ends_with(".html") || template.ends_with(".xml") {
                crate::sanitize::chars::strip_forbidden(rendered)
            } else {
                rendered
            },
        )
    }

    /// For "Variable `x.y` not found ... while rendering 'name'", the file and line where the
    /// variable is used (Tera's render errors carry no line).
    fn locate(&self, message: &str) -> Option<String> {
        let variable = message.split("Variable `").nth(1)?.split('`').next()?;
        let template = message
            .rsplit("while rendering '")
            .next()?
            .split('\'')
            .next()?;
        let (_, text, origin) = self.sources.iter().find(|(name, ..)| name == template)?;
        let line = text.lines().position(|line| line.contains(variable))? + 1;
        Some(format!(
            "{origin}:{line}: variable `{variable}` is not defined"
        ))
    }

    /// For a `t()` call naming a key no catalogue has, the file and line of the call.
    fn locate_text_key(&self, message: &str) -> Option<String> {
        let key = message.split(UNKNOWN_KEY).nth(1)?.split('`').next()?;
        let template = message
            .split("Failed to render '")
            .nth(1)?
            .split('\'')
            .next()?;
        let quoted = format!("\"{key}\"");
        // The call may be in a template the page extends, includes or imports.
        let (text, origin) = self
            .sources
            .iter()
            .filter(|(_, text, _)| text.contains(&quoted))
            .min_by_key(|(name, ..)| name != template)
            .map(|(_, text, origin)| (text, origin))?;
        let line = text.lines().position(|line| line.contains(&quoted))? + 1;
        Some(format!(
            "{origin}:{line}: t(): no catalogue has the text key `{}` (language {})",
            quote::short(key),
            self.texts.language
        ))
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

const UNKNOWN_KEY: &str = "unknown text key `";

/// `t(key="...", n=..., name=value...)`: the text of `key` in the site's language, `{name}`
/// filled from the arguments; with `n`, the form of the key that count takes (`key.one` or
/// `key.other`). The text is plain and escaped like any value, except under keys ending in
/// `_html`: those are markup from the catalogue, with their arguments escaped here, printed
/// with `| safe`. The catalogue stays in the function: no page's context carries it.
struct Translate(Arc<Texts>);

impl tera::Function for Translate {
    fn call(&self, args: &HashMap<String, tera::Value>) -> tera::Result<tera::Value> {
        let Some(key) = args.get("key").and_then(tera::Value::as_str) else {
            return Err(tera::Error::msg(
                "t() needs the text's key as text: t(key=\"nav.home\")",
            ));
        };
        let count = match args.get("n") {
            None => None,
            Some(n) => Some(n.as_i64().ok_or_else(|| {
                tera::Error::msg(format!(
                    "t(key=\"{key}\"): n must be a whole number, found {n}"
                ))
            })?),
        };
        let full = match count {
            Some(n) => self.0.plural_key(key, n),
            None => key.to_owned(),
        };
        let Some(text) = self.0.get(&full) else {
            return Err(tera::Error::msg(format!(
                "{UNKNOWN_KEY}{key}`{}",
                if count.is_some() {
                    " (with n: `.one` and `.other`)"
                } else {
                    ""
                }
            )));
        };
        let html = key.ends_with("_html");
        let filled = texts::fill(text, |name| {
            let value = match args.get(name)? {
                tera::Value::String(text) => text.clone(),
                tera::Value::Null => String::new(),
                other => other.to_string(),
            };
            Some(if html { escape_html(&value) } else { value })
        })
        .map_err(|missing| {
            tera::Error::msg(format!(
                "t(key=\"{key}\"): the text {text:?} needs the argument `{missing}`"
            ))
        })?;
        Ok(tera::Value::String(filled))
    }
}

/// Every `t(key="...")` with a literal key names a text the catalogues have: a mistyped key
/// stops the build when the theme loads, naming the file and line, even in a template the
/// build would render only for some data.
fn check_text_keys(sources: &[(String, String, String)], texts: &Texts) -> Result<()> {
    const CALL: &str = "t(key=\"";
    for (_, text, origin) in sources {
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
                    anyhow::bail!(
                        "{origin}:{}: t(): no catalogue has the text key `{}` (language {})",
                        number + 1,
                        quote::short(key),
                        texts.language
                    );
                }
            }
        }
    }
    Ok(())
}

/// A file or folder in the user's templates folder that no build reads.
#[derive(Debug, PartialEq, Eq)]
pub struct Ignored {
    /// The file or folder, below the templates folder as the user named it.
    pub path: PathBuf,
    pub folder: bool,
    /// Why it is not read, and what follows.
    pub reason: String,
}

impl std::fmt::Display for Ignored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let slash = if self.folder { "/" } else { "" };
        write!(f, "{}{slash} {}", self.path.display(), self.reason)
    }
}

/// Why a link (or a FIFO, a device) in the templates folder is not read, as the site folder's
/// `static/` says it.
const LINK_LEFT_OUT: &str = "is a link or a special file; only plain files in the templates folder are read, so it is left out";

/// Warns once for each file in the templates folder that the build will not read (see
/// [`ignored_files`]): a theme file with a mistyped or made-up name otherwise changes nothing,
/// silently.
fn warn_ignored(dir: &Path, extra_templates: &BTreeSet<String>) {
    match ignored_files(dir, extra_templates) {
        Ok(ignored) => {
            for file in ignored {
                log::warn!("{file}");
            }
        }
        Err(error) => log::warn!(
            "could not list {} to check for files it ignores: {error}",
            dir.display()
        ),
    }
}

/// The files in the templates folder `dir` that no build reads, by path. Read are the
/// built-in templates' names at its top, the built-in static files' under `static/`, and
/// `extra_templates`: names (relative to `dir`, with `/`) of further templates something uses,
/// the templates content pages name in their front matter.
///
/// A folder that holds nothing read is reported once, not file by file (a theme's `images/`
/// or `node_modules/` is one mistake, not hundreds).
///
/// Links and special files are reported too, wherever a read file could be: nothing is read
/// through them (see [`read_plain`]).
///
/// Hidden files and folders (a name starting with `.`) are never reported: they belong to the
/// tools around a theme (`.git`, `.gitignore`, `.DS_Store`, editors' swap files), are never
/// meant as templates, and reporting them would warn on every build of a theme kept in git.
pub fn ignored_files(
    dir: &Path,
    extra_templates: &BTreeSet<String>,
) -> std::io::Result<Vec<Ignored>> {
    let read: BTreeSet<String> = TEMPLATES
        .iter()
        .map(|(name, _)| name.to_string())
        .chain(
            STATIC_FILES
                .iter()
                .map(|(name, _)| format!("static/{name}")),
        )
        .chain(extra_templates.iter().cloned())
        .collect();
    let mut ignored = Vec::new();
    walk_theme(dir, "", &read, &mut ignored)?;
    ignored.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(ignored)
}

/// [`ignored_files`] below `prefix` (`""` or a relative folder ending in `/`).
fn walk_theme(
    root: &Path,
    prefix: &str,
    read: &BTreeSet<String>,
    ignored: &mut Vec<Ignored>,
) -> std::io::Result<()> {
    let in_static = prefix.starts_with("static/");
    let static_names = || {
        STATIC_FILES
            .iter()
            .map(|(name, _)| *name)
            .collect::<Vec<_>>()
            .join(", ")
    };
    for entry in std::fs::read_dir(root.join(prefix))? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let relative = format!("{prefix}{name}");
        let path = root.join(&relative);
        let kind = entry.file_type()?;
        if !kind.is_dir() && !kind.is_file() {
            ignored.push(Ignored {
                path,
                folder: false,
                reason: LINK_LEFT_OUT.to_owned(),
            });
        } else if kind.is_dir() {
            let inside = format!("{relative}/");
            // The catalogues are any `i18n/<language>.toml`: the folder is looked into even
            // when none is read, to name a link there rather than the whole folder.
            if read.iter().any(|used| used.starts_with(&inside)) || relative == "i18n" {
                walk_theme(root, &inside, read, ignored)?;
            } else {
                let reason = if in_static {
                    format!(
                        "is a folder vatcar-site does not copy (it copies only the static files {}); it is ignored",
                        static_names()
                    )
                } else {
                    "is a folder vatcar-site does not read (templates are read from the top of the templates folder, static files from static/); it is ignored".to_owned()
                };
                ignored.push(Ignored {
                    path,
                    folder: true,
                    reason,
                });
            }
        } else if !read.contains(&relative) {
            let same_but_case = read
                .iter()
                .find(|used| used.eq_ignore_ascii_case(&relative));
            let reason = match same_but_case {
                Some(used) => format!(
                    "differs from {used} in case only: rename it, since it is ignored wherever file names are case-sensitive (on Linux, as in most CI)"
                ),
                None if in_static => format!(
                    "is not a static file vatcar-site copies (only {} are); it is ignored",
                    static_names()
                ),
                None => "is not a template vatcar-site uses (`vatcar-site templates export DIR` writes out the ones it does); it is ignored".to_owned(),
            };
            ignored.push(Ignored {
                path,
                folder: false,
                reason,
            });
        }
    }
    Ok(())
}

/// Escapes what HTML and XML need escaped, and no more: Tera's default also escapes `/`,
/// which makes every URL in the output unreadable without making it safer.
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let mut run = 0;
    for (i, b) in text.bytes().enumerate() {
        let entity = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#39;",
            _ => continue,
        };
        out.push_str(&text[run..i]);
        out.push_str(entity);
        run = i + 1;
    }
    out.push_str(&text[run..]);
    out
}

/// Tera's error when the templates load, in the theme's words. A syntax error (pest's message
/// quotes the whole line, however long) becomes `file:line:column`, what was expected, and the
/// part of the line around the column; anything else is Tera's message, naming the file,
/// each line cut short.
fn load_error(error: &tera::Error, sources: &[(String, String, String)]) -> String {
    let message = tera_error_text(error);
    let source = sources
        .iter()
        .find(|(name, ..)| message.contains(&format!("'{name}'")));
    let origin = source.map_or("a template", |(_, _, origin)| origin.as_str());
    let cause = std::error::Error::source(error).map(ToString::to_string);
    // " --> 3:17", then "= expected ...": pest's layout.
    let syntax = cause.as_deref().and_then(|cause| {
        let (line, column) = cause
            .lines()
            .find_map(|l| l.trim().strip_prefix("--> "))?
            .split_once(':')?;
        let (line, column): (usize, usize) = (line.parse().ok()?, column.parse().ok()?);
        let expected = cause.lines().find_map(|l| l.trim().strip_prefix("= "))?;
        Some((line, column, expected.to_owned()))
    });
    match (syntax, source) {
        (Some((line, column, expected)), Some((_, text, _))) => {
            let quoted = quote::pointing(text, line, column)
                .map(|q| format!("\n{q}"))
                .unwrap_or_default();
            format!(
                "{origin}:{line}:{column}: does not parse: {}{quoted}",
                quote::short(&expected)
            )
        }
        _ => format!("{origin} does not parse: {}", quote::cut_lines(&message)),
    }
}

/// Tera keeps the useful part of its message (file, line, missing variable) in the cause
/// chain; this flattens it into one readable error.
fn tera_error(error: tera::Error) -> anyhow::Error {
    anyhow::anyhow!(tera_error_text(&error))
}

fn tera_error_text(error: &tera::Error) -> String {
    let mut message = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    message
}

/// Writes the built-in templates (at the top of `dir`), static files (under `dir/static/`) and
/// catalogues (under `dir/i18n/`) for editing. Existing files are kept unless `force`. Returns how many files
/// were written.
pub fn export(dir: &Path, force: bool) -> Result<usize> {
    let files: Vec<(std::path::PathBuf, &[u8])> = TEMPLATES
        .iter()
        .map(|(name, text)| (dir.join(name), text.as_bytes()))
        .chain(
            STATIC_FILES
                .iter()
                .map(|(name, bytes)| (dir.join("static").join(name), *bytes)),
        )
        .chain(texts::BUILT_IN.iter().map(|(language, text)| {
            (
                dir.join("i18n").join(format!("{language}.toml")),
                text.as_bytes(),
            )
        }))
        .collect();
    if !force {
        let existing: Vec<String> = files
            .iter()
            .filter(|(path, _)| path.exists())
            .map(|(path, _)| path.display().to_string())
            .collect();
        if !existing.is_empty() {
            anyhow::bail!(
                "these files exist already and were kept: {}; pass --force to overwrite them",
                existing.join(", ")
            );
        }
    }
    for (path, bytes) in &files {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("could not create {}", parent.display()))?;
        }
        std::fs::write(path, bytes)
            .with_context(|| format!("could not write {}", path.display()))?;
    }
    Ok(files.len())
}

#[cfg(test)]
mod tests {
    use super::{escape_html, ignored_files};
    use std::collections::BTreeSet;

    #[test]
    fn templates_named_by_something_else_are_not_reported() {
        let tmp = tempfile::tempdir().unwrap();
        for name in [
            "visiting.html",
            "index.html",
            "pages/about.html",
            "pages/draft.html",
            "notes/todo.txt",
        ] {
            let path = tmp.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        let reported = |extra: &[&str]| -> Vec<String> {
            let extra: BTreeSet<String> = extra.iter().map(|s| s.to_string()).collect();
            ignored_files(tmp.path(), &extra)
                .unwrap()
                .iter()
                .map(|i| {
                    let path = i.path.strip_prefix(tmp.path()).unwrap().display();
                    format!("{path}{}", if i.folder { "/" } else { "" })
                })
                .collect()
        };
        assert_eq!(reported(&[]), ["notes/", "pages/", "visiting.html"]);
        // A folder holding a used template is looked into, file by file.
        assert_eq!(
            reported(&["visiting.html", "pages/about.html"]),
            ["notes/", "pages/draft.html"]
        );
    }

    #[test]
    fn escapes_markup_characters_and_keeps_urls_readable() {
        assert_eq!(
            escape_html(r#"<a href="x">Tom & 'Jerry'</a> https://a.example/b?c=1"#),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt; https://a.example/b?c=1"
        );
        assert_eq!(escape_html("Ünïcödé → ok"), "Ünïcödé → ok");
    }
}
