//! The only stage that writes to the output folder.
//!
//! Everything is rendered in memory first; then this module makes the folder match, as close
//! to all-or-nothing as a file system allows:
//!
//! 1. Files whose bytes are already on disk are left alone (their mtimes stay, deploys stay
//!    small).
//! 2. Changed and new files are written to a staging folder beside the output folder (same file
//!    system, so renames are atomic). A failure here removes the staging folder and leaves the
//!    output exactly as it was.
//! 3. Each replaced file is moved aside into the staging folder, and the new one renamed into
//!    place; if any rename fails, the moves done so far are undone in reverse.
//! 4. Files this tool wrote last time and no longer produces are removed, and the ownership
//!    marker is updated. Files it did not write are never deleted.
//!
//! A folder that exists, is not empty and has no marker was not written by this tool: it is
//! refused unless `force` is set (and even then only overwritten file by file, never cleared).

use crate::fetch::secret::ApiKey;
pub use crate::render::OutputFile;
use anyhow::{Context, Result, bail};
use std::collections::{BTreeSet, HashSet};
use std::fs;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

/// The marker listing the files this tool wrote into a folder.
pub const MARKER: &str = ".vatcar-site.json";

#[derive(Debug, Default, PartialEq, Eq)]
pub struct PublishReport {
    pub written: usize,
    pub unchanged: usize,
    pub removed: usize,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Marker {
    generator: String,
    /// What the folder holds: `site`, `snapshot` or `reports`. A folder of one kind is never
    /// published over with another, so a report run can never prune a site.
    #[serde(default = "site_kind")]
    kind: String,
    files: BTreeSet<String>,
}

fn site_kind() -> String {
    "site".into()
}

/// How a folder is published.
#[derive(Clone, Copy, Debug)]
pub struct Publish<'a> {
    /// What the folder holds; see `Marker`.
    pub kind: &'a str,
    /// Write into a folder this tool did not create.
    pub force: bool,
    /// Remove files written last time and not produced now. Off for reports, which
    /// accumulate one file per student.
    pub prune: bool,
    /// The API key, when there is one: a file that contains it in any form stops the whole
    /// publication, the last line of defence behind everything that keeps it out.
    pub secret: Option<&'a ApiKey>,
}

impl<'a> Publish<'a> {
    pub fn new(kind: &'a str, force: bool) -> Self {
        Self {
            kind,
            force,
            prune: true,
            secret: None,
        }
    }

    pub fn guarding(self, secret: Option<&'a ApiKey>) -> Self {
        Self { secret, ..self }
    }
}

/// Publishes `files` to `dir` all at once; see [`Staging`] to stream them in.
pub fn publish(dir: &Path, files: &[OutputFile], how: Publish) -> Result<PublishReport> {
    let staging = Staging::begin(dir, how)?;
    for file in files {
        staging.add(&file.path, &file.contents)?;
    }
    staging.commit()
}

/// A publication under way: files are staged beside the output folder as they come (so a
/// large site never has to be held in memory), and the folder itself changes only at
/// [`Staging::commit`]. Dropped without a commit (an error, a failed render), it removes what
/// it staged and the folders it made, and the output folder is exactly as it was.
pub struct Staging {
    dir: PathBuf,
    staging: PathBuf,
    new_dir: PathBuf,
    kind: String,
    prune: bool,
    secret: Option<ApiKey>,
    previous: BTreeSet<String>,
    /// What has been staged so far; `add` is called from every rendering thread.
    added: Mutex<Added>,
    /// Folders made to hold the output, outermost first.
    created: Vec<PathBuf>,
    committed: bool,
}

#[derive(Default)]
struct Added {
    names: BTreeSet<String>,
    changed: Vec<String>,
    unchanged: usize,
    /// Folders made in the staging tree so far: an event's page and its calendar share one,
    /// and asking the file system again costs a failed `mkdir` and a `stat` per file.
    folders: HashSet<String>,
}

