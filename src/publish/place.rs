//! Where a publication goes: the output folder resolved once, whether it is a mount point,
//! the lock that keeps two runs apart, what dead runs left behind, and the rule that private
//! folders and sites are never nested.

use super::marker::{Marker, must_stay_apart};
use super::swap;
use anyhow::{Context, Result, bail};
use std::ffi::OsString;
use std::fs::{self, File};
use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

/// A private folder inside a site, or a site inside a private folder: a usage error (exit 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Nested(pub String);

/// How the new folder replaces the old one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// The new tree is built beside the output folder and swapped with it in one rename:
    /// readers see the old folder or the new one, never a mix.
    Exchange,
    /// The output folder is a mount point: nothing beside it is on its file system, so the
    /// new files are staged inside it and moved into place one by one.
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
    /// Resolves `dir`, takes the lock (waiting for it if `wait`), and cleans up after runs
    /// that died while publishing here.
    pub fn open(dir: &Path, kind: &str, wait: bool) -> Result<Place> {
        let (resolved, missing) = resolve(dir)?;
        check_ancestors(&resolved, kind)?;
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
                "{} is a mount point: new files are moved into it one by one (see the README)",
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
        swap::recover(&place)?;
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
pub(super) fn hidden(name: &OsString, suffix: &str) -> OsString {
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

/// A mount point's device differs from its parent's, or (a bind mount of a folder of the
/// same file system) the kernel lists it as mounted.
fn is_mount_point(dir: &Path, parent: &Path) -> bool {
    if device(dir) != device(parent) {
        return true;
    }
    let Ok(table) = fs::read_to_string("/proc/self/mountinfo") else {
        return false;
    };
    let wanted = dir.as_os_str().as_encoded_bytes();
    table.lines().any(|line| {
        line.split(' ')
            .nth(4)
            .is_some_and(|point| unescape_mount_path(point) == wanted)
    })
}

/// `/proc/self/mountinfo` writes space, tab, newline and backslash as `\040`-style octal.
fn unescape_mount_path(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\'
            && i + 3 < bytes.len()
            && bytes[i + 1..i + 4]
                .iter()
                .all(|b| (b'0'..=b'7').contains(b))
        {
            let value =
                (bytes[i + 1] - b'0') * 64 + (bytes[i + 2] - b'0') * 8 + (bytes[i + 3] - b'0');
            out.push(value);
            i += 4;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    out
}

/// Refuses a private folder inside a site and a site inside a private folder, looking up from
/// `dir`; [`super::tree`] looks down.
fn check_ancestors(dir: &Path, kind: &str) -> Result<()> {
    for ancestor in dir.ancestors().skip(1) {
        if let Ok(Some(marker)) = Marker::read(ancestor)
            && must_stay_apart(&marker.kind, kind)
        {
            return Err(Nested(format!(
                "{} is inside {}, which holds a vatcar-site {}: {}",
                dir.display(),
                ancestor.display(),
                kind_in_words(&marker.kind),
                apart_advice(kind, &marker.kind)
            ))
            .into());
        }
    }
    Ok(())
}

/// An output folder's kind as a noun: the kinds are written in markers (`site`, `reports`,
/// `snapshot`) and stay as they are, but "a vatcar-site reports" is not English.
pub(super) fn kind_in_words(kind: &str) -> String {
    match kind {
        "reports" => "reports folder".into(),
        other => other.into(),
    }
}

/// Why two kinds stay apart, in the words a webmaster needs.
pub(super) fn apart_advice(this: &str, other: &str) -> &'static str {
    if this == "site" || other == "site" {
        "reports and snapshots hold private data (email addresses, contact details) and would \
         be published with the site; keep them in a folder outside it"
    } else {
        "choose another folder"
    }
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
fn device(path: &Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    fs::metadata(path).ok().map(|m| m.dev())
}

#[cfg(not(unix))]
fn device(_: &Path) -> Option<u64> {
    None
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
