//! An event's positions, whose fields the spec does not show: each entry shown as well as its
//! shape allows, with who staffs it by the roster's names.

use super::Texts;
use super::people::WrittenNames;
use crate::model::Roster;
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;

#[derive(Clone, Debug, Serialize)]
pub struct Position {
    pub label: String,
    pub detail: Option<String>,
}

/// The CID a position entry names (its `cid`, a number or a numeric text); `None` for a
/// vacant position, or one that names its controller otherwise.
pub(super) fn position_cid(entry: &serde_json::Map<String, Value>) -> Option<u64> {
    match entry.get("cid")? {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A position entry of unknown shape, shown as well as can be: a label from the first of
/// `position`, `callsign`, `name`, `title`; a detail naming who staffs it (a controller name,
/// or a CID looked up in the roster, or "vacant" where the controller or CID is null) and any
/// times given, in Zulu.
pub(super) fn position(value: &Value, names: &Names, texts: &Texts) -> Option<Position> {
    let text = |v: &Value| match v {
        Value::String(s) => Some(s.trim().to_owned()).filter(|s| !s.is_empty()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    };
    let object = match value {
        Value::Object(object) => object,
        other => {
            return text(other).map(|label| Position {
                label,
                detail: None,
            });
        }
    };
    let label_key = ["position", "callsign", "name", "title"]
        .into_iter()
        .find(|k| object.get(*k).and_then(&text).is_some())?;
    let label = text(&object[label_key])?;
    let mut details = Vec::new();
    let person_keys = ["controller", "controller_name", "user_name"];
    let person = (person_keys.into_iter()).find_map(|k| object.get(k).and_then(&text));
    let no_person = (person_keys.into_iter()).any(|k| object.get(k).is_some_and(Value::is_null));
    match (person, object.get("cid")) {
        (Some(name), _) => match &names.written {
            Some(written) => details.extend(written.shown(&name)),
            None => details.push(name),
        },
        (None, Some(Value::Null)) => details.push(texts.text("event.position_vacant", &[])),
        (None, None) if no_person => details.push(texts.text("event.position_vacant", &[])),
        (None, Some(_)) => {
            if let Some(cid) = position_cid(object) {
                details.push(
                    (names.by_cid)
                        .get(&cid)
                        .cloned()
                        .unwrap_or_else(|| format!("CID {cid}")),
                );
            }
        }
        (None, None) => {}
    }
    let times: Vec<String> = ["start", "end"]
        .into_iter()
        .filter_map(|k| object.get(k).and_then(&text))
        .map(|time| zulu_time(&time))
        .collect();
    if !times.is_empty() {
        details.push(times.join("–"));
    }
    Some(Position {
        label,
        detail: (!details.is_empty()).then(|| details.join(", ")),
    })
}

/// A position's time in Zulu: `23:00` becomes `23:00Z`, a whole timestamp its time of day in
/// UTC; anything else is shown as given. The spec does not show a position's fields; the
/// division's events give `HH:MM`, and every time the network uses is UTC.
fn zulu_time(time: &str) -> String {
    use chrono::{DateTime, NaiveDateTime, NaiveTime};
    let of_day = (NaiveTime::parse_from_str(time, "%H:%M").ok())
        .or_else(|| NaiveTime::parse_from_str(time, "%H:%M:%S").ok())
        .or_else(|| {
            DateTime::parse_from_rfc3339(time)
                .ok()
                .map(|t| t.naive_utc().time())
        })
        .or_else(|| {
            NaiveDateTime::parse_from_str(time, "%Y-%m-%d %H:%M:%S")
                .ok()
                .map(|t| t.time())
        });
    match of_day {
        Some(of_day) => of_day.format("%H:%MZ").to_string(),
        None => time.to_owned(),
    }
}

pub(super) fn roster_names(roster: &Roster, written: Option<WrittenNames>) -> Names {
    let mut by_cid = HashMap::new();
    // A member named twice is named as the roster first names them, as on the live page.
    for member in roster.everyone() {
        if let Some(name) = &member.name {
            by_cid.entry(member.cid).or_insert_with(|| name.clone());
        }
    }
    Names { by_cid, written }
}

/// The names an event's positions are shown with.
pub(super) struct Names {
    /// The roster's names (as `[people]` shows them), by CID.
    pub(super) by_cid: HashMap<u64, String>,
    /// `[people]`'s rule for a name the API wrote as text; `None` with `[people]` off.
    pub(super) written: Option<WrittenNames>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_the_roster_names_twice_is_named_as_first_named_as_on_the_live_page() {
        use crate::model::{Member, StaffPosition, StaffRole};
        let member = |cid: u64, name: Option<&str>| Member {
            cid,
            name: name.map(str::to_owned),
            ..Member::default()
        };
        let roster = Roster {
            facility: None,
            staff: vec![StaffPosition {
                role: StaffRole::Atm,
                holders: vec![member(1, Some("Ana on the staff")), member(3, Some("Luis"))],
            }],
            controllers: vec![member(1, Some("Ana Sofía")), member(2, None)],
            visitors: vec![member(2, Some("Jean"))],
        };
        let names = roster_names(&roster, None).by_cid;
        let expected = [(1, "Ana Sofía"), (2, "Jean"), (3, "Luis")].map(|(c, n)| (c, n.to_owned()));
        assert_eq!(names, HashMap::from(expected));
    }

    #[test]
    fn a_position_says_vacant_in_words_and_its_times_in_zulu() {
        let texts = crate::i18n::Texts::english();
        let names = Names {
            by_cid: std::collections::HashMap::from([(1617058, "Ana Sofía".to_owned())]),
            written: None,
        };
        let shown = |value: serde_json::Value| {
            let position = position(&value, &names, &texts).unwrap();
            format!(
                "{} / {}",
                position.label,
                position.detail.unwrap_or_default()
            )
        };
        use serde_json::json;
        let cases = [
            (
                json!({"callsign": "SJU_CTR", "controller": null, "start": "00:00"}),
                "SJU_CTR / vacant, 00:00Z",
            ),
            (
                json!({"position": "SJU_CTR", "cid": null}),
                "SJU_CTR / vacant",
            ),
            (
                json!({"position": "TJSJ_DEL", "cid": 1617058, "start": "23:00", "end": "01:30:00"}),
                "TJSJ_DEL / Ana Sofía, 23:00Z–01:30Z",
            ),
            (
                json!({"callsign": "TJSJ_APP", "controller": "Roberto", "start": "2026-12-01T22:00:00.000000Z"}),
                "TJSJ_APP / Roberto, 22:00Z",
            ),
            (
                json!({"callsign": "TJSJ_TWR", "start": "after the briefing"}),
                "TJSJ_TWR / after the briefing",
            ),
            (json!({"callsign": "TJSJ_GND"}), "TJSJ_GND / "),
        ];
        for (value, expected) in cases {
            assert_eq!(shown(value), expected);
        }
    }
}
