//! The only stage that writes to an output folder, and it does so all at once.
//!
//! Files are rendered in memory and staged as they come; the folder changes only at
//! [`Staging::commit`]:
//!
//! 1. The output folder is resolved once (a link to it is followed, then never again) and
//!    locked, so two runs never publish to it at once; what a dead run left is cleaned up or
//!    put back first ([`swap::recover`]). The working folder (or one holding it) and a folder
//!    with a volume mounted inside ([`mounts`]) are refused.
//! 2. What the folder holds is read without following links ([`tree`]). Files the marker
//!    ([`marker`]) lists are ours; everything else is the webmaster's and is never deleted:
//!    overwriting a file of theirs needs `force`, and a folder or link of theirs where we need
//!    a path is an error. No path is ever written, replaced or deleted through a link.
//! 3. A new tree is staged beside the folder: changed files written, unchanged ones and the
//!    webmaster's own hard-linked in ([`carry`]; their bytes and mtimes stay). It replaces the
//!    old tree in one atomic swap ([`swap::exchange`]), so a reader sees the old site or the
//!    new one, never a mix. A rebuild that changes nothing swaps nothing; one whose changes
//!    lie in one folder swaps that folder alone, the marker replaced before and after
//!    ([`commit::exchange`]). What the webmaster
//!    added or saved while this run staged is moved from the old tree into the new one, and
//!    the old tree is removed, never across a mount point.
//! 4. On a mount point nothing beside the folder shares its file system: files are staged
//!    inside it and moved in one by one, with a journal that lets a failure, or the next run
//!    after a kill, undo the moves ([`swap::in_place`]).
//!
//! A folder that exists, is not empty and has no marker is refused unless `force` is set, and
//! sites and private folders (reports, snapshots) are never nested in each other.

mod carry;
mod commit;
mod files;
mod marker;
mod mounts;
mod place;
mod signals;
mod stamp;
mod swap;
// The kill tests' hook, for the builds `cargo test` makes (scripts/dist.sh checks that a
// release has none).
#[cfg(debug_assertions)]
mod test_pause;
mod tree;

use carry::Carry;
use files::{check_relative, same_bytes, write_file, write_staged};
use signals::{Active, check_interrupt};
pub use signals::{Interrupted, interrupt, interrupted};

use crate::output::OutputFile;
use crate::secret::Secrets;
use anyhow::{Context, Result, anyhow, bail};
use marker::Marker;
pub use marker::{FolderKind, MARKER};
pub use place::Nested;
use place::{Mode, Place};
use stamp::{Seen, Stamp};
use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
#[cfg(debug_assertions)]
pub(crate) use test_pause::pause_for_tests;
use tree::{Entry, OldTree, below};

#[derive(Debug, Default, PartialEq, Eq)]
pub struct PublishReport {
    pub written: usize,
    pub unchanged: usize,
    pub removed: usize,
    /// Files that were the webmaster's, overwritten because `force` was given.
    pub overwritten: Vec<String>,
    /// Bytes written to the file system, the marker's among them (a file kept by a hard link
    /// writes none).
    pub bytes_written: u64,
}

/// How a folder is published.
#[derive(Clone, Copy, Debug)]
pub struct Publish<'a> {
    /// What the folder holds.
    pub kind: FolderKind,
    /// Write into a folder this tool did not create, and overwrite files it did not write.
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

