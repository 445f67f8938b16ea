//! Putting the new tree in place of the old one, taking the old one away without deleting
//! anything of the webmaster's, and putting things right after a run that died doing either.
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
//!
//! The old tree is then taken apart by [`discard`]: only the files its own marker lists go.
//! Whatever else it holds (a file the webmaster saved there while the run published) stays,
//! with the folder, beside the output, and a warning says where.

use super::marker::{MARKER, Marker};
use super::mounts::{MountTable, device};
use super::place::{Mode, Place};
use super::tree::{below, key};
use anyhow::{Context, Result};
use std::collections::HashSet;
use std::fs;
use std::io::{self, ErrorKind};
use std::path::{Path, PathBuf};

/// In the staging folder, written once the new tree is whole and just before it is exchanged:
/// from then on `new` may hold the old tree, which is the webmaster's but for what its marker
/// lists. Without it, `new` is all ours.
pub(super) const EXCHANGING: &str = "exchanging";

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
    {
        use rustix::io::Errno;
        let code = error.raw_os_error();
        if [Errno::INVAL, Errno::NOSYS, Errno::NOTSUP, Errno::XDEV]
            .iter()
            .any(|errno| Some(errno.raw_os_error()) == code)
        {
            return true;
        }
    }
    error.kind() == ErrorKind::Unsupported
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

/// One move of an in-place publication, as written to the journal before any is made.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(super) enum Step {
    /// `new/<path>` replaces `<path>`; what was there, if anything, is kept in `old/<path>`.
    Replace { path: String },
    /// `<path>` is no longer produced: it is moved to `old/<path>`.
    Remove { path: String },
}

const JOURNAL: &str = "journal.json";

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
    fs::remove_file(staging.join(JOURNAL)).context("could not remove the journal")?;
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
        Step::Replace { path } => {
            let target = below(dir, path);
            match fs::symlink_metadata(&target) {
                Ok(meta) if meta.is_dir() => {
                    // A folder of files no longer produced, emptied by the removals before.
                    fs::remove_dir(&target).with_context(|| {
                        format!("could not replace the folder {}", target.display())
                    })?;
                }
                Ok(_) => move_file(&target, &below(&old, path))?,
                Err(_) => {}
            }
            move_file(&below(&new, path), &target)
        }
    }
}

/// Reverses one step, as far as it got.
fn undo(dir: &Path, staging: &Path, step: &Step) {
    let (old, new) = (staging.join("old"), staging.join("new"));
    let path = match step {
        Step::Remove { path } | Step::Replace { path } => path,
    };
    let (target, kept) = (below(dir, path), below(&old, path));
    if fs::symlink_metadata(&kept).is_ok() {
        let _ = move_file(&kept, &target);
    } else if let Step::Replace { .. } = step
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

fn remove_empty_parents(root: &Path, file: &Path) {
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
            // The folder a two-rename exchange moved aside.
            let aside = staging.join("old");
            if fs::symlink_metadata(&place.dir).is_err() && aside.is_dir() {
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
        }
        Mode::InPlace => {
            if let Ok(journal) = fs::read(staging.join(JOURNAL)) {
                let steps: Vec<Step> = serde_json::from_slice(&journal)
                    .with_context(|| format!("{} is damaged", staging.join(JOURNAL).display()))?;
                for step in steps.iter().rev() {
                    undo(&place.dir, &staging, step);
                }
                fs::remove_file(staging.join(JOURNAL))
                    .context("could not remove the journal of a stopped run")?;
                log::warn!(
                    "a run was stopped while it moved files into {}; its moves were undone",
                    place.dir.display()
                );
            }
        }
    }
    if clean(place)? {
        log::info!("removed {}, left by a stopped run", staging.display());
    }
    Ok(())
}

/// Removes the staging folder: what this run (or a dead one) made, and of the old tree what
/// its marker lists; the rest of the old tree is moved beside the output, with a warning.
/// Whether there was a staging folder.
pub(super) fn clean(place: &Place) -> Result<bool> {
    let staging = place.staging();
    if fs::symlink_metadata(&staging).is_err() {
        return Ok(false);
    }
    let exchanged = fs::symlink_metadata(staging.join(EXCHANGING)).is_ok();
    for (tree, all_ours) in [("new", !exchanged), ("old", false)] {
        let kept_at = place.kept_aside();
        let kept = discard(&staging.join(tree), &kept_at, all_ours)?;
        if !kept.is_empty() {
            let more = match kept.len() {
                n if n > 10 => format!(" and {} more", n - 10),
                _ => String::new(),
            };
            log::warn!(
                "{} held {} that vatcar-site did not write, found when the site was replaced: \
                 {}{more}; nothing was deleted, they are in {}: move what you want published \
                 into the site folder's static/, from which every build copies it",
                place.dir.display(),
                if kept.len() == 1 { "a file" } else { "files" },
                kept[..kept.len().min(10)].join(", "),
                kept_at.display()
            );
        }
    }
    remove_all(&staging)?;
    Ok(true)
}

