//! Event pages are rendered in two parts, their shared frame once and each page's content on
//! its own (src/render/frame.rs), unless the theme has a `layout.html` or `base.html` of its
//! own: then every page is rendered whole. A webmaster must not be able to tell the two apart:
//! with a `layout.html` that reads `page` to no effect, which renders whole, every file is the
//! same bytes as without, on sites whose pages differ in what the frame shows (the menu entry
//! that is current, a description or none, a preview image or none, a title full of markup).

use crate::support::{assert_same_files, tree, vatcar};
use std::fs;
use std::path::Path;

/// The built-in layout.html, and a block that reads `page` and prints nothing: a theme of it
/// renders the same pages, each of them whole.
const READS_PAGE: &str = concat!(
    include_str!("../../templates/layout.html"),
    "{% block scripts_extra %}{% if page.url %}{% endif %}{% endblock scripts_extra %}"
);

const SPLIT: &str = "templates whose frame is rendered once for the pages that share it:";

/// `build -vv` with `args`, into `out`, with a theme folder of `layout.html` when given; what
/// it says of the templates it splits (`event.html`, `none`).
fn build(args: &[&str], layout: Option<&str>, out: &Path) -> String {
    let theme: Vec<_> = layout
        .map(|text| ("layout.html", text))
        .into_iter()
        .collect();
    let printed = build_with_theme(args, &theme, out);
    let said = printed.lines().find_map(|line| line.split_once(SPLIT));
    said.map(|(_, names)| names.trim().to_owned())
        .unwrap_or_else(|| panic!("-vv does not say which templates are split: {printed}"))
}

/// `build -vv` with `args`, into `out`, with a theme folder of `theme`'s files when given;
/// what it prints.
fn build_with_theme(args: &[&str], theme: &[(&str, &str)], out: &Path) -> String {
    let mut command = vatcar(&["build", "-vv"]);
    command
        .args(args)
        .arg("--output")
        .arg(out)
        .env("SOURCE_DATE_EPOCH", "1795176000");
    let folder = out.with_extension("theme");
    if !theme.is_empty() {
        fs::create_dir_all(&folder).unwrap();
        for (name, text) in theme {
            fs::write(folder.join(name), text).unwrap();
        }
        command.arg("--templates").arg(&folder);
    }
    let output = command.output().unwrap();
    let printed = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{printed}");
    printed
}

/// The site built by `args` is the same whether its event pages are split or whole.
fn same_whole_and_split(args: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let (split, whole) = (tmp.path().join("split"), tmp.path().join("whole"));
    assert_eq!(build(args, None, &split), "event.html");
    assert_eq!(build(args, Some(READS_PAGE), &whole), "none");
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

#[test]
fn an_empty_tagline_over_events_without_a_description_gives_the_same_bytes_split_or_whole() {
    // The pages' description is then an empty text, which Tera takes for false: no
    // `<meta name="description">`, split or whole (the shared frame printed an empty one).
    let tmp = tempfile::tempdir().unwrap();
    let snapshot = tmp.path().join("snapshot");
    fs::create_dir_all(&snapshot).unwrap();
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("demo");
    for entry in fs::read_dir(&demo).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            fs::copy(&path, snapshot.join(path.file_name().unwrap())).unwrap();
        }
    }
    let events = snapshot.join("facility-events.json");
    let mut data: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&events).unwrap()).unwrap();
    for event in data["data"].as_array_mut().unwrap() {
        event["description"] = serde_json::Value::from("");
    }
    fs::write(&events, data.to_string()).unwrap();
    let config = tmp.path().join("vatcar-site.toml");
    fs::write(&config, "tagline = \"\"\n").unwrap();
    let (snapshot, config) = (snapshot.to_str().unwrap(), config.to_str().unwrap());
    same_whole_and_split(&["--snapshot", snapshot, "--config", config]);
}