impl<'a> Publish<'a> {
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
pub fn tidy(dir: &Path, how: Publish) -> Result<()> {
    let has_parent = std::path::absolute(dir)
        .ok()
        .and_then(|d| d.parent().map(Path::is_dir))
        .unwrap_or(false);
    if has_parent {
        open(dir, how)?;
    }
    Ok(())
}

/// The output folder at `dir`, locked, with what a dead run left there put right.
fn open(dir: &Path, how: Publish) -> Result<Place> {
    let place = Place::open(dir, how.kind, how.wait)?;
    swap::recover(&place)?;
    Ok(place)
}

/// Publishes `files` to `dir` all at once; see [`Staging`] to stream them in.
pub fn publish(dir: &Path, files: &[OutputFile], how: Publish) -> Result<PublishReport> {
    let staging = Staging::begin(dir, how)?;
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
            FolderKind::apart_advice(FolderKind::Site, FolderKind::Snapshot)
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
    force: bool,
    secrets: Secrets,
    /// The files the marker lists, each with the stamp it recorded, if that reads. Looked
    /// up for every file a rebuild publishes, so hashed.
    previous: HashMap<String, Option<Stamp>>,
    /// Whether the marker is as this version writes it, with a stamp that reads for each file.
    marker_as_written: bool,
    /// The hash of the marker's bytes as they are on disk, to tell whether it changes (a large
    /// site's marker is 4 MB, not worth holding through the build).
    previous_marker: Option<u128>,
    old: OldTree,
    /// What has been staged so far; `add` is called from every rendering thread.
    added: Mutex<Added>,
    /// Bytes written into the staging folder so far.
    bytes_written: AtomicU64,
    committed: bool,
    _active: Active,
}

#[derive(Default)]
struct Added {
    /// Each file staged so far, written or kept.
    files: HashMap<String, Staged>,
    /// Files kept on their stamp's word: their stamps stay as they were.
    vouched: usize,
    /// Folders made in the staging tree so far: an event's page and its calendar share one,
    /// and asking the file system again costs a failed `mkdir` and a `stat` per file.
    folders: HashSet<String>,
}

/// One file of the publication.
#[derive(Clone, Copy)]
struct Staged {
    /// Written into the staging folder; otherwise the output folder's file stays.
    written: bool,
    /// Its stamp, for the next marker: every file written has one (where the platform shows
    /// inodes), so it is held in place, not boxed.
    stamp: Option<Stamp>,
}

impl Staging {
    pub fn begin(dir: &Path, how: Publish) -> Result<Self> {
        let place = open(dir, how)?;
        let active = Active::enter();
        check_interrupt()?;
        let (previous, marker_as_written, previous_marker) =
            match Marker::read_with_bytes(&place.dir)? {
                Some((marker, _)) if marker.kind != how.kind => bail!(
                    "{} holds a vatcar-site {}, not a {}; choose another folder",
                    place.dir.display(),
                    marker.kind.in_words(),
                    how.kind.in_words()
                ),
                Some((marker, bytes)) => {
                    let (mut files, as_written) = marker.into_files();
                    let marker_seen = fs::symlink_metadata(place.dir.join(MARKER))
                        .ok()
                        .and_then(|meta| Seen::of(&meta));
                    stamp::distrust_racy(files.values_mut(), marker_seen);
                    (files, as_written, Some(stamp::hash(&bytes)))
                }
                None => (HashMap::new(), false, None),
            };
        let skip = (place.mode == Mode::InPlace).then_some(place::IN_PLACE_STAGING);
        let scanning = std::time::Instant::now();
        // Without stamps to check them against, the files' own `stat`s would be wasted.
        let stamped = previous.values().any(Option::is_some);
        // Our sites hold about one folder for every two files.
        let expected = previous.len().saturating_add(previous.len() / 2);
        let old = OldTree::scan(&place.dir, how.kind, skip, stamped, expected)?;
        log::debug!(
            "read {} entries of {} in {} ms",
            old.entries.len(),
            place.dir.display(),
            scanning.elapsed().as_millis()
        );
        if previous_marker.is_none() && !old.entries.is_empty() && !how.force {
            bail!(
                "{} is not empty and was not written by vatcar-site; choose another --output, \
                 empty it, or pass --force to write into it anyway (nothing in it is deleted)",
                place.dir.display()
            );
        }
        let staging = place.staging();
        // A rebuild stages about as many files as the last build listed.
        let previous_count = previous.len();
        Ok(Self {
            new_dir: staging.join("new"),
            staging,
            kind: how.kind,
            prune: how.prune,
            force: how.force,
            secrets: how.secrets.clone(),
            previous,
            marker_as_written,
            previous_marker,
            old,
            added: Mutex::new(Added {
                files: HashMap::with_capacity(previous_count),
                ..Added::default()
            }),
            bytes_written: AtomicU64::new(0),
            committed: false,
            place,
            _active: active,
        })
    }

    /// Stages one file, unless the output folder has these bytes already. Safe to call from
    /// several threads at once: the file system work happens outside the lock.
    pub fn add(&self, path: &str, contents: &[u8]) -> Result<()> {
        self.add_made_from(path, contents, None)
    }

