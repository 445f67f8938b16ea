//! Templates and static files: built into the binary, each replaceable by a file of the same
//! name in the user's templates folder (`--templates DIR`: templates at its top level, static
//! files under `DIR/static/`).
//!
//! As in Zola, the user's templates are loaded first and the built-in ones added only where
//! the user has none, so a user file always wins, one file at a time.

use anyhow::{Context, Result};
use std::path::Path;
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

impl Theme {
    pub fn load(user_dir: Option<&Path>) -> Result<Self> {
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
    use super::escape_html;

    #[test]
    fn escapes_markup_characters_and_keeps_urls_readable() {
        assert_eq!(
            escape_html(r#"<a href="x">Tom & 'Jerry'</a> https://a.example/b?c=1"#),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt; https://a.example/b?c=1"
        );
        assert_eq!(escape_html("Ünïcödé → ok"), "Ünïcödé → ok");
    }
}
