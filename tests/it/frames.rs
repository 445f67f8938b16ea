//! Event pages are rendered in two parts, their shared frame once and each page's content on
//! its own (src/render/frame.rs); a theme that replaces `layout.html` renders every page whole.
//! A webmaster must not be able to tell the two apart: with a copy of the built-in
//! `layout.html` as the theme, every file is the same bytes, on sites whose pages differ in
//! what the frame shows (the menu entry that is current, a description or none, a preview
//! image or none, a title full of markup).

use crate::support::{assert_same_files, tree, vatcar};
use std::fs;
use std::path::Path;

const LAYOUT: &str = include_str!("../../templates/layout.html");

/// `build` with `args`, into `out`, with the theme folder `theme` when given.
fn build(args: &[&str], theme: Option<&Path>, out: &Path) {
    let mut command = vatcar(&["build", "--quiet"]);
    command
        .args(args)
        .arg("--output")
        .arg(out)
        .env("SOURCE_DATE_EPOCH", "1795176000");
    if let Some(theme) = theme {
        command.arg("--templates").arg(theme);
    }
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The site built by `args` is the same with a theme of one copied `layout.html`.
fn same_whole_and_split(args: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let theme = tmp.path().join("theme");
    fs::create_dir_all(&theme).unwrap();
    fs::write(theme.join("layout.html"), LAYOUT).unwrap();
    let (split, whole) = (tmp.path().join("split"), tmp.path().join("whole"));
    build(args, None, &split);
    build(args, Some(&theme), &whole);
    let (split, whole) = (tree(&split), tree(&whole));
    let events = split
        .keys()
        .filter(|path| path.ends_with("/index.html") && path.matches('/').count() == 2)
        .count();
    assert!(events >= 5, "only {events} event pages were built");
    assert_same_files(&split, &whole);
}

#[test]
fn event_pages_are_the_same_bytes_whether_their_frame_is_shared_or_rendered_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("vatcar-site.toml");
    // A menu with an entry that is the page of one event (aria-current="page" there only),
    // one that every event page is below, and an external one; a tagline (the pages'
    // description when an event has none) with markup; a bitmap logo, offered for previews.
    fs::write(
        &config,
        r#"tagline = "Ünicode & <markup> \"quoted\" 'tagline'"
logo = "logo.png"
[[menu]]
name = "All events"
page = "events"
[[menu]]
name = "One event"
page = "events/384"
[[menu]]
name = "Elsewhere"
url = "https://example.org/"
"#,
    )
    .unwrap();
    fs::create_dir_all(tmp.path().join("static")).unwrap();
    fs::write(tmp.path().join("static/logo.png"), b"\x89PNG\r\n\x1a\n").unwrap();
    let config = config.to_str().unwrap();
    same_whole_and_split(&[
        "--demo",
        "--config",
        config,
        "--site-url",
        "https://demo.example.org/",
    ]);
    // No address: no canonical link, no preview image.
    same_whole_and_split(&["--demo", "--config", config]);
}

#[test]
fn hostile_event_pages_are_the_same_bytes_whether_their_frame_is_shared_or_rendered_whole() {
    let snapshot = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/hostile");
    same_whole_and_split(&[
        "--snapshot",
        snapshot,
        "--site-url",
        "https://hostile.example/",
    ]);
}

#[test]
fn a_long_spanish_menu_gives_the_same_bytes_whether_the_frame_is_shared_or_rendered_whole() {
    let config = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/facility-es/vatcar-site.toml"
    );
    same_whole_and_split(&[
        "--demo",
        "--config",
        config,
        "--site-url",
        "https://facility-es.example/",
    ]);
}
