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

/// The config file and the example pages in one language: English at the top of `init/`, the
/// others in a folder named by their code. The comments and pages are the webmaster's first
/// reading, so each built-in language has them (a test holds the two lists together).
struct Starter {
    language: &'static str,
    config: &'static str,
    home: &'static str,
    join: &'static str,
}

const STARTERS: &[Starter] = &[
    Starter {
        language: "en",
        config: include_str!("init/vatcar-site.toml"),
        home: include_str!("init/content/_index.md"),
        join: include_str!("init/content/join.md"),
    },
    Starter {
        language: "es",
        config: include_str!("init/es/vatcar-site.toml"),
        home: include_str!("init/es/content/_index.md"),
        join: include_str!("init/es/content/join.md"),
    },
    Starter {
        language: "fr",
        config: include_str!("init/fr/vatcar-site.toml"),
        home: include_str!("init/fr/content/_index.md"),
        join: include_str!("init/fr/content/join.md"),
    },
    Starter {
        language: "nl",
        config: include_str!("init/nl/vatcar-site.toml"),
        home: include_str!("init/nl/content/_index.md"),
        join: include_str!("init/nl/content/join.md"),
    },
];

/// The languages `init --language` takes.
pub fn languages() -> impl Iterator<Item = &'static str> {
    STARTERS.iter().map(|s| s.language)
}

const GITIGNORE: &str = include_str!("init/gitignore");
const WORKFLOW: &str = include_str!("init/workflow.yml");

/// The files `init` writes in `language` (one of [`languages`]), relative to the site folder,
/// with their text.
pub fn files(language: &str) -> Vec<(&'static str, String)> {
    let starter = STARTERS
        .iter()
        .find(|s| s.language == language)
        .unwrap_or(&STARTERS[0]);
    let config = starter
        .config
        .replace("@CONFIGURATION@", &guide_page("configuration.md"));
    vec![
        (crate::settings::DEFAULT_FILE, config),
        ("content/_index.md", starter.home.to_owned()),
        ("content/join.md", starter.join.to_owned()),
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
        .replace("@GUIDE@", &guide_page("github-actions.md"))
}

/// The address of a page of the user guide, as this release has it.
fn guide_page(page: &str) -> String {
    let repository = env!("CARGO_PKG_REPOSITORY").trim_end_matches('/');
    let repository = repository.strip_suffix(".git").unwrap_or(repository);
    format!(
        "{repository}/blob/v{}/docs/{page}",
        env!("CARGO_PKG_VERSION")
    )
}

/// `owner/name` of the repository in Cargo.toml, where the action lives.
fn action_repository() -> &'static str {
    let url = env!("CARGO_PKG_REPOSITORY");
    let path = url.strip_prefix("https://github.com/").unwrap_or(url);
    path.trim_end_matches('/').trim_end_matches(".git")
}

pub(crate) fn run(args: &InitArgs, progress: &Progress) -> Result<()> {
    let dir = &args.dir;
    if dir.is_file() {
        bail!("{} is a file; name a folder for the site", dir.display());
    }
    let files: Vec<(&str, PathBuf, String)> = files(&args.language)
        .into_iter()
        .map(|(name, text)| (name, place(dir, name), text))
        .collect();
    let static_dir = place(dir, "static");
    // Every path is checked before the first file is written, so that a refused init leaves
    // the folder as it was.
    let linked = check_folders(dir, &files, &static_dir, args.force)?;
    let present = present_files(&files, args.force)?;
    for link in &linked {
        progress.step(&format!(
            "  writing through the link {} (--force)",
            link.display()
        ));
    }
    write_files(&files, &static_dir)?;
    report(args, &files, &static_dir, present.len(), progress);
    Ok(())
}

/// Where `name` goes in the site folder `dir`. In the working folder, the names alone:
/// `vatcar-site.toml` rather than `./vatcar-site.toml`.
fn place(dir: &Path, name: &str) -> PathBuf {
    if dir == Path::new(".") {
        PathBuf::from(name)
    } else {
        dir.join(name)
    }
}

