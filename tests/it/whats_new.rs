//! What's new: the changes between builds, found against the previous build's public files
//! (from the output folder or `--previous URL`), and the page, feed and JSON made of them.

use crate::support::webhook::Webhook;
use crate::support::{
    MockServer, Ran, Reply, demo_body, demo_epoch, mock::closed_port, run, run_ok, tree, vatcar,
};
use serde_json::{Value, json};
use std::path::Path;

const SITE_URL: &str = "https://wn.example.org/";

/// The demo's four site bodies, each changed by `edit` (roster, facility events, documents),
/// written as a snapshot folder.
fn snapshot(edit: impl FnOnce(&mut Value, &mut Value, &mut Value)) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let read = |file: &str| -> Value { serde_json::from_slice(&demo_body(file)).unwrap() };
    let (mut roster, mut events, mut documents) = (
        read("facility-roster.json"),
        read("facility-events.json"),
        read("facility-documents.json"),
    );
    edit(&mut roster, &mut events, &mut documents);
    for (file, body) in [
        ("facility-roster.json", roster),
        ("facility-events.json", events),
        ("facility-documents.json", documents),
    ] {
        std::fs::write(dir.path().join(file), serde_json::to_vec(&body).unwrap()).unwrap();
    }
    std::fs::write(
        dir.path().join("division-events.json"),
        demo_body("division-events.json"),
    )
    .unwrap();
    dir
}

/// Today's data: the demo with a new visitor and a new document.
fn today() -> tempfile::TempDir {
    snapshot(|roster, _, documents| {
        roster["data"]["visitors"]
            .as_array_mut()
            .unwrap()
            .push(json!({
                "cid": 1700001, "first_name": "Vera", "last_name": "Visitante", "rating": 4,
                "home_facility": "Piarco FIR", "visit_start": "2026-11-15"
            }));
        documents[0]["files"].as_array_mut().unwrap().push(json!({
            "name": "Holiday Traffic Bulletin", "details": null, "updated_at": "18-Nov-2026",
            "url": "https://vatcar.net/storage/files/bulletin.pdf"
        }));
    })
}

/// The previous build's data, against [`today`]: two controllers not yet on the roster, one
/// promoted since, one who has since been demoted, one who has since left, no visitor
/// Vera, event 430 not yet posted, event 426 under another name, the new document missing
/// and the training handbook older.
fn before() -> tempfile::TempDir {
    snapshot(|roster, events, documents| {
        let controllers = roster["data"]["controllers"].as_array_mut().unwrap();
        controllers.retain(|c| c["cid"] != 1696748 && c["cid"] != 1476093);
        for c in controllers.iter_mut() {
            if c["cid"] == 1617058 {
                c["rating"] = json!(2);
            }
            if c["cid"] == 1452907 {
                c["rating"] = json!(7);
            }
        }
        controllers.push(json!({
            "cid": 1999999, "first_name": "Zed", "last_name": "Departido", "rating": 4,
            "join_date": "2026-11-01"
        }));
        let list = events["data"].as_array_mut().unwrap();
        list.retain(|e| e["id"] != 430);
        for e in list.iter_mut() {
            if e["id"] == 426 {
                e["name"] = json!("Holiday Lights (draft)");
            }
        }
        for category in documents.as_array_mut().unwrap() {
            for file in category["files"].as_array_mut().unwrap() {
                if file["name"] == "Student Training Handbook" {
                    file["updated_at"] = json!("11-Oct-2026");
                }
            }
        }
    })
}

/// A build of `snapshot` into `out` at the demo's time plus `days`, which must succeed.
fn build(snapshot: &Path, out: &Path, days: i64, extra: &[&str]) -> Ran {
    let ran = build_any(snapshot, out, days, extra);
    assert!(ran.status.success(), "{}", ran.text());
    ran
}

fn changes(out: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(out.join("data/changes.json")).unwrap()).unwrap()
}

/// The ids listed, with whether each is new.
fn ids(out: &Path) -> Vec<(String, bool)> {
    changes(out)["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let id = c["id"].as_str().unwrap().to_owned();
            (id, c["new"].as_bool().unwrap())
        })
        .collect()
}

/// Every file of the site that holds `text`.
fn files_holding(out: &Path, text: &str) -> Vec<String> {
    tree(out)
        .into_iter()
        .filter(|(_, bytes)| String::from_utf8_lossy(bytes).contains(text))
        .map(|(path, _)| path)
        .collect()
}

/// Each member data/roster.json records a promotion of: their CID, the rating reached and
/// the one it was from.
fn promoted_from(out: &Path) -> Vec<(u64, String, String)> {
    let roster: Value =
        serde_json::from_slice(&std::fs::read(out.join("data/roster.json")).unwrap()).unwrap();
    let lists = [&roster["controllers"], &roster["visitors"]];
    lists
        .into_iter()
        .flat_map(|list| list.as_array().unwrap())
        .filter(|person| person.get("promoted_from").is_some())
        .map(|person| {
            let text = |field: &str| person[field].as_str().unwrap().to_owned();
            let cid = person["cid"].as_u64().unwrap();
            (cid, text("rating"), text("promoted_from"))
        })
        .collect()
}

