//! Fault injection for the tests of interrupted runs, compiled into debug builds only (the
//! builds `cargo test` runs): a release reads none of these variables.

use super::interrupted;
use std::path::PathBuf;

/// With `VATCAR_SITE_TEST_PAUSE=<point>[,<point>...]`, the publication says `paused at <point>`
/// on stderr at each and waits there (until the file named by `VATCAR_SITE_TEST_RESUME` exists,
/// which it then removes, a signal comes, or a minute passes), so that a test can send a signal,
/// save a file or start a second run at an exact moment. Points: `staged` (the new tree whole
/// beside the output folder, which is untouched), `swapped` (the new tree in place, the old one
/// not yet taken apart), `moving` (in place on a mount point, half the files moved).
pub(crate) fn pause_for_tests(point: &str) {
    let Ok(points) = std::env::var("VATCAR_SITE_TEST_PAUSE") else {
        return;
    };
    if !points.split(',').any(|p| p == point) {
        return;
    }
    eprintln!("paused at {point}");
    let resume = std::env::var_os("VATCAR_SITE_TEST_RESUME").map(PathBuf::from);
    for _ in 0..600 {
        if interrupted().is_some() {
            return;
        }
        if let Some(resume) = &resume
            && std::fs::remove_file(resume).is_ok()
        {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}
