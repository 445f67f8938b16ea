//! Finishing a publication: what the new marker lists and what goes, and the new tree put in
//! place of the old one (or, when nothing changed, nothing touched). [`super::Staging::commit`]
//! decides which; each way is a function here.
//!
//! A swap exchanges only the smallest folder that holds every change ([`Listing::scope`]):
//! a rebuild that changes `data/changes.json` alone swaps `data/`, not a tree of 40,000
//! files hard-linked anew. Nothing outside that folder changes, so a reader still sees the old
//! site or the new one. The marker, at the top, is replaced on its own before the exchange
//! (listing the files of both sites, those that change unstamped: true of either tree) and
//! after it, so that a run killed in between leaves a marker that is right for what is there.
//! (The one limit: killed before the exchange, it lists as ours the new files that are not
//! there yet, so a file the webmaster then makes at exactly such a path, before the next run,
//! is taken for ours.)

use super::carry::Carry;
use super::files::write_file;
use super::marker::{FolderKind, MARKER, Marker};
use super::stamp::Stamp;
use super::tree::{Entry, OldTree, below};
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

    /// The smallest folder (`""`, the top) that holds every file written and removed, is a
    /// real folder of the old tree, and keeps files of ours: exchanging it alone turns the old
    /// site into the new one. A folder whose files of ours all go is not chosen, since the
    /// exchange would leave it behind, empty.
    pub fn scope(&self, old: &OldTree) -> &'a str {
        let folder_of = |path: &'a str| path.rsplit_once('/').map_or("", |(folder, _)| folder);
        let mut changes = self.changed().chain(self.stale.iter().copied());
        let Some(first) = changes.next() else {
            return "";
        };
        let mut scope = folder_of(first);
        for path in changes {
            while !scope.is_empty() && !holds(scope, path) {
                scope = folder_of(scope);
            }
        }
        let exchangeable =
            |folder: &str| old.get(folder) == Some(Entry::Folder) && self.lists_under(folder);
        while !scope.is_empty() && !exchangeable(scope) {
            scope = folder_of(scope);
        }
        scope
    }

    /// Whether the new marker lists a file below `folder`.
    fn lists_under(&self, folder: &str) -> bool {
        let prefix = format!("{folder}/");
        let first = self
            .listed
            .partition_point(|(path, _)| path.as_str() < prefix.as_str());
        self.listed
            .get(first)
            .is_some_and(|(path, _)| path.starts_with(&prefix))
    }

    /// The marker for the moment between the old tree and the new one: every file of either,
    /// those that change without a stamp, so that whichever tree a stopped run leaves, the
    /// next run compares them byte for byte rather than trust a stamp of the other tree.
    pub fn marker_between(&self, kind: FolderKind) -> Vec<u8> {
        let mut files: Vec<(String, Option<Stamp>)> = self
            .listed
            .iter()
            .map(|(path, staged)| {
                let stamp = staged.stamp.filter(|_| !staged.written);
                ((*path).clone(), stamp)
            })
            .chain(self.stale.iter().map(|path| ((*path).clone(), None)))
            .collect();
        files.sort_unstable_by(|(a, _), (b, _)| a.cmp(b));
        Marker::new(kind, files.into_iter()).to_json()
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
    rename_marker(&staged, dir)?;
    Ok(marker.len() as u64)
}

fn rename_marker(staged: &Path, dir: &Path) -> Result<()> {
    let live = dir.join(MARKER);
    fs::rename(staged, &live).with_context(|| format!("could not replace {}", live.display()))
}

/// Whether the folder `folder` (`""`, the top) holds `path`, at any depth.
fn holds(folder: &str, path: &str) -> bool {
    folder.is_empty()
        || path
            .strip_prefix(folder)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// The new tree, completed with the unchanged files and the webmaster's linked in from the
/// old one, swapped in place of it in one step (or moved there, for a folder that does not
/// exist yet), or, where the changes lie in one folder ([`Listing::scope`]), that folder
/// alone; what the webmaster saved meanwhile is then carried over from the old tree, which is
/// left in `staging`. `marker` is the new marker, of `kind`; the bytes of marker written are
/// returned.
pub(super) fn exchange(
    carry: &Carry,
    listing: &Listing,
    staging: &Path,
    kind: FolderKind,
    marker: &[u8],
) -> Result<u64> {
    // Into a folder that does not exist yet, the whole tree is moved there.
    let scope = if carry.dir.exists() {
        listing.scope(carry.old)
    } else {
        ""
    };
    if scope.is_empty() {
        write_file(&carry.new_dir.join(MARKER), marker)?;
        exchange_tree(carry, listing, staging, "")?;
        return Ok(marker.len() as u64);
    }
    // The folder alone: the marker first lists both trees' files, then the new tree's.
    let between = replace_marker(carry.new_dir, carry.dir, &listing.marker_between(kind))?;
    exchange_tree(carry, listing, staging, scope)?;
    // Once the folder is exchanged the run finishes (a signal no longer stops it): the marker
    // between was right for either tree, and this one is exact.
    let staged = carry.new_dir.join(MARKER);
    write_file(&staged, marker)?;
    rename_marker(&staged, carry.dir)?;
    Ok(between + marker.len() as u64)
}

/// Completes the new tree's folder `scope` (`""`, the whole tree) and exchanges it with the
/// old tree's.
fn exchange_tree(carry: &Carry, listing: &Listing, staging: &Path, scope: &str) -> Result<()> {
    carry.link_unchanged(listing.unchanged().filter(|path| holds(scope, path)))?;
    carry.carry_webmasters_files(scope)?;
    pause_for_tests("staged");
    check_interrupt()?;
    if !carry.dir.exists() {
        fs::rename(carry.new_dir, carry.dir)
            .with_context(|| format!("could not move the new site into {}", carry.dir.display()))?;
        pause_for_tests("swapped");
        return Ok(());
    }
    // Where the exchange is two renames, a run stopped between them leaves `scope` missing:
    // the next one puts the old folder back from here ([`swap::recover`]).
    fs::write(staging.join(swap::SCOPE), scope)
        .context("could not write the publication's scope")?;
    let old_tree = swap::exchange(
        &below(carry.new_dir, scope),
        &below(carry.dir, scope),
        &staging.join("old"),
    )?;
    pause_for_tests("swapped");
    let rescuing = std::time::Instant::now();
    carry.rescue_late_files(&old_tree, scope);
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
