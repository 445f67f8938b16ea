//! The live page at build time (issue 39): the ATC bookings list read once, kept to our
//! callsigns and to what has not ended, shown by day on `live/` and published as
//! `calendar/bookings.ics`; a list that cannot be read is a warning, and the page says so.
//! The bookings API and the data feed are mocks on 127.0.0.1 (`support::live`).

use crate::support::live::{booking, bookings_server, bookings_url};
use crate::support::mock::BOOKINGS_PATH;
use crate::support::{
    AgainstMock, KEY, MockServer, Ran, Reply, assert_key_absent, demo_api, demo_snapshot_copy,
    page, run, site_folder, texts, vatcar, vatcar_at_demo_time,
};
use icalendar::{CalendarComponent, Component};
use serde_json::{Value, json};
use std::fs;
use std::path::{Path, PathBuf};

const SITE: &str = "https://tjzs.example.org/";

/// The bookings of the tests below, against the demo's time (2026-11-20 12:00Z) and roster.
fn listed() -> Value {
    json!([
        // Ended this morning: the server still lists the day's bookings.
        booking(1, json!(1590318), "booking", "TJSJ_APP", "2026-11-20 08:00:00", "2026-11-20 10:00:00"),
        // Going on now, by a member (cid as a number).
        booking(2, json!(1590318), "booking", "TJSJ_APP", "2026-11-20 11:00:00", "2026-11-20 14:00:00"),
        // Tonight, the cid as a string, an exam.
        booking(3, json!("1612745"), "exam", "TJSJ_I_TWR", "2026-11-20 23:00:00", "2026-11-21 01:30:00"),
        // Tomorrow, by someone not on the roster.
        booking(4, json!(1299001), "training", "TJZS_CTR", "2026-11-21 18:00:00", "2026-11-21 20:00:00"),
        // Not ours: another prefix that starts like ours, and another facility.
        booking(5, json!(1234567), "booking", "TJSJX_TWR", "2026-11-20 20:00:00", "2026-11-20 22:00:00"),
        booking(6, json!(1234568), "booking", "TNCM_TWR", "2026-11-20 20:00:00", "2026-11-20 22:00:00"),
        // No cid at all, and a field nobody documented.
        {"id": null, "cid": null, "type": null, "callsign": "TJSJ_GND", "start": "2026-11-22 12:00:00",
         "end": "2026-11-22 13:00:00", "division": null, "subdivision": null, "extra": [1, 2]},
    ])
}

const CONFIG: &str = "[live]\ncallsigns = [\"TJSJ\", \"TJZS\"]\nairports = [\"TJSJ\"]\n";

/// A build from the mock API (the demo's data) at the demo's time, with `config`, reading the
/// bookings list of `bookings`; the run and the output folder.
fn build_with(
    config: &str,
    bookings: &MockServer,
    extra: &[&str],
) -> (Ran, PathBuf, tempfile::TempDir) {
    let api = demo_api();
    let site = site_folder(config, &[]);
    let out = site.path().join("public");
    let config = site.path().join("vatcar-site.toml");
    let mut args = vec![
        "build",
        "--config",
        config.to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
        "--site-url",
        SITE,
    ];
    args.extend_from_slice(extra);
    let mut command = vatcar_at_demo_time(&args);
    command
        .against(&api)
        .env("VATCAR_BOOKINGS_URL", bookings_url(bookings));
    let ran = run(&mut command);
    (ran, out, site)
}

/// Every VEVENT of a calendar file, as an independent parser reads it: UID and SUMMARY.
fn events(path: &Path) -> Vec<(String, String)> {
    let text = fs::read_to_string(path).unwrap();
    let calendar: icalendar::Calendar = text.parse().unwrap();
    calendar
        .components
        .iter()
        .filter_map(|c| match c {
            CalendarComponent::Event(e) => Some((
                e.get_uid().unwrap().to_owned(),
                e.get_summary().unwrap().to_owned(),
            )),
            _ => None,
        })
        .collect()
}