/// Refuses a folder of the site that is a file or, without --force, a link; returns the
/// links --force lets init write through. The folders inside the site are checked, not the
/// site folder itself: the user named it, and it may well be reached through a link.
fn check_folders(
    dir: &Path,
    files: &[(&str, PathBuf, String)],
    static_dir: &Path,
    force: bool,
) -> Result<Vec<PathBuf>> {
    let mut linked: Vec<PathBuf> = Vec::new();
    for (name, _, _) in files {
        let folders: Vec<&str> = name.split('/').collect();
        for depth in 1..folders.len() {
            let folder = folders[..depth].join("/");
            check_folder(&place(dir, &folder), name, force, &mut linked)?;
        }
    }
    // static/ is made, never written into: a link to a folder there is no harm.
    if !(fs::symlink_metadata(static_dir).is_ok_and(|m| m.is_symlink()) && static_dir.is_dir()) {
        check_folder(static_dir, "static/", force, &mut linked)?;
    }
    Ok(linked)
}

/// The files of `files` that exist already: refused without --force, and a folder always.
fn present_files<'f>(files: &'f [(&str, PathBuf, String)], force: bool) -> Result<Vec<&'f Path>> {
    // symlink_metadata, not exists(): a link, even a dangling one, is a file of the user's,
    // and writing through it would put the file somewhere else.
    let mut present: Vec<&Path> = Vec::new();
    for (_, path, _) in files {
        match fs::symlink_metadata(path) {
            Ok(meta) if meta.is_dir() => bail!(
                "{} is a folder, where init writes a file: move it away (init never replaces a folder)",
                path.display()
            ),
            Ok(_) => present.push(path),
            Err(_) => {}
        }
    }
    if !present.is_empty() && !force {
        let names: Vec<String> = present.iter().map(|p| p.display().to_string()).collect();
        bail!(
            "these files exist already and were kept: {}; pass --force to overwrite them",
            names.join(", ")
        );
    }
    Ok(present)
}

/// Makes static/ and writes the files. What this run makes is removed again if a write fails
/// part-way (a full disk): the folder is left as it was, but for files --force has already
/// overwritten.
fn write_files(files: &[(&str, PathBuf, String)], static_dir: &Path) -> Result<()> {
    let mut made = Made::default();
    made.folder(static_dir)?;
    for (_, path, text) in files {
        if let Some(parent) = path.parent() {
            made.folder(parent)?;
        }
        if fs::symlink_metadata(path).is_ok_and(|meta| meta.is_symlink()) {
            fs::remove_file(path)
                .with_context(|| format!("could not replace the link {}", path.display()))?;
        } else if fs::symlink_metadata(path).is_err() {
            made.files.push(path.clone());
        }
        fs::write(path, text).with_context(|| format!("could not write {}", path.display()))?;
    }
    made.keep();
    Ok(())
}

/// What was written, and what to do next.
fn report(
    args: &InitArgs,
    files: &[(&str, PathBuf, String)],
    static_dir: &Path,
    overwritten: usize,
    progress: &Progress,
) {
    let dir = &args.dir;
    let mut written: Vec<String> = files
        .iter()
        .map(|(_, p, _)| p.display().to_string())
        .collect();
    written.push(format!("{}/", static_dir.display()));
    for line in &written {
        progress.step(&format!("  wrote {line}"));
    }
    let cd = if dir == Path::new(".") {
        String::new()
    } else {
        format!("cd {} && ", dir.display())
    };
    // The steps in the site's language (the catalogue's [init]); the commands as they are.
    let texts = crate::i18n::Texts::load(&args.language, None).unwrap_or_else(|error| {
        log::debug!("the {} catalogue: {error:#}", args.language);
        crate::i18n::Texts::load(crate::i18n::DEFAULT_LANGUAGE, None)
            .expect("the built-in English loads")
    });
    let say = |key: &str| texts.text(key, &[("workflow", WORKFLOW_PATH)]);
    progress.step(&format!(
        "{}\n  {cd}vatcar-site serve --demo    {}\n  {}\n  \
         VATCAR_API_KEY=... vatcar-site check    {}\n  {}",
        say("init.next"),
        say("init.preview"),
        say("init.edit"),
        say("init.check"),
        say("init.publish"),
    ));
    let overwritten = if args.force && overwritten > 0 {
        format!(" ({overwritten} overwritten)")
    } else {
        String::new()
    };
    progress.done(&format!(
        "wrote a site folder into {}: {} files and static/{overwritten}",
        dir.display(),
        files.len()
    ));
}

