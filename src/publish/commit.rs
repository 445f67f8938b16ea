//! Finishing a publication: what the staged files replace, the marker that lists them, and
//! the new tree put in place of the old one (or, when nothing changed, nothing touched).

use super::marker::{MARKER, Marker};
use super::place::Mode;
use super::tree::Entry;
use super::{Added, PublishReport, Staged, Staging, check_interrupt, pause_for_tests, stamp, swap};
use crate::publish::files::write_file;
use anyhow::{Context, Result};
use std::fs;

impl Staging {
    /// Puts the staged files in place of the old ones, all at once where the file system
    /// allows, with the marker updated and what this tool wrote before and no longer produces
    /// gone. The webmaster's own files stay.
    pub fn commit(mut self) -> Result<PublishReport> {
        check_interrupt()?;
        let Added { files, vouched, .. } = std::mem::take(&mut *self.lock());
        // A file kept is one the marker lists and the scan saw as a regular file, reached
        // through real folders: nothing in the old tree stands in its way.
        let overwritten = self.check_ownership(
            files
                .iter()
                .filter(|(_, staged)| staged.written)
                .map(|(path, _)| path.as_str()),
        )?;
        if self.marker_as_written && vouched == files.len() && files.len() == self.previous.len() {
            // Every file was kept on its stamp's word, and they are the files listed: the
            // marker would be written again as it is, so it is neither made nor compared.
            self.finish();
            return Ok(PublishReport {
                unchanged: files.len(),
                ..PublishReport::default()
            });
        }
        // What the marker lists and this run did not make: kept where reports keep what
        // earlier runs wrote (in place, and listed, with its stamp while it looks as
        // recorded), removed where a site prunes it.
        let mut stale: Vec<&String> = Vec::new();
        let mut kept: Vec<(&String, Staged)> = Vec::new();
        for (path, recorded) in &self.previous {
            if files.contains_key(path) || !self.old.is_file(path) {
                continue;
            }
            if self.prune {
                stale.push(path);
            } else {
                let stamp = recorded.filter(|r| self.old.seen(path) == Some(r.seen));
                kept.push((
                    path,
                    Staged {
                        written: false,
                        stamp,
                    },
                ));
            }
        }
        // Everything the new marker lists, put in order below.
        let mut listed: Vec<(&String, &Staged)> = files
            .iter()
            .chain(kept.iter().map(|(path, staged)| (*path, staged)))
            .collect();
        listed.sort_unstable_by_key(|(path, _)| *path);
        stale.sort_unstable();
        let changed: Vec<&String> = listed
            .iter()
            .filter(|(_, staged)| staged.written)
            .map(|(path, _)| *path)
            .collect();
        let marker_json = Marker::new(
            self.kind,
            listed
                .iter()
                .map(|(path, staged)| ((*path).clone(), staged.stamp)),
        )
        .to_json();
        let marker_changed = self.previous_marker != Some(stamp::hash(&marker_json));
        let mut report = PublishReport {
            written: changed.len(),
            unchanged: files.len() - changed.len(),
            removed: stale.len(),
            overwritten,
            bytes_written: self.bytes_written(),
        };
        if changed.is_empty()
            && stale.is_empty()
            && (!marker_changed || self.previous_marker.is_some())
        {
            // Nothing to swap: the folder is already this site, mtimes and all. Its marker
            // may change alone (stamps made for files compared byte by byte, a listed file
            // gone): it is replaced by itself, in one rename.
            if marker_changed {
                let staged = self.new_dir.join(MARKER);
                write_file(&staged, &marker_json)?;
                check_interrupt()?;
                let marker = self.place.dir.join(MARKER);
                fs::rename(&staged, &marker)
                    .with_context(|| format!("could not replace {}", marker.display()))?;
                report.bytes_written += marker_json.len() as u64;
            }
            self.finish();
            return Ok(report);
        }
        write_file(&self.new_dir.join(MARKER), &marker_json)?;
        report.bytes_written += marker_json.len() as u64;
        match self.place.mode {
            Mode::Exchange => {
                self.link_unchanged(
                    listed
                        .iter()
                        .filter(|(_, staged)| !staged.written)
                        .map(|(path, _)| *path),
                )?;
                self.carry_webmasters_files(&files)?;
                pause_for_tests("staged");
                check_interrupt()?;
                if self.place.dir.exists() {
                    let old_tree =
                        swap::exchange(&self.new_dir, &self.place.dir, &self.staging.join("old"))?;
                    pause_for_tests("swapped");
                    let rescuing = std::time::Instant::now();
                    self.rescue_late_files(&old_tree, &files);
                    log::debug!(
                        "looked for files changed while publishing in {} ms",
                        rescuing.elapsed().as_millis()
                    );
                } else {
                    fs::rename(&self.new_dir, &self.place.dir).with_context(|| {
                        format!(
                            "could not move the new site into {}",
                            self.place.dir.display()
                        )
                    })?;
                    pause_for_tests("swapped");
                }
            }
            Mode::InPlace => {
                pause_for_tests("staged");
                check_interrupt()?;
                let mut steps: Vec<swap::Step> = stale
                    .iter()
                    .map(|path| swap::Step::Remove {
                        path: (*path).clone(),
                    })
                    .collect();
                for path in &changed {
                    steps.push(swap::Step::Replace {
                        path: (*path).clone(),
                        had_old: matches!(self.old.get(path), Some(Entry::File | Entry::Other)),
                    });
                }
                // Last, so that it lists the new files only once they are all in place.
                steps.push(swap::Step::Replace {
                    path: MARKER.to_owned(),
                    had_old: self.previous_marker.is_some(),
                });
                swap::in_place(&self.place.dir, &self.staging, &steps)?;
            }
        }
        self.finish();
        Ok(report)
    }

    fn finish(&mut self) {
        self.committed = true;
        self.place.keep = true;
    }
}