#[test]
fn our_bookings_that_have_not_ended_are_shown_by_day_with_the_rosters_names() {
    let bookings = bookings_server(Reply::ok(listed().to_string()));
    let (ran, out, _site) = build_with(CONFIG, &bookings, &[]);
    assert!(ran.status.success(), "{}", ran.text());
    assert!(!ran.stderr.contains("Live:"), "{}", ran.stderr);

    let (text, html) = page(&out.join("live/index.html"));
    // One table, a row group headed by each day, so that the columns line up.
    assert_eq!(texts(&html, ".live-bookings table").len(), 1);
    assert_eq!(
        texts(&html, ".live-bookings tbody th[scope=rowgroup]"),
        ["Friday 20 Nov", "Saturday 21 Nov", "Sunday 22 Nov"]
    );
    let rows = texts(&html, ".live-bookings tr[data-booking]");
    assert_eq!(rows.len(), 4, "{rows:#?}");
    assert!(
        rows[0].starts_with("TJSJ_APP online now 2026-11-20 11:00Z – 14:00Z"),
        "{}",
        rows[0]
    );
    assert!(rows[0].ends_with("Booking Tyrone Gumbs S2"), "{}", rows[0]);
    assert!(rows[1].starts_with("TJSJ_I_TWR"), "{}", rows[1]);
    assert!(
        rows[1].contains("2026-11-20 23:00Z – 2026-11-21 01:30Z"),
        "{}",
        rows[1]
    );
    assert!(rows[1].ends_with("Exam Valentina Ortiz S3"), "{}", rows[1]);
    assert!(
        rows[2].starts_with("TJZS_CTR") && rows[2].ends_with("Training CID 1299001"),
        "{}",
        rows[2]
    );
    assert!(
        rows[3].starts_with("TJSJ_GND") && rows[3].ends_with("Booking"),
        "{}",
        rows[3]
    );
    for gone in ["TJSJX_TWR", "TNCM_TWR", "08:00Z", "@example"] {
        assert!(!text.contains(gone), "{gone} is on the page");
    }
    assert_eq!(texts(&html, "h2#bookings .count"), ["4"]);
    // In the menu, and the calendar is offered for subscription.
    assert!(texts(&html, "nav a[aria-current=page]") == ["Live"]);
    assert!(text.contains("href=\"webcal://tjzs.example.org/calendar/bookings.ics\""));

    // The home page's block: the next 24 hours.
    let (_, home) = page(&out.join("index.html"));
    let next = texts(&home, ".live-home tbody tr");
    assert_eq!(next.len(), 2, "{next:#?}");
    assert!(next[0].starts_with("TJSJ_APP") && next[1].starts_with("TJSJ_I_TWR"));

    // One event per booking, with a stable UID and the roster's name and rating.
    assert_eq!(
        events(&out.join("calendar/bookings.ics")),
        [
            (
                "vatcar-booking-2@tjzs.example.org".to_owned(),
                "TJSJ_APP: Tyrone Gumbs (S2)".to_owned()
            ),
            (
                "vatcar-booking-3@tjzs.example.org".to_owned(),
                "TJSJ_I_TWR: Valentina Ortiz (S3)".to_owned()
            ),
            (
                "vatcar-booking-4@tjzs.example.org".to_owned(),
                "TJZS_CTR: CID 1299001".to_owned()
            ),
            (
                "vatcar-booking-TJSJ-GND-20261122T120000Z@tjzs.example.org".to_owned(),
                "TJSJ_GND".to_owned()
            ),
        ]
    );
    let footer = texts(&html, "footer a");
    assert!(
        footer.contains(&"Bookings calendar (iCal)".to_owned()),
        "{footer:?}"
    );

    // Asked once, with nothing of the facility's: no key, no other header of ours.
    let log = bookings.log();
    assert_eq!(log.len(), 1, "{log:?}");
    assert_eq!(log[0].target, BOOKINGS_PATH);
    assert!(
        log[0].headers.values().all(|v| !v.contains(KEY)),
        "{:?}",
        log[0].headers
    );
    assert!(!log[0].headers.contains_key("api_key"));
    assert_key_absent(&out);
}

#[test]
fn a_bookings_list_that_cannot_be_read_is_a_warning_and_the_page_says_so() {
    let huge = format!("[{}]", "0,".repeat(5 * 1024 * 1024) + "0");
    let cases: Vec<(Reply, &str)> = vec![
        (Reply::status(503), "answered 503"),
        (Reply::status(404), "answered 404"),
        (
            Reply::ok("<html>Bad gateway</html>"),
            "the answer is not JSON",
        ),
        (
            Reply::ok("{\"error\":\"maintenance\"}"),
            "the answer is an error, not a list of bookings: \"maintenance\"",
        ),
        (
            Reply::ok("{\"bookings\":[]}"),
            "expected a list of bookings, found an object",
        ),
        (Reply::ok(huge), "is larger than 8 MiB"),
    ];
    for (reply, reason) in cases {
        let bookings = bookings_server(reply);
        let (ran, out, _site) = build_with(CONFIG, &bookings, &[]);
        assert!(ran.status.success(), "{reason}: {}", ran.text());
        assert!(
            ran.stderr
                .contains("warning: Live: bookings are unavailable (")
                && ran.stderr.contains(reason)
                && ran
                    .stderr
                    .contains("Check [live] bookings in vatcar-site.toml (or --bookings-url), or build again later"),
            "{reason}: {}",
            ran.stderr
        );
        let (_, html) = page(&out.join("live/index.html"));
        assert_eq!(
            texts(&html, ".live-bookings .notice"),
            ["Bookings are unavailable right now."]
        );
        let (_, home) = page(&out.join("index.html"));
        assert_eq!(
            texts(&home, ".live-home .notice"),
            ["Bookings are unavailable right now."]
        );
        // The calendar is still there for subscribers, empty.
        assert!(events(&out.join("calendar/bookings.ics")).is_empty());
    }
    // Nothing listens: the same.
    let closed = MockServer::start();
    let url = format!(
        "http://127.0.0.1:{}{BOOKINGS_PATH}",
        crate::support::mock::closed_port()
    );
    let (ran, out, _site) = {
        let api = demo_api();
        let site = site_folder(CONFIG, &[]);
        let out = site.path().join("public");
        let mut command = vatcar_at_demo_time(&[
            "build",
            "--config",
            site.path().join("vatcar-site.toml").to_str().unwrap(),
            "--output",
            out.to_str().unwrap(),
            "--bookings-url",
            &url,
        ]);
        command.against(&api);
        (run(&mut command), out, site)
    };
    drop(closed);
    assert!(ran.status.success(), "{}", ran.text());
    assert!(
        ran.stderr
            .contains("Live: bookings are unavailable (could not read"),
        "{}",
        ran.stderr
    );
    assert!(out.join("live/index.html").is_file());
}

