//! No import circles between files: when one file of `src/` uses another (by a `crate::` or
//! `super::` path), that other never uses it back, directly or through others, so that each
//! file can be read, and changed, from the ones it builds on. A folder's `mod.rs` and the
//! files below it are one tree: it declares them and they may use what it holds, so a path
//! between a file and its own ancestor does not count. Test modules are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::layers::{code_only, rust_files};

/// A module's path from the crate root (`["cmd", "serve", "watch"]`), by its file.
fn module_of(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
}

/// The module paths `code` names, each as written from `module`'s place: `crate::a::b::C`,
/// `super::x::y`, and each item of a `{ }` group after either.
fn named_paths(code: &str, module: &[String]) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    for start in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(at) = code[from..].find(start).map(|at| at + from) {
            from = at + start.len();
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let base: Vec<String> = if start == "crate::" {
                Vec::new()
            } else {
                module[..module.len().saturating_sub(1)].to_vec()
            };
            expand(&code[from..], base, &mut found);
        }
    }
    found
}

/// The path at the start of `text` after `base` (`a::b`, `super::c`, `{a, b::c}`), each one
/// ended, into `found`.
fn expand(text: &str, mut base: Vec<String>, found: &mut Vec<Vec<String>>) {
    let mut rest = text.trim_start();
    loop {
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let mut item = 0;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' | ',' if depth == 1 => {
                        expand(&group[item..i], base.clone(), found);
                        item = i + 1;
                        if c == '}' {
                            return;
                        }
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            return;
        }
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let segment = &rest[..end];
        if segment.is_empty() {
            break;
        }
        if segment == "super" {
            base.pop();
        } else if segment != "self" {
            base.push(segment.to_owned());
        }
        match rest[end..].strip_prefix("::") {
            Some(after) => rest = after.trim_start(),
            None => break,
        }
    }
    found.push(base);
}

/// The file a path leads into: the longest start of it that is a module of `modules`.
fn file_of(path: &[String], modules: &BTreeMap<Vec<String>, String>) -> Option<String> {
    (0..=path.len())
        .rev()
        .find_map(|len| modules.get(&path[..len]).cloned())
}

/// Each file's imports of files that are not its ancestors or below it.
fn imports(files: &[(String, Vec<String>, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let modules: BTreeMap<Vec<String>, String> = files
        .iter()
        .map(|(file, module, _)| (module.clone(), file.clone()))
        .collect();
    let mut edges = BTreeMap::new();
    for (file, module, code) in files {
        let mut uses = BTreeSet::new();
        for path in named_paths(code, module) {
            let Some(target) = file_of(&path, &modules) else {
                continue;
            };
            let target_module = &files.iter().find(|(f, _, _)| *f == target).unwrap().1;
            let related = target_module.starts_with(module) || module.starts_with(target_module);
            if !related {
                uses.insert(target);
            }
        }
        edges.insert(file.clone(), uses);
    }
    edges
}

/// Every circle among `edges`, each as the files it goes through, back to the first.
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let mut found: Vec<Vec<String>> = Vec::new();
    let mut seen_sets: BTreeSet<BTreeSet<String>> = BTreeSet::new();
    for start in edges.keys() {
        // Breadth first from `start`: the shortest way back to it, if there is one.
        let mut came_from: BTreeMap<&String, &String> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start]);
        while let Some(file) = queue.pop_front() {
            for next in edges.get(file).into_iter().flatten() {
                if next == start {
                    let mut circle = vec![file.clone()];
                    let mut at = file;
                    while at != start {
                        at = came_from[at];
                        circle.push(at.clone());
                    }
                    circle.reverse();
                    circle.push(start.clone());
                    if seen_sets.insert(circle.iter().cloned().collect()) {
                        found.push(circle);
                    }
                    queue.clear();
                    break;
                }
                if !came_from.contains_key(next) && next != start {
                    came_from.insert(next, file);
                    queue.push_back(next);
                }
            }
        }
    }
    found
}

#[test]
fn no_two_files_import_each_other_even_through_others() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    rust_files(&src, &mut paths);
    paths.sort();
    let mut files = Vec::new();
    for path in &paths {
        let relative = path.strip_prefix(&src).unwrap();
        if relative == Path::new("main.rs") {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        let code = code_only(&text);
        let code = match code.find("#[cfg(test)]\nmod tests") {
            Some(at) => code[..at].to_owned(),
            None => code,
        };
        let name = format!("src/{}", relative.display()).replace('\\', "/");
        files.push((name, module_of(relative), code));
    }
    let edges = imports(&files);
    assert!(
        edges.values().map(BTreeSet::len).sum::<usize>() > 100,
        "too few imports between files found: {edges:?}"
    );
    let report: Vec<String> = circles(&edges)
        .into_iter()
        .map(|circle| circle.join(" -> "))
        .collect();
    assert!(
        report.is_empty(),
        "import circles between files; move what both sides need where it belongs (often a \
         module of its own that both use):\n{}",
        report.join("\n")
    );
}

#[test]
fn a_circle_is_found_through_groups_and_super_and_a_parent_is_no_circle() {
    let files = [
        ("src/a/mod.rs", "use x::Y;\npub(crate) mod x;\n"),
        ("src/a/x.rs", "use super::{y::{self, Z}, W};\n"),
        ("src/a/y.rs", "fn f() { crate::b::g() }\n"),
        ("src/b.rs", "use crate::{c, a::x::V};\n"),
        ("src/c.rs", "use super::super::d;\n"),
    ];
    let files: Vec<(String, Vec<String>, String)> = files
        .iter()
        .map(|(file, code)| {
            let relative = Path::new(file).strip_prefix("src").unwrap();
            (file.to_string(), module_of(relative), code_only(code))
        })
        .collect();
    let edges = imports(&files);
    assert_eq!(
        edges["src/a/x.rs"].iter().collect::<Vec<_>>(),
        ["src/a/y.rs"],
        "x uses y, and its parent a/mod.rs does not count"
    );
    assert_eq!(
        circles(&edges),
        [["src/a/x.rs", "src/a/y.rs", "src/b.rs", "src/a/x.rs"]]
    );
}
