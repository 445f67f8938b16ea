//! The published site, checked the way a webmaster and a reader would: which files exist,
//! what each page says and in what order, what must never appear, and what a rebuild does.
//!
//! Expected messages spell out `GET /api/v2/...` on purpose: that is what the webmaster reads.

use crate::support::{
    AgainstMock, KEY, MockServer, Ran, Reply, assert_key_absent, assert_same_files, build_site,
    demo_api, demo_body, run, run_ok, site_folder, texts, tree, unicode_escaped, vatcar,
    vatcar_at_demo_time,
};
use chrono::{TimeZone, Utc};
use scraper::{Html, Selector};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use vatcar_site::fetch::endpoint::Endpoint;

const SITE_URL: &str = "https://tjzs.example.org/";

/// The demo site, built through the mock API as a real build would be.
struct Built {
    _tmp: tempfile::TempDir,
    out: PathBuf,
}

impl Built {
    fn page(&self, path: &str) -> Html {
        Html::parse_document(&self.text(path))
    }

    fn text(&self, path: &str) -> String {
        fs::read_to_string(self.out.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
    }
}

fn build_demo(extra: &[&str]) -> Built {
    build_demo_from(&demo_api(), extra)
}

fn build_demo_from(server: &MockServer, extra: &[&str]) -> Built {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let mut args = vec![
        "build",
        "--output",
        out.to_str().unwrap(),
        "--site-url",
        SITE_URL,
    ];
    args.extend_from_slice(extra);
    run_ok(vatcar_at_demo_time(&args).against(server));
    Built { _tmp: tmp, out }
}

fn build_snapshot(dir: &str, extra: &[&str]) -> Built {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let snapshot = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut args = vec!["--site-url", "https://hostile.example/"];
    args.extend_from_slice(extra);
    let (code, stderr) = build_from(&snapshot, &out, &args);
    assert_eq!(code, Some(0), "{stderr}");
    Built { _tmp: tmp, out }
}

fn select<'a>(html: &'a Html, css: &str) -> Vec<scraper::ElementRef<'a>> {
    html.select(&Selector::parse(css).unwrap()).collect()
}

fn demo_json(file: &str) -> Value {
    serde_json::from_slice(&demo_body(file)).unwrap()
}

fn ids(file: &str) -> BTreeSet<u64> {
    demo_json(file)["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_u64().unwrap())
        .collect()
}

/// A copy of a folder, to compare against later.
fn tmp_copy(dir: &Path) -> tempfile::TempDir {
    let copy = tempfile::tempdir().unwrap();
    for (path, bytes) in tree(dir) {
        let target = copy.path().join(path);
        fs::create_dir_all(target.parent().unwrap()).unwrap();
        fs::write(target, bytes).unwrap();
    }
    copy
}

/// Compares two folders by path and content, naming the files that differ.
fn assert_same_tree(a: &Path, b: &Path) {
    assert_same_files(&tree(a), &tree(b));
}

/// Event ids in the order a list shows them.
fn listed_ids(html: &Html, section: &str) -> Vec<u64> {
    select(
        html,
        &format!("section[aria-labelledby={section}] .event-title a"),
    )
    .iter()
    .map(|a| {
        let href = a.value().attr("href").unwrap();
        href.trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    })
    .collect()
}

#[test]
fn every_page_of_the_contract_is_written() {
    let site = build_demo(&[]);
    let files = tree(&site.out);
    for path in [
        "index.html",
        "roster/index.html",
        "events/index.html",
        "division/index.html",
        "documents/index.html",
        "calendar/facility.ics",
        "calendar/division.ics",
        "404.html",
        "sitemap.xml",
        "feed.xml",
        "static/style.css",
    ] {
        assert!(files.contains_key(path), "{path} missing");
    }
    // One page per event id, facility and division alike; id 421 is in both lists.
    let expected: BTreeSet<u64> = ids("facility-events.json")
        .union(&ids("division-events.json"))
        .copied()
        .collect();
    assert!(
        ids("facility-events.json").contains(&421) && ids("division-events.json").contains(&421)
    );
    let pages: BTreeSet<u64> = files
        .keys()
        .filter_map(|p| {
            p.strip_prefix("events/")?
                .strip_suffix("/index.html")?
                .parse()
                .ok()
        })
        .collect();
    assert_eq!(pages, expected);
    let shared = site.page("events/421/index.html");
    assert_eq!(
        texts(&shared, ".event .badges .badge"),
        ["Facility event", "Division event"]
    );
    // The sitemap lists every page by its absolute address.
    let sitemap = site.text("sitemap.xml");
    for page in files.keys().filter(|p| p.ends_with("index.html")) {
        let url = format!("{SITE_URL}{}", page.trim_end_matches("index.html"));
        assert!(
            sitemap.contains(&format!("<loc>{url}</loc>")),
            "{url} not in the sitemap"
        );
    }
    // The feed holds the upcoming events, facility and division.
    let feed = site.text("feed.xml");
    assert!(feed.starts_with(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">"
    ));
    for id in [421, 423, 426, 428, 430, 433, 436, 438] {
        assert!(
            feed.contains(&format!("<id>{SITE_URL}events/{id}/</id>")),
            "event {id} missing from the feed"
        );
    }
    assert!(!feed.contains("events/417/"), "a past event is in the feed");
    // Every page links the calendars and the stylesheet.
    let home = site.page("index.html");
    let hrefs: Vec<&str> = select(&home, "a")
        .iter()
        .filter_map(|a| a.value().attr("href"))
        .collect();
    for target in [
        "roster/",
        "events/",
        "division/",
        "documents/",
        "calendar/facility.ics",
        "calendar/division.ics",
        "feed.xml",
    ] {
        assert!(
            hrefs.contains(&target),
            "home does not link {target}: {hrefs:?}"
        );
    }
    assert!(
        hrefs.contains(&"webcal://tjzs.example.org/calendar/facility.ics"),
        "{hrefs:?}"
    );
    let event = site.page("events/426/index.html");
    let calendar: Vec<_> = select(&event, "a[href='event.ics']");
    assert_eq!(
        calendar.len(),
        1,
        "the event page offers its own calendar file"
    );
    assert!(files.contains_key("events/426/event.ics"));
}

#[test]
fn home_page_names_the_facility_its_staff_and_the_next_events() {
    let site = build_demo(&[]);
    let home = site.page("index.html");
    // The header names the site; the hero, without a tagline, leads with what it is.
    assert_eq!(texts(&home, ".brand-name"), ["San Juan CERAP"]);
    assert_eq!(
        texts(&home, "h1"),
        ["Air traffic control on the VATSIM network"]
    );
    let hero = texts(&home, ".hero").join(" ");
    assert!(!hero.contains("San Juan CERAP"), "{hero}");
    assert_eq!(
        texts(&home, ".hero-facts li"),
        [
            "40 home controllers",
            "8 visitors",
            "5 upcoming facility events",
            "4 upcoming division events"
        ]
    );
    assert_eq!(
        texts(&home, ".staff-card"),
        [
            "ATM Air Traffic Manager Marisol Vega-Torres",
            "DATM Deputy Air Traffic Manager Desmond Alleyne",
            "TA Training Administrator Carmen Benítez",
            "EC Events Coordinator Vacant",
            "FE Facility Engineer Kwame Baptiste",
            "WM Webmaster Vacant",
        ]
    );
    // The five soonest upcoming events, facility and division together.
    assert_eq!(listed_ids(&home, "next-events"), [421, 423, 433, 426, 428]);
}

#[test]
fn roster_sorts_by_rating_then_name_and_shows_vacant_posts() {
    let site = build_demo(&[]);
    let roster = site.page("roster/index.html");
    let staff = texts(&roster, "section[aria-labelledby=staff] tbody tr");
    assert_eq!(staff.len(), 6);
    assert_eq!(staff[3], "EC Events Coordinator Vacant");
    assert_eq!(staff[5], "WM Webmaster Vacant");

    let rows: Vec<Vec<String>> = select(&roster, "section[aria-labelledby=controllers] tbody tr")
        .iter()
        .map(|tr| {
            tr.select(&Selector::parse("td").unwrap())
                .map(|td| td.text().collect::<String>().trim().to_owned())
                .collect()
        })
        .collect();
    assert_eq!(rows.len(), 40);
    let order = ["SUP", "I3", "I1", "C3", "C1", "S3", "S2", "S1", "OBS"];
    let rank = |cell: &str| {
        order
            .iter()
            .position(|code| cell.starts_with(&format!("{code} ")))
            .unwrap()
    };
    for pair in rows.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        assert!(rank(&a[2]) <= rank(&b[2]), "{a:?} before {b:?}");
        if rank(&a[2]) == rank(&b[2]) {
            assert!(
                a[0].to_lowercase() <= b[0].to_lowercase(),
                "{a:?} before {b:?}"
            );
        }
    }
    // Short code and long name, and the join date.
    let martinez = rows.iter().find(|r| r[0] == "José Martínez").unwrap();
    assert_eq!(martinez[1], "1476093");
    assert_eq!(martinez[2], "C1 Enroute Controller");
    // Every demo controller but one (whose facility_join is null) shows a join date.
    let dated: Vec<_> = rows.iter().filter(|r| !r[3].is_empty()).collect();
    assert_eq!(dated.len(), 39);
    assert!(
        dated
            .iter()
            .all(|r| chrono::NaiveDate::parse_from_str(&r[3], "%Y-%m-%d").is_ok())
    );
    assert_eq!(martinez[3], "", "null facility_join shows no date");

    let visitors = texts(&roster, "section[aria-labelledby=visitors] tbody tr");
    assert_eq!(visitors.len(), 8);
    assert!(
        visitors
            .iter()
            .any(|v| v.starts_with("Keisha Ramdial 1547761") && v.contains("Piarco FIR")),
        "{visitors:?}"
    );
}

