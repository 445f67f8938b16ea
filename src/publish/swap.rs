//! Putting the new tree in place of the old one, and putting things right after a run that
//! died doing it.
//!
//! - **Exchange** (the output folder is not a mount point): the whole new tree is swapped with
//!   the old one in one `renameat2(RENAME_EXCHANGE)` (Linux 3.15+; ext4, XFS, Btrfs, tmpfs and
//!   others; `renameatx_np(RENAME_SWAP)` on macOS). Where the file system refuses it (NFS,
//!   some FUSE file systems, Windows), the old folder is renamed aside and the new one renamed
//!   into place: for that moment the folder is missing, never mixed, and a run killed between
//!   the two renames is put back by the next run.
//! - **In place** (a mount point): the marker first lists the old files and the new ones, then
//!   the files no longer made are removed and each changed file is renamed into place, then the
//!   marker lists the new ones. A reader sees a mix while the files move; a run stopped half-way
//!   leaves a mix of whole files, all listed, which the next build replaces.
//!
//! The old tree is then taken apart by [`super::tree::discard`]: only the files its own marker
//! lists go. Whatever else it holds (a file the webmaster saved there while the run published)
//! stays, with the folder, beside the output, and a warning says where.

use super::marker::MARKER;
use super::place::{Mode, Place, mount_advice, mounts_below};
use super::tree::{below, discard};
use anyhow::{Context, Result, bail};
use std::collections::HashSet;
use std::fs;
use std::io::{self, ErrorKind};
use std::path::Path;

/// In the staging folder, written once the new tree is whole and just before it is exchanged:
/// from then on `new` may hold the old tree, which is the webmaster's but for what its marker
/// lists. Without it, `new` is all ours.
pub(super) const EXCHANGING: &str = "exchanging";

/// Moves `new` to `dir` where there is no folder yet. Otherwise swaps the two, or, where that fails (a file system that cannot), moves
/// `dir` to `aside` and `new` to `dir`. Either way the old tree ends up inside the staging
/// folder.
pub(super) fn exchange(new: &Path, dir: &Path, aside: &Path) -> Result<()> {
    if fs::symlink_metadata(dir).is_err() {
        return fs::rename(new, dir)
            .with_context(|| format!("could not move the new site into {}", dir.display()));
    }
    let Err(error) = rename_exchange(new, dir) else {
        return Ok(());
    };
    log::info!("could not swap two folders at once ({error}); renaming twice");
    fs::rename(dir, aside).with_context(|| format!("could not move {} aside", dir.display()))?;
    fs::rename(new, dir).or_else(|error| {
        let _ = fs::rename(aside, dir);
        Err(error).with_context(|| format!("could not move the new site into {}", dir.display()))
    })
}

#[cfg(any(target_os = "linux", target_os = "android", target_vendor = "apple"))]
fn rename_exchange(a: &Path, b: &Path) -> io::Result<()> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    Ok(renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE)?)
}

#[cfg(not(any(target_os = "linux", target_os = "android", target_vendor = "apple")))]
fn rename_exchange(_: &Path, _: &Path) -> io::Result<()> {
    Err(ErrorKind::Unsupported.into())
}

/// The changes of an in-place publication: `both` is the marker listing the old files and the
/// new ones, in place while `stale` files go and `changed` ones (staged in `new`) move in.
pub(super) struct InPlace<'a> {
    pub both: Vec<u8>,
    pub marker: Vec<u8>,
    pub stale: Vec<&'a str>,
    pub changed: Vec<&'a str>,
}

