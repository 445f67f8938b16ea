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

/// How many event pages a `build -vv` says it kept without making them again.
fn kept(printed: &str) -> usize {
    let line = printed
        .lines()
        .find(|line| line.contains("event pages kept without being made again"))
        .unwrap_or_else(|| panic!("-vv does not say how many pages it kept: {printed}"));
    line.split_whitespace()
        .find_map(|word| word.parse().ok())
        .unwrap()
}

/// A theme folder beside `out` holding a copy of the built-in macros.html: its event pages'
/// content is rendered by Tera over the shared frame (the built-in templates' is written by
/// hand), and kept when its inputs are unchanged, as the built-in templates' pages are.
fn tera_macros_theme(out: &Path) -> std::path::PathBuf {
    let theme = out.with_extension("tera-theme");
    fs::create_dir_all(&theme).unwrap();
    fs::write(
        theme.join("macros.html"),
        include_str!("../../templates/macros.html"),
    )
    .unwrap();
    theme
}

/// `build -vv --snapshot snapshot` into `out`, with [`tera_macros_theme`] when `tera` (else
/// the built-in templates), with `config` when given; what it printed.
fn build_snapshot(snapshot: &Path, out: &Path, tera: bool, config: Option<&Path>) -> String {
    let mut command = vatcar(&["build", "-vv", "--snapshot"]);
    command
        .arg(snapshot)
        .arg("--output")
        .arg(out)
        .env("SOURCE_DATE_EPOCH", "1795176000");
    if tera {
        command.arg("--templates").arg(tera_macros_theme(out));
    }
    if let Some(config) = config {
        command.arg("--config").arg(config);
    }
    let output = command.output().unwrap();
    let printed = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{printed}");
    printed
}

#[test]
fn a_rebuild_keeps_the_event_pages_made_from_the_same_inputs_and_remakes_the_others() {
    rebuild_keeps_the_pages_made_from_the_same_inputs(true);
}

#[test]
fn a_rebuild_keeps_the_event_pages_of_the_built_in_templates_from_the_same_inputs_and_remakes_the_others()
 {
    rebuild_keeps_the_pages_made_from_the_same_inputs(false);
}

