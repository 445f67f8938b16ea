//! The only stage that writes to an output folder, and it does so all at once.
//!
//! The output folder is vatcar-site's, as in Zola and mdBook: a build writes only into a folder
//! that holds its marker ([`marker`]), an empty one or a missing one. The webmaster's own files
//! (a `CNAME`, `.well-known/`) belong in the site folder's `static/`, and a folder that holds
//! anything the marker does not list is refused, naming it, unless `force` is set.
//!
//! 1. The output folder is resolved once (a link to it is followed, then never again) and
//!    locked, so two runs never publish to it at once; what a dead run left is put right
//!    first ([`swap::recover`]). The working folder (or one holding it) and a folder with a
//!    volume mounted inside are refused ([`place`]).
//! 2. What the folder holds is read without following links ([`tree`]).
//! 3. A new tree is staged beside the folder: changed files written, unchanged ones (the same
//!    bytes as the old file) hard-linked from the old tree. It replaces the old tree in one
//!    atomic exchange ([`swap::exchange`]), so a reader sees the old site or the new one, never
//!    a mix. A rebuild that changes nothing writes nothing.
//! 4. The old tree loses the files its marker lists; anything else in it (saved by the
//!    webmaster while the run staged) is kept beside the output, with a warning
//!    ([`tree::discard`]). Nothing of the webmaster's is ever deleted.
//! 5. On a mount point nothing beside the folder shares its file system: the changed files are
//!    staged inside it and moved in one by one ([`swap::in_place`]).
//!
//! Sites and private folders (reports, snapshots) are never nested in each other.

mod marker;
mod place;
mod signals;
mod swap;
// The kill tests' hook, for the builds `cargo test` makes (scripts/dist.sh checks that a
// release has none).
#[cfg(debug_assertions)]
mod test_pause;
mod tree;

use signals::{Active, check_interrupt};
pub use signals::{Interrupted, interrupt, interrupted};

use crate::output::OutputFile;
use crate::secret::Secrets;
use anyhow::{Context, Result, bail};
use marker::{APART, Marker};
pub use marker::{FolderKind, MARKER};
pub use place::Nested;
use place::{Mode, Place};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::io::{self, ErrorKind};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
#[cfg(debug_assertions)]
pub(crate) use test_pause::pause_for_tests;
use tree::{OldTree, below, check_relative, same_bytes};

#[derive(Debug, Default, PartialEq, Eq)]
pub struct PublishReport {
    pub written: usize,
    pub unchanged: usize,
    pub removed: usize,
}

/// How a folder is published.
#[derive(Clone, Copy, Debug)]
pub struct PublishOptions<'a> {
    /// What the folder holds.
    pub kind: FolderKind,
    /// Publish over a folder that holds files vatcar-site did not write: the old folder, with
    /// them, is kept beside the output.
    pub force: bool,
    /// Remove files written last time and not produced now. Off for reports, which
    /// accumulate one file per student.
    pub prune: bool,
    /// Wait for another run publishing to the same folder, instead of failing at once.
    pub wait: bool,
    /// The run's secrets (the API key, a webhook's address): a file that contains one in any
    /// form stops the whole publication, the last line of defence behind everything that
    /// keeps them out.
    pub secrets: &'a Secrets,
}

impl<'a> PublishOptions<'a> {
    pub fn new(kind: FolderKind, force: bool) -> Self {
        Self {
            kind,
            force,
            prune: true,
            wait: false,
            secrets: Secrets::none(),
        }
    }

    pub fn guarding(self, secrets: &'a Secrets) -> Self {
        Self { secrets, ..self }
    }

    pub fn waiting(self, wait: bool) -> Self {
        Self { wait, ..self }
    }
}

/// Checks `dir` before any work: takes its lock for a moment (failing at once, or waiting,
/// if another run holds it), puts right what a dead run left there, and refuses a place where
/// a folder of this kind must not go. A run that fails later has still tidied up.
pub fn check_and_recover(dir: &Path, options: PublishOptions) -> Result<()> {
    let absolute = std::path::absolute(dir).ok();
    if absolute.is_some_and(|dir| dir.parent().is_some_and(Path::is_dir)) {
        open(dir, options)?;
    }
    Ok(())
}

