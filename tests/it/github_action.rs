//! What the vatcar-site GitHub Action reads from a build: the output folder, named in the
//! file GITHUB_OUTPUT points at. (The action's own shell steps are rehearsed by
//! tests/action/rehearse.sh.)

use crate::support::{run, run_ok, vatcar};
use std::fs;

#[test]
fn a_build_in_a_github_actions_step_names_its_output_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let outputs = tmp.path().join("github-output");
    fs::write(&outputs, "earlier=step\n").unwrap();
    run_ok(
        vatcar(&["build", "--demo", "--output", "public"])
            .current_dir(tmp.path())
            .env("GITHUB_OUTPUT", &outputs),
    );
    let site = tmp.path().join("public");
    assert!(site.join("index.html").is_file());
    assert_eq!(
        fs::read_to_string(&outputs).unwrap(),
        format!("earlier=step\noutput={}\n", site.display()),
        "appended, absolute, one line"
    );
}

#[test]
fn a_failed_build_names_no_output_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let outputs = tmp.path().join("github-output");
    fs::write(&outputs, "").unwrap();
    let ran = run(
        vatcar(&["build", "--snapshot", "missing", "--output", "public"])
            .current_dir(tmp.path())
            .env("GITHUB_OUTPUT", &outputs),
    );
    assert!(!ran.status.success(), "{}", ran.text());
    assert_eq!(fs::read_to_string(&outputs).unwrap(), "");
}
