//! The webmaster's own static files (issue 14, item 4): copied byte for byte from `static/`
//! beside `vatcar-site.toml`, part of "an unchanged rebuild rewrites nothing", and never over
//! a page vatcar-site makes.

use crate::support::{build_site as build, run_ok, site_folder, vatcar_at_demo_time};
use std::fs;

#[test]
fn static_files_are_copied_byte_for_byte_and_an_unchanged_rebuild_writes_nothing() {
    let logo: Vec<u8> = (0..=255u8).cycle().take(4096).collect();
    let site = site_folder(
        "",
        &[
            ("static/logo.png", &logo),
            ("static/CNAME", b"tjzs.example.org"),
            ("static/_redirects", b"/discord https://discord.gg/x 302\n"),
            (
                "static/.well-known/security.txt",
                b"Contact: mailto:wm@example.org\n",
            ),
            ("static/docs/sop.pdf", b"%PDF-1.4\r\n\x00\xff binary"),
            ("static/.git/config", b"[core]"),
        ],
    );
    #[cfg(unix)]
    std::os::unix::fs::symlink("/etc/hostname", site.path().join("static/linked.txt")).unwrap();
    let (ran, out) = build(site.path(), &[]);
    assert!(ran.status.success(), "{}", ran.text());
    assert_eq!(fs::read(out.join("logo.png")).unwrap(), logo);
    assert_eq!(fs::read(out.join("CNAME")).unwrap(), b"tjzs.example.org");
    assert_eq!(
        fs::read(out.join("docs/sop.pdf")).unwrap(),
        b"%PDF-1.4\r\n\x00\xff binary"
    );
    assert!(out.join(".well-known/security.txt").is_file());
    assert!(out.join("_redirects").is_file());
    assert!(!out.join(".git").exists(), ".git is not published");
    #[cfg(unix)]
    {
        assert!(!out.join("linked.txt").exists(), "a link is not followed");
        assert!(
            ran.stderr.contains("linked.txt is a link"),
            "{}",
            ran.stderr
        );
    }
    // The site's own pages are all there too.
    assert!(out.join("index.html").is_file() && out.join("static/style.css").is_file());

    let (again, _) = build(site.path(), &[]);
    assert!(again.stderr.contains("(0 written"), "{}", again.stderr);

    // A changed logo is the one file written.
    fs::write(site.path().join("static/logo.png"), b"new logo").unwrap();
    let (changed, _) = build(site.path(), &[]);
    assert!(changed.stderr.contains("(1 written"), "{}", changed.stderr);
    assert_eq!(fs::read(out.join("logo.png")).unwrap(), b"new logo");

    // A file removed from static/ goes from the site, as it was the site's.
    fs::remove_file(site.path().join("static/CNAME")).unwrap();
    build(site.path(), &[]);
    assert!(!out.join("CNAME").exists());
}

#[test]
fn a_static_file_may_not_replace_a_page_vatcar_site_makes() {
    for (mine, theirs) in [
        ("static/roster/index.html", "roster/index.html"),
        ("static/static/style.css", "static/style.css"),
    ] {
        let site = site_folder("", &[(mine, b"<p>mine</p>")]);
        let (first, out) = build(site.path(), &[]);
        assert_eq!(first.code(), Some(1), "{}", first.text());
        assert!(
            first.stderr.contains(&format!(
                "would overwrite the page vatcar-site makes at {theirs}"
            )),
            "{}",
            first.stderr
        );
        assert!(first.stderr.contains(mine), "{}", first.stderr);
        assert!(!out.exists(), "nothing is published");
    }
    let site = site_folder("", &[("static/.vatcar-site.json", b"{}")]);
    let (ran, _) = build(site.path(), &[]);
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    assert!(
        ran.stderr.contains("vatcar-site's own list"),
        "{}",
        ran.stderr
    );
}

#[test]
fn the_static_folder_is_the_config_files_and_only_with_a_config_file() {
    // `static = "assets"`, relative to the config file, wherever the command runs.
    let site = site_folder(
        "static = \"assets\"\n",
        &[("assets/logo.svg", b"<svg/>"), ("static/CNAME", b"x")],
    );
    let (ran, out) = build(site.path(), &[]);
    assert!(ran.status.success(), "{}", ran.text());
    assert!(out.join("logo.svg").is_file());
    assert!(
        !out.join("CNAME").exists(),
        "static/ is not read when `static` names another folder"
    );

    let site = site_folder("static = \"missing\"\n", &[]);
    let (ran, _) = build(site.path(), &[]);
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    assert!(
        ran.stderr.contains("missing does not exist"),
        "{}",
        ran.stderr
    );

    // No config file: a `static/` in the working folder is not the webmaster's site folder.
    let cwd = tempfile::tempdir().unwrap();
    fs::create_dir(cwd.path().join("static")).unwrap();
    fs::write(cwd.path().join("static/CNAME"), "x").unwrap();
    run_ok(vatcar_at_demo_time(&["build", "--demo", "--output", "out"]).current_dir(cwd.path()));
    assert!(!cwd.path().join("out/CNAME").exists());
}