/// Moves the changed files of a mounted output folder into place, one by one.
pub(super) fn in_place(dir: &Path, staging: &Path, moves: InPlace) -> Result<()> {
    let write_marker = |marker: &[u8]| {
        let partial = staging.join(MARKER);
        fs::write(&partial, marker)
            .and_then(|()| fs::rename(&partial, dir.join(MARKER)))
            .with_context(|| format!("could not write {}", dir.join(MARKER).display()))
    };
    write_marker(&moves.both)?;
    for path in moves.stale {
        let file = below(dir, path);
        if let Err(error) = fs::remove_file(&file)
            && error.kind() != ErrorKind::NotFound
        {
            return Err(error).with_context(|| format!("could not remove {}", file.display()));
        }
        // The folders it leaves empty go too, up to the output folder.
        for folder in file.ancestors().skip(1).take_while(|folder| *folder != dir) {
            if fs::remove_dir(folder).is_err() {
                break;
            }
        }
    }
    for (done, path) in moves.changed.iter().enumerate() {
        if done == moves.changed.len() / 2 {
            super::pause_for_tests("moving");
        }
        let target = below(dir, path);
        // A folder of files no longer made, emptied above, may stand where a file goes now.
        if target.is_dir() {
            let _ = fs::remove_dir(&target);
        }
        let parent = target.parent().expect("a file of the site has a folder");
        fs::create_dir_all(parent)
            .and_then(|()| fs::rename(below(&staging.join("new"), path), &target))
            .with_context(|| format!("could not move the new {} into place", target.display()))?;
    }
    write_marker(&moves.marker)
}

/// Puts right what a run that died while publishing to this place left: with the lock held,
/// any staging folder belongs to a dead run.
pub(super) fn recover(place: &Place) -> Result<()> {
    // The folder a two-rename exchange moved aside.
    let aside = place.staging().join("old");
    if place.mode == Mode::Exchange && fs::symlink_metadata(&place.dir).is_err() && aside.is_dir() {
        fs::rename(&aside, &place.dir).with_context(|| {
            format!(
                "could not put back {} from {}",
                place.dir.display(),
                aside.display()
            )
        })?;
        log::warn!(
            "a run was stopped while it replaced {}; the site it replaced was put back",
            place.dir.display()
        );
    }
    if clean(place, None)? {
        log::info!(
            "removed {}, left by a stopped run",
            place.staging().display()
        );
    }
    Ok(())
}

/// Removes the staging folder: what this run (or a dead one) staged, and of an old tree
/// exchanged into it the files of `ours` (by default, what its marker lists); the rest of the
/// old tree is moved beside the output, with a warning. Whether there was a staging folder.
pub(super) fn clean(place: &Place, ours: Option<&HashSet<String>>) -> Result<bool> {
    let staging = place.staging();
    if fs::symlink_metadata(&staging).is_err() {
        return Ok(false);
    }
    // No removal enters a mounted volume (one mounted there by hand, or in an old tree).
    let mounts = mounts_below(&staging);
    if !mounts.is_empty() {
        bail!(
            "{} holds a mounted volume, so it was not removed: {}",
            staging.display(),
            mount_advice(&mounts)
        );
    }
    // Before the exchange `new` is all ours; after it, it is the old tree.
    let exchanged = fs::symlink_metadata(staging.join(EXCHANGING)).is_ok();
    for tree in ["new", "old"].into_iter().filter(|_| exchanged) {
        let kept_at = place.kept_aside();
        let kept = discard(&staging.join(tree), &kept_at, ours)?;
        if !kept.is_empty() {
            log::warn!(
                "{} held {} that vatcar-site did not write, found when the site was replaced: \
                 {}; nothing was deleted, they are in {}: move what you want published into the \
                 site folder's static/, from which every build copies it",
                place.dir.display(),
                if kept.len() == 1 { "a file" } else { "files" },
                crate::sanitize::quote::first_few(kept.iter().cloned(), 10),
                kept_at.display()
            );
        }
    }
    match fs::remove_dir_all(&staging) {
        Err(error) if error.kind() != ErrorKind::NotFound => {
            Err(error).with_context(|| format!("could not remove {}", staging.display()))
        }
        _ => Ok(true),
    }
}
