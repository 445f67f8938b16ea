//! Event banners served with the site (`banners = "local"`): read at build time from a mock
//! image host on 127.0.0.1, copied at a few widths, shown with `srcset`; cached, so that an
//! unchanged rebuild asks for nothing; what cannot be used shown as before, with one warning;
//! `banners = "remote"` as before.

use crate::support::mock::closed_port;
use crate::support::{
    AgainstMock, KEY, MockServer, Reply, demo_body, page, run, run_ok, vatcar_at_demo_time,
};
use image::{DynamicImage, ImageFormat, RgbImage};
use serde_json::Value;
use std::io::Cursor;
use std::path::Path;
use std::time::Duration;
use vatcar_site::fetch::endpoint::Endpoint;

/// A PNG banner of two flat colours, as a plain graphic is made: lossless WebP is the
/// smaller for it.
pub(crate) fn png(width: u32, height: u32) -> Vec<u8> {
    let image = RgbImage::from_fn(width, height, |x, _| {
        if x < width / 2 {
            image::Rgb([11, 93, 122])
        } else {
            image::Rgb([245, 196, 0])
        }
    });
    encode(DynamicImage::ImageRgb8(image), ImageFormat::Png)
}

/// A JPEG photograph: noise, which no lossless format makes small.
fn jpeg(width: u32, height: u32) -> Vec<u8> {
    let mut seed = 7u32;
    let image = RgbImage::from_fn(width, height, |_, _| {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        let [a, b, c, _] = seed.to_le_bytes();
        image::Rgb([a, b, c])
    });
    encode(DynamicImage::ImageRgb8(image), ImageFormat::Jpeg)
}

fn encode(image: DynamicImage, format: ImageFormat) -> Vec<u8> {
    let mut bytes = Vec::new();
    image
        .write_to(&mut Cursor::new(&mut bytes), format)
        .unwrap();
    bytes
}

/// A PNG that declares 100,000 × 100,000 pixels (its header rewritten, the CRC with it).
fn bomb() -> Vec<u8> {
    let mut bytes = png(1, 1);
    bytes[16..20].copy_from_slice(&100_000u32.to_be_bytes());
    bytes[20..24].copy_from_slice(&100_000u32.to_be_bytes());
    let crc = crc32fast::hash(&bytes[12..29]);
    bytes[29..33].copy_from_slice(&crc.to_be_bytes());
    bytes
}

pub(crate) fn image_reply(bytes: Vec<u8>, media_type: &str) -> Reply {
    Reply::ok(bytes).header("Content-Type", media_type)
}