/// The output folder at `dir`, locked, with what a dead run left there put right.
fn open(dir: &Path, options: PublishOptions) -> Result<Place> {
    let place = Place::open(dir, options.kind, options.wait)?;
    swap::recover(&place)?;
    Ok(place)
}

/// Publishes `files` to `dir` all at once; see [`Staging`] to stream them in.
pub fn publish(dir: &Path, files: &[OutputFile], options: PublishOptions) -> Result<PublishReport> {
    let staging = Staging::begin(dir, options)?;
    for file in files {
        staging.add(&file.path, &file.contents)?;
    }
    staging.commit()
}

/// Refuses two folders of which one is inside the other (a snapshot saved into the site it
/// builds), before anything is written; a [`Nested`] error.
pub fn check_apart(site: &Path, private: &Path) -> Result<()> {
    let (site_path, _) = place::resolve(site)?;
    let (private_path, _) = place::resolve(private)?;
    if site_path.starts_with(&private_path) || private_path.starts_with(&site_path) {
        return Err(Nested(format!(
            "{} and {} are one inside the other: {}",
            site.display(),
            private.display(),
            APART
        ))
        .into());
    }
    Ok(())
}

/// A publication under way: files are staged as they come (so a large site never has to be
/// held in memory), and the output folder changes only at [`Staging::commit`]. Dropped
/// without a commit (an error, a failed render, a signal), it removes what it staged and the
/// folders it made, and the output folder is exactly as it was.
pub struct Staging {
    place: Place,
    staging: PathBuf,
    new_dir: PathBuf,
    kind: FolderKind,
    prune: bool,
    secrets: Secrets,
    old: OldTree,
    /// Each file staged so far, and whether it was written (otherwise the output folder's
    /// file stays); `add` is called from every rendering thread.
    staged: Mutex<HashMap<String, bool>>,
    _active: Active,
}

impl Staging {
    pub fn begin(dir: &Path, options: PublishOptions) -> Result<Self> {
        let place = open(dir, options)?;
        let active = Active::enter();
        check_interrupt()?;
        let previous = Marker::read(&place.dir)?;
        if let Some(marker) = previous
            .as_ref()
            .filter(|marker| marker.kind != options.kind)
        {
            bail!(
                "{} holds a vatcar-site {}, not a {}; choose another folder",
                place.dir.display(),
                marker.kind.in_words(),
                options.kind.in_words()
            );
        }
        let marked = previous.is_some();
        let listed = previous.map(|marker| marker.files.into_iter().collect());
        let old = OldTree::scan(&place.dir, options.kind, listed.unwrap_or_default())?;
        // On a mount point the webmaster's files would stay among the site's, in its way.
        if !old.foreign.is_empty() && (!options.force || place.mode == Mode::InPlace) {
            refuse_foreign(&place, &old.foreign, options, marked)?;
        }
        let staging = place.staging();
        Ok(Self {
            new_dir: staging.join("new"),
            staging,
            kind: options.kind,
            prune: options.prune,
            secrets: options.secrets.clone(),
            staged: Mutex::new(HashMap::with_capacity(old.ours.len())),
            old,
            place,
            _active: active,
        })
    }

