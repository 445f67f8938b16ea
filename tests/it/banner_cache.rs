//! The banner cache beside the output folder under attack (issue 45): it may be restored
//! from elsewhere between CI runs, or sit in a parent folder others can write, so nothing in it
//! is trusted. A link in it or as it is followed nowhere, a file in it is published only if it
//! is the copy the cache made, nothing outside it is written or removed, and no secret is kept
//! in it.

use crate::banners::{api_with_banners, banner_attributes, build, hits, image_reply, png};
use crate::support::{AgainstMock, KEY, MockServer, run, vatcar_at_demo_time};
use std::path::{Path, PathBuf};

/// A mock with one banner, and a folder whose `out` is the output; the cache is beside it.
fn one_banner() -> (MockServer, tempfile::TempDir) {
    let server = api_with_banners(&["/b/one.png"]);
    server.route_path("/b/one.png", vec![image_reply(png(800, 200), "image/png")]);
    (server, tempfile::tempdir().unwrap())
}

fn cache_of(dir: &Path) -> PathBuf {
    dir.join(".vatcar-site-cache/banners")
}

/// The cache's copies: its files named like `0123456789abcdef-480.jpg`.
fn copies_in(cache: &Path) -> Vec<PathBuf> {
    let mut copies: Vec<PathBuf> = std::fs::read_dir(cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.len() > 17 && name.as_bytes()[16] == b'-'
        })
        .collect();
    copies.sort();
    copies
}

/// Every published banner file decodes as an image, and none holds `text`.
fn published_banners_are_images(out: &Path, text: &str) {
    let tree = crate::support::tree(out);
    let banners: Vec<_> = tree
        .iter()
        .filter(|(p, _)| p.starts_with("banners/"))
        .collect();
    assert!(!banners.is_empty(), "{:?}", tree.keys());
    for (path, bytes) in banners {
        assert!(
            [".jpg", ".png", ".webp"].iter().any(|e| path.ends_with(e)),
            "{path}"
        );
        assert!(!String::from_utf8_lossy(bytes).contains(text), "{path}");
        image::load_from_memory(bytes).unwrap_or_else(|e| panic!("{path}: {e}"));
    }
}

/// A file of the webmaster's, with what it holds.
#[cfg(unix)]
fn secret_file(dir: &Path) -> (PathBuf, &'static str) {
    let secret = dir.join("secret.txt");
    std::fs::write(&secret, "the webmaster's secret").unwrap();
    (secret, "the webmaster's secret")
}

#[cfg(unix)]
#[test]
fn a_link_in_the_cache_publishes_nothing_it_leads_to() {
    let (server, dir) = one_banner();
    let out = dir.path().join("out");
    build(&server, &out);
    let (secret, text) = secret_file(dir.path());
    // Every copy replaced by a link to the secret: the index still names them, fresh.
    for copy in copies_in(&cache_of(dir.path())) {
        std::fs::remove_file(&copy).unwrap();
        std::os::unix::fs::symlink(&secret, &copy).unwrap();
    }
    let ran = build(&server, &out);
    published_banners_are_images(&out, text);
    // The banner was read again and served as before; the secret is as it was.
    assert_eq!(hits(&server, "/b/one.png"), 2, "{}", ran.stderr);
    assert!(banner_attributes(&out, 0, "picture > img").is_some());
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), text);
}

#[cfg(unix)]
#[test]
fn a_cache_folder_that_is_a_link_is_refused_and_what_it_leads_to_is_untouched() {
    for linked in [".vatcar-site-cache", ".vatcar-site-cache/banners"] {
        let (server, dir) = one_banner();
        // The webmaster's own folder, which a link (restored from a CI cache, say) leads to.
        let theirs = dir.path().join("theirs");
        std::fs::create_dir(&theirs).unwrap();
        let files = [
            ("CNAME", "tjzs.example.org\n"),
            ("README.md", "# notes\n"),
            ("logo.png", "not really a logo"),
            ("notes.txt", "0123456789abcdef\n"),
            ("index.json", "{\"mine\": true}\n"),
            ("0123456789abcdef-480.jpg", "theirs too"),
        ];
        for (name, text) in files {
            std::fs::write(theirs.join(name), text).unwrap();
        }
        let link = dir.path().join(linked);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&theirs, &link).unwrap();
        let out = dir.path().join("out");
        let ran = build(&server, &out);
        assert!(
            (ran.stderr.lines()).any(|l| l.contains("is a link") && l.contains("remove the link")),
            "{linked}: {}",
            ran.stderr
        );
        let left: Vec<String> = std::fs::read_dir(&theirs)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left.len(), files.len(), "{linked}: {left:?}");
        for (name, text) in files {
            assert_eq!(
                std::fs::read_to_string(theirs.join(name)).unwrap(),
                text,
                "{name}"
            );
        }
        // The banner is still served, from this build's own copies.
        assert!(
            banner_attributes(&out, 0, "picture > img").is_some(),
            "{linked}"
        );
    }
}

