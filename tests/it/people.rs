//! `[people]`: a page per roster member at `roster/<cid>/`, the name mode wherever names
//! appear, opting out, noindex and the sitemap, and no change at all with the table off. Run
//! through the binary on the demo data; the names looked for are the demo's own, read from
//! its snapshot.

use crate::activity::{
    A, B, C, Mocked, NOW, V, WINDOW_DAYS, build, config_with_people, facility_api, page_body, path,
};
use crate::support::{MockServer, Reply, assert_same_files, build_site, page, site_folder, tree};
use chrono::{DateTime, TimeDelta, Utc};
use std::collections::BTreeMap;
use vatcar_site::fetch::snapshot::Snapshot;

/// The demo roster's members, controllers then visitors, with their full names: (CID, name).
fn demo_members() -> Vec<(u64, String)> {
    let data = vatcar_site::model::decode_site(&Snapshot::demo()).unwrap();
    let roster = data.roster;
    let members: Vec<(u64, String)> = (roster.controllers.iter())
        .chain(&roster.visitors)
        .filter_map(|m| m.name.clone().map(|name| (m.cid, name)))
        .collect();
    assert!(members.len() > 20, "{}", members.len());
    members
}

/// A staff holder of the demo who is on the controllers' list too: shown on the roster, the
/// home page and their own page, so the one to opt out.
fn staff_member() -> (u64, String) {
    let data = vatcar_site::model::decode_site(&Snapshot::demo()).unwrap();
    let roster = data.roster;
    let holder = (roster.staff.iter())
        .flat_map(|post| post.holders.iter())
        .find(|h| roster.controllers.iter().any(|c| c.cid == h.cid) && h.name.is_some())
        .expect("the demo has a staff member on the roster");
    (holder.cid, holder.name.clone().unwrap())
}

/// `build --demo` with `config`, at the demo's time and with a site URL (so that sitemap.xml
/// is written): the output's files.
fn built(config: &str) -> (tempfile::TempDir, BTreeMap<String, Vec<u8>>) {
    let site = site_folder(config, &[]);
    let (ran, out) = build_site(site.path(), &["--site-url", "https://demo.example.org/"]);
    assert!(ran.status.success(), "{}", ran.text());
    let files = tree(&out);
    (site, files)
}

/// `text` as the templates write it into HTML (Tera's escaping): `O'Connor` is
/// `O&#39;Connor`.
fn escaped(text: &str) -> String {
    (text
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;"))
    .replace('"', "&quot;")
    .replace('\'', "&#39;")
    .replace('/', "&#x2F;")
}

/// The files of `files` whose text holds `needle`, as it is or escaped for HTML.
fn files_holding<'f>(files: &'f BTreeMap<String, Vec<u8>>, needle: &str) -> Vec<&'f str> {
    let html = escaped(needle);
    (files.iter())
        .filter(|(_, bytes)| {
            let text = String::from_utf8_lossy(bytes);
            text.contains(needle) || text.contains(&html)
        })
        .map(|(path, _)| path.as_str())
        .collect()
}

fn member_page(cid: u64) -> String {
    format!("roster/{cid}/index.html")
}

#[test]
fn every_member_has_a_page_and_an_opted_out_one_has_none_and_no_name_anywhere() {
    let (opted_out, name) = staff_member();
    let (site, files) = built(&format!(
        "[people]\nenabled = true\nnames = \"full\"\nopt_out = [{opted_out}]\n"
    ));
    for (cid, member_name) in demo_members() {
        let path = member_page(cid);
        if cid == opted_out {
            assert!(!files.contains_key(&path), "{path} is written");
            continue;
        }
        let text = String::from_utf8_lossy(&files[&path]);
        let heading = format!("<h1>{}</h1>", escaped(&member_name));
        assert!(text.contains(&heading), "{path}: {heading}");
        assert!(!text.contains("mailto:") && !text.contains('@'), "{path}");
    }
    assert_eq!(files_holding(&files, &name), Vec::<&str>::new(), "{name}");
    let first = name.split_whitespace().next().unwrap();
    let last = name.split_whitespace().last().unwrap();
    assert_eq!(files_holding(&files, last), Vec::<&str>::new(), "{last}");
    // Shown by the CID alone: on the roster (with no link) and in the staff list.
    let (roster, _) = page(&site.path().join("public/roster/index.html"));
    assert!(roster.contains(&format!("CID {opted_out}")));
    assert!(!roster.contains(&format!("{opted_out}/\"")));
    assert!(!roster.contains(&format!(">{first} ")), "{first}");
}

