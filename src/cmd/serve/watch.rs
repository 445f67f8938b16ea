//! Rebuilding when what the site is made from (the config file, the templates, `static/` and
//! `content/`) changes: each burst of changes (`bursts.rs`) one rebuild, the config file read
//! again first when it is among them, and the open pages told how it went.

use super::bursts::{Places, Watching, follow_site_folder};
use super::live::ServedBuild;
use crate::cmd::build;
use crate::cmd::options::BuildOptions;
use crate::cmd::progress::Progress;
use crate::secret::ApiKey;
use anyhow::Result;
use std::ffi::OsString;
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
    pub(super) key: Option<ApiKey>,
    pub(super) changes: Arc<ServedBuild>,
    /// `--poll`: look at the folders rather than wait for events.
    pub(super) poll: bool,
    /// The folder serve was started in, by its absolute name.
    pub(super) site_folder: PathBuf,
    /// The output folder the server serves, resolved.
    pub(super) served: PathBuf,
}

impl Watcher {
    /// The folders a rebuild reads: the ones the options name, and `static/` and `content/`
    /// beside the config file, which the options leave out while they do not exist.
    pub(super) fn folders(&self) -> Vec<PathBuf> {
        let mut folders: Vec<PathBuf> = [
            &self.options.templates,
            &self.options.static_files,
            &self.options.content,
        ]
        .into_iter()
        .flatten()
        .cloned()
        .collect();
        if self.config_file.is_file() {
            let beside = self.config_file.parent().unwrap_or(Path::new(""));
            folders.extend(["static", "content"].map(|name| beside.join(name)));
        }
        folders.sort();
        folders.dedup();
        folders
    }

    fn places(&self) -> Places {
        Places::new(
            &self.config_file,
            &self.folders(),
            self.ignored(),
            &self.site_folder,
        )
    }

    /// Starts watching; taken before the server answers, so that an edit made the moment it
    /// is up is seen as a change.
    pub(super) fn watch(&self) -> Watching {
        Watching::start(self.places(), self.poll)
    }

    /// The output folder and the publisher's files beside it: a site folder that holds the
    /// output would otherwise see each rebuild as a change.
    fn ignored(&self) -> Vec<PathBuf> {
        let output = &self.options.output;
        let mut ignored = vec![output.clone()];
        ignored.extend(output.canonicalize().ok());
        if let (Some(parent), Some(name)) = (output.parent(), output.file_name()) {
            for suffix in ["vatcar-staging", "vatcar-lock"] {
                let mut hidden = OsString::from(".");
                hidden.push(name);
                hidden.push(".");
                hidden.push(suffix);
                ignored.push(parent.join(&hidden));
                let parent = if parent.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    parent
                };
                ignored.extend(parent.canonicalize().ok().map(|p| p.join(&hidden)));
            }
        }
        ignored
    }

    pub(super) fn run(mut self, mut watching: Watching) {
        let mut config_broken = false;
        let mut folder_gone = false;
        loop {
            let burst = watching.next();
            follow_site_folder(&self.site_folder);
            if !self.site_folder.is_dir() {
                if !folder_gone {
                    self.folder_gone();
                    folder_gone = true;
                }
                watching.taken(&burst);
                continue;
            }
            if folder_gone {
                self.progress.step(&format!(
                    "the site folder {} is back",
                    self.site_folder.display()
                ));
                folder_gone = false;
                config_broken = true;
            }
            if watching.names_config(&burst) || config_broken {
                match (self.reconfigure)() {
                    Ok(options) => {
                        self.options = options;
                        config_broken = false;
                        watching.watch_instead(self.places());
                        self.speak();
                    }
                    Err(error) => {
                        // Tried again at the next change of anything, so that the error is
                        // shown again until it is fixed.
                        self.fail(&error);
                        config_broken = true;
                        watching.taken(&burst);
                        continue;
                    }
                }
            }
            // Taken before building: whatever changes while it runs is another change.
            watching.taken(&burst);
            self.rebuild(&burst.what());
        }
    }

    /// The open pages show a failed rebuild in the site's language: the config's, with the
    /// theme's catalogue over the built-in one. A catalogue that does not read keeps the
    /// language they had (the build names its error).
    pub(super) fn speak(&self) {
        let templates = self.options.templates.as_deref();
        if let Ok(texts) = crate::i18n::Texts::load(&self.options.language, templates) {
            self.changes.speak(&texts);
        }
    }

    fn rebuild(&self, what: &Path) {
        crate::cmd::repeats::next_build();
        let built = build::build(&self.options, &self.progress);
        crate::cmd::repeats::build_ended();
        match built {
            Ok(report) => {
                let publish = &report.publish;
                // A rebuild that changed nothing (a template no page uses, a file saved
                // unchanged) leaves open pages alone.
                let changed = publish.written + publish.removed > 0;
                self.changes.succeed(changed);
                let outcome = if changed {
                    format!(
                        "{} written, {} removed; reloading open pages",
                        publish.written, publish.removed
                    )
                } else {
                    "the site is unchanged".to_owned()
                };
                let as_before = match crate::cmd::repeats::warnings_left_out() {
                    0 => String::new(),
                    1 => " (1 warning as before, not repeated)".to_owned(),
                    n => format!(" ({n} warnings as before, not repeated)"),
                };
                self.progress.step(&format!(
                    "rebuilt after a change to {}: {outcome}{as_before}",
                    what.display()
                ));
            }
            Err(error) => self.fail(&error),
        }
    }

    /// Says that the site folder is gone, and what is served until it is back: the last good
    /// build where it is kept elsewhere, nothing where it was inside the folder.
    fn folder_gone(&self) {
        let served = if self.served.is_dir() {
            "still serving the last good build"
        } else {
            "the last build went with it, so pages answer 404 until then"
        };
        let text = format!(
            "the site folder {} is gone; serve builds it again once it is back ({served})",
            self.site_folder.display()
        );
        self.changes.fail(text.clone());
        crate::cmd::console::eprint_lines(&format!("warning: {text}"));
    }

    fn fail(&self, error: &anyhow::Error) {
        let mut text = format!("{error:#}");
        if let Some(key) = &self.key {
            text = key.redact(&text);
        }
        let text = crate::cmd::console::scrub(&text);
        // The pages are told first: once the terminal says so, they know.
        self.changes.fail(text.clone());
        let served = if self.served.is_dir() {
            "still serving the last good build"
        } else {
            "nothing is served until a build succeeds"
        };
        crate::cmd::console::eprint_lines(&format!("error: {text} ({served})"));
    }
}
