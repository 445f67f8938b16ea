//! `vatcar-site init [DIR]`: a site folder ready to build and to publish from GitHub Actions.
//!
//! The files are embedded from `src/cmd/init/`, beside this command, under names that neither
//! git nor GitHub reads there (`gitignore`, `workflow.yml`): in the repository they are
//! vatcar-site's source, not its own `.gitignore` or workflow. The workflow names the GitHub
//! Action by this crate's `repository` and version, so a release and the workflow it writes
//! cannot disagree.

use super::args::InitArgs;
use super::progress::Progress;
use crate::publish::MARKER;
use anyhow::{Context, Result, bail};
use std::fs;
use std::path::{Path, PathBuf};

/// Where the workflow goes, relative to the site folder.
pub const WORKFLOW_PATH: &str = ".github/workflows/site.yml";

const CONFIG: &str = include_str!("init/vatcar-site.toml");
const HOME: &str = include_str!("init/content/_index.md");
const JOIN: &str = include_str!("init/content/join.md");
const GITIGNORE: &str = include_str!("init/gitignore");
const WORKFLOW: &str = include_str!("init/workflow.yml");

/// The files `init` writes, relative to the site folder, with their text.
pub fn files() -> Vec<(&'static str, String)> {
    vec![
        (super::config::DEFAULT_FILE, CONFIG.to_owned()),
        ("content/_index.md", HOME.to_owned()),
        ("content/join.md", JOIN.to_owned()),
        (".gitignore", GITIGNORE.to_owned()),
        (WORKFLOW_PATH, workflow()),
    ]
}

/// The GitHub Actions workflow, naming the action of this very release.
pub fn workflow() -> String {
    let version = env!("CARGO_PKG_VERSION");
    WORKFLOW
        .replace("@ACTION@", &format!("{}@v{version}", action_repository()))
        .replace("@VERSION@", version)
        .replace("@MARKER@", MARKER)
}

/// `owner/name` of the repository in Cargo.toml, where the action lives.
fn action_repository() -> &'static str {
    let url = env!("CARGO_PKG_REPOSITORY");
    let path = url.strip_prefix("https://github.com/").unwrap_or(url);
    path.trim_end_matches('/').trim_end_matches(".git")
}