#[test]
fn records_that_cannot_be_read_are_left_out_with_a_warning_counting_them() {
    let mut list = listed();
    let items = list.as_array_mut().unwrap();
    items.push(
        json!({"id": 8, "callsign": "TJSJ_TWR", "start": "soon", "end": "2026-11-20 20:00:00"}),
    );
    items.push(json!("TJSJ_TWR"));
    let bookings = bookings_server(Reply::ok(list.to_string()));
    let (ran, out, _site) = build_with(CONFIG, &bookings, &[]);
    assert!(ran.status.success(), "{}", ran.text());
    assert!(
        ran.stderr.contains(
            "Live: 2 of the bookings list's records could not be read and are left out (the first, [7]: start \"soon\" is not a time); the others are listed"
        ),
        "{}",
        ran.stderr
    );
    let (_, html) = page(&out.join("live/index.html"));
    assert_eq!(texts(&html, ".live-bookings tr[data-booking]").len(), 4);
}

#[test]
fn hostile_bookings_are_shown_as_text_and_written_escaped() {
    let list = json!([
        booking(
            1,
            json!("<b>1</b>"),
            "<script>alert(1)</script>",
            "TJSJ_<img src=x onerror=y>",
            "2026-11-20 13:00:00",
            "2026-11-20 14:00:00"
        ),
        booking(
            2,
            json!(1590318),
            "booking",
            "TJSJ_TWR\r\nEND:VEVENT",
            "2026-11-20 13:00:00",
            "2026-11-20 14:00:00"
        ),
        booking(
            3,
            json!(1590318),
            "booking",
            &format!("TJSJ_{}", "W".repeat(10_000)),
            "2026-11-20 13:00:00",
            "2026-11-20 14:00:00"
        ),
        booking(
            4,
            json!(1590318),
            "booking",
            "TJSJ_\u{202e}RWT",
            "2026-11-20 13:00:00",
            "2026-11-20 14:00:00"
        ),
        booking(
            5,
            json!(1590318),
            "booking",
            "TJSJ_APP",
            "2026-11-20 13:00:00",
            "9999-12-31 23:00:00"
        ),
    ]);
    let bookings = bookings_server(Reply::ok(list.to_string()));
    let (ran, out, _site) = build_with(CONFIG, &bookings, &[]);
    assert!(ran.status.success(), "{}", ran.text());
    let (text, html) = page(&out.join("live/index.html"));
    assert!(
        !text.contains("<img") && !text.contains("<script>alert"),
        "markup got through"
    );
    assert!(!text.contains('\u{202e}'));
    let rows = texts(&html, ".live-bookings tr[data-booking]");
    assert_eq!(rows.len(), 3, "{rows:#?}");
    assert!(
        rows.iter()
            .any(|r| r.starts_with("TJSJ_<IMG SRC=X ONERROR=Y>")),
        "{rows:#?}"
    );
    assert!(
        rows.iter().any(|r| r.contains("<script>alert(1)</script>")),
        "{rows:#?}"
    );
    assert!(rows.iter().any(|r| r.starts_with("TJSJ_RWT")), "{rows:#?}");
    let calendar = fs::read_to_string(out.join("calendar/bookings.ics")).unwrap();
    // The line break stayed inside the summary: the event was not ended early.
    let ends = calendar
        .lines()
        .filter(|line| *line == "END:VEVENT")
        .count();
    assert_eq!(ends, 3, "{calendar}");
    assert!(
        calendar.contains("SUMMARY:TJSJ_TWR\\nEND:VEVENT: Tyrone Gumbs (S2)"),
        "{calendar}"
    );
    assert_eq!(events(&out.join("calendar/bookings.ics")).len(), 3);
}