#[test]
fn a_layout_that_fills_hooks_puts_them_on_every_page_each_rendered_whole() {
    // A theme's own layout.html is no frame the program knows: its pages are rendered whole.
    let hooks = r##"{% extends "base.html" %}
{% block head_extra %}<meta name="theme-color" content="#0b5d7a">{% endblock head_extra %}
{% block nav_extra %}{% for item in site.menu %}<li>{{ item.name | upper }}</li>{% endfor %}
<li><a href="{{ root }}roster/">{{ t(key="nav.roster") }}</a></li>{% endblock nav_extra %}"##;
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let args = ["--demo", "--site-url", "https://demo.example.org/"];
    assert_eq!(build(&args, Some(hooks), &out), "none");
    let files = tree(&out);
    let pages: Vec<_> = (files.iter())
        .filter(|(path, _)| path.ends_with(".html"))
        .collect();
    assert!(pages.len() >= 20, "only {} pages", pages.len());
    for (path, bytes) in pages {
        let text = String::from_utf8_lossy(bytes);
        assert!(text.contains("theme-color"), "the hook is not on {path}");
    }
}

#[test]
fn a_layout_that_shows_a_pages_own_value_gets_each_pages_own_value() {
    // `page.url` is no placeholder of the shared frame: each page must be rendered whole.
    let layout = r#"{% extends "base.html" %}
{% block head_extra %}<meta name="x-page" content="{{ page.url }}">{% endblock head_extra %}"#;
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    assert_eq!(build(&["--demo"], Some(layout), &out), "none");
    let files = tree(&out);
    let mut checked = 0;
    for (path, bytes) in &files {
        let Some(folder) = path.strip_suffix("index.html") else {
            continue;
        };
        if folder.matches('/').count() == 2 && folder.starts_with("events/") {
            let text = String::from_utf8_lossy(bytes);
            let want = format!(
                r#"<meta name="x-page" content="{}">"#,
                folder.replace('/', "&#x2F;")
            );
            let want_plain = format!(r#"<meta name="x-page" content="{folder}">"#);
            assert!(
                text.contains(&want) || text.contains(&want_plain),
                "{path} does not show its own address"
            );
            checked += 1;
        }
    }
    assert!(checked >= 5, "only {checked} event pages");
}

#[test]
fn a_rebuild_checks_an_anchor_into_an_event_page_as_the_first_build_does() {
    let tmp = tempfile::tempdir().unwrap();
    fs::create_dir_all(tmp.path().join("content")).unwrap();
    let config = tmp.path().join("vatcar-site.toml");
    fs::write(&config, "").unwrap();
    let out = tmp.path().join("site");
    let build = |anchor: &str| {
        fs::write(
            tmp.path().join("content/join.md"),
            format!("+++\ntitle = \"Join\"\n+++\nSee [the event](@/events/384#{anchor}).\n"),
        )
        .unwrap();
        vatcar(&["build", "-vv", "--demo", "--config"])
            .arg(&config)
            .arg("--output")
            .arg(&out)
            .env("SOURCE_DATE_EPOCH", "1795176000")
            .output()
            .unwrap()
    };
    for _ in 0..2 {
        let output = build("about");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    // A rebuild over the same pages finds a wrong anchor as the first build would.
    let output = build("nope");
    let printed = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{printed}");
    assert!(printed.contains("nope"), "{printed}");
}

/// Every event page and card is Tera's, over a frame rendered once with the built-in
/// templates: a theme holding copies of the built-in event.html, macros.html or
/// event_lists.html (its event.html rendered whole, page by page) makes the very same files.
#[test]
fn a_theme_holding_copies_of_the_built_in_event_templates_makes_the_same_files() {
    let hostile = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/hostile");
    let spanish = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/facility-es/vatcar-site.toml"
    );
    let sites: [&[&str]; 2] = [
        &[
            "--snapshot",
            hostile,
            "--site-url",
            "https://hostile.example/",
        ],
        &[
            "--demo",
            "--config",
            spanish,
            "--site-url",
            "https://es.example/",
        ],
    ];
    let copies = ["event.html", "macros.html", "event_lists.html"];
    for args in sites {
        let tmp = tempfile::tempdir().unwrap();
        let built_in = tmp.path().join("built-in");
        build_with_theme(args, &[], &built_in);
        let built_in = tree(&built_in);
        let events = built_in
            .keys()
            .filter(|path| path.ends_with("/index.html") && path.matches('/').count() == 2)
            .count();
        assert!(events >= 5, "only {events} event pages were built");
        for copied in copies {
            let tera = tmp.path().join(copied);
            let text = vatcar_site::render::TEMPLATES
                .iter()
                .find(|(name, _)| *name == copied)
                .unwrap()
                .1;
            build_with_theme(args, &[(copied, text)], &tera);
            assert_same_files(&built_in, &tree(&tera));
        }
    }
}
