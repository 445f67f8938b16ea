//! Members' ATC sessions, from VATSIM's Core API and as the site keeps them between builds
//! (`data/activity.json`, and its copy in the cache beside the output folder).
//!
//! **The Core API's answer.** `GET /v2/members/{cid}/atc?limit=&offset=` is a JSON object
//! `{"items": [...], "count": N}`: `count` is how many sessions the member has in all, and
//! there is no `next` link; a page is asked for by `offset`. Each item holds the session as
//! `connection_id`: `{id, vatsim_id, type, rating, callsign, start, end, server}`, `id` a
//! number, `vatsim_id` the CID as a string, `start` and `end` ISO 8601 times in UTC (`end`
//! null while the session is open), newest first. There is no date filter. Decided from the
//! maintained clients that read it (Python and TypeScript facility tools reading
//! `items[].connection_id.{id, callsign, start, end}` and `count`, paging by `limit` and
//! `offset`, found with the `search` tool over public code), since vatsim.dev's reference
//! gives no schema for the answer. Nothing in it is trusted: each field may be missing, null,
//! of another type or huge; an item that does not read is left out and counted, and only an
//! answer that is not such an object at all is a failure.
//!
//! **What is kept.** Every closed session a member's pages listed within the window, keyed
//! by its connection id (so a session read twice is one), whatever its callsign: which ones
//! count is the view's rule (`view::activity`), so that a change of `[activity] callsigns`
//! needs no new reads, and a page of sessions already known tells the next build to stop.
//! An open session is not kept: it is read again once it has ended. The file says whose data
//! made it ([`Origin`]), so that the demo's sample, or another facility's build into the same
//! folder, is never taken for this facility's sessions (members may share CIDs).

use super::previous::Origin;
use super::timestamp::parse_instant;
use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};

/// The `version` of data/activity.json this program writes and reads.
pub const ACTIVITY_VERSION: u64 = 1;

/// The longest callsign kept: VATSIM's are at most a dozen characters or so.
const MAX_CALLSIGN: usize = 20;
/// The most sessions kept for one member: ten a day for the longest window.
const MAX_SESSIONS: usize = 4_000;
/// The most members read back from a kept file.
const MAX_MEMBERS: usize = 50_000;

/// One closed ATC session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    /// The Core API's connection id.
    pub id: u64,
    pub callsign: String,
    #[serde(with = "utc")]
    pub start: DateTime<Utc>,
    #[serde(with = "utc")]
    pub end: DateTime<Utc>,
}

/// One page of the Core API's answer, read.
#[derive(Debug, Default)]
pub struct Page {
    /// The closed sessions, as listed.
    pub sessions: Vec<Session>,
    /// Items listed, whether they read or not: how far the next page's offset moves.
    pub items: usize,
    /// Sessions still open (not kept).
    pub open: usize,
    /// Items that did not read, or named another member.
    pub skipped: usize,
    /// The earliest start listed, open sessions too.
    pub earliest_start: Option<DateTime<Utc>>,
    /// How many sessions the member has in all, if the answer said.
    pub count: Option<u64>,
}

/// A page of `cid`'s sessions; `Err` when the body is not the Core API's answer at all.
pub fn decode_page(body: &[u8], cid: u64) -> Result<Page, String> {
    let value: Value =
        serde_json::from_slice(body).map_err(|e| format!("the answer is not JSON ({e})"))?;
    let Some(items) = value.get("items").and_then(Value::as_array) else {
        return Err("the answer holds no list of items".to_owned());
    };
    let mut page = Page {
        items: items.len(),
        count: value.get("count").and_then(Value::as_u64),
        ..Page::default()
    };
    for item in items {
        let Some(connection) = item.get("connection_id") else {
            page.skipped += 1;
            continue;
        };
        match read_session(connection, cid) {
            Some((start, end, id, callsign)) => {
                page.earliest_start = Some(page.earliest_start.map_or(start, |e| e.min(start)));
                match end {
                    Some(end) => page.sessions.push(Session {
                        id,
                        callsign,
                        start,
                        end,
                    }),
                    None => page.open += 1,
                }
            }
            None => page.skipped += 1,
        }
    }
    Ok(page)
}