/// The hostile snapshot's `bookings.json` (tests/fixtures/hostile/make.py), built as CI builds
/// it (scripts/ci/sites.sh, with the fixture's `live.toml`): the site builds, counting the
/// records it leaves out; the live page shows every kept value as text, never markup; and
/// `calendar/bookings.ics` keeps each booking in one event, read back whole by an independent
/// parser and, where CI's validators are installed, by CI's five iCal parsers.
#[test]
fn the_hostile_snapshots_bookings_build_and_are_escaped_in_the_page_and_the_calendar() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let ran = run(&mut vatcar_at_demo_time(&[
        "build",
        "--snapshot",
        fixture.to_str().unwrap(),
        "--config",
        fixture.join("live.toml").to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
        "--site-url",
        "https://hostile.example/",
    ]));
    assert!(ran.status.success(), "{}", ran.text());
    assert!(
        ran.stderr
            .contains("11 of the bookings list's records could not be read"),
        "{}",
        ran.stderr
    );
    let (text, html) = page(&out.join("live/index.html"));
    let section = scraper::Selector::parse(".live-bookings").unwrap();
    let bookings = html.select(&section).next().expect("the bookings");
    let markup = scraper::Selector::parse("script, img, b, [onerror]").unwrap();
    assert_eq!(bookings.select(&markup).count(), 0, "markup got through");
    assert!(
        !text.contains('\u{202e}'),
        "a right-to-left override got through"
    );
    assert!(
        !text.contains(&"W".repeat(1000)),
        "a huge string got through whole"
    );
    let rows = texts(&html, ".live-bookings tr[data-booking]");
    assert_eq!(rows.len(), 7, "{rows:#?}");
    for shown in [
        "TJSJ_<B>TWR</B>",
        "<script>alert('type')</script>",
        "\"><img src=x onerror=alert(1)> O'Brien & Sons",
        "HX_A;B,C\\D",
        "TJSJ_RWT",
        "TJSJ_GND",
        "HX_OBS",
    ] {
        assert!(
            rows.iter().any(|r| r.contains(shown)),
            "{shown:?} in {rows:#?}"
        );
    }
    assert!(!rows.iter().any(|r| r.contains("TJSJX")), "{rows:#?}");
    let path = out.join("calendar/bookings.ics");
    let calendar = fs::read_to_string(&path).unwrap();
    let begins = calendar.lines().filter(|l| *l == "BEGIN:VEVENT").count();
    assert_eq!(begins, 7, "{calendar}");
    assert!(
        calendar.lines().all(|l| l.len() <= 75),
        "a line over 75 octets"
    );
    let read = events(&path);
    assert_eq!(read.len(), 7, "{read:#?}");
    let summaries: Vec<&str> = read.iter().map(|(_, summary)| summary.as_str()).collect();
    for summary in [
        "HX_A;B,C\\D",
        "TJSJ_APP\nEND:VEVENT\nBEGIN:VEVENT",
        "TJSJ_<B>TWR</B>: \"><img src=x onerror=alert(1)> O'Brien & Sons (Unknown (99))",
    ] {
        assert!(
            summaries.contains(&summary),
            "{summary:?} in {summaries:#?}"
        );
    }
    ci_ical_parsers(&path);
}

/// CI's iCal validators (tests/validators/check-ics.sh: strict RFC 5545 and five parsers) on
/// `path`, where they are installed; skipped, saying so, where not (`VATCAR_REQUIRE_BROWSER`,
/// set where CI has installed its tools, makes that a failure).
fn ci_ical_parsers(path: &Path) {
    let validators = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/validators");
    if !validators.join("node_modules/ical.js").is_dir() || cfg!(windows) {
        assert!(
            std::env::var_os("VATCAR_REQUIRE_BROWSER").is_none(),
            "the iCal validators are not installed (bash scripts/ci/install-tools.sh)"
        );
        eprintln!("skipped: the iCal validators are not installed; .ci/run runs them");
        return;
    }
    let ran = run(std::process::Command::new("bash")
        .arg(validators.join("check-ics.sh"))
        .arg(path));
    assert!(ran.status.success(), "check-ics.sh: {}", ran.text());
}

#[test]
fn live_false_builds_no_live_page_no_calendar_no_block_and_asks_nothing() {
    let bookings = bookings_server(Reply::ok(listed().to_string()));
    let (ran, out, _site) = build_with("live = false\n", &bookings, &[]);
    assert!(ran.status.success(), "{}", ran.text());
    assert!(!out.join("live").exists());
    assert!(!out.join("calendar/bookings.ics").exists());
    let (text, html) = page(&out.join("index.html"));
    assert!(texts(&html, ".live-home").is_empty());
    assert!(!texts(&html, "nav a").contains(&"Live".to_owned()));
    assert!(!text.contains("bookings.ics") && !text.contains("Content-Security-Policy"));
    assert!(bookings.log().is_empty(), "{:?}", bookings.log());
}

