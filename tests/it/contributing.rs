//! CONTRIBUTING.md's layout table stays true: every folder of `src/` that holds code has a
//! row, every `.rs` file is named (in its folder's row or in a row of its own), and every
//! path a row names exists.

use std::collections::BTreeSet;
use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The texts between backticks in `cell`.
fn quoted(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

/// Every `.rs` file below `src/`, and every folder holding one, by path from the root.
fn code_under_src() -> (BTreeSet<String>, BTreeSet<String>) {
    fn walk(dir: &Path, files: &mut BTreeSet<String>, folders: &mut BTreeSet<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, files, folders);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = |p: &Path| {
                    p.strip_prefix(ROOT)
                        .unwrap()
                        .to_string_lossy()
                        .replace('\\', "/")
                };
                files.insert(rel(&path));
                folders.insert(format!("{}/", rel(path.parent().unwrap())));
            }
        }
    }
    let (mut files, mut folders) = (BTreeSet::new(), BTreeSet::new());
    walk(&Path::new(ROOT).join("src"), &mut files, &mut folders);
    folders.remove("src/");
    (files, folders)
}

#[test]
fn the_layout_table_names_every_module_under_src_and_nothing_else() {
    let text = std::fs::read_to_string(Path::new(ROOT).join("CONTRIBUTING.md")).unwrap();
    let section = text
        .split("\n## Layout\n")
        .nth(1)
        .expect("CONTRIBUTING.md has a Layout section")
        .split("\n## ")
        .next()
        .unwrap();
    let rows = section
        .lines()
        .filter(|l| l.starts_with('|') && !l.starts_with("|---") && !l.starts_with("| path"));
    let (mut named_files, mut named_folders) = (BTreeSet::new(), BTreeSet::new());
    let mut missing = Vec::new();
    for row in rows {
        let cells: Vec<&str> = row.split('|').collect();
        let (paths, what) = (cells[1], cells[2]);
        for path in quoted(paths) {
            if !Path::new(ROOT).join(path).exists() {
                missing.push(path.to_owned());
            }
            if !path.starts_with("src/") {
                continue;
            }
            if path.ends_with('/') {
                named_folders.insert(path.to_owned());
                for name in quoted(what)
                    .into_iter()
                    .filter(|n| n.ends_with(".rs") && !n.contains('/') && !n.contains(' '))
                {
                    let file = format!("{path}{name}");
                    if !Path::new(ROOT).join(&file).is_file() {
                        missing.push(file.clone());
                    }
                    named_files.insert(file);
                }
            } else {
                named_files.insert(path.to_owned());
            }
        }
    }
    assert!(
        missing.is_empty(),
        "CONTRIBUTING.md names what is not there: {missing:?}"
    );
    let (files, folders) = code_under_src();
    let unnamed: Vec<&String> = files.difference(&named_files).collect();
    assert!(
        unnamed.is_empty(),
        "CONTRIBUTING.md's layout table lacks {unnamed:?}"
    );
    let unlisted: Vec<&String> = folders.difference(&named_folders).collect();
    assert!(
        unlisted.is_empty(),
        "CONTRIBUTING.md's layout table has no row for {unlisted:?}"
    );
}
