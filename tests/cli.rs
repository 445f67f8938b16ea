//! The real binary, run as a webmaster's CI job would run it.

mod support;

use std::fs;
use std::path::Path;
use std::process::{Command, Output};
use support::{MockServer, Reply, demo_api, demo_body, tree, vatcar};

const KEY: &str = "cli-s3cret-key-0123456789";

fn run(command: &mut Command) -> (Output, String) {
    let output = command.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output, text)
}

fn assert_key_absent(dir: &Path) {
    for (path, bytes) in tree(dir) {
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains(KEY), "{path} holds the API key");
    }
}

#[test]
fn demo_builds_with_no_network_and_no_key() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let (output, text) = run(&mut vatcar(&[
        "build",
        "--demo",
        "--output",
        out.to_str().unwrap(),
    ]));
    assert!(output.status.success(), "{text}");
    let index = fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("San Juan CERAP"), "{index}");
    assert!(text.contains("built "), "{text}");
}

#[test]
fn fetch_saves_the_bodies_exactly_as_served_and_without_the_key() {
    let server = demo_api();
    let tmp = tempfile::tempdir().unwrap();
    let snap = tmp.path().join("snap");
    let (output, text) = run(vatcar(&["fetch", "--output", snap.to_str().unwrap()])
        .env("VATCAR_API_KEY", KEY)
        .env("VATCAR_BASE_URL", server.url()));
    assert!(output.status.success(), "{text}");
    for file in [
        "facility-roster.json",
        "facility-events.json",
        "facility-documents.json",
        "division-events.json",
    ] {
        assert_eq!(
            fs::read(snap.join(file)).unwrap(),
            demo_body(file),
            "{file}"
        );
    }
    let manifest = fs::read_to_string(snap.join("snapshot.json")).unwrap();
    assert!(manifest.contains(&server.url()), "{manifest}");
    assert_key_absent(&snap);
    assert!(
        server
            .log()
            .iter()
            .all(|r| r.headers.get("api_key").map(String::as_str) == Some(KEY))
    );
}

#[test]
fn a_saved_snapshot_builds_the_same_site_as_the_network() {
    let server = demo_api();
    let tmp = tempfile::tempdir().unwrap();
    let (snap, live, offline) = (
        tmp.path().join("snap"),
        tmp.path().join("live"),
        tmp.path().join("offline"),
    );
    let (output, text) = run(vatcar(&[
        "build",
        "--base-url",
        &server.url(),
        "--save-snapshot",
        snap.to_str().unwrap(),
        "--output",
        live.to_str().unwrap(),
    ])
    .env("VATCAR_API_KEY", KEY)
    .env("SOURCE_DATE_EPOCH", "1795000000"));
    assert!(output.status.success(), "{text}");
    let requests = server.log().len();
    let (output, text) = run(vatcar(&[
        "build",
        "--snapshot",
        snap.to_str().unwrap(),
        "--output",
        offline.to_str().unwrap(),
    ])
    .env("SOURCE_DATE_EPOCH", "1795000000"));
    assert!(output.status.success(), "{text}");
    assert_eq!(
        server.log().len(),
        requests,
        "the snapshot build used the network"
    );
    let (live_tree, offline_tree) = (tree(&live), tree(&offline));
    assert!(!live_tree.is_empty());
    // Same pages, same bytes (the footer names the source, so compare everything else).
    assert_eq!(
        live_tree.keys().collect::<Vec<_>>(),
        offline_tree.keys().collect::<Vec<_>>()
    );
    for (path, bytes) in &live_tree {
        let a = String::from_utf8_lossy(bytes).replace("the VATCAR API", "SOURCE");
        let b = String::from_utf8_lossy(&offline_tree[path]).replace("a saved snapshot", "SOURCE");
        assert_eq!(a, b, "{path} differs");
    }
    assert_key_absent(&snap);
    assert_key_absent(&live);
}