    /// Whether pages may be kept on the hash of their inputs: by this build, over a build of
    /// this tool, and by the next one, over this build, so that the first rebuild after a full
    /// build keeps them already. Never with a secret in play (see
    /// [`Staging::keep_made_from`]), so then no page's inputs are worth hashing.
    pub fn may_keep_pages(&self) -> bool {
        self.secrets.is_empty()
    }

    /// Keeps the output folder's page at `path` if the last build made it from inputs that
    /// hash to `input` and it still looks as that build left it ([`stamp`]): then the page
    /// need not be made again, and `true` says so. Never with a secret: the page was scanned
    /// for the secrets of its own build, which need not be this one's.
    pub fn keep_made_from(&self, path: &str, input: u128) -> bool {
        if !self.secrets.is_empty() || path == MARKER || check_relative(path).is_err() {
            return false;
        }
        let (Some(Some(recorded)), Some((Entry::File, Some(seen)))) =
            (self.previous.get(path), self.old.lookup(path))
        else {
            return false;
        };
        if recorded.seen != seen || recorded.input != Some(input) {
            return false;
        }
        let mut added = self.lock();
        let std::collections::hash_map::Entry::Vacant(place) = added.files.entry(path.to_owned())
        else {
            return false;
        };
        place.insert(Staged {
            written: false,
            stamp: Some(*recorded),
        });
        added.vouched += 1;
        true
    }

    /// [`Staging::add`] for a page made from inputs that hash to `input`, recorded in its
    /// stamp for [`Staging::keep_made_from`].
    pub fn add_made_from(&self, path: &str, contents: &[u8], input: Option<u128>) -> Result<()> {
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
        let given_twice =
            || anyhow!("internal error: output path {path:?} is reserved or given twice");
        if path == MARKER {
            return Err(given_twice());
        }
        // Every file is stamped, a full build's too: the stamps let the next build keep it
        // unread, where without them it would compare every file byte by byte. Hashed while
        // the bytes are still in the cache from the key scan (or from rendering).
        let hash = stamp::hash(contents);
        // Asked before the lock is taken: it may read the old file.
        let kept = self.kept(path, contents, hash);
        // "" is the staging tree's top, which does not exist before the first file.
        let folder = path.rsplit_once('/').map_or("", |(folder, _)| folder);
        let folder_made = {
            let mut added = self.lock();
            let std::collections::hash_map::Entry::Vacant(place) =
                added.files.entry(path.to_owned())
            else {
                return Err(given_twice());
            };
            if let Some((seen, vouched)) = kept {
                place.insert(Staged {
                    written: false,
                    stamp: seen.map(|seen| Stamp { seen, hash, input }),
                });
                // A stamp that gains the hash of the page's inputs changes the marker.
                let same_input = self
                    .previous
                    .get(path)
                    .is_some_and(|recorded| recorded.is_some_and(|s| s.input == input));
                added.vouched += usize::from(vouched && same_input);
                return Ok(());
            }
            place.insert(Staged {
                written: true,
                stamp: None,
            });
            added.folders.contains(folder)
        };
        let target = below(&self.new_dir, path);
        if !folder_made {
            // Two threads may make the same folder at once; `create_dir_all` allows that.
            let parent = target.parent().expect("a staged file has a parent");
            fs::create_dir_all(parent)
                .with_context(|| format!("could not create {}", parent.display()))?;
            self.lock().folders.insert(folder.to_owned());
        }
        let seen = write_staged(&target, contents)
            .with_context(|| format!("could not write {}", target.display()))?;
        self.bytes_written
            .fetch_add(contents.len() as u64, Ordering::Relaxed);
        if let Some(seen) = seen
            && let Some(staged) = self.lock().files.get_mut(path)
        {
            staged.stamp = Some(Stamp { seen, hash, input });
        }
        Ok(())
    }

