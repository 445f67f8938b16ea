//! The hostile fixtures are made by scripts (tests/fixtures/*/make.py): each script must still
//! write the committed files byte for byte, so that a fixture edited by hand, or a script
//! changed without running it, is caught where every contributor runs the tests (and on the
//! three systems of CI), not only in the full checks of .ci/run.
//!
//! The scripts need Python 3; without a `python3` that runs, the check skips, saying so.

use crate::support::{assert_same_files, tree};
use std::path::Path;
use std::process::Command;

/// Runs `fixture`'s make.py into a fresh folder and compares it with the committed folder,
/// make.py aside.
fn script_reproduces(fixture: &str) {
    let committed = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(fixture);
    let made = tempfile::tempdir().unwrap();
    let ran = Command::new("python3")
        .arg(committed.join("make.py"))
        .arg(made.path())
        .output();
    let output = match ran {
        Ok(output) if output.status.success() => output,
        Ok(output) if !python_runs() => {
            eprintln!("skipped: python3 does not run here ({})", output.status);
            return;
        }
        Ok(output) => panic!(
            "{fixture}/make.py failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ),
        Err(error) => {
            eprintln!("skipped: python3 could not be run ({error})");
            return;
        }
    };
    assert!(
        output.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let mut expected = tree(&committed);
    expected.remove("make.py");
    assert_same_files(&tree(made.path()), &expected);
}

/// Whether `python3` runs at all (Windows may have only a stub of that name).
fn python_runs() -> bool {
    Command::new("python3")
        .args(["-c", "pass"])
        .status()
        .is_ok_and(|status| status.success())
}

#[test]
fn the_hostile_snapshot_is_what_its_script_writes() {
    script_reproduces("hostile");
}

#[test]
fn the_hostile_content_site_is_what_its_script_writes() {
    script_reproduces("hostile-content");
}
