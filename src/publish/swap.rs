//! Putting the new folder in place of the old one, and putting things right after a run that
//! died while doing it.
//!
//! - **Exchange** (the output folder is not a mount point): the whole new tree is swapped with
//!   the old one in one `renameat2(RENAME_EXCHANGE)` (Linux 3.15+; ext4, XFS, Btrfs, tmpfs and
//!   others; `renameatx_np(RENAME_SWAP)` on macOS). Where the file system refuses it (NFS,
//!   some FUSE file systems), the old folder is renamed aside and the new one renamed into
//!   place: for that moment the folder is missing, never mixed, and a run killed between the
//!   two renames is put back by the next run.
//! - **In place** (a mount point): each file is renamed into place on its own, after a journal
//!   of the moves is written; a failure undoes the moves done, and a run killed in the middle
//!   is undone by the next run from the journal.

use super::files::check_relative;
use super::mounts::remove_tree;
use super::place::{Mode, Place};
use super::tree::below;
use anyhow::{Context, Result};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Swaps the folders at `new` and `dir`, or, where the file system cannot, moves `dir` to
/// `aside` and `new` to `dir`. Either way the old tree ends up inside the staging folder, and
/// its path (`new` or `aside`) is returned.
pub(super) fn exchange(new: &Path, dir: &Path, aside: &Path) -> Result<PathBuf> {
    match rename_exchange(new, dir) {
        Ok(()) => return Ok(new.to_path_buf()),
        Err(error) if exchange_unsupported(&error) => {
            log::info!("the file system cannot swap two folders at once ({error}); renaming twice");
        }
        Err(error) => {
            return Err(error)
                .with_context(|| format!("could not swap the new site into {}", dir.display()));
        }
    }
    fs::rename(dir, aside).with_context(|| format!("could not move {} aside", dir.display()))?;
    if let Err(error) = fs::rename(new, dir) {
        let _ = fs::rename(aside, dir);
        return Err(error)
            .with_context(|| format!("could not move the new site into {}", dir.display()));
    }
    Ok(aside.to_path_buf())
}

fn exchange_unsupported(error: &io::Error) -> bool {
    #[cfg(unix)]
    if matches!(
        error.raw_os_error(),
        Some(libc::EINVAL | libc::ENOSYS | libc::ENOTSUP | libc::EXDEV)
    ) {
        return true;
    }
    error.kind() == io::ErrorKind::Unsupported
}

// With the macOS one below, the only calls into the system without a safe wrapper: neither the
// standard library nor libc has a safe call that swaps two paths (lib.rs denies the rest).
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn rename_exchange(a: &Path, b: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let a = std::ffi::CString::new(a.as_os_str().as_bytes())?;
    let b = std::ffi::CString::new(b.as_os_str().as_bytes())?;
    // The system call rather than glibc's wrapper, which glibc before 2.28 lacks.
    // SAFETY: both paths are NUL-terminated strings that outlive the call.
    let result = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if result == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(target_os = "macos")]
#[allow(unsafe_code)]
fn rename_exchange(a: &Path, b: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let a = std::ffi::CString::new(a.as_os_str().as_bytes())?;
    let b = std::ffi::CString::new(b.as_os_str().as_bytes())?;
    // SAFETY: both paths are NUL-terminated strings that outlive the call.
    let result = unsafe {
        libc::renameatx_np(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_SWAP,
        )
    };
    if result == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
fn rename_exchange(_: &Path, _: &Path) -> io::Result<()> {
    Err(io::ErrorKind::Unsupported.into())
}

/// One move of an in-place publication, as written to the journal before any is made.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(super) enum Step {
    /// `new/<path>` replaces `<path>`; the old file, if `had_old`, is kept in `old/<path>`.
    Replace { path: String, had_old: bool },
    /// `<path>` is no longer produced: it is moved to `old/<path>`.
    Remove { path: String },
}

const JOURNAL: &str = "journal.json";

/// In the staging folder, during an exchange: the key of the folder exchanged (empty for the
/// whole tree), for [`recover`].
pub(super) const SCOPE: &str = "scope";

