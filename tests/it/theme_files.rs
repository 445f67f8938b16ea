//! A theme folder is read on the same terms as the site folder's `static/`: a link is named
//! in a warning and left out, so a theme cannot publish (or quote in an error) a file from
//! elsewhere on the machine; and an error quotes at most one line of a template or catalogue,
//! cut to 200 characters.

#[cfg(unix)]
use crate::support::tree;
use crate::support::{Ran, run, vatcar_at_demo_time};
use std::fs;
use std::path::Path;

/// What stands for a secret in a file outside the theme.
#[cfg(unix)]
const SECRET: &str = "FAKE_SECRET_d41d8cd98f00b204";

/// `build --demo --templates THEME --output OUT`.
fn build(theme: &Path, out: &Path) -> Ran {
    run(
        vatcar_at_demo_time(&["build", "--demo", "--site-url", "https://x.example/"])
            .arg("--templates")
            .arg(theme)
            .arg("--output")
            .arg(out),
    )
}

#[cfg(unix)]
fn assert_secret_absent(ran: &Ran, out: &Path) {
    assert!(!ran.text().contains(SECRET), "printed:\n{}", ran.text());
    if out.exists() {
        for (path, bytes) in tree(out) {
            assert!(
                !String::from_utf8_lossy(&bytes).contains(SECRET),
                "{path} holds the secret"
            );
        }
    }
}

#[cfg(unix)]
#[test]
fn links_in_a_theme_are_named_and_left_out() {
    use std::os::unix::fs::symlink;
    let tmp = tempfile::tempdir().unwrap();
    let secret = tmp.path().join("secret.env");
    // As /proc/self/environ reads: not TOML, not CSS, a secret in it.
    fs::write(&secret, format!("HOME=/root\0TOKEN={SECRET}\0")).unwrap();
    let elsewhere = tmp.path().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    fs::write(elsewhere.join("icon.svg"), SECRET).unwrap();
    fs::write(elsewhere.join("fr.toml"), format!("x = \"{SECRET}\"\n")).unwrap();

    let theme = tmp.path().join("theme");
    fs::create_dir_all(theme.join("static")).unwrap();
    fs::create_dir_all(theme.join("i18n")).unwrap();
    symlink(&secret, theme.join("static/style.css")).unwrap();
    symlink(&secret, theme.join("i18n/en.toml")).unwrap();
    symlink(elsewhere.join("fr.toml"), theme.join("i18n/fr.toml")).unwrap();
    symlink(&secret, theme.join("404.html")).unwrap();
    let out = tmp.path().join("site");
    let ran = build(&theme, &out);
    assert!(ran.status.success(), "{}", ran.text());
    assert_secret_absent(&ran, &out);
    let theme_shown = theme.display();
    for link in [
        "static/style.css",
        "i18n/en.toml",
        "i18n/fr.toml",
        "404.html",
    ] {
        let warning = format!(
            "warning: {theme_shown}/{link} is a link or a special file; only plain files in the templates folder are read, so it is left out"
        );
        assert_eq!(
            ran.stderr.matches(&warning).count(),
            1,
            "{link}:\n{}",
            ran.stderr
        );
    }
    // The built-in files stand in for the ones left out.
    let builtin = tmp.path().join("builtin");
    let plain = run(
        vatcar_at_demo_time(&["build", "--demo", "--site-url", "https://x.example/"])
            .arg("--output")
            .arg(&builtin),
    );
    assert!(plain.status.success(), "{}", plain.text());
    for file in ["static/style.css", "404.html", "index.html"] {
        assert_eq!(
            fs::read(out.join(file)).unwrap(),
            fs::read(builtin.join(file)).unwrap(),
            "{file}"
        );
    }

    // A linked folder is one link: named once, nothing in it read.
    let theme = tmp.path().join("theme2");
    fs::create_dir(&theme).unwrap();
    symlink(&elsewhere, theme.join("static")).unwrap();
    symlink(&elsewhere, theme.join("i18n")).unwrap();
    let out = tmp.path().join("site2");
    let ran = build(&theme, &out);
    assert!(ran.status.success(), "{}", ran.text());
    assert_secret_absent(&ran, &out);
    for link in ["static", "i18n"] {
        assert_eq!(
            ran.stderr
                .matches(&format!("{}/{link} is a link", theme.display()))
                .count(),
            1,
            "{}",
            ran.stderr
        );
    }

    // A language whose only catalogue is a link is not available.
    let theme = tmp.path().join("theme3");
    fs::create_dir_all(theme.join("i18n")).unwrap();
    symlink(&secret, theme.join("i18n/pt.toml")).unwrap();
    fs::write(tmp.path().join("vatcar-site.toml"), "language = \"pt\"\n").unwrap();
    let ran = run(vatcar_at_demo_time(&["build", "--demo", "--config"])
        .arg(tmp.path().join("vatcar-site.toml"))
        .arg("--templates")
        .arg(&theme)
        .arg("--output")
        .arg(tmp.path().join("site3")));
    assert_eq!(ran.code(), Some(2), "{}", ran.text());
    assert!(
        ran.stderr.contains("available: en, es, fr, nl"),
        "{}",
        ran.stderr
    );
    assert!(!ran.text().contains(SECRET), "{}", ran.text());
}

