//! `vatcar-site init [DIR]`: a site folder ready to build and to publish from GitHub Actions.
//!
//! The files are embedded from `src/cmd/init/`, beside this command, under names that neither
//! git nor GitHub reads there (`gitignore`, `workflow.yml`): in the repository they are
//! vatcar-site's source, not its own `.gitignore` or workflow. The workflow names the GitHub
//! Action by this crate's `repository` and version, so a release and the workflow it writes
//! cannot disagree.

pub(super) mod starters;

use super::args::InitArgs;
use super::new_files::{self, NewFiles};
use super::progress::Progress;
use crate::publish::MARKER;
use anyhow::Result;
use starters::STARTERS;
use std::path::Path;

/// Where the workflow goes, relative to the site folder.
pub const WORKFLOW_PATH: &str = ".github/workflows/site.yml";

const GITIGNORE: &str = include_str!("init/gitignore");

/// The files `init` writes in `language` (one of [`starters::languages`]), relative to the site folder,
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
        (WORKFLOW_PATH, workflow(starter.workflow)),
    ]
}

/// A starter's GitHub Actions workflow, naming the action of this very release.
fn workflow(template: &str) -> String {
    let version = env!("CARGO_PKG_VERSION");
    template
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
    let files = files(&args.language);
    let new = new_files::check("init", &args.dir, &files, &[STATIC], args.force)?;
    new.write(progress)?;
    report(args, &new, progress);
    Ok(())
}

/// The folder init makes empty, for the webmaster's logo and files.
const STATIC: &str = "static";

/// What was written, and what to do next, in the site's language (the catalogue's [init]);
/// the commands and paths as they are.
fn report(args: &InitArgs, new: &NewFiles, progress: &Progress) {
    let dir = &args.dir;
    let texts = crate::i18n::Texts::load(&args.language, None).unwrap_or_else(|error| {
        log::debug!("the {} catalogue: {error:#}", args.language);
        crate::i18n::Texts::load(crate::i18n::DEFAULT_LANGUAGE, None)
            .expect("the built-in English loads")
    });
    let say = |key: &str, args: &[(&str, &str)]| texts.text(key, args);
    let mut written: Vec<String> = new.paths().map(|p| p.display().to_string()).collect();
    let files = written.len().to_string();
    written.push(format!("{}/", new_files::place(dir, STATIC).display()));
    for path in &written {
        progress.step(&format!("  {}", say("init.wrote", &[("path", path)])));
    }
    let cd = if dir == Path::new(".") {
        String::new()
    } else {
        format!("cd {} && ", dir.display())
    };
    let workflow = [("workflow", WORKFLOW_PATH)];
    progress.step(&format!(
        "{}\n  {cd}vatcar-site serve --demo    {}\n  {}\n  \
         VATCAR_API_KEY=... vatcar-site check    {}\n  {}",
        say("init.next", &workflow),
        say("init.preview", &workflow),
        say("init.edit", &workflow),
        say("init.check", &workflow),
        say("init.publish", &workflow),
    ));
    let folder = dir.display().to_string();
    let overwritten = new.overwritten().to_string();
    let done = [
        ("folder", folder.as_str()),
        ("files", files.as_str()),
        ("overwritten", overwritten.as_str()),
    ];
    progress.done(&match args.force && new.overwritten() > 0 {
        true => say("init.done_overwritten", &done),
        false => say("init.done", &done),
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Settings;

    #[test]
    fn the_action_is_named_by_the_crate_repository_and_version() {
        let repository = action_repository();
        assert_eq!(repository.split('/').count(), 2, "{repository}");
        for starter in STARTERS {
            let workflow = workflow(starter.workflow);
            let language = starter.language;
            assert!(
                workflow.contains(&format!(
                    "uses: {repository}@v{} #",
                    env!("CARGO_PKG_VERSION")
                )),
                "{language}"
            );
            assert!(
                workflow.contains(&format!("\"$RUNNER_TEMP/pages/{MARKER}\"")),
                "{language}"
            );
            assert!(
                workflow.contains(&format!(
                    "      # {}/blob/v{}/docs/github-actions.md\n",
                    env!("CARGO_PKG_REPOSITORY"),
                    env!("CARGO_PKG_VERSION")
                )),
                "{language}"
            );
            for placeholder in ["@ACTION@", "@VERSION@", "@MARKER@", "@GUIDE@"] {
                assert!(
                    !workflow.contains(placeholder),
                    "{language}: {placeholder} left"
                );
            }
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
            assert!(loaded.title.is_some() && loaded.display_zone.is_some());
            assert!(loaded.staff_emails.wm.is_some());
            assert_eq!(loaded.facilities.len(), 2);
            assert!(loaded.content.is_some() && loaded.static_files.is_some());
            // As written, only the essentials are set: the output and the language.
            let loaded = Settings::parse(config, Path::new("vatcar-site.toml")).unwrap();
            assert_eq!(loaded.output_folder(), Path::new("output"));
            assert_eq!(loaded.language.unwrap().name, starter.language);
            assert!(loaded.title.is_none() && loaded.static_files.is_none());
        }
    }

    /// init speaks every built-in language, and each config teaches the same keys as the
    /// English one: a key added to `init/vatcar-site.toml` goes into each translation too.
    #[test]
    fn every_language_has_a_config_with_every_key() {
        let built_in: Vec<&str> = crate::i18n::BUILT_IN.iter().map(|(l, _)| *l).collect();
        assert_eq!(starters::languages().collect::<Vec<_>>(), built_in);
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
