//! `[activity]`: the roster's hours and last controlled, read from a mock of VATSIM's Core API
//! on 127.0.0.1 (`GET /v2/members/{cid}/atc?limit=&offset=`, `{"items": [{"connection_id":
//! {...}}], "count": N}`, newest first). The figures are held to a computation of the test's
//! own over the mock's sessions, not to the program's code.

use crate::support::{
    AgainstMock, MockServer, Reply, demo_api, demo_body, page, run_ok, tree, vatcar,
};
use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;
use vatcar_site::fetch::endpoint::Endpoint;

/// The build's "now" (SOURCE_DATE_EPOCH) and the window's 90 days before it.
pub(super) const NOW: &str = "2026-11-29T12:00:00Z";
pub(super) const WINDOW_DAYS: i64 = 90;

pub(super) const A: u64 = 1_000_001;
pub(super) const B: u64 = 1_000_002;
/// Its reads fail (500): unknown.
pub(super) const C: u64 = 1_000_003;
/// A visitor who only ever worked an ATIS.
pub(super) const V: u64 = 1_000_005;

/// One session as the Core API lists it; `end` None while it is open.
pub(super) struct Mocked {
    pub id: u64,
    pub callsign: &'static str,
    pub start: &'static str,
    pub end: Option<&'static str>,
}

fn item(cid: u64, s: &Mocked) -> Value {
    json!({"connection_id": {"id": s.id, "vatsim_id": cid.to_string(), "type": 1, "rating": 3,
        "callsign": s.callsign, "start": s.start, "end": s.end, "server": "USA-EAST"}})
}

pub(super) fn page_body(cid: u64, sessions: &[Mocked], count: usize) -> Vec<u8> {
    let items: Vec<Value> = sessions.iter().map(|s| item(cid, s)).collect();
    json!({"items": items, "count": count})
        .to_string()
        .into_bytes()
}

/// A's two pages: an open session, one across midnight, an _OBS, another facility's, a
/// 24-hour one and one across the window's edge (2026-08-31T12:00Z).
fn a_pages() -> (Vec<Mocked>, Vec<Mocked>) {
    let first = vec![
        Mocked {
            id: 16,
            callsign: "TJSJ_APP",
            start: "2026-11-29T10:00:00",
            end: None,
        },
        Mocked {
            id: 15,
            callsign: "TJSJ_TWR",
            start: "2026-11-28T22:30:00",
            end: Some("2026-11-29T01:20:00"),
        },
        Mocked {
            id: 14,
            callsign: "TJSJ_OBS",
            start: "2026-11-27T10:00:00",
            end: Some("2026-11-27T12:00:00"),
        },
    ];
    let second = vec![
        Mocked {
            id: 13,
            callsign: "MDSD_TWR",
            start: "2026-11-20T10:00:00",
            end: Some("2026-11-20T12:00:00"),
        },
        Mocked {
            id: 12,
            callsign: "TJZS_CTR",
            start: "2026-10-01T00:00:00",
            end: Some("2026-10-02T00:00:00"),
        },
        Mocked {
            id: 11,
            callsign: "TJSJ_GND",
            start: "2026-08-31T10:00:00",
            end: Some("2026-08-31T13:30:00"),
        },
    ];
    (first, second)
}

fn b_sessions() -> Vec<Mocked> {
    vec![Mocked {
        id: 21,
        callsign: "TJZS_DEP",
        start: "2026-11-10T08:00:00",
        end: Some("2026-11-10T09:12:00"),
    }]
}

fn v_sessions() -> Vec<Mocked> {
    vec![Mocked {
        id: 31,
        callsign: "TJSJ_ATIS",
        start: "2026-11-01T08:00:00",
        end: Some("2026-11-01T10:00:00"),
    }]
}

pub(super) fn path(cid: u64) -> String {
    format!("/v2/members/{cid}/atc")
}

/// The Core API's mock: A's pages after a 429, B's and V's one page, C's 500.
fn core_api() -> MockServer {
    let core = MockServer::start();
    let (first, second) = a_pages();
    core.route_path(
        &path(A),
        vec![
            Reply::status(429).header("Retry-After", "0"),
            Reply::ok(page_body(A, &first, 6)),
            Reply::ok(page_body(A, &second, 6)),
        ],
    );
    core.route_path(&path(B), vec![Reply::ok(page_body(B, &b_sessions(), 1))]);
    core.route_path(&path(C), vec![Reply::status(500)]);
    core.route_path(&path(V), vec![Reply::ok(page_body(V, &v_sessions(), 1))]);
    core
}

/// The facility API's mock: the demo's data with a roster of A, B and C, and V visiting.
pub(super) fn facility_api() -> MockServer {
    let api = demo_api();
    let mut roster: Value = serde_json::from_slice(&demo_body("facility-roster.json")).unwrap();
    let data = &mut roster["data"];
    let template = data["controllers"][0].clone();
    let controllers: Vec<Value> = [A, B, C]
        .iter()
        .map(|cid| {
            let mut c = template.clone();
            c["cid"] = json!(cid);
            c["last_name"] = json!(format!("Member{cid}"));
            c
        })
        .collect();
    let mut visitor = data["visitors"][0].clone();
    visitor["cid"] = json!(V);
    data["controllers"] = json!(controllers);
    data["visitors"] = json!([visitor]);
    api.reply(Endpoint::FacilityRoster, Reply::ok(roster.to_string()));
    api
}

/// The hours and last controlled the rule gives each member's sessions at [`NOW`], by
/// tests/activity/hours.py: the rule as docs/activity.md words it, computed in Python over the
/// items the mock serves, not by the program's code.
fn rule(members: &[(u64, Vec<Value>)]) -> HashMap<u64, (String, Option<String>)> {
    (rule_at(members, NOW).into_iter())
        .map(|(cid, f)| {
            let hours = f["hours"].as_str().unwrap().to_owned();
            (cid, (hours, f["last"].as_str().map(str::to_owned)))
        })
        .collect()
}

