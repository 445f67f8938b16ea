//! The Atom feed's length: `feed_limit` in the config file, `--feed-limit` over it, 50 by
//! default, 0 for every upcoming event. The built binary, against a snapshot with more
//! upcoming events than the limit.

use crate::support::{run, run_ok, vatcar_at_demo_time};
use chrono::{DateTime, Duration, Utc};
use serde_json::{Value, json};
use std::fs;
use std::path::Path;

/// Upcoming events in the snapshot (coprime with [`STRIDE`]).
const UPCOMING: usize = 120;
/// Ids are given in an order other than the start times', so that "soonest first" is not
/// "lowest id first": event `i` starts `(i * STRIDE) % UPCOMING` hours after the first.
const STRIDE: usize = 37;
/// When the event at this place in start order was last changed: the latest change within the
/// default limit.
const EDITED_SOON: (usize, &str) = (3, "2026-11-10T12:00:00Z");
/// The last event to start is the latest changed of all, beyond any limit below.
const EDITED_LATE: &str = "2026-11-19T08:30:00Z";

fn first_start() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2027-01-01T18:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

/// Place in start order of the event with index `i`.
fn rank(i: usize) -> usize {
    (i * STRIDE) % UPCOMING
}

/// The id of the event at place `rank` in start order.
fn id_at(place: usize) -> usize {
    30_000 + (0..UPCOMING).find(|i| rank(*i) == place).unwrap()
}

/// The demo's roster and documents, no division events, and [`UPCOMING`] facility events
/// after the demo's build time plus a few that ended before it.
fn snapshot() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("demo");
    for file in ["facility-roster.json", "facility-documents.json"] {
        fs::copy(demo.join(file), dir.path().join(file)).unwrap();
    }
    let api_time = |t: DateTime<Utc>| t.format("%Y-%m-%d %H:%M:%S").to_string();
    let mut data: Vec<Value> = (0..UPCOMING)
        .map(|i| {
            let start = first_start() + Duration::hours(rank(i) as i64);
            let updated = match rank(i) {
                place if place == EDITED_SOON.0 => EDITED_SOON.1,
                place if place == UPCOMING - 1 => EDITED_LATE,
                _ => "2026-11-01T00:00:00Z",
            };
            json!({
                "id": 30_000 + i,
                "name": format!("Upcoming event {i}"),
                "description": format!("Event **{i}**."),
                "start": api_time(start),
                "end": api_time(start + Duration::minutes(90)),
                "created_at": "2026-10-01T00:00:00.000000Z",
                "updated_at": updated.replace('Z', ".000000Z"),
            })
        })
        .collect();
    for i in 0..5 {
        data.push(json!({
            "id": 29_000 + i,
            "name": format!("Past event {i}"),
            "description": "",
            "start": format!("2026-06-0{} 20:00:00", i + 1),
            "end": format!("2026-06-0{} 23:00:00", i + 1),
            "updated_at": "2026-11-19T23:59:59.000000Z",
        }));
    }
    let body = |data: Vec<Value>| serde_json::to_vec(&json!({"success": true, "data": data}));
    fs::write(dir.path().join("facility-events.json"), body(data).unwrap()).unwrap();
    fs::write(
        dir.path().join("division-events.json"),
        body(Vec::new()).unwrap(),
    )
    .unwrap();
    dir
}

/// `build --snapshot` with a site URL (the feed needs one), into `out`.
fn build(snapshot: &Path, out: &Path, extra: &[&str]) -> std::process::Command {
    let mut command =
        vatcar_at_demo_time(&["build", "--quiet", "--site-url", "https://x.example/"]);
    command
        .arg("--snapshot")
        .arg(snapshot)
        .arg("--output")
        .arg(out)
        .args(extra);
    command
}

/// The feed's `<updated>` and its entries' ids, in order.
fn feed(out: &Path) -> (String, Vec<String>) {
    let text = fs::read_to_string(out.join("feed.xml")).unwrap();
    let between = |text: &str, open: &str, close: &str| -> String {
        text.split(open)
            .nth(1)
            .unwrap()
            .split(close)
            .next()
            .unwrap()
            .to_owned()
    };
    let mut parts = text.split("<entry>");
    let head = parts.next().unwrap();
    let ids = parts.map(|entry| between(entry, "<id>", "</id>")).collect();
    (between(head, "<updated>", "</updated>"), ids)
}