#[test]
fn no_personal_data_from_the_api_reaches_the_site() {
    let site = build_demo(&[]);
    let mut secrets = BTreeSet::new();
    fn collect(
        value: &Value,
        key: Option<&str>,
        in_integrations: bool,
        out: &mut BTreeSet<String>,
    ) {
        match value {
            Value::Object(map) => {
                for (k, v) in map {
                    collect(v, Some(k), in_integrations || k == "integrations", out);
                }
            }
            Value::Array(items) => items
                .iter()
                .for_each(|v| collect(v, key, in_integrations, out)),
            Value::String(s)
                if key == Some("email") || (in_integrations && key == Some("value")) =>
            {
                out.insert(s.clone());
            }
            _ => {}
        }
    }
    for file in [
        "facility-roster.json",
        "facility-events.json",
        "division-events.json",
        "facility-documents.json",
    ] {
        collect(&demo_json(file), None, false, &mut secrets);
    }
    assert!(
        secrets.len() >= 40,
        "the sample should hold emails and integration values: {secrets:?}"
    );
    assert!(secrets.contains("412345678901234567"));
    for (path, bytes) in tree(&site.out) {
        let text = String::from_utf8_lossy(&bytes);
        for secret in &secrets {
            assert!(!text.contains(secret.as_str()), "{path} shows {secret}");
        }
        assert!(!text.contains("@example."), "{path} holds an email address");
    }
    assert_key_absent(&site.out);
}

#[test]
fn times_are_zulu_with_both_dates_across_midnight_and_local_time_on_request() {
    let site = build_demo(&["--display-zone", "America/Puerto_Rico"]);
    let crossing = site.page("events/421/index.html");
    let times: Vec<(String, String)> = select(&crossing, ".facts time")
        .iter()
        .map(|t| {
            (
                t.value().attr("datetime").unwrap().to_owned(),
                t.text().collect(),
            )
        })
        .collect();
    assert_eq!(
        times,
        [
            (
                "2026-11-28T23:00:00Z".to_owned(),
                "2026-11-28 23:00Z".to_owned()
            ),
            (
                "2026-11-29T03:00:00Z".to_owned(),
                "2026-11-29 03:00Z".to_owned()
            ),
        ]
    );
    assert_eq!(
        texts(&crossing, ".facts .when-local"),
        ["Sat 28 Nov 19:00–23:00 AST"]
    );
    let same_day = site.page("events/423/index.html");
    let times = texts(&same_day, ".facts time");
    assert_eq!(times, ["2026-12-06 16:00Z", "19:00Z"]);

    let plain = build_demo(&[]);
    assert!(select(&plain.page("events/421/index.html"), ".when-local").is_empty());
}

