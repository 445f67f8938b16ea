//! Whose site it is (issue 14, items 6 and 11): the logo, the accent colour, the favicon, link
//! previews (OpenGraph and Twitter cards) on every page, and the demo's own site folder.

use crate::support::{build_site, page, run_ok, site_folder, texts, vatcar_at_demo_time};
use std::fs;

fn meta(html: &scraper::Html, key: &str) -> Option<String> {
    let css = format!("meta[property=\"{key}\"], meta[name=\"{key}\"]");
    html.select(&scraper::Selector::parse(&css).unwrap())
        .next()
        .and_then(|m| m.value().attr("content").map(str::to_owned))
}

fn attr(html: &scraper::Html, css: &str, name: &str) -> Option<String> {
    html.select(&scraper::Selector::parse(css).unwrap())
        .next()
        .and_then(|e| e.value().attr(name).map(str::to_owned))
}

/// With a logo and no `favicon`, the tab shows the logo (issue 50), not the theme's icon;
/// with neither, the theme's.
#[test]
fn the_logo_is_the_tabs_icon_unless_a_favicon_is_named() {
    let site = site_folder(
        "logo = \"img/logo.png\"\n",
        &[("static/img/logo.png", b"\x89PNG\r\n\x1a\n")],
    );
    let (ran, out) = build_site(site.path(), &[]);
    assert!(ran.status.success(), "{}", ran.text());
    for (file, root) in [("index.html", ""), ("events/412/index.html", "../../")] {
        let (_, html) = page(&out.join(file));
        assert_eq!(
            attr(&html, "link[rel=icon]", "href"),
            Some(format!("{root}img/logo.png")),
            "{file}"
        );
        assert_eq!(
            attr(&html, "link[rel=icon]", "type").as_deref(),
            Some("image/png")
        );
    }
    let site = site_folder("title = \"No logo\"\n", &[]);
    let (ran, out) = build_site(site.path(), &[]);
    assert!(ran.status.success(), "{}", ran.text());
    let (_, html) = page(&out.join("index.html"));
    let theirs = attr(&html, "link[rel=icon]", "href").unwrap_or_default();
    assert!(theirs.starts_with("static/"), "{theirs}");
}

#[test]
fn the_logo_accent_and_favicon_are_shown_on_every_page() {
    let site = site_folder(
        "logo = \"img/logo.png\"\nfavicon = \"favicon.ico\"\naccent = \"#ffd166\"\n",
        &[
            ("static/img/logo.png", b"\x89PNG\r\n\x1a\n"),
            ("static/favicon.ico", b"\x00\x00\x01\x00"),
        ],
    );
    let (ran, out) = build_site(site.path(), &["--site-url", "https://tjzs.example.org/"]);
    assert!(ran.status.success(), "{}", ran.text());
    for (file, root) in [
        ("index.html", ""),
        ("roster/index.html", "../"),
        ("events/412/index.html", "../../"),
    ] {
        let (text, html) = page(&out.join(file));
        assert_eq!(
            attr(&html, "header img.brand-logo", "src"),
            Some(format!("{root}img/logo.png")),
            "{file}"
        );
        assert_eq!(
            attr(&html, "link[rel=icon]", "href"),
            Some(format!("{root}favicon.ico")),
            "{file}"
        );
        assert_eq!(
            attr(&html, "link[rel=icon]", "type").as_deref(),
            Some("image/x-icon")
        );
        // Gold is unreadable on white: the light theme gets a darker shade, the dark theme the
        // colour as chosen.
        assert!(text.contains(":root { --accent: #806933;"), "{file}");
        assert!(text.contains("--accent: #ffd166;"), "{file}");
    }

    for (config, expected) in [
        (
            "accent = \"gold\"\n",
            "vatcar-site.toml:1: accent: \"gold\" is not a colour",
        ),
        (
            "\nlogo = \"missing.png\"\n",
            "vatcar-site.toml:2: logo: there is no missing.png in the static folder",
        ),
        (
            "favicon = \"../secret\"\n",
            "vatcar-site.toml:1: favicon: \"../secret\" is not a path in the static folder",
        ),
    ] {
        let site = site_folder(config, &[]);
        let (ran, out) = build_site(site.path(), &[]);
        assert!(!ran.status.success(), "{}", ran.text());
        assert!(
            ran.stderr.contains(expected),
            "want {expected}\n got {}",
            ran.stderr
        );
        assert!(!out.exists());
    }
}

