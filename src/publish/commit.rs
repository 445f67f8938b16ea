//! Finishing a publication: what the new marker lists and what goes, and the new tree put in
//! place of the old one (or, when nothing changed, nothing touched). [`super::Staging::commit`]
//! decides which; each way is a function here.

use super::carry::Carry;
use super::files::write_file;
use super::marker::{FolderKind, MARKER, Marker};
use super::stamp::Stamp;
use super::tree::{Entry, OldTree};
use super::{Staged, check_interrupt, pause_for_tests, swap};
use anyhow::{Context, Result};
use std::collections::HashMap;
use std::fs;
use std::path::Path;

/// What a publication leaves listed in the marker, and what it removes.
pub(super) struct Listing<'a> {
    /// Every file the new marker lists, sorted by path: those made now, and those of earlier
    /// runs kept where a folder is not pruned.
    listed: Vec<(&'a String, Staged)>,
    /// Files of the last build that this one did not make, removed, sorted by path.
    pub stale: Vec<&'a String>,
}

impl<'a> Listing<'a> {
    /// `made` is what this publication staged, `previous` what the marker listed. A file the
    /// marker lists and this run did not make is kept where a folder is not pruned (reports
    /// keep what earlier runs wrote: in place, and listed, with its stamp while it looks as
    /// recorded), and removed where a site prunes it. One the scan did not see as a regular
    /// file is neither: it is gone already, or not ours to touch.
    pub fn new(
        made: &'a HashMap<String, Staged>,
        previous: &'a HashMap<String, Option<Stamp>>,
        old: &OldTree,
        prune: bool,
    ) -> Self {
        let mut listed: Vec<(&String, Staged)> =
            made.iter().map(|(path, staged)| (path, *staged)).collect();
        let mut stale = Vec::new();
        for (path, recorded) in previous {
            if made.contains_key(path) || !old.is_file(path) {
                continue;
            }
            if prune {
                stale.push(path);
            } else {
                let stamp = recorded.filter(|r| old.seen(path) == Some(r.seen));
                let staged = Staged {
                    written: false,
                    stamp,
                };
                listed.push((path, staged));
            }
        }
        listed.sort_unstable_by_key(|(path, _)| *path);
        stale.sort_unstable();
        Self { listed, stale }
    }

    /// The files written into the new tree, in order.
    pub fn changed(&self) -> impl Iterator<Item = &'a String> + '_ {
        self.listed
            .iter()
            .filter(|(_, staged)| staged.written)
            .map(|(path, _)| *path)
    }

    /// The files the new tree takes from the old one as they are, in order.
    pub fn unchanged(&self) -> impl Iterator<Item = &'a String> + '_ {
        self.listed
            .iter()
            .filter(|(_, staged)| !staged.written)
            .map(|(path, _)| *path)
    }

    /// The new marker's bytes.
    pub fn marker(&self, kind: FolderKind) -> Vec<u8> {
        let files = self.listed.iter();
        Marker::new(
            kind,
            files.map(|(path, staged)| ((*path).clone(), staged.stamp)),
        )
        .to_json()
    }
}

/// Replaces the marker of `dir` alone, in one rename (staged in `new_dir` first), the folder's
/// files left as they are: when only stamps changed, or a listed file went. The bytes written.
pub(super) fn replace_marker(new_dir: &Path, dir: &Path, marker: &[u8]) -> Result<u64> {
    let staged = new_dir.join(MARKER);
    write_file(&staged, marker)?;
    check_interrupt()?;
    let live = dir.join(MARKER);
    fs::rename(&staged, &live).with_context(|| format!("could not replace {}", live.display()))?;
    Ok(marker.len() as u64)
}

/// The new tree, completed with the unchanged files and the webmaster's linked in from the
/// old one, swapped in place of it in one step (or moved there, for a folder that does not
/// exist yet); what the webmaster saved meanwhile is then carried over from the old tree,
/// which is left at `staging`/old.
pub(super) fn exchange(carry: &Carry, listing: &Listing, staging: &Path) -> Result<()> {
    carry.link_unchanged(listing.unchanged())?;
    carry.carry_webmasters_files()?;
    pause_for_tests("staged");
    check_interrupt()?;
    if !carry.dir.exists() {
        fs::rename(carry.new_dir, carry.dir)
            .with_context(|| format!("could not move the new site into {}", carry.dir.display()))?;
        pause_for_tests("swapped");
        return Ok(());
    }
    let old_tree = swap::exchange(carry.new_dir, carry.dir, &staging.join("old"))?;
    pause_for_tests("swapped");
    let rescuing = std::time::Instant::now();
    carry.rescue_late_files(&old_tree);
    log::debug!(
        "looked for files changed while publishing in {} ms",
        rescuing.elapsed().as_millis()
    );
    Ok(())
}

/// On a mount point, where nothing beside `dir` shares its file system: the stale files
/// removed and the changed ones moved in from `staging` one by one, the marker last, under a
/// journal that undoes them all on a failure ([`swap::in_place`]).
pub(super) fn in_place(
    dir: &Path,
    staging: &Path,
    listing: &Listing,
    old: &OldTree,
    had_marker: bool,
) -> Result<()> {
    pause_for_tests("staged");
    check_interrupt()?;
    let removed = listing.stale.iter().map(|path| swap::Step::Remove {
        path: (*path).clone(),
    });
    let replaced = listing.changed().map(|path| swap::Step::Replace {
        path: path.clone(),
        had_old: matches!(old.get(path), Some(Entry::File | Entry::Other)),
    });
    // Last, so that it lists the new files only once they are all in place.
    let marker = swap::Step::Replace {
        path: MARKER.to_owned(),
        had_old: had_marker,
    };
    let steps: Vec<swap::Step> = removed.chain(replaced).chain([marker]).collect();
    swap::in_place(dir, staging, &steps)
}