type Read = (DateTime<Utc>, Option<DateTime<Utc>>, u64, String);

/// A session's start, end (`None` while open), id and callsign; `None` for one that does not
/// read, that names another member, or that ends before it starts.
fn read_session(connection: &Value, cid: u64) -> Option<Read> {
    let id = whole_number(connection.get("id")?)?;
    if let Some(vatsim_id) = connection.get("vatsim_id").filter(|v| !v.is_null())
        && whole_number(vatsim_id)? != cid
    {
        return None;
    }
    let callsign = connection.get("callsign")?.as_str()?.trim();
    if callsign.is_empty()
        || callsign.len() > MAX_CALLSIGN
        || !callsign
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return None;
    }
    let start = instant(connection.get("start")?)?;
    let end = match connection.get("end") {
        None | Some(Value::Null) => None,
        Some(end) => Some(instant(end).filter(|end| *end >= start)?),
    };
    Some((start, end, id, callsign.to_ascii_uppercase()))
}

/// A number, or a string of digits, as the API writes ids either way.
fn whole_number(value: &Value) -> Option<u64> {
    match value {
        Value::Number(n) => n.as_u64(),
        Value::String(s) if (1..=20).contains(&s.len()) => s.parse().ok(),
        _ => None,
    }
}

/// A time of day (a date alone is no session's time).
fn instant(value: &Value) -> Option<DateTime<Utc>> {
    let text = value.as_str()?;
    if !(16..=40).contains(&text.len()) {
        return None;
    }
    parse_instant(text).ok()
}

/// What is known of each member's sessions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Activity {
    pub members: BTreeMap<u64, MemberActivity>,
}

/// One member's sessions and when they were read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MemberActivity {
    /// When every session in the window was last read whole; `None`: never, and the member's
    /// hours are unknown.
    pub checked: Option<DateTime<Utc>>,
    /// When a read was last tried, whether it came to an end or not: members are read in
    /// this order, longest ago first, so that one that fails does not hold up the others.
    pub tried: Option<DateTime<Utc>>,
    /// Newest first, each id once.
    pub sessions: Vec<Session>,
}

/// data/activity.json, as written and as read back.
#[derive(Debug, Serialize, Deserialize)]
struct Stored {
    version: u64,
    #[serde(with = "utc")]
    generated: DateTime<Utc>,
    window_days: u32,
    /// Whose data made the build; `None` in a file written before it was recorded.
    origin: Option<Origin>,
    members: Vec<StoredMember>,
}

#[derive(Debug, Serialize, Deserialize)]
struct StoredMember {
    cid: u64,
    #[serde(with = "utc_or_none")]
    checked: Option<DateTime<Utc>>,
    #[serde(with = "utc_or_none")]
    tried: Option<DateTime<Utc>>,
    sessions: Vec<Session>,
}

impl Activity {
    /// A kept file read back, or why it cannot be (said in a warning; the build starts from
    /// what else it has). Untrusted: what does not hold to what a build writes (a session
    /// that ends before it starts, a callsign of other characters, a time before VATSIM)
    /// is left out.
    pub fn decode(body: &[u8]) -> Result<(Activity, Option<Origin>), String> {
        let stored: Stored = serde_json::from_slice(body)
            .map_err(|e| format!("it is not the activity file a build writes ({e})"))?;
        if stored.version != ACTIVITY_VERSION {
            return Err(format!(
                "it has version {}, which this program does not read",
                stored.version
            ));
        }
        let mut activity = Activity::default();
        for member in stored.members.into_iter().take(MAX_MEMBERS) {
            let mut sessions: Vec<Session> = (member.sessions.into_iter())
                .filter(is_sound)
                .take(MAX_SESSIONS)
                .collect();
            sort(&mut sessions);
            activity.members.insert(
                member.cid,
                MemberActivity {
                    checked: member.checked.filter(is_sane_time),
                    tried: member.tried.filter(is_sane_time),
                    sessions,
                },
            );
        }
        Ok((activity, stored.origin))
    }