/// Checks that `folder`, where init will write `file`, is a folder or can be made one: a file
/// there is an error, and so is a link unless `force` (then it is written through, and added
/// to `linked`).
fn check_folder(folder: &Path, file: &str, force: bool, linked: &mut Vec<PathBuf>) -> Result<()> {
    let Ok(meta) = fs::symlink_metadata(folder) else {
        return Ok(());
    };
    if meta.is_dir() {
        return Ok(());
    }
    if !meta.is_symlink() {
        bail!(
            "{} is a file, where init needs a folder (for {file}): move it away",
            folder.display()
        );
    }
    if !folder.is_dir() {
        bail!(
            "{} is a link that leads to no folder, where init needs one (for {file}): remove the link",
            folder.display()
        );
    }
    if !force {
        bail!(
            "{} is a link to another folder; init does not write through it: remove the link, or pass --force to write through it",
            folder.display()
        );
    }
    if !linked.iter().any(|l| l == folder) {
        linked.push(folder.to_path_buf());
    }
    Ok(())
}

/// The files and folders a run of init made, removed again when it is dropped before
/// [`Made::keep`].
#[derive(Default)]
struct Made {
    folders: Vec<PathBuf>,
    files: Vec<PathBuf>,
}

impl Made {
    /// Makes `folder` and the folders above it that are missing, noting each.
    fn folder(&mut self, folder: &Path) -> Result<()> {
        let missing: Vec<&Path> = folder
            .ancestors()
            .take_while(|f| !f.as_os_str().is_empty() && fs::symlink_metadata(f).is_err())
            .collect();
        for folder in missing.into_iter().rev() {
            fs::create_dir(folder)
                .with_context(|| format!("could not create {}", folder.display()))?;
            self.folders.push(folder.to_path_buf());
        }
        Ok(())
    }

    fn keep(mut self) {
        self.folders.clear();
        self.files.clear();
    }
}

impl Drop for Made {
    fn drop(&mut self) {
        for file in self.files.iter().rev() {
            let _ = fs::remove_file(file);
        }
        for folder in self.folders.iter().rev() {
            let _ = fs::remove_dir(folder);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Settings;

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
        assert!(workflow.contains(&format!(
            "      # {}/blob/v{}/docs/github-actions.md\n",
            env!("CARGO_PKG_REPOSITORY"),
            env!("CARGO_PKG_VERSION")
        )));
        for placeholder in ["@ACTION@", "@VERSION@", "@MARKER@", "@GUIDE@"] {
            assert!(!workflow.contains(placeholder), "{placeholder} left");
        }
    }

    /// A commented example line of a config (`# key = value`, `# [table]`), uncommented.
    fn example(line: &str) -> Option<&str> {
        let rest = line.strip_prefix("# ")?;
        let key = rest.split(" = ").next()?;
        let is_key = rest.contains(" = ")
            && key
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "_\"".contains(c));
        (is_key || (rest.starts_with('[') && rest.ends_with(']'))).then_some(rest)
    }