#[test]
fn the_roster_links_each_name_to_the_members_page() {
    let (site, _) = built("[people]\nenabled = true\n");
    let (_, html) = page(&site.path().join("public/roster/index.html"));
    let links = scraper::Selector::parse("tbody td:first-child a").unwrap();
    let hrefs: Vec<&str> = (html.select(&links))
        .filter_map(|a| a.value().attr("href"))
        .collect();
    // The staff posts' holders link to their pages too, on the roster and the home page.
    let (roster, _) = page(&site.path().join("public/roster/index.html"));
    let (home, _) = page(&site.path().join("public/index.html"));
    let (staff, _) = staff_member();
    assert!(roster.contains(&format!("<a href=\"../roster/{staff}/\">")));
    assert!(home.contains(&format!("<a href=\"roster/{staff}/\">")));
    assert_eq!(hrefs.len(), demo_members().len());
    for href in hrefs {
        let cid = (href
            .strip_prefix("../roster/")
            .and_then(|h| h.strip_suffix('/')))
        .unwrap_or_else(|| panic!("{href}"));
        assert!(
            site.path()
                .join("public/roster")
                .join(cid)
                .join("index.html")
                .is_file()
        );
    }
}

#[test]
fn with_names_cid_no_members_name_is_in_any_published_file() {
    let (_, files) = built("[people]\nenabled = true\nnames = \"cid\"\n");
    for (cid, name) in demo_members() {
        assert_eq!(files_holding(&files, &name), Vec::<&str>::new(), "{name}");
        let text = String::from_utf8_lossy(&files[&member_page(cid)]).into_owned();
        assert!(text.contains(&format!("<h1>CID {cid}</h1>")), "{cid}");
    }
}

#[test]
fn first_initial_is_the_default_and_hides_the_last_name() {
    let (_, files) = built("[people]\nenabled = true\n");
    for (cid, name) in demo_members() {
        let words: Vec<&str> = name.split_whitespace().collect();
        let text = String::from_utf8_lossy(&files[&member_page(cid)]).into_owned();
        if let [first, .., last] = words.as_slice() {
            let initial = last.chars().next().unwrap().to_uppercase();
            let heading = format!("<h1>{}</h1>", escaped(&format!("{first} {initial}.")));
            assert!(text.contains(&heading), "{name}: {heading}");
            // What search engines and link previews say of the page: the name as shown.
            let described = format!(
                "<meta name=\"description\" content=\"{} · ",
                escaped(&format!("{first} {initial}."))
            );
            assert!(text.contains(&described), "{name}: {described}");
            assert_eq!(files_holding(&files, &name), Vec::<&str>::new(), "{name}");
        }
    }
}

#[test]
fn member_pages_carry_noindex_and_stay_out_of_the_sitemap_unless_index_is_true() {
    let noindex = "<meta name=\"robots\" content=\"noindex\">";
    let (cid, _) = demo_members()[0].clone();
    let (_, hidden) = built("[people]\nenabled = true\n");
    let (_, indexed) = built("[people]\nenabled = true\nindex = true\n");
    let page_of = |files: &BTreeMap<String, Vec<u8>>| {
        String::from_utf8_lossy(&files[&member_page(cid)]).into_owned()
    };
    assert!(page_of(&hidden).contains(noindex));
    assert!(!page_of(&indexed).contains(noindex));
    // The roster's own page is indexed either way.
    assert!(!String::from_utf8_lossy(&hidden["roster/index.html"]).contains(noindex));
    let sitemap = |files: &BTreeMap<String, Vec<u8>>| {
        String::from_utf8_lossy(&files["sitemap.xml"]).into_owned()
    };
    let address = format!("https://demo.example.org/roster/{cid}/");
    assert!(!sitemap(&hidden).contains(&address));
    assert!(sitemap(&hidden).contains("https://demo.example.org/roster/</loc>"));
    assert!(sitemap(&indexed).contains(&address));
}

