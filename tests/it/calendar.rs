//! The iCal feeds, read back with an independent parser (the `icalendar` crate, not our
//! writer): every event's UID, times, summary and description must come back exactly, from
//! the demo data and from hostile data alike.

use crate::support::{KEY, MockServer, Reply, run_ok, vatcar_at_demo_time};
use chrono::{DateTime, NaiveDateTime, TimeDelta, Utc};
use icalendar::{CalendarComponent, CalendarDateTime, Component, DatePerhapsTime, EventLike};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use vatcar_site::fetch::endpoint::Endpoint;
use vatcar_site::sanitize::description::{Sanitizer, html_to_text};

const SITE: &str = "https://tjzs.example.org/";

fn build(snapshot: &str, site_url: Option<&str>) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let snapshot = Path::new(env!("CARGO_MANIFEST_DIR")).join(snapshot);
    let mut command = vatcar_at_demo_time(&[
        "build",
        "-q",
        "--snapshot",
        snapshot.to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
    ]);
    if let Some(url) = site_url {
        command.args(["--site-url", url]);
    }
    run_ok(&mut command);
    (tmp, out)
}

#[derive(Debug)]
struct Parsed {
    summary: String,
    description: Option<String>,
    location: Option<String>,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
    url: Option<String>,
    sequence: Option<String>,
}

/// Every VEVENT by UID, as the independent parser reads it.
fn parse(path: &Path) -> (icalendar::Calendar, BTreeMap<String, Parsed>) {
    let text = fs::read_to_string(path).unwrap();
    let calendar: icalendar::Calendar = text
        .parse()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let utc = |d: Option<DatePerhapsTime>| match d {
        Some(DatePerhapsTime::DateTime(CalendarDateTime::Utc(t))) => t,
        other => panic!("{}: not a UTC time: {other:?}", path.display()),
    };
    let mut events = BTreeMap::new();
    for component in &calendar.components {
        if let CalendarComponent::Event(event) = component {
            let uid = event.get_uid().unwrap().to_owned();
            let parsed = Parsed {
                summary: event.get_summary().unwrap().to_owned(),
                description: event.get_description().map(str::to_owned),
                location: event.get_location().map(str::to_owned),
                start: utc(event.get_start()),
                end: utc(event.get_end()),
                url: event.get_url().map(str::to_owned),
                sequence: event.property_value("SEQUENCE").map(str::to_owned),
            };
            assert!(
                events.insert(uid.clone(), parsed).is_none(),
                "{uid} twice in {}",
                path.display()
            );
        }
    }
    (calendar, events)
}

/// The strict byte rules no lenient parser checks: CRLF only, lines of at most 75 octets.
fn assert_rfc5545_lines(path: &Path) {
    let bytes = fs::read(path).unwrap();
    let text = String::from_utf8(bytes).expect("UTF-8");
    assert!(text.ends_with("\r\n"));
    for line in text.split("\r\n") {
        assert!(
            !line.contains('\n') && !line.contains('\r'),
            "{}: bare line break in {line:?}",
            path.display()
        );
        assert!(
            line.len() <= 75,
            "{}: {} octets: {line:?}",
            path.display(),
            line.len()
        );
    }
}

fn api_time(text: &str) -> DateTime<Utc> {
    NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S")
        .unwrap()
        .and_utc()
}

/// A description as the calendars should carry it: sanitized as the page shows it, then
/// stripped of tags.
fn plain_text(sanitizer: &Sanitizer, description: &str) -> String {
    html_to_text(&sanitizer.render(description))
}

fn events_of(snapshot: &str, file: &str) -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(snapshot)
        .join(file);
    let body: Value = serde_json::from_slice(&fs::read(path).unwrap()).unwrap();
    body["data"].as_array().unwrap().clone()
}

