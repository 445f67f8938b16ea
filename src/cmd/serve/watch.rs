//! Watching what the site is made from (the config file, the templates, `static/` and
//! `content/`) and rebuilding when it changes.
//!
//! The folders are polled: that needs no platform watcher (and no crate), behaves the same on
//! every file system, including network and container mounts where change events are not
//! delivered, and costs little for the few hundred files a site folder holds.

use super::live::Changes;
use crate::cmd::build;
use crate::cmd::options::BuildOptions;
use crate::cmd::progress::Progress;
use crate::secret::ApiKey;
use anyhow::Result;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

/// How often the sources are looked at.
const TICK: Duration = Duration::from_millis(300);
/// A change is built once nothing more changed for this long, so that an editor saving
/// several files (or writing one in steps) makes one rebuild.
const QUIET: Duration = Duration::from_millis(150);
/// Files that never stop changing are built after this long anyway.
const MOST_WAIT: Duration = Duration::from_secs(3);

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
    pub(super) changes: Arc<Changes>,
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

    /// What is watched now; taken before the server answers, so that an edit made the moment
    /// it is up is seen as a change.
    pub(super) fn look(&self, folders: &[PathBuf]) -> Seen {
        Seen {
            config: stamp(&self.config_file),
            files: fingerprint(folders, &self.ignored()),
        }
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
                ignored.extend(parent.canonicalize().ok().map(|p| p.join(&hidden)));
            }
        }
        ignored
    }

    pub(super) fn run(mut self, mut seen: Seen) {
        let mut folders = self.folders();
        let mut config_broken = false;
        loop {
            std::thread::sleep(TICK);
            let now = self.look(&folders);
            if now == seen {
                continue;
            }
            let now = self.settle(now, &folders);
            let what = now.difference(&seen, &self.config_file);
            if now.config != seen.config || config_broken {
                match (self.reconfigure)() {
                    Ok(options) => {
                        self.options = options;
                        config_broken = false;
                        folders = self.folders();
                        self.speak();
                    }
                    Err(error) => {
                        // Tried again at the next change of anything, so that the error is
                        // shown again until it is fixed.
                        self.fail(&error);
                        config_broken = true;
                        seen = now;
                        continue;
                    }
                }
            }
            // Taken before building: whatever changes while it runs is another change.
            seen = self.look(&folders);
            self.rebuild(&what);
        }
    }

    /// `now`, once it has stayed the same for [`QUIET`].
    fn settle(&self, mut now: Seen, folders: &[PathBuf]) -> Seen {
        let started = Instant::now();
        while started.elapsed() < MOST_WAIT {
            std::thread::sleep(QUIET);
            let again = self.look(folders);
            if again == now {
                break;
            }
            now = again;
        }
        now
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
        match build::build(&self.options, &self.progress) {
            Ok(report) => {
                let publish = &report.publish;
                // A rebuild that changed nothing (an editor's backup file, a template no page
                // uses) leaves open pages alone.
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
                self.progress.step(&format!(
                    "rebuilt after a change to {}: {outcome}",
                    what.display()
                ));
            }
            Err(error) => self.fail(&error),
        }
    }

    fn fail(&self, error: &anyhow::Error) {
        let mut text = format!("{error:#}");
        if let Some(key) = &self.key {
            text = key.redact(&text);
        }
        let text = crate::cmd::console::scrub(&text);
        // The pages are told first: once the terminal says so, they know.
        self.changes.fail(text.clone());
        crate::cmd::console::eprint_lines(&format!(
            "error: {text} (still serving the last good build)"
        ));
    }
}

/// The state of the watched files, compared between looks.
#[derive(PartialEq)]
pub(super) struct Seen {
    config: Option<Stamp>,
    files: Vec<(PathBuf, Stamp)>,
}

impl Seen {
    /// A file that differs from `before` (the first by name), to name in the message.
    fn difference(&self, before: &Seen, config_file: &Path) -> PathBuf {
        if self.config != before.config {
            return config_file.to_path_buf();
        }
        let mut differ = self
            .files
            .iter()
            .filter(|file| !before.files.contains(file))
            .chain(
                before
                    .files
                    .iter()
                    .filter(|file| !self.files.contains(file)),
            )
            .map(|(path, _)| path);
        differ.next().cloned().unwrap_or_default()
    }
}

/// A file's modification time and length. An edit that keeps both is not seen; every file
/// system this runs on keeps at least millisecond times, far finer than a person's saves.
type Stamp = (Option<SystemTime>, u64);

fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok(), meta.len()))
}

/// Every file under `folders`, sorted, leaving out the paths in `ignored` (and what is under
/// them). Links are not followed, as the build does not follow them.
fn fingerprint(folders: &[PathBuf], ignored: &[PathBuf]) -> Vec<(PathBuf, Stamp)> {
    let mut out = Vec::new();
    let mut stack = folders.to_vec();
    while let Some(folder) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if ignored.contains(&path) {
                continue;
            }
            match entry.metadata() {
                Ok(meta) if meta.is_dir() => stack.push(path),
                Ok(meta) => out.push((path, (meta.modified().ok(), meta.len()))),
                Err(_) => {}
            }
        }
    }
    out.sort();
    // A folder named twice (`static` beside the config and as configured) is listed once.
    out.dedup();
    out
}
