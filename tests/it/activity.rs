//! `[activity]`: the roster's hours and last controlled, read from a mock of VATSIM's Core API
//! on 127.0.0.1 (`GET /v2/members/{cid}/atc?limit=&offset=`, `{"items": [{"connection_id":
//! {...}}], "count": N}`, newest first). The figures are held to a computation of the test's
//! own over the mock's sessions, not to the program's code.

use crate::support::{
    AgainstMock, MockServer, Reply, demo_api, demo_body, page, run_ok, tree, vatcar,
};
use chrono::{DateTime, TimeDelta, Utc};
use serde_json::{Value, json};
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

/// The hours and last controlled the rule gives `sessions` at [`NOW`]: the test's own
/// reading of the rule, over the mock's list.
fn expected(sessions: &[Mocked]) -> (String, Option<String>) {
    let time = |t: &str| format!("{t}Z").parse::<DateTime<Utc>>().unwrap();
    let now = NOW.parse::<DateTime<Utc>>().unwrap();
    let edge = now - TimeDelta::days(WINDOW_DAYS);
    let mut seconds = 0;
    let mut last: Option<DateTime<Utc>> = None;
    for s in sessions {
        let Some(end) = s.end else { continue };
        let (start, end) = (time(s.start), time(end));
        let (prefix, suffix) = (
            s.callsign.split('_').next().unwrap(),
            s.callsign.rsplit('_').next().unwrap(),
        );
        let ours = ["TJSJ", "TJZS"].contains(&prefix);
        let controlling = ["DEL", "GND", "TWR", "APP", "DEP", "CTR", "FSS"].contains(&suffix);
        if !ours || !controlling || end - start >= TimeDelta::hours(24) {
            continue;
        }
        let inside = (end.min(now) - start.max(edge)).num_seconds();
        if inside > 0 {
            seconds += inside;
            last = last.max(Some(end));
        }
    }
    let hours = format!("{:.1}", seconds as f64 / 3600.0);
    (hours, last.map(|t| t.format("%Y-%m-%d").to_string()))
}

pub(super) fn config(site: &Path, core: &MockServer, requests: u32, enabled: bool) {
    let text = format!(
        "[activity]\nenabled = {enabled}\ncallsigns = [\"TJSJ\", \"TJZS\"]\nrequests = {requests}\ninterval_seconds = 0\napi = \"{}\"\n",
        core.url()
    );
    std::fs::write(site.join("vatcar-site.toml"), text).unwrap();
}

pub(super) fn build(site: &Path, api: &MockServer, out: &str) -> std::path::PathBuf {
    let output = site.join(out);
    let config = site.join("vatcar-site.toml");
    run_ok(
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
            NOW.parse::<DateTime<Utc>>()
                .unwrap()
                .timestamp()
                .to_string(),
        ),
    );
    output
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
    config(site.path(), &core, 60, true);
    let config_file = site.path().join("vatcar-site.toml");
    let mut text = std::fs::read_to_string(&config_file).unwrap();
    text.push_str("\n[people]\nenabled = true\n");
    std::fs::write(&config_file, text).unwrap();
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
