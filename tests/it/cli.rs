//! The real binary, run as a webmaster's CI job would run it.
//!
//! Expected messages spell out `GET /api/v2/...` on purpose: that is what the webmaster reads.

use crate::support::{
    AgainstMock, KEY, MockServer, Reply, assert_key_absent, assert_same_files, demo_api, demo_body,
    demo_epoch, run, run_ok, tree, unicode_escaped, vatcar,
};
use std::fs;
use vatcar_site::fetch::endpoint::Endpoint;

#[test]
fn demo_builds_with_no_network_and_no_key() {
    // Every address the program could reach (the API, the bookings list, and through a proxy
    // any other host) leads to a mock that records what it is asked, and a key is set.
    let recorder = MockServer::start();
    let reaching = |command: &mut std::process::Command| {
        for proxy in [
            "HTTP_PROXY",
            "HTTPS_PROXY",
            "ALL_PROXY",
            "http_proxy",
            "https_proxy",
        ] {
            command.env(proxy, recorder.url());
        }
        command
            .env("VATCAR_BASE_URL", recorder.url())
            .env(
                "VATCAR_BOOKINGS_URL",
                format!("{}/api/booking", recorder.url()),
            )
            .env("VATCAR_API_KEY", KEY)
            .env("VATCAR_BANNERS", "local");
    };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let mut demo = vatcar(&["build", "--demo", "--output", out.to_str().unwrap()]);
    reaching(&mut demo);
    let text = run_ok(&mut demo).text();
    let index = fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("San Juan CERAP"), "{index}");
    assert!(text.contains("built "), "{text}");
    assert!(
        recorder.log().is_empty(),
        "the demo asked {:?}",
        recorder.log().iter().map(|r| &r.target).collect::<Vec<_>>()
    );
    assert_key_absent(&out);
    assert!(!text.contains(KEY));
    // The same set-up does see a build that reads the API: the recorder records.
    let mut real = vatcar(&[
        "build",
        "--output",
        tmp.path().join("real").to_str().unwrap(),
    ]);
    reaching(&mut real);
    run(&mut real);
    assert!(!recorder.log().is_empty(), "the recorder saw no request");
}