/// Each member's figures at `now` by tests/activity/hours.py, as it writes them: `hours`,
/// `last` and `months` (the seconds that count in each UTC month).
fn rule_at(members: &[(u64, Vec<Value>)], now: &str) -> HashMap<u64, Value> {
    let given = json!({
        "now": now,
        "window_days": WINDOW_DAYS,
        "callsigns": ["TJSJ", "TJZS"],
        "members": members.iter().map(|(cid, items)| (cid.to_string(), json!(items)))
            .collect::<serde_json::Map<String, Value>>(),
    });
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/activity/hours.py");
    let mut child = std::process::Command::new("python3")
        .arg(script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs tests/activity/hours.py");
    use std::io::Write;
    (child.stdin.take().unwrap())
        .write_all(given.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "tests/activity/hours.py failed");
    let figures: HashMap<String, Value> = serde_json::from_slice(&out.stdout).unwrap();
    (figures.into_iter())
        .map(|(cid, f)| (cid.parse().unwrap(), f))
        .collect()
}

/// [`rule`] for one member's mocked sessions.
fn expected(sessions: &[Mocked]) -> (String, Option<String>) {
    let items = sessions.iter().map(|s| item(A, s)).collect();
    rule(&[(A, items)]).remove(&A).unwrap()
}

pub(super) fn config(site: &Path, core: &MockServer, requests: u32, enabled: bool) {
    let text = format!(
        "[activity]\nenabled = {enabled}\ncallsigns = [\"TJSJ\", \"TJZS\"]\nrequests = {requests}\ninterval_seconds = 0\napi = \"{}\"\n",
        core.url()
    );
    std::fs::write(site.join("vatcar-site.toml"), text).unwrap();
}

/// [`config`] with a budget of 60, and `[people]` on.
pub(super) fn config_with_people(site: &Path, core: &MockServer) {
    config(site, core, 60, true);
    let config_file = site.join("vatcar-site.toml");
    let mut text = std::fs::read_to_string(&config_file).unwrap();
    text.push_str("\n[people]\nenabled = true\n");
    std::fs::write(&config_file, text).unwrap();
}

pub(super) fn build(site: &Path, api: &MockServer, out: &str) -> std::path::PathBuf {
    build_printing(site, api, out).0
}

/// [`build`], and what it printed.
fn build_printing(site: &Path, api: &MockServer, out: &str) -> (std::path::PathBuf, String) {
    build_at(site, api, out, NOW)
}

/// [`build_printing`] at `now`.
fn build_at(site: &Path, api: &MockServer, out: &str, now: &str) -> (std::path::PathBuf, String) {
    let output = site.join(out);
    let config = site.join("vatcar-site.toml");
    let ran = run_ok(
        vatcar(&[
            "build",
            "--config",
            config.to_str().unwrap(),
            "--output",
            output.to_str().unwrap(),
        ])
        .against(api)
        .env(
            "SOURCE_DATE_EPOCH",
            now.parse::<DateTime<Utc>>()
                .unwrap()
                .timestamp()
                .to_string(),
        ),
    );
    (output, ran.text())
}

/// Each member's row on the roster: CID → (hours, last controlled).
fn rows(output: &Path) -> std::collections::HashMap<u64, (String, String)> {
    let (_, html) = page(&output.join("roster/index.html"));
    let mut rows = std::collections::HashMap::new();
    let selector = scraper::Selector::parse("table[data-sortable] tbody tr").unwrap();
    let cell = scraper::Selector::parse("td").unwrap();
    for row in html.select(&selector) {
        let cells: Vec<String> = row
            .select(&cell)
            .map(|c| c.text().collect::<String>().trim().to_owned())
            .collect();
        let cid: u64 = cells[1].parse().unwrap();
        let n = cells.len();
        // The hours, without the day the sessions were read under them.
        let hours = row.select(&cell).nth(n - 2).unwrap();
        let hours = hours.text().next().unwrap_or_default().trim().to_owned();
        rows.insert(cid, (hours, cells[n - 1].clone()));
    }
    rows
}

fn requests(core: &MockServer) -> Vec<String> {
    core.log().into_iter().map(|l| l.target).collect()
}

#[test]
fn the_roster_shows_the_hours_the_rule_gives_within_the_budget_and_later_builds_read_little() {
    let site = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR").to_owned() + "/target").unwrap();
    let (api, core) = (facility_api(), core_api());

    // A budget of 4: A's 429 and two pages, then B; C and V wait for the next build.
    config(site.path(), &core, 4, true);
    let output = build(site.path(), &api, "public");
    let sent = requests(&core);
    assert_eq!(sent.len(), 4, "{sent:?}");
    assert!(
        sent[1].ends_with("atc?limit=100&offset=0") && sent[2].ends_with("atc?limit=100&offset=3"),
        "{sent:?}"
    );
    let shown = rows(&output);
    let (a_first, a_second) = a_pages();
    let a_all: Vec<Mocked> = a_first.into_iter().chain(a_second).collect();
    let (hours, last) = expected(&a_all);
    assert_eq!(shown[&A], (hours.clone(), last.clone().unwrap()));
    assert_eq!(hours, "4.3");
    // How fresh a figure is, in words a keyboard or touch reader sees too.
    let (_, roster) = page(&output.join("roster/index.html"));
    let read = scraper::Selector::parse("td small.checked").unwrap();
    let days: Vec<String> = roster.select(&read).map(|d| d.text().collect()).collect();
    assert!(
        !days.is_empty() && days.iter().all(|d| d.starts_with("Sessions read ")),
        "{days:?}"
    );
    assert_eq!(shown[&C].0, "unknown");
    assert_eq!(shown[&V], ("unknown".to_owned(), "unknown".to_owned()));
    assert!(output.join("data/activity.json").is_file());
    assert!(
        site.path()
            .join(".vatcar-site-cache/activity.json")
            .is_file()
    );

    // The rest: C fails, V is read, A and B (read before) take one request each.
    config(site.path(), &core, 60, true);
    let output = build(site.path(), &api, "public");
    let sent: Vec<String> = requests(&core).split_off(4);
    assert_eq!(sent.len(), 4, "{sent:?}");
    let shown = rows(&output);
    assert_eq!(shown[&A], (hours, last.unwrap()));
    let (b_hours, b_last) = expected(&b_sessions());
    assert_eq!(shown[&B], (b_hours, b_last.unwrap()));
    assert_eq!(shown[&B].0, "1.2");
    let (v_hours, v_last) = expected(&v_sessions());
    assert_eq!((v_hours.as_str(), v_last), ("0.0", None));
    assert_eq!(
        shown[&V],
        ("0.0".to_owned(), "not in the window".to_owned())
    );
    assert_eq!(shown[&C], ("unknown".to_owned(), "unknown".to_owned()));

    // No new sessions (A's first page again): at most one request per member.
    let (first, _) = a_pages();
    core.route_path(&path(A), vec![Reply::ok(page_body(A, &first, 6))]);
    let before = requests(&core).len();
    build(site.path(), &api, "public");
    let sent: Vec<String> = requests(&core).split_off(before);
    assert!(sent.len() <= 4, "{sent:?}");
    for cid in [A, B, C, V] {
        let asked = sent.iter().filter(|t| t.starts_with(&path(cid))).count();
        assert!(asked <= 1, "{cid}: {sent:?}");
    }

    // A CI run's empty folder, no cache: the output folder's published data is the start.
    std::fs::remove_dir_all(site.path().join(".vatcar-site-cache")).unwrap();
    let before = requests(&core).len();
    config(site.path(), &core, 0, true);
    let output = build(site.path(), &api, "public");
    assert_eq!(requests(&core).len(), before);
    assert_eq!(rows(&output)[&B].0, "1.2");
}

#[test]
fn with_activity_off_no_request_is_made_and_the_output_is_the_same() {
    let site = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR").to_owned() + "/target").unwrap();
    let (api, core) = (facility_api(), core_api());
    config(site.path(), &core, 60, false);
    let off = build(site.path(), &api, "off");
    std::fs::write(site.path().join("vatcar-site.toml"), "").unwrap();
    let without = build(site.path(), &api, "without");
    assert!(core.log().is_empty());
    let (mut a, mut b) = (tree(&off), tree(&without));
    // The build's own record of its output folder names the folder.
    for t in [&mut a, &mut b] {
        t.retain(|path, _| !path.starts_with(".vatcar-site"));
    }
    crate::support::assert_same_files(&a, &b);
}

/// A member's page's facts (`[people]`): each `<dt>`'s text and its `<dd>`'s.
fn facts(output: &Path, cid: u64) -> std::collections::HashMap<String, String> {
    let (_, html) = page(&output.join(format!("roster/{cid}/index.html")));
    let pair = scraper::Selector::parse("dl.facts > div").unwrap();
    let (dt, dd) = (
        scraper::Selector::parse("dt").unwrap(),
        scraper::Selector::parse("dd").unwrap(),
    );
    let text = |e: scraper::ElementRef| e.text().collect::<String>().trim().to_owned();
    (html.select(&pair))
        .map(|div| {
            let term = div.select(&dt).next().map(text).unwrap_or_default();
            (term, div.select(&dd).next().map(text).unwrap_or_default())
        })
        .collect()
}

#[test]
fn with_people_on_a_members_page_shows_the_hours_and_last_controlled_the_rule_gives() {
    let site = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR").to_owned() + "/target").unwrap();
    let (api, core) = (facility_api(), core_api());
    config_with_people(site.path(), &core);
    let output = build(site.path(), &api, "public");
    let (a_first, a_second) = a_pages();
    let a_all: Vec<Mocked> = a_first.into_iter().chain(a_second).collect();
    let (hours, last) = expected(&a_all);
    let a = facts(&output, A);
    assert_eq!(a["Hours (90 days)"], hours, "{a:?}");
    assert_eq!(a["Last controlled"], last.unwrap(), "{a:?}");
    assert!(a.contains_key("Sessions last read"), "{a:?}");
    let c = facts(&output, C);
    assert_eq!(
        (c["Hours (90 days)"].as_str(), c["Last controlled"].as_str()),
        ("unknown", "unknown")
    );
    assert!(!c.contains_key("Sessions last read"), "{c:?}");
    let v = facts(&output, V);
    assert_eq!(v["Last controlled"], "not in the window", "{v:?}");
}

/// An HTTP date (RFC 9110's IMF-fixdate) `seconds` from now, by the real clock: the Core
/// API's `Retry-After` is the server's time, not the build's.
fn http_date_in(seconds: i64) -> String {
    (Utc::now() + chrono::TimeDelta::seconds(seconds))
        .format("%a, %d %b %Y %H:%M:%S GMT")
        .to_string()
}

#[test]
fn a_retry_after_date_an_hour_away_stops_reading_and_the_next_build_goes_on() {
    let site = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR").to_owned() + "/target").unwrap();
    let (api, core) = (facility_api(), core_api());
    let (first, second) = a_pages();
    core.route_path(
        &path(A),
        vec![
            Reply::status(429).header("Retry-After", &http_date_in(3600)),
            Reply::ok(page_body(A, &first, 6)),
            Reply::ok(page_body(A, &second, 6)),
        ],
    );
    config(site.path(), &core, 60, true);
    let (output, printed) = build_printing(site.path(), &api, "public");
    // Read as a date (a wait of about 3,600 s), it is beyond the two minutes a build waits:
    // one request, then none. (Read as nothing, the build would wait its 60 s default and go on.)
    assert_eq!(requests(&core).len(), 1, "{:?}", requests(&core));
    assert!(
        printed.contains("answered 429 (too many requests)")
            && printed.contains("asking to wait 3"),
        "{printed}"
    );
    assert!(rows(&output).values().all(|(hours, _)| hours == "unknown"));

    let output = build(site.path(), &api, "public");
    let shown = rows(&output);
    let all: Vec<Mocked> = first.into_iter().chain(second).collect();
    assert_eq!(shown[&A].0, expected(&all).0);
    assert_eq!(shown[&B].0, "1.2");
}

/// `n` members from 2,000,000 on, each with a page of sessions made from their CID: ours
/// and others' positions, an _OBS, some open, some before the window.
fn many_members(n: u64) -> (MockServer, MockServer, Vec<(u64, Vec<Value>)>) {
    let callsigns = [
        "TJSJ_TWR",
        "TJZS_CTR",
        "TJSJ_OBS",
        "MDSD_APP",
        "TJSJ_GND",
        "TJSJ_I_APP",
    ];
    let now = NOW.parse::<DateTime<Utc>>().unwrap();
    let mut members = Vec::new();
    for i in 0..n {
        let cid = 2_000_000 + i;
        let items: Vec<Value> = (0..i % 5)
            .map(|j| {
                let start = now
                    - chrono::TimeDelta::days(((i * 7 + j * 13) % 100) as i64)
                    - chrono::TimeDelta::hours((j * 5 % 24) as i64);
                let end = start + chrono::TimeDelta::minutes((30 + (i * (j + 1)) % 150) as i64);
                let open = i % 17 == 0 && j == 0;
                let time = |t: DateTime<Utc>| t.format("%Y-%m-%dT%H:%M:%S").to_string();
                json!({"connection_id": {"id": cid * 10 + j, "vatsim_id": cid.to_string(),
                    "callsign": callsigns[((i + j) % 6) as usize], "start": time(start),
                    "end": if open { Value::Null } else { json!(time(end)) }}})
            })
            .collect();
        members.push((cid, items));
    }
    let core = MockServer::start();
    for (cid, items) in &members {
        let body = json!({"items": items, "count": items.len()}).to_string();
        core.route_path(&path(*cid), vec![Reply::ok(body)]);
    }
    let api = demo_api();
    let mut roster: Value = serde_json::from_slice(&demo_body("facility-roster.json")).unwrap();
    let data = &mut roster["data"];
    let template = data["controllers"][0].clone();
    data["controllers"] = (members.iter())
        .map(|(cid, _)| {
            let mut c = template.clone();
            c["cid"] = json!(cid);
            c["last_name"] = json!(format!("Member{cid}"));
            c
        })
        .collect();
    data["visitors"] = json!([]);
    api.reply(Endpoint::FacilityRoster, Reply::ok(roster.to_string()));
    (api, core, members)
}

#[test]
fn two_hundred_members_are_read_within_the_budget_in_the_builds_the_docs_say() {
    let site = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR").to_owned() + "/target").unwrap();
    let (api, core, members) = many_members(200);
    let expected = rule(&members);
    config(site.path(), &core, 60, true);
    // docs/activity.md: "200 members: 4 builds" with the default budget of 60.
    let mut before = 0;
    for build_number in 1..=4usize {
        let output = build(site.path(), &api, "public");
        let sent = requests(&core).len();
        assert!(
            sent - before <= 60,
            "build {build_number}: {} requests",
            sent - before
        );
        before = sent;
        let shown = rows(&output);
        let known = shown.values().filter(|(h, _)| h != "unknown").count();
        assert_eq!(
            known,
            (60 * build_number).min(200),
            "after build {build_number}"
        );
        for (cid, (hours, last)) in &shown {
            if hours != "unknown" {
                let (want_hours, want_last) = &expected[cid];
                assert_eq!(hours, want_hours, "{cid}");
                let want_last = want_last.as_deref().unwrap_or("not in the window");
                assert_eq!(last, want_last, "{cid}");
            }
        }
    }
    // The first pass read each member once; the fourth build's rest of its budget went to
    // the members read longest ago, the first build's.
    let mut asked: HashMap<String, usize> = HashMap::new();
    for target in requests(&core) {
        *asked.entry(target).or_default() += 1;
    }
    assert_eq!(asked.len(), 200);
    assert_eq!(asked.values().filter(|n| **n == 2).count(), 40);
}

#[test]
fn a_ci_run_with_an_empty_folder_starts_from_the_published_sites_activity() {
    let site = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR").to_owned() + "/target").unwrap();
    let (api, core) = (facility_api(), core_api());
    config(site.path(), &core, 60, true);
    let published = build(site.path(), &api, "published");
    let before = rows(&published);
    assert_ne!(before[&B].0, "unknown");

    // The published site, as its host serves it; a new run with no cache and no output.
    let host = MockServer::start();
    let activity = std::fs::read(published.join("data/activity.json")).unwrap();
    host.route_path("/data/activity.json", vec![Reply::ok(activity)]);
    std::fs::remove_dir_all(site.path().join(".vatcar-site-cache")).unwrap();
    let mut text = std::fs::read_to_string(site.path().join("vatcar-site.toml")).unwrap();
    text = text.replace("requests = 60", "requests = 0");
    text = format!("previous = \"{}/\"\n{text}", host.url());
    std::fs::write(site.path().join("vatcar-site.toml"), text).unwrap();
    let (fresh, printed) = build_printing(site.path(), &api, "fresh");
    let asked: Vec<String> = host.log().into_iter().map(|l| l.target).collect();
    assert!(
        asked.iter().any(|t| t.starts_with("/data/activity.json?")),
        "{asked:?} {printed}"
    );
    assert_eq!(rows(&fresh), before);
}

#[test]
fn the_demos_sessions_are_never_taken_for_a_facilitys_members() {
    let site = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR").to_owned() + "/target").unwrap();
    let output = site.path().join("public");
    // README's first step: the demo, into the folder the real site is built into next.
    run_ok(&mut vatcar(&[
        "build",
        "--demo",
        "--output",
        output.to_str().unwrap(),
    ]));
    let demo = rows(&output);
    assert!(demo.values().filter(|(h, _)| h != "unknown").count() > 30);
    // The real facility's roster shares the demo's CIDs; nothing is read from VATSIM.
    let (api, core) = (demo_api(), core_api());
    config(site.path(), &core, 0, true);
    let (output, printed) = build_printing(site.path(), &api, "public");
    let shown = rows(&output);
    assert_eq!(shown.len(), demo.len());
    assert!(
        shown
            .values()
            .all(|(h, l)| h == "unknown" && l == "unknown"),
        "{shown:?}"
    );
    assert!(
        printed.contains("was made from the demo's data"),
        "{printed}"
    );
}

/// Each ranked member's link and hours, as the home page shows them.
type Ranked = Vec<(String, String)>;

/// The home page's most active of the month (`[activity] home_top`): its heading, each
/// `<li>`'s link and hours, and the block's whole HTML; `None` when there is no block.
fn month_top(output: &Path) -> Option<(String, Ranked, String)> {
    let (_, html) = page(&output.join("index.html"));
    let block = scraper::Selector::parse("section[aria-labelledby=month-top]").unwrap();
    let block = html.select(&block).next()?;
    let item = scraper::Selector::parse("ol.month-top li").unwrap();
    let (link, hours) = (
        scraper::Selector::parse("a").unwrap(),
        scraper::Selector::parse(".month-top-hours").unwrap(),
    );
    let heading = scraper::Selector::parse("h2").unwrap();
    let heading: String = block.select(&heading).next()?.text().collect();
    let ranked = (block.select(&item))
        .map(|li| {
            let href = li.select(&link).next().unwrap().attr("href").unwrap();
            let hours: String = li.select(&hours).next().unwrap().text().collect();
            (href.to_owned(), hours)
        })
        .collect();
    Some((heading, ranked, block.html()))
}

/// The top three of `month` by the test's own sums (tests/activity/hours.py), `left_out`
/// left out: each one's page and hours as the home page writes them.
fn top_three(figures: &HashMap<u64, Value>, month: &str, left_out: u64) -> Ranked {
    let mut ranked: Vec<(i64, u64)> = (figures.iter())
        .filter_map(|(cid, f)| Some((f["months"].get(month)?.as_i64()?, *cid)))
        .filter(|(seconds, cid)| *seconds > 0 && *cid != left_out)
        .collect();
    ranked.sort_by_key(|(seconds, cid)| (std::cmp::Reverse(*seconds), *cid));
    (ranked.into_iter().take(3))
        .map(|(seconds, cid)| {
            let hours = format!("{:.1}\u{a0}h", seconds as f64 / 3600.0);
            (format!("roster/{cid}/"), hours)
        })
        .collect()
}

#[test]
fn the_home_pages_top_three_are_the_months_most_hours_and_an_opted_out_member_is_never_named() {
    let site = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR").to_owned() + "/target").unwrap();
    let (api, core, members) = many_members(30);
    let figures = rule_at(&members, NOW);
    // The one with the most hours in November opts out: the fourth takes their place.
    let mut most = (figures.iter())
        .filter_map(|(cid, f)| Some((f["months"].get("2026-11")?.as_i64()?, *cid)))
        .collect::<Vec<_>>();
    most.sort_by_key(|(seconds, cid)| (std::cmp::Reverse(*seconds), *cid));
    assert!(
        most.len() >= 5,
        "the mock's sessions give too few: {most:?}"
    );
    let opted_out = most[0].1;
    config(site.path(), &core, 60, true);
    let file = site.path().join("vatcar-site.toml");
    let text = std::fs::read_to_string(&file).unwrap()
        + &format!("home_top = true\n\n[people]\nenabled = true\nopt_out = [{opted_out}]\n");
    std::fs::write(&file, text).unwrap();

    let output = build(site.path(), &api, "public");
    let (heading, ranked, html) = month_top(&output).expect("the block is on the home page");
    assert_eq!(heading, "Most active in November 2026 so far");
    assert_eq!(ranked, top_three(&figures, "2026-11", opted_out));
    assert!(!html.contains(&opted_out.to_string()), "{html}");
    assert!(html.contains("Known for 30 of 30 members"), "{html}");

    // In a month's first days, the last full month: November's figures, read on the 29th.
    config(site.path(), &core, 0, true);
    let text = std::fs::read_to_string(&file).unwrap()
        + &format!("home_top = true\n\n[people]\nenabled = true\nopt_out = [{opted_out}]\n");
    std::fs::write(&file, text).unwrap();
    let (output, _) = build_at(site.path(), &api, "public", "2026-12-03T08:00:00Z");
    let (heading, ranked, html) = month_top(&output).unwrap();
    assert_eq!(heading, "Most active in November 2026");
    assert_eq!(ranked, top_three(&figures, "2026-11", opted_out));
    assert!(html.contains("each read on 29 Nov 2026 or later"), "{html}");
}

#[test]
fn with_the_month_keys_off_the_output_is_the_same_as_without_them() {
    let site = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR").to_owned() + "/target").unwrap();
    let (api, core) = (facility_api(), core_api());
    config(site.path(), &core, 60, true);
    let off = build(site.path(), &api, "off");
    let file = site.path().join("vatcar-site.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    // The second build reads the first's sessions and sends no request.
    let text = text.replace("requests = 60", "requests = 0");
    std::fs::write(&file, text + "home_top = false\nmonthly_summary = false\n").unwrap();
    let again = build(site.path(), &api, "again");
    let (mut a, mut b) = (tree(&off), tree(&again));
    for t in [&mut a, &mut b] {
        t.retain(|path, _| !path.starts_with(".vatcar-site"));
    }
    crate::support::assert_same_files(&a, &b);
    let (_, home) = page(&off.join("index.html"));
    assert!(!home.html().contains("month-top"));
    let changes = std::fs::read_to_string(off.join("data/changes.json")).unwrap();
    assert!(!changes.contains("activity_month") && !changes.contains("first_session"));
}

/// A facility of `members` (CID, join date) as home controllers, named `Member<cid>`.
fn roster_of(members: &[(u64, &str)]) -> MockServer {
    let api = demo_api();
    let mut roster: Value = serde_json::from_slice(&demo_body("facility-roster.json")).unwrap();
    let data = &mut roster["data"];
    let template = data["controllers"][0].clone();
    data["controllers"] = (members.iter())
        .map(|(cid, joined)| {
            let mut c = template.clone();
            c["cid"] = json!(cid);
            c["last_name"] = json!(format!("Member{cid}"));
            c["join_date"] = json!(joined);
            c
        })
        .collect();
    data["visitors"] = json!([]);
    api.reply(Endpoint::FacilityRoster, Reply::ok(roster.to_string()));
    api
}

/// One closed TJSJ_TWR session, newest first as the Core API lists them.
fn twr(id: u64, start: &'static str, end: &'static str) -> Mocked {
    Mocked {
        id,
        callsign: "TJSJ_TWR",
        start,
        end: Some(end),
    }
}

/// data/changes.json's first-session entries: (id, date, new).
fn first_sessions(output: &Path) -> Vec<(String, String, bool)> {
    let changes: Value =
        serde_json::from_slice(&std::fs::read(output.join("data/changes.json")).unwrap()).unwrap();
    (changes["changes"].as_array().unwrap().iter())
        .filter(|c| c["kind"] == "first_session")
        .map(|c| {
            let (id, date) = (c["id"].as_str().unwrap(), c["date"].as_str().unwrap());
            (id.to_owned(), date.to_owned(), c["new"].as_bool().unwrap())
        })
        .collect()
}

#[test]
fn whats_new_lists_a_first_session_only_when_it_is_one_and_began_since_the_previous_build() {
    // N: joined in the window, first controls after the first build: the one entry.
    // O: joined in the window, controlled before the first build too.
    // L: a member since 2020 (before the window), whose earlier sessions are not kept.
    // P: as N, but opted out. F: as O, but first read by the second build (the budget of
    // the first ran out before their turn): the first read of their history is no news.
    const N: u64 = 3_000_001;
    const O: u64 = 3_000_002;
    const L: u64 = 3_000_003;
    const P: u64 = 3_000_004;
    const F: u64 = 3_000_005;
    let site = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR").to_owned() + "/target").unwrap();
    let joined = "2026-11-01";
    let api = roster_of(&[
        (N, joined),
        (O, joined),
        (L, "2020-01-01"),
        (P, joined),
        (F, joined),
    ]);
    let core = MockServer::start();
    let serve = |cid: u64, sessions: Vec<Mocked>| {
        let count = sessions.len();
        core.route_path(
            &path(cid),
            vec![Reply::ok(page_body(cid, &sessions, count))],
        );
    };
    let early = || twr(2, "2026-11-10T10:00:00", "2026-11-10T12:00:00");
    for cid in [N, L, P] {
        serve(cid, vec![]);
    }
    serve(O, vec![early()]);
    serve(F, vec![early()]);
    let write_config = |requests: u32| {
        config(site.path(), &core, requests, true);
        let file = site.path().join("vatcar-site.toml");
        // With the site's address, What's new has its Atom feed.
        let text = "site_url = \"https://tjsj.example.org/\"\n".to_owned()
            + &std::fs::read_to_string(&file).unwrap()
            + &format!("\n[people]\nenabled = true\nopt_out = [{P}]\n");
        std::fs::write(&file, text).unwrap();
    };
    write_config(4);
    let (output, _) = build_at(site.path(), &api, "public", "2026-11-20T12:00:00Z");
    assert_eq!(first_sessions(&output), []);
    assert!(!requests(&core).iter().any(|r| r.starts_with(&path(F))));

    // Between the builds, each controls on the 25th.
    let late = || twr(9, "2026-11-25T18:00:00", "2026-11-25T20:30:00");
    for cid in [N, L, P] {
        serve(cid, vec![late()]);
    }
    serve(O, vec![late(), early()]);
    serve(F, vec![late(), early()]);
    write_config(60);
    let (output, _) = build_at(site.path(), &api, "public", "2026-11-29T12:00:00Z");
    assert_eq!(
        first_sessions(&output),
        [(
            format!("first_session:{N}"),
            "2026-11-25T18:00:00Z".to_owned(),
            true
        )]
    );
    let (_, page) = page(&output.join("whats-new/index.html"));
    let entry = scraper::Selector::parse(".change-first-session a").unwrap();
    let entries: Vec<(String, String)> = (page.select(&entry))
        .map(|a| (a.attr("href").unwrap().to_owned(), a.text().collect()))
        .collect();
    assert_eq!(
        entries,
        [(
            format!("../roster/{N}/"),
            "Jada M.’s first session at the facility".to_owned()
        )]
    );
    let feed = std::fs::read_to_string(output.join("whats-new.xml")).unwrap();
    assert!(
        feed.contains("<title>Jada M.’s first session at the facility</title>"),
        "{feed}"
    );
    let (_, home) = crate::support::page(&output.join("index.html"));
    assert!(home.html().contains("first session at the facility"));
    // The member's own page lists it among their milestones; the others' pages do not.
    let milestones = |cid: u64| {
        let (_, member) = crate::support::page(&output.join(format!("roster/{cid}/index.html")));
        crate::support::texts(
            &member,
            "#history + ul li, section[aria-labelledby=history] li",
        )
    };
    assert!(
        milestones(N)
            .iter()
            .any(|t| t.contains("first session at the facility")),
        "{:?}",
        milestones(N)
    );
    assert!(!milestones(O).iter().any(|t| t.contains("first session")));

    // A build with nothing new carries the entry on, no longer new, and finds no other.
    let (output, _) = build_at(site.path(), &api, "public", "2026-11-29T18:00:00Z");
    assert_eq!(
        first_sessions(&output),
        [(
            format!("first_session:{N}"),
            "2026-11-25T18:00:00Z".to_owned(),
            false
        )]
    );
}

/// `announce` run for the site built into `output` (its config in `site`), posting to `hook`.
fn announce(
    site: &Path,
    output: &Path,
    hook: &crate::support::webhook::Webhook,
    extra: &[&str],
) -> String {
    let config = site.join("vatcar-site.toml");
    let mut args = vec![
        "announce",
        "--config",
        config.to_str().unwrap(),
        "--output",
        output.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let mut command = vatcar(&args);
    command.env("DISCORD_WEBHOOK_URL", hook.url());
    run_ok(&mut command).text()
}

#[test]
fn announce_posts_the_months_summary_once_with_the_tests_own_sums_escaped() {
    const M1: u64 = 4_000_001;
    const M2: u64 = 4_000_002;
    const M3: u64 = 4_000_003;
    const M4: u64 = 4_000_004;
    let site = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR").to_owned() + "/target").unwrap();
    let api = roster_of(&[
        (M1, "2026-10-20"),
        (M2, "2026-10-20"),
        (M3, "2026-10-20"),
        (M4, "2026-10-20"),
    ]);
    let sessions: Vec<(u64, Vec<Mocked>)> = vec![
        (
            M1,
            vec![
                twr(13, "2026-11-03T10:00:00", "2026-11-03T14:00:00"),
                // Across October's end: an hour in each month.
                twr(12, "2026-10-31T23:00:00", "2026-11-01T01:00:00"),
            ],
        ),
        (
            M2,
            vec![twr(21, "2026-11-05T10:00:00", "2026-11-05T12:30:00")],
        ),
        (
            M3,
            vec![twr(31, "2026-11-07T10:00:00", "2026-11-07T11:00:00")],
        ),
        (
            M4,
            vec![twr(41, "2026-11-09T10:00:00", "2026-11-09T13:00:00")],
        ),
    ];
    let core = MockServer::start();
    for (cid, list) in &sessions {
        core.route_path(
            &path(*cid),
            vec![Reply::ok(page_body(*cid, list, list.len()))],
        );
    }
    // M4's name is markdown and a mention, as the API may send it.
    let hostile = {
        let mut roster: Value = serde_json::from_slice(&demo_body("facility-roster.json")).unwrap();
        let template = roster["data"]["controllers"][0].clone();
        roster["data"]["controllers"] = (sessions.iter())
            .map(|(cid, _)| {
                let mut c = template.clone();
                c["cid"] = json!(cid);
                c["last_name"] = json!(format!("Member{cid}"));
                c["join_date"] = json!("2026-10-20");
                if *cid == M4 {
                    c["first_name"] = json!("@everyone");
                    c["last_name"] = json!("**Bold**");
                }
                c
            })
            .collect();
        roster["data"]["visitors"] = json!([]);
        roster
    };
    api.reply(Endpoint::FacilityRoster, Reply::ok(hostile.to_string()));
    let write_config = |requests: u32| {
        config(site.path(), &core, requests, true);
        let file = site.path().join("vatcar-site.toml");
        let text = "site_url = \"https://tjsj.example.org/\"\n".to_owned()
            + &std::fs::read_to_string(&file).unwrap()
            + "monthly_summary = true\n\n[people]\nnames = \"full\"\n";
        std::fs::write(&file, text).unwrap();
    };
    let hook = crate::support::webhook::Webhook::accepting();

    // A first build: its summary (October's) is no news.
    write_config(60);
    let (output, _) = build_at(site.path(), &api, "public", "2026-11-29T12:00:00Z");
    announce(site.path(), &output, &hook, &[]);
    assert!(hook.delivered().is_empty());

    // December: November's summary is new; a dry run shows it and sends nothing.
    write_config(0);
    let now = "2026-12-02T12:00:00Z";
    let (output, _) = build_at(site.path(), &api, "public", now);
    let dry = announce(site.path(), &output, &hook, &["--dry-run"]);
    assert!(dry.contains("activity summary of 2026-11"), "{dry}");
    assert!(hook.delivered().is_empty());
    announce(site.path(), &output, &hook, &[]);
    let delivered = hook.delivered();
    assert_eq!(delivered.len(), 1, "{delivered:?}");

    // The test's own sums: every member's November by tests/activity/hours.py.
    let items: Vec<(u64, Vec<Value>)> = (sessions.iter())
        .map(|(cid, list)| (*cid, list.iter().map(|s| item(*cid, s)).collect()))
        .collect();
    let figures = rule_at(&items, now);
    let seconds = |cid: &u64| figures[cid]["months"]["2026-11"].as_i64().unwrap();
    let total: i64 = sessions.iter().map(|(cid, _)| seconds(cid)).sum();
    let embed = &delivered[0]["embeds"][0];
    assert_eq!(
        embed["title"],
        format!(
            "November 2026: {:.1} hours controlled",
            total as f64 / 3600.0
        )
    );
    assert_eq!(delivered[0]["allowed_mentions"]["parse"], json!([]));
    let text = embed["description"].as_str().unwrap();
    let mut top: Vec<u64> = sessions.iter().map(|(cid, _)| *cid).collect();
    top.sort_by_key(|cid| (std::cmp::Reverse(seconds(cid)), *cid));
    let line = text.lines().next().unwrap();
    for cid in &top[..3] {
        let hours = format!("({:.1}\u{a0}h)", seconds(cid) as f64 / 3600.0);
        assert!(line.contains(&hours), "{cid} {hours}: {line}");
    }
    assert!(!line.contains(&format!("Member{}", top[3])), "{line}");
    // The name is shown, and neither formats nor pings anyone.
    assert!(
        text.contains("@\u{200B}everyone \\*\\*Bold\\*\\*"),
        "{text}"
    );
    assert!(!text.contains("@everyone"), "{text}");
    // M1's first session began in October: not a new controller of November.
    let new = "New controllers: Jada Member4000002, Jada Member4000003, @\u{200B}everyone \\*\\*Bold\\*\\*";
    assert_eq!(text.lines().nth(1), Some(new), "{text}");

    // Later in December the live summary is November's already: nothing is posted.
    let (output, _) = build_at(site.path(), &api, "public", "2026-12-03T12:00:00Z");
    let printed = announce(site.path(), &output, &hook, &[]);
    assert_eq!(hook.delivered().len(), 1, "{printed}");
}

/// `report activity` for the site of `site` (its config, and the output folder `public`
/// beside it), against the facility API `api`, into `site/reports`.
fn report(site: &Path, api: &MockServer, extra: &[&str]) -> crate::support::Ran {
    let config = site.join("vatcar-site.toml");
    let mut args = vec![
        "report",
        "activity",
        "--config",
        config.to_str().unwrap(),
        "--output",
    ];
    let reports = site.join("reports");
    args.push(reports.to_str().unwrap());
    args.extend_from_slice(extra);
    crate::support::run(
        vatcar(&args).against(api).env(
            "SOURCE_DATE_EPOCH",
            NOW.parse::<DateTime<Utc>>()
                .unwrap()
                .timestamp()
                .to_string(),
        ),
    )
}

/// The cells of each row of the table of the report's section `id`, white space folded.
fn section_rows(html: &scraper::Html, id: &str) -> Vec<Vec<String>> {
    let rows =
        scraper::Selector::parse(&format!("section[aria-labelledby={id}] tbody tr")).unwrap();
    let cell = scraper::Selector::parse("td, th").unwrap();
    (html.select(&rows))
        .map(|row| {
            (row.select(&cell))
                .map(|c| c.text().collect::<Vec<_>>().join(" "))
                .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
                .collect()
        })
        .collect()
}

/// The hours short of the rule, rounded up to the tenth, as the test reads the rule.
fn short_of(rule_hours: f64, hours_seconds: i64) -> String {
    let missing = (rule_hours * 3600.0) as i64 - hours_seconds;
    let tenths = (missing + 359) / 360;
    format!("{}.{}", tenths / 10, tenths % 10)
}

/// The seconds the rule gives `sessions`, from the test's own hours (one decimal is enough
/// here: the mock's sessions are whole minutes, and the test compares the shortfall).
fn seconds_of(hours: &str) -> i64 {
    (hours.parse::<f64>().unwrap() * 3600.0).round() as i64
}

#[test]
fn the_staff_report_lists_who_is_below_the_rule_furthest_behind_first_and_keeps_the_unknown_apart()
{
    let site = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR").to_owned() + "/target").unwrap();
    let (api, core) = (facility_api(), core_api());
    config(site.path(), &core, 60, true);
    build(site.path(), &api, "public");
    let config_file = site.path().join("vatcar-site.toml");
    let text = std::fs::read_to_string(&config_file).unwrap();
    // [people] would show first names and hide the opted-out member on the site; the report
    // is the staff's, with every name in full.
    std::fs::write(
        &config_file,
        format!(
            "output = \"public\"\n{text}rule_hours = 3\n[people]\nenabled = true\nnames = \"cid\"\nopt_out = [{B}]\n"
        ),
    )
    .unwrap();
    let requests_before = requests(&core).len();
    let ran = report(site.path(), &api, &[]);
    assert!(ran.status.success(), "{}", ran.text());
    // The report reads no session from VATSIM: it reports what the builds kept.
    assert_eq!(requests(&core).len(), requests_before);

    let file = site.path().join("reports/activity.html");
    let (text, html) = page(&file);
    let robots = scraper::Selector::parse("meta[name=robots]").unwrap();
    assert_eq!(
        html.select(&robots).next().unwrap().value().attr("content"),
        Some("noindex")
    );
    assert_eq!(html.root_element().value().attr("lang"), Some("en"));
    let roster: Value = serde_json::from_slice(&demo_body("facility-roster.json")).unwrap();
    let emails: Vec<&str> = (roster["data"]["controllers"].as_array().unwrap().iter())
        .chain(roster["data"]["visitors"].as_array().unwrap())
        .filter_map(|m| m["email"].as_str())
        .collect();
    assert!(!emails.is_empty());
    for email in emails {
        assert!(!text.contains(email), "{email} is in the report");
    }

    let (a_first, a_second) = a_pages();
    let a_all: Vec<Mocked> = a_first.into_iter().chain(a_second).collect();
    let (a_hours, _) = expected(&a_all);
    let (b_hours, b_last) = expected(&b_sessions());
    let (v_hours, _) = expected(&v_sessions());
    assert_eq!(
        (a_hours.as_str(), b_hours.as_str(), v_hours.as_str()),
        ("4.3", "1.2", "0.0")
    );

    // Below the rule: V (0 h) before B, furthest behind first; A is above, C unknown.
    let below = section_rows(&html, "below");
    // The mock's members take the first name of the demo's first controller.
    let first_name = roster["data"]["controllers"][0]["first_name"]
        .as_str()
        .unwrap();
    let b_name = format!("{first_name} Member{B}");
    assert_eq!(below.len(), 2, "{below:?}");
    assert_eq!(below[0][1], V.to_string(), "{below:?}");
    assert_eq!(below[0][2], "Visiting controller");
    assert_eq!(below[0][3], v_hours);
    assert_eq!(below[0][4], short_of(3.0, 0));
    assert_eq!(below[0][5], "not in the window");
    assert_eq!(
        below[1][..4],
        [
            b_name.clone(),
            B.to_string(),
            "Home controller".into(),
            b_hours.clone()
        ]
    );
    assert_eq!(below[1][4], short_of(3.0, seconds_of(&b_hours)));
    assert_eq!(below[1][5], b_last.unwrap());
    let unknown = section_rows(&html, "unknown");
    assert_eq!(unknown.len(), 1, "{unknown:?}");
    assert_eq!(unknown[0][1], C.to_string());
    assert!(
        unknown[0][3].starts_with("last tried 2026-11-29"),
        "{unknown:?}"
    );

    // The totals are the sums of the test's own counts.
    let totals = section_rows(&html, "totals");
    assert_eq!(
        totals,
        [
            ["Members", "4"],
            ["At or above the rule", "1"],
            ["Below the rule", "2"],
            ["Unknown", "1"],
        ]
    );
    let meta = crate::support::texts(&html, "header .meta");
    assert_eq!(
        meta[0],
        "Hours from 2026-08-31 12:00Z to 2026-11-29 12:00Z (90 days)"
    );
    assert!(
        meta[1].starts_with("Rule: at least 3 h in the window"),
        "{meta:?}"
    );
    // Every member, with their standing: C is unknown, never 0 h nor below.
    let controllers = section_rows(&html, "controllers");
    let standing: Vec<(&str, &str, &str)> = (controllers.iter())
        .map(|r| (r[1].as_str(), r[3].as_str(), r[6].as_str()))
        .collect();
    for expected_row in [
        (A.to_string(), a_hours.as_str(), "met"),
        (B.to_string(), b_hours.as_str(), "below"),
        (C.to_string(), "unknown", "unknown"),
    ] {
        assert!(
            standing.contains(&(expected_row.0.as_str(), expected_row.1, expected_row.2)),
            "{expected_row:?} not in {standing:?}"
        );
    }
    let visitors = section_rows(&html, "visitors");
    assert_eq!(visitors.len(), 1);
    assert_eq!(
        (visitors[0][1].as_str(), visitors[0][7].as_str()),
        (V.to_string().as_str(), "below")
    );
    assert!(
        text.contains(&b_name),
        "the opted-out member's name is the staff's to see"
    );

    // From the published data/activity.json alone (a CI-built site copied down): the same.
    std::fs::remove_dir_all(site.path().join(".vatcar-site-cache")).unwrap();
    let ran = report(site.path(), &api, &["--force"]);
    assert!(ran.status.success(), "{}", ran.text());
    let (_, again) = page(&file);
    assert_eq!(section_rows(&again, "below"), below);

    // The reports folder's index lists it beside the roster's report.
    let reports = site.path().join("reports");
    crate::support::run_ok(
        vatcar(&["report", "roster", "--output", reports.to_str().unwrap()]).against(&api),
    );
    let (_, index) = page(&reports.join("index.html"));
    let links = scraper::Selector::parse("main a").unwrap();
    let linked: Vec<&str> = (index.select(&links))
        .filter_map(|a| a.value().attr("href"))
        .collect();
    assert_eq!(linked, ["activity.html", "roster.html"]);
}

#[test]
fn the_staff_report_is_in_the_sites_language() {
    let site = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR").to_owned() + "/target").unwrap();
    let (api, core) = (facility_api(), core_api());
    config(site.path(), &core, 60, true);
    let output = build(site.path(), &api, "public");
    let config_file = site.path().join("vatcar-site.toml");
    let text = std::fs::read_to_string(&config_file).unwrap();
    std::fs::write(&config_file, format!("language = \"es\"\n{text}")).unwrap();
    let ran = report(site.path(), &api, &["--site", output.to_str().unwrap()]);
    assert!(ran.status.success(), "{}", ran.text());
    let (text, html) = page(&site.path().join("reports/activity.html"));
    assert_eq!(html.root_element().value().attr("lang"), Some("es"));
    assert_eq!(
        crate::support::texts(&html, "h1"),
        ["Actividad de los controladores"]
    );
    let headings = crate::support::texts(&html, "h2");
    assert_eq!(
        headings,
        [
            "Resumen",
            "Por debajo de la norma (2)",
            "Desconocido (1)",
            "Controladores miembros (3)",
            "Controladores visitantes (1)"
        ]
    );
    for english in [
        "Below the rule",
        "Unknown",
        "Home controller",
        "not read",
        "last tried",
    ] {
        assert!(
            !crate::support::texts(&html, "main")
                .join(" ")
                .contains(english),
            "{english:?} in {text}"
        );
    }
}

#[test]
fn the_staff_report_says_what_to_do_when_activity_is_off_or_nothing_was_read() {
    let site = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR").to_owned() + "/target").unwrap();
    let (api, core) = (facility_api(), core_api());
    config(site.path(), &core, 60, false);
    let ran = report(site.path(), &api, &[]);
    assert_eq!(ran.code(), Some(2), "{}", ran.text());
    assert!(
        ran.stderr.contains("[activity] is off") && ran.stderr.contains("enabled = true"),
        "{}",
        ran.stderr
    );
    assert!(api.log().is_empty() && core.log().is_empty());

    // On, but no build has read any session: the error names where it looked.
    config(site.path(), &core, 60, true);
    let nowhere = site.path().join("nowhere");
    let ran = report(site.path(), &api, &["--site", nowhere.to_str().unwrap()]);
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    let looked = nowhere.join("data/activity.json");
    assert!(
        ran.stderr
            .contains("no member's sessions have been read yet")
            && ran.stderr.contains(&*looked.to_string_lossy())
            && ran.stderr.contains("build the site with [activity] on"),
        "{}",
        ran.stderr
    );
    // A build that read no one (a budget of 0): every member unknown is no report either.
    config(site.path(), &core, 0, true);
    let output = build(site.path(), &api, "public");
    let ran = report(site.path(), &api, &["--site", output.to_str().unwrap()]);
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    assert!(
        ran.stderr.contains("none of the roster's 4 members"),
        "{}",
        ran.stderr
    );
    assert!(core.log().is_empty());
    assert!(!site.path().join("reports/activity.html").exists());

    // The demo built into the folder first: its sample is not this facility's sessions, even
    // where the CIDs are the same.
    let site = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR").to_owned() + "/target").unwrap();
    let output = site.path().join("public");
    run_ok(&mut vatcar(&[
        "build",
        "--demo",
        "--output",
        output.to_str().unwrap(),
    ]));
    config(site.path(), &core, 0, true);
    let ran = report(
        site.path(),
        &demo_api(),
        &["--site", output.to_str().unwrap()],
    );
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    assert!(
        ran.stderr
            .contains("was made from the demo's data, and is left out")
            && ran
                .stderr
                .contains("found none that this facility's builds made"),
        "{}",
        ran.stderr
    );
}
