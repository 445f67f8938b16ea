//! Fault injection for the tests of interrupted runs, compiled into debug builds only (the
//! builds `cargo test` runs): a release reads none of these variables.

use super::interrupted;
use std::path::PathBuf;

/// With `VATCAR_SITE_TEST_PAUSE=<point>`, the publication says `paused at <point>` on stderr and waits there (until the file named
/// by `VATCAR_SITE_TEST_RESUME` exists, a signal comes, or a minute passes), so that a test
/// can send a signal or start a second run at an exact moment. Points: `staged` (everything
/// staged, the output folder's files untouched; where one folder alone is exchanged, the
/// marker is already the one for the moment between), `swapped` (the new tree or folder in
/// place, the old one not yet removed, nor the marker made exact), `moving` (in place on a
/// mount point, half the files moved).
pub(crate) fn pause_for_tests(point: &str) {
    if std::env::var_os("VATCAR_SITE_TEST_PAUSE").is_none_or(|p| p != point) {
        return;
    }
    eprintln!("paused at {point}");
    let resume = std::env::var_os("VATCAR_SITE_TEST_RESUME").map(PathBuf::from);
    for _ in 0..600 {
        if interrupted().is_some() || resume.as_ref().is_some_and(|r| r.exists()) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}
