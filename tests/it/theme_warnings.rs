//! Files in a templates folder that no build reads are named in warnings, not silently
//! ignored; the build still succeeds. The built binary, a theme folder in a temporary
//! directory, the demo data.

use crate::support::{run_ok, vatcar_at_demo_time};
use std::fs;
use std::path::Path;

/// Writes each file (creating its folders) below `dir`.
fn write_files(dir: &Path, files: &[(&str, &str)]) {
    for (name, text) in files {
        let path = dir.join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
}

/// `build --demo --templates THEME`, with a site URL so that no other warning is printed; its
/// warning lines.
fn warnings(theme: &Path, out: &Path) -> Vec<String> {
    let ran = run_ok(
        vatcar_at_demo_time(&["build", "--demo", "--site-url", "https://x.example/"])
            .arg("--templates")
            .arg(theme)
            .arg("--output")
            .arg(out),
    );
    ran.stderr
        .lines()
        .filter(|line| line.starts_with("warning:"))
        .map(str::to_owned)
        .collect()
}

#[test]
fn each_file_the_build_does_not_read_is_named_in_a_warning() {
    let tmp = tempfile::tempdir().unwrap();
    let theme = tmp.path().join("theme");
    write_files(
        &theme,
        &[
            ("visiting.html", "<p>Visiting</p>"),
            ("logo.png", "not really a PNG"),
            ("static/extra.css", "body { color: red }"),
            // Read: one built-in template and one built-in static file.
            ("404.html", "{% extends \"base.html\" %}"),
            ("static/style.css", "body { color: blue }"),
        ],
    );
    let out = tmp.path().join("site");
    let warnings = warnings(&theme, &out);
    let theme = theme.display();
    assert_eq!(
        warnings,
        [
            format!(
                "warning: {theme}/logo.png is not a template vatcar-site uses (`vatcar-site templates export DIR` writes out the ones it does); it is ignored"
            ),
            format!(
                "warning: {theme}/static/extra.css is not a static file vatcar-site copies (only style.css, local-time.js, menu.js, live.js, sort.js, icon.svg are); it is ignored"
            ),
            format!(
                "warning: {theme}/visiting.html is not a template vatcar-site uses (`vatcar-site templates export DIR` writes out the ones it does); it is ignored"
            ),
        ]
    );
    // Ignored indeed; the files that are read are used.
    assert!(!out.join("static/extra.css").exists());
    assert!(!out.join("visiting.html").exists() && !out.join("logo.png").exists());
    assert_eq!(
        fs::read_to_string(out.join("static/style.css")).unwrap(),
        "body { color: blue }"
    );
}

#[test]
fn a_theme_of_built_in_names_and_hidden_files_gives_no_warning() {
    let tmp = tempfile::tempdir().unwrap();
    let theme = tmp.path().join("theme");
    run_ok(vatcar_at_demo_time(&["templates", "export", "--quiet"]).arg(&theme));
    // What the tools around a theme leave: version control, the Finder, an editor.
    write_files(
        &theme,
        &[
            (".git/config", "[core]"),
            (".gitignore", "*.bak"),
            (".DS_Store", ""),
            ("static/.DS_Store", ""),
            (".index.html.swp", ""),
        ],
    );
    assert_eq!(
        warnings(&theme, &tmp.path().join("site")),
        [] as [String; 0]
    );

    // A theme of a single file (docs/themes.md's example) gives none either.
    let single = tmp.path().join("single");
    write_files(&single, &[("static/style.css", "body { color: blue }")]);
    assert_eq!(
        warnings(&single, &tmp.path().join("site")),
        [] as [String; 0]
    );
}

#[test]
fn a_folder_with_nothing_read_is_named_once_and_a_name_wrong_in_case_is_pointed_out() {
    let tmp = tempfile::tempdir().unwrap();
    let theme = tmp.path().join("theme");
    write_files(
        &theme,
        &[
            ("images/a.png", ""),
            ("images/b.png", ""),
            ("images/more/c.png", ""),
            ("static/fonts/a.woff2", ""),
            ("static/fonts/b.woff2", ""),
            ("Roster.html", "<p>Roster</p>"),
        ],
    );
    let warnings = warnings(&theme, &tmp.path().join("site"));
    let theme = theme.display();
    assert_eq!(
        warnings,
        [
            format!(
                "warning: {theme}/Roster.html differs from roster.html in case only: rename it, since it is ignored wherever file names are case-sensitive (on Linux, as in most CI)"
            ),
            format!(
                "warning: {theme}/images/ is a folder vatcar-site does not read (templates are read from the top of the templates folder, static files from static/); it is ignored"
            ),
            format!(
                "warning: {theme}/static/fonts/ is a folder vatcar-site does not copy (it copies only the static files style.css, local-time.js, menu.js, live.js, sort.js, icon.svg); it is ignored"
            ),
        ]
    );
}