pub(crate) fn run(args: &InitArgs, progress: &Progress) -> Result<()> {
    let dir = &args.dir;
    // In the working folder, the names alone: `vatcar-site.toml` rather than `./vatcar-site.toml`.
    let here = dir == Path::new(".");
    let place = |name: &str| {
        if here {
            PathBuf::from(name)
        } else {
            dir.join(name)
        }
    };
    let files: Vec<(PathBuf, String)> = files()
        .into_iter()
        .map(|(name, text)| (place(name), text))
        .collect();
    // symlink_metadata, not exists(): a link, even a dangling one, is a file of the user's,
    // and writing through it would put the file somewhere else.
    let present: Vec<&Path> = files
        .iter()
        .map(|(path, _)| path.as_path())
        .filter(|path| fs::symlink_metadata(path).is_ok())
        .collect();
    if !present.is_empty() && !args.force {
        let names: Vec<String> = present.iter().map(|p| p.display().to_string()).collect();
        bail!(
            "these files exist already and were kept: {}; pass --force to overwrite them",
            names.join(", ")
        );
    }
    let static_dir = place("static");
    fs::create_dir_all(&static_dir)
        .with_context(|| format!("could not create {}", static_dir.display()))?;
    for (path, text) in &files {
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)
                .with_context(|| format!("could not create {}", parent.display()))?;
        }
        if fs::symlink_metadata(path).is_ok_and(|meta| meta.is_symlink()) {
            fs::remove_file(path)
                .with_context(|| format!("could not replace the link {}", path.display()))?;
        }
        fs::write(path, text).with_context(|| format!("could not write {}", path.display()))?;
    }

    let mut written: Vec<String> = files.iter().map(|(p, _)| p.display().to_string()).collect();
    written.push(format!("{}/", static_dir.display()));
    for line in &written {
        progress.step(&format!("  wrote {line}"));
    }
    let cd = if here {
        String::new()
    } else {
        format!("cd {} && ", dir.display())
    };
    progress.step(&format!(
        "next:\n  {cd}vatcar-site serve --demo    preview the site with sample data\n  \
         edit vatcar-site.toml and content/, put your logo and files in static/\n  \
         VATCAR_API_KEY=... vatcar-site check    try the facility's key\n  \
         publish: push the folder to GitHub (the workflow must be at the repository's top: \
         {WORKFLOW_PATH}), add the secret VATCAR_API_KEY and set Pages to \"GitHub Actions\""
    ));
    let overwritten = if args.force && !present.is_empty() {
        format!(" ({} overwritten)", present.len())
    } else {
        String::new()
    };
    progress.done(&format!(
        "wrote a site folder into {}: {} files and static/{overwritten}",
        dir.display(),
        files.len()
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::config::Loaded;

    #[test]
    fn the_action_is_named_by_the_crate_repository_and_version() {
        let repository = action_repository();
        assert_eq!(repository.split('/').count(), 2, "{repository}");
        let workflow = workflow();
        assert!(workflow.contains(&format!(
            "uses: {repository}@v{} #",
            env!("CARGO_PKG_VERSION")
        )));
        assert!(workflow.contains(&format!("\"$RUNNER_TEMP/pages/{MARKER}\"")));
        for placeholder in ["@ACTION@", "@VERSION@", "@MARKER@"] {
            assert!(!workflow.contains(placeholder), "{placeholder} left");
        }
    }

    /// Every commented example in the config reads once its `# ` is removed, so none of them
    /// teaches a key or a value the program refuses.
    #[test]
    fn every_example_in_the_config_is_valid() {
        fn example(line: &str) -> Option<&str> {
            let rest = line.strip_prefix("# ")?;
            let key = rest.split(" = ").next()?;
            let is_key = rest.contains(" = ")
                && key
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "_\"".contains(c));
            (is_key || (rest.starts_with('[') && rest.ends_with(']'))).then_some(rest)
        }
        let uncommented: String = CONFIG
            .lines()
            .map(|line| example(line).unwrap_or(line))
            .map(|line| format!("{line}\n"))
            .collect();
        let examples = CONFIG.lines().filter(|l| example(l).is_some()).count();
        assert!(examples > 25, "only {examples} examples found");
        let loaded = Loaded::parse(&uncommented, Path::new("vatcar-site.toml"))
            .unwrap_or_else(|e| panic!("{e:#}\n{uncommented}"));
        let config = &loaded.config;
        assert!(config.title.is_some() && config.calendar.refresh_minutes.is_some());
        assert!(config.staff_emails.wm.is_some() && loaded.facility_bits.len() == 2);
        assert!(config.content.is_some() && config.static_files.is_some());
        // As written, only the essentials are set.
        let loaded = Loaded::parse(CONFIG, Path::new("vatcar-site.toml")).unwrap();
        assert_eq!(loaded.config.output.as_deref(), Some(Path::new("output")));
        assert!(loaded.config.title.is_none() && loaded.config.static_files.is_none());
    }

    /// The example pages' front matter is TOML between `+++` lines, with a title.
    #[test]
    fn the_example_pages_have_front_matter() {
        for (name, text) in [("_index.md", HOME), ("join.md", JOIN)] {
            let front = text
                .strip_prefix("+++\n")
                .and_then(|rest| rest.split_once("\n+++\n"))
                .map(|(front, _)| front)
                .unwrap_or_else(|| panic!("{name} has no front matter"));
            let table: toml::Table = toml::from_str(front).unwrap();
            assert!(table["title"].is_str(), "{name}");
        }
        let join: toml::Table = toml::from_str(JOIN.split("+++").nth(1).unwrap()).unwrap();
        assert_eq!(join["menu"].as_bool(), Some(true));
    }
}
