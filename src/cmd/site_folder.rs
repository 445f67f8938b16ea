//! What a build takes from the webmaster's site folder beside the API's data: the content
//! pages, and the static files (the logo and favicon the settings name among them, none named as
//! a file of vatcar-site's own), with the event banners' copies staged beside them.

use super::options::BuildOptions;
use crate::fetch::site_files::{StaticFile, demo_content, demo_static, read_content, read_static};
use crate::model::content::{self, ContentPage};
use crate::problems::Problem;
use crate::publish;
use crate::usage::UsageError;
use anyhow::{Result, bail};
use std::path::{Path, PathBuf};

/// The webmaster's pages, read and their front matter checked; a page with a mistake is
/// added to `problems` and stands in for itself, so that every link is checked all the same.
pub(super) fn content_pages(
    options: &BuildOptions,
    problems: &mut Vec<Problem>,
) -> Result<Vec<ContentPage>> {
    let files = match &options.content {
        _ if options.demo_site_files => demo_content(),
        Some(dir) => read_content(dir)?,
        None => return Ok(Vec::new()),
    };
    let (pages, found) = content::parse_all(&files);
    problems.extend(found);
    Ok(pages)
}

/// The mistakes of the front matter of the pages beside a config file that does not read
/// (`content/`, or the folder its `content` names where that much of it reads), so that one
/// run names them with the config file's: none where there is no such folder.
pub(super) fn front_matter_problems(config: Option<&Path>) -> Vec<Problem> {
    let config = config.unwrap_or(Path::new(crate::settings::DEFAULT_FILE));
    let named = std::fs::read_to_string(config)
        .ok()
        .and_then(|text| toml::from_str::<toml::Table>(&text).ok())
        .and_then(|table| Some(PathBuf::from(table.get("content")?.as_str()?)));
    let folder = config.parent().unwrap_or(Path::new(""));
    let dir = folder.join(named.unwrap_or_else(|| PathBuf::from("content")));
    match dir.is_dir().then(|| read_content(&dir)) {
        Some(Ok(files)) => content::parse_all(&files).1,
        _ => Vec::new(),
    }
}

/// The webmaster's static files, with the logo and favicon the settings name among them,
/// and none named as vatcar-site's own list of the files it wrote.
pub(super) fn static_files(options: &BuildOptions) -> Result<Vec<StaticFile>> {
    let static_files = match &options.static_files {
        _ if options.demo_site_files => demo_static(),
        Some(dir) => read_static(dir)?,
        None => Vec::new(),
    };
    for named in [&options.settings.logo, &options.settings.favicon]
        .into_iter()
        .flatten()
    {
        if !static_files.iter().any(|f| f.path == named.path) {
            let paths = static_files.iter().map(|f| f.path.as_str());
            let key = named.origin.rsplit(": ").next().unwrap_or("logo");
            // `static/logo.png` for `logo.png`: the path written from the site folder. Else a
            // near name, as a slip of the name (`logo.jpg` for `logo.png`).
            let fix = match named.path.strip_prefix("static/") {
                Some(below) if static_files.iter().any(|f| f.path == below) => Some(format!(
                    "; write {key} = {below:?}: paths are relative to the static folder"
                )),
                _ => crate::suggest::nearest(&named.path, paths)
                    .map(|near| format!("; did you mean {key} = {near:?}?")),
            };
            // A mistake in the config file, as a value it refuses is: exit code 2.
            return Err(UsageError(format!(
                "{}: there is no {} in the static folder{}{}",
                named.origin,
                named.path,
                options
                    .static_files
                    .as_ref()
                    .map(|d| format!(" ({})", d.display()))
                    .unwrap_or_else(|| " (static/ beside vatcar-site.toml)".into()),
                fix.unwrap_or_default()
            ))
            .into());
        }
    }
    if let Some(file) = static_files.iter().find(|f| f.path == publish::MARKER) {
        bail!(
            "{} has the name of vatcar-site's own list of the files it wrote; rename it",
            static_source(options, &file.path)
        );
    }
    Ok(static_files)
}

/// The banners' copies, into the staging folder beside the pages that show them.
pub(super) fn add_banners(
    banners: &crate::fetch::banners::Banners,
    static_files: &[StaticFile],
    options: &BuildOptions,
    staging: &publish::Staging,
) -> Result<()> {
    for (path, bytes) in &banners.files {
        if static_files.iter().any(|file| &file.path == path) {
            bail!(
                "{} would overwrite an event banner's copy at {path}; rename or move it",
                static_source(options, path)
            );
        }
        staging.add(path, bytes)?;
    }
    Ok(())
}

/// Where a static file came from, for messages.
pub(super) fn static_source(options: &BuildOptions, path: &str) -> String {
    let dir = options
        .static_files
        .as_deref()
        .unwrap_or(std::path::Path::new("static"));
    dir.join(path).display().to_string()
}