impl Staging {
    pub fn begin(dir: &Path, how: Publish) -> Result<Self> {
        let previous = previous_files(dir, how.kind, how.force)?;
        let (parent, created) = parent_of(dir)?;
        let name = dir
            .file_name()
            .with_context(|| format!("{} has no folder name", dir.display()))?
            .to_string_lossy()
            .into_owned();
        let staging = parent.join(format!(".{name}.vatcar-staging-{}", std::process::id()));
        let _ = fs::remove_dir_all(&staging);
        Ok(Self {
            dir: dir.to_path_buf(),
            new_dir: staging.join("new"),
            staging,
            kind: how.kind.to_owned(),
            prune: how.prune,
            secret: how.secret.cloned(),
            previous,
            added: Mutex::default(),
            created,
            committed: false,
        })
    }

    /// Stages one file, unless the output folder has these bytes already. Safe to call from
    /// several threads at once: the file system work happens outside the lock.
    pub fn add(&self, path: &str, contents: &[u8]) -> Result<()> {
        check_relative(path)?;
        if self
            .secret
            .as_ref()
            .is_some_and(|key| key.leaks_into(contents))
        {
            bail!(
                "{path} would contain the API key, so nothing was written; \
                 a template or the API's data put it there"
            );
        }
        // "" is the staging tree's top, which does not exist before the first file.
        let folder = path.rsplit_once('/').map_or("", |(folder, _)| folder);
        let folder_made = {
            let mut added = self.lock();
            if path == MARKER || !added.names.insert(path.to_owned()) {
                bail!("internal error: output path {path:?} is reserved or given twice");
            }
            added.folders.contains(folder)
        };
        if !self.previous.is_empty() && same_bytes(&self.dir.join(path), contents) {
            self.lock().unchanged += 1;
            return Ok(());
        }
        let target = self.new_dir.join(path);
        if !folder_made {
            // Two threads may make the same folder at once; `create_dir_all` allows that.
            let parent = target.parent().expect("a staged file has a parent");
            fs::create_dir_all(parent)
                .with_context(|| format!("could not create {}", parent.display()))?;
            self.lock().folders.insert(folder.to_owned());
        }
        fs::write(&target, contents)
            .with_context(|| format!("could not write {}", target.display()))?;
        self.lock().changed.push(path.to_owned());
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Added> {
        // A thread that panicked while holding the lock left only lists behind; they are
        // still usable, and the staging folder is dropped with the failed build anyway.
        self.added.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Moves the staged files into the output folder, updates the marker, and removes what
    /// this tool wrote before and no longer produces.
    pub fn commit(mut self) -> Result<PublishReport> {
        let Added {
            names,
            mut changed,
            unchanged,
            ..
        } = std::mem::take(&mut *self.lock());
        // Threads add files in no fixed order; the moves below go in path order.
        changed.sort_unstable();
        let listed: BTreeSet<String> = if self.prune {
            names.clone()
        } else {
            self.previous.union(&names).cloned().collect()
        };
        let marker = Marker {
            generator: concat!("vatcar-site ", env!("CARGO_PKG_VERSION")).into(),
            kind: self.kind.clone(),
            files: listed.clone(),
        };
        let mut marker_json = serde_json::to_vec_pretty(&marker)?;
        marker_json.push(b'\n');
        if !fs::read(self.dir.join(MARKER)).is_ok_and(|m| m == marker_json) {
            write_file(&self.new_dir.join(MARKER), &marker_json)?;
            changed.push(MARKER.to_owned());
        }
        let mut report = swap(&self.dir, &self.staging, &changed, &self.previous, &listed)?;
        report.unchanged = unchanged;
        self.committed = true;
        Ok(report)
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.staging);
        if !self.committed {
            // Folders made for the output go again, innermost first, if they stayed empty.
            for folder in self.created.iter().rev() {
                let _ = fs::remove_dir(folder);
            }
        }
    }
}

fn swap(
    dir: &Path,
    staging: &Path,
    changed: &[String],
    previous: &BTreeSet<String>,
    names: &BTreeSet<String>,
) -> Result<PublishReport> {
    let mut report = PublishReport::default();
    let new_dir = staging.join("new");

    if !dir.exists() {
        // Nothing to preserve: the staged tree becomes the folder in one rename.
        fs::rename(&new_dir, dir)
            .with_context(|| format!("could not move the new site into {}", dir.display()))?;
        report.written = changed.iter().filter(|p| *p != MARKER).count();
        return Ok(report);
    }

    let old_dir = staging.join("old");
    let mut done: Vec<(&str, bool)> = Vec::new();
    let swap = |path: &str| -> Result<bool> {
        let target = dir.join(path);
        let had_old = target.exists();
        if had_old {
            let aside = old_dir.join(path);
            fs::create_dir_all(aside.parent().expect("staged paths have a parent"))?;
            fs::rename(&target, &aside)
                .with_context(|| format!("could not move {} aside", target.display()))?;
        }
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent)
                .with_context(|| format!("could not create {}", parent.display()))?;
        }
        let result = fs::rename(new_dir.join(path), &target)
            .with_context(|| format!("could not move the new {} into place", target.display()));
        if let Err(error) = result {
            if had_old {
                let _ = fs::rename(old_dir.join(path), &target);
            }
            return Err(error);
        }
        Ok(had_old)
    };
    for path in changed {
        let path = path.as_str();
        match swap(path) {
            Ok(had_old) => done.push((path, had_old)),
            Err(error) => {
                for (path, had_old) in done.iter().rev() {
                    let target = dir.join(path);
                    let _ = fs::remove_file(&target);
                    if *had_old {
                        let _ = fs::rename(old_dir.join(path), &target);
                    }
                }
                return Err(error);
            }
        }
    }
    report.written = changed.iter().filter(|p| **p != MARKER).count();

    for stale in previous.difference(names) {
        if check_relative(stale).is_err() {
            continue;
        }
        let target = dir.join(stale);
        if fs::remove_file(&target).is_ok() {
            report.removed += 1;
            remove_empty_parents(dir, &target);
        }
    }
    Ok(report)
}