#[test]
fn the_bookings_address_is_https_or_http_to_this_machine_only() {
    let site = site_folder(
        "title = \"x\"\n[live]\nbookings = \"http://bookings.example.org/api/booking\"\n",
        &[],
    );
    let ran = run(vatcar(&[
        "build",
        "--demo",
        "--config",
        site.path().join("vatcar-site.toml").to_str().unwrap(),
        "--output",
        site.path().join("public").to_str().unwrap(),
    ])
    .env_remove("VATCAR_BOOKINGS_URL"));
    assert_eq!(ran.code(), Some(2), "{}", ran.text());
    assert!(
        ran.stderr.contains(
            "vatcar-site.toml:3: live.bookings: http://bookings.example.org/api/booking is not read over plain http: the bookings list is read over https (http only on this machine); write its https address"
        ),
        "{}",
        ran.stderr
    );
    let site = site_folder(
        "[live]\nfeed = \"http://feed.example.org/v3/vatsim-data.json\"\n",
        &[],
    );
    let ran = run(&mut vatcar(&[
        "build",
        "--demo",
        "--config",
        site.path().join("vatcar-site.toml").to_str().unwrap(),
        "--output",
        site.path().join("public").to_str().unwrap(),
    ]));
    assert_eq!(ran.code(), Some(2), "{}", ran.text());
    assert!(ran.stderr.contains("vatcar-site.toml:2: live.feed: http://feed.example.org/v3/vatsim-data.json is not read over plain http: VATSIM's data feed is read over https"), "{}", ran.stderr);
    assert!(!site.path().join("public").exists());

    // Nor after a redirect: refused before it is followed.
    let bookings =
        bookings_server(Reply::status(302).header("Location", "http://192.0.2.2:8080/api/booking"));
    let (ran, out, _site) = build_with(CONFIG, &bookings, &[]);
    assert!(ran.status.success(), "{}", ran.text());
    assert!(
        ran.stderr.contains(
            "redirected to http://192.0.2.2:8080/api/booking: the bookings list is read over https (http only on this machine)"
        ),
        "{}",
        ran.stderr
    );
    let (_, html) = page(&out.join("live/index.html"));
    assert_eq!(
        texts(&html, ".live-bookings .notice"),
        ["Bookings are unavailable right now."]
    );
}

#[test]
fn a_snapshot_build_reads_its_bookings_json_and_never_the_network() {
    let snapshot = demo_snapshot_copy();
    let bookings = bookings_server(Reply::ok("[]"));
    let build = |snapshot: &Path| {
        let out = tempfile::tempdir().unwrap();
        let site = site_folder(CONFIG, &[]);
        let ran = run(vatcar_at_demo_time(&[
            "build",
            "--snapshot",
            snapshot.to_str().unwrap(),
            "--config",
            site.path().join("vatcar-site.toml").to_str().unwrap(),
            "--output",
            out.path().join("site").to_str().unwrap(),
        ])
        .env("VATCAR_BOOKINGS_URL", bookings_url(&bookings)));
        (ran, out)
    };
    fs::write(snapshot.path().join("bookings.json"), listed().to_string()).unwrap();
    let (ran, out) = build(snapshot.path());
    assert!(
        ran.status.success() && !ran.stderr.contains("Live:"),
        "{}",
        ran.text()
    );
    let (_, html) = page(&out.path().join("site/live/index.html"));
    assert_eq!(texts(&html, ".live-bookings tr[data-booking]").len(), 4);

    fs::remove_file(snapshot.path().join("bookings.json")).unwrap();
    let (ran, out) = build(snapshot.path());
    assert!(ran.status.success(), "{}", ran.text());
    assert!(
        ran.stderr
            .contains("Live: bookings are unavailable (snapshot folder")
            && ran.stderr.contains(
                "holds no bookings.json); the site is built without them and the live page says so. `vatcar-site fetch` saves the list in a snapshot, beside the API's answers"
            ),
        "{}",
        ran.stderr
    );
    let (_, html) = page(&out.path().join("site/live/index.html"));
    assert_eq!(
        texts(&html, ".live-bookings .notice"),
        ["Bookings are unavailable right now."]
    );
    assert!(bookings.log().is_empty(), "{:?}", bookings.log());
}