/// A mock API serving the demo's data, its facility events' banners replaced by `banners` in
/// order (the others none), each at an address on the mock itself unless it is absolute.
pub(crate) fn api_with_banners(banners: &[&str]) -> MockServer {
    let server = crate::support::demo_api();
    let mut events: Value = serde_json::from_slice(&demo_body("facility-events.json")).unwrap();
    for (n, event) in events["data"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .enumerate()
    {
        event["image_url"] = match banners.get(n) {
            Some(path) if path.starts_with('/') => format!("{}{path}", server.url()).into(),
            Some(url) => (*url).into(),
            None => Value::Null,
        };
    }
    server.reply(
        Endpoint::FacilityEvents,
        Reply::ok(serde_json::to_vec(&events).unwrap()),
    );
    // The division's banners are on vatcar.net, which no test may reach.
    let mut division: Value = serde_json::from_slice(&demo_body("division-events.json")).unwrap();
    for event in division["data"].as_array_mut().unwrap() {
        event["image_url"] = Value::Null;
    }
    server.reply(
        Endpoint::DivisionEvents,
        Reply::ok(serde_json::to_vec(&division).unwrap()),
    );
    server
}

/// The id of the `n`th facility event of the demo.
fn event_id(n: usize) -> u64 {
    let events: Value = serde_json::from_slice(&demo_body("facility-events.json")).unwrap();
    events["data"][n]["id"].as_u64().unwrap()
}

pub(crate) fn build(server: &MockServer, out: &Path) -> crate::support::Ran {
    let mut command = vatcar_at_demo_time(&["build", "--output", out.to_str().unwrap()]);
    command.against(server).env("VATCAR_BANNERS", "local");
    run_ok(&mut command)
}

/// The requests the mock received for `path`.
pub(crate) fn hits(server: &MockServer, path: &str) -> usize {
    server.log().iter().filter(|l| l.target == path).count()
}

/// The attribute `name` of the first element matching `css` on the page of event `n`.
pub(crate) fn banner_attributes(out: &Path, n: usize, css: &str) -> Option<Vec<(String, String)>> {
    let path = out.join(format!("events/{}/index.html", event_id(n)));
    let (_, html) = page(&path);
    let selector = scraper::Selector::parse(css).unwrap();
    let element = html.select(&selector).next()?;
    Some(
        element
            .value()
            .attrs()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect(),
    )
}

fn attribute<'a>(attributes: &'a [(String, String)], name: &str) -> Option<&'a str> {
    attributes
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// The widths a `srcset` names, and the files it names, which must be in `out`, decode, and
/// be as wide as it says.
fn check_srcset(out: &Path, srcset: &str) -> Vec<u32> {
    srcset
        .split(", ")
        .map(|candidate| {
            let (url, width) = candidate.split_once(' ').unwrap();
            let width: u32 = width.strip_suffix('w').unwrap().parse().unwrap();
            let file = out.join(url.strip_prefix("../../").unwrap());
            let image = image::open(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            assert_eq!(image.width(), width, "{}", file.display());
            width
        })
        .collect()
}

#[test]
fn a_banner_is_served_with_the_site_at_a_few_widths_never_wider_than_it_is() {
    let server = api_with_banners(&["/banners/wide.png", "/img/photo.jpg"]);
    server.route_path(
        "/banners/wide.png",
        vec![image_reply(png(1600, 400), "image/png")],
    );
    server.route_path(
        "/img/photo.jpg",
        vec![image_reply(jpeg(1000, 500), "image/jpeg")],
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("public");
    let ran = build(&server, &out);
    assert!(!ran.stderr.contains("Event banner"), "{}", ran.stderr);

    // The PNG: flat colours, for which lossless WebP is the smaller than JPEG.
    let img = banner_attributes(&out, 0, "picture > img.event-banner").expect("a <picture>");
    let src = attribute(&img, "src").unwrap();
    assert!(
        src.starts_with("../../banners/") && src.ends_with("-1440.jpg"),
        "{src}"
    );
    assert_eq!(attribute(&img, "width"), Some("1440"));
    assert_eq!(attribute(&img, "height"), Some("360"));
    assert_eq!(attribute(&img, "decoding"), Some("async"));
    assert_eq!(attribute(&img, "alt"), Some(""));
    // The page's first image, and its largest: not lazy.
    assert_eq!(attribute(&img, "loading"), None);
    assert_eq!(
        attribute(&img, "sizes"),
        Some("(min-width: 66rem) 63.5rem, calc(100vw - 2.5rem)")
    );
    assert_eq!(
        check_srcset(&out, attribute(&img, "srcset").unwrap()),
        [480, 960, 1440]
    );
    let source = banner_attributes(&out, 0, "picture > source").expect("a WebP <source>");
    assert_eq!(attribute(&source, "type"), Some("image/webp"));
    assert_eq!(
        check_srcset(&out, attribute(&source, "srcset").unwrap()),
        [480, 960, 1440]
    );

    // The photograph, 1,000 px wide: no copy wider, and no WebP, which would be larger.
    let img = banner_attributes(&out, 1, "picture > img.event-banner").unwrap();
    assert_eq!(
        check_srcset(&out, attribute(&img, "srcset").unwrap()),
        [480, 960, 1000]
    );
    assert_eq!(
        (attribute(&img, "width"), attribute(&img, "height")),
        (Some("1000"), Some("500"))
    );
    assert!(banner_attributes(&out, 1, "picture > source").is_none());

    // Nothing of the API's address is left on the page, and no banner request carried the key.
    let (text, _) = page(&out.join(format!("events/{}/index.html", event_id(0))));
    assert!(!text.contains("wide.png"), "{text}");
    for logged in server.log() {
        if logged.target.starts_with("/banners/") || logged.target.starts_with("/img/") {
            assert!(
                logged.headers.values().all(|v| !v.contains(KEY)),
                "{logged:?}"
            );
        }
    }
    // The cache is beside the output folder, never in it.
    assert!(dir.path().join(".vatcar-site-cache/banners").is_dir());
    let published = crate::support::tree(&out);
    assert!(
        published.keys().all(|path| !path.contains("cache")),
        "{:?}",
        published.keys()
    );
    let copies = published
        .keys()
        .filter(|p| p.starts_with("banners/"))
        .count();
    assert_eq!(copies, 3 + 3 + 3, "{:?}", published.keys());
}

#[test]
fn an_unchanged_rebuild_asks_for_no_banner_and_writes_the_same_files() {
    let server = api_with_banners(&["/b/one.png", "/b/moved.png"]);
    server.route_path("/b/one.png", vec![image_reply(png(800, 200), "image/png")]);
    // A redirect on this machine is followed.
    server.route_path(
        "/b/moved.png",
        vec![Reply::status(302).header("Location", "/b/there.png")],
    );
    server.route_path(
        "/b/there.png",
        vec![image_reply(png(500, 100), "image/png")],
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let ran = build(&server, &out);
    assert!(!ran.stderr.contains("Event banner"), "{}", ran.stderr);
    let first = crate::support::tree(&out);
    assert_eq!(
        (hits(&server, "/b/one.png"), hits(&server, "/b/there.png")),
        (1, 1)
    );
    assert!(banner_attributes(&out, 1, "picture > img").is_some());

    let ran = build(&server, &out);
    assert!(!ran.stderr.contains("Event banner"), "{}", ran.stderr);
    assert_eq!(
        (hits(&server, "/b/one.png"), hits(&server, "/b/moved.png")),
        (1, 1),
        "an unchanged rebuild asked for a banner again"
    );
    // The pages and the copies; data/changes.json says the build is not the first.
    let made = |tree: std::collections::BTreeMap<String, Vec<u8>>| {
        (tree.into_iter())
            .filter(|(path, _)| path.starts_with("banners/") || path.starts_with("events/"))
            .collect()
    };
    crate::support::assert_same_files(&made(first), &made(crate::support::tree(&out)));
}

/// The one line that warns of the banners not served, if there is one.
pub(crate) fn unserved_warning(stderr: &str) -> Option<&str> {
    let lines: Vec<&str> = (stderr.lines())
        .filter(|l| l.contains("not served with the site"))
        .collect();
    assert!(lines.len() <= 1, "{stderr}");
    lines.first().copied()
}

#[test]
fn banners_that_cannot_be_used_are_named_in_one_warning_that_says_what_each_page_shows() {
    let refused = format!("https://127.0.0.1:{}/refused.png", closed_port());
    let server = api_with_banners(&[
        "/bomb.png",
        "/page.html",
        "/huge.png",
        "/slow.png",
        "/elsewhere.png",
        &refused,
        "/gone.png",
        "/anim.gif",
    ]);
    server.route_path("/bomb.png", vec![image_reply(bomb(), "image/png")]);
    server.route_path(
        "/page.html",
        vec![Reply::ok("<html>not an image</html>").header("Content-Type", "text/html")],
    );
    server.route_path(
        "/huge.png",
        vec![image_reply(vec![0; 9 * 1024 * 1024], "image/png")],
    );
    server.route_path(
        "/slow.png",
        vec![image_reply(png(100, 50), "image/png").delay(Duration::from_secs(12))],
    );
    server.route_path(
        "/elsewhere.png",
        vec![Reply::status(302).header("Location", "http://192.0.2.1/banner.png")],
    );
    server.route_path("/gone.png", vec![Reply::status(404)]);
    server.route_path(
        "/anim.gif",
        vec![image_reply(
            b"GIF89a\x01\x00\x01\x00\x00\x00\x00;".to_vec(),
            "image/gif",
        )],
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let ran = build(&server, &out);
    let warning = unserved_warning(&ran.stderr).expect("a warning");
    assert!(
        warning.contains("8 event banners are not served"),
        "{warning}"
    );
    for (needle, why) in [
        ("/bomb.png", "larger than vatcar-site decodes"),
        ("/page.html", "not an image"),
        ("/huge.png", "larger than 8 MiB"),
        ("/slow.png", "did not answer within 10 s"),
        ("/elsewhere.png", "192.0.2.1"),
        ("/gone.png", "answered 404"),
        ("/refused.png", "could not read it"),
        ("/anim.gif", "GIF"),
    ] {
        let at = warning
            .find(needle)
            .unwrap_or_else(|| panic!("{needle}: {warning}"));
        let said = &warning[at..];
        let said = &said[..said.find(')').unwrap()];
        assert!(said.contains(why), "{needle}: {said}");
    }
    // What each page shows is what the warning says: the mock's banners are http, which no
    // page shows from elsewhere; the refused one is https, which its page shows as the API
    // gave it.
    let (mock_group, refused_group) = warning.split_once(" · ").unwrap();
    assert!(
        mock_group.ends_with("their pages show no banner"),
        "{warning}"
    );
    assert!(
        refused_group.ends_with(&format!(
            "its page shows it from {}",
            &refused[..refused.find("/refused").unwrap()]
        )),
        "{warning}"
    );
    for n in [0, 1, 2, 3, 4, 6, 7] {
        assert!(
            banner_attributes(&out, n, "img.event-banner").is_none(),
            "event {n}"
        );
    }
    assert!(banner_attributes(&out, 5, "picture").is_none());
    let img = banner_attributes(&out, 5, "img.event-banner").unwrap();
    assert_eq!(attribute(&img, "src"), Some(refused.as_str()));
    assert!(!out.join("banners").exists());

    // What could be read but not decoded is not read again within a day, nor what failed
    // within the hour; all are still warned of.
    let asked = || ["/bomb.png", "/page.html", "/gone.png"].map(|path| hits(&server, path));
    let before = asked();
    let ran = build(&server, &out);
    assert_eq!(asked(), before);
    let warning = unserved_warning(&ran.stderr).expect("a warning");
    for needle in [
        "/bomb.png (the image is larger",
        "/page.html (not an image",
        "/gone.png (it answered 404 (at a build less than 60 minutes ago",
    ] {
        assert!(warning.contains(needle), "{needle}: {warning}");
    }
}

#[test]
fn a_host_that_cannot_be_reached_is_asked_once_a_build() {
    let port = closed_port();
    let on_it: Vec<String> = (1..=5)
        .map(|n| format!("https://127.0.0.1:{port}/{n}.png"))
        .collect();
    let server = api_with_banners(&on_it.iter().map(String::as_str).collect::<Vec<_>>());
    let dir = tempfile::tempdir().unwrap();
    let ran = build(&server, &dir.path().join("out"));
    let warning = unserved_warning(&ran.stderr).expect("a warning");
    // One of them was asked, and refused; the others were not tried.
    assert_eq!(
        warning.matches("Connection refused").count(),
        1,
        "{warning}"
    );
    assert_eq!(
        warning
            .matches("not asked: its host could not be reached")
            .count(),
        4,
        "{warning}"
    );
}

#[test]
fn banners_remote_shows_the_apis_addresses_and_reads_nothing() {
    let server = api_with_banners(&["https://cdn.example.org/banner.png"]);
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("vatcar-site.toml");
    std::fs::write(&config, "banners = \"remote\"\n").unwrap();
    let out = dir.path().join("out");
    let mut command = vatcar_at_demo_time(&[
        "build",
        "--config",
        config.to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
    ]);
    command.against(&server).env_remove("VATCAR_BANNERS");
    let ran = run(&mut command);
    assert!(ran.status.success(), "{}", ran.text());
    assert!(!ran.stderr.contains("Event banner"), "{}", ran.stderr);
    let img = banner_attributes(&out, 0, "img.event-banner").unwrap();
    assert_eq!(
        attribute(&img, "src"),
        Some("https://cdn.example.org/banner.png")
    );
    assert!(banner_attributes(&out, 0, "picture").is_none());
    assert!(!out.join("banners").exists());
    assert!(!dir.path().join(".vatcar-site-cache").exists());
}

/// The `<picture>` of each event page of `out` that shows a banner: its `<img>`'s `src`,
/// `srcset`, `width` and `height`, each copy checked to be in `out` at its width.
fn self_hosted_banners(out: &Path) -> Vec<String> {
    let mut shown = Vec::new();
    for entry in std::fs::read_dir(out.join("events")).unwrap() {
        let page = entry.unwrap().path().join("index.html");
        if !page.is_file() {
            continue;
        }
        let (text, html) = crate::support::page(&page);
        assert!(!text.contains("vatcar.net/storage"), "{}", page.display());
        let selector = scraper::Selector::parse("img.event-banner").unwrap();
        for img in html.select(&selector) {
            let src = img.value().attr("src").unwrap();
            assert!(
                src.starts_with("../../banners/"),
                "{}: {src}",
                page.display()
            );
            assert!(img.value().attr("width").is_some() && img.value().attr("height").is_some());
            check_srcset(out, img.value().attr("srcset").unwrap());
            shown.push(src.to_owned());
        }
    }
    shown
}

#[test]
fn the_demo_serves_banners_of_its_own_and_asks_no_host() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut command = crate::support::vatcar(&[
        "build",
        "--demo",
        "--site-url",
        "https://demo.example.org/",
        "--output",
        out.to_str().unwrap(),
    ]);
    command.env_remove("VATCAR_BANNERS");
    let ran = run_ok(&mut command);
    assert!(!ran.stderr.contains("not served"), "{}", ran.stderr);
    // Every event page of the demo that names a banner shows its own copy (7 facility events
    // and 7 division events, one of them both: 13 pages); and a link preview shows the same
    // copy, at the site's address.
    assert_eq!(self_hosted_banners(&out).len(), 13);
    let (_, html) = crate::support::page(&out.join(format!("events/{}/index.html", event_id(0))));
    let og = scraper::Selector::parse(r#"meta[property="og:image"]"#).unwrap();
    let image = html
        .select(&og)
        .next()
        .unwrap()
        .value()
        .attr("content")
        .unwrap();
    assert!(
        image.starts_with("https://demo.example.org/banners/"),
        "{image}"
    );
}

#[test]
fn a_snapshot_keeps_its_banners_and_builds_them_with_the_host_gone() {
    let server = api_with_banners(&["/b/one.png", "/b/two.jpg", "/b/gone.png"]);
    server.route_path("/b/one.png", vec![image_reply(png(800, 200), "image/png")]);
    server.route_path(
        "/b/two.jpg",
        vec![image_reply(jpeg(1000, 500), "image/jpeg")],
    );
    server.route_path("/b/gone.png", vec![Reply::status(404)]);
    let dir = tempfile::tempdir().unwrap();
    let snapshot = dir.path().join("snap");
    let mut fetch = vatcar_at_demo_time(&["fetch", "--output", snapshot.to_str().unwrap()]);
    fetch.against(&server).env("VATCAR_BANNERS", "local");
    let ran = run_ok(&mut fetch);
    assert!(
        (ran.stderr.lines()).any(|l| l.contains("/b/gone.png (it answered 404)")
            && l.contains("the snapshot holds no copy")),
        "{}",
        ran.stderr
    );
    let listed: Value =
        serde_json::from_slice(&std::fs::read(snapshot.join("banners.json")).unwrap()).unwrap();
    assert_eq!(listed.as_object().unwrap().len(), 2, "{listed}");
    drop(server);

    // The banners' host is gone: the build serves the snapshot's copies all the same.
    let out = dir.path().join("out");
    let mut build = vatcar_at_demo_time(&[
        "build",
        "--snapshot",
        snapshot.to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
    ]);
    build.env("VATCAR_BANNERS", "local");
    let ran = run_ok(&mut build);
    assert_eq!(self_hosted_banners(&out).len(), 2, "{}", ran.stderr);
    let warning = unserved_warning(&ran.stderr).expect("the missing one named");
    assert!(
        warning.contains("/b/gone.png (the snapshot holds no copy of it"),
        "{warning}"
    );
}

#[test]
fn banners_remote_says_which_banners_no_page_shows() {
    let server = api_with_banners(&[
        "https://cdn.example.org/shown.png",
        "http://cdn.example.org/plain.png",
    ]);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut command = vatcar_at_demo_time(&["build", "--output", out.to_str().unwrap()]);
    command.against(&server).env("VATCAR_BANNERS", "remote");
    let ran = run_ok(&mut command);
    let warning = unserved_warning(&ran.stderr).expect("the http banner named");
    assert!(warning.contains("http://cdn.example.org: /plain.png (a page shows a banner from elsewhere over https only); its page shows no banner"), "{warning}");
    assert!(!warning.contains("shown.png"), "{warning}");
    // What the warning says is what the pages show.
    assert!(banner_attributes(&out, 1, "img.event-banner").is_none());
    let img = banner_attributes(&out, 0, "img.event-banner").unwrap();
    assert_eq!(
        attribute(&img, "src"),
        Some("https://cdn.example.org/shown.png")
    );
}