    /// Every commented example in each language's config reads once its `# ` is removed, so
    /// none of them teaches a key or a value the program refuses.
    #[test]
    fn every_example_in_the_config_is_valid() {
        for starter in STARTERS {
            let config = starter.config;
            let uncommented: String = config
                .lines()
                .map(|line| example(line).unwrap_or(line))
                .map(|line| format!("{line}\n"))
                .collect();
            let examples = config.lines().filter(|l| example(l).is_some()).count();
            assert!(
                examples > 25,
                "{}: only {examples} examples found",
                starter.language
            );
            let loaded = Settings::parse(&uncommented, Path::new("vatcar-site.toml"))
                .unwrap_or_else(|e| panic!("{}: {e:#}\n{uncommented}", starter.language));
            assert!(loaded.site.title.is_some() && loaded.site.display_zone.is_some());
            assert!(loaded.roster.staff_emails.wm.is_some());
            assert_eq!(loaded.events.facility_bits.len(), 2);
            assert!(loaded.folders.content.is_some() && loaded.folders.static_files.is_some());
            // As written, only the essentials are set: the output and the language.
            let loaded = Settings::parse(config, Path::new("vatcar-site.toml")).unwrap();
            assert_eq!(loaded.folders.output, Path::new("output"));
            assert_eq!(loaded.language.unwrap().name, starter.language);
            assert!(loaded.site.title.is_none() && loaded.folders.static_files.is_none());
        }
    }

    /// init speaks every built-in language, and each config teaches the same keys as the
    /// English one: a key added to `init/vatcar-site.toml` goes into each translation too.
    #[test]
    fn every_language_has_a_config_with_every_key() {
        let built_in: Vec<&str> = crate::i18n::BUILT_IN.iter().map(|(l, _)| *l).collect();
        assert_eq!(languages().collect::<Vec<_>>(), built_in);
        let keys = |config: &str| -> std::collections::BTreeSet<String> {
            config
                .lines()
                .map(|line| example(line).unwrap_or(line))
                .filter(|line| !line.starts_with('#') && !line.is_empty())
                .map(|line| line.split(" = ").next().unwrap_or(line).to_owned())
                .collect()
        };
        let english = keys(STARTERS[0].config);
        for starter in &STARTERS[1..] {
            let translated = keys(starter.config);
            let missing: Vec<&String> = english.difference(&translated).collect();
            let extra: Vec<&String> = translated.difference(&english).collect();
            assert!(
                missing.is_empty() && extra.is_empty(),
                "src/cmd/init/{}/vatcar-site.toml lacks {missing:?} and has {extra:?}, unlike src/cmd/init/vatcar-site.toml: translate the English lines into it",
                starter.language
            );
        }
        // The languages the comment lists are the built-in ones.
        for starter in STARTERS {
            let listed = built_in
                .iter()
                .all(|l| starter.config.contains(&format!("{l} (")));
            assert!(
                listed,
                "{}: the comment on `language` lists {built_in:?}",
                starter.language
            );
        }
    }

    /// A run that fails part-way removes the files and folders it made, and only those.
    #[test]
    fn what_a_failed_run_made_is_removed_again() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join("mine.txt"), "mine").unwrap();
        let deep = tmp.path().join("a/b");
        {
            let mut made = Made::default();
            made.folder(&deep).unwrap();
            fs::write(deep.join("file"), "x").unwrap();
            made.files.push(deep.join("file"));
            assert!(deep.join("file").is_file());
        }
        let left: Vec<_> = fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["mine.txt"]);
        let mut made = Made::default();
        made.folder(&deep).unwrap();
        made.keep();
        assert!(deep.is_dir());
    }

    /// The example pages' front matter is TOML between `+++` lines, with a title.
    #[test]
    fn the_example_pages_have_front_matter() {
        for (name, text) in STARTERS
            .iter()
            .flat_map(|s| [("_index.md", s.home), ("join.md", s.join)])
        {
            let front = text
                .strip_prefix("+++\n")
                .and_then(|rest| rest.split_once("\n+++\n"))
                .map(|(front, _)| front)
                .unwrap_or_else(|| panic!("{name} has no front matter"));
            let table: toml::Table = toml::from_str(front).unwrap();
            assert!(table["title"].is_str(), "{name}");
        }
        for starter in STARTERS {
            let front = starter.join.split("+++").nth(1).unwrap();
            let join: toml::Table = toml::from_str(front).unwrap();
            assert_eq!(join["menu"].as_bool(), Some(true), "{}", starter.language);
        }
    }
}
