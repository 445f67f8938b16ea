//! Where a publication goes: the output folder resolved once, whether it is a mount point,
//! the lock that keeps two runs apart, what dead runs left behind, and the rule that private
//! folders and sites are never nested.

use super::marker::{FolderKind, Marker};
use super::mounts::{MountTable, is_mount_point, mount_advice};
use anyhow::{Context, Result, bail};
use std::ffi::OsString;
use std::fs::{self, File};
use std::io::ErrorKind;
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
    /// Absolute, without links: every path below is built from it.
    pub dir: PathBuf,
    pub parent: PathBuf,
    pub name: OsString,
    pub mode: Mode,
    /// Folders made to hold the output, outermost first, removed again unless `keep` is set
    /// (the publication succeeded).
    pub created: Vec<PathBuf>,
    pub keep: bool,
    lock: Option<Lock>,
}

impl Place {
    /// Resolves `dir` and takes the lock (waiting for it if `wait`). What runs that died while
    /// publishing here left is the caller's to put right, with the lock held
    /// ([`super::swap::recover`]).
    pub fn open(dir: &Path, kind: FolderKind, wait: bool) -> Result<Place> {
        let (resolved, missing) = resolve(dir)?;
        check_ancestors(&resolved, kind)?;
        check_not_working_folder(&resolved)?;
        check_no_mounts_inside(&resolved)?;
        let parent = resolved
            .parent()
            .with_context(|| format!("{} cannot be an output folder", resolved.display()))?
            .to_path_buf();
        let name = resolved
            .file_name()
            .with_context(|| format!("{} cannot be an output folder", resolved.display()))?
            .to_os_string();
        for folder in &missing {
            fs::create_dir(folder)
                .or_else(|e| match e.kind() {
                    ErrorKind::AlreadyExists => Ok(()),
                    _ => Err(e),
                })
                .with_context(|| format!("could not create the folder {}", folder.display()))?;
        }
        let mode = if resolved.is_dir() && is_mount_point(&resolved, &parent) {
            log::info!(
                "{} is a mount point: new files are moved into it one by one (see \"A mount point\" in vatcar-site's docs/dev/guarantees.md)",
                resolved.display()
            );
            Mode::InPlace
        } else {
            Mode::Exchange
        };
        let lock_path = match mode {
            Mode::Exchange => parent.join(hidden(&name, "vatcar-lock")),
            // The folder itself is never swapped away, so it can carry the lock.
            Mode::InPlace => resolved.clone(),
        };
        let mut place = Place {
            dir: resolved,
            parent,
            name,
            mode,
            created: missing,
            keep: false,
            lock: None,
        };
        place.lock = Some(Lock::take(
            &lock_path,
            mode == Mode::Exchange,
            wait,
            &place.dir,
        )?);
        Ok(place)
    }

    /// The staging folder: beside the output (same file system as its parent), or inside it
    /// on a mount point. One name per output: the lock makes this run its only user.
    pub fn staging(&self) -> PathBuf {
        match self.mode {
            Mode::Exchange => self.parent.join(hidden(&self.name, "vatcar-staging")),
            Mode::InPlace => self.dir.join(IN_PLACE_STAGING),
        }
    }
}

impl Place {
    /// Where an old tree that holds files of the webmaster's is kept: beside the output folder
    /// (`NAME.old-TIME`), or, on a mount point, inside it (`.vatcar-site.old-TIME`, where the
    /// next build refuses it until it is moved). Never a path that exists.
    pub fn kept_aside(&self) -> PathBuf {
        let time = chrono::Utc::now().format("%Y%m%d-%H%M%S");
        let (folder, mut name) = match self.mode {
            Mode::Exchange => (&self.parent, self.name.clone()),
            Mode::InPlace => (&self.dir, OsString::from(".vatcar-site")),
        };
        name.push(format!(".old-{time}"));
        let mut path = folder.join(&name);
        let mut n = 1;
        while fs::symlink_metadata(&path).is_ok() {
            n += 1;
            let mut numbered = name.clone();
            numbered.push(format!("-{n}"));
            path = folder.join(numbered);
        }
        path
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        // The lock file may sit in a folder made for this run: it goes first.
        drop(self.lock.take());
        if !self.keep {
            for folder in self.created.iter().rev() {
                let _ = fs::remove_dir(folder);
            }
        }
    }
}

/// The staging folder's name inside a mounted output folder; never published, never listed.
pub(super) const IN_PLACE_STAGING: &str = ".vatcar-staging";

/// `.NAME.suffix`, the name of a helper beside the output folder.
fn hidden(name: &OsString, suffix: &str) -> OsString {
    let mut hidden = OsString::from(".");
    hidden.push(name);
    hidden.push(".");
    hidden.push(suffix);
    hidden
}

