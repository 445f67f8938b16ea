//! The links that hand an event or a calendar to Google Calendar and Outlook, as a reader
//! follows them: each address taken apart into its parameters.

use crate::support::{KEY, page, run_ok, texts, vatcar_at_demo_time};
use scraper::{Html, Selector};
use std::collections::BTreeMap;
use std::fs;
use url::Url;

const SITE_URL: &str = "https://tjzs.example.org/";

/// The demo site built into a temporary folder, with `extra` arguments.
fn demo_site(extra: &[&str]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let mut args = vec!["build", "--demo", "--output", "site"];
    args.extend_from_slice(extra);
    run_ok(vatcar_at_demo_time(&args).current_dir(tmp.path()));
    tmp
}

fn html(dir: &tempfile::TempDir, path: &str) -> Html {
    page(&dir.path().join("site").join(path)).1
}

/// The `href` of each link whose text is `text`.
fn links(html: &Html, text: &str) -> Vec<String> {
    html.select(&Selector::parse("a").unwrap())
        .filter(|a| a.text().collect::<String>().trim() == text)
        .map(|a| a.value().attr("href").unwrap().to_owned())
        .collect()
}

/// The one link whose text is `text`, taken apart: its address without the query, and each
/// query parameter once (a repeated one fails the test: text must never add a parameter).
fn the_link(html: &Html, text: &str) -> (String, BTreeMap<String, String>) {
    let found = links(html, text);
    assert_eq!(found.len(), 1, "links named {text:?}: {found:?}");
    let url = Url::parse(&found[0]).unwrap();
    let mut params = BTreeMap::new();
    for (name, value) in url.query_pairs() {
        let repeated = params.insert(name.to_string(), value.to_string());
        assert!(repeated.is_none(), "{name} twice in {url}");
    }
    let base = format!(
        "{}://{}{}",
        url.scheme(),
        url.host_str().unwrap(),
        url.path()
    );
    (base, params)
}

#[test]
fn an_upcoming_event_page_adds_the_event_to_google_calendar() {
    let site = demo_site(&["--site-url", SITE_URL]);
    let event = html(&site, "events/430/index.html");
    assert_eq!(links(&event, "Add to calendar"), ["event.ics"]);
    let (base, params) = the_link(&event, "Add to Google Calendar");
    assert_eq!(base, "https://calendar.google.com/calendar/render");
    assert_eq!(params["action"], "TEMPLATE");
    assert_eq!(params["text"], "Puerto Rico Full Tower Challenge");
    assert_eq!(params["dates"], "20270123T200000Z/20270123T230000Z");
    assert_eq!(params["location"], "TJSJ, TJBQ, TJPS");
    // The description as the calendars carry it: plain text, then the event's page.
    let details = &params["details"];
    assert!(
        details.starts_with("Puerto Rico Full Tower Challenge\n\nCan you land at all three?"),
        "{details}"
    );
    assert!(details.contains("\n- ATC 2000z to 2300z\n"), "{details}");
    assert!(
        !details.contains('<') && !details.contains("**"),
        "{details}"
    );
    assert!(
        details.ends_with("\n\nEvent page: https://tjzs.example.org/events/430/"),
        "{details}"
    );
}

#[test]
fn a_past_event_offers_no_add_to_calendar() {
    let site = demo_site(&["--site-url", SITE_URL]);
    let past = html(&site, "events/417/index.html");
    assert_eq!(texts(&past, ".badge-past"), ["Past event"]);
    assert!(links(&past, "Add to calendar").is_empty());
    assert!(links(&past, "Add to Google Calendar").is_empty());
    assert!(texts(&past, "p.actions").is_empty());
}

#[test]
fn the_event_lists_subscribe_google_calendar_and_outlook_to_their_calendar() {
    let site = demo_site(&["--site-url", SITE_URL]);
    for (list, file, name) in [
        ("events/index.html", "facility.ics", "San Juan CERAP events"),
        (
            "division/index.html",
            "division.ics",
            "VATCAR division events",
        ),
    ] {
        let html = html(&site, list);
        assert_eq!(
            links(&html, "your calendar app"),
            [format!("webcal://tjzs.example.org/calendar/{file}")]
        );
        let (base, params) = the_link(&html, "Google Calendar");
        assert_eq!(base, "https://calendar.google.com/calendar/r");
        assert_eq!(
            params,
            BTreeMap::from([(
                "cid".to_owned(),
                format!("webcal://tjzs.example.org/calendar/{file}")
            )])
        );
        let (base, params) = the_link(&html, "Outlook");
        assert_eq!(base, "https://outlook.live.com/calendar/0/addfromweb");
        assert_eq!(
            params,
            BTreeMap::from([
                (
                    "url".to_owned(),
                    format!("https://tjzs.example.org/calendar/{file}")
                ),
                ("name".to_owned(), name.to_owned()),
            ])
        );
    }
}

#[test]
fn without_a_site_url_nothing_claims_to_subscribe() {
    let site = demo_site(&[]);
    let home = html(&site, "index.html");
    assert_eq!(
        links(&home, "Download the calendar (a copy that does not update)"),
        ["calendar/facility.ics"]
    );
    assert!(links(&home, "Subscribe to the calendar").is_empty());
    let events = html(&site, "events/index.html");
    let subscribe = texts(&events, "p.subscribe").join(" ");
    assert!(
        subscribe.starts_with("Add them to your calendar: download the iCal feed")
            && !subscribe.contains("subscribe"),
        "{subscribe}"
    );
    assert!(links(&events, "Google Calendar").is_empty());
    assert!(links(&events, "Outlook").is_empty());
    // A single event needs no address of ours: Google's form is filled in from the link.
    let event = html(&site, "events/430/index.html");
    let (_, params) = the_link(&event, "Add to Google Calendar");
    assert!(!params["details"].contains("Event page"), "{params:?}");
}

#[test]
fn hostile_event_text_stays_inside_its_parameter() {
    let snapshot = crate::support::demo_snapshot_copy();
    let events = snapshot.path().join("facility-events.json");
    let mut json: serde_json::Value = serde_json::from_slice(&fs::read(&events).unwrap()).unwrap();
    let event = json["data"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|e| e["id"] == 430)
        .unwrap();
    event["name"] = "Fly & <b>drive</b>&dates=19990101T000000Z/19990102T000000Z#x".into();
    event["description"] =
        "Hi <script>alert(1)</script>[click](javascript:alert(1)) 100% + more".into();
    fs::write(&events, serde_json::to_vec(&json).unwrap()).unwrap();

    let tmp = tempfile::tempdir().unwrap();
    run_ok(
        vatcar_at_demo_time(&[
            "build",
            "--snapshot",
            snapshot.path().to_str().unwrap(),
            "--output",
            "site",
            "--site-url",
            SITE_URL,
        ])
        .env("VATCAR_API_KEY", KEY)
        .current_dir(tmp.path()),
    );
    let event = page(&tmp.path().join("site/events/430/index.html")).1;
    let (_, params) = the_link(&event, "Add to Google Calendar");
    assert_eq!(
        params["text"],
        "Fly & <b>drive</b>&dates=19990101T000000Z/19990102T000000Z#x"
    );
    assert_eq!(params["dates"], "20270123T200000Z/20270123T230000Z");
    assert_eq!(
        params["details"],
        "Hi click 100% + more\n\nEvent page: https://tjzs.example.org/events/430/"
    );
}
