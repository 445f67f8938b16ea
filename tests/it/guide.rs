//! The README and the user guide in docs/: what a new webmaster finds first, the links between
//! the pages, and the action's address, which Cargo.toml's `repository` gives everywhere.

use crate::support::{run_ok, vatcar};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn read(path: &str) -> String {
    fs::read_to_string(Path::new(ROOT).join(path)).unwrap()
}

/// README.md, CONTRIBUTING.md and every Markdown file of docs/, by path.
fn documentation() -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let mut paths = vec![
        Path::new(ROOT).join("README.md"),
        Path::new(ROOT).join("CONTRIBUTING.md"),
    ];
    walk(&Path::new(ROOT).join("docs"), &mut paths);
    paths
        .into_iter()
        .map(|p| {
            let name = p.strip_prefix(ROOT).unwrap().to_string_lossy().into_owned();
            (name, fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// `owner/name` of Cargo.toml's `repository`.
fn repository() -> &'static str {
    let url = env!("CARGO_PKG_REPOSITORY");
    url.strip_prefix("https://github.com/")
        .expect("repository is a GitHub address")
        .trim_end_matches('/')
}

/// Five minutes: at most 250 lines, and install, init, the key and publishing in the first
/// 120, in that order.
#[test]
fn the_readme_is_short_and_starts_with_what_a_new_webmaster_needs() {
    let readme = read("README.md");
    let lines: Vec<&str> = readme.lines().collect();
    assert!(lines.len() <= 250, "README.md has {} lines", lines.len());
    let mut last = 0;
    for heading in [
        "## Install",
        "## Start a site",
        "## Your facility's API key",
        "## Check and publish",
    ] {
        let at = lines
            .iter()
            .position(|l| *l == heading)
            .unwrap_or_else(|| panic!("README.md has no {heading:?}"));
        assert!(at < 120 && at > last, "{heading:?} is on line {}", at + 1);
        last = at;
    }
    let first: String = lines[..120].join("\n");
    for step in [
        "vatcar-site init",
        "serve --demo",
        "VATCAR_API_KEY",
        "vatcar-site check",
    ] {
        assert!(
            first.contains(step),
            "{step:?} is not in the first 120 lines"
        );
    }
    // The two commands for people working on the program, in their own section.
    let developing = readme
        .split("\n## Developing\n")
        .nth(1)
        .expect("Developing");
    assert!(developing.contains("\ncargo run --release -- build --demo\n"));
    assert!(developing.contains("\ncargo test\n"));
}

/// Every relative link and anchor of the README, CONTRIBUTING.md and docs/ leads somewhere,
/// with the heading ids GitHub gives (scripts/check-links.py, which .ci/run runs too).
#[test]
fn every_relative_link_of_the_documentation_leads_somewhere() {
    let Ok(ran) = Command::new("python3")
        .arg(Path::new(ROOT).join("scripts/check-links.py"))
        .output()
    else {
        eprintln!("skipped: python3 is not installed (.ci/run checks the links)");
        return;
    };
    let stdout = String::from_utf8_lossy(&ran.stdout);
    assert!(
        ran.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    assert!(stdout.contains("docs/configuration.md"), "{stdout}");
}

/// The checker finds what it is for: a missing file, a missing anchor, and not a link in code.
#[test]
fn the_link_checker_finds_a_broken_link_and_a_bad_anchor() {
    let tmp = tempfile::tempdir_in(Path::new(ROOT).join("target")).unwrap();
    let page = tmp.path().join("page.md");
    fs::write(
        &page,
        "# Page\n\n## The `static/` folder\n\n[ok](#the-static-folder) [bad](#static)\n\
         [gone](nothing.md) `[code](nothing.md)`\n\n```\n[fenced](nothing.md)\n```\n",
    )
    .unwrap();
    let Ok(ran) = Command::new("python3")
        .arg(Path::new(ROOT).join("scripts/check-links.py"))
        .arg(&page)
        .output()
    else {
        eprintln!("skipped: python3 is not installed");
        return;
    };
    let stdout = String::from_utf8_lossy(&ran.stdout);
    assert_eq!(ran.status.code(), Some(1), "{stdout}");
    let problems: Vec<&str> = stdout.lines().collect();
    assert_eq!(problems.len(), 2, "{stdout}");
    assert!(problems[0].ends_with("page.md:5: #static: no heading has the id #static"));
    assert!(problems[1].ends_with("page.md:6: nothing.md: no such file"));
}

/// The action's address is Cargo.toml's `repository`, everywhere it is written: the workflow
/// `init` writes, the README's and the guide's examples and links, and no other owner in
/// action.yml (which reads the repository it runs from). `OWNER` and `you` are placeholders.
#[test]
fn the_action_is_named_by_cargo_toml_everywhere() {
    let repository = repository();
    let (_, name) = repository.split_once('/').unwrap();
    let tmp = tempfile::tempdir().unwrap();
    run_ok(vatcar(&["init", "-q"]).current_dir(tmp.path()));
    let workflow = fs::read_to_string(tmp.path().join(".github/workflows/site.yml")).unwrap();
    let mut texts = documentation();
    texts.push(("action.yml".to_owned(), read("action.yml")));
    texts.push(("the workflow init writes".to_owned(), workflow.clone()));
    let mut named = 0;
    for (file, text) in &texts {
        // `owner/vatcar-site@` in a `uses:`, and `github.com/owner/vatcar-site` in an address.
        let marks = ["@", "/", "\n", " ", ")", "`", "."].map(|end| format!("/{name}{end}"));
        for mark in &marks {
            for (at, _) in text.match_indices(mark.as_str()) {
                let before = &text[..at];
                let owner_start = before
                    .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                    .map_or(0, |i| i + 1);
                let owner = &before[owner_start..];
                if owner.is_empty() || owner == "OWNER" || owner == "you" {
                    continue;
                }
                let is_address = before[..owner_start].ends_with("github.com/");
                let is_uses = mark.ends_with('@');
                if is_address || is_uses {
                    assert_eq!(
                        format!("{owner}/{name}"),
                        repository,
                        "{file} names another repository than Cargo.toml's"
                    );
                    named += 1;
                }
            }
        }
    }
    assert!(workflow.contains(&format!("uses: {repository}@v")));
    let readme = read("README.md");
    let releases = format!("{}/releases", env!("CARGO_PKG_REPOSITORY"));
    assert!(readme.contains(&releases), "the README links {releases}");
    assert!(
        !readme.contains("](../"),
        "a relative link out of the repository"
    );
    assert!(named >= 4, "{named}");
}