#[test]
fn each_kind_of_change_is_found_and_private_facts_appear_nowhere() {
    let (before, today) = (before(), today());
    let out = tempfile::tempdir().unwrap();
    let out = out.path().join("site");
    build(before.path(), &out, -1, &[]);
    assert!(
        files_holding(&out, "Departido").len() > 1,
        "the roster shows him"
    );
    build(today.path(), &out, 0, &[]);

    let file = changes(&out);
    assert_eq!(file["version"], 1);
    assert_eq!(file["first_build"], false);
    assert_eq!(file["site_url"], SITE_URL);
    let found = ids(&out);
    let kinds: Vec<&str> = found
        .iter()
        .map(|(id, _)| id.split(':').next().unwrap())
        .collect();
    for kind in [
        "new_member",
        "new_visitor",
        "promotion",
        "new_event",
        "event_changed",
        "new_document",
        "document_updated",
    ] {
        assert!(kinds.contains(&kind), "no {kind} in {found:?}");
    }
    let listed: Vec<&str> = found.iter().map(|(id, _)| id.as_str()).collect();
    for id in [
        "new_member:1696748",
        "new_member:1476093",
        "new_visitor:1700001",
        "promotion:1617058:S2",
        "new_event:430",
        "document_updated:",
    ] {
        assert!(
            listed.iter().any(|l| l.starts_with(id)),
            "{id} in {listed:?}"
        );
    }
    assert!(found.iter().all(|(_, new)| *new), "{found:?}");
    assert_eq!(found.len(), 8, "{found:?}");

    // Titles come from today's data, in the site's words, on the page, the home page and
    // the feed.
    let page = std::fs::read_to_string(out.join("whats-new/index.html")).unwrap();
    for title in [
        "Ana Sofía Maldonado was promoted to S2 (Tower Controller)",
        "Kevin Daniel joined as a home controller",
        "Vera Visitante joined as a visitor",
        "New event: Puerto Rico Full Tower Challenge",
        "Event changed: Holiday Lights over San Juan",
        "New document: Holiday Traffic Bulletin",
        "Document updated: Student Training Handbook",
    ] {
        assert!(page.contains(title), "{title}");
    }
    let feed = std::fs::read_to_string(out.join("whats-new.xml")).unwrap();
    assert!(feed.contains("was promoted to S2"), "{feed}");
    let home = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert_eq!(
        home.matches("class=\"change ").count(),
        5,
        "the latest five"
    );
    assert!(home.contains("href=\"whats-new/\""));

    // The demotion and the departure: nowhere but where the roster shows today's facts.
    assert_eq!(files_holding(&out, "Departido"), Vec::<String>::new());
    assert_eq!(files_holding(&out, "1999999"), Vec::<String>::new());
    for file in ["whats-new/index.html", "whats-new.xml", "data/changes.json"] {
        let text = std::fs::read_to_string(out.join(file)).unwrap();
        assert!(!text.contains("1452907"), "{file}");
        assert!(!text.contains("Luis Alberto Rosario"), "{file}");
    }
    assert!(!home.contains("Luis Alberto Rosario"));
}

#[test]
fn a_first_build_lists_the_recent_joins_and_says_it_is_one() {
    let today = today();
    let out = tempfile::tempdir().unwrap();
    let ran = build(today.path(), out.path(), 0, &[]);
    assert!(
        ran.stderr
            .contains("What's new: no previous build to compare with"),
        "{}",
        ran.stderr
    );
    let file = changes(out.path());
    assert_eq!(file["first_build"], true);
    assert_eq!(ids(out.path()), [("new_member:1696748".to_owned(), true)]);
    let roster: Value =
        serde_json::from_slice(&std::fs::read(out.path().join("data/roster.json")).unwrap())
            .unwrap();
    assert_eq!(roster["version"], 1);
    assert_eq!(roster["controllers"].as_array().unwrap().len(), 40);
    assert!(
        !String::from_utf8_lossy(&std::fs::read(out.path().join("data/roster.json")).unwrap())
            .contains('@')
    );
}