#[test]
fn upcoming_and_recent_follow_the_fixed_build_time() {
    let site = build_demo(&[]);
    let events = site.page("events/index.html");
    assert_eq!(listed_ids(&events, "upcoming"), [421, 423, 426, 428, 430]);
    // Ended within the last 60 days, newest first; 412 ended 61 days before.
    assert_eq!(listed_ids(&events, "recent"), [417, 415]);
    let division = site.page("division/index.html");
    assert_eq!(listed_ids(&division, "upcoming"), [421, 433, 436, 438]);
    assert_eq!(listed_ids(&division, "recent"), [391, 388, 384]);

    // Two weeks later the same data lists differently.
    let later = Utc
        .with_ymd_and_hms(2026, 12, 5, 0, 0, 0)
        .unwrap()
        .timestamp()
        .to_string();
    let server = demo_api();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("later");
    run_ok(
        vatcar(&["build", "--output", out.to_str().unwrap()])
            .against(&server)
            .env("SOURCE_DATE_EPOCH", &later),
    );
    let events = Html::parse_document(&fs::read_to_string(out.join("events/index.html")).unwrap());
    assert_eq!(listed_ids(&events, "upcoming"), [423, 426, 428, 430]);
    assert_eq!(listed_ids(&events, "recent"), [421, 417, 415]);
}

#[test]
fn same_input_gives_the_same_bytes_and_a_rebuild_rewrites_nothing() {
    let server = demo_api();
    let first = build_demo_from(&server, &[]);
    let second = build_demo_from(&server, &[]);
    assert_same_tree(&first.out, &second.out);

    let rebuild = || {
        run_ok(
            vatcar_at_demo_time(&[
                "build",
                "--output",
                first.out.to_str().unwrap(),
                "--site-url",
                SITE_URL,
            ])
            .against(&server),
        )
        .stderr
    };
    // The first rebuild has a previous build to compare with: what it found is no longer
    // new, and data/changes.json says so. Nothing else changes, then or after.
    let report = rebuild();
    assert!(report.contains("(1 written,"), "{report}");
    let stamp = |path: &Path| fs::metadata(path).unwrap().modified().unwrap();
    let before: BTreeMap<String, _> = tree(&first.out)
        .keys()
        .map(|p| (p.clone(), stamp(&first.out.join(p))))
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(50));
    let report = rebuild();
    assert!(report.contains("(0 written,"), "{report}");
    let after: BTreeMap<String, _> = tree(&first.out)
        .keys()
        .map(|p| (p.clone(), stamp(&first.out.join(p))))
        .collect();
    assert_eq!(before, after, "a file was rewritten");
}

#[test]
fn documents_are_grouped_with_safe_encoded_links() {
    // The demo's base URL is the real service's, as a real build's would be.
    let site = build_snapshot("demo", &[]);
    let page = site.page("documents/index.html");
    assert_eq!(
        texts(&page, "main h2"),
        [
            "Standard Operating Procedures",
            "Letters of Agreement",
            "Training"
        ]
    );
    let links: BTreeMap<String, String> = select(&page, ".document-name a")
        .iter()
        .map(|a| {
            (
                a.text().collect(),
                a.value().attr("href").unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        links["TJSJ Tower SOP"],
        "https://vatcar.net/storage/files/TJSJ%20Tower%20SOP%20v3.2.pdf"
    );
    assert_eq!(
        links["TJZS - Piarco FIR LOA"],
        "https://vatcar.net/storage/files/TJZS-TTZP%20LOA.pdf"
    );
    assert_eq!(
        links["Radar Vectoring Guide"],
        "https://vatcar.net/storage/files/Radar%20Vectoring%20Guide.pdf"
    );
    assert_eq!(
        links["Mentor Session Notes Template"],
        "https://docs.google.com/document/d/1AbCdEfGhIjKlMnOp/edit"
    );
    let external = texts(&page, ".external");
    assert_eq!(
        external,
        ["external: www.faa.gov", "external: docs.google.com"]
    );
    assert!(texts(&page, ".notice")[0].contains("signed in to vatcar.net"));
    let dates = texts(&page, ".document-date time");
    assert!(dates.contains(&"5 Nov 2025".to_owned()), "{dates:?}");
}

#[test]
fn hostile_data_is_escaped_and_sanitized() {
    let site = build_snapshot("tests/fixtures/hostile", &[]);
    for (path, bytes) in tree(&site.out) {
        if !path.ends_with(".html") {
            continue;
        }
        let html = Html::parse_document(&String::from_utf8(bytes).unwrap());
        for script in select(&html, "script") {
            let src = script.value().attr("src").unwrap_or("(inline)");
            assert!(
                src.ends_with("static/local-time.js")
                    || src.ends_with("static/menu.js")
                    || src.ends_with("static/live.js"),
                "{path}: script {src}"
            );
        }
        for element in select(&html, "*") {
            for (name, value) in element.value().attrs() {
                assert!(!name.starts_with("on"), "{path}: handler {name}={value}");
                let lower = value.trim().to_ascii_lowercase();
                if ["href", "src", "action", "formaction"].contains(&name) {
                    assert!(
                        !lower.starts_with("javascript:") && !lower.starts_with("data:"),
                        "{path}: {name}={value}"
                    );
                }
            }
            let tag = element.value().name();
            assert!(
                !["iframe", "form", "style", "svg", "object", "embed"].contains(&tag),
                "{path}: <{tag}>"
            );
        }
        for link in select(&html, "a[href^='http']") {
            let href = link.value().attr("href").unwrap();
            if !href.starts_with("https://hostile.example/") {
                let rel = link.value().attr("rel").unwrap_or("");
                assert!(
                    rel.contains("noopener") && rel.contains("noreferrer"),
                    "{path}: {href} rel={rel:?}"
                );
            }
        }
    }
    // Names with markup are shown as text.
    let event = site.page("events/9004/index.html");
    assert_eq!(
        texts(&event, "h1"),
        ["<script>alert('name')</script><b>Bold?</b> & \"quotes\" 'single'"]
    );
    // An unsafe banner is dropped and the page still renders.
    let unsafe_banner = site.page("events/9001/index.html");
    assert!(select(&unsafe_banner, "img.event-banner").is_empty());
    assert_eq!(
        texts(&unsafe_banner, "h1"),
        ["Fun night END:VEVENT BEGIN:VEVENT SUMMARY:injected"]
    );
    // Unsafe document links are not links.
    let documents = site.page("documents/index.html");
    let names = texts(&documents, ".document-name");
    assert!(
        names.contains(&"JS link (link unavailable)".to_owned()),
        "{names:?}"
    );
    assert!(
        names.contains(&"Data link (link unavailable)".to_owned()),
        "{names:?}"
    );
    assert!(
        names.contains(&"Protocol-relative (link unavailable)".to_owned()),
        "{names:?}"
    );
    let spaces = select(&documents, ".document-name a")
        .iter()
        .map(|a| a.value().attr("href").unwrap().to_owned())
        .collect::<Vec<_>>();
    assert_eq!(
        spaces,
        ["https://vatcar.net/storage/files/a%20%22b%22%20%3Cc%3E.pdf"]
    );
    // No email address from the data.
    for (path, bytes) in tree(&site.out) {
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains("secret@example.com") && !text.contains("999888777666555444"),
            "{path}"
        );
    }
}

#[test]
fn a_templates_folder_overrides_single_files() {
    let tmp = tempfile::tempdir().unwrap();
    let theme = tmp.path().join("theme");
    fs::create_dir_all(theme.join("static")).unwrap();
    fs::write(
        theme.join("index.html"),
        "{% extends \"base.html\" %}{% block content %}<h1>Bienvenidos a {{ site.title }}</h1>{% endblock content %}",
    )
    .unwrap();
    fs::write(
        theme.join("static/style.css"),
        "body { color: rebeccapurple; }\n",
    )
    .unwrap();
    let site = build_demo(&["--templates", theme.to_str().unwrap()]);
    assert_eq!(
        texts(&site.page("index.html"), "h1"),
        ["Bienvenidos a San Juan CERAP"]
    );
    assert_eq!(
        site.text("static/style.css"),
        "body { color: rebeccapurple; }\n"
    );
    // Pages the folder does not override keep the built-in templates.
    assert_eq!(texts(&site.page("roster/index.html"), "h1"), ["Roster"]);
}

#[test]
fn a_template_error_fails_the_build_and_leaves_the_site_alone() {
    let site = build_demo(&[]);
    let before = tmp_copy(&site.out);
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("roster.html"), "{% extends \"base.html\" %}{% block content %}{{ roster.nonexistent.field }}{% endblock content %}").unwrap();
    let Ran { status, stderr, .. } = run(&mut vatcar_at_demo_time(&[
        "build",
        "--demo",
        "--output",
        site.out.to_str().unwrap(),
        "--templates",
        tmp.path().to_str().unwrap(),
    ]));
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("roster.html"), "{stderr}");
    assert_same_tree(&site.out, before.path());
}