#[cfg(unix)]
#[test]
fn a_link_where_the_cache_writes_is_replaced_never_written_through() {
    let (server, dir) = one_banner();
    let cache = cache_of(dir.path());
    std::fs::create_dir_all(&cache).unwrap();
    let (secret, text) = secret_file(dir.path());
    // Where the cache wrote its index before the rename, and the index itself.
    for name in ["index.partial", "index.json", ".lock"] {
        std::os::unix::fs::symlink(&secret, cache.join(name)).unwrap();
    }
    let out = dir.path().join("out");
    let ran = build(&server, &out);
    assert_eq!(
        std::fs::read_to_string(&secret).unwrap(),
        text,
        "{}",
        ran.stderr
    );
    published_banners_are_images(&out, text);
}

/// The cache's index, edited: each Made entry's copies' digests and formats as given by
/// `edit`.
fn edit_index(dir: &Path, edit: impl Fn(&mut serde_json::Value)) {
    let path = cache_of(dir).join("index.json");
    let mut index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    edit(&mut index);
    std::fs::write(&path, serde_json::to_vec(&index).unwrap()).unwrap();
}

#[test]
fn a_tampered_cache_publishes_only_the_copies_it_made() {
    let (server, dir) = one_banner();
    let out = dir.path().join("out");
    build(&server, &out);
    let cache = cache_of(dir.path());
    let html = b"<script>alert(document.domain)</script>";
    // A copy's bytes replaced by HTML of the same name; another file planted beside them.
    let copy = copies_in(&cache).remove(0);
    std::fs::write(&copy, html).unwrap();
    std::fs::write(cache.join("evil.html"), html).unwrap();
    // The index made to name the HTML as a copy: its digest, and each format another.
    let digest = sha256_hex(html);
    edit_index(dir.path(), |index| {
        for entry in index["banners"].as_object_mut().unwrap().values_mut() {
            for copy in entry["copies"].as_array_mut().unwrap() {
                copy["sha256"] = digest.clone().into();
            }
        }
    });
    build(&server, &out);
    published_banners_are_images(&out, "<script");
    let tree = crate::support::tree(&out);
    assert!(
        tree.keys()
            .all(|p| !p.ends_with(".html") || !p.starts_with("banners/"))
    );
    // An index of the old layout naming files of any name is read as no index.
    edit_index(dir.path(), |index| {
        *index = serde_json::json!({
            "version": 1,
            "banners": {"x": {"fetched": 0, "sha256": "", "reason": null,
                "made": {"width": 1, "height": 1, "copies": [
                    {"file": "evil.html", "width": 1, "height": 1, "format": "webp"}]}}}
        });
    });
    build(&server, &out);
    published_banners_are_images(&out, "<script");
    assert!(
        !crate::support::tree(&out)
            .keys()
            .any(|p| p.contains("evil"))
    );
}