#[test]
fn changes_roll_on_for_the_window_and_go_with_their_subject() {
    let (before, today) = (before(), today());
    let out = tempfile::tempdir().unwrap();
    build(before.path(), out.path(), -1, &[]);
    build(today.path(), out.path(), 0, &[]);
    let promotion = ("promotion:1617058:S2".to_owned(), false);

    // Ten days on, the same data: everything is carried on, and nothing is new.
    build(today.path(), out.path(), 10, &[]);
    let later = ids(out.path());
    assert!(later.contains(&promotion), "{later:?}");
    assert_eq!(later.len(), 8, "{later:?}");
    assert!(later.iter().all(|(_, new)| !new), "{later:?}");
    let date = |out: &Path| {
        changes(out)["changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == "promotion:1617058:S2")
            .map(|c| c["date"].as_str().unwrap().to_owned())
    };
    assert_eq!(date(out.path()).as_deref(), Some("2026-11-20T12:00:00Z"));

    // Kevin leaves: his entry goes with him.
    let without_kevin = snapshot(|roster, _, _| {
        let controllers = roster["data"]["controllers"].as_array_mut().unwrap();
        controllers.retain(|c| c["cid"] != 1696748);
    });
    build(without_kevin.path(), out.path(), 11, &[]);
    let ids_now = ids(out.path());
    assert!(!ids_now.iter().any(|(id, _)| id == "new_member:1696748"));
    assert!(ids_now.contains(&promotion));

    // Thirty-one days after the promotion was found, it is out of the window, and the
    // roster no longer records it.
    build(without_kevin.path(), out.path(), 31, &[]);
    assert!(!ids(out.path()).contains(&promotion));
    assert_eq!(promoted_from(out.path()), []);
}

#[test]
fn the_same_data_and_previous_build_give_the_same_bytes() {
    let (before, today) = (before(), today());
    let [one, two] = [(); 2].map(|_| tempfile::tempdir().unwrap());
    for out in [&one, &two] {
        build(before.path(), out.path(), -1, &[]);
        build(today.path(), out.path(), 0, &[]);
    }
    let (a, b) = (tree(one.path()), tree(two.path()));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (path, bytes) in &a {
        assert!(bytes == &b[path], "{path} differs");
    }
}

#[test]
fn a_tampered_previous_build_publishes_none_of_its_text() {
    let today = today();
    let hostile = "<img src=x onerror=alert(31337)>";
    // Each case: its name, the changes.json and the roster.json (none: removed) planted.
    type Case = (&'static str, Vec<u8>, Option<Vec<u8>>);
    let cases: Vec<Case> = vec![
        (
            "oversized",
            {
                let mut big = br#"{"version":1,"changes":[],"state":{"events":{},"documents":{}},"x":""#.to_vec();
                big.resize(17 * 1024 * 1024, b'a');
                big.extend_from_slice(b"\"}");
                big
            },
            None,
        ),
        (
            "wrong types",
            json!({"version": 1, "changes": [{"id": 5, "date": []}],
                   "state": {"events": {}, "documents": {}}})
            .to_string()
            .into_bytes(),
            None,
        ),
        (
            "text in every field",
            json!({"version": 1,
                   "changes": [
                       {"id": "promotion:1617058:S2", "kind": hostile, "date": "2026-11-19T00:00:00Z",
                        "title": hostile, "url": hostile, "new": true},
                       {"id": hostile, "date": "2026-11-19T00:00:00Z", "title": hostile}],
                   "state": {"events": {}, "documents": {}}})
            .to_string()
            .into_bytes(),
            Some(
                json!({"version": 1,
                       "controllers": [{"cid": 1617058, "name": hostile, "rating": "S1"}],
                       "visitors": [{"cid": 1, "name": hostile, "rating": hostile}],
                       "staff": [{"code": hostile, "names": [hostile]}]})
                .to_string()
                .into_bytes(),
            ),
        ),
    ];
    for (case, changes_json, roster_json) in cases {
        let out = tempfile::tempdir().unwrap();
        build(today.path(), out.path(), 0, &[]);
        std::fs::write(out.path().join("data/changes.json"), &changes_json).unwrap();
        match &roster_json {
            Some(bytes) => std::fs::write(out.path().join("data/roster.json"), bytes).unwrap(),
            None => std::fs::remove_file(out.path().join("data/roster.json")).unwrap(),
        }
        let ran = build(today.path(), out.path(), 0, &[]);
        assert!(files_holding(out.path(), "31337").is_empty(), "{case}");
        if roster_json.is_none() {
            assert!(
                ran.stderr.contains("no previous build"),
                "{case}: {}",
                ran.stderr
            );
            assert_eq!(changes(out.path())["first_build"], true, "{case}");
        } else {
            // Read, and used for ids and ratings only: the promotion is found, titled from
            // today's data.
            assert_eq!(changes(out.path())["first_build"], false, "{case}");
            let page = std::fs::read_to_string(out.path().join("whats-new/index.html")).unwrap();
            assert!(
                page.contains("Ana Sofía Maldonado was promoted to S2"),
                "{case}"
            );
        }
    }
}

#[test]
fn the_previous_build_is_read_from_the_published_site_over_http() {
    let (before, today) = (before(), today());
    let published = tempfile::tempdir().unwrap();
    build(before.path(), published.path(), -1, &[]);
    let server = MockServer::start();
    for file in ["data/changes.json", "data/roster.json"] {
        let bytes = std::fs::read(published.path().join(file)).unwrap();
        server.route_path(&format!("/site/{file}"), vec![Reply::ok(bytes)]);
    }
    let out = tempfile::tempdir().unwrap();
    let previous = format!("{}/site/", server.url());
    let ran = build(today.path(), out.path(), 0, &["--previous", &previous]);
    assert!(!ran.stderr.contains("no previous build"), "{}", ran.stderr);
    assert_eq!(changes(out.path())["first_build"], false);
    assert!(ids(out.path()).contains(&("promotion:1617058:S2".to_owned(), true)));
    let asked: Vec<String> = server.log().into_iter().map(|l| l.target).collect();
    assert!(
        asked
            .iter()
            .any(|target| target.split('?').next() == Some("/site/data/changes.json")),
        "{asked:?}"
    );
    // No key travels to the published site.
    assert!(
        server
            .log()
            .iter()
            .all(|l| !l.headers.contains_key("api_key"))
    );
}

#[test]
fn an_unreachable_previous_site_is_a_warning_and_a_first_build() {
    let today = today();
    let out = tempfile::tempdir().unwrap();
    let previous = format!("http://127.0.0.1:{}/", closed_port());
    let ran = build(today.path(), out.path(), 0, &["--previous", &previous]);
    assert!(
        ran.stderr
            .contains("What's new: no previous build to compare with")
            && ran.stderr.contains("127.0.0.1"),
        "{}",
        ran.stderr
    );
    assert_eq!(changes(out.path())["first_build"], true);
}

#[test]
fn whats_new_days_and_previous_are_read_from_the_config_file() {
    let today = today();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("vatcar-site.toml");
    std::fs::write(&config, "title = \"T\"\nwhats_new_days = 400\n").unwrap();
    let ran = run(&mut vatcar(&[
        "build",
        "--config",
        config.to_str().unwrap(),
        "--snapshot",
        today.path().to_str().unwrap(),
    ]));
    assert!(!ran.status.success(), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("vatcar-site.toml:2") && ran.stderr.contains("1 to 365"),
        "{}",
        ran.stderr
    );

    let previous = format!("http://127.0.0.1:{}/", closed_port());
    std::fs::write(
        &config,
        format!("whats_new_days = 5\nprevious = \"{previous}\"\n"),
    )
    .unwrap();
    let out = dir.path().join("out");
    let ran = run_ok(
        vatcar(&[
            "build",
            "--config",
            config.to_str().unwrap(),
            "--snapshot",
            today.path().to_str().unwrap(),
            "--output",
            out.to_str().unwrap(),
        ])
        .env("SOURCE_DATE_EPOCH", demo_epoch()),
    );
    assert!(ran.stderr.contains(&previous), "{}", ran.stderr);
    assert_eq!(changes(&out)["days"], 5);
    // Kevin joined eleven days ago: outside a five-day window.
    assert_eq!(ids(&out), []);
}

#[test]
fn the_demo_shows_a_promotion_two_new_members_a_new_event_and_an_updated_document() {
    let out = tempfile::tempdir().unwrap();
    run_ok(&mut vatcar(&[
        "build",
        "--demo",
        "--output",
        out.path().to_str().unwrap(),
    ]));
    let file = changes(out.path());
    assert_eq!(file["first_build"], false);
    let mut kinds: Vec<(String, bool)> = file["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["kind"].as_str().unwrap().to_owned(), c["new"] == true))
        .collect();
    kinds.sort();
    let new = |kind: &str| (kind.to_owned(), true);
    assert_eq!(
        kinds,
        [
            new("document_updated"),
            new("new_event"),
            new("new_member"),
            new("new_member"),
            new("promotion"),
        ]
    );
    let home = std::fs::read_to_string(out.path().join("index.html")).unwrap();
    // The demo shows names as a facility's site does by default: first name and initial.
    assert!(home.contains("Ana M. was promoted to S2"), "{home}");
}

#[test]
fn the_roster_json_is_the_roster_page_without_any_address() {
    let site = crate::support::site_folder("[staff_emails]\natm = \"atm@sanjuan.example\"\n", &[]);
    let (ran, out) = crate::support::build_site(site.path(), &[]);
    assert!(ran.status.success(), "{}", ran.text());
    let page = std::fs::read_to_string(out.join("roster/index.html")).unwrap();
    assert!(page.contains("atm@sanjuan.example"), "the page shows it");
    let text = std::fs::read_to_string(out.join("data/roster.json")).unwrap();
    // The demo's roster has its members' e-mail addresses, which no page shows either.
    assert!(!text.contains('@'), "{text}");
    let roster: Value = serde_json::from_str(&text).unwrap();
    let first = &roster["controllers"][0];
    assert_eq!(
        page.matches("<td data-label=\"CID\" class=\"num\">")
            .count(),
        roster["controllers"].as_array().unwrap().len()
            + roster["visitors"].as_array().unwrap().len()
    );
    assert!(page.contains(first["name"].as_str().unwrap()));
    assert_eq!(roster["staff"][0]["code"], "ATM");
    assert_eq!(roster["staff"][0]["names"][0], "Marisol Vega-Torres");
}

/// [`build`], without asserting that it succeeded.
fn build_any(snapshot: &Path, out: &Path, days: i64, extra: &[&str]) -> Ran {
    let epoch = demo_epoch().parse::<i64>().unwrap() + days * 86_400;
    let mut args = vec![
        "build",
        "--snapshot",
        snapshot.to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
        "--site-url",
        SITE_URL,
    ];
    args.extend_from_slice(extra);
    run(vatcar(&args).env("SOURCE_DATE_EPOCH", epoch.to_string()))
}

/// The files What's new is published in.
const WHATS_NEW_FILES: [&str; 4] = [
    "whats-new/index.html",
    "index.html",
    "whats-new.xml",
    "data/changes.json",
];

#[test]
fn a_tampered_previous_build_never_publishes_a_suspension_or_a_promotion_nobody_had() {
    // Today: Tyrone Gumbs and Diego Santiago suspended, Kieran Lake inactive, Jada Hughes and
    // Lucía Irizarry observers (as in the demo), Gabriel Pagán at C1 as he has been all
    // along, Emmanuel Joseph and Camila Rivera at S2, Isabela Cruz at S3.
    let today = snapshot(|roster, _, _| {
        for c in roster["data"]["controllers"].as_array_mut().unwrap() {
            if c["cid"] == 1590318 || c["cid"] == 1648207 {
                c["rating"] = json!(0);
            }
            if c["cid"] == 1595527 {
                c["rating"] = json!(-1);
            }
        }
    });
    let out = tempfile::tempdir().unwrap();
    build(today.path(), out.path(), -1, &[]);
    // The previous build claims a promotion to each of today's ratings.
    let mut changes_json = changes(out.path());
    for id in [
        "promotion:1590318:SUS",
        "promotion:1648207:SUS",
        "promotion:1595527:INA",
        "promotion:1684319:OBS",
        "promotion:1690263:OBS",
        "promotion:1463548:C1",
        "promotion:1608894:S2",
        "promotion:1603412:S2",
        "promotion:1579031:S3",
    ] {
        let entry = json!({"id": id, "kind": "promotion", "date": "2026-11-19T12:00:00Z",
                           "title": "x", "url": "roster/", "new": true});
        changes_json["changes"].as_array_mut().unwrap().push(entry);
    }
    std::fs::write(
        out.path().join("data/changes.json"),
        serde_json::to_vec(&changes_json).unwrap(),
    )
    .unwrap();
    // Its roster puts Tyrone and Jada one step lower than today, as numbers go, and backs
    // the others' claims with a promoted_from that is no promotion: up as numbers go to a
    // suspension or observer, the same rating, back from a suspension or inactivity, down;
    // Gabriel's has none at all.
    let lower = [(1590318, "INA"), (1684319, "SUS")];
    let carried = [
        (1648207, "SUS", "INA"),
        (1595527, "INA", "INA"),
        (1690263, "OBS", "SUS"),
        (1608894, "S2", "SUS"),
        (1603412, "S2", "INA"),
        (1579031, "S3", "C1"),
    ];
    let roster_path = out.path().join("data/roster.json");
    let mut roster: Value = serde_json::from_slice(&std::fs::read(&roster_path).unwrap()).unwrap();
    for c in roster["controllers"].as_array_mut().unwrap() {
        for (cid, rating) in lower {
            if c["cid"] == cid {
                c["rating"] = json!(rating);
            }
        }
        for (cid, rating, from) in carried {
            if c["cid"] == cid {
                c["rating"] = json!(rating);
                c["promoted_from"] = json!(from);
            }
        }
    }
    std::fs::write(&roster_path, serde_json::to_vec(&roster).unwrap()).unwrap();

    let ran = build(today.path(), out.path(), 0, &[]);
    assert!(!ran.stderr.contains("no previous build"), "{}", ran.stderr);
    assert_eq!(changes(out.path())["first_build"], false);
    let promotions: Vec<(String, bool)> = ids(out.path())
        .into_iter()
        .filter(|(id, _)| id.starts_with("promotion:"))
        .collect();
    assert_eq!(promotions, [], "no promotion at all");
    for file in WHATS_NEW_FILES {
        let text = std::fs::read_to_string(out.path().join(file)).unwrap();
        for words in ["was promoted", "Suspended", "Inactive", "Observer"] {
            assert!(!text.contains(words), "{file}: {words}");
        }
    }
    assert_eq!(promoted_from(out.path()), [], "nothing for the next build");
}

#[test]
fn a_promotion_stays_listed_by_the_builds_that_follow_until_another_replaces_it() {
    let (before, today) = (before(), today());
    let out = tempfile::tempdir().unwrap();
    build(before.path(), out.path(), -1, &[]);
    build(today.path(), out.path(), 0, &[]);
    let found = ("promotion:1617058:S2".to_owned(), true);
    assert!(ids(out.path()).contains(&found));
    let recorded = |rating: &str, from: &str| vec![(1617058, rating.to_owned(), from.to_owned())];
    assert_eq!(promoted_from(out.path()), recorded("S2", "S1"));

    // The next builds' previous roster shows her at S2, promoted from S1: the promotion is
    // carried on, with the date it was found, wherever What's new is published.
    for days in [1, 2] {
        build(today.path(), out.path(), days, &[]);
        let entry = changes(out.path())["changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == "promotion:1617058:S2")
            .cloned();
        let entry = entry.unwrap_or_else(|| panic!("day {days}: {:?}", ids(out.path())));
        assert_eq!(entry["date"], "2026-11-20T12:00:00Z", "day {days}");
        assert_eq!(entry["new"], false, "day {days}");
        for file in WHATS_NEW_FILES {
            let text = std::fs::read_to_string(out.path().join(file)).unwrap();
            assert!(
                text.contains("Ana Sofía Maldonado was promoted to S2 (Tower Controller)"),
                "day {days}: {file}"
            );
        }
        assert_eq!(
            promoted_from(out.path()),
            recorded("S2", "S1"),
            "day {days}"
        );
    }

    // Promoted again, to S3: the new promotion is listed, and the one to S2 goes.
    let promoted_again = snapshot(|roster, _, _| {
        for c in roster["data"]["controllers"].as_array_mut().unwrap() {
            if c["cid"] == 1617058 {
                c["rating"] = json!(4);
            }
        }
    });
    build(promoted_again.path(), out.path(), 3, &[]);
    let promotions: Vec<(String, bool)> = ids(out.path())
        .into_iter()
        .filter(|(id, _)| id.starts_with("promotion:"))
        .collect();
    assert_eq!(promotions, [("promotion:1617058:S3".to_owned(), true)]);
    assert_eq!(promoted_from(out.path()), recorded("S3", "S2"));
}

#[test]
fn trailing_junk_after_a_previous_changes_json_makes_it_a_first_build() {
    let today = today();
    let out = tempfile::tempdir().unwrap();
    build(today.path(), out.path(), -1, &[]);
    let path = out.path().join("data/changes.json");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(b"<html>");
    std::fs::write(&path, bytes).unwrap();
    let ran = build(today.path(), out.path(), 0, &[]);
    assert!(
        ran.stderr.contains("data/changes.json is not valid JSON")
            && ran.stderr.contains("no previous build"),
        "{}",
        ran.stderr
    );
    assert_eq!(changes(out.path())["first_build"], true);
}

#[cfg(unix)]
#[test]
fn a_previous_file_that_is_a_link_is_named_as_one_and_not_followed() {
    let today = today();
    for file in ["data/changes.json", "data/roster.json"] {
        let out = tempfile::tempdir().unwrap();
        let site = out.path().join("site");
        build(today.path(), &site, -1, &[]);
        let elsewhere = out.path().join("elsewhere.json");
        std::fs::rename(site.join(file), &elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, site.join(file)).unwrap();
        // The build then stops, as it never replaces a link in the output folder; what it
        // says of the previous build comes first.
        let ran = build_any(today.path(), &site, 0, &[]);
        assert!(
            ran.stderr
                .contains(&format!("{file} is a link, which is not followed"))
                && ran.stderr.contains("no previous build"),
            "{file}: {}",
            ran.stderr
        );
        assert!(!ran.stderr.contains("has no"), "{file}: {}", ran.stderr);
    }
}

#[test]
fn a_previous_address_with_a_password_is_printed_without_it() {
    let today = today();
    let server = MockServer::start();
    server.route_path("/site/data/changes.json", vec![Reply::status(500)]);
    let port = server.url().rsplit(':').next().unwrap().to_owned();
    for port in [closed_port().to_string(), port] {
        let out = tempfile::tempdir().unwrap();
        let previous = format!("http://webmaster:s3cretpw@127.0.0.1:{port}/site/");
        let ran = build(today.path(), out.path(), 0, &["--previous", &previous]);
        assert!(
            ran.stderr.contains("no previous build")
                && ran.stderr.contains(&format!("127.0.0.1:{port}/site/")),
            "{}",
            ran.stderr
        );
        assert!(!ran.text().contains("s3cretpw"), "{}", ran.text());
        assert!(!ran.text().contains("webmaster"), "{}", ran.text());
    }
    assert_eq!(server.log().len(), 1, "the second address was asked");
}

/// A site that answers `/x/data/changes.json` with a redirect to `to`, and a proxy for
/// [`build_through`].
fn redirecting(to: &str) -> (MockServer, MockServer) {
    let (site, proxy) = (MockServer::start(), MockServer::start());
    site.route_path(
        "/x/data/changes.json",
        vec![Reply::status(302).header("Location", to)],
    );
    (site, proxy)
}

/// A build reading the previous site at `previous`, told to reach every address but
/// 127.0.0.1 and localhost through `proxy`: a request that would leave this machine reaches
/// the proxy instead, and is logged there, never the network.
fn build_through(proxy: &MockServer, today: &Path, out: &Path, previous: &str) -> Ran {
    let epoch = demo_epoch();
    let args = [
        "build",
        "--snapshot",
        today.to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
        "--previous",
        previous,
    ];
    let mut command = vatcar(&args);
    command.env("SOURCE_DATE_EPOCH", epoch);
    for name in [
        "http_proxy",
        "HTTP_PROXY",
        "https_proxy",
        "HTTPS_PROXY",
        "all_proxy",
        "ALL_PROXY",
    ] {
        command.env(name, proxy.url());
    }
    for name in ["no_proxy", "NO_PROXY"] {
        command.env(name, "127.0.0.1,localhost");
    }
    run_ok(&mut command)
}

#[test]
fn a_previous_site_redirecting_off_this_machine_over_http_is_refused_before_connecting() {
    let today = today();
    let forged = json!({"version": 1, "changes": [], "state": {"events": {}, "documents": {}}});
    let (site, proxy) = redirecting("http://mallory:hunter2@192.0.2.2:8080/x/data/changes.json");
    // Were the redirect followed, the proxy would answer for 192.0.2.2, and be used.
    for target in [
        "http://192.0.2.2:8080/x/data/changes.json",
        "http://mallory:hunter2@192.0.2.2:8080/x/data/changes.json",
    ] {
        proxy.route_path(target, vec![Reply::ok(forged.to_string())]);
    }
    let out = tempfile::tempdir().unwrap();
    let previous = format!("{}/x/", site.url());
    let ran = build_through(&proxy, today.path(), out.path(), &previous);
    assert!(
        ran.stderr.contains(
            "redirected to http://192.0.2.2:8080/x/data/changes.json: the previous site is read over https (http only on this machine)"
        ) && ran.stderr.contains("no previous build"),
        "{}\nthe proxy was asked: {:?}",
        ran.stderr,
        proxy.log()
    );
    assert!(!ran.stderr.contains("hunter2"), "{}", ran.stderr);
    assert_eq!(changes(out.path())["first_build"], true);
    assert_eq!(site.log().len(), 1);
    // Refused by the rule, before any connection: nothing reached the proxy either.
    assert!(proxy.log().is_empty(), "{:?}", proxy.log());
}

#[test]
fn a_previous_site_may_redirect_to_another_address_of_this_machine() {
    let (before, today) = (before(), today());
    let published = tempfile::tempdir().unwrap();
    build(before.path(), published.path(), -1, &[]);
    let (site, proxy) = (MockServer::start(), MockServer::start());
    for file in ["data/changes.json", "data/roster.json"] {
        let bytes = std::fs::read(published.path().join(file)).unwrap();
        site.route_path(&format!("/y/{file}"), vec![Reply::ok(bytes)]);
        let moved = format!("{}/y/{file}", site.url().replace("127.0.0.1", "localhost"));
        site.route_path(
            &format!("/x/{file}"),
            vec![Reply::status(302).header("Location", &moved)],
        );
    }
    let out = tempfile::tempdir().unwrap();
    let previous = format!("{}/x/", site.url());
    let ran = build_through(&proxy, today.path(), out.path(), &previous);
    assert!(!ran.stderr.contains("no previous build"), "{}", ran.stderr);
    assert!(ids(out.path()).contains(&("promotion:1617058:S2".to_owned(), true)));
    assert!(proxy.log().is_empty(), "{:?}", proxy.log());
}

#[test]
fn a_previous_site_redirecting_in_a_loop_is_given_up_after_five_redirects() {
    let today = today();
    let (site, proxy) = redirecting("/x/data/changes.json");
    let out = tempfile::tempdir().unwrap();
    let previous = format!("{}/x/", site.url());
    let ran = build_through(&proxy, today.path(), out.path(), &previous);
    assert!(
        ran.stderr.contains("too many redirects") && ran.stderr.contains("no previous build"),
        "{}",
        ran.stderr
    );
    assert_eq!(site.log().len(), 6, "the first request and five redirects");
}

#[test]
fn a_renamed_document_is_renamed_or_updated_never_new() {
    let before = snapshot(|_, _, _| {});
    // The same files (the same addresses) under other names, one of them with a new date,
    // and one document that is new.
    let today = snapshot(|_, _, documents| {
        let rename = |documents: &mut Value, from: &str, to: &str, date: Option<&str>| {
            for category in documents.as_array_mut().unwrap() {
                for file in category["files"].as_array_mut().unwrap() {
                    if file["name"] == from {
                        file["name"] = json!(to);
                        if let Some(date) = date {
                            file["updated_at"] = json!(date);
                        }
                    }
                }
            }
        };
        rename(documents, "TJSJ Tower SOP", "San Juan Tower SOP", None);
        rename(
            documents,
            "Outer Airports SOP",
            "Outer Airports and Heliports SOP",
            Some("15-Nov-2026"),
        );
        documents[0]["files"].as_array_mut().unwrap().push(json!({
            "name": "Holiday Traffic Bulletin", "details": null, "updated_at": "18-Nov-2026",
            "url": "https://vatcar.net/storage/files/bulletin.pdf"
        }));
    });
    let out = tempfile::tempdir().unwrap();
    build(before.path(), out.path(), -1, &[]);
    build(today.path(), out.path(), 0, &[]);
    let titles = |out: &Path| -> Vec<(String, String, bool)> {
        changes(out)["changes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["kind"].as_str().unwrap().contains("document"))
            .map(|c| {
                let text = |field: &str| c[field].as_str().unwrap().to_owned();
                (text("kind"), text("title"), c["new"].as_bool().unwrap())
            })
            .collect()
    };
    let mut found = titles(out.path());
    found.sort();
    let expected = |new: bool| {
        [
            ("document_renamed", "Document renamed: San Juan Tower SOP"),
            (
                "document_updated",
                "Document updated: Outer Airports and Heliports SOP",
            ),
            ("new_document", "New document: Holiday Traffic Bulletin"),
        ]
        .map(|(kind, title)| (kind.to_owned(), title.to_owned(), new))
        .to_vec()
    };
    assert_eq!(found, expected(true));
    let page = std::fs::read_to_string(out.path().join("whats-new/index.html")).unwrap();
    assert!(
        page.contains("Document renamed: San Juan Tower SOP"),
        "{page}"
    );
    // The next build carries them on, found before.
    build(today.path(), out.path(), 1, &[]);
    let mut found = titles(out.path());
    found.sort();
    assert_eq!(found, expected(false));
}

#[test]
fn a_run_right_after_a_deploy_reads_past_the_cdn_and_announces_nothing_twice() {
    let (before, today) = (before(), today());
    let site = MockServer::start();
    let previous = format!("{}/site/", site.url());
    let files = ["data/changes.json", "data/roster.json"];
    let publish = |folder: &Path| {
        for file in files {
            let bytes = std::fs::read(folder.join(file)).unwrap();
            site.route_path(&format!("/site/{file}"), vec![Reply::ok(bytes)]);
        }
    };
    // The site as deployed the day before; the CDN's edge keeps a copy of each file.
    let deployed = tempfile::tempdir().unwrap();
    build(before.path(), deployed.path(), -1, &[]);
    publish(deployed.path());
    for file in files {
        let bytes = std::fs::read(deployed.path().join(file)).unwrap();
        site.edge_copy(&format!("/site/{file}"), Reply::ok(bytes));
    }
    let hook = Webhook::accepting();
    // A run as the workflow makes it: build against the published site, deploy, announce.
    let ci_run = || {
        let out = tempfile::tempdir().unwrap();
        build(today.path(), out.path(), 0, &["--previous", &previous]);
        publish(out.path());
        let config = tempfile::tempdir().unwrap();
        let announced = run(
            vatcar(&["announce", "--output", out.path().to_str().unwrap()])
                .current_dir(config.path())
                .env("DISCORD_WEBHOOK_URL", hook.url()),
        );
        assert!(announced.status.success(), "{}", announced.text());
        announced
    };
    let first = ci_run();
    let posted = || -> Vec<String> {
        hook.delivered()
            .iter()
            .flat_map(|post| post["embeds"].as_array().unwrap().clone())
            .map(|embed| embed["title"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(posted().len(), 8, "{}", first.text());
    // Started minutes after that deploy, while the edge still serves the day before's files.
    let second = ci_run();
    assert_eq!(posted().len(), 8, "posted again: {}", second.text());
    assert!(
        second
            .text()
            .contains("nothing new since the previous build"),
        "{}",
        second.text()
    );
    for request in site.log() {
        assert_eq!(
            request.headers.get("cache-control").map(String::as_str),
            Some("no-cache"),
            "{}",
            request.target
        );
    }
}

/// Issue 50: the README's first step (`build --demo` or `serve --demo`) writes the output
/// folder; the real site's first build into it must not take the demo for its day before,
/// even when its members have the demo's CIDs.
#[test]
fn a_build_into_the_demos_output_is_a_first_build_that_takes_nothing_from_the_demo() {
    let out = tempfile::tempdir().unwrap();
    let demo = run_ok(&mut crate::support::vatcar_at_demo_time(&[
        "build",
        "--demo",
        "--output",
        out.path().to_str().unwrap(),
    ]));
    assert_eq!(
        changes(out.path())["origin"]["demo"],
        true,
        "{}",
        demo.text()
    );
    // Another facility's snapshot, over the demo's members.
    let other = snapshot(|roster, _, _| {
        roster["data"]["facility"] =
            json!({"id": 77, "short_name": "MDCS", "long_name": "Santo Domingo"})
    });
    let ran = build(other.path(), out.path(), 0, &[]);
    assert!(
        ran.stderr.contains(
            "What's new: no previous build to compare with (the one found was made from the demo's data)"
        ),
        "{}",
        ran.stderr
    );
    let file = changes(out.path());
    assert_eq!(file["first_build"], true);
    assert_eq!(file["origin"], json!({"facility": "77", "demo": false}));
    // The same as a first build into an empty folder: none of the demo's entries, and no
    // promotion carried from the demo's day before.
    let fresh = tempfile::tempdir().unwrap();
    build(other.path(), fresh.path(), 0, &[]);
    assert_eq!(ids(out.path()), ids(fresh.path()));
    assert!(promoted_from(out.path()).is_empty());
    let announced = run_ok(
        vatcar(&[
            "announce",
            "--dry-run",
            "--output",
            out.path().to_str().unwrap(),
        ])
        .current_dir(fresh.path()),
    );
    assert!(
        announced.stderr.contains("a first build")
            && announced.stderr.contains("nothing was posted"),
        "{}",
        announced.text()
    );

    // Then a build of the same facility compares with it again; a third facility's does not.
    let ran = build(other.path(), out.path(), 1, &[]);
    assert!(!ran.stderr.contains("no previous build"), "{}", ran.stderr);
    assert_eq!(changes(out.path())["first_build"], false);
    let third = snapshot(|roster, _, _| roster["data"]["facility"] = json!("Piarco FIR"));
    let ran = build(third.path(), out.path(), 2, &[]);
    assert!(
        ran.stderr
            .contains("(the one found was made from another facility's data)"),
        "{}",
        ran.stderr
    );
}