/// The files listed in the folder's marker; an error if the folder holds something else.
fn previous_files(dir: &Path, kind: &str, force: bool) -> Result<BTreeSet<String>> {
    let marker_path = dir.join(MARKER);
    match fs::read(&marker_path) {
        Ok(bytes) => {
            let marker: Marker = serde_json::from_slice(&bytes).with_context(|| {
                format!("{} is damaged; remove it to rebuild", marker_path.display())
            })?;
            if marker.kind != kind {
                bail!(
                    "{} holds a vatcar-site {}, not a {kind}; choose another folder",
                    dir.display(),
                    marker.kind
                );
            }
            Ok(marker.files)
        }
        Err(_) if !dir.exists() => Ok(BTreeSet::new()),
        Err(_) => {
            let mut entries =
                fs::read_dir(dir).with_context(|| format!("could not read {}", dir.display()))?;
            if entries.next().is_some() && !force {
                bail!(
                    "{} is not empty and was not written by vatcar-site; choose another --output, \
                     empty it, or pass --force to write into it anyway (nothing in it is deleted)",
                    dir.display()
                );
            }
            Ok(BTreeSet::new())
        }
    }
}

/// The folder that will hold `dir`, created if need be, and the folders that had to be made
/// (outermost first), so that a failed build can remove them again.
fn parent_of(dir: &Path) -> Result<(PathBuf, Vec<PathBuf>)> {
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let missing: Vec<PathBuf> = parent
        .ancestors()
        .take_while(|a| !a.as_os_str().is_empty() && !a.exists())
        .map(Path::to_path_buf)
        .collect();
    fs::create_dir_all(&parent)
        .with_context(|| format!("could not create the folder {}", parent.display()))?;
    Ok((parent, missing.into_iter().rev().collect()))
}

fn check_relative(path: &str) -> Result<()> {
    let p = Path::new(path);
    let ok = !path.is_empty()
        && p.components().all(|c| matches!(c, Component::Normal(_)))
        && !path.contains('\\');
    if !ok {
        bail!("internal error: output path {path:?} is not a plain relative path");
    }
    Ok(())
}

/// Whether the file at `path` holds exactly `contents`; its length is checked before its bytes
/// are read.
fn same_bytes(path: &Path, contents: &[u8]) -> bool {
    fs::metadata(path).is_ok_and(|m| m.len() == contents.len() as u64)
        && fs::read(path).is_ok_and(|existing| existing == contents)
}