#[test]
fn with_people_off_the_output_is_the_same_as_without_the_table() {
    let (opted_out, _) = staff_member();
    let (_, without) = built("");
    let (_, off) = built(&format!(
        "[people]\nenabled = false\nnames = \"cid\"\nopt_out = [{opted_out}]\nindex = true\n"
    ));
    assert_same_files(&without, &off);
    assert!(!without.keys().any(|path| path.starts_with("roster/1")));
}

#[test]
fn member_pages_need_the_roster_page() {
    let (_, files) = built("[people]\nenabled = true\n\n[sections]\nroster = false\n");
    assert!(!files.keys().any(|path| path.starts_with("roster/")));
}

#[test]
fn a_members_page_lists_their_own_bookings_and_joins_and_promotions() {
    let (_, files) = built("[people]\nenabled = true\n");
    let live = String::from_utf8_lossy(&files["live/index.html"]).into_owned();
    let mut with_bookings = 0;
    let mut with_history = 0;
    for (cid, _) in demo_members() {
        let text = String::from_utf8_lossy(&files[&member_page(cid)]).into_owned();
        let html = scraper::Html::parse_document(&text);
        let rows = scraper::Selector::parse("tr[data-booking]").unwrap();
        let booked: Vec<&str> = (html.select(&rows))
            .map(|row| row.value().attr("data-cid").unwrap_or(""))
            .collect();
        assert!(
            booked.iter().all(|c| *c == cid.to_string()),
            "{cid}: {booked:?}"
        );
        // The live page lists as many of this member's bookings.
        let on_live = live.matches(&format!("data-cid=\"{cid}\"")).count();
        assert_eq!(booked.len(), on_live, "{cid}");
        with_bookings += usize::from(!booked.is_empty());
        // Each links to the member's own page (`../../` is the site's root from it).
        let history = scraper::Selector::parse(".changes li a").unwrap();
        let links: Vec<&str> = (html.select(&history))
            .filter_map(|a| a.value().attr("href"))
            .collect();
        let own = format!("../../roster/{cid}/");
        assert!(links.iter().all(|href| *href == own), "{cid}: {links:?}");
        with_history += usize::from(!links.is_empty());
    }
    assert!(
        with_bookings > 0 && with_history > 0,
        "{with_bookings} {with_history}"
    );
}

#[test]
fn a_content_page_where_a_members_page_goes_stops_the_build_saying_so() {
    let (cid, _) = demo_members()[0].clone();
    let file = format!("content/roster/{cid}.md");
    let site = site_folder(
        "[people]\nenabled = true\n",
        &[(&file, b"+++\ntitle = \"Ours\"\n+++\n")],
    );
    let (ran, _) = build_site(site.path(), &[]);
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    let said = format!(
        "roster/{cid}.md: would be published at roster/{cid}/index.html, where vatcar-site writes the page of member {cid}; rename it\n"
    );
    assert!(ran.stderr.contains(&said), "{}", ran.stderr);
}

/// The events of the demo (`demo/facility-events.json`, read here as JSON, not through the
/// program) whose positions carry `cid` in their `cid` field: (id, start), newest first.
fn staffed_in_demo(cid: u64) -> Vec<(u64, String)> {
    let events: serde_json::Value =
        serde_json::from_slice(&std::fs::read("demo/facility-events.json").unwrap()).unwrap();
    let mut staffed: Vec<(u64, String)> = (events["data"].as_array().unwrap().iter())
        .filter(|event| {
            let positions = event["positions"]["positions"].as_array();
            (positions.into_iter().flatten()).any(|p| p["cid"].as_u64() == Some(cid))
        })
        .map(|event| {
            let start = event["start"].as_str().unwrap().to_owned();
            (event["id"].as_u64().unwrap(), start)
        })
        .collect();
    staffed.sort_by(|a, b| b.1.cmp(&a.1));
    staffed
}