    /// Stages one file, unless the output folder has these bytes already. Safe to call from
    /// several threads at once: the file system work happens outside the lock.
    pub fn add(&self, path: &str, contents: &[u8]) -> Result<()> {
        check_interrupt()?;
        check_relative(path)?;
        if !self.secrets.is_empty() {
            // A name is published as surely as a file's bytes; the error names it scrubbed.
            if let Some(what) = self.secrets.found_in(path.as_bytes()) {
                bail!(
                    "{} would contain {what} in its name, so nothing was written; \
                     rename the file or folder of yours it comes from (in static/ or content/)",
                    self.secrets.redact(path)
                );
            }
            if let Some(what) = self.secrets.found_in(contents) {
                bail!(
                    "{path} would contain {what}, so nothing was written; take it out of \
                     what put it there (the config, a flag, a template or the API's data)"
                );
            }
        }
        // Read before the lock is taken.
        let kept = path != MARKER
            && self.old.ours.contains(path)
            && same_bytes(&below(&self.place.dir, path), contents);
        if path == MARKER || self.lock().insert(path.to_owned(), !kept).is_some() {
            bail!("internal error: output path {path:?} is reserved or given twice");
        }
        if !kept {
            let target = below(&self.new_dir, path);
            in_folder(&target, || fs::write(&target, contents))
                .with_context(|| format!("could not write {}", target.display()))?;
        }
        Ok(())
    }

    /// Puts the staged files in place of the old ones, all at once where the file system
    /// allows, with the marker updated and what this tool wrote before and no longer produces
    /// gone.
    pub fn commit(self) -> Result<PublishReport> {
        check_interrupt()?;
        let staged = std::mem::take(&mut *self.lock());
        let mut listed: BTreeMap<&str, bool> = staged
            .iter()
            .map(|(path, written)| (path.as_str(), *written))
            .collect();
        let stale: Vec<&str> = (self.old.ours.iter().map(String::as_str))
            .filter(|path| !staged.contains_key(*path))
            .collect();
        // Reports keep what earlier runs wrote, listed.
        let kept = stale.iter().filter(|_| !self.prune);
        listed.extend(kept.map(|path| (*path, false)));
        let removed = if self.prune { stale.len() } else { 0 };
        let marker = Marker::new(self.kind, listed.keys().copied()).to_json();
        let written = staged.values().filter(|written| **written).count();
        let report = PublishReport {
            written,
            unchanged: staged.len() - written,
            removed,
        };
        if written == 0 && removed == 0 && same_bytes(&self.place.dir.join(MARKER), &marker) {
            return self.finish(report);
        }
        let paths = |written: bool| {
            (listed.iter())
                .filter(|(_, w)| **w == written)
                .map(|(path, _)| *path)
                .collect::<Vec<_>>()
        };
        match self.place.mode {
            Mode::Exchange => {
                let target = self.new_dir.join(MARKER);
                in_folder(&target, || fs::write(&target, &marker))
                    .with_context(|| format!("could not write {}", target.display()))?;
                paths(false)
                    .par_iter()
                    .try_for_each(|path| self.link_unchanged(path))?;
                fs::write(self.staging.join(swap::EXCHANGING), "")
                    .context("could not write the staging folder's state")?;
                pause_for_tests("staged");
                check_interrupt()?;
                swap::exchange(&self.new_dir, &self.place.dir, &self.staging.join("old"))?;
                pause_for_tests("swapped");
            }
            Mode::InPlace => {
                pause_for_tests("staged");
                check_interrupt()?;
                let both: BTreeSet<&str> = listed.keys().chain(&stale).copied().collect();
                let moves = swap::InPlace {
                    both: Marker::new(self.kind, both.into_iter()).to_json(),
                    marker,
                    stale: if self.prune { stale } else { Vec::new() },
                    changed: paths(true),
                };
                fs::create_dir_all(&self.staging)
                    .with_context(|| format!("could not create {}", self.staging.display()))?;
                swap::in_place(&self.place.dir, &self.staging, moves)?;
            }
        }
        self.finish(report)
    }

    /// Links the old tree's file at `path` into the new tree (a copy where the file system has
    /// no hard links): readers of either see the same bytes, and its mtime stays.
    fn link_unchanged(&self, path: &str) -> Result<()> {
        let (source, target) = (below(&self.place.dir, path), below(&self.new_dir, path));
        in_folder(&target, || {
            fs::hard_link(&source, &target).or_else(|_| fs::copy(&source, &target).map(drop))
        })
        .with_context(|| format!("could not keep {} in the new site", source.display()))
    }