fn remove_all(path: &Path) -> Result<()> {
    match fs::remove_dir_all(path) {
        Err(error) if error.kind() == ErrorKind::NotFound => Ok(()),
        other => other.with_context(|| format!("could not remove {}", path.display())),
    }
}

/// Takes the tree at `tree` apart: removes the files its marker lists (every regular file if
/// `all_ours`, a tree this tool staged) and the marker, and the folders that held only those.
/// If anything else is left (a file the webmaster saved, a link, a mounted volume), the tree is
/// moved to `kept_at`; their keys are returned. Nothing is followed through a link, and no
/// mount point is entered.
pub(super) fn discard(tree: &Path, kept_at: &Path, all_ours: bool) -> Result<Vec<String>> {
    discard_seeing(tree, kept_at, all_ours, &MountTable::read())
}

/// [`discard`], with the mount points of `table`.
pub(super) fn discard_seeing(
    tree: &Path,
    kept_at: &Path,
    all_ours: bool,
    table: &MountTable,
) -> Result<Vec<String>> {
    if !fs::symlink_metadata(tree).is_ok_and(|meta| meta.is_dir()) {
        return Ok(Vec::new());
    }
    // A marker that does not read lists nothing: everything is kept.
    let listed = (!all_ours).then(|| {
        Marker::read(tree)
            .ok()
            .flatten()
            .map(|marker| marker.files.into_iter().collect())
            .unwrap_or_default()
    });
    let walk = Walk {
        listed,
        table,
        device: device(tree),
    };
    let mut kept = walk.remove_ours(tree, "")?;
    if kept.is_empty() {
        fs::remove_dir(tree).with_context(|| format!("could not remove {}", tree.display()))?;
    } else {
        kept.sort_unstable();
        fs::rename(tree, kept_at).with_context(|| {
            format!("could not move {} to {}", tree.display(), kept_at.display())
        })?;
    }
    Ok(kept)
}

struct Walk<'a> {
    /// What is ours; `None`, every regular file.
    listed: Option<HashSet<String>>,
    table: &'a MountTable,
    device: Option<u64>,
}

impl Walk<'_> {
    /// Removes what is ours in `dir` (key `folder`), and gives the keys of the rest. The
    /// folders in it on all cores: a site of many events has a folder for each.
    fn remove_ours(&self, dir: &Path, folder: &str) -> Result<Vec<String>> {
        use rayon::prelude::*;
        let unreadable = || format!("could not read {}", dir.display());
        let items = fs::read_dir(dir).with_context(unreadable)?;
        let items: Vec<fs::DirEntry> = items.collect::<Result<_, _>>().with_context(unreadable)?;
        let kept: Vec<Vec<String>> = (items.par_iter())
            .map(|item| self.remove_item(item, folder))
            .collect::<Result<_>>()?;
        Ok(kept.concat())
    }

    /// Removes `item` of the folder `folder` if it is ours (a folder, what is ours in it and
    /// then itself if that left it empty), and gives the keys of what is kept.
    fn remove_item(&self, item: &fs::DirEntry, folder: &str) -> Result<Vec<String>> {
        let name = item.file_name();
        let path = item.path();
        let key = match folder {
            "" => name.clone(),
            _ => key([std::ffi::OsStr::new(folder), &name]),
        };
        let key = key.to_string_lossy().into_owned();
        let file_type = item
            .file_type()
            .with_context(|| format!("could not read {}", path.display()))?;
        if file_type.is_dir() {
            if device(&path) != self.device || self.table.contains(&path) {
                return Ok(vec![format!("{key}/")]);
            }
            let mut kept = self.remove_ours(&path, &key)?;
            if kept.is_empty() && fs::remove_dir(&path).is_err() {
                kept.push(format!("{key}/"));
            }
            Ok(kept)
        } else if file_type.is_file()
            && name.to_str().is_some()
            && (self.listed.as_ref().is_none_or(|l| l.contains(&key)) || key == MARKER)
        {
            fs::remove_file(&path)
                .with_context(|| format!("could not remove {}", path.display()))?;
            Ok(Vec::new())
        } else {
            Ok(vec![key])
        }
    }
}