fn write_file(path: &Path, contents: &[u8]) -> Result<()> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)
            .with_context(|| format!("could not create {}", parent.display()))?;
    }
    fs::write(path, contents).with_context(|| format!("could not write {}", path.display()))
}

fn remove_empty_parents(root: &Path, file: &Path) {
    let mut current = file.parent();
    while let Some(dir) = current {
        if dir == root || fs::remove_dir(dir).is_err() {
            break;
        }
        current = dir.parent();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::SystemTime;

    fn files(list: &[(&str, &str)]) -> Vec<OutputFile> {
        list.iter()
            .map(|(p, c)| OutputFile::new(*p, c.as_bytes()))
            .collect()
    }

    fn mtime(path: &Path) -> SystemTime {
        fs::metadata(path).unwrap().modified().unwrap()
    }

    #[test]
    fn files_staged_from_many_threads_all_land_and_a_repeat_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("site");
        let staging = Staging::begin(&dir, Publish::new("site", false)).unwrap();
        // Each event folder gets its page from one thread and its calendar from another, and
        // every thread writes at the top too: folders are made by whichever thread comes first.
        std::thread::scope(|scope| {
            for thread in 0..4 {
                let staging = &staging;
                scope.spawn(move || {
                    staging.add(&format!("top-{thread}.txt"), b"top").unwrap();
                    for i in 0..50 {
                        let path = format!("events/{}/index.html", thread * 50 + i);
                        staging.add(&path, path.as_bytes()).unwrap();
                        let path = format!("events/{}/event.ics", (thread + 1) % 4 * 50 + i);
                        staging.add(&path, path.as_bytes()).unwrap();
                    }
                });
            }
        });
        assert!(staging.add("events/7/index.html", b"again").is_err());
        let report = staging.commit().unwrap();
        assert_eq!(report.written, 404);
        for n in 0..200 {
            for name in ["index.html", "event.ics"] {
                let path = format!("events/{n}/{name}");
                assert_eq!(fs::read_to_string(dir.join(&path)).unwrap(), path);
            }
        }
        for thread in 0..4 {
            assert_eq!(
                fs::read(dir.join(format!("top-{thread}.txt"))).unwrap(),
                b"top"
            );
        }
        let marker: Marker = serde_json::from_slice(&fs::read(dir.join(MARKER)).unwrap()).unwrap();
        assert_eq!(marker.files.len(), 404);
    }

    #[test]
    fn writes_then_leaves_unchanged_files_alone() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("site");
        let first = publish(
            &out,
            &files(&[("index.html", "a"), ("x/y.html", "b")]),
            Publish::new("site", false),
        )
        .unwrap();
        assert_eq!(first.written, 2);
        let before = mtime(&out.join("x/y.html"));
        std::thread::sleep(std::time::Duration::from_millis(20));
        let second = publish(
            &out,
            &files(&[("index.html", "a2"), ("x/y.html", "b")]),
            Publish::new("site", false),
        )
        .unwrap();
        assert_eq!((second.written, second.unchanged), (1, 1));
        assert_eq!(mtime(&out.join("x/y.html")), before);
        assert_eq!(fs::read_to_string(out.join("index.html")).unwrap(), "a2");
        // Nothing stray beside the folder.
        let siblings: Vec<_> = fs::read_dir(tmp.path()).unwrap().collect();
        assert_eq!(siblings.len(), 1);
    }

    #[test]
    fn removes_only_what_it_wrote() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("site");
        publish(
            &out,
            &files(&[("a.html", "a"), ("old/b.html", "b")]),
            Publish::new("site", false),
        )
        .unwrap();
        fs::write(out.join("CNAME"), "example.org").unwrap();
        let report = publish(
            &out,
            &files(&[("a.html", "a")]),
            Publish::new("site", false),
        )
        .unwrap();
        assert_eq!(report.removed, 1);
        assert!(!out.join("old").exists(), "emptied folder removed");
        assert_eq!(
            fs::read_to_string(out.join("CNAME")).unwrap(),
            "example.org"
        );
    }

    #[test]
    fn refuses_a_foreign_folder_unless_forced() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("docs");
        fs::create_dir(&out).unwrap();
        fs::write(out.join("thesis.tex"), "mine").unwrap();
        let error = publish(
            &out,
            &files(&[("index.html", "x")]),
            Publish::new("site", false),
        )
        .unwrap_err();
        assert!(
            error.to_string().contains("not written by vatcar-site"),
            "{error}"
        );
        assert!(!out.join("index.html").exists());
        publish(
            &out,
            &files(&[("index.html", "x")]),
            Publish::new("site", true),
        )
        .unwrap();
        assert_eq!(fs::read_to_string(out.join("thesis.tex")).unwrap(), "mine");
        // An empty folder is fine without --force.
        let empty = tmp.path().join("empty");
        fs::create_dir(&empty).unwrap();
        publish(
            &empty,
            &files(&[("index.html", "x")]),
            Publish::new("site", false),
        )
        .unwrap();
    }

    #[test]
    fn a_failed_write_leaves_the_folder_as_it_was() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("site");
        publish(
            &out,
            &files(&[("a.html", "old"), ("b.html", "old")]),
            Publish::new("site", false),
        )
        .unwrap();
        // A new file whose path collides with an existing file used as a folder cannot be
        // staged... so make the swap fail instead: a path where a folder must replace a file.
        let bad = files(&[("a.html", "new"), ("b.html/c.html", "new")]);
        assert!(publish(&out, &bad, Publish::new("site", false)).is_err());
        assert_eq!(fs::read_to_string(out.join("a.html")).unwrap(), "old");
        assert_eq!(fs::read_to_string(out.join("b.html")).unwrap(), "old");
        let siblings: Vec<_> = fs::read_dir(tmp.path()).unwrap().collect();
        assert_eq!(siblings.len(), 1, "no staging folder left behind");
    }

    #[test]
    fn makes_missing_parent_folders_and_removes_them_after_a_failure() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("a/b/site");
        publish(
            &out,
            &files(&[("index.html", "x")]),
            Publish::new("site", false),
        )
        .unwrap();
        assert!(out.join("index.html").exists());
        let failing = tmp.path().join("c/d/site");
        assert!(
            publish(
                &failing,
                &files(&[("x.html", "x"), ("x.html/y.html", "y")]),
                Publish::new("site", false)
            )
            .is_err()
        );
        assert!(
            !tmp.path().join("c").exists(),
            "folders made for a failed build remain"
        );
    }

    #[test]
    fn never_publishes_one_kind_of_folder_over_another() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("site");
        publish(
            &out,
            &files(&[("index.html", "site")]),
            Publish::new("site", false),
        )
        .unwrap();
        for force in [false, true] {
            let error = publish(
                &out,
                &files(&[("r.html", "x")]),
                Publish::new("reports", force),
            )
            .unwrap_err();
            assert!(
                error
                    .to_string()
                    .contains("holds a vatcar-site site, not a reports"),
                "{error}"
            );
        }
        assert!(out.join("index.html").exists());
    }

    #[test]
    fn without_pruning_earlier_files_stay_and_stay_listed() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("reports");
        let keep = Publish {
            prune: false,
            ..Publish::new("reports", false)
        };
        publish(&out, &files(&[("a.html", "a")]), keep).unwrap();
        publish(&out, &files(&[("b.html", "b")]), keep).unwrap();
        assert!(out.join("a.html").exists() && out.join("b.html").exists());
        // A pruning run later still knows both were written by this tool.
        let report = publish(
            &out,
            &files(&[("c.html", "c")]),
            Publish::new("reports", false),
        )
        .unwrap();
        assert_eq!(report.removed, 2);
    }

    #[test]
    fn rejects_paths_that_escape() {
        let tmp = tempfile::tempdir().unwrap();
        for bad in ["../x", "/etc/passwd", "a/../../b", "", MARKER] {
            assert!(
                publish(
                    &tmp.path().join("s"),
                    &files(&[(bad, "x")]),
                    Publish::new("site", false)
                )
                .is_err(),
                "{bad}"
            );
        }
    }
}