#[test]
fn an_event_page_that_fails_while_others_are_written_leaves_the_site_alone() {
    let site = build_demo(&[]);
    let before = tmp_copy(&site.out);
    // Event pages are written as they are rendered, on every core: division-only events
    // render and reach the staging folder, facility events fail.
    let tmp = tempfile::tempdir().unwrap();
    fs::write(
        tmp.path().join("event.html"),
        "{% if event.facility %}{{ event.no_such_field }}{% else %}<p>ok</p>{% endif %}",
    )
    .unwrap();
    let Ran { status, stderr, .. } = run(&mut vatcar_at_demo_time(&[
        "build",
        "--demo",
        "--output",
        site.out.to_str().unwrap(),
        "--templates",
        tmp.path().to_str().unwrap(),
    ]));
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("event.html"), "{stderr}");
    assert!(stderr.contains("no_such_field"), "{stderr}");
    assert_same_tree(&site.out, before.path());
    assert_no_staging_beside(&site.out);
}

/// A snapshot file on the webmaster's disk may hold more than the 64 MiB an API response may
/// (a large facility's saved data, the benchmark's 50,000 events): one of 65 MiB builds. One
/// over 512 MiB is refused before it is read, naming the file and the cap.
#[test]
fn a_snapshot_file_may_be_larger_than_a_response_up_to_its_own_cap() {
    let snapshot = crate::support::demo_snapshot_copy();
    let events = snapshot.path().join("facility-events.json");
    let mut body = fs::read(&events).unwrap();
    // JSON allows any whitespace after a value: the demo's events, padded past 64 MiB.
    body.resize(65 * 1024 * 1024, b' ');
    fs::write(&events, &body).unwrap();
    drop(body);
    let out = tempfile::tempdir().unwrap();
    let site = out.path().join("site");
    let (code, stderr) = build_from(snapshot.path(), &site, &[]);
    assert_eq!(code, Some(0), "{stderr}");
    let page = fs::read_to_string(site.join("events/426/index.html")).unwrap();
    assert!(page.contains("Holiday Lights over San Juan"), "{page}");

    // A sparse file: its size is on disk, its bytes are not.
    let file = fs::OpenOptions::new().write(true).open(&events).unwrap();
    file.set_len(512 * 1024 * 1024 + 1).unwrap();
    let (code, stderr) = build_from(snapshot.path(), &out.path().join("other"), &[]);
    assert_ne!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("facility-events.json is larger than 512 MiB"),
        "{stderr}"
    );
}

/// A snapshot folder holding the demo data, with `edit` applied to the named file's JSON.
fn demo_snapshot_with(file: &str, edit: impl FnOnce(&mut Value)) -> tempfile::TempDir {
    let tmp = crate::support::demo_snapshot_copy();
    let mut json = demo_json(file);
    edit(&mut json);
    fs::write(tmp.path().join(file), serde_json::to_vec(&json).unwrap()).unwrap();
    tmp
}

/// A build of a snapshot folder into `out`, with the key in the environment: its exit code
/// and stderr. The site URL is `SITE_URL` unless `extra` gives one.
fn build_from(snapshot: &Path, out: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let mut args = vec![
        "build",
        "--snapshot",
        snapshot.to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
    ];
    if !extra.contains(&"--site-url") {
        args.extend(["--site-url", SITE_URL]);
    }
    args.extend_from_slice(extra);
    let ran = run(vatcar_at_demo_time(&args).env("VATCAR_API_KEY", KEY));
    (ran.code(), ran.stderr)
}

