//! Where a publication goes: the output folder resolved once, whether it is a mount point,
//! the lock that keeps two runs apart, and the folders it must never be: the working folder,
//! one with a volume mounted inside, a private folder inside a site or the reverse.

use super::marker::{APART, FolderKind, Marker};
use anyhow::{Context, Result, bail};
use std::fs::{self, File};
use std::path::{Component, Path, PathBuf};

/// A private folder inside a site, or a site inside a private folder: a usage error (exit 2).
pub use crate::usage::UsageError as Nested;

/// How the new folder replaces the old one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// The new tree is built beside the output folder and swapped with it in one rename:
    /// readers see the old folder or the new one, never a mix.
    Exchange,
    /// The output folder is a mount point: nothing beside it is on its file system, so the
    /// changed files are staged inside it and moved into place one by one.
    InPlace,
}

/// The resolved output folder, locked for this run.
pub(super) struct Place {
    /// Absolute, without links, with a parent: every path below is built from it.
    pub dir: PathBuf,
    pub mode: Mode,
    /// Folders made to hold the output, outermost first, removed again unless `keep` is set
    /// (the publication succeeded).
    pub created: Vec<PathBuf>,
    pub keep: bool,
    lock: Option<Lock>,
}

/// The staging folder's name inside a mounted output folder; never published, never listed.
pub(super) const IN_PLACE_STAGING: &str = ".vatcar-staging";

impl Place {
    /// Resolves `dir` and takes the lock (waiting for it if `wait`). What runs that died while
    /// publishing here left is the caller's to put right, with the lock held
    /// ([`super::swap::recover`]).
    pub fn open(dir: &Path, kind: FolderKind, wait: bool) -> Result<Place> {
        let (dir, created) = resolve(dir)?;
        if dir.parent().is_none() {
            bail!("{} cannot be an output folder", dir.display());
        }
        check_ancestors(&dir, kind)?;
        check_not_working_folder(&dir)?;
        check_no_mounts_inside(&dir)?;
        if let Some(last) = created.last() {
            fs::create_dir_all(last)
                .with_context(|| format!("could not create the folder {}", last.display()))?;
        }
        let mut place = Place {
            dir,
            mode: Mode::Exchange,
            created,
            keep: false,
            lock: None,
        };
        if place.dir.is_dir() && is_mount_point(&place.dir) {
            log::info!(
                "{} is a mount point: new files are moved into it one by one (see \"A mount \
                 point\" in vatcar-site's docs/dev/guarantees.md)",
                place.dir.display()
            );
            place.mode = Mode::InPlace;
        }
        // On a mount point the folder itself is never swapped away, so it can carry the lock.
        let lock_file = (place.mode == Mode::Exchange).then(|| place.beside("vatcar-lock"));
        place.lock = Some(Lock::take(
            lock_file.as_deref().unwrap_or(&place.dir),
            &place.dir,
            wait,
        )?);
        Ok(place)
    }

    /// `.NAME.suffix` beside the output folder, a helper of this run's.
    fn beside(&self, suffix: &str) -> PathBuf {
        let name = self.dir.file_name().unwrap_or_default().to_string_lossy();
        self.dir.with_file_name(format!(".{name}.{suffix}"))
    }

    /// The staging folder: beside the output (same file system as its parent), or inside it
    /// on a mount point. One name per output: the lock makes this run its only user.
    pub fn staging(&self) -> PathBuf {
        match self.mode {
            Mode::Exchange => self.beside("vatcar-staging"),
            Mode::InPlace => self.dir.join(IN_PLACE_STAGING),
        }
    }

    /// Where an old tree that holds files of the webmaster's is kept, beside the output folder
    /// (`NAME.old-TIME`): never a path that exists.
    pub fn kept_aside(&self) -> PathBuf {
        let time = chrono::Utc::now().format("%Y%m%d-%H%M%S");
        let name = self.dir.file_name().unwrap_or_default().to_string_lossy();
        (1..)
            .map(|n| match n {
                1 => self.dir.with_file_name(format!("{name}.old-{time}")),
                n => self.dir.with_file_name(format!("{name}.old-{time}-{n}")),
            })
            .find(|path| fs::symlink_metadata(path).is_err())
            .expect("some name is free")
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        // The lock file may sit in a folder made for this run: it goes first.
        drop(self.lock.take());
        for folder in self.created.iter().rev().filter(|_| !self.keep) {
            let _ = fs::remove_dir(folder);
        }
    }
}