    /// As data/activity.json holds it: members by CID, sessions newest first.
    pub fn encode(&self, generated: DateTime<Utc>, window_days: u32, origin: &Origin) -> Vec<u8> {
        let stored = Stored {
            version: ACTIVITY_VERSION,
            generated,
            window_days,
            origin: Some(origin.clone()),
            members: (self.members.iter())
                .map(|(cid, member)| StoredMember {
                    cid: *cid,
                    checked: member.checked,
                    tried: member.tried,
                    sessions: member.sessions.clone(),
                })
                .collect(),
        };
        let mut bytes = serde_json::to_vec_pretty(&stored).expect("the activity serializes");
        bytes.push(b'\n');
        bytes
    }

    /// `other` added: each member's sessions together, each id once, and the later of each
    /// time.
    pub fn merge(&mut self, other: Activity) {
        for (cid, theirs) in other.members {
            let ours = self.members.entry(cid).or_default();
            ours.checked = ours.checked.max(theirs.checked);
            ours.tried = ours.tried.max(theirs.tried);
            add_sessions(ours, theirs.sessions);
        }
    }

    /// Whether `cid`'s session `id` is known.
    pub fn knows(&self, cid: u64, id: u64) -> bool {
        (self.members.get(&cid)).is_some_and(|m| m.sessions.iter().any(|s| s.id == id))
    }

    /// Whether `cid`'s sessions were ever read whole.
    pub fn was_checked(&self, cid: u64) -> bool {
        (self.members.get(&cid)).is_some_and(|m| m.checked.is_some())
    }

    /// A read of `cid`'s sessions that came to its end at `now`: the sessions added, the
    /// member checked.
    pub fn record(&mut self, cid: u64, sessions: Vec<Session>, now: DateTime<Utc>) {
        let member = self.members.entry(cid).or_default();
        member.checked = Some(now);
        member.tried = Some(now);
        add_sessions(member, sessions);
    }

    /// A read of `cid`'s sessions tried at `now` that did not come to its end: what was known
    /// stays as it was.
    pub fn tried(&mut self, cid: u64, now: DateTime<Utc>) {
        self.members.entry(cid).or_default().tried = Some(now);
    }

    /// `members`, those to read first first: never tried, then tried longest ago; then by
    /// CID, so that the order is the same on every build.
    pub fn reading_order(&self, members: &[u64]) -> Vec<u64> {
        let mut order: Vec<u64> = members.to_vec();
        order.sort_by_key(|cid| (self.members.get(cid).and_then(|m| m.tried), *cid));
        order.dedup();
        order
    }

    /// Only `members` (the roster's), and only sessions that end after `window_start`: a
    /// member who left, and a session no window will count again, are not published.
    pub fn keep(&mut self, members: &HashSet<u64>, window_start: DateTime<Utc>) {
        self.members.retain(|cid, _| members.contains(cid));
        for member in self.members.values_mut() {
            member.sessions.retain(|s| s.end > window_start);
        }
    }
}

/// `sessions` added to `member`'s, each id once (the one read last wins), newest first.
fn add_sessions(member: &mut MemberActivity, sessions: Vec<Session>) {
    let new: HashSet<u64> = sessions.iter().map(|s| s.id).collect();
    member.sessions.retain(|s| !new.contains(&s.id));
    member
        .sessions
        .extend(sessions.into_iter().filter(is_sound));
    sort(&mut member.sessions);
    member.sessions.dedup_by_key(|s| s.id);
    member.sessions.truncate(MAX_SESSIONS);
}

