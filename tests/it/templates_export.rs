//! `vatcar-site templates export DIR`: the whole built-in theme, or with `--only FILE` the
//! files named, and a reminder that a copy no longer follows the built-in file.

use crate::support::{Ran, run, run_ok, tree, vatcar, vatcar_at_demo_time};
use std::fs;
use std::path::Path;

fn export(dir: &Path, extra: &[&str]) -> Ran {
    run(vatcar(&["templates", "export"]).arg(dir).args(extra))
}

fn built_in(path: &str) -> Vec<u8> {
    fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

#[test]
fn only_writes_the_one_file_named_and_a_build_uses_it() {
    let tmp = tempfile::tempdir().unwrap();
    let theme = tmp.path().join("theme");
    let ran = export(&theme, &["--only", "roster.html"]);
    assert!(ran.status.success(), "{}", ran.text());
    let written = tree(&theme);
    assert_eq!(written.keys().collect::<Vec<_>>(), ["roster.html"]);
    assert_eq!(written["roster.html"], built_in("templates/roster.html"));
    assert!(ran.stderr.contains("wrote 1 file into"), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("no longer gets the fixes"),
        "{}",
        ran.stderr
    );

    // The copy, edited, is used; every other template stays built in, with no warning.
    let roster = fs::read_to_string(theme.join("roster.html")).unwrap();
    let edited = roster.replacen(
        "{% endblock content %}",
        "<p>Nuestro equipo.</p>{% endblock content %}",
        1,
    );
    assert!(
        edited != roster,
        "roster.html has no content block to add to"
    );
    fs::write(theme.join("roster.html"), edited).unwrap();
    let out = tmp.path().join("out");
    let ran = run_ok(
        vatcar_at_demo_time(&["build", "--demo", "--site-url", "https://x.example/"])
            .arg("--templates")
            .arg(&theme)
            .arg("--output")
            .arg(&out),
    );
    assert!(!ran.text().contains("warning"), "{}", ran.text());
    let page = fs::read_to_string(out.join("roster/index.html")).unwrap();
    assert!(page.contains("<p>Nuestro equipo.</p>"));
    assert!(
        fs::read_to_string(out.join("index.html"))
            .unwrap()
            .contains("class=\"site-header\"")
    );
}

#[test]
fn only_takes_static_files_and_catalogues_by_their_folder_and_repeats() {
    let tmp = tempfile::tempdir().unwrap();
    let ran = export(
        tmp.path(),
        &[
            "--only",
            "static/style.css",
            "--only",
            "i18n/es.toml",
            "--only",
            "static/style.css",
        ],
    );
    assert!(ran.status.success(), "{}", ran.text());
    let written = tree(tmp.path());
    assert_eq!(
        written.keys().collect::<Vec<_>>(),
        ["i18n/es.toml", "static/style.css"]
    );
    assert_eq!(written["static/style.css"], built_in("static/style.css"));
    assert_eq!(written["i18n/es.toml"], built_in("templates/i18n/es.toml"));
    assert!(ran.stderr.contains("wrote 2 files into"), "{}", ran.stderr);
}

#[test]
fn a_name_that_is_not_a_built_in_file_is_refused_with_the_nearest() {
    let tmp = tempfile::tempdir().unwrap();
    let theme = tmp.path().join("theme");
    for (asked, suggested) in [
        ("rostr.html", Some("roster.html")),
        ("style.css", Some("static/style.css")),
        ("static/Style.css", Some("static/style.css")),
        ("es.toml", Some("i18n/es.toml")),
        ("visiting.html", None),
    ] {
        let ran = export(&theme, &["--only", "roster.html", "--only", asked]);
        assert_eq!(ran.code(), Some(2), "{asked}: {}", ran.text());
        assert!(
            ran.stderr.starts_with(&format!(
                "error: --only {asked:?}: there is no built-in file of that name"
            )),
            "{}",
            ran.stderr
        );
        match suggested {
            Some(near) => assert!(
                ran.stderr.contains(&format!("did you mean `{near}`?")),
                "{}",
                ran.stderr
            ),
            None => assert!(!ran.stderr.contains("did you mean"), "{}", ran.stderr),
        }
        // The names it takes are listed, and nothing was written, not even the good name.
        assert!(
            ran.stderr
                .contains("static/local-time.js, static/menu.js, static/live.js, static/sort.js, static/icon.svg"),
            "{}",
            ran.stderr
        );
        assert!(!theme.exists(), "{asked}: something was written");
    }
}

#[test]
fn only_keeps_an_edited_copy_unless_forced_and_then_replaces_only_that_file() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("roster.html"), "my roster").unwrap();
    fs::write(tmp.path().join("base.html"), "my base").unwrap();
    let ran = export(tmp.path(), &["--only", "roster.html"]);
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    assert!(ran.stderr.contains("--force"), "{}", ran.stderr);
    assert_eq!(
        fs::read_to_string(tmp.path().join("roster.html")).unwrap(),
        "my roster"
    );

    run_ok(vatcar(&["templates", "export", "--force", "--only", "roster.html"]).arg(tmp.path()));
    let files = tree(tmp.path());
    assert_eq!(
        files.keys().collect::<Vec<_>>(),
        ["base.html", "roster.html"]
    );
    assert_eq!(files["roster.html"], built_in("templates/roster.html"));
    assert_eq!(files["base.html"], b"my base");
}

