//! `vatcar-site serve` where the webmaster looks (issue 24, item 6): a port that is taken
//! fails before anything is built, naming `--port`; a failed rebuild is shown in the open
//! pages until the next good build. The page's side runs in Chromium
//! (tests/browser/serve-overlay.mjs), skipped with a message where Chromium is absent.

use crate::support::browser::{Browser, browser_or_skip};
use crate::support::http::{Serving, connect, get, parse};
use crate::support::{run, vatcar};
use std::fs;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

#[test]
fn serve_on_a_taken_port_fails_before_building_and_names_the_port_flag() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let tmp = tempfile::tempdir().unwrap();
    let ran = run(
        vatcar(&["serve", "--demo", "--port", &port, "--output", "site"]).current_dir(tmp.path()),
    );
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    assert!(
        ran.stderr.contains(&format!(
            "error: port {port} of 127.0.0.1 is taken (is another vatcar-site serve running?); choose another with --port"
        )),
        "{}",
        ran.stderr
    );
    // Nothing was read or built.
    assert!(!ran.stderr.contains("controllers"), "{}", ran.stderr);
    assert!(!tmp.path().join("site").exists());
}

/// A site folder being served: one page, `content/join.md`.
struct Site {
    serving: Serving,
    dir: tempfile::TempDir,
}

const GOOD: &str = "+++\ntitle = \"Join us\"\n+++\nSee the [roster](@/roster).\n";

fn serve_site() -> Site {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("vatcar-site.toml"), "").unwrap();
    fs::create_dir_all(dir.path().join("content")).unwrap();
    fs::write(dir.path().join("content/join.md"), GOOD).unwrap();
    let serving = Serving::start(
        vatcar(&["serve", "--demo", "--port", "0", "--output", "site"]).current_dir(dir.path()),
    );
    Site { serving, dir }
}

fn body(port: u16, target: &str) -> String {
    let answer = get(port, target);
    assert_eq!(answer.status, 200, "{}", answer.text);
    answer.text.split_once("\r\n\r\n").unwrap().1.to_owned()
}

/// What a page's script does: polls from `since` until the generation is another. The
/// deadline only keeps a broken server from hanging the test.
fn next_generation(port: u16, since: &str) -> String {
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    loop {
        let mut stream = connect(port);
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        write!(
            stream,
            "GET /__vatcar-site/changes?since={since} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut raw = Vec::new();
        std::io::Read::read_to_end(&mut stream, &mut raw).unwrap();
        let answer = parse(&raw);
        let now = answer
            .text
            .split_once("\r\n\r\n")
            .unwrap()
            .1
            .trim()
            .to_owned();
        if now != since {
            return now;
        }
        assert!(std::time::Instant::now() < deadline, "no signal");
    }
}

#[test]
fn a_failed_rebuild_is_signalled_with_its_errors_and_the_next_good_build_clears_them() {
    let site = serve_site();
    let port = site.serving.port;
    let page = site.dir.path().join("content/join.md");
    assert_eq!(body(port, "/__vatcar-site/errors"), "");
    let first = body(port, "/__vatcar-site/changes");

    let mark = site.serving.mark();
    fs::write(
        &page,
        "+++\ntitle = \"Join us\"\n+++\n[a](@/rostr) [b](@/nowhere.md)\n",
    )
    .unwrap();
    let failed = next_generation(port, first.trim());
    site.serving
        .printed(mark, "still serving the last good build");
    let errors = body(port, "/__vatcar-site/errors");
    assert!(
        errors.starts_with("2 problems with the site's pages:"),
        "{errors}"
    );
    assert!(errors.contains("join.md:4:1: link @/rostr: the site has no page or file @/rostr; did you mean `@/roster`?"), "{errors}");
    assert!(
        errors.contains("join.md:4:14: link @/nowhere.md"),
        "{errors}"
    );
    // The last good site is still what is served.
    assert!(body(port, "/join/").contains("href=\"../roster/\""));

    // Put back as it was: the site is unchanged, and the pages reload all the same.
    fs::write(&page, GOOD).unwrap();
    let good = next_generation(port, &failed);
    assert_ne!(good, failed);
    assert_eq!(body(port, "/__vatcar-site/errors"), "");
}

#[test]
fn the_open_page_shows_a_failed_rebuilds_errors_and_clears_them_in_chromium() {
    let Some(Browser { tools, chromium }) = browser_or_skip() else {
        return;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/serve-overlay.mjs");
    let ran = run(std::process::Command::new("node")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_vatcar-site"))
        .arg(&tools)
        .arg(chromium));
    assert!(ran.status.success(), "{}", ran.text());
    assert!(ran.stdout.contains("serve-overlay: ok"), "{}", ran.text());
}