/// The ids the feed should list: the `n` soonest upcoming events.
fn soonest(n: usize) -> Vec<String> {
    (0..n)
        .map(|place| format!("https://x.example/events/{}/", id_at(place)))
        .collect()
}

#[test]
fn the_feed_lists_the_fifty_soonest_events_by_default() {
    let snapshot = snapshot();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    run_ok(&mut build(snapshot.path(), &out, &[]));
    let (updated, ids) = feed(&out);
    assert_eq!(ids.len(), 50);
    assert_eq!(ids, soonest(50));
    // The latest change among the entries listed; the one beyond the limit does not count.
    assert_eq!(updated, EDITED_SOON.1);
    // Only the feed is bounded: every event still has its page.
    assert!(
        out.join(format!("events/{}/index.html", id_at(UPCOMING - 1)))
            .is_file()
    );

    // A second build writes the same feed.
    let first = fs::read(out.join("feed.xml")).unwrap();
    let again = tmp.path().join("again");
    run_ok(&mut build(snapshot.path(), &again, &[]));
    assert!(fs::read(again.join("feed.xml")).unwrap() == first);
}

#[test]
fn feed_limit_comes_from_the_config_file_and_the_flag_overrides_it() {
    let snapshot = snapshot();
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("vatcar-site.toml");
    let out = tmp.path().join("site");
    let with_config = |text: &str, extra: &[&str]| {
        fs::write(&config, text).unwrap();
        let mut command = build(snapshot.path(), &out, extra);
        command.arg("--config").arg(&config);
        run_ok(&mut command);
        feed(&out)
    };

    let (updated, ids) = with_config("feed_limit = 10\n", &[]);
    assert_eq!(ids, soonest(10));
    assert_eq!(updated, EDITED_SOON.1);

    let (updated, ids) = with_config("feed_limit = 10\n", &["--feed-limit", "3"]);
    assert_eq!(ids, soonest(3));
    // None of the three was changed after the others.
    assert_eq!(updated, "2026-11-01T00:00:00Z");

    // 0: every upcoming event, and none that has ended.
    let (updated, ids) = with_config("feed_limit = 0\n", &[]);
    assert_eq!(ids, soonest(UPCOMING));
    assert_eq!(updated, EDITED_LATE);

    let (_, ids) = with_config("feed_limit = 10\n", &["--feed-limit", "0"]);
    assert_eq!(ids.len(), UPCOMING);

    // A limit above the number of events lists them all.
    let (_, ids) = with_config("", &["--feed-limit", "1000"]);
    assert_eq!(ids, soonest(UPCOMING));
}

#[test]
fn a_bad_feed_limit_is_an_error_naming_the_file_line_and_key() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("vatcar-site.toml");
    for (text, found) in [
        ("title = \"x\"\nfeed_limit = -5\n", "found -5"),
        ("title = \"x\"\nfeed_limit = 2.5\n", "found a float"),
        ("title = \"x\"\nfeed_limit = \"ten\"\n", "found a string"),
    ] {
        fs::write(&config, text).unwrap();
        let ran = run(vatcar_at_demo_time(&["build", "--demo", "--config"])
            .arg(&config)
            .arg("--output")
            .arg(tmp.path().join("site")));
        let printed = ran.text();
        assert_eq!(ran.code(), Some(2), "{printed}");
        assert!(
            printed.contains(&format!(
                "vatcar-site.toml:2: feed_limit: expected a whole number of entries (0 for no limit), {found}"
            )),
            "{text:?} gave {printed}"
        );
        assert!(!tmp.path().join("site").exists());
    }

    let ran = run(vatcar_at_demo_time(&["build", "--demo", "--feed-limit=-1"])
        .arg("--output")
        .arg(tmp.path().join("site")));
    assert_eq!(ran.code(), Some(2), "{}", ran.text());
    assert!(ran.stderr.contains("--feed-limit"), "{}", ran.stderr);
}