fn sort(sessions: &mut [Session]) {
    sessions.sort_by_key(|s| std::cmp::Reverse((s.start, s.id)));
}

/// What a build keeps: a callsign as the Core API's are read, an end after the start.
fn is_sound(session: &Session) -> bool {
    let callsign = &session.callsign;
    !callsign.is_empty()
        && callsign.len() <= MAX_CALLSIGN
        && (callsign.bytes())
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
        && session.end >= session.start
        && is_sane_time(&session.start)
        && is_sane_time(&session.end)
}

/// After VATSIM began (2001), before the last instant a timestamp may have.
fn is_sane_time(time: &DateTime<Utc>) -> bool {
    let vatsim = DateTime::from_timestamp(978_307_200, 0).expect("2001 is a time");
    *time >= vatsim && *time <= super::timestamp::latest()
}

/// The start of a window of `days` ending at `now`.
pub fn window_start(now: DateTime<Utc>, days: u32) -> DateTime<Utc> {
    super::timestamp::add_clamped(now, -TimeDelta::days(i64::from(days)))
}

/// A time as data/activity.json writes it, `2026-11-29T12:00:00Z`, and reads it back.
mod utc {
    use chrono::{DateTime, SecondsFormat, Utc};
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(time: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&time.to_rfc3339_opts(SecondsFormat::Secs, true))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
        let text = String::deserialize(d)?;
        DateTime::parse_from_rfc3339(&text)
            .map(|t| t.to_utc())
            .map_err(|_| serde::de::Error::custom("expected an RFC 3339 time"))
    }
}