#[test]
fn demo_feeds_round_trip_every_event_exactly() {
    let (_tmp, out) = build("demo", Some(SITE));
    let sanitizer = Sanitizer::new(&url::Url::parse("https://vatcar.net").unwrap());
    for (feed, file) in [
        ("calendar/facility.ics", "facility-events.json"),
        ("calendar/division.ics", "division-events.json"),
    ] {
        let path = out.join(feed);
        assert_rfc5545_lines(&path);
        let (calendar, parsed) = parse(&path);
        assert_eq!(calendar.property_value("VERSION"), Some("2.0"));
        assert_eq!(calendar.property_value("METHOD"), Some("PUBLISH"));
        assert_eq!(calendar.property_value("CALSCALE"), Some("GREGORIAN"));
        assert!(
            calendar
                .property_value("PRODID")
                .unwrap()
                .contains("vatcar-site")
        );
        assert!(calendar.property_value("X-WR-CALNAME").is_some());
        assert_eq!(calendar.property_value("REFRESH-INTERVAL"), Some("PT180M"));
        let events = events_of("demo", file);
        assert_eq!(parsed.len(), events.len(), "{feed}");
        for event in events {
            let id = event["id"].as_u64().unwrap();
            let got = &parsed[&format!("vatcar-event-{id}@tjzs.example.org")];
            assert_eq!(got.summary, event["name"].as_str().unwrap());
            assert_eq!(got.start, api_time(event["start"].as_str().unwrap()));
            assert_eq!(got.end, api_time(event["end"].as_str().unwrap()));
            let page = format!("{SITE}events/{id}/");
            let expected = format!(
                "{}\n\nEvent page: {page}",
                plain_text(&sanitizer, event["description"].as_str().unwrap())
            );
            assert_eq!(
                got.description.as_deref(),
                Some(expected.as_str()),
                "event {id}"
            );
            let description = got.description.as_deref().unwrap();
            assert!(
                !description.contains('<') && !description.contains("**"),
                "markup in {id}: {description}"
            );
            assert_eq!(got.url.as_deref(), Some(page.as_str()));
            let codes: Vec<&str> = ["departure", "arrival"]
                .iter()
                .flat_map(|k| event["airports"][k].as_array().into_iter().flatten())
                .map(|c| c.as_str().unwrap())
                .collect();
            match got.location.as_deref() {
                None => assert!(codes.is_empty(), "event {id} lost its airports"),
                Some(location) => assert!(
                    codes.iter().all(|c| location.contains(c)),
                    "{id}: {location}"
                ),
            }
        }
    }
    // One file per event for "Add to calendar", with the same event in it.
    let (_, single) = parse(&out.join("events/421/event.ics"));
    assert_eq!(
        single.keys().collect::<Vec<_>>(),
        ["vatcar-event-421@tjzs.example.org"]
    );
}

#[test]
fn hostile_feeds_round_trip_and_cannot_inject() {
    let (_tmp, out) = build("tests/fixtures/hostile", Some("https://hostile.example/"));
    let sanitizer = Sanitizer::new(&url::Url::parse("https://vatcar.net").unwrap());
    let path = out.join("calendar/facility.ics");
    assert_rfc5545_lines(&path);
    let (_, parsed) = parse(&path);
    let source = events_of("tests/fixtures/hostile", "facility-events.json");
    // 9005 is in the data twice; it appears once, as first given. 9008, in the last hour of
    // year 9999, is left out (no calendar app can expand it).
    assert_eq!(parsed.len(), 10);
    let uid = |id: u64| format!("vatcar-event-{id}@hostile.example");
    assert_eq!(parsed[&uid(9005)].summary, "Long description");
    for event in source
        .iter()
        .filter(|e| e["name"] != "Duplicate id (should appear once)" && e["id"] != 9008)
    {
        let id = event["id"].as_u64().unwrap();
        let got = &parsed[&uid(id)];
        // Characters XML forbids are gone from the data, and so from every output.
        let name: String = event["name"]
            .as_str()
            .unwrap()
            .replace("\r\n", "\n")
            .chars()
            .filter(|c| !matches!(c, '\u{fffe}' | '\u{ffff}' | '\u{fdd0}'))
            .collect();
        let expected_name = if name.is_empty() {
            format!("Event {id}")
        } else {
            name
        };
        // The writer keeps `\` and a following `n` apart with an invisible WORD JOINER.
        assert_eq!(
            got.summary.replace('\u{2060}', ""),
            expected_name,
            "event {id}"
        );
        let start = api_time(event["start"].as_str().unwrap());
        assert_eq!(got.start, start);
        let description: String =
            plain_text(&sanitizer, event["description"].as_str().unwrap()).replace('\u{fffe}', "");
        // A calendar carries the first 65,536 characters; the page has the rest.
        let description = match description.char_indices().nth(64 * 1024) {
            Some((cut, _)) => format!("{}…", description[..cut].trim_end()),
            None => description,
        };
        let expected = if description.is_empty() {
            format!("Event page: https://hostile.example/events/{id}/")
        } else {
            format!("{description}\n\nEvent page: https://hostile.example/events/{id}/")
        };
        assert_eq!(
            got.description
                .as_deref()
                .map(|d| d.replace('\u{2060}', "")),
            Some(expected),
            "event {id}"
        );
    }
    // The CRLF-and-properties name stayed one summary: no event was injected.
    assert_eq!(
        parsed[&uid(9001)].summary,
        "Fun night\nEND:VEVENT\nBEGIN:VEVENT\nSUMMARY:injected"
    );
    assert!(!parsed.values().any(|e| e.summary == "injected"));
    // A 10 KB description comes back whole, one of 100 KB shortened (its page has it whole).
    assert!(parsed[&uid(9005)].description.as_ref().unwrap().len() > 10_000);
    let oversized = parsed[&uid(9011)].description.as_deref().unwrap();
    assert!(!oversized.contains("End of briefing."));
    assert!(
        fs::read_to_string(out.join("events/9011/index.html"))
            .unwrap()
            .contains("Briefing. Briefing. End of briefing.</p>")
    );
    // A missing end, and an end before the start, both become two hours.
    for id in [9003, 9004] {
        let got = &parsed[&uid(id)];
        assert_eq!(got.end - got.start, TimeDelta::hours(2), "event {id}");
    }
    assert!(!parsed.contains_key(&uid(9008)));
    assert!(!out.join("events/9008").exists());
    // The division's event 9003 is another event than the facility's: both are in its feed,
    // each with its own UID, and the facility's feed has only its own.
    let (_, division) = parse(&out.join("calendar/division.ics"));
    assert_eq!(
        division["vatcar-division-event-9003@hostile.example"].summary,
        "A different division event with the id 9003"
    );
    assert!(
        !parsed
            .values()
            .any(|e| e.summary.contains("different division"))
    );
    // Markup in airport codes is text in LOCATION, not markup.
    assert_eq!(
        parsed[&uid(9004)].location.as_deref(),
        Some("TJSJ, TNCM → <B>TJSJ</B>, TNCM")
    );
}

