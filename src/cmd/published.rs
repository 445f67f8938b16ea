//! What every command that publishes says about it.

use crate::publish::PublishReport;
use std::path::Path;

/// Lists, as a warning, the webmaster's files in `dir` that a publication overwrote because
/// `--force` was given: every command that publishes says so the same way.
pub(crate) fn warn_overwritten(dir: &Path, report: &PublishReport) {
    let overwritten = &report.overwritten;
    if overwritten.is_empty() {
        return;
    }
    log::warn!(
        "--force: overwrote {} file{} in {} that vatcar-site had not written: {}",
        overwritten.len(),
        if overwritten.len() == 1 { "" } else { "s" },
        dir.display(),
        overwritten.join(", ")
    );
}