    /// The publication is done: the old tree is taken apart and the folders made to hold the
    /// output stay.
    fn finish(mut self, report: PublishReport) -> Result<PublishReport> {
        self.place.keep = true;
        // The drop cleans up again, finding nothing.
        swap::clean(&self.place, Some(&self.old.ours))?;
        Ok(report)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, bool>> {
        // A thread that panicked while holding the lock left only a list behind; it is still
        // usable, and the staging folder is dropped with the failed build anyway.
        self.staged.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Makes the file at `target` with `make`, making its folder first if it is missing (two
/// threads may make one folder at once; `create_dir_all` allows that).
fn in_folder(target: &Path, make: impl Fn() -> io::Result<()>) -> io::Result<()> {
    match make() {
        Err(error) if error.kind() == ErrorKind::NotFound => {
            fs::create_dir_all(target.parent().expect("a staged file has a folder"))?;
            make()
        }
        other => other,
    }
}

/// Refuses a folder that holds what vatcar-site did not write, naming the first few.
fn refuse_foreign(
    place: &Place,
    foreign: &[String],
    options: PublishOptions,
    marked: bool,
) -> Result<()> {
    let what = match marked {
        true => "holds files that vatcar-site did not write",
        false => "is not empty and was not made by vatcar-site",
    };
    let static_hint = match options.kind {
        FolderKind::Site => {
            "; vatcar-site owns its output folder and replaces it whole: your own files (CNAME, \
             .well-known/, verification files) belong in the site folder's static/, from which \
             every build publishes them, so move them there"
        }
        _ => "",
    };
    let force = match place.mode {
        Mode::InPlace => "(--force cannot keep them apart on a mount point)",
        Mode::Exchange => {
            "(--force publishes anyway and keeps the folder as it is now beside the output)"
        }
    };
    bail!(
        "{} {what}: {}{static_hint}, or choose another --output {force}",
        place.dir.display(),
        crate::sanitize::quote::first_few(foreign.iter().cloned(), 5)
    )
}

impl Drop for Staging {
    fn drop(&mut self) {
        if let Err(error) = swap::clean(&self.place, None) {
            log::warn!("could not remove {}: {error:#}", self.staging.display());
        }
    }
}

/// Release builds carry no test hook: no variable of the environment can stop a publication
/// half-way there, and the names of the hook's variables are not in the binary.
#[cfg(not(debug_assertions))]
pub(crate) fn pause_for_tests(_point: &str) {}

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
        let staging = Staging::begin(&dir, PublishOptions::new(FolderKind::Site, false)).unwrap();
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
            PublishOptions::new(FolderKind::Site, false),
        )
        .unwrap();
        assert_eq!(first.written, 2);
        let before = mtime(&out.join("x/y.html"));
        std::thread::sleep(std::time::Duration::from_millis(20));
        let second = publish(
            &out,
            &files(&[("index.html", "a2"), ("x/y.html", "b")]),
            PublishOptions::new(FolderKind::Site, false),
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
    fn removes_what_it_wrote_and_no_longer_makes() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("site");
        publish(
            &out,
            &files(&[("a.html", "a"), ("old/b.html", "b")]),
            PublishOptions::new(FolderKind::Site, false),
        )
        .unwrap();
        let report = publish(
            &out,
            &files(&[("a.html", "a")]),
            PublishOptions::new(FolderKind::Site, false),
        )
        .unwrap();
        assert_eq!(report.removed, 1);
        assert!(!out.join("old").exists(), "emptied folder removed");
        let siblings: Vec<_> = fs::read_dir(tmp.path()).unwrap().collect();
        assert_eq!(siblings.len(), 1);
    }

    #[test]
    fn refuses_a_foreign_folder_unless_forced_and_then_keeps_it_beside() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("docs");
        fs::create_dir(&out).unwrap();
        fs::write(out.join("thesis.tex"), "mine").unwrap();
        let error = publish(
            &out,
            &files(&[("index.html", "x")]),
            PublishOptions::new(FolderKind::Site, false),
        )
        .unwrap_err();
        let error = error.to_string();
        assert!(
            error.contains("is not empty and was not made by vatcar-site: thesis.tex;"),
            "{error}"
        );
        assert!(
            error.contains("belong in the site folder's static/"),
            "{error}"
        );
        assert!(!out.join("index.html").exists());
        publish(
            &out,
            &files(&[("index.html", "x")]),
            PublishOptions::new(FolderKind::Site, true),
        )
        .unwrap();
        assert!(out.join("index.html").exists());
        assert!(!out.join("thesis.tex").exists());
        let kept: Vec<_> = fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p != &out)
            .collect();
        assert_eq!(kept.len(), 1, "{kept:?}");
        assert!(
            kept[0]
                .file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("docs.old-"),
            "{kept:?}"
        );
        assert_eq!(
            fs::read_to_string(kept[0].join("thesis.tex")).unwrap(),
            "mine"
        );
        // An empty folder is fine without --force.
        let empty = tmp.path().join("empty");
        fs::create_dir(&empty).unwrap();
        publish(
            &empty,
            &files(&[("index.html", "x")]),
            PublishOptions::new(FolderKind::Site, false),
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
            PublishOptions::new(FolderKind::Site, false),
        )
        .unwrap();
        // A file and a folder at one path: the publication stops with everything else staged.
        let bad = files(&[
            ("a.html", "new"),
            ("b.html", "new"),
            ("c/d.html", "new"),
            ("c", "x"),
        ]);
        assert!(publish(&out, &bad, PublishOptions::new(FolderKind::Site, false)).is_err());
        assert_eq!(fs::read_to_string(out.join("a.html")).unwrap(), "old");
        assert_eq!(fs::read_to_string(out.join("b.html")).unwrap(), "old");
        let siblings: Vec<_> = fs::read_dir(tmp.path()).unwrap().collect();
        assert_eq!(siblings.len(), 1, "no staging folder or lock left behind");
        // A file of ours may become a folder of ours.
        let grown = files(&[("a.html", "new"), ("b.html/c.html", "new")]);
        publish(&out, &grown, PublishOptions::new(FolderKind::Site, false)).unwrap();
        assert_eq!(
            fs::read_to_string(out.join("b.html/c.html")).unwrap(),
            "new"
        );
    }