/// Calendars built twice are compared byte for byte with the rest of the site in site.rs
/// (`same_input_gives_the_same_bytes_and_a_rebuild_rewrites_nothing`); here, what a build
/// without a site URL names its events by.
#[test]
fn without_a_site_url_uids_use_the_api_host_and_events_have_no_url() {
    let (_tmp, bare) = build("demo", None);
    let (_, parsed) = parse(&bare.join("calendar/facility.ics"));
    assert!(parsed.contains_key("vatcar-event-412@vatcar.net"));
    assert!(parsed.values().all(|e| e.url.is_none()));
}

#[test]
fn sequence_grows_when_an_event_is_edited() {
    let server = MockServer::start();
    let event = |updated: &str| {
        format!(
            r#"{{"success":"ok","data":[{{"id":7,"name":"Edited","start":"2027-01-01 20:00:00","end":"2027-01-01 22:00:00","created_at":"2026-10-01T00:00:00.000000Z","updated_at":"{updated}"}}]}}"#
        )
    };
    let sequence_after = |updated: &str| {
        for (endpoint, body) in [
            (
                Endpoint::FacilityRoster,
                r#"{"success":true,"data":{"facility":"X"}}"#.to_owned(),
            ),
            (Endpoint::FacilityEvents, event(updated)),
            (Endpoint::FacilityDocuments, "[]".to_owned()),
            (
                Endpoint::DivisionEvents,
                r#"{"success":"ok","data":[]}"#.to_owned(),
            ),
        ] {
            server.reply(endpoint, Reply::ok(body));
        }
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("site");
        run_ok(&mut vatcar_at_demo_time(&[
            "build",
            "-q",
            "--base-url",
            &server.url(),
            "--api-key",
            KEY,
            "--output",
            out.to_str().unwrap(),
        ]));
        let (_, parsed) = parse(&out.join("calendar/facility.ics"));
        parsed
            .values()
            .next()
            .unwrap()
            .sequence
            .clone()
            .unwrap()
            .parse::<i64>()
            .unwrap()
    };
    let first = sequence_after("2026-11-01T10:00:00.000000Z");
    let edited = sequence_after("2026-11-02T09:30:00.000000Z");
    assert!(edited > first, "{first} then {edited}");
    assert!(edited < i32::MAX as i64);
}