#[test]
fn every_page_has_a_link_preview_and_an_event_shows_its_banner() {
    let site = site_folder(
        "tagline = \"Caribbean skies\"\nlogo = \"logo.png\"\n",
        &[
            ("static/logo.png", b"\x89PNG\r\n\x1a\n"),
            (
                "content/join.md",
                b"+++\ntitle = \"Join\"\ndescription = \"How to join\"\n+++\nHi\n",
            ),
        ],
    );
    let (ran, out) = build_site(site.path(), &["--site-url", "https://tjzs.example.org/"]);
    assert!(ran.status.success(), "{}", ran.text());

    let (_, home) = page(&out.join("index.html"));
    assert_eq!(meta(&home, "og:title").as_deref(), Some("San Juan CERAP"));
    assert_eq!(
        meta(&home, "og:description").as_deref(),
        Some("Caribbean skies")
    );
    assert_eq!(
        meta(&home, "og:url").as_deref(),
        Some("https://tjzs.example.org/")
    );
    assert_eq!(
        meta(&home, "og:image").as_deref(),
        Some("https://tjzs.example.org/logo.png")
    );
    assert_eq!(meta(&home, "twitter:card").as_deref(), Some("summary"));

    let (_, join) = page(&out.join("join/index.html"));
    assert_eq!(meta(&join, "og:title").as_deref(), Some("Join"));
    assert_eq!(
        meta(&join, "og:description").as_deref(),
        Some("How to join")
    );
    assert_eq!(meta(&join, "description").as_deref(), Some("How to join"));

    // An event with a banner shows it as a large card, with its description's opening words.
    let (_, event) = page(&out.join("events/412/index.html"));
    let banner = attr(&event, "img.event-banner", "src").expect("event 412 has a banner");
    assert_eq!(meta(&event, "og:image"), Some(banner));
    assert_eq!(
        meta(&event, "twitter:card").as_deref(),
        Some("summary_large_image")
    );
    let description = meta(&event, "og:description").expect("a description");
    assert!(
        !description.is_empty() && description.chars().count() <= 201,
        "{description}"
    );
    assert!(!description.contains('<'), "plain text: {description}");

    // Without the site's address there is no absolute image to offer.
    let (ran, out) = build_site(site.path(), &[]);
    assert!(ran.status.success(), "{}", ran.text());
    let (_, home) = page(&out.join("index.html"));
    assert_eq!(meta(&home, "og:image"), None);
    assert_eq!(meta(&home, "og:url"), None);
    assert_eq!(meta(&home, "og:title").as_deref(), Some("San Juan CERAP"));
}

#[test]
fn the_demo_has_a_site_folder_of_its_own() {
    let tmp = tempfile::tempdir().unwrap();
    run_ok(vatcar_at_demo_time(&["build", "--demo", "--output", "out"]).current_dir(tmp.path()));
    let out = tmp.path().join("out");
    let (_, home) = page(&out.join("index.html"));
    assert_eq!(texts(&home, "section.intro h2"), ["Welcome to San Juan"]);
    assert_eq!(
        attr(&home, "header img.brand-logo", "src").as_deref(),
        Some("logo.svg")
    );
    assert!(fs::read(out.join("logo.svg")).unwrap().starts_with(b"<svg"));
    let nav = texts(&home, ".site-nav li");
    assert!(
        nav.ends_with(&["Join or visit".to_owned(), "Pilot resources".to_owned()]),
        "{nav:?}"
    );
    // The pilots' page links to the documents with @/, written relative.
    let (_, pilots) = page(&out.join("pilots/index.html"));
    let links: Vec<String> = pilots
        .select(&scraper::Selector::parse("main article a").unwrap())
        .filter_map(|a| a.value().attr("href").map(str::to_owned))
        .collect();
    assert!(
        links.contains(&"../documents/#standard-operating-procedures".to_owned()),
        "{links:?}"
    );

    // With a config file the webmaster's own site folder is used, not the demo's.
    let site = site_folder("", &[]);
    let (ran, out) = build_site(site.path(), &[]);
    assert!(ran.status.success(), "{}", ran.text());
    assert!(!out.join("join").exists() && !out.join("logo.svg").exists());
}

/// The file an address on the page at `page` leads to, as a browser resolves it.
fn resolved(page: &std::path::Path, address: &str) -> std::path::PathBuf {
    url::Url::from_file_path(page)
        .unwrap()
        .join(address)
        .unwrap_or_else(|e| panic!("{address}: {e}"))
        .to_file_path()
        .unwrap()
}

#[test]
fn a_logo_or_favicon_whose_name_holds_spaces_hashes_or_accents_is_found_from_every_page() {
    for (logo, favicon) in [
        ("logo #1.svg", "fav icon #1.ico"),
        ("img/mon logo ü.png", "ícone 100%.ico"),
    ] {
        let config = format!("logo = \"{logo}\"\nfavicon = \"{favicon}\"\n");
        let logo_file = format!("static/{logo}");
        let favicon_file = format!("static/{favicon}");
        let site = site_folder(
            &config,
            &[
                (&logo_file, b"\x89PNG\r\n\x1a\n"),
                (&favicon_file, b"\x00\x00\x01\x00"),
            ],
        );
        let (ran, out) = build_site(site.path(), &["--site-url", "https://tjzs.example.org/"]);
        assert!(ran.status.success(), "{}", ran.text());
        for file in ["index.html", "roster/index.html", "events/412/index.html"] {
            let path = out.join(file);
            let (_, html) = page(&path);
            let src = attr(&html, "header img.brand-logo", "src").expect("a logo");
            assert_eq!(resolved(&path, &src), out.join(logo), "{file}: {src}");
            let href = attr(&html, "link[rel=icon]", "href").expect("a favicon");
            assert_eq!(resolved(&path, &href), out.join(favicon), "{file}: {href}");
        }
        // A bitmap logo is the link preview's image, at its absolute address.
        if logo.ends_with(".png") {
            let (_, home) = page(&out.join("index.html"));
            let image = meta(&home, "og:image").expect("a preview image");
            let image = url::Url::parse(&image).unwrap();
            let path = percent_encoding::percent_decode_str(image.path())
                .decode_utf8()
                .unwrap();
            assert_eq!(path, format!("/{logo}"), "{image}");
        }
    }
}