#[test]
fn a_whole_export_says_that_copies_no_longer_follow_the_built_in_files() {
    let tmp = tempfile::tempdir().unwrap();
    let ran = export(&tmp.path().join("theme"), &[]);
    assert!(ran.status.success(), "{}", ran.text());
    assert!(
        ran.stderr.contains(
            "a copied file no longer gets the fixes and improvements of later vatcar-site versions"
        ),
        "{}",
        ran.stderr
    );
    assert!(ran.stderr.contains("--only FILE"), "{}", ran.stderr);
    assert!(tmp.path().join("theme/static/icon.svg").is_file());
    // --quiet prints nothing at all.
    let ran = export(&tmp.path().join("quiet"), &["--quiet"]);
    assert!(
        ran.status.success() && ran.stderr.is_empty(),
        "{}",
        ran.text()
    );
}

/// Every entry below `dir`, links named as links and never followed: what is really there.
#[cfg(unix)]
fn entries(dir: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let meta = fs::symlink_metadata(&path).unwrap();
            if meta.is_symlink() {
                out.push(format!(
                    "{name} -> {}",
                    fs::read_link(&path).unwrap().display()
                ));
            } else if meta.is_dir() {
                out.push(format!("{name}/"));
                walk(root, &path, out);
            } else {
                out.push(name);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// A link where the export writes a file, even one that leads nowhere, is refused like a file
/// of yours; --force replaces the link itself and leaves what it leads to alone.
#[cfg(unix)]
#[test]
fn export_never_writes_through_a_link_in_a_files_place() {
    let tmp = tempfile::tempdir().unwrap();
    let theme = tmp.path().join("theme");
    fs::create_dir(&theme).unwrap();
    let theirs = tmp.path().join("theirs.html");
    fs::write(&theirs, "not the theme's").unwrap();
    let nowhere = tmp.path().join("nowhere.html");
    std::os::unix::fs::symlink(&theirs, theme.join("roster.html")).unwrap();
    std::os::unix::fs::symlink(&nowhere, theme.join("base.html")).unwrap();
    let before = entries(&theme);

    for only in ["roster.html", "base.html"] {
        let ran = export(&theme, &["--only", only]);
        assert_eq!(ran.code(), Some(1), "{}", ran.text());
        let link = theme.join(only).display().to_string();
        assert!(
            ran.stderr.contains(&format!("{link} (a link)")) && ran.stderr.contains("--force"),
            "{}",
            ran.stderr
        );
        assert_eq!(entries(&theme), before, "a refused export wrote something");
    }
    assert!(!nowhere.exists(), "the dangling link was followed");

    let ran = export(
        &theme,
        &["--force", "--only", "roster.html", "--only", "base.html"],
    );
    assert!(ran.status.success(), "{}", ran.text());
    assert_eq!(fs::read_to_string(&theirs).unwrap(), "not the theme's");
    assert!(!nowhere.exists(), "written through the dangling link");
    assert_eq!(entries(&theme), ["base.html", "roster.html"]);
    assert_eq!(
        fs::read(theme.join("roster.html")).unwrap(),
        built_in("templates/roster.html")
    );
}

/// `static` or `i18n` of the folder being a link to another folder: the export stops before
/// writing anything, naming the link and what to do, unless --force says to write through it;
/// a link that leads to no folder is refused even then.
#[cfg(unix)]
#[test]
fn export_never_writes_through_a_linked_folder_without_force() {
    for folder in ["static", "i18n"] {
        let tmp = tempfile::tempdir().unwrap();
        let theme = tmp.path().join("theme");
        fs::create_dir(&theme).unwrap();
        let elsewhere = tmp.path().join("elsewhere");
        fs::create_dir(&elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, theme.join(folder)).unwrap();
        let before = entries(&theme);

        let ran = export(&theme, &[]);
        assert_eq!(ran.code(), Some(1), "{}", ran.text());
        assert!(
            ran.stderr.starts_with(&format!(
                "error: {}/{folder} is a link to another folder; templates export does not write through it: remove the link, or pass --force to write through it",
                theme.display()
            )),
            "{}",
            ran.stderr
        );
        assert!(entries(&elsewhere).is_empty(), "written through the link");
        assert_eq!(entries(&theme), before, "a refused export wrote something");

        let ran = export(&theme, &["--force"]);
        assert!(ran.status.success(), "{}", ran.text());
        assert!(
            ran.stderr.contains(&format!(
                "writing through the link {}/{folder} (--force)",
                theme.display()
            )),
            "{}",
            ran.stderr
        );
        assert!(!entries(&elsewhere).is_empty());

        // A link to nothing is no folder to write into, forced or not.
        fs::remove_file(theme.join(folder)).unwrap();
        let missing = tmp.path().join("missing");
        std::os::unix::fs::symlink(&missing, theme.join(folder)).unwrap();
        let before = entries(&theme);
        for force in [&[][..], &["--force"][..]] {
            let ran = export(&theme, force);
            assert_eq!(ran.code(), Some(1), "{}", ran.text());
            assert!(
                ran.stderr.contains("is a link that leads to no folder"),
                "{}",
                ran.stderr
            );
            assert!(!missing.exists(), "the dangling link was followed");
            assert_eq!(entries(&theme), before, "a refused export wrote something");
        }
    }
}
