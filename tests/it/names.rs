//! A name means one thing: no two files of `src/` define a type (struct, enum, union, trait
//! or type alias) of the same name, so that a name read anywhere says which idea it is,
//! without an `as` on its import. The source is read as text, comments, strings and test
//! modules left out; a type defined inside a function body, or an `impl`'s associated type,
//! is local and not counted.

use std::collections::BTreeMap;
use std::path::Path;

use super::layers::{code_only, rust_files};

/// Names defined in more than one file because they are one idea: the same record, written
/// by one stage and read back by another as untrusted input, in the shape each needs.
const ONE_IDEA: &[(&str, &str)] = &[
    (
        "Change",
        "one entry of data/changes.json: view::whats_new writes it, announce reads it back",
    ),
    (
        "ChangesFile",
        "data/changes.json: view::public_data writes it, model::previous and announce read it",
    ),
    (
        "RosterFile",
        "data/roster.json: view::public_data writes it, model::previous reads it",
    ),
];

/// The types `text` defines at its top level, with their lines, before its test module.
fn defined_types(text: &str) -> Vec<(usize, String)> {
    let code = code_only(text);
    let mut found = Vec::new();
    for (number, line) in code.lines().enumerate() {
        if line.starts_with("#[cfg(test)]") || line.starts_with("mod tests") {
            // A file's unit tests are its last item: nothing after them is the library.
            let rest: String = code.lines().skip(number).take(2).collect();
            if rest.contains("mod tests") {
                break;
            }
        }
        if let Some(name) = type_name(line) {
            found.push((number + 1, name.to_string()));
        }
    }
    found
}

/// The name a top-level line defines, if it defines a type: `pub(crate) struct Name<'a> {`.
fn type_name(line: &str) -> Option<&str> {
    let mut rest = line;
    if let Some(after) = rest.strip_prefix("pub") {
        rest = after;
        if rest.starts_with('(') {
            rest = &rest[rest.find(')')? + 1..];
        }
        rest = rest.strip_prefix(' ')?;
    }
    for keyword in ["struct ", "enum ", "union ", "trait ", "type "] {
        if let Some(after) = rest.strip_prefix(keyword) {
            let end = after
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            return Some(&after[..end]).filter(|name| !name.is_empty());
        }
    }
    None
}

#[test]
fn no_two_files_define_one_type_name() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut defined: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let file = format!("src/{}", path.strip_prefix(&src).unwrap().display()).replace('\\', "/");
        for (line, name) in defined_types(&text) {
            let places = defined.entry(name).or_default();
            if !places.iter().any(|p| p.starts_with(&format!("{file}:"))) {
                places.push(format!("{file}:{line}"));
            }
        }
    }
    assert!(
        defined.len() > 200,
        "only {} type names found",
        defined.len()
    );
    let excused = |name: &str| ONE_IDEA.iter().any(|(n, _)| *n == name);
    let mut report = String::new();
    for (name, places) in &defined {
        if places.len() > 1 && !excused(name) {
            report.push_str(&format!("`{name}`: {}\n", places.join(", ")));
        }
    }
    assert!(
        report.is_empty(),
        "type names defined by more than one file; rename each after what it is (or, if both \
         are truly one idea, add the name to ONE_IDEA in tests/it/names.rs, saying why):\n{report}"
    );
    // Each of ONE_IDEA's names must still be defined twice, or its entry is stale.
    for (name, _) in ONE_IDEA {
        let count = defined.get(*name).map_or(0, Vec::len);
        assert!(
            count > 1,
            "`{name}` is defined by {count} file(s) now: take it out of tests/it/names.rs's lists"
        );
    }
}

#[test]
fn a_type_name_is_found_after_any_visibility_and_not_in_tests_or_functions() {
    let text = "pub struct A;\npub(crate) enum B { X }\npub(super) type C<'a> = &'a str;\n\
                trait D {}\nfn f() {\n    struct Local;\n}\nimpl D for A {\n    type E = u8;\n}\n\
                // struct Commented;\nconst S: &str = \"struct InString\";\n\
                #[cfg(test)]\nmod tests {\nstruct InTests;\n}\n";
    let names: Vec<String> = defined_types(text).into_iter().map(|(_, n)| n).collect();
    assert_eq!(names, ["A", "B", "C", "D"]);
}