/// The event pages a member's page lists under "Events staffed", in its order.
fn staffed_on_page(text: &str) -> Vec<String> {
    let html = scraper::Html::parse_document(text);
    let links = scraper::Selector::parse("section[aria-labelledby=staffed] h3 a").unwrap();
    (html.select(&links))
        .filter_map(|a| a.value().attr("href").map(str::to_owned))
        .collect()
}

#[test]
fn a_members_page_lists_the_events_whose_positions_carry_their_cid_and_no_others() {
    let (site, files) = built("[people]\nenabled = true\n");
    let mut listed = 0;
    for (cid, _) in demo_members() {
        let text = String::from_utf8_lossy(&files[&member_page(cid)]).into_owned();
        let expected: Vec<String> = (staffed_in_demo(cid).into_iter())
            .map(|(id, _)| format!("../../events/{id}/"))
            .collect();
        assert_eq!(staffed_on_page(&text), expected, "{cid}");
        // None: no heading, no empty list.
        assert_eq!(
            text.contains("Events staffed"),
            !expected.is_empty(),
            "{cid}"
        );
        for href in &expected {
            let page = site.path().join("public/roster").join(cid.to_string());
            assert!(
                page.join(href).join("index.html").is_file(),
                "{cid}: {href}"
            );
        }
        listed += expected.len();
    }
    assert!(listed >= 10, "{listed}");
    // Tyrone Gumbs staffs event 412 by CID and is named in 426's positions by name only: a
    // name is no evidence of who it is.
    let (tyrone, _) = (demo_members().into_iter())
        .find(|(_, name)| name == "Tyrone Gumbs")
        .unwrap();
    let text = String::from_utf8_lossy(&files[&member_page(tyrone)]).into_owned();
    assert_eq!(staffed_on_page(&text), ["../../events/412/"]);
}

#[test]
fn with_activity_off_the_member_pages_are_the_same_as_without_the_table() {
    let (_, without) = built("[people]\nenabled = true\n");
    let (_, off) = built(
        "[people]\nenabled = true\n\n[activity]\nenabled = false\nrequests = 0\napi = \"http://127.0.0.1:9/\"\n",
    );
    assert_same_files(&without, &off);
    let pages = (without.iter()).filter(|(path, _)| path.ends_with(".html"));
    assert!(
        !pages
            .map(|(_, bytes)| String::from_utf8_lossy(bytes))
            .any(|t| t.contains("<figure"))
    );
}

/// A's sessions for the chart: across a month's end (September into October), across
/// midnight, across the window's edge (2026-08-31T12:00Z), a day long, an `_OBS`, another
/// facility's, and one still open.
fn chart_sessions() -> Vec<Mocked> {
    let session = |id, callsign, start, end| Mocked {
        id,
        callsign,
        start,
        end,
    };
    vec![
        session(9, "TJSJ_APP", "2026-11-29T10:00:00", None),
        session(
            8,
            "TJSJ_TWR",
            "2026-11-28T22:30:00",
            Some("2026-11-29T01:20:00"),
        ),
        session(
            7,
            "TJSJ_OBS",
            "2026-11-27T10:00:00",
            Some("2026-11-27T12:00:00"),
        ),
        session(
            6,
            "MDSD_TWR",
            "2026-11-20T10:00:00",
            Some("2026-11-20T12:00:00"),
        ),
        session(
            5,
            "TJZS_CTR",
            "2026-10-10T00:00:00",
            Some("2026-10-11T00:00:00"),
        ),
        session(
            4,
            "TJZS_CTR",
            "2026-09-30T22:00:00",
            Some("2026-10-01T01:48:00"),
        ),
        session(
            3,
            "TJSJ_GND",
            "2026-09-12T18:00:00",
            Some("2026-09-12T19:06:00"),
        ),
        session(
            2,
            "TJSJ_DEL",
            "2026-08-31T10:00:00",
            Some("2026-08-31T13:30:00"),
        ),
    ]
}