/// Nothing named like a staging folder beside `out`.
fn assert_no_staging_beside(out: &Path) {
    let leftovers: Vec<String> = fs::read_dir(out.parent().unwrap())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains("staging"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// A theme folder holding one template.
fn theme_with(name: &str, text: &str) -> tempfile::TempDir {
    let theme = tempfile::tempdir().unwrap();
    fs::write(theme.path().join(name), text).unwrap();
    theme
}

#[test]
fn a_theme_cannot_read_the_environment() {
    let site = build_demo(&[]);
    let before = tmp_copy(&site.out);
    for text in [
        "{% extends \"base.html\" %}{% block content %}{{ get_env(name=\"VATCAR_API_KEY\") }}{% endblock content %}",
        "{% extends \"base.html\" %}{% block content %}{% set k = get_env(name=\"VATCAR_API_KEY\", default=\"\") %}{{ k | upper }}{% endblock content %}",
    ] {
        let theme = theme_with("404.html", text);
        let server = demo_api();
        let Ran { status, stderr, .. } = run(vatcar_at_demo_time(&[
            "build",
            "--output",
            site.out.to_str().unwrap(),
            "--templates",
            theme.path().to_str().unwrap(),
        ])
        .against(&server));
        assert_eq!(status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains("404.html") && stderr.contains("get_env() is not available"),
            "{stderr}"
        );
        assert!(!stderr.contains(KEY), "{stderr}");
        assert_same_tree(&site.out, before.path());
    }
}

#[test]
fn the_key_in_the_data_in_any_form_stops_the_whole_build() {
    let site = build_demo(&[]);
    let before = tmp_copy(&site.out);
    let unicode = unicode_escaped(KEY);
    let percent: String = KEY.bytes().map(|b| format!("%{b:02X}")).collect();
    for (field, value) in [
        ("name", format!("Echo {KEY}")),
        ("name", format!("Echo {unicode}")),
        (
            "description",
            format!("[link](https://x.example/?k={percent})"),
        ),
        (
            "description",
            format!("Split {}\\n{}", &KEY[..4], &KEY[4..]).replace("\\n", ""),
        ),
    ] {
        // Raw JSON, so that the `\u` escapes reach the client as the server would send them.
        let mut events = String::from_utf8(demo_body("facility-events.json")).unwrap();
        let first_name = demo_json("facility-events.json")["data"][0]["name"]
            .as_str()
            .unwrap()
            .to_owned();
        let first = events.find(&format!("\"{first_name}\"")).unwrap();
        if field == "name" {
            events.replace_range(first..first + first_name.len() + 2, &format!("\"{value}\""));
        } else {
            let at = events[first..].find("\"description\": \"").unwrap() + first + 16;
            events.insert_str(at, &format!("{value} "));
        }
        let server = demo_api();
        server.reply(Endpoint::FacilityEvents, Reply::ok(events));
        let Ran { status, stderr, .. } =
            run(
                vatcar_at_demo_time(&["build", "--output", site.out.to_str().unwrap()])
                    .against(&server),
            );
        assert_eq!(status.code(), Some(1), "{value}: {stderr}");
        assert!(stderr.contains("would contain the API key"), "{stderr}");
        assert!(!stderr.contains(KEY), "{stderr}");
        assert_same_tree(&site.out, before.path());
        assert_no_staging_beside(&site.out);
    }
}

#[test]
fn template_recursion_and_huge_ranges_are_template_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    for (name, text, expected) in [
        (
            "404.html",
            "x{% include \"404.html\" %}",
            "recursion: 404.html → 404.html",
        ),
        (
            "macros.html",
            "{% macro deep(n) %}{{ self::deep(n=n) }}{% endmacro deep %}",
            "macro deep of macros.html → macro deep of macros.html",
        ),
        (
            "404.html",
            "{% for i in range(end=1000000000) %}{{ i }}{% endfor %}",
            "1000000000 items is more than the 10000",
        ),
    ] {
        let theme = theme_with(name, text);
        let Ran { status, stderr, .. } = run(&mut vatcar_at_demo_time(&[
            "build",
            "--demo",
            "--output",
            out.to_str().unwrap(),
            "--templates",
            theme.path().to_str().unwrap(),
        ]));
        assert_eq!(status.code(), Some(1), "{text}: {stderr}");
        assert!(
            stderr.contains(name) && stderr.contains(expected),
            "{stderr}"
        );
        assert!(!out.exists());
        assert_no_staging_beside(&out);
    }
}

#[test]
fn years_outside_1_to_9999_are_errors_naming_the_record_and_never_crash() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    for (start, extra, expected) in [
        ("+262142-12-31 23:00:00", &[][..], "has the year 262142"),
        (
            "-262143-01-01",
            &["--display-zone", "America/Puerto_Rico"][..],
            "has the year -262143",
        ),
        ("+10000-01-01 00:00:00", &[][..], "has the year 10000"),
        ("-0001-06-01 10:00", &[][..], "has the year -1"),
    ] {
        let snapshot = demo_snapshot_with("facility-events.json", |json| {
            json["data"][0]["start"] = start.into();
            json["data"][0]["end"] = Value::Null;
        });
        let id = demo_json("facility-events.json")["data"][0]["id"]
            .as_u64()
            .unwrap();
        let (code, stderr) = build_from(snapshot.path(), &out, extra);
        assert_eq!(code, Some(1), "{start}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "GET /api/v2/facility/events: data[0] (event {id}), field `start`"
            )) && stderr.contains(expected),
            "{stderr}"
        );
    }
    let Ran { status, stderr, .. } =
        run(
            vatcar(&["build", "--demo", "--output", out.to_str().unwrap()])
                .env("SOURCE_DATE_EPOCH", "-8334601228800"),
        );
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("SOURCE_DATE_EPOCH"), "{stderr}");
    assert!(!out.exists());
}