/// [`utc`], or null.
mod utc_or_none {
    use chrono::{DateTime, Utc};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    struct Time(#[serde(with = "super::utc")] DateTime<Utc>);

    pub fn serialize<S: Serializer>(time: &Option<DateTime<Utc>>, s: S) -> Result<S::Ok, S::Error> {
        time.map(Time).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DateTime<Utc>>, D::Error> {
        Ok(Option::<Time>::deserialize(d)?.map(|Time(time)| time))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn at(text: &str) -> DateTime<Utc> {
        parse_instant(text).unwrap()
    }

    #[test]
    fn a_page_reads_item_by_item_and_leaves_out_what_does_not_read() {
        let body = json!({"count": 9, "items": [
            {"connection_id": {"id": 5, "vatsim_id": "1000001", "callsign": "tjsj_twr",
                "start": "2026-11-01T10:00:00", "end": "2026-11-01T12:30:00Z"}},
            {"connection_id": {"id": "6", "vatsim_id": 1000001, "callsign": "TJSJ_APP",
                "start": "2026-11-02T10:00:00", "end": null}},
            {"connection_id": {"id": 7, "vatsim_id": "999", "callsign": "TJSJ_APP",
                "start": "2026-11-02T10:00:00", "end": "2026-11-02T11:00:00"}},
            {"connection_id": {"id": -1, "callsign": "TJSJ_APP", "start": "2026-11-02T10:00:00", "end": null}},
            {"connection_id": {"id": 8, "callsign": "TJSJ APP", "start": "2026-11-02T10:00:00", "end": null}},
            {"connection_id": {"id": 9, "callsign": "TJSJ_APP", "start": "2026-11-02", "end": null}},
            {"connection_id": {"id": 10, "callsign": "TJSJ_APP", "start": "2026-11-02T10:00:00", "end": "2026-11-01T10:00:00"}},
            {"connection_id": {"id": 11, "callsign": "X".repeat(5000), "start": "2026-11-02T10:00:00", "end": null}},
            {"connection_id": null}, 7, "x", {}
        ]});
        let page = decode_page(body.to_string().as_bytes(), 1_000_001).unwrap();
        assert_eq!(page.items, 12);
        assert_eq!(page.count, Some(9));
        assert_eq!(page.open, 1);
        assert_eq!(page.skipped, 10);
        assert_eq!(
            page.sessions,
            [Session {
                id: 5,
                callsign: "TJSJ_TWR".into(),
                start: at("2026-11-01T10:00:00Z"),
                end: at("2026-11-01T12:30:00Z"),
            }]
        );
        assert_eq!(page.earliest_start, Some(at("2026-11-01T10:00:00Z")));
        for bad in [
            &b"[]"[..],
            b"{\"items\": 5}",
            b"<html>",
            b"",
            b"{\"count\": 3}",
        ] {
            assert!(decode_page(bad, 1).is_err(), "{bad:?}");
        }
        let empty = decode_page(br#"{"items": [], "count": "many"}"#, 1).unwrap();
        assert_eq!((empty.items, empty.count), (0, None));
    }

    #[test]
    fn sessions_are_kept_once_by_id_newest_first_and_round_trip() {
        let session = |id: u64, start: &str, end: &str| Session {
            id,
            callsign: "TJSJ_TWR".into(),
            start: at(start),
            end: at(end),
        };
        let now = at("2026-11-29T00:00:00Z");
        let mut activity = Activity::default();
        activity.record(
            1,
            vec![
                session(1, "2026-11-01T10:00:00Z", "2026-11-01T11:00:00Z"),
                session(2, "2026-11-03T10:00:00Z", "2026-11-03T11:00:00Z"),
            ],
            now,
        );
        let mut other = Activity::default();
        other.record(
            1,
            vec![session(2, "2026-11-03T10:00:00Z", "2026-11-03T11:00:00Z")],
            at("2026-11-20T00:00:00Z"),
        );
        other.tried(3, at("2026-11-20T00:00:00Z"));
        activity.merge(other);
        let ids: Vec<u64> = activity.members[&1].sessions.iter().map(|s| s.id).collect();
        assert_eq!(ids, [2, 1]);
        assert_eq!(activity.members[&1].checked, Some(now));
        assert!(activity.knows(1, 2) && !activity.knows(1, 3) && !activity.knows(2, 1));
        assert!(!activity.was_checked(3));
        assert_eq!(activity.reading_order(&[3, 1, 2]), [2, 3, 1]);
        let origin = Origin {
            facility: Some("13".into()),
            demo: false,
        };
        let (read, read_origin) = Activity::decode(&activity.encode(now, 90, &origin)).unwrap();
        assert_eq!(read, activity);
        assert_eq!(read_origin, Some(origin));
        let mut kept = read.clone();
        kept.keep(&HashSet::from([1]), at("2026-11-02T00:00:00Z"));
        assert_eq!(kept.members.len(), 1);
        assert_eq!(kept.members[&1].sessions.len(), 1);
    }

    #[test]
    fn a_kept_file_that_is_not_ours_is_refused_or_cleaned() {
        assert!(Activity::decode(b"{}").is_err());
        assert!(Activity::decode(br#"{"version": 2, "generated": "2026-11-01T00:00:00Z", "window_days": 90, "members": []}"#).is_err());
        let body = json!({"version": 1, "generated": "2026-11-01T00:00:00Z", "window_days": 90,
        "members": [{"cid": 1, "checked": "1970-01-01T00:00:00Z", "tried": null, "sessions": [
            {"id": 1, "callsign": "<script>", "start": "2026-11-01T00:00:00Z", "end": "2026-11-01T01:00:00Z"},
            {"id": 2, "callsign": "TJSJ_TWR", "start": "2026-11-01T02:00:00Z", "end": "2026-11-01T01:00:00Z"},
            {"id": 3, "callsign": "TJSJ_TWR", "start": "2026-11-01T00:00:00Z", "end": "2026-11-01T01:00:00Z"}
        ]}]});
        let (read, origin) = Activity::decode(body.to_string().as_bytes()).unwrap();
        assert_eq!(origin, None);
        let member = &read.members[&1];
        assert_eq!(member.checked, None);
        assert_eq!(member.sessions.len(), 1);
        assert_eq!(member.sessions[0].id, 3);
    }
}