#[test]
fn a_failed_fetch_leaves_the_previous_site_exactly_as_it_was() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let (output, text) = run(&mut vatcar(&[
        "build",
        "--demo",
        "--output",
        out.to_str().unwrap(),
    ]));
    assert!(output.status.success(), "{text}");
    let before = tree(&out);
    let siblings_before: Vec<_> = fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();

    let server = demo_api();
    server.route(
        "/api/v2/division/events",
        vec![Reply::json(500, format!(r#"{{"error":"boom {KEY}"}}"#))],
    );
    let (output, text) = run(vatcar(&[
        "build",
        "--output",
        out.to_str().unwrap(),
        "--timeout",
        "5",
        "-vv",
    ])
    .env("VATCAR_API_KEY", KEY)
    .env("VATCAR_BASE_URL", server.url()));
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(
        text.contains(
            "error: GET /api/v2/division/events: the server answered HTTP 500: boom [REDACTED]"
        ),
        "{text}"
    );
    assert!(!text.contains(KEY), "{text}");
    support::assert_same_files(&tree(&out), &before);
    let siblings_after: Vec<_> = fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        siblings_after, siblings_before,
        "stray files beside the output"
    );
}

#[test]
fn bad_data_fails_the_build_before_the_output_is_touched() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    run(&mut vatcar(&[
        "build",
        "--demo",
        "--output",
        out.to_str().unwrap(),
    ]));
    let before = tree(&out);
    let server = demo_api();
    server.route(
        "/api/v2/facility/events",
        vec![Reply::ok(
            r#"{"success":"ok","data":[{"id":5,"name":"x","start":"tomorrow"}]}"#,
        )],
    );
    let (output, text) = run(vatcar(&["build", "--output", out.to_str().unwrap()])
        .env("VATCAR_API_KEY", KEY)
        .env("VATCAR_BASE_URL", server.url()));
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains("data[0] (event 5), field `start`"), "{text}");
    support::assert_same_files(&tree(&out), &before);
}

#[test]
fn every_failing_endpoint_is_reported_and_the_key_never_printed() {
    let server = MockServer::start();
    for endpoint in ["roster", "events", "documents"] {
        server.route(
            &format!("/api/v2/facility/{endpoint}"),
            vec![Reply::json(
                401,
                format!(r#"{{"error":"Invalid key {KEY}"}}"#),
            )],
        );
    }
    server.route(
        "/api/v2/division/events",
        vec![Reply::ok("<html>oops</html>").header("Content-Type", "text/html")],
    );
    let tmp = tempfile::tempdir().unwrap();
    let (output, text) = run(&mut vatcar(&[
        "build",
        "-vv",
        "--output",
        tmp.path().join("o").to_str().unwrap(),
        "--api-key",
        KEY,
        "--base-url",
        &server.url(),
    ]));
    assert_eq!(output.status.code(), Some(1));
    assert!(text.contains("4 endpoints failed"), "{text}");
    assert_eq!(
        text.matches("the API key was rejected (HTTP 401)").count(),
        3,
        "{text}"
    );
    assert!(text.contains("expected JSON but got text/html"), "{text}");
    assert!(!text.contains(KEY), "{text}");
    assert!(!tmp.path().join("o").exists());
}

#[test]
fn no_key_is_a_clear_error_and_nothing_is_requested() {
    let server = demo_api();
    let tmp = tempfile::tempdir().unwrap();
    let (output, text) = run(&mut vatcar(&[
        "build",
        "--base-url",
        &server.url(),
        "--output",
        tmp.path().join("o").to_str().unwrap(),
    ]));
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text.starts_with("error: no API key: set VATCAR_API_KEY"),
        "{text}"
    );
    assert!(server.log().is_empty());
}

