//! VATSIM's ATC bookings list, decoded: a JSON array of bookings, each with `id`, `cid`,
//! `type`, `callsign`, `start`, `end` (UTC, `YYYY-MM-DD HH:MM:SS`), `division` and
//! `subdivision` (vatsimnetwork/atc-bookings, `public/api-spec.json` and
//! `BookingApiController::index`).
//!
//! Tolerated as its consumers tolerate them: `cid` and `id` as a number or a string, null
//! fields, unknown fields, an empty array, the array wrapped as `{"data": [...]}`; any of the
//! API's timestamp formats. A record that cannot be read (no callsign, no start or end, an end
//! not after its start) is left out and counted; a body that is no list at all is an error,
//! which the build turns into a warning.

use super::lenient::{clean, kind};
use super::timestamp::parse_instant;
use chrono::{DateTime, Utc};
use serde_json::Value;

/// One booking of a position.
#[derive(Clone, Debug, PartialEq)]
pub struct Booking {
    /// The bookings API's id: the calendar's UID is made from it.
    pub id: Option<u64>,
    /// Who booked; `None` when the record has none that reads as a number.
    pub cid: Option<u64>,
    pub kind: BookingKind,
    /// Upper-cased, cleaned of control characters; never empty.
    pub callsign: String,
    pub start: DateTime<Utc>,
    /// Always after `start`.
    pub end: DateTime<Utc>,
}

/// What a booking is for. The API's list is `booking`, `event`, `exam` and `mentoring`;
/// `training` is read too (other booking systems send it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BookingKind {
    Booking,
    Event,
    Exam,
    Training,
    Mentoring,
    /// A word the API has not defined, cleaned and cut short; shown as it is.
    Other(String),
}

impl BookingKind {
    fn from_word(word: Option<String>) -> Self {
        let Some(word) = word else {
            // "booking assumed if not specified" (api-spec.json).
            return BookingKind::Booking;
        };
        let cleaned: String = clean(word).trim().chars().take(32).collect();
        match cleaned.to_ascii_lowercase().as_str() {
            "" | "booking" => BookingKind::Booking,
            "event" => BookingKind::Event,
            "exam" => BookingKind::Exam,
            "training" => BookingKind::Training,
            "mentoring" => BookingKind::Mentoring,
            _ => BookingKind::Other(cleaned),
        }
    }

    /// Its word in the API's list (`exam`), or `other` for one the API has not defined: a
    /// name for styles.
    pub fn code(&self) -> &'static str {
        match self {
            BookingKind::Booking => "booking",
            BookingKind::Event => "event",
            BookingKind::Exam => "exam",
            BookingKind::Training => "training",
            BookingKind::Mentoring => "mentoring",
            BookingKind::Other(_) => "other",
        }
    }

    /// Its key in the catalogues' `live` section (`live.type_exam`), or `None` for a word
    /// the API has not defined.
    pub fn key(&self) -> Option<&'static str> {
        Some(match self {
            BookingKind::Booking => "live.type_booking",
            BookingKind::Event => "live.type_event",
            BookingKind::Exam => "live.type_exam",
            BookingKind::Training => "live.type_training",
            BookingKind::Mentoring => "live.type_mentoring",
            BookingKind::Other(_) => return None,
        })
    }
}

/// The list's bookings, and the records left out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bookings {
    pub list: Vec<Booking>,
    /// How many records could not be read.
    pub unreadable: usize,
    /// Why the first of them could not be, with its place (`[3]: no start`).
    pub first_unreadable: Option<String>,
}

/// The longest callsign kept: the network's are a dozen characters or so.
const MAX_CALLSIGN: usize = 32;

/// The bookings list's body, decoded; an error says why it is no list of bookings.
pub fn decode_bookings(body: &[u8]) -> Result<Bookings, String> {
    let body = super::decode::lone_surrogates_replaced(body);
    let top: Value =
        serde_json::from_slice(&body).map_err(|e| format!("the answer is not JSON ({e})"))?;
    let items = match top {
        Value::Array(items) => items,
        Value::Object(mut object) => match object.remove("data") {
            Some(Value::Array(items)) => items,
            _ => {
                return Err(match object.get("error").or(object.get("message")) {
                    Some(Value::String(said)) => format!(
                        "the answer is an error, not a list of bookings: {}",
                        super::lenient::quoted(said)
                    ),
                    _ => "expected a list of bookings, found an object".to_owned(),
                });
            }
        },
        other => {
            return Err(format!(
                "expected a list of bookings, found {}",
                kind(&other)
            ));
        }
    };
    let mut bookings = Bookings::default();
    for (index, item) in items.into_iter().enumerate() {
        match booking(item) {
            Ok(booking) => bookings.list.push(booking),
            Err(reason) => {
                bookings.unreadable += 1;
                bookings
                    .first_unreadable
                    .get_or_insert_with(|| format!("[{index}]: {reason}"));
            }
        }
    }
    Ok(bookings)
}

