//! Functions fit on a screen: none in `src/` is over [`MAX_LINES`] lines, from its `fn` line to
//! its closing brace, before the file's tests. A longer one is split by idea (a stage, a rule,
//! a part of what it makes), not to pass the count.

use std::path::Path;

use super::layers::{code_only, rust_files};

const MAX_LINES: usize = 100;

/// The name `line` starts a function of, if it does: `pub(crate) async fn name<T>(`.
fn fn_name(line: &str) -> Option<&str> {
    let mut rest = line.trim_start();
    if let Some(after) = rest.strip_prefix("pub") {
        rest = after;
        if rest.starts_with('(') {
            rest = &rest[rest.find(')')? + 1..];
        }
        rest = rest.trim_start();
    }
    for qualifier in ["const ", "async ", "unsafe "] {
        rest = rest.strip_prefix(qualifier).unwrap_or(rest);
    }
    let after = rest.strip_prefix("fn ")?;
    let end = after
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(after.len());
    Some(&after[..end]).filter(|name| !name.is_empty())
}

/// Each function of `code` (before its test module) with its first line and its length.
fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let mut found = Vec::new();
    // Open functions: name, first line, the depth their body opens at, whether it has opened.
    let mut open: Vec<(String, usize, usize, bool)> = Vec::new();
    let mut depth = 0;
    let lines: Vec<&str> = code.lines().collect();
    for (number, line) in lines.iter().enumerate() {
        if line.starts_with("#[cfg(test)]")
            && lines
                .get(number + 1)
                .is_some_and(|l| l.starts_with("mod tests"))
        {
            break;
        }
        if let Some(name) = fn_name(line) {
            open.push((name.to_owned(), number, depth, false));
        }
        for c in line.chars() {
            match c {
                '{' => {
                    if let Some(last) = open.last_mut()
                        && !last.3
                        && depth == last.2
                    {
                        last.3 = true;
                    }
                    depth += 1;
                }
                '}' => {
                    depth -= 1;
                    if open.last().is_some_and(|last| last.3 && depth == last.2) {
                        let (name, first, _, _) = open.pop().unwrap();
                        found.push((name, first + 1, number - first + 1));
                    }
                }
                // A declaration without a body, in a trait.
                ';' if open.last().is_some_and(|last| !last.3 && depth == last.2) => {
                    open.pop();
                }
                _ => {}
            }
        }
    }
    found
}

#[test]
fn no_function_is_over_a_screen() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    rust_files(&src, &mut paths);
    paths.sort();
    let mut report = String::new();
    let mut counted = 0;
    for path in &paths {
        let file = format!("src/{}", path.strip_prefix(&src).unwrap().display()).replace('\\', "/");
        let code = code_only(&std::fs::read_to_string(path).unwrap());
        for (name, line, length) in functions(&code) {
            counted += 1;
            if length > MAX_LINES {
                report.push_str(&format!("{file}:{line}: `{name}` has {length} lines\n"));
            }
        }
    }
    assert!(counted > 500, "only {counted} functions found");
    assert!(
        report.is_empty(),
        "functions over {MAX_LINES} lines; split each by idea:\n{report}"
    );
}

#[test]
fn a_function_is_counted_from_its_fn_line_to_its_closing_brace() {
    let code = code_only(
        "pub(crate) fn one(\n    a: u8,\n) -> u8 {\n    let s = \"}\";\n    a\n}\n\
         trait T {\n    fn declared(&self);\n    fn given(&self) {\n        inner();\n    }\n}\n\
         #[cfg(test)]\nmod tests {\n    fn hidden() {}\n}\n",
    );
    assert_eq!(
        functions(&code),
        [("one".to_owned(), 1, 6), ("given".to_owned(), 9, 3)]
    );
}
