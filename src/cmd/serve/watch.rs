//! Rebuilding when what the site is made from (the config file, the templates, `static/` and
//! `content/`) changes: each burst of changes (`bursts.rs`) one rebuild, the config file read
//! again first when it is among them, and the open pages told how it went.

use super::bursts::{Burst, POLL, Places, Watching, fingerprint};
use super::live::ServedBuild;
use crate::cmd::build;
use crate::cmd::options::BuildOptions;
use crate::cmd::progress::{Progress, count};
use crate::cmd::repeats;
use anyhow::Result;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Reads the config file again and gives the options it makes, with what serve keeps for its
/// whole run (the data, the output folder, the build time, the key) pinned.
pub(super) type Reconfigure = Box<dyn Fn() -> Result<BuildOptions> + Send>;

pub(super) struct Watcher {
    pub(super) reconfigure: Reconfigure,
    /// The config file, whether or not it exists yet.
    pub(super) config_file: PathBuf,
    pub(super) options: BuildOptions,
    pub(super) progress: Arc<Progress>,
    pub(super) changes: Arc<ServedBuild>,
    /// `--poll`: look at the folders rather than wait for events.
    pub(super) poll: bool,
    /// The folder serve was started in, by its absolute name: the relative paths it was given
    /// name places in it, and a folder removed and put back is another one, to work in anew.
    pub(super) site_folder: PathBuf,
    /// The output folder's real path, served from; set once the first build made it.
    pub(super) served: PathBuf,
}

impl Watcher {
    /// The folders a rebuild reads: the ones the options name, and `static/` and `content/`
    /// beside the config file, which the options leave out while they do not exist.
    pub(super) fn folders(&self) -> Vec<PathBuf> {
        let given = &self.options;
        let given = [
            &given.settings.templates,
            &given.static_files,
            &given.content,
        ];
        let mut folders: Vec<PathBuf> = given.into_iter().flatten().cloned().collect();
        if self.config_file.is_file() {
            let beside = self.config_file.parent().unwrap_or(Path::new(""));
            folders.extend(["static", "content"].map(|name| beside.join(name)));
        }
        folders.sort();
        folders.dedup();
        folders
    }

    /// The places to watch; the output folder (as given and real) is never looked into: a
    /// watched folder that holds it would otherwise see each rebuild as a change.
    fn places(&self) -> Places {
        let output = &self.options.output;
        let real = output.canonicalize().ok();
        Places {
            config: self.config_file.clone(),
            folders: self.folders(),
            ignored: [output.clone()].into_iter().chain(real).collect(),
        }
    }

    /// Starts watching; taken before the server answers, so that an edit made the moment it
    /// is up is seen as a change.
    pub(super) fn watch(&self) -> Watching {
        Watching::start(self.places(), self.poll)
    }

    pub(super) fn run(mut self, mut watching: Watching) {
        let mut config_broken = false;
        loop {
            let burst = watching.next(&self.site_folder).unwrap_or_else(|| {
                watching = self.come_back();
                // Whatever was put back may hold another config file.
                config_broken = true;
                Burst(vec![self.site_folder.clone()])
            });
            // A burst names the config file first.
            if burst.0.first() == Some(&self.config_file) || config_broken {
                match (self.reconfigure)() {
                    Ok(options) => {
                        self.options = options;
                        config_broken = false;
                        watching.watch(self.places());
                        self.speak();
                    }
                    Err(error) => {
                        // Tried again at the next change of anything, so that the error is
                        // shown again until it is fixed.
                        self.fail(&error);
                        config_broken = true;
                        continue;
                    }
                }
            }
            self.rebuild(&burst.what());
        }
    }

    /// The open pages show a failed rebuild in the site's language: the config's, with the
    /// theme's catalogue over the built-in one. A catalogue that does not read keeps the
    /// language they had (the build names its error).
    pub(super) fn speak(&self) {
        let templates = self.options.settings.templates.as_deref();
        if let Ok(texts) = crate::i18n::Texts::load(&self.options.language, templates) {
            self.changes.speak(&texts);
        }
    }

    /// The site folder is gone (removed, or renamed away): says so, and what is served
    /// meanwhile (the last good build where it is kept elsewhere, nothing where it was inside
    /// the folder), waits until a folder is at its path again and has stopped changing (a copy
    /// being made), and works in that one from then on.
    fn come_back(&self) -> Watching {
        let served = match self.served.is_dir() {
            true => "still serving the last good build",
            false => "the last build went with it, so pages answer 404 until then",
        };
        let folder = self.site_folder.display();
        let text = format!(
            "the site folder {folder} is gone; serve builds it again once it is back ({served})"
        );
        self.changes.fail(text.clone());
        crate::cmd::console::eprint_lines(&format!("warning: {text}"));
        let mut before = None;
        loop {
            std::thread::sleep(POLL);
            let now = (self.site_folder.is_dir())
                .then(|| fingerprint(std::slice::from_ref(&self.site_folder), &[]));
            if now.is_some()
                && now == before
                && std::env::set_current_dir(&self.site_folder).is_ok()
            {
                break;
            }
            before = now;
        }
        self.progress
            .step(&format!("the site folder {folder} is back"));
        self.watch()
    }

    fn rebuild(&self, what: &Path) {
        repeats::next_build();
        let built = build::build(&self.options, &self.progress);
        repeats::build_ended();
        match built {
            Ok(report) => {
                let (written, removed) = (report.publish.written, report.publish.removed);
                // A rebuild that changed nothing (a template no page uses, a file saved
                // unchanged) leaves open pages alone.
                let changed = written + removed > 0;
                self.changes.succeed(changed);
                let outcome = match changed {
                    true => format!("{written} written, {removed} removed; reloading open pages"),
                    false => "the site is unchanged".to_owned(),
                };
                let as_before = match repeats::warnings_left_out() {
                    0 => String::new(),
                    n => format!(" ({} as before, not repeated)", count(n, "warning")),
                };
                let what = what.display();
                (self.progress).step(&format!(
                    "rebuilt after a change to {what}: {outcome}{as_before}"
                ));
            }
            Err(error) => self.fail(&error),
        }
    }

    fn fail(&self, error: &anyhow::Error) {
        let mut text = format!("{error:#}");
        if let Some(key) = &self.options.key {
            text = key.redact(&text);
        }
        let text = crate::cmd::console::scrub(&text);
        // The pages are told first: once the terminal says so, they know.
        self.changes.fail(text.clone());
        let served = match self.served.is_dir() {
            true => "still serving the last good build",
            false => "nothing is served until a build succeeds",
        };
        crate::cmd::console::eprint_lines(&format!("error: {text} ({served})"));
    }
}