/// The output folder as an absolute path without links, and the folders that must be made
/// for it (outermost first). Nothing is created here, so a path that cannot be resolved
/// leaves no trace.
pub(super) fn resolve(dir: &Path) -> Result<(PathBuf, Vec<PathBuf>)> {
    let absolute = std::path::absolute(dir)
        .with_context(|| format!("could not resolve the output folder {}", dir.display()))?;
    // The nearest folder that exists (the output folder itself, if it does), resolved, and
    // the rest appended as plain names.
    let existing = absolute
        .ancestors()
        .find(|folder| fs::symlink_metadata(folder).is_ok())
        .context("no folder of the path exists")?;
    let rest = absolute.strip_prefix(existing).expect("an ancestor");
    if !rest.components().all(|c| matches!(c, Component::Normal(_))) {
        bail!(
            "{} names a folder through one that does not exist; give the path without `..`",
            dir.display()
        );
    }
    let mut resolved = fs::canonicalize(existing).with_context(|| match existing == absolute {
        true => format!(
            "{} is a link to a folder that does not exist",
            dir.display()
        ),
        false => format!("could not resolve {}", existing.display()),
    })?;
    if !resolved.is_dir() {
        bail!("{} is a file, not a folder", resolved.display());
    }
    if fs::symlink_metadata(&absolute).is_ok_and(|meta| meta.is_symlink()) {
        log::info!(
            "{} is a link to {}; publishing there",
            dir.display(),
            resolved.display()
        );
    }
    let mut missing = Vec::new();
    for name in rest.components() {
        resolved.push(name);
        missing.push(resolved.clone());
    }
    // The output folder itself is made by the publication, not here.
    missing.pop();
    Ok((resolved, missing))
}

/// Refuses the working folder and the folders that hold it: publishing replaces the output
/// folder as a whole, which would take the working folder (a checkout's `.git` and all) away
/// from under the shell that ran this.
fn check_not_working_folder(dir: &Path) -> Result<()> {
    let working = std::env::current_dir().and_then(fs::canonicalize);
    let Some(working) = working.ok().filter(|working| working.starts_with(dir)) else {
        return Ok(());
    };
    let what = match working == dir {
        true => "the folder you are working in".to_owned(),
        false => format!(
            "a folder that holds the one you are working in, {}",
            working.display()
        ),
    };
    bail!(
        "{} is {what}; vatcar-site replaces its output folder as a whole, so the working \
         folder and everything in it (a `.git` folder too) would be swapped away: choose an \
         output folder inside it, such as `--output site`",
        dir.display()
    )
}

/// Refuses a private folder inside a site and a site inside a private folder, looking up from
/// `dir`; [`super::tree`] looks down.
fn check_ancestors(dir: &Path, kind: FolderKind) -> Result<()> {
    for ancestor in dir.ancestors().skip(1) {
        if let Ok(Some(marker)) = Marker::read(ancestor)
            && FolderKind::must_stay_apart(marker.kind, kind)
        {
            return Err(Nested(format!(
                "{} is inside {}, which holds a vatcar-site {}: {}",
                dir.display(),
                ancestor.display(),
                marker.kind.in_words(),
                APART
            ))
            .into());
        }
    }
    Ok(())
}

/// Every mount point strictly below `dir` in the kernel's mount table
/// (`/proc/self/mountinfo`, which lists bind mounts of a folder of the same disk too), sorted,
/// each once; none where there is no table (macOS, the BSDs, Windows).
pub(super) fn mounts_below(dir: &Path) -> Vec<PathBuf> {
    let table = fs::read("/proc/self/mountinfo").unwrap_or_default();
    // The fifth field is the mount point, as seen from this process's root.
    let mut below: Vec<PathBuf> = String::from_utf8_lossy(&table)
        .lines()
        .filter_map(|line| line.split(' ').nth(4).map(unescape_mount_point))
        .filter(|point| point.starts_with(dir) && point != dir)
        .collect();
    below.sort();
    below.dedup();
    below
}

/// The table writes space, tab, newline and backslash as `\040`-style octal.
fn unescape_mount_point(text: &str) -> PathBuf {
    let escapes = [
        ("\\040", " "),
        ("\\011", "\t"),
        ("\\012", "\n"),
        ("\\134", "\\"),
    ];
    PathBuf::from(
        escapes
            .iter()
            .fold(text.to_owned(), |text, (code, c)| text.replace(code, c)),
    )
}