#[test]
fn fetch_saves_the_bodies_exactly_as_served_and_without_the_key() {
    let server = demo_api();
    let tmp = tempfile::tempdir().unwrap();
    let snap = tmp.path().join("snap");
    run_ok(vatcar(&["fetch", "--output", snap.to_str().unwrap()]).against(&server));
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
    run_ok(
        vatcar(&[
            "build",
            "--base-url",
            &server.url(),
            "--save-snapshot",
            snap.to_str().unwrap(),
            "--output",
            live.to_str().unwrap(),
        ])
        .env("VATCAR_API_KEY", KEY)
        .env("SOURCE_DATE_EPOCH", demo_epoch()),
    );
    let requests = server.log().len();
    run_ok(
        vatcar(&[
            "build",
            "--snapshot",
            snap.to_str().unwrap(),
            "--output",
            offline.to_str().unwrap(),
        ])
        .env("SOURCE_DATE_EPOCH", demo_epoch()),
    );
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
    run_ok(&mut vatcar(&[
        "build",
        "--demo",
        "--output",
        out.to_str().unwrap(),
    ]));
    let before = tree(&out);
    let siblings_before: Vec<_> = fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();

    let server = demo_api();
    server.reply(
        Endpoint::DivisionEvents,
        Reply::json(500, format!(r#"{{"error":"boom {KEY}"}}"#)),
    );
    let ran = run(vatcar(&[
        "build",
        "--output",
        out.to_str().unwrap(),
        "--timeout",
        "5",
        "-vv",
    ])
    .against(&server));
    let text = ran.text();
    assert_eq!(ran.code(), Some(1), "{text}");
    assert!(
        text.contains(
            "error: GET /api/v2/division/events: the server answered HTTP 500: boom [REDACTED]"
        ),
        "{text}"
    );
    assert!(!text.contains(KEY), "{text}");
    assert_same_files(&tree(&out), &before);
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
    run_ok(&mut vatcar(&[
        "build",
        "--demo",
        "--output",
        out.to_str().unwrap(),
    ]));
    let before = tree(&out);
    let server = demo_api();
    server.reply(
        Endpoint::FacilityEvents,
        Reply::ok(r#"{"success":"ok","data":[{"id":5,"name":"x","start":"tomorrow"}]}"#),
    );
    let ran = run(vatcar(&["build", "--output", out.to_str().unwrap()]).against(&server));
    let text = ran.text();
    assert_eq!(ran.code(), Some(1), "{text}");
    assert!(text.contains("data[0] (event 5), field `start`"), "{text}");
    assert_same_files(&tree(&out), &before);
}

#[test]
fn every_failing_endpoint_is_reported_and_the_key_never_printed() {
    let server = MockServer::start();
    for endpoint in [
        Endpoint::FacilityRoster,
        Endpoint::FacilityEvents,
        Endpoint::FacilityDocuments,
    ] {
        server.reply(
            endpoint,
            Reply::json(401, format!(r#"{{"error":"Invalid key {KEY}"}}"#)),
        );
    }
    server.reply(
        Endpoint::DivisionEvents,
        Reply::ok("<html>oops</html>").header("Content-Type", "text/html"),
    );
    let tmp = tempfile::tempdir().unwrap();
    let ran = run(&mut vatcar(&[
        "build",
        "-vv",
        "--output",
        tmp.path().join("o").to_str().unwrap(),
        "--api-key",
        KEY,
        "--base-url",
        &server.url(),
    ]));
    let text = ran.text();
    assert_eq!(ran.code(), Some(1));
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
    let ran = run(&mut vatcar(&[
        "build",
        "--base-url",
        &server.url(),
        "--output",
        tmp.path().join("o").to_str().unwrap(),
    ]));
    let text = ran.text();
    assert_eq!(ran.code(), Some(1));
    assert!(
        text.starts_with("error: no API key: set VATCAR_API_KEY"),
        "{text}"
    );
    assert!(server.log().is_empty());
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["build", "--demo", "--snapshot", "x"][..],
        &["build", "--timeout", "-1"],
        &["frobnicate"],
    ] {
        assert_eq!(run(&mut vatcar(args)).code(), Some(2), "{args:?}");
    }
}

#[test]
fn the_key_from_the_environment_is_not_shown_in_help() {
    let ran = run(vatcar(&["build", "--help"]).env("VATCAR_API_KEY", KEY));
    let text = ran.text();
    assert!(ran.status.success());
    assert!(text.contains("--api-key"));
    assert!(!text.contains(KEY), "{text}");
}

/// The output folder is vatcar-site's: one it did not make is refused, saying where the
/// webmaster's own files belong; with --force it is replaced and kept beside, nothing deleted.
#[test]
fn a_foreign_output_folder_is_refused_without_force() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("notes.txt"), "mine").unwrap();
    let ran = run(&mut vatcar(&[
        "build",
        "--demo",
        "--output",
        tmp.path().to_str().unwrap(),
    ]));
    let text = ran.text();
    assert_eq!(ran.code(), Some(1));
    assert!(
        text.contains("was not made by vatcar-site: notes.txt"),
        "{text}"
    );
    assert!(
        text.contains("belong in the site folder's static/"),
        "{text}"
    );
    assert!(text.contains("--force"), "{text}");
    run_ok(&mut vatcar(&[
        "build",
        "--demo",
        "--force",
        "--output",
        tmp.path().to_str().unwrap(),
    ]));
    assert!(tmp.path().join("index.html").is_file());
    let kept: Vec<_> = fs::read_dir(tmp.path().parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with(&format!(
                "{}.old-",
                tmp.path().file_name().unwrap().to_string_lossy()
            ))
        })
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(
        fs::read_to_string(kept[0].join("notes.txt")).unwrap(),
        "mine"
    );
    fs::remove_dir_all(&kept[0]).unwrap();
}

#[test]
fn a_key_too_short_to_keep_secret_is_refused_before_any_request() {
    for key in ["e", "a", "t", "1", "0123456789abcde"] {
        let server = demo_api();
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("o");
        let ran = run(vatcar(&[
            "build",
            "--base-url",
            &server.url(),
            "--output",
            out.to_str().unwrap(),
        ])
        .env("VATCAR_API_KEY", key));
        let text = ran.text();
        assert_eq!(ran.code(), Some(2), "{key}: {text}");
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
    let unicode = unicode_escaped(KEY);
    for status in [200, 422] {
        let server = demo_api();
        server.reply(
            Endpoint::FacilityRoster,
            Reply::json(
                status,
                format!(r#"{{"error": "Invalid API key {unicode}"}}"#),
            ),
        );
        // A body that decodes badly, quoting the key back in the decoder's message.
        server.reply(
            Endpoint::DivisionEvents,
            Reply::ok(format!(r#"{{"success": true, "data": "{unicode}"}}"#)),
        );
        let ran = run(vatcar(&["check", "--base-url", &server.url()]).env("VATCAR_API_KEY", KEY));
        let text = ran.text();
        assert_eq!(ran.code(), Some(1), "{text}");
        assert!(text.contains("FAIL  GET /api/v2/facility/roster"), "{text}");
        assert!(!text.contains(KEY) && !text.contains(&unicode), "{text}");
        assert!(text.contains("[REDACTED]"), "{text}");
    }
}

/// End to end, as the binary prints it (the forms of the mistake are the unit test
/// `settings::tests::the_value_of_api_key_is_never_echoed`).
#[test]
fn a_config_error_never_echoes_the_value_of_api_key() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("vatcar-site.toml");
    fs::write(&config, "api_key = 98765432123456789\nunknown = 1\n").unwrap();
    let ran = run(&mut vatcar(&[
        "--config",
        config.to_str().unwrap(),
        "build",
        "--demo",
        "--output",
        tmp.path().join("o").to_str().unwrap(),
    ]));
    let printed = ran.text();
    assert_eq!(ran.code(), Some(2), "{printed}");
    assert!(printed.contains("vatcar-site.toml:1: api_key"), "{printed}");
    assert!(!printed.contains("98765432"), "echoed: {printed}");
}

/// Only the commands that use the config file read it: a broken one in the working folder
/// stops neither `completions` nor `templates export`.
#[test]
fn commands_that_use_no_config_run_beside_a_broken_one() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("vatcar-site.toml"), "[[[ not toml\n").unwrap();
    let ran = run_ok(vatcar(&["completions", "bash"]).current_dir(tmp.path()));
    assert!(ran.stdout.contains("_vatcar__site"), "{}", ran.text());
    run_ok(vatcar(&["templates", "export", "theme"]).current_dir(tmp.path()));
    assert!(tmp.path().join("theme/base.html").is_file());
    // Those that do use it still refuse it.
    let ran = run(vatcar(&["build", "--demo"]).current_dir(tmp.path()));
    assert_eq!(ran.code(), Some(2), "{}", ran.text());
    assert!(
        ran.stderr.starts_with("error: vatcar-site.toml:1:"),
        "{}",
        ran.stderr
    );
}

/// `check` names each failure once, in its table (issue 50): not a "failed: facility roster"
/// line as well, which told nothing the table does not.
#[test]
fn check_names_each_failed_endpoint_once() {
    let server = demo_api();
    server.reply(Endpoint::FacilityRoster, Reply::status(404));
    server.reply(Endpoint::DivisionEvents, Reply::ok("not json"));
    let ran = run(vatcar(&["check", "--base-url", &server.url()]).env("VATCAR_API_KEY", KEY));
    let text = ran.text();
    assert_eq!(ran.code(), Some(1), "{text}");
    for (label, path) in [
        ("facility roster", "/api/v2/facility/roster"),
        ("division events", "/api/v2/division/events"),
    ] {
        assert_eq!(text.matches(label).count(), 0, "{label}: {text}");
        assert_eq!(
            text.matches(&format!("FAIL  GET {path}")).count(),
            1,
            "{text}"
        );
    }
    assert!(text.contains("ok    GET /api/v2/facility/events"), "{text}");
}

/// `--bookings-url` and `--banners` are offered by the commands that read the bookings list
/// and the banners, and by no other (issue 50: `report training --help` listed the one, and
/// went on listing the other, which it never read).
#[test]
fn only_the_commands_that_read_the_bookings_list_and_banners_offer_their_flags() {
    for (command, offered) in [
        (&["build"][..], true),
        (&["serve"], true),
        (&["fetch"], true),
        (&["check"], false),
        (&["report", "training"], false),
        (&["report", "roster"], false),
        (&["report", "activity"], false),
    ] {
        let ran = run_ok(vatcar(command).arg("--help"));
        for flag in ["--bookings-url", "--banners"] {
            assert_eq!(
                ran.stdout.contains(flag),
                offered,
                "{command:?} {flag}: {}",
                ran.stdout
            );
        }
    }
}

/// `check` with no key says so, once, before any request: not "the key from nowhere".
#[test]
fn check_without_a_key_says_so_before_any_request() {
    let server = demo_api();
    let ran = run(&mut vatcar(&["check", "--base-url", &server.url()]));
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    assert!(
        ran.stderr
            .starts_with("error: no API key: set VATCAR_API_KEY or pass --api-key"),
        "{}",
        ran.stderr
    );
    assert!(!ran.text().contains("nowhere"), "{}", ran.text());
    assert!(server.log().is_empty(), "a request was made");
}

/// `build -v`: a line per stage of the pipeline, in order, each with its time (whose values
/// are the benchmark's business); `-vv` adds the peak memory so far.
#[test]
fn verbose_build_prints_each_stage_with_its_time() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let build = |verbose: &str| {
        run_ok(&mut vatcar(&[
            "build",
            "--demo",
            verbose,
            "--output",
            out.to_str().unwrap(),
        ]))
        .stderr
    };
    let stages = |stderr: &str| -> Vec<(String, bool)> {
        stderr
            .lines()
            .filter_map(|line| {
                let (stage, rest) = line.strip_prefix("info: stage ")?.split_once(": ")?;
                let (time, peak) = rest.split_once(" ms").unwrap_or((rest, ""));
                assert!(time.parse::<u64>().is_ok(), "{line}");
                Some((
                    stage.to_owned(),
                    peak.starts_with(", peak ") && peak.ends_with(" MiB"),
                ))
            })
            .collect()
    };
    // The demo shows [activity] from its sample of sessions.
    let names = [
        "load", "decode", "banners", "activity", "view", "render", "publish",
    ];
    let brief = stages(&build("-v"));
    assert_eq!(
        brief.iter().map(|(s, _)| s.as_str()).collect::<Vec<_>>(),
        names
    );
    assert!(
        brief.iter().all(|(_, peak)| !peak),
        "-v alone tells no memory: {brief:?}"
    );
    let full = stages(&build("-vv"));
    assert_eq!(
        full.iter().map(|(s, _)| s.as_str()).collect::<Vec<_>>(),
        names
    );
    if cfg!(target_os = "linux") {
        assert!(full.iter().all(|(_, peak)| *peak), "{full:?}");
    }
}
