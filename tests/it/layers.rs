//! The stage order, held: every `crate::` path in `src/` (a `use` line, or a path written
//! inline) goes to its own module, an earlier stage, or a leaf. The source is read as text,
//! comments and strings left out, so a rustdoc link to a later stage is no import.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The pipeline's stages by rank: a stage may use the stages of its rank and below, never a
/// later one (the data flows one way, and a later stage is free to change what it gives).
const STAGES: &[(&str, u32)] = &[
    ("fetch", 1),
    ("model", 2),
    ("view", 3),
    ("render", 4),
    ("publish", 5),
    ("cmd", 6),
];

/// Small modules any stage may use. A leaf uses no stage (another leaf, yes), so using one
/// never ties a stage to another.
const LEAVES: &[&str] = &[
    // Functions of untrusted text alone (sanitizing, URLs, forbidden characters, quoting
    // in errors): the model cleans with them, views and the renderer make text safe with them.
    "sanitize",
    // The API key: fetch sends it, publish searches every file for it, cmd reads it and
    // scrubs every message with it.
    "secret",
    // The file that render (and cmd, for snapshots) makes and publish writes.
    "output",
    // Running work on every core: no data type of any stage.
    "parallel",
    // The webmaster's settings, one typed model read from vatcar-site.toml: cmd lays the
    // flags over it, fetch takes the API's, the view its areas.
    "settings",
    // The words of the pages in each language, loaded once by cmd and handed to the view
    // and the theme alike.
    "i18n",
    // A mistake in how the program was called (exit code 2), found in any layer.
    "usage",
    // The webmaster's files read without following links: fetch reads static/ and content/
    // with it, i18n a theme's catalogues.
    "plain_files",
    // toml's error text read in one place (a place and a message), for the catalogues, front
    // matter and the config file alike; it knows only toml.
    "toml_errors",
    // The mistakes a build finds in the webmaster's files, from every stage, reported
    // together; cmd prints them (and annotates them in GitHub Actions).
    "problems",
    // "Did you mean": the nearest known name, for the config's keys and the content's.
    "suggest",
    // An image decoded within limits and copied at a few widths: fetch makes the banners'
    // copies with it; it knows only bytes.
    "images",
    // The banners' copies as the pages name them: fetch makes them, the view shows them.
    "banner_copies",
];

/// Stages that may not use an earlier one they would otherwise be free to: the view and the
/// renderer take what was loaded through the model or a leaf, never from the loading itself,
/// so that the stages run as CONTRIBUTING describes them.
const NEVER: &[(&str, &str)] = &[("view", "fetch"), ("render", "fetch")];

/// One import against the order: where it is, and the rule it breaks.
fn check_file(module: &str, file: &str, text: &str) -> Vec<String> {
    let mut broken = Vec::new();
    let own_rank = rank(module);
    let own_leaf = LEAVES.contains(&module);
    if own_rank.is_none() && !own_leaf {
        broken.push(format!(
            "{file}: module `{module}` is in neither STAGES nor LEAVES of tests/it/layers.rs; \
             give it a rank or say why it is a leaf"
        ));
        return broken;
    }
    for (line, target) in crate_paths(text) {
        let target = target.as_str();
        if target == module || target == "self" {
            continue;
        }
        let rule = match (rank(target), LEAVES.contains(&target)) {
            (None, false) => format!("`{target}` is in neither STAGES nor LEAVES"),
            (_, true) => continue,
            _ if NEVER.contains(&(module, target)) => format!(
                "`{module}` may not use `{target}` (NEVER in tests/it/layers.rs); take it \
                 through the model or a leaf"
            ),
            (Some(_), false) if own_leaf => {
                format!("`{module}` is a leaf, and a leaf uses no stage (here `{target}`)")
            }
            (Some(to), false) if Some(to) > own_rank => format!(
                "stage `{module}` uses `{target}`, a later stage; move what both need into a \
                 leaf or an earlier stage"
            ),
            (Some(_), false) => continue,
        };
        broken.push(format!("{file}:{line}: {rule}"));
    }
    broken
}

fn rank(module: &str) -> Option<u32> {
    STAGES
        .iter()
        .find(|(name, _)| *name == module)
        .map(|(_, rank)| *rank)
}

/// The top module each `crate::` path names, by line: `crate::a::b` names `a`, and
/// `crate::{a::x, b}` names `a` and `b`.
fn crate_paths(text: &str) -> Vec<(usize, String)> {
    let code = code_only(text);
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("crate::").map(|at| at + from) {
        from = at + "crate::".len();
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        let line = code[..at].matches('\n').count() + 1;
        let rest = &code[from..];
        if let Some(group) = rest.trim_start().strip_prefix('{') {
            let mut depth = 1;
            let mut item_start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 1 => break,
                    '}' => depth -= 1,
                    ',' if depth == 1 => item_start = true,
                    c if item_start && is_ident(c) => {
                        item_start = false;
                        let name = ident(&group[i..]);
                        let line = line + group[..i].matches('\n').count();
                        found.push((line, name.to_owned()));
                    }
                    _ => {}
                }
            }
        } else {
            found.push((line, ident(rest).to_owned()));
        }
    }
    found
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn ident(text: &str) -> &str {
    let end = text.find(|c| !is_ident(c)).unwrap_or(text.len());
    &text[..end]
}