#[test]
fn a_cached_copy_replaced_by_other_bytes_is_made_again() {
    let (server, dir) = one_banner();
    let out = dir.path().join("out");
    build(&server, &out);
    let first = crate::support::tree(&out);
    let copy = copies_in(&cache_of(dir.path())).remove(0);
    std::fs::write(&copy, b"<html>replaced</html>").unwrap();
    build(&server, &out);
    assert_eq!(hits(&server, "/b/one.png"), 2);
    published_banners_are_images(&out, "replaced");
    let banners = |tree: &std::collections::BTreeMap<String, Vec<u8>>| {
        (tree.iter())
            .filter(|(p, _)| p.starts_with("banners/"))
            .map(|(p, b)| (p.clone(), b.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(banners(&first), banners(&crate::support::tree(&out)));
}

#[cfg(unix)]
#[test]
fn a_fifo_in_the_cache_does_not_hold_the_build() {
    let (server, dir) = one_banner();
    let out = dir.path().join("out");
    build(&server, &out);
    let cache = cache_of(dir.path());
    let fifo = |path: &Path| {
        let _ = std::fs::remove_file(path);
        let made = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .unwrap();
        assert!(made.success());
    };
    fifo(&cache.join("index.json"));
    fifo(&copies_in(&cache)[0]);
    let mut command = vatcar_at_demo_time(&["build", "--output", out.to_str().unwrap()]);
    command.against(&server).env("VATCAR_BANNERS", "local");
    let ran = crate::support::run_within(&mut command, std::time::Duration::from_secs(60));
    assert!(ran.status.success(), "{}", ran.text());
    published_banners_are_images(&out, "<html");
}

#[test]
fn the_api_key_in_a_banner_address_is_neither_sent_nor_kept() {
    let server = api_with_banners(&[&format!("/b/one.png?key={KEY}")]);
    server.route_path("/b/one.png", vec![image_reply(png(800, 200), "image/png")]);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut command = vatcar_at_demo_time(&["build", "--output", out.to_str().unwrap()]);
    command.against(&server).env("VATCAR_BANNERS", "local");
    let ran = run(&mut command);
    // The banner's host was never asked (it would have been sent the key).
    assert_eq!(hits(&server, "/b/one.png"), 0, "{}", ran.text());
    assert!(
        ran.stderr.contains("its address holds the API key"),
        "{}",
        ran.text()
    );
    assert!(!ran.text().contains(KEY), "{}", ran.text());
    // Nothing beside the output holds it: not the cache, not the output.
    crate::support::assert_key_absent(dir.path());
}

#[test]
fn builds_that_share_the_cache_take_turns_and_lose_no_banner() {
    // A banner for each of the demo's eight events, new bytes each round: both builds make
    // and write copies of the same banners at the same time.
    let paths: Vec<String> = (0..8).map(|n| format!("/b/{n}.png")).collect();
    let dir = tempfile::tempdir().unwrap();
    for round in 0..2 {
        let server = api_with_banners(&paths.iter().map(String::as_str).collect::<Vec<_>>());
        for (n, path) in paths.iter().enumerate() {
            let width = 600 + 100 * u32::try_from(n).unwrap() + round;
            server.route_path(path, vec![image_reply(png(width, 200), "image/png")]);
        }
        // Two sites built at once into sibling outputs (the cache is shared).
        let builds: Vec<_> = ["one", "two"]
            .map(|site| {
                let out = dir.path().join(format!("{site}-{round}"));
                let mut command =
                    vatcar_at_demo_time(&["build", "--output", out.to_str().unwrap()]);
                command
                    .against(&server)
                    .env("VATCAR_BANNERS", "local")
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null());
                (out, command.spawn().unwrap())
            })
            .into_iter()
            .collect();
        for (out, mut child) in builds {
            assert!(child.wait().unwrap().success());
            for n in 0..paths.len() {
                assert!(
                    banner_attributes(&out, n, "picture > img").is_some(),
                    "round {round}, {}, banner {n}",
                    out.display()
                );
            }
            published_banners_are_images(&out, "<html");
        }
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, bytes);
    digest.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn a_build_waits_while_another_holds_the_cache() {
    let (server, dir) = one_banner();
    let cache = cache_of(dir.path());
    std::fs::create_dir_all(&cache).unwrap();
    let lock = std::fs::File::create(cache.join(".lock")).unwrap();
    lock.lock().unwrap();
    let out = dir.path().join("out");
    let mut command = vatcar_at_demo_time(&["build", "--output", out.to_str().unwrap()]);
    command
        .against(&server)
        .env("VATCAR_BANNERS", "local")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut child = command.spawn().unwrap();
    // The API's data is read meanwhile; the banner is not, while the other holds the cache.
    while server.log().len() < 4 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_secs(1));
    assert_eq!(hits(&server, "/b/one.png"), 0);
    assert!(child.try_wait().unwrap().is_none());
    drop(lock);
    assert!(child.wait().unwrap().success());
    assert_eq!(hits(&server, "/b/one.png"), 1);
    assert!(banner_attributes(&out, 0, "picture > img").is_some());
}