#[test]
fn the_bookings_fetched_go_into_a_saved_snapshot_and_fetch_saves_them_too() {
    let bookings = bookings_server(Reply::ok(listed().to_string()));
    let saved = tempfile::tempdir().unwrap();
    let snapshot = saved.path().join("snap");
    let (ran, _out, _site) = build_with(
        CONFIG,
        &bookings,
        &["--save-snapshot", snapshot.to_str().unwrap()],
    );
    assert!(ran.status.success(), "{}", ran.text());
    let kept: Value =
        serde_json::from_slice(&fs::read(snapshot.join("bookings.json")).unwrap()).unwrap();
    assert_eq!(kept, listed());

    let api = demo_api();
    let fetched = saved.path().join("fetched");
    let ran = run(vatcar(&["fetch", "--output", fetched.to_str().unwrap()])
        .against(&api)
        .env("VATCAR_BOOKINGS_URL", bookings_url(&bookings)));
    assert!(ran.status.success(), "{}", ran.text());
    let kept: Value =
        serde_json::from_slice(&fs::read(fetched.join("bookings.json")).unwrap()).unwrap();
    assert_eq!(kept, listed());
}

#[test]
fn the_demo_builds_its_own_sample_bookings_offline() {
    let out = tempfile::tempdir().unwrap();
    let bookings = bookings_server(Reply::ok("[]"));
    let ran = run(vatcar(&[
        "build",
        "--demo",
        "--output",
        out.path().join("site").to_str().unwrap(),
    ])
    .env("VATCAR_BOOKINGS_URL", bookings_url(&bookings)));
    assert!(
        ran.status.success() && !ran.stderr.contains("Live:"),
        "{}",
        ran.text()
    );
    let (_, html) = page(&out.path().join("site/live/index.html"));
    let rows = texts(&html, ".live-bookings tr[data-booking]");
    assert_eq!(rows.len(), 7, "{rows:#?}");
    assert!(
        rows.iter()
            .all(|r| !r.contains("TNCM") && !r.contains("TJSJX"))
    );
    assert!(bookings.log().is_empty());
}

/// What the page tells its script: the live block's `data-live-config`, and the address of
/// the roster it reads (`data-live-roster`).
fn script_data(html: &scraper::Html) -> Value {
    let selector = scraper::Selector::parse("[data-live]").unwrap();
    let block = html
        .select(&selector)
        .next()
        .expect("the page has a live block");
    let mut data: Value =
        serde_json::from_str(block.value().attr("data-live-config").unwrap()).unwrap();
    data["roster"] = json!(block.value().attr("data-live-roster"));
    data
}

/// The page's Content-Security-Policy.
fn csp(html: &scraper::Html) -> Vec<String> {
    let selector = scraper::Selector::parse("meta[http-equiv=Content-Security-Policy]").unwrap();
    html.select(&selector)
        .filter_map(|m| m.value().attr("content").map(str::to_owned))
        .collect()
}

/// The policy of the pages that read the feed, whose connect-src is `connect`.
fn live_policy(connect: &str) -> String {
    format!(
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' https:; connect-src {connect}; object-src 'none'; base-uri 'none'; form-action 'self'"
    )
}

/// A policy's directives as a browser reads them (CSP 3, "parse a serialized policy"): split
/// at `;`, each a name and its sources; the first of a name counts, a later one is ignored.
fn directives(policy: &str) -> std::collections::BTreeMap<String, Vec<String>> {
    let mut found = std::collections::BTreeMap::new();
    for part in policy.split(';') {
        let mut words = part.split_ascii_whitespace();
        if let Some(name) = words.next() {
            found
                .entry(name.to_ascii_lowercase())
                .or_insert_with(|| words.map(str::to_owned).collect());
        }
    }
    found
}

#[test]
fn the_pages_tell_the_script_what_to_read_and_let_it_reach_the_feed_only() {
    let bookings = bookings_server(Reply::ok(listed().to_string()));
    let config = format!("{CONFIG}feed = \"https://feed.example.org/v3/vatsim-data.json?x=1\"\n");
    let (ran, out, _site) = build_with(&config, &bookings, &[]);
    assert!(ran.status.success(), "{}", ran.text());
    for file in ["live/index.html", "index.html"] {
        let (text, html) = page(&out.join(file));
        assert_eq!(
            csp(&html),
            [live_policy("'self' https://feed.example.org")],
            "{file}"
        );
        let data = script_data(&html);
        assert_eq!(
            data["feed"],
            "https://feed.example.org/v3/vatsim-data.json?x=1"
        );
        assert_eq!(data["callsigns"], json!(["TJSJ", "TJZS"]));
        assert_eq!(data["airports"], json!(["TJSJ"]));
        // The roster's names come from the site's own public roster, not the page.
        let roster = if file == "index.html" {
            "data/roster.json"
        } else {
            "../data/roster.json"
        };
        assert_eq!(data["roster"], roster);
        // A member with no booking is not named on the page.
        assert!(!text.contains("Jada Hughes"), "{file}");
        assert_eq!(
            data["text"]["unavailable"],
            "Live data is unavailable right now. This page will try again in a few minutes."
        );
        assert_eq!(
            data["text"]["flights_other"],
            "{n} flights to or from our airports"
        );
        // Names only: no address of anyone's.
        assert!(!text.contains("@example."), "{file} holds an address");
        assert!(text.contains("static/live.js"), "{file}");
        // What the list would show, said without JavaScript.
        let noscript = texts(&html, "noscript").concat();
        assert!(
            noscript.contains("With JavaScript on, this page also shows who is controlling our positions right now, the ATIS at our airports and the flights in and out of them, read from VATSIM’s data feed."),
            "{file}: {noscript}"
        );
    }
    // Pages without the list carry no policy of their own.
    let (_, roster) = page(&out.join("roster/index.html"));
    assert!(csp(&roster).is_empty());
    assert!(out.join("static/live.js").is_file());

    // With the roster page off, the script is given no roster to read either.
    let config = format!("{config}[sections]\nroster = false\n");
    let (ran, out, _site) = build_with(&config, &bookings, &[]);
    assert!(ran.status.success(), "{}", ran.text());
    for file in ["live/index.html", "index.html"] {
        let (_, html) = page(&out.join(file));
        assert_eq!(script_data(&html)["roster"], Value::Null, "{file}");
    }
}