#[test]
fn a_syntax_error_on_a_long_line_quotes_at_most_200_characters_of_it() {
    let tmp = tempfile::tempdir().unwrap();
    let theme = tmp.path().join("theme");
    fs::create_dir(&theme).unwrap();
    // Tildes: no temporary folder's name has one, so every one printed is quoted.
    let long = "~".repeat(5000);
    fs::write(
        theme.join("404.html"),
        format!("{{% extends \"base.html\" %}}\n{{% block content %}}\n<p>{long} {{{{ oops oops }}}} {long}</p>\n{{% endblock content %}}\n"),
    )
    .unwrap();
    let out = tmp.path().join("site");
    let ran = build(&theme, &out);
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    assert!(
        ran.stderr
            .contains(&format!("{}/404.html:3:", theme.display())),
        "{}",
        ran.stderr
    );
    assert!(ran.stderr.contains("oops"), "{}", ran.stderr);
    assert!(
        ran.stderr.matches('~').count() <= 200,
        "{} characters of the line quoted",
        ran.stderr.matches('~').count()
    );
    assert!(
        ran.stderr.lines().all(|l| l.chars().count() <= 300),
        "{}",
        ran.stderr
    );
    assert!(!out.exists());

    // A catalogue's syntax error, on a long line, likewise.
    let theme = tmp.path().join("theme2");
    fs::create_dir_all(theme.join("i18n")).unwrap();
    fs::write(
        theme.join("i18n/en.toml"),
        format!("[nav]\nhome = \"Home\"\n{long} = = \"{long}\"\nnext = 1\n"),
    )
    .unwrap();
    let ran = build(&theme, &out);
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    assert!(
        ran.stderr
            .contains(&format!("{}/i18n/en.toml:3:", theme.display())),
        "{}",
        ran.stderr
    );
    assert!(ran.stderr.matches('~').count() <= 200, "{}", ran.stderr);
    assert!(!ran.stderr.contains("next = 1"), "{}", ran.stderr);

    // A text key a template names, as long as the line.
    let theme = tmp.path().join("theme3");
    fs::create_dir(&theme).unwrap();
    fs::write(
        theme.join("404.html"),
        format!("{{% extends \"base.html\" %}}\n{{% block content %}}{{{{ t(key=\"{long}\") }}}}{{% endblock content %}}\n"),
    )
    .unwrap();
    let ran = build(&theme, &out);
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    assert!(
        ran.stderr.contains("no catalogue has the text key"),
        "{}",
        ran.stderr
    );
    assert!(ran.stderr.matches('~').count() <= 200, "{}", ran.stderr);
}

/// Tera 1 panics on some templates (math on a macro's result, a `for` over a text of
/// combining characters): the build fails with an error naming the theme's file, as for any
/// template error, not a crash, and writes nothing.
#[test]
fn a_template_that_crashes_tera_fails_the_build_naming_its_file() {
    let tmp = tempfile::tempdir().unwrap();
    let crashing = [
        "{% macro one() %}1{% endmacro one %}{{ self::one() + 1 }}",
        "{% set s = \"e\u{301}a\u{308}\" %}{% for c in s %}{{ c }}{% endfor %}",
    ];
    for (n, text) in crashing.iter().enumerate() {
        let theme = tmp.path().join(format!("theme{n}"));
        fs::create_dir(&theme).unwrap();
        fs::write(theme.join("404.html"), text).unwrap();
        let out = tmp.path().join(format!("site{n}"));
        let ran = build(&theme, &out);
        assert_eq!(ran.code(), Some(1), "{}", ran.text());
        assert!(ran.stderr.contains("404.html"), "{}", ran.stderr);
        assert!(ran.stderr.contains("crashed"), "{}", ran.stderr);
        assert!(!ran.stderr.contains("panicked"), "{}", ran.stderr);
        assert!(!out.exists());
    }
}