#[test]
fn events_near_the_end_of_year_9999_are_left_out_with_a_warning_and_calendars_stay_far_from_it() {
    let events = demo_json("facility-events.json");
    let id = |i: usize| events["data"][i]["id"].as_u64().unwrap();
    let snapshot = demo_snapshot_with("facility-events.json", |json| {
        // The last hour of year 9999, with no end: no calendar app can expand it.
        json["data"][0]["name"] = "End of time".into();
        json["data"][0]["start"] = "9999-12-31 23:00:00".into();
        json["data"][0]["end"] = Value::Null;
        // Starts before year 9000 but ends after it.
        json["data"][1]["name"] = "Across the horizon".into();
        json["data"][1]["start"] = "8999-12-31 23:00:00".into();
        json["data"][1]["end"] = Value::Null;
        // The last evening before it: kept.
        json["data"][2]["start"] = "8999-12-31 20:00:00".into();
        json["data"][2]["end"] = "8999-12-31 22:00:00".into();
        // Changed in year 9999 (bad data too): the calendar does not write that date.
        json["data"][3]["updated_at"] = "9999-12-31T23:59:59Z".into();
        json["data"][3]["created_at"] = "9999-12-31T23:59:58Z".into();
    });
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let (code, stderr) = build_from(
        snapshot.path(),
        &out,
        &["--display-zone", "Pacific/Kiritimati"],
    );
    assert_eq!(code, Some(0), "{stderr}");
    for (i, name) in [(0, "End of time"), (1, "Across the horizon")] {
        assert!(
            stderr.contains(&format!("event {} \"{name}\"", id(i))) && stderr.contains("year 9000"),
            "{stderr}"
        );
        assert!(!out.join(format!("events/{}", id(i))).exists());
    }
    let facility = fs::read_to_string(out.join("calendar/facility.ics")).unwrap();
    assert!(!facility.contains("End of time") && !facility.contains("Across the horizon"));
    let home = fs::read_to_string(out.join("index.html")).unwrap();
    assert!(!home.contains("End of time"));

    let kept = fs::read_to_string(out.join(format!("events/{}/event.ics", id(2)))).unwrap();
    assert!(kept.contains("DTSTART:89991231T200000Z\r\n"), "{kept}");
    assert!(kept.contains("DTEND:89991231T220000Z\r\n"), "{kept}");
    let changed = fs::read_to_string(out.join(format!("events/{}/event.ics", id(3)))).unwrap();
    assert!(
        !changed.contains("LAST-MODIFIED") && !changed.contains("CREATED"),
        "{changed}"
    );
    assert!(changed.contains("SEQUENCE:"), "{changed}");
    // No date any calendar holds is in year 9000 or later.
    for (path, bytes) in tree(&out) {
        if !path.ends_with(".ics") {
            continue;
        }
        for line in String::from_utf8_lossy(&bytes).lines() {
            let Some((name, value)) = line.split_once(':') else {
                continue;
            };
            if ["DTSTART", "DTEND", "DTSTAMP", "CREATED", "LAST-MODIFIED"].contains(&name) {
                let year: u32 = value[..value.len() - 12].parse().unwrap();
                assert!(year < 9000, "{path}: {line}");
            }
        }
    }
}