/// Makes the in-place moves; a failure undoes them and returns the error.
pub(super) fn in_place(dir: &Path, staging: &Path, steps: &[Step]) -> Result<()> {
    let journal = serde_json::to_vec(steps)?;
    let partial = staging.join("journal.partial");
    fs::write(&partial, journal).context("could not write the publication's journal")?;
    // Renamed into place, so a journal either lists every move or is not there.
    fs::rename(&partial, staging.join(JOURNAL))
        .context("could not write the publication's journal")?;
    for (done, step) in steps.iter().enumerate() {
        if done == steps.len() / 2 {
            super::pause_for_tests("moving");
        }
        if let Err(error) = apply(dir, staging, step) {
            for step in steps[..=done].iter().rev() {
                undo(dir, staging, step);
            }
            return Err(error);
        }
    }
    for step in steps {
        if let Step::Remove { path } = step {
            remove_empty_parents(dir, &below(dir, path));
        }
    }
    Ok(())
}

fn apply(dir: &Path, staging: &Path, step: &Step) -> Result<()> {
    let (old, new) = (staging.join("old"), staging.join("new"));
    match step {
        Step::Remove { path } => move_file(&below(dir, path), &below(&old, path)),
        Step::Replace { path, had_old } => {
            let target = below(dir, path);
            if *had_old {
                move_file(&target, &below(&old, path))?;
            } else if target.is_dir() {
                // A folder of files no longer produced, emptied by the removals before.
                fs::remove_dir(&target).with_context(|| {
                    format!("could not replace the folder {}", target.display())
                })?;
            }
            move_file(&below(&new, path), &target)
        }
    }
}

/// Reverses one step, as far as it got.
fn undo(dir: &Path, staging: &Path, step: &Step) {
    let (old, new) = (staging.join("old"), staging.join("new"));
    let path = match step {
        Step::Remove { path } | Step::Replace { path, .. } => path,
    };
    let (target, kept) = (below(dir, path), below(&old, path));
    if fs::symlink_metadata(&kept).is_ok() {
        let _ = move_file(&kept, &target);
    } else if let Step::Replace { had_old: false, .. } = step
        && fs::symlink_metadata(below(&new, path)).is_err()
    {
        let _ = fs::remove_file(&target);
        remove_empty_parents(dir, &target);
    }
}

fn move_file(from: &Path, to: &Path) -> Result<()> {
    if let Some(parent) = to.parent() {
        fs::create_dir_all(parent)
            .with_context(|| format!("could not create {}", parent.display()))?;
    }
    fs::rename(from, to)
        .with_context(|| format!("could not move {} to {}", from.display(), to.display()))
}

pub(super) fn remove_empty_parents(root: &Path, file: &Path) {
    let mut current = file.parent();
    while let Some(dir) = current {
        if dir == root || !dir.starts_with(root) || fs::remove_dir(dir).is_err() {
            break;
        }
        current = dir.parent();
    }
}

/// Puts right what a run that died while publishing to this place left: with the lock held,
/// any staging folder belongs to a dead run.
pub(super) fn recover(place: &Place) -> Result<()> {
    let staging = place.staging();
    match place.mode {
        Mode::Exchange => {
            let aside = staging.join("old");
            // The folder a two-rename exchange moved aside: the output folder, or one in it.
            // Only a plain path below the output folder is taken from it.
            let scope = fs::read_to_string(staging.join(SCOPE)).unwrap_or_default();
            let target = match check_relative(&scope) {
                Ok(()) => below(&place.dir, &scope),
                Err(_) => place.dir.clone(),
            };
            if !target.exists() && aside.is_dir() && target.parent().is_some_and(Path::is_dir) {
                fs::rename(&aside, &target).with_context(|| {
                    format!(
                        "could not put back {} from {}",
                        target.display(),
                        aside.display()
                    )
                })?;
                log::warn!(
                    "a run was stopped while it replaced {}; the site it replaced was put back",
                    target.display()
                );
            }
        }
        Mode::InPlace => {
            if let Ok(journal) = fs::read(staging.join(JOURNAL)) {
                let steps: Vec<Step> = serde_json::from_slice(&journal)
                    .with_context(|| format!("{} is damaged", staging.join(JOURNAL).display()))?;
                for step in steps.iter().rev() {
                    undo(&place.dir, &staging, step);
                }
                log::warn!(
                    "a run was stopped while it moved files into {}; its moves were undone",
                    place.dir.display()
                );
            }
        }
    }
    if fs::symlink_metadata(&staging).is_ok_and(|m| m.is_dir()) {
        remove_tree(&staging).with_context(|| {
            format!(
                "could not remove {}, left by a stopped run",
                staging.display()
            )
        })?;
        log::info!("removed {}, left by a stopped run", staging.display());
    }
    Ok(())
}