/// The output folder as an absolute path without links, and the folders that must be made
/// for it (outermost first). Nothing is created here, so a path that cannot be resolved
/// leaves no trace.
pub(super) fn resolve(dir: &Path) -> Result<(PathBuf, Vec<PathBuf>)> {
    let absolute = std::path::absolute(dir)
        .with_context(|| format!("could not resolve the output folder {}", dir.display()))?;
    match fs::symlink_metadata(&absolute) {
        Ok(meta) if meta.is_symlink() => {
            let real = fs::canonicalize(&absolute).with_context(|| {
                format!(
                    "{} is a link to a folder that does not exist",
                    dir.display()
                )
            })?;
            if !real.is_dir() {
                bail!(
                    "{} is a link to {}, which is not a folder",
                    dir.display(),
                    real.display()
                );
            }
            log::info!(
                "{} is a link to {}; publishing there",
                dir.display(),
                real.display()
            );
            Ok((real, Vec::new()))
        }
        Ok(meta) if meta.is_dir() => Ok((fs::canonicalize(&absolute)?, Vec::new())),
        Ok(_) => bail!("{} is a file, not a folder", dir.display()),
        Err(_) => {
            // The nearest folder that exists, resolved, and the rest appended as plain names.
            let mut existing = absolute.as_path();
            let mut rest = Vec::new();
            while fs::symlink_metadata(existing).is_err() {
                rest.push(existing.file_name().map(|n| n.to_os_string()));
                existing = existing.parent().context("no folder of the path exists")?;
            }
            if rest.iter().any(Option::is_none)
                || absolute.strip_prefix(existing).is_ok_and(|tail| {
                    tail.components()
                        .any(|c| !matches!(c, Component::Normal(_)))
                })
            {
                bail!(
                    "{} names a folder through one that does not exist; give the path without `..`",
                    dir.display()
                );
            }
            let mut resolved = fs::canonicalize(existing)
                .with_context(|| format!("could not resolve {}", existing.display()))?;
            if !resolved.is_dir() {
                bail!("{} is a file, not a folder", existing.display());
            }
            let mut missing = Vec::new();
            for name in rest.into_iter().rev().flatten() {
                resolved.push(name);
                missing.push(resolved.clone());
            }
            // The output folder itself is made by the publication, not here.
            missing.pop();
            Ok((resolved, missing))
        }
    }
}

/// Refuses the working folder and the folders that hold it: publishing replaces the output
/// folder as a whole, which would take the working folder (a checkout's `.git` and all) away
/// from under the shell that ran this.
fn check_not_working_folder(dir: &Path) -> Result<()> {
    let Ok(working) = std::env::current_dir().and_then(fs::canonicalize) else {
        return Ok(());
    };
    if !working.starts_with(dir) {
        return Ok(());
    }
    let what = if working == dir {
        "the folder you are working in".to_owned()
    } else {
        format!(
            "a folder that holds the one you are working in, {}",
            working.display()
        )
    };
    bail!(
        "{} is {what}; vatcar-site replaces its output folder as a whole, so the working \
         folder and everything in it (a `.git` folder too) would be swapped away: choose an \
         output folder inside it, such as `--output site`",
        dir.display()
    )
}

/// Refuses an output folder with a volume mounted somewhere inside: the volume cannot follow
/// the folder's tree when it is replaced (see [`super::mounts`]).
fn check_no_mounts_inside(dir: &Path) -> Result<()> {
    let mounts = MountTable::read().below(dir);
    if mounts.is_empty() {
        return Ok(());
    }
    let named = mounts
        .iter()
        .map(|m| m.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    bail!(
        "{named} {} inside the output folder {}, so nothing was written: vatcar-site replaces \
         the output folder as a whole, and a mounted volume cannot come along (its files would \
         go with the old tree); {}, then run again",
        if mounts.len() == 1 {
            "is a mount point"
        } else {
            "are mount points"
        },
        dir.display(),
        mount_advice(&mounts)
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
                FolderKind::apart_advice(kind, marker.kind)
            ))
            .into());
        }
    }
    Ok(())
}

/// An exclusive `flock` for one output folder, held for the whole run.
struct Lock {
    file: File,
    /// The lock file beside the output, removed on release; `None` when the output folder
    /// itself is locked.
    path: Option<PathBuf>,
}

impl Lock {
    fn take(path: &Path, is_file: bool, wait: bool, dir: &Path) -> Result<Lock> {
        loop {
            let file = if is_file {
                fs::OpenOptions::new()
                    .create(true)
                    .truncate(false)
                    .write(true)
                    .open(path)
            } else {
                File::open(path)
            }
            .with_context(|| format!("could not open the lock {}", path.display()))?;
            match file.try_lock() {
                Ok(()) => {}
                Err(fs::TryLockError::WouldBlock) if wait => {
                    log::warn!(
                        "waiting for another vatcar-site to finish publishing to {}",
                        dir.display()
                    );
                    file.lock()
                        .with_context(|| format!("could not lock {}", path.display()))?;
                }
                Err(fs::TryLockError::WouldBlock) => bail!(
                    "another vatcar-site is publishing to {} right now; run again when it has \
                     finished, or pass --wait to wait for it",
                    dir.display()
                ),
                Err(fs::TryLockError::Error(error)) => {
                    return Err(error)
                        .with_context(|| format!("could not lock {}", path.display()));
                }
            }
            // The run before may have removed the lock file while this one waited on it: a
            // lock on a removed file keeps nobody out, so take the file that is there now.
            if is_file
                && fs::metadata(path).ok().and_then(|m| inode(&m))
                    != file.metadata().ok().and_then(|m| inode(&m))
            {
                continue;
            }
            return Ok(Lock {
                file,
                path: is_file.then(|| path.to_path_buf()),
            });
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
fn inode(meta: &fs::Metadata) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    Some(meta.ino())
}

#[cfg(not(unix))]
fn inode(_: &fs::Metadata) -> Option<u64> {
    None
}