#[test]
fn usage_errors_exit_2() {
    let (output, _) = run(&mut vatcar(&["build", "--demo", "--snapshot", "x"]));
    assert_eq!(output.status.code(), Some(2));
    let (output, _) = run(&mut vatcar(&["build", "--timeout", "-1"]));
    assert_eq!(output.status.code(), Some(2));
    let (output, _) = run(&mut vatcar(&["frobnicate"]));
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn the_key_from_the_environment_is_not_shown_in_help() {
    let (output, text) = run(vatcar(&["build", "--help"]).env("VATCAR_API_KEY", KEY));
    assert!(output.status.success());
    assert!(text.contains("--api-key"));
    assert!(!text.contains(KEY), "{text}");
}

#[test]
fn a_foreign_output_folder_is_refused_without_force() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("notes.txt"), "mine").unwrap();
    let (output, text) = run(&mut vatcar(&[
        "build",
        "--demo",
        "--output",
        tmp.path().to_str().unwrap(),
    ]));
    assert_eq!(output.status.code(), Some(1));
    assert!(text.contains("not written by vatcar-site"), "{text}");
    assert!(text.contains("--force"), "{text}");
    let (output, text) = run(&mut vatcar(&[
        "build",
        "--demo",
        "--force",
        "--output",
        tmp.path().to_str().unwrap(),
    ]));
    assert!(output.status.success(), "{text}");
    assert_eq!(
        fs::read_to_string(tmp.path().join("notes.txt")).unwrap(),
        "mine"
    );
}

#[test]
fn a_key_too_short_to_keep_secret_is_refused_before_any_request() {
    for key in ["e", "a", "t", "1", "0123456789abcde"] {
        let server = demo_api();
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("o");
        let (output, text) = run(vatcar(&[
            "build",
            "--base-url",
            &server.url(),
            "--output",
            out.to_str().unwrap(),
        ])
        .env("VATCAR_API_KEY", key));
        assert_eq!(output.status.code(), Some(2), "{key}: {text}");
        assert!(
            text.starts_with(&format!(
                "error: the API key is {} characters long; vatcar-site refuses keys shorter than 16",
                key.len()
            )),
            "{text}"
        );
        assert!(server.log().is_empty(), "{key}: a request was made");
        assert!(!out.exists());
    }
}

#[test]
fn check_scrubs_an_echo_of_the_key_escaped_as_unicode_from_stdout() {
    let unicode = support::unicode_escaped(KEY);
    for status in [200, 422] {
        let server = demo_api();
        server.route(
            "/api/v2/facility/roster",
            vec![Reply::json(
                status,
                format!(r#"{{"error": "Invalid API key {unicode}"}}"#),
            )],
        );
        // A body that decodes badly, quoting the key back in the decoder's message.
        server.route(
            "/api/v2/division/events",
            vec![Reply::ok(format!(
                r#"{{"success": true, "data": "{unicode}"}}"#
            ))],
        );
        let (output, text) =
            run(vatcar(&["check", "--base-url", &server.url()]).env("VATCAR_API_KEY", KEY));
        assert_eq!(output.status.code(), Some(1), "{text}");
        assert!(text.contains("FAIL  GET /api/v2/facility/roster"), "{text}");
        assert!(!text.contains(KEY) && !text.contains(&unicode), "{text}");
        assert!(text.contains("[REDACTED]"), "{text}");
    }
}

#[test]
fn a_config_error_never_echoes_the_value_of_api_key() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("vatcar-site.toml");
    for text in [
        "api_key = 98765432123456789\nunknown = 1\n",
        "api_key = 98765432123456789\n",
        "api_key = 98765432123456789abc\n",
    ] {
        fs::write(&config, text).unwrap();
        let (output, stderr) = run(&mut vatcar(&[
            "--config",
            config.to_str().unwrap(),
            "build",
            "--demo",
            "--output",
            tmp.path().join("o").to_str().unwrap(),
        ]));
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("vatcar-site.toml:"), "{stderr}");
        assert!(!stderr.contains("98765432"), "{text:?} echoed: {stderr}");
    }
}