/// A mount point's device differs from its parent's, or (a bind mount of a folder of the
/// same file system) the kernel lists it as mounted.
fn is_mount_point(dir: &Path) -> bool {
    let parent = dir.parent().unwrap_or(dir);
    #[cfg(unix)]
    let device = |path: &Path| {
        fs::symlink_metadata(path)
            .ok()
            .map(|meta| std::os::unix::fs::MetadataExt::dev(&meta))
    };
    #[cfg(not(unix))]
    let device = |_: &Path| None::<u64>;
    device(dir) != device(parent) || mounts_below(parent).iter().any(|point| point == dir)
}

/// Refuses an output folder with a volume mounted somewhere inside: a publication replaces the
/// folder's tree as a whole, and the volume cannot come along (its files would go with the old
/// tree).
fn check_no_mounts_inside(dir: &Path) -> Result<()> {
    let mounts = mounts_below(dir);
    if mounts.is_empty() {
        return Ok(());
    }
    let named: Vec<String> = mounts.iter().map(|m| m.display().to_string()).collect();
    bail!(
        "{} {} inside the output folder {}, so nothing was written: vatcar-site replaces \
         the output folder as a whole, and a mounted volume cannot come along (its files would \
         go with the old tree); {}, then run again",
        named.join(", "),
        if mounts.len() == 1 {
            "is a mount point"
        } else {
            "are mount points"
        },
        dir.display(),
        mount_advice(&mounts)
    )
}

/// What to do about mount points inside the output folder, or inside a staging folder.
pub(super) fn mount_advice(mounts: &[PathBuf]) -> String {
    let named: Vec<String> = mounts.iter().map(|m| m.display().to_string()).collect();
    let (them, a_volume, what) = match mounts.len() {
        1 => ("it", "the volume", "its files"),
        _ => ("them", "the volumes", "their files"),
    };
    format!(
        "unmount {them} (`umount {}`) and mount {a_volume} outside the output folder; to publish \
         {what}, copy {them} into the site folder's static/",
        named.join(" ")
    )
}

/// An exclusive `flock` for one output folder, held for the whole run.
struct Lock {
    file: File,
    /// The lock file beside the output, removed on release; `None` when the output folder
    /// itself is locked.
    path: Option<PathBuf>,
}

impl Lock {
    /// Locks `path`: a lock file beside the output folder `dir`, or `dir` itself.
    fn take(path: &Path, dir: &Path, wait: bool) -> Result<Lock> {
        let is_file = path != dir;
        let could_not = |what: &str| format!("could not {what} {}", path.display());
        loop {
            let file = match is_file {
                true => File::options()
                    .create(true)
                    .truncate(false)
                    .write(true)
                    .open(path),
                false => File::open(path),
            };
            let file = file.with_context(|| could_not("open the lock"))?;
            match file.try_lock() {
                Ok(()) => {}
                Err(fs::TryLockError::WouldBlock) if wait => {
                    log::warn!(
                        "waiting for another vatcar-site to finish publishing to {}",
                        dir.display()
                    );
                    file.lock().with_context(|| could_not("lock"))?;
                }
                Err(fs::TryLockError::WouldBlock) => bail!(
                    "another vatcar-site is publishing to {} right now; run again when it has \
                     finished, or pass --wait to wait for it",
                    dir.display()
                ),
                Err(fs::TryLockError::Error(error)) => {
                    return Err(error).with_context(|| could_not("lock"));
                }
            }
            // The run before may have removed the lock file while this one waited on it: a
            // lock on a removed file keeps nobody out, so take the file that is there now.
            if !is_file || same_file(path, &file) {
                return Ok(Lock {
                    file,
                    path: is_file.then(|| path.to_path_buf()),
                });
            }
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // Removed while still held, so that a run waiting on it notices and starts over.
        if let Some(path) = &self.path {
            let _ = fs::remove_file(path);
        }
        let _ = self.file.unlock();
    }
}

#[cfg(unix)]
fn same_file(path: &Path, file: &File) -> bool {
    use std::os::unix::fs::MetadataExt;
    fs::metadata(path).is_ok_and(|meta| file.metadata().is_ok_and(|held| held.ino() == meta.ino()))
}

#[cfg(not(unix))]
fn same_file(path: &Path, _: &File) -> bool {
    path.exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mount_table_paths_are_unescaped() {
        assert_eq!(
            unescape_mount_point(r"/mnt/my\040disk"),
            Path::new("/mnt/my disk")
        );
        assert_eq!(unescape_mount_point(r"/a\134b\011c"), Path::new("/a\\b\tc"));
        // A backslash written as such, then digits: not a space.
        assert_eq!(unescape_mount_point(r"/a\134040"), Path::new(r"/a\040"));
        // Not an escape: left as it is.
        assert_eq!(unescape_mount_point(r"/a\9b\04"), Path::new(r"/a\9b\04"));
    }
}
