//! Templates and static files: built into the binary, each replaceable by a file of the same
//! name in the user's templates folder (`--templates DIR`: templates at its top level, static
//! files under `DIR/static/`).
//!
//! As in Zola, the user's templates are loaded first and the built-in ones added only where
//! the user has none, so a user file always wins, one file at a time.

use anyhow::{Context, Result};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
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
}

/// A template a content page names in its front matter (`template = "visiting.html"`).
#[derive(Clone, Debug)]
pub struct PageTemplate {
    pub name: String,
    /// The file and line naming it, for errors.
    pub origin: String,
}

impl Theme {
    pub fn load(user_dir: Option<&Path>) -> Result<Self> {
        Self::load_with(user_dir, &[])
    }

    /// The theme, with the further templates that content pages name.
    pub fn load_with(user_dir: Option<&Path>, page_templates: &[PageTemplate]) -> Result<Self> {
        let mut tera = Tera::default();
        crate::render::limits::restrict(&mut tera);
        let mut user_templates = Vec::new();
        let mut static_files: Vec<(String, Vec<u8>)> = STATIC_FILES
            .iter()
            .map(|(name, bytes)| (name.to_string(), bytes.to_vec()))
            .collect();
        if let Some(dir) = user_dir {
            if !dir.is_dir() {
                anyhow::bail!("templates folder {} does not exist", dir.display());
            }
            let named: BTreeSet<String> = page_templates.iter().map(|t| t.name.clone()).collect();
            warn_ignored(dir, &named);
            for name in &named {
                if TEMPLATES.iter().any(|(builtin, _)| builtin == name) {
                    continue;
                }
                let path = dir.join(name);
                if path.is_file() {
                    let text = std::fs::read_to_string(&path)
                        .with_context(|| format!("could not read template {}", path.display()))?;
                    user_templates.push((name.clone(), text, path.display().to_string()));
                }
            }
            for (name, _) in TEMPLATES {
                let path = dir.join(name);
                if path.is_file() {
                    let text = std::fs::read_to_string(&path)
                        .with_context(|| format!("could not read template {}", path.display()))?;
                    user_templates.push((name.to_string(), text, path.display().to_string()));
                }
            }
            for (name, bytes) in &mut static_files {
                let path = dir.join("static").join(name.as_str());
                if path.is_file() {
                    *bytes = std::fs::read(&path)
                        .with_context(|| format!("could not read {}", path.display()))?;
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
            let message = tera_error(error).to_string();
            let origin = sources
                .iter()
                .find(|(name, ..)| message.contains(&format!("'{name}'")))
                .map_or("a template", |(_, _, origin)| origin.as_str());
            anyhow::bail!("{origin} does not parse: {message}");
        }
        if let Err((name, error)) = crate::render::limits::check(&tera) {
            let origin = sources
                .iter()
                .find(|(source, ..)| *source == name)
                .map_or(name.as_str(), |(_, _, origin)| origin.as_str());
            anyhow::bail!("{origin}: {error}");
        }
        tera.autoescape_on(vec![".html", ".xml"]);
        tera.set_escape_fn(escape_html);
        Ok(Self {
            tera,
            static_files,
            recorded: None,
            sources,
        })
    }

    /// The built-in theme, keeping a copy of every context it renders.
    pub fn recording() -> Result<Self> {
        let mut theme = Self::load(None)?;
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
            match self.locate(&message) {
                Some(place) => anyhow::anyhow!("{place}: {message}"),
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

    pub fn static_files(&self) -> &[(String, Vec<u8>)] {
        &self.static_files
    }
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
        if path.is_dir() {
            let inside = format!("{relative}/");
            if read.iter().any(|used| used.starts_with(&inside)) {
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

/// Tera keeps the useful part of its message (file, line, missing variable) in the cause
/// chain; this flattens it into one readable error.
fn tera_error(error: tera::Error) -> anyhow::Error {
    let mut message = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    anyhow::anyhow!(message)
}

/// Writes the built-in templates (at the top of `dir`) and static files (under
/// `dir/static/`) for editing. Existing files are kept unless `force`. Returns how many files
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