    /// Whether the output folder's file at `path` is ours and holds `contents` (of which
    /// `hash` is the hash), so that it stays: `Some`, with how the file looks for its stamp
    /// and whether its stamp vouched for it.
    /// Only a file the scan saw as a regular file, reached through real folders, counts:
    /// nothing is read or kept through a link. A file that still looks as its stamp recorded
    /// it, with the hash recorded, is not read; any other is compared byte by byte.
    fn kept(&self, path: &str, contents: &[u8], hash: u128) -> Option<(Option<Seen>, bool)> {
        let recorded = self.previous.get(path)?;
        let Some((Entry::File, seen)) = self.old.lookup(path) else {
            return None;
        };
        if let (Some(recorded), Some(seen)) = (recorded, seen)
            && recorded.seen == seen
        {
            if recorded.hash == hash {
                return Some((Some(seen), true));
            }
            // The file is as this tool left it, and these bytes are not what it wrote.
            return None;
        }
        same_bytes(&below(&self.place.dir, path), contents).map(|meta| (Seen::of(&meta), false))
    }

    /// Bytes of the files staged so far that differ from the output folder's (the others are
    /// not written).
    pub fn bytes_written(&self) -> u64 {
        self.bytes_written.load(Ordering::Relaxed)
    }

    /// Puts the staged files in place of the old ones, all at once where the file system
    /// allows, with the marker updated and what this tool wrote before and no longer produces
    /// gone. The webmaster's own files stay.
    pub fn commit(mut self) -> Result<PublishReport> {
        check_interrupt()?;
        let Added { files, vouched, .. } = std::mem::take(&mut *self.lock());
        let carry = Carry {
            dir: &self.place.dir,
            new_dir: &self.new_dir,
            old: &self.old,
            previous: &self.previous,
            made: &files,
            force: self.force,
        };
        // A file kept is one the marker lists and the scan saw as a regular file, reached
        // through real folders: nothing in the old tree stands in its way.
        let overwritten = carry.check_ownership()?;
        if self.marker_as_written && vouched == files.len() && files.len() == self.previous.len() {
            // Every file was kept on its stamp's word, and they are the files listed: the
            // marker would be written again as it is, so it is neither made nor compared.
            self.finish();
            return Ok(PublishReport {
                unchanged: files.len(),
                ..PublishReport::default()
            });
        }
        let listing = commit::Listing::new(&files, &self.previous, &self.old, self.prune);
        let marker = listing.marker(self.kind);
        let marker_changed = self.previous_marker != Some(stamp::hash(&marker));
        let written = listing.changed().count();
        let mut report = PublishReport {
            written,
            unchanged: files.len() - written,
            removed: listing.stale.len(),
            overwritten,
            bytes_written: self.bytes_written(),
        };
        if written == 0
            && listing.stale.is_empty()
            && (!marker_changed || self.previous_marker.is_some())
        {
            // Nothing to swap: the folder is already this site, mtimes and all. Its marker
            // may change alone (stamps made for files compared byte by byte, a listed file
            // gone): it is replaced by itself, in one rename.
            if marker_changed {
                report.bytes_written +=
                    commit::replace_marker(&self.new_dir, &self.place.dir, &marker)?;
            }
            self.finish();
            return Ok(report);
        }
        report.bytes_written += match self.place.mode {
            Mode::Exchange => {
                commit::exchange(&carry, &listing, &self.staging, self.kind, &marker)?
            }
            Mode::InPlace => {
                write_file(&self.new_dir.join(MARKER), &marker)?;
                commit::in_place(
                    &self.place.dir,
                    &self.staging,
                    &listing,
                    &self.old,
                    self.previous_marker.is_some(),
                )?;
                marker.len() as u64
            }
        };
        self.finish();
        Ok(report)
    }

