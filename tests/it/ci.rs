//! Issue 37: one CI, in the repository. `.ci/run` (here) and `.github/workflows/ci.yml` (on
//! GitHub) run the same scripts, so a contributor's pull request is checked as our own commits
//! are; and no check reaches outside the repository for its tools or its data.

use std::collections::BTreeSet;
use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The check scripts a file runs: every `scripts/ci/*.sh` and `tests/action/*.sh` it names.
fn scripts_run_by(file: &str) -> BTreeSet<String> {
    let text = std::fs::read_to_string(Path::new(ROOT).join(file)).unwrap();
    let mut found = BTreeSet::new();
    for prefix in ["scripts/ci/", "tests/action/"] {
        for (at, _) in text.match_indices(prefix) {
            let name: String = text[at..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '-' | '_' | '.'))
                .collect();
            if name.ends_with(".sh") {
                found.insert(name);
            }
        }
    }
    found
}

#[test]
fn github_and_ci_run_call_the_same_scripts_and_every_script_is_called() {
    let local = scripts_run_by(".ci/run");
    let github = scripts_run_by(".github/workflows/ci.yml");
    assert_eq!(
        local, github,
        ".ci/run and .github/workflows/ci.yml must run the same check scripts"
    );
    let mut written: BTreeSet<String> = std::fs::read_dir(Path::new(ROOT).join("scripts/ci"))
        .unwrap()
        .map(|e| format!("scripts/ci/{}", e.unwrap().file_name().to_string_lossy()))
        .filter(|name| name.ends_with(".sh"))
        .collect();
    written.insert("tests/action/rehearse.sh".into());
    assert_eq!(
        local, written,
        "every script of scripts/ci/ is a check that both CIs run"
    );
}

/// Every file of the folders that hold the checks and the benchmarks, with its text.
fn check_files() -> Vec<(String, String)> {
    let mut files = Vec::new();
    for folder in [".ci", "tests", "scripts", ".github", "benches"] {
        for entry in walkdir::WalkDir::new(Path::new(ROOT).join(folder))
            .into_iter()
            .filter_entry(|e| !matches!(e.file_name().to_str(), Some("node_modules" | ".venv")))
        {
            let entry = entry.unwrap();
            if !entry.file_type().is_file() {
                continue;
            }
            if let Ok(text) = std::fs::read_to_string(entry.path()) {
                let name = entry.path().strip_prefix(ROOT).unwrap();
                files.push((name.to_string_lossy().replace('\\', "/"), text));
            }
        }
    }
    files
}

#[test]
fn no_check_reaches_outside_the_repository() {
    // What sits beside a checkout on one machine and not in a fork's: a workspace's shared
    // folder of tools.
    // Written in pieces, so that this file does not name them itself.
    let outside = [
        ["..", "/shared"].concat(),
        ["shared", "/tools"].concat(),
        ["SHARED", "_TOOLS"].concat(),
    ];
    let mut reaching = Vec::new();
    for (name, text) in check_files() {
        for pattern in &outside {
            if text.contains(pattern.as_str()) {
                reaching.push(format!("{name}: {pattern}"));
            }
        }
    }
    assert!(reaching.is_empty(), "{reaching:#?}");
}

/// Issue 45, finding 20: every Python package a check or a release installs is the file its
/// hash names, or nothing: each `pip install` passes `--require-hashes` and reads a
/// requirements file in which every package carries its hashes (a version alone could be
/// published again under the same number on another index, or a mirror could serve other
/// bytes).
#[test]
fn every_pip_install_is_pinned_by_hash() {
    let mut unpinned = Vec::new();
    for (name, text) in check_files() {
        if !(name.ends_with(".sh") || name.ends_with(".yml") || name.ends_with(".yaml")) {
            continue;
        }
        // A command is its lines joined where they end in a backslash.
        let commands = text.replace("\\\n", " ");
        for command in commands.lines().filter(|l| l.contains("pip install")) {
            if command.trim_start().starts_with('#') {
                continue;
            }
            if !command.contains("--require-hashes") {
                unpinned.push(format!("{name}: {}", command.trim()));
            }
            let words: Vec<&str> = command.split_whitespace().collect();
            for file in words.windows(2).filter(|w| w[0] == "-r").map(|w| w[1]) {
                let path = Path::new(ROOT).join(file.trim_matches('"'));
                let pins = std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("{name} installs from {file}: {e}"))
                    .replace("\\\n", " ");
                for pin in pins.lines().map(str::trim) {
                    if pin.is_empty() || pin.starts_with('#') {
                        continue;
                    }
                    let pinned = pin.contains("==") && pin.contains("--hash=sha256:");
                    if !pinned {
                        unpinned.push(format!("{file}: {pin}"));
                    }
                }
            }
        }
    }
    assert!(unpinned.is_empty(), "{unpinned:#?}");
}