/// Issue 45: the feed's address goes into the pages' Content-Security-Policy, so one that
/// could add a directive to it (`https://x;script-src/…` blocked every script of the home
/// and live pages) stops the build where it is written, naming the file, line and key, and
/// saying what to write instead; `--bookings-url` is held to the same rule.
#[test]
fn a_feed_address_that_could_add_to_the_pages_policy_stops_the_build_saying_what_to_write() {
    let site = site_folder(
        "title = \"x\"\n[live]\nfeed = \"https://x;script-src/v3/vatsim-data.json\"\n",
        &[],
    );
    let (ran, out) = crate::support::build_site(site.path(), &[]);
    assert_eq!(ran.code(), Some(2), "{}", ran.text());
    assert!(
        ran.stderr.contains(
            "vatcar-site.toml:3: live.feed: \"https://x;script-src/v3/vatsim-data.json\" holds a \";\", which an address here may not hold: a host name has none, and in a path or query write it as %3B"
        ),
        "{}",
        ran.stderr
    );
    assert!(!out.exists());
    let site = site_folder("title = \"x\"\n", &[]);
    let (mut command, out) = crate::support::build_site_command(site.path(), &[]);
    let ran = run(command.env("VATCAR_BOOKINGS_URL", "https://bookings.example.org,x/"));
    assert_eq!(ran.code(), Some(2), "{}", ran.text());
    assert!(ran.stderr.contains("holds a comma"), "{}", ran.stderr);
    assert!(!out.exists());
}

/// Issue 45: the home and live pages, whose script reads a feed from elsewhere, carry a policy
/// that loads everything from the site itself but for what they need (images over https, the
/// feed), runs no inline script and no plugin, and takes no <base>; and the pages as built
/// need no more than it allows (an inline script would be blocked: there is none).
#[test]
fn the_pages_that_read_the_feed_load_only_what_they_need() {
    let site = site_folder(
        "title = \"x\"\naccent = \"#f5c400\"\nheader = \"accent\"\n[live]\nfeed = \"https://feed.example.org:8443/v3/vatsim-data.json\"\n",
        &[(
            "content/_index.md",
            b"+++\ntitle = \"Welcome\"\n+++\nWelcome.\n\n![A tower](https://images.example.org/tower.jpg)\n",
        )],
    );
    let (ran, out) = crate::support::build_site(site.path(), &[]);
    assert!(ran.status.success(), "{}", ran.text());
    let words = |list: &[&str]| list.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>();
    for file in ["index.html", "live/index.html"] {
        let (_, html) = page(&out.join(file));
        let policies = csp(&html);
        assert_eq!(policies.len(), 1, "{file}: {policies:?}");
        let policy = directives(&policies[0]);
        assert_eq!(policy["default-src"], words(&["'self'"]), "{file}");
        assert_eq!(policy["script-src"], words(&["'self'"]), "{file}");
        assert_eq!(policy["object-src"], words(&["'none'"]), "{file}");
        assert_eq!(policy["base-uri"], words(&["'none'"]), "{file}");
        assert_eq!(policy["img-src"], words(&["'self'", "https:"]), "{file}");
        assert_eq!(
            policy["connect-src"],
            words(&["'self'", "https://feed.example.org:8443"]),
            "{file}"
        );
        // A meta policy cannot forbid framing; it does not pretend to.
        assert!(!policy.contains_key("frame-ancestors"), "{file}");
        // What the page loads, it loads from the site (relative addresses) or, for an image,
        // over https; it has no inline script and no event handler attribute.
        let all = scraper::Selector::parse("*").unwrap();
        for element in html.select(&all) {
            let e = element.value();
            if e.name() == "script" {
                let src = e
                    .attr("src")
                    .unwrap_or_else(|| panic!("{file}: an inline script"));
                assert!(
                    !src.contains(':') && !src.starts_with("//"),
                    "{file}: {src}"
                );
            }
            if e.name() == "link" && e.attr("rel") == Some("stylesheet") {
                let href = e.attr("href").unwrap();
                assert!(
                    !href.contains(':') && !href.starts_with("//"),
                    "{file}: {href}"
                );
            }
            if e.name() == "img" {
                let src = e.attr("src").unwrap();
                assert!(
                    src.starts_with("https://") || !src.contains(':') && !src.starts_with("//"),
                    "{file}: {src}"
                );
            }
            for (name, _) in e.attrs() {
                assert!(!name.starts_with("on"), "{file}: <{} {name}>", e.name());
            }
        }
    }
    let (_, home) = page(&out.join("index.html"));
    assert!(
        texts(&home, "style").concat().contains("--accent"),
        "the accent's inline style, which style-src allows"
    );
    assert_eq!(
        home.select(&scraper::Selector::parse("img[src^='https://images.example.org/']").unwrap())
            .count(),
        1,
        "the intro's image over https, which img-src allows"
    );
}