    /// The publication is done: the folders made to hold the output stay.
    fn finish(&mut self) {
        self.committed = true;
        self.place.keep = true;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Added> {
        // A thread that panicked while holding the lock left only lists behind; they are
        // still usable, and the staging folder is dropped with the failed build anyway.
        self.added.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        // After a swap the staging folder holds the old tree; before, a partial new one.
        if let Err(error) = mounts::remove_tree(&self.staging) {
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
        let staging = Staging::begin(&dir, Publish::new(FolderKind::Site, false)).unwrap();
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
    fn a_file_is_the_same_only_with_every_byte_the_same() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("page.html");
        // Longer than the blocks the comparison reads, by a few bytes.
        let long: Vec<u8> = (0..200_003u32).map(|i| (i % 251) as u8).collect();
        fs::write(&path, &long).unwrap();
        assert!(same_bytes(&path, &long).is_some());
        let mut last_differs = long.clone();
        *last_differs.last_mut().unwrap() ^= 1;
        assert!(same_bytes(&path, &last_differs).is_none());
        assert!(same_bytes(&path, &long[..long.len() - 1]).is_none());
        assert!(same_bytes(&path, &[long.as_slice(), b"x"].concat()).is_none());
        fs::write(&path, b"").unwrap();
        assert!(same_bytes(&path, b"").is_some());
        assert!(same_bytes(&tmp.path().join("missing.html"), b"").is_none());
    }

    #[test]
    fn writes_then_leaves_unchanged_files_alone() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("site");
        let first = publish(
            &out,
            &files(&[("index.html", "a"), ("x/y.html", "b")]),
            Publish::new(FolderKind::Site, false),
        )
        .unwrap();
        assert_eq!(first.written, 2);
        let before = mtime(&out.join("x/y.html"));
        std::thread::sleep(std::time::Duration::from_millis(20));
        let second = publish(
            &out,
            &files(&[("index.html", "a2"), ("x/y.html", "b")]),
            Publish::new(FolderKind::Site, false),
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
            Publish::new(FolderKind::Site, false),
        )
        .unwrap();
        fs::write(out.join("CNAME"), "example.org").unwrap();
        let report = publish(
            &out,
            &files(&[("a.html", "a")]),
            Publish::new(FolderKind::Site, false),
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
            Publish::new(FolderKind::Site, false),
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
            Publish::new(FolderKind::Site, true),
        )
        .unwrap();
        assert_eq!(fs::read_to_string(out.join("thesis.tex")).unwrap(), "mine");
        // An empty folder is fine without --force.
        let empty = tmp.path().join("empty");
        fs::create_dir(&empty).unwrap();
        publish(
            &empty,
            &files(&[("index.html", "x")]),
            Publish::new(FolderKind::Site, false),
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
            Publish::new(FolderKind::Site, false),
        )
        .unwrap();
        // The webmaster's own folder where a new page must go stops the publication after
        // everything was staged.
        fs::create_dir(out.join("c.html")).unwrap();
        fs::write(out.join("c.html/notes.txt"), "mine").unwrap();
        let bad = files(&[("a.html", "new"), ("b.html", "new"), ("c.html", "new")]);
        let error = publish(&out, &bad, Publish::new(FolderKind::Site, true)).unwrap_err();
        assert!(
            format!("{error:#}").contains("is a folder of yours"),
            "{error:#}"
        );
        assert_eq!(fs::read_to_string(out.join("a.html")).unwrap(), "old");
        assert_eq!(fs::read_to_string(out.join("b.html")).unwrap(), "old");
        assert_eq!(
            fs::read_to_string(out.join("c.html/notes.txt")).unwrap(),
            "mine"
        );
        let siblings: Vec<_> = fs::read_dir(tmp.path()).unwrap().collect();
        assert_eq!(siblings.len(), 1, "no staging folder or lock left behind");
        // A file of ours may become a folder of ours.
        let grown = files(&[("a.html", "new"), ("b.html/c.html", "new")]);
        fs::remove_dir_all(out.join("c.html")).unwrap();
        publish(&out, &grown, Publish::new(FolderKind::Site, false)).unwrap();
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
            Publish::new(FolderKind::Site, false),
        )
        .unwrap();
        assert!(out.join("index.html").exists());
        let failing = tmp.path().join("c/d/site");
        assert!(
            publish(
                &failing,
                &files(&[("x.html", "x"), ("x.html/y.html", "y")]),
                Publish::new(FolderKind::Site, false)
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
            Publish::new(FolderKind::Site, false),
        )
        .unwrap();
        for force in [false, true] {
            let error = publish(
                &out,
                &files(&[("r.html", "x")]),
                Publish::new(FolderKind::Reports, force),
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
        let keep = Publish {
            prune: false,
            ..Publish::new(FolderKind::Reports, false)
        };
        publish(&out, &files(&[("a.html", "a")]), keep).unwrap();
        publish(&out, &files(&[("b.html", "b")]), keep).unwrap();
        assert!(out.join("a.html").exists() && out.join("b.html").exists());
        // A pruning run later still knows both were written by this tool.
        let report = publish(
            &out,
            &files(&[("c.html", "c")]),
            Publish::new(FolderKind::Reports, false),
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
                    Publish::new(FolderKind::Site, false)
                )
                .is_err(),
                "{bad}"
            );
        }
    }
}