fn booking(item: Value) -> Result<Booking, String> {
    let Value::Object(mut record) = item else {
        return Err(format!("expected a booking, found {}", kind(&item)));
    };
    let mut take = |field: &str| record.remove(field).unwrap_or(Value::Null);
    let callsign = text(take("callsign")).map(clean).unwrap_or_default();
    let callsign = callsign.trim().to_ascii_uppercase();
    if callsign.is_empty() {
        return Err("no callsign".into());
    }
    if callsign.chars().count() > MAX_CALLSIGN {
        return Err(format!("a callsign over {MAX_CALLSIGN} characters"));
    }
    let time = |value: Value, field: &str| -> Result<DateTime<Utc>, String> {
        let text = text(value).ok_or_else(|| format!("no {field}"))?;
        parse_instant(&text)
            .map_err(|_| format!("{field} {} is not a time", super::lenient::quoted(&text)))
    };
    let start = time(take("start"), "start")?;
    let end = time(take("end"), "end")?;
    if end <= start {
        return Err("its end is not after its start".into());
    }
    Ok(Booking {
        id: number(take("id")),
        cid: number(take("cid")),
        kind: BookingKind::from_word(text(take("type"))),
        callsign,
        start,
        end,
    })
}

/// Text, with a number read as its text; anything else as none.
fn text(value: Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A whole number, or one written as text; anything else as none.
fn number(value: Value) -> Option<u64> {
    match value {
        Value::Number(n) => n.as_u64(),
        Value::String(text) => text.trim().parse().ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(h: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 20, h, 0, 0).unwrap()
    }

    #[test]
    fn the_published_shape_reads() {
        let body = br#"[{"id":1,"callsign":"tjsj_app","cid":1240411,"type":"exam",
            "start":"2026-11-20 12:00:00","end":"2026-11-20 14:00:00",
            "division":"CAR","subdivision":null}]"#;
        let read = decode_bookings(body).unwrap();
        assert_eq!(
            read.list,
            [Booking {
                id: Some(1),
                cid: Some(1240411),
                kind: BookingKind::Exam,
                callsign: "TJSJ_APP".into(),
                start: at(12),
                end: at(14),
            }]
        );
        assert_eq!(read.unreadable, 0);
    }

    #[test]
    fn what_real_consumers_meet_is_tolerated() {
        let body = br#"{"data": [
            {"id":"7","cid":"1240411","callsign":"TJSJ_TWR","start":"2026-11-20T12:00:00.000000Z",
             "end":"2026-11-20 13:00:00","type":null,"extra":{"x":[1]}},
            {"id":null,"cid":null,"callsign":"TJSJ_GND","start":"2026-11-20 12:00:00",
             "end":"2026-11-20 13:00:00","type":"Training"},
            {"callsign":"TJSJ_DEL","start":"2026-11-20 12:00:00","end":"2026-11-20 13:00:00",
             "type":"<b>odd</b>"}
        ]}"#;
        let read = decode_bookings(body).unwrap();
        assert_eq!(read.list.len(), 3);
        assert_eq!(
            (read.list[0].id, read.list[0].cid),
            (Some(7), Some(1240411))
        );
        assert_eq!(read.list[0].kind, BookingKind::Booking);
        assert_eq!((read.list[1].id, read.list[1].cid), (None, None));
        assert_eq!(read.list[1].kind, BookingKind::Training);
        assert_eq!(read.list[2].kind, BookingKind::Other("<b>odd</b>".into()));
        assert_eq!(decode_bookings(b"[]").unwrap(), Bookings::default());
    }

    #[test]
    fn a_record_that_cannot_be_read_is_left_out_and_counted() {
        let body = br#"[
            {"id":1,"callsign":"TJSJ_APP","start":"2026-11-20 12:00:00","end":"2026-11-20 14:00:00"},
            {"id":2,"callsign":"","start":"2026-11-20 12:00:00","end":"2026-11-20 14:00:00"},
            {"id":3,"callsign":"TJSJ_APP","start":"tomorrow","end":"2026-11-20 14:00:00"},
            {"id":4,"callsign":"TJSJ_APP","start":"2026-11-20 14:00:00","end":"2026-11-20 12:00:00"},
            "TJSJ_APP", null, 5
        ]"#;
        let read = decode_bookings(body).unwrap();
        assert_eq!(read.list.len(), 1);
        assert_eq!(read.unreadable, 6);
        assert_eq!(read.first_unreadable.as_deref(), Some("[1]: no callsign"));
    }

    #[test]
    fn hostile_callsigns_are_cleaned_or_left_out() {
        let long = "X".repeat(10_000);
        let body = format!(
            r#"[{{"callsign":"TJSJ_\u202eRWT\u0007","start":"2026-11-20 12:00:00","end":"2026-11-20 14:00:00"}},
               {{"callsign":"{long}","start":"2026-11-20 12:00:00","end":"2026-11-20 14:00:00"}},
               {{"callsign":"TJSJ_\ud800TWR","start":"2026-11-20 12:00:00","end":"2026-11-20 14:00:00"}}]"#
        );
        let read = decode_bookings(body.as_bytes()).unwrap();
        assert_eq!(read.list[0].callsign, "TJSJ_RWT");
        assert_eq!(read.list[1].callsign, "TJSJ_\u{fffd}TWR");
        assert_eq!(read.unreadable, 1);
    }

    #[test]
    fn a_body_that_is_no_list_is_an_error_saying_so() {
        for (body, said) in [
            (&b"<html>Bad gateway</html>"[..], "the answer is not JSON"),
            (
                b"{\"error\":\"maintenance\"}",
                "the answer is an error, not a list of bookings: \"maintenance\"",
            ),
            (
                b"{\"bookings\":[]}",
                "expected a list of bookings, found an object",
            ),
            (b"\"x\"", "expected a list of bookings, found a string"),
            (b"[1,", "the answer is not JSON"),
        ] {
            let error = decode_bookings(body).unwrap_err();
            assert!(error.starts_with(said), "{error}");
        }
    }
}