#[test]
fn serve_demo_feeds_the_pages_its_own_sample_and_build_demo_reads_the_real_feed() {
    use crate::support::http::{Serving, get};
    let tmp = tempfile::tempdir().unwrap();
    let serving = Serving::start(
        vatcar(&["serve", "--demo", "--port", "0", "--output", "site"]).current_dir(tmp.path()),
    );
    let sample = get(serving.port, "/__vatcar-site/live/vatsim-data.json");
    assert_eq!(sample.status, 200, "{}", sample.text);
    assert_eq!(sample.header("content-type"), Some("application/json"));
    let body: Value = serde_json::from_str(sample.text.split_once("\r\n\r\n").unwrap().1).unwrap();
    assert_eq!(
        body["general"]["update_timestamp"],
        "2026-11-20T12:00:00.0000000Z"
    );
    assert!(body["controllers"].as_array().unwrap().len() > 2);
    let live = get(serving.port, "/live/");
    let html = scraper::Html::parse_document(live.text.split_once("\r\n\r\n").unwrap().1);
    assert_eq!(
        script_data(&html)["feed"],
        "/__vatcar-site/live/vatsim-data.json"
    );
    assert_eq!(csp(&html), [live_policy("'self'")]);
    assert_eq!(
        texts(&html, ".live-now .notice"),
        ["This preview reads a built-in sample of VATSIM’s data feed, not the network."]
    );
    drop(serving);

    // A site published from the demo reads the network's feed, and says nothing of a sample.
    let out = tmp.path().join("built");
    crate::support::run_ok(&mut vatcar(&[
        "build",
        "--demo",
        "--output",
        out.to_str().unwrap(),
    ]));
    let (_, html) = page(&out.join("live/index.html"));
    assert_eq!(
        script_data(&html)["feed"],
        "https://data.vatsim.net/v3/vatsim-data.json"
    );
    assert_eq!(csp(&html), [live_policy("'self' https://data.vatsim.net")]);
    assert!(texts(&html, ".live-now .notice").is_empty());
}

#[test]
fn serve_serves_no_sample_feed_but_for_the_demo() {
    use crate::support::http::{Serving, get};
    let snapshot = demo_snapshot_copy();
    let tmp = tempfile::tempdir().unwrap();
    let serving = Serving::start(
        vatcar_at_demo_time(&[
            "serve",
            "--snapshot",
            snapshot.path().to_str().unwrap(),
            "--port",
            "0",
            "--output",
            "site",
        ])
        .current_dir(tmp.path()),
    );
    assert_eq!(
        get(serving.port, "/__vatcar-site/live/vatsim-data.json").status,
        404
    );
    let live = get(serving.port, "/live/");
    let html = scraper::Html::parse_document(live.text.split_once("\r\n\r\n").unwrap().1);
    assert_eq!(
        script_data(&html)["feed"],
        "https://data.vatsim.net/v3/vatsim-data.json"
    );
}

/// tests/browser/live.mjs: the live page and the home block in headless Chromium, against a
/// mock data feed on 127.0.0.1; skipped, saying so, where the tools are missing.
#[test]
fn the_live_list_in_chromium() {
    use crate::support::browser::{Browser, browser_or_skip};
    let Some(Browser { tools, chromium }) = browser_or_skip() else {
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ran = run(std::process::Command::new("node")
        .arg(root.join("tests/browser/live.mjs"))
        .arg(env!("CARGO_BIN_EXE_vatcar-site"))
        .arg(&tools)
        .arg(chromium)
        .arg(root)
        .env(
            "VATCAR_BOOKINGS_URL",
            bookings_url(crate::support::no_bookings()),
        ));
    assert!(ran.status.success(), "{}", ran.text());
    assert!(ran.stdout.contains("live: ok"), "{}", ran.text());
}
