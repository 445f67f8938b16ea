//! The user's templates folder: the templates and static files read from it, and the check
//! that every template a content page names is there.

use super::embedded::TEMPLATES;
use super::ignored::warn_ignored;
use crate::i18n as texts;
use crate::plain_files::read_plain;
use crate::problems::{Problem, Problems};
use anyhow::Result;
use std::collections::BTreeSet;
use std::path::Path;

/// A template's text and where it came from.
pub(super) struct TemplateSource {
    pub(super) name: String,
    pub(super) text: String,
    /// The file (`theme/roster.html`), or `built-in roster.html`.
    pub(super) origin: String,
    pub(super) built_in: bool,
}

/// A template a content page names in its front matter (`template = "visiting.html"`).
#[derive(Clone, Debug)]
pub struct PageTemplate {
    pub name: String,
    /// The file and line naming it, for errors.
    pub origin: String,
}

/// The templates and static files of the user's templates folder: the built-in names, and
/// the templates content pages name; each static file read replaces the built-in one.
pub(super) fn read_theme_folder(
    dir: &Path,
    page_templates: &[PageTemplate],
    static_files: &mut [(String, Vec<u8>)],
) -> Result<Vec<TemplateSource>> {
    let mut user_templates = Vec::new();
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
            user_templates.push(TemplateSource {
                name,
                text,
                origin: path.display().to_string(),
                built_in: false,
            });
        }
    }
    for (name, bytes) in static_files.iter_mut() {
        if let Some(theirs) = read_plain(dir, &format!("static/{name}"))? {
            *bytes = theirs;
        }
    }
    Ok(user_templates)
}

/// Every template a content page names is a built-in one or a file of the templates folder;
/// each that is not is a problem of the page naming it, all reported together.
pub(super) fn check_page_templates(
    page_templates: &[PageTemplate],
    user_templates: &[TemplateSource],
    user_dir: Option<&Path>,
) -> Result<()> {
    let mut problems = Vec::new();
    for template in page_templates {
        let known = TEMPLATES.iter().any(|(name, _)| *name == template.name)
            || user_templates.iter().any(|user| user.name == template.name);
        if !known {
            let names = TEMPLATES
                .iter()
                .map(|(name, _)| *name)
                .chain(user_templates.iter().map(|user| user.name.as_str()));
            let near = crate::suggest::nearest(&template.name, names)
                .map(|near| format!("; did you mean {near:?}?"))
                .unwrap_or_default();
            let message = match user_dir {
                Some(dir) => format!(
                    "template = {:?}: there is no such file in the templates folder {}{near}",
                    template.name,
                    dir.display()
                ),
                None => format!(
                    "template = {:?}: no templates folder is set (templates = \"templates\" in vatcar-site.toml){near}",
                    template.name
                ),
            };
            problems.push(Problem::from_origin(&template.origin, message));
        }
    }
    Problems::check(problems)
}