#[test]
fn characters_xml_forbids_never_reach_a_page_or_a_feed() {
    let snapshot = demo_snapshot_with("facility-events.json", |json| {
        json["data"][0]["name"] = "Bad \u{fffe}one\u{ffff} \u{1}\u{b}\u{1f} \u{fdd0}end".into();
    });
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let config = tmp.path().join("vatcar-site.toml");
    fs::write(
        &config,
        "title = \"Title\\u0001 \\uFFFF ok\"\ntagline = \"Tag\\u0008line\"\n",
    )
    .unwrap();
    let (code, stderr) = build_from(
        snapshot.path(),
        &out,
        &["--config", config.to_str().unwrap()],
    );
    assert_eq!(code, Some(0), "{stderr}");
    for (path, bytes) in tree(&out) {
        if !(path.ends_with(".html") || path.ends_with(".xml")) {
            continue;
        }
        let text = String::from_utf8(bytes).unwrap();
        let bad: Vec<char> = text
            .chars()
            .filter(|&c| {
                (c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
                    || (0xFDD0..=0xFDEF).contains(&(c as u32))
                    || (c as u32) & 0xFFFE == 0xFFFE
            })
            .collect();
        assert!(bad.is_empty(), "{path} holds {bad:?}");
    }
    let feed = fs::read_to_string(out.join("feed.xml")).unwrap();
    assert!(feed.contains("<title>Bad one  end</title>"), "{feed}");
    assert!(
        feed.contains("<title>Title  ok: upcoming events</title>"),
        "{feed}"
    );
}

#[test]
fn the_same_id_for_two_different_events_keeps_both() {
    let facility = demo_json("facility-events.json");
    let shared = facility["data"][0].clone();
    let id = shared["id"].as_u64().unwrap();
    let snapshot = demo_snapshot_with("division-events.json", |json| {
        let mut other = shared.clone();
        other["name"] = "Division fly-in, a different event".into();
        other["start"] = "2026-12-19 18:00:00".into();
        other["end"] = "2026-12-19 22:00:00".into();
        json["data"].as_array_mut().unwrap().push(other);
    });
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let (code, stderr) = build_from(snapshot.path(), &out, &[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains(&format!("warning: event {id}: the facility lists"))
            && stderr.contains(&format!("events/{id}-division/")),
        "{stderr}"
    );
    let read = |path: &str| fs::read_to_string(out.join(path)).unwrap();
    let own = Html::parse_document(&read(&format!("events/{id}/index.html")));
    assert_eq!(texts(&own, "h1"), [shared["name"].as_str().unwrap()]);
    let copy = Html::parse_document(&read(&format!("events/{id}-division/index.html")));
    assert_eq!(texts(&copy, "h1"), ["Division fly-in, a different event"]);
    let division = read("division/index.html");
    assert!(
        division.contains("Division fly-in, a different event"),
        "{division}"
    );
    assert!(
        division.contains(&format!("events/{id}-division/")),
        "{division}"
    );
    let division_ics = read("calendar/division.ics");
    assert!(division_ics.contains(&format!("UID:vatcar-division-event-{id}@tjzs.example.org")));
    assert!(division_ics.contains("SUMMARY:Division fly-in\\, a different event"));
    let facility_ics = read("calendar/facility.ics");
    assert!(facility_ics.contains(&format!("UID:vatcar-event-{id}@tjzs.example.org")));
    assert!(!facility_ics.contains("Division fly-in"));
    assert!(read(&format!("events/{id}-division/event.ics")).contains("Division fly-in"));
    let sitemap = read("sitemap.xml");
    assert!(
        sitemap.contains(&format!("events/{id}-division/")),
        "{sitemap}"
    );
}

#[test]
fn a_description_of_over_a_mebibyte_is_whole_on_its_page_and_short_in_calendars() {
    // 1.2 MiB of markdown paragraphs, each numbered, so that a cut anywhere shows.
    let paragraphs: Vec<String> = (0..20_000)
        .map(|i| format!("Paragraph {i}: hold short of the runway, café ✈ and contact SJU_CTR."))
        .collect();
    let description = format!("{}\n\nThe last words.", paragraphs.join("\n\n"));
    assert!(description.len() > 1_200_000, "{}", description.len());
    let snapshot = demo_snapshot_with("facility-events.json", |json| {
        json["data"][0]["description"] = description.clone().into();
    });
    let id = demo_json("facility-events.json")["data"][0]["id"]
        .as_u64()
        .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let (code, stderr) = build_from(snapshot.path(), &out, &[]);
    assert_eq!(code, Some(0), "{stderr}");

    let (text, html) = crate::support::page(&out.join(format!("events/{id}/index.html")));
    let shown = texts(&html, ".description p");
    assert_eq!(shown.len(), 20_001);
    assert_eq!(shown[19_999], paragraphs[19_999]);
    assert_eq!(shown[20_000], "The last words.");
    assert!(!text.contains("shortened"));
    // The link preview stays short.
    let preview = select(&html, "meta[property=\"og:description\"]")[0]
        .value()
        .attr("content")
        .unwrap()
        .to_owned();
    assert!(preview.chars().count() <= 201, "{preview}");

    // A calendar app gets the opening and the page's address for the rest.
    let ics = fs::read_to_string(out.join(format!("events/{id}/event.ics"))).unwrap();
    use icalendar::Component;
    let calendar: icalendar::Calendar = ics.parse().unwrap();
    let event = calendar
        .components
        .iter()
        .find_map(|c| c.as_event())
        .unwrap();
    let calendar_text = event.get_description().unwrap();
    let opening = calendar_text.split("…\n\nEvent page: ").next().unwrap();
    assert!(
        (60_000..=64 * 1024).contains(&opening.chars().count()),
        "{}",
        opening.chars().count()
    );
    assert!(calendar_text.starts_with("Paragraph 0: hold short"));
    let page_url = format!("{SITE_URL}events/{id}/");
    assert!(
        calendar_text.ends_with(&format!("…\n\nEvent page: {page_url}")),
        "{}",
        &calendar_text[calendar_text.len() - 200..]
    );
    assert!(!calendar_text.contains("The last words."));
}

/// The footer's links, each optional (calendars with their sections, the feed with a site URL,
/// the facility's website with the data), read as a reader sees them: a separator only ever
/// between two links, never at either end or twice in a row.
#[test]
fn footer_links_have_separators_only_between_them() {
    // The roster's facility as an object, so that it has a website.
    let snapshot = demo_snapshot_with("facility-roster.json", |json| {
        json["data"]["facility"] = serde_json::json!({
            "id": 7, "name_long": "San Juan CERAP", "name_short": "TJZS",
            "website_url": "https://tjzs.example.org",
        });
    });
    let no_calendars = snapshot.path().join("no-calendars.toml");
    fs::write(
        &no_calendars,
        "live = false\n[sections]\nevents = false\ndivision = false\n",
    )
    .unwrap();
    let no_calendars = no_calendars.to_str().unwrap();
    let only_bookings = snapshot.path().join("only-bookings.toml");
    fs::write(
        &only_bookings,
        "[sections]\nevents = false\ndivision = false\n",
    )
    .unwrap();
    let only_bookings = only_bookings.to_str().unwrap();
    let plain = crate::support::demo_snapshot_copy();
    let cases: [(&Path, &[&str], &[&str]); 7] = [
        (
            plain.path(),
            &["--site-url", SITE_URL],
            &[
                "Facility calendar (iCal)",
                "Division calendar (iCal)",
                "Bookings calendar (iCal)",
                "Atom feed",
            ],
        ),
        (
            plain.path(),
            &[],
            &[
                "Facility calendar (iCal)",
                "Division calendar (iCal)",
                "Bookings calendar (iCal)",
            ],
        ),
        (
            snapshot.path(),
            &["--site-url", SITE_URL],
            &[
                "Facility calendar (iCal)",
                "Division calendar (iCal)",
                "Bookings calendar (iCal)",
                "Atom feed",
                "tjzs.example.org",
            ],
        ),
        (
            snapshot.path(),
            &[],
            &[
                "Facility calendar (iCal)",
                "Division calendar (iCal)",
                "Bookings calendar (iCal)",
                "tjzs.example.org",
            ],
        ),
        (
            snapshot.path(),
            &["--config", no_calendars],
            &["tjzs.example.org"],
        ),
        (plain.path(), &["--config", no_calendars], &[]),
        (
            snapshot.path(),
            &["--config", only_bookings],
            &["Bookings calendar (iCal)", "tjzs.example.org"],
        ),
    ];
    for (snapshot, extra, links) in cases {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("site");
        let mut args = vec![
            "build",
            "--snapshot",
            snapshot.to_str().unwrap(),
            "--output",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        run_ok(vatcar_at_demo_time(&args).env("VATCAR_API_KEY", KEY));
        let html = Html::parse_document(&fs::read_to_string(out.join("404.html")).unwrap());
        let footer = texts(&html, "footer .footer-links");
        if links.is_empty() {
            assert_eq!(footer, Vec::<String>::new(), "{extra:?}: no links, no line");
        } else {
            assert_eq!(footer, [links.join(" · ")], "{extra:?}");
        }
    }
}

/// Short pages (a 404, a small section) end with the footer at the bottom of the window: the
/// page is a column at least as tall as the window, whose main part takes the room left. Seen
/// in Chromium; here, that the theme asks for it, and gives it up on paper.
#[test]
fn the_theme_keeps_the_footer_at_the_bottom_of_a_short_page() {
    let site = build_demo(&[]);
    let css = site.text("static/style.css");
    let rule = |selector: &str| {
        let start = css
            .find(&format!("\n{selector} {{"))
            .unwrap_or_else(|| panic!("no `{selector}` rule"));
        let body = &css[start..];
        body[..body.find('}').unwrap()].to_owned()
    };
    let body = rule("body");
    for declaration in [
        "display: flex;",
        "flex-direction: column;",
        "min-height: 100vh;",
        "min-height: 100dvh;",
    ] {
        assert!(
            body.contains(declaration),
            "body lacks {declaration}: {body}"
        );
    }
    assert!(rule("body > main").contains("flex: 1 0 auto;"));
    let print = &css[css.find("@media print").expect("a print block")..];
    assert!(
        print.contains("body { font-size: 10.5pt; display: block; min-height: 0; }"),
        "{print}"
    );
}

/// The reader's local time is written in the page's language (the script reads it from <html
/// lang>), the browser's only where the page's cannot be formatted. Seen in Chromium; here,
/// that the script formats with the page's language and never with the browser's by default.
#[test]
fn local_times_are_formatted_in_the_pages_language() {
    let site = build_demo(&[]);
    let script = site.text("static/local-time.js");
    assert!(script.contains("document.documentElement.lang"), "{script}");
    assert!(script.contains("Intl.DateTimeFormat.supportedLocalesOf([pageLang])"));
    // The day, the clock and the zones' names (issue 40).
    assert_eq!(
        script.matches("new Intl.DateTimeFormat(locale, ").count(),
        3
    );
    assert!(!script.contains("new Intl.DateTimeFormat(undefined"));
    assert_eq!(
        select(&site.page("index.html"), "html")[0]
            .value()
            .attr("lang"),
        Some("en")
    );
}

// `[extra]` in vatcar-site.toml: a theme's own settings, with no code (Zola's `config.extra`).

/// A theme's layout.html showing two of `extra`'s values, and the whole of it as JSON, in
/// every page's footer.
const EXTRA_LAYOUT: &str = r#"{% extends "base.html" %}{% block footer_extra %}<p class="banner">{{ extra.banner_text }}</p><a class="discord" href="{{ extra.social.discord }}">{{ extra.social.hours | join(sep="-") }}</a><p class="extra-json">{{ extra | json_encode() }}</p>{% endblock footer_extra %}"#;

/// The pages of each kind of a demo build with a site folder.
const PAGE_KINDS: [&str; 5] = [
    "index.html",
    "roster/index.html",
    "events/421/index.html",
    "about/index.html",
    "404.html",
];

/// A site folder with `config`, a page of its own and `theme/` holding `files`, built.
fn build_with_theme(config: &str, files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let mut all: Vec<(String, &[u8])> = vec![(
        "content/about.md".to_owned(),
        b"+++\ntitle = \"About\"\n+++\nAbout us.\n".as_slice(),
    )];
    all.extend(
        files
            .iter()
            .map(|(name, text)| (format!("theme/{name}"), text.as_bytes())),
    );
    let listed: Vec<(&str, &[u8])> = all.iter().map(|(n, b)| (n.as_str(), *b)).collect();
    let site = site_folder(&format!("templates = \"theme\"\n{config}"), &listed);
    let (ran, out) = build_site(site.path(), &[]);
    assert_eq!(ran.code(), Some(0), "{}", ran.text());
    (site, out)
}

#[test]
fn extra_in_the_config_file_reaches_every_page_kind_escaped() {
    let config = r#"
[extra]
banner_text = "Controllers wanted <b>tonight</b> & after"

[extra.social]
discord = "https://discord.example/tjzs"
hours = [18, 22]
"#;
    let (_site, out) = build_with_theme(config, &[("layout.html", EXTRA_LAYOUT)]);
    for path in PAGE_KINDS {
        let (text, html) = crate::support::page(&out.join(path));
        assert_eq!(
            texts(&html, "p.banner"),
            ["Controllers wanted <b>tonight</b> & after"],
            "{path}"
        );
        // Escaped as any other value: the markup is text, not an element.
        assert!(select(&html, "p.banner b").is_empty(), "{path}");
        assert!(
            text.contains("Controllers wanted &lt;b&gt;tonight&lt;/b&gt; &amp; after"),
            "{path}"
        );
        let link = select(&html, "a.discord");
        assert_eq!(link.len(), 1, "{path}");
        assert_eq!(
            link[0].value().attr("href"),
            Some("https://discord.example/tjzs"),
            "{path}"
        );
        assert_eq!(texts(&html, "a.discord"), ["18-22"], "{path}");
    }
}

#[test]
fn without_extra_a_theme_finds_an_empty_map() {
    let layout = r#"{% extends "base.html" %}{% block footer_extra %}<p class="extra-json">{{ extra | json_encode() }}</p><p class="banner">{{ extra.banner_text | default(value="no banner") }}</p>{% endblock footer_extra %}"#;
    let (_site, out) = build_with_theme("", &[("layout.html", layout)]);
    for path in PAGE_KINDS {
        let (_, html) = crate::support::page(&out.join(path));
        assert_eq!(texts(&html, "p.extra-json"), ["{}"], "{path}");
        assert_eq!(texts(&html, "p.banner"), ["no banner"], "{path}");
    }
}

#[test]
fn extra_reaches_a_themes_own_event_page() {
    let event = r#"{% extends "layout.html" %}{% block content %}<h1>{{ event.name }}</h1><p class="event-extra">{{ extra.signup.label }}</p>{% endblock content %}"#;
    let config = "[extra.signup]\nlabel = \"Sign up on the forum\"\n";
    let (_site, out) = build_with_theme(config, &[("event.html", event)]);
    for id in ids("facility-events.json") {
        let (_, html) = crate::support::page(&out.join(format!("events/{id}/index.html")));
        assert_eq!(
            texts(&html, "p.event-extra"),
            ["Sign up on the forum"],
            "event {id}"
        );
    }
}