    #[test]
    fn makes_missing_parent_folders_and_removes_them_after_a_failure() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("a/b/site");
        publish(
            &out,
            &files(&[("index.html", "x")]),
            PublishOptions::new(FolderKind::Site, false),
        )
        .unwrap();
        assert!(out.join("index.html").exists());
        let failing = tmp.path().join("c/d/site");
        assert!(
            publish(
                &failing,
                &files(&[("x.html", "x"), ("x.html/y.html", "y")]),
                PublishOptions::new(FolderKind::Site, false)
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
            PublishOptions::new(FolderKind::Site, false),
        )
        .unwrap();
        for force in [false, true] {
            let error = publish(
                &out,
                &files(&[("r.html", "x")]),
                PublishOptions::new(FolderKind::Reports, force),
            )
            .unwrap_err();
            assert!(
                error
                    .to_string()
                    .contains("holds a vatcar-site site, not a reports folder;"),
                "{error}"
            );
        }
        assert!(out.join("index.html").exists());
    }

    #[test]
    fn without_pruning_earlier_files_stay_and_stay_listed() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("reports");
        let keep = PublishOptions {
            prune: false,
            ..PublishOptions::new(FolderKind::Reports, false)
        };
        publish(&out, &files(&[("a.html", "a")]), keep).unwrap();
        publish(&out, &files(&[("b.html", "b")]), keep).unwrap();
        assert!(out.join("a.html").exists() && out.join("b.html").exists());
        // A pruning run later still knows both were written by this tool.
        let report = publish(
            &out,
            &files(&[("c.html", "c")]),
            PublishOptions::new(FolderKind::Reports, false),
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
                    PublishOptions::new(FolderKind::Site, false)
                )
                .is_err(),
                "{bad}"
            );
        }
    }
}