/// Builds over one folder again and again, with a theme's own macros.html (`tera`) or the
/// built-in templates: kept when nothing they show changed, made again when it did.
fn rebuild_keeps_the_pages_made_from_the_same_inputs(tera: bool) {
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
    let out = tmp.path().join("site");
    let first = build_snapshot(&snapshot, &out, tera, None);
    assert_eq!(kept(&first), 0);
    let made = tree(&out);
    let events = made
        .keys()
        .filter(|p| {
            p.starts_with("events/") && p.ends_with("/index.html") && p.matches('/').count() == 2
        })
        .count();
    assert!(events >= 5, "{events} event pages");

    // Every build records what each page is made from, a build into an empty folder too, so
    // the next one keeps them all: the same bytes. (What's new, which compares with the build
    // before, differs from the first's.)
    let second = build_snapshot(&snapshot, &out, tera, None);
    assert_eq!(kept(&second), events);
    let in_events = |files: &std::collections::BTreeMap<String, Vec<u8>>| {
        files
            .iter()
            .filter(|(p, _)| p.starts_with("events/"))
            .map(|(p, b)| (p.clone(), b.clone()))
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    assert_same_files(&in_events(&made), &in_events(&tree(&out)));

    // One event renamed, and one page edited by hand: both are made again.
    let events_file = snapshot.join("facility-events.json");
    let text = fs::read_to_string(&events_file).unwrap();
    fs::write(
        &events_file,
        text.replacen(
            "Holiday Lights over San Juan",
            "Holiday Lights over Ponce",
            1,
        ),
    )
    .unwrap();
    let edited = made
        .iter()
        .find(|(p, bytes)| {
            p.starts_with("events/")
                && p.ends_with("/index.html")
                && p.matches('/').count() == 2
                && !String::from_utf8_lossy(bytes).contains("Holiday Lights over San Juan")
        })
        .unwrap()
        .0
        .clone();
    let mut hand = fs::read_to_string(out.join(&edited)).unwrap();
    hand.push_str("<!-- edited -->");
    fs::write(out.join(&edited), &hand).unwrap();
    let third = build_snapshot(&snapshot, &out, tera, None);
    assert_eq!(kept(&third), events - 2, "{third}");
    let after = tree(&out);
    assert_eq!(
        after[&edited], made[&edited],
        "the page edited by hand is made again"
    );
    let renamed: Vec<&String> = after
        .iter()
        .filter(|(p, bytes)| {
            p.ends_with("/index.html")
                && p.matches('/').count() == 2
                && String::from_utf8_lossy(bytes).contains("Holiday Lights over Ponce")
        })
        .map(|(p, _)| p)
        .collect();
    assert_eq!(
        renamed.len(),
        1,
        "the renamed event's page shows its new name"
    );

    // A theme's macro that the content calls (the frame does not): every page is made again.
    let theme = tmp.path().join("theme");
    fs::create_dir_all(&theme).unwrap();
    let macros = include_str!("../../templates/macros.html");
    assert!(macros.contains(r#"<span class="when">"#));
    fs::write(
        theme.join("macros.html"),
        macros.replace(r#"<span class="when">"#, r#"<span class="when changed">"#),
    )
    .unwrap();
    let mut command = vatcar(&["build", "-vv", "--snapshot"]);
    let output = command
        .arg(&snapshot)
        .arg("--output")
        .arg(&out)
        .arg("--templates")
        .arg(&theme)
        .env("SOURCE_DATE_EPOCH", "1795176000")
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{printed}");
    assert_eq!(kept(&printed), 0);
    let page = String::from_utf8_lossy(&tree(&out)[&edited]).into_owned();
    assert!(
        page.contains("when changed"),
        "the pages were not remade with the theme's macro"
    );

    // Another language changes every page's words: none is kept.
    let config = tmp.path().join("vatcar-site.toml");
    fs::write(&config, "language = \"es\"\n").unwrap();
    let spanish = build_snapshot(&snapshot, &out, tera, Some(&config));
    assert_eq!(kept(&spanish), 0);
    let page = String::from_utf8_lossy(&tree(&out)[&edited]).into_owned();
    assert!(
        page.contains("lang=\"es\""),
        "the kept pages were not remade in Spanish"
    );
}

#[test]
fn event_pages_are_kept_by_an_unchanged_rebuild_with_the_same_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let build = || {
        let output = vatcar(&["build", "-vv", "--demo", "--output"])
            .arg(&out)
            .env("SOURCE_DATE_EPOCH", "1795176000")
            .output()
            .unwrap();
        let printed = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(output.status.success(), "{printed}");
        printed
    };
    build();
    let made = tree(&out);
    let events_of = |files: &std::collections::BTreeMap<String, Vec<u8>>| {
        files
            .iter()
            .filter(|(p, _)| p.starts_with("events/") && p.ends_with("/index.html"))
            .map(|(p, b)| (p.clone(), b.clone()))
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    let pages = events_of(&made).len() - 1;
    assert!(pages >= 5, "{pages} event pages");
    // The build recorded what each page was made from: every rebuild keeps them all.
    for expected in [pages, pages] {
        let printed = build();
        assert_eq!(kept(&printed), expected, "{printed}");
        assert!(printed.contains("(0 written,"), "{printed}");
    }
    assert_same_files(&events_of(&made), &events_of(&tree(&out)));
}

#[test]
fn with_an_api_key_every_page_is_made_and_scanned_again() {
    use crate::support::{AgainstMock, demo_api};
    // A kept page was scanned for the key of its own build, which need not be this one's.
    let server = demo_api();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    for _ in 0..2 {
        let output = vatcar(&["build", "-vv", "--output"])
            .arg(&out)
            .arg("--templates")
            .arg(tera_macros_theme(&out))
            .against(&server)
            .env("SOURCE_DATE_EPOCH", "1795176000")
            .output()
            .unwrap();
        let printed = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{printed}");
        assert_eq!(kept(&printed), 0);
    }
}

#[test]
fn an_event_page_linked_by_anchor_is_made_again_for_its_anchors_to_be_checked() {
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
            .arg("--templates")
            .arg(tera_macros_theme(&out))
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
    // The other event pages are kept; the one linked is made, so a wrong anchor is found.
    let output = build("nope");
    let printed = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{printed}");
    assert!(printed.contains("nope"), "{printed}");
    assert!(kept(&printed) > 0, "{printed}");
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