/// The test's own sums of `sessions` by calendar month (UTC) over the window ending at
/// [`NOW`]: ("2026-08", "1.5"), ... oldest first.
fn month_sums(sessions: &[Mocked]) -> Vec<(String, String)> {
    let time = |t: &str| format!("{t}Z").parse::<DateTime<Utc>>().unwrap();
    let now = NOW.parse::<DateTime<Utc>>().unwrap();
    let edge = now - TimeDelta::days(WINDOW_DAYS);
    let bounds = [
        edge,
        time("2026-09-01T00:00:00"),
        time("2026-10-01T00:00:00"),
        time("2026-11-01T00:00:00"),
        now,
    ];
    let counts = |s: &Mocked| {
        let (prefix, suffix) = s.callsign.split_once('_').unwrap();
        ["TJSJ", "TJZS"].contains(&prefix)
            && ["DEL", "GND", "TWR", "APP", "DEP", "CTR", "FSS"].contains(&suffix)
    };
    (bounds.windows(2))
        .map(|month| {
            let mut seconds = 0;
            for s in sessions.iter().filter(|s| counts(s)) {
                let Some(end) = s.end.map(time) else { continue };
                let start = time(s.start);
                if end - start < TimeDelta::hours(24) {
                    seconds += (end.min(month[1]) - start.max(month[0]))
                        .num_seconds()
                        .max(0);
                }
            }
            let hours = format!("{:.1}", seconds as f64 / 3600.0);
            (month[0].format("%Y-%m").to_string(), hours)
        })
        .collect()
}

/// The chart's rows on a member's page: (`<time datetime>`, hours, bar length).
fn chart(output: &std::path::Path, cid: u64) -> Vec<(String, String, String)> {
    let (_, html) = page(&output.join(format!("roster/{cid}/index.html")));
    let row = scraper::Selector::parse("figure.month-chart tbody tr").unwrap();
    let (time, hours, bar) = (
        scraper::Selector::parse("th time").unwrap(),
        scraper::Selector::parse("td .num").unwrap(),
        scraper::Selector::parse("td svg rect:not(.track)").unwrap(),
    );
    (html.select(&row))
        .map(|row| {
            let month = row.select(&time).next().unwrap();
            let hours = row.select(&hours).next().unwrap();
            let bar = row.select(&bar).next().unwrap();
            (
                month.value().attr("datetime").unwrap().to_owned(),
                hours.text().collect::<String>(),
                bar.value().attr("width").unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_members_chart_shows_their_hours_in_each_month_as_the_tests_own_sums_give() {
    let site = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR").to_owned() + "/target").unwrap();
    let (api, core) = (facility_api(), MockServer::start());
    let sessions = chart_sessions();
    let count = sessions.len();
    core.route_path(&path(A), vec![Reply::ok(page_body(A, &sessions, count))]);
    core.route_path(&path(B), vec![Reply::ok(page_body(B, &[], 0))]);
    core.route_path(&path(C), vec![Reply::status(500)]);
    core.route_path(&path(V), vec![Reply::ok(page_body(V, &[], 0))]);
    config_with_people(site.path(), &core);
    let output = build(site.path(), &api, "public");

    let expected = month_sums(&sessions);
    assert_eq!(
        expected,
        [
            ("2026-08", "1.5"),
            ("2026-09", "3.1"),
            ("2026-10", "1.8"),
            ("2026-11", "2.8")
        ]
        .map(|(m, h)| (m.to_owned(), h.to_owned()))
    );
    let shown = chart(&output, A);
    let figures: Vec<(String, String)> = (shown.iter())
        .map(|(month, hours, _)| (month.clone(), hours.clone()))
        .collect();
    assert_eq!(figures, expected);
    // The busiest month's bar is the whole track; the others in proportion.
    let bars: Vec<&str> = shown.iter().map(|(_, _, bar)| bar.as_str()).collect();
    assert_eq!(bars, ["48", "100", "58", "91"]);
    // The caption names the chart, in a figure, as text.
    let (html, _) = page(&output.join(format!("roster/{A}/index.html")));
    assert!(html.contains("<figcaption>Hours by month (UTC)</figcaption>"));
    // No chart where the hours are unknown (C's reads fail), and zeros where nothing counts.
    assert!(chart(&output, C).is_empty());
    let b: Vec<String> = chart(&output, B).into_iter().map(|r| r.1).collect();
    assert_eq!(b, ["0.0", "0.0", "0.0", "0.0"]);
}