/// `text` with comments and the insides of string and character literals blanked (lines
/// kept), so that only code is searched.
pub(crate) fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                match (chars[i], chars.get(i + 1)) {
                    ('/', Some('*')) => depth += 1,
                    ('*', Some('/')) => depth -= 1,
                    (c, _) => {
                        out.push(blank(c));
                        i += 1;
                        continue;
                    }
                }
                out.push_str("  ");
                i += 2;
                if depth == 0 {
                    break;
                }
            }
        } else if c == '"'
            || (c == 'r' && matches!(next, Some('"' | '#')) && raw_start(&chars[i..]))
        {
            let hashes = if c == 'r' {
                chars[i + 1..].iter().take_while(|&&h| h == '#').count()
            } else {
                0
            };
            let raw = c == 'r';
            let open = if raw { 2 + hashes } else { 1 };
            out.extend(std::iter::repeat_n(' ', open));
            i += open;
            while i < chars.len() {
                if !raw && chars[i] == '\\' {
                    out.push(' ');
                    out.push(blank(*chars.get(i + 1).unwrap_or(&' ')));
                    i += 2;
                    continue;
                }
                let closes =
                    chars.len() > i + hashes && chars[i + 1..=i + hashes].iter().all(|&h| h == '#');
                if chars[i] == '"' && closes {
                    out.extend(std::iter::repeat_n(' ', 1 + hashes));
                    i += 1 + hashes;
                    break;
                }
                out.push(blank(chars[i]));
                i += 1;
            }
        } else if c == '\'' && (chars.get(i + 2) == Some(&'\'') || next == Some('\\')) {
            // A character literal ('"', '\''), not a lifetime.
            out.push(' ');
            i += 1;
            while i < chars.len() {
                let c = chars[i];
                out.push(' ');
                i += 1;
                if c == '\\' {
                    out.push(' ');
                    i += 1;
                } else if c == '\'' {
                    break;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Whether `r` at the start of `chars` opens a raw string (`r"`, `r#"`), not an identifier.
fn raw_start(chars: &[char]) -> bool {
    let hashes = chars[1..].iter().take_while(|&&h| h == '#').count();
    chars.get(1 + hashes) == Some(&'"')
}

pub(crate) fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

#[test]
fn no_stage_uses_a_later_one_and_no_leaf_uses_a_stage() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    assert!(files.len() > 50, "src/ has {} files", files.len());
    let mut report = String::new();
    let mut checked = 0;
    for path in &files {
        let relative = path.strip_prefix(&src).unwrap();
        let top = relative.components().next().unwrap().as_os_str();
        let module = top.to_str().unwrap().trim_end_matches(".rs");
        // The crate root declares the modules; the binary uses the library from outside.
        if module == "lib" || module == "main" {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        let file = format!("src/{}", relative.display());
        checked += crate_paths(&text).len();
        for broken in check_file(module, &file, &text) {
            writeln!(report, "{broken}").unwrap();
        }
    }
    assert!(checked > 100, "only {checked} crate:: paths found");
    assert!(
        report.is_empty(),
        "imports against the stage order:\n{report}"
    );
}

#[test]
fn a_view_that_uses_the_renderer_is_named_with_its_line() {
    let text = "//! crate::render in a comment is no import\n\
                use crate::model::Event;\n\
                use crate::{sanitize::quote, render::Theme};\n\
                fn f() -> String {\n    let s = \"crate::publish\";\n    crate::publish::MARKER.into()\n}\n";
    assert_eq!(
        check_file("view", "src/view/x.rs", text),
        [
            "src/view/x.rs:3: stage `view` uses `render`, a later stage; move what both need into \
             a leaf or an earlier stage",
            "src/view/x.rs:6: stage `view` uses `publish`, a later stage; move what both need into \
             a leaf or an earlier stage",
        ]
    );
}

#[test]
fn a_view_or_a_renderer_that_uses_the_fetching_stage_is_named() {
    for module in ["view", "render"] {
        let file = format!("src/{module}/x.rs");
        assert_eq!(
            check_file(
                module,
                &file,
                "use crate::model::Event;\nuse crate::fetch::banners::Banners;\n"
            ),
            [format!(
                "{file}:2: `{module}` may not use `fetch` (NEVER in tests/it/layers.rs); take it \
                 through the model or a leaf"
            )]
        );
    }
    assert!(check_file("model", "src/model/x.rs", "use crate::fetch::Endpoint;\n").is_empty());
}

#[test]
fn a_leaf_that_uses_a_stage_and_a_module_of_no_rank_are_named() {
    assert_eq!(
        check_file(
            "sanitize",
            "src/sanitize/x.rs",
            "use crate::fetch::error::ApiError;\nuse crate::secret::ApiKey;\n"
        ),
        ["src/sanitize/x.rs:1: `sanitize` is a leaf, and a leaf uses no stage (here `fetch`)"]
    );
    assert_eq!(
        check_file(
            "model",
            "src/model/x.rs",
            "fn f() { crate::extra::g(); let c = '\"'; crate::view::h() }\n"
        ),
        [
            "src/model/x.rs:1: `extra` is in neither STAGES nor LEAVES",
            "src/model/x.rs:1: stage `model` uses `view`, a later stage; move what both need into \
             a leaf or an earlier stage",
        ]
    );
    assert_eq!(check_file("extra", "src/extra.rs", "").len(), 1);
}
