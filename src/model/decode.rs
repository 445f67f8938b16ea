//! From a response body to typed models: one function per endpoint.
//!
//! The envelope varies (spec 4.1–4.6): `success` may be a string of any wording or a boolean,
//! documents come as a bare array, notes under `notes`. A body of the form `{"error": "..."}`
//! is the API saying no, even with HTTP 200. Bodies may be huge or hostile; nothing here
//! panics, and every error names the endpoint and where in the JSON it went wrong.

use super::json_path::from_str_with_path;
use super::wire::{
    RecordPlace, WireCategory, WireEvent, WireNote, WireRoster, WireUser, record_label,
};
use super::{DocumentCategory, Event, Roster, TrainingNote, User};
use crate::fetch::endpoint::Endpoint;
use crate::fetch::error::{ApiError, is_permission_message};
use crate::sanitize::quote::excerpt;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::BTreeMap;

/// A body's top level with its members left unparsed, so that the large `data` array is read
/// once, straight into wire types, with no JSON tree of the whole body in between.
enum Top<'a> {
    Object(BTreeMap<String, &'a RawValue>),
    Array(&'a RawValue),
}

pub fn decode_roster(body: &[u8]) -> Result<Roster, ApiError> {
    let roster: WireRoster = data(Endpoint::FacilityRoster, body)?;
    roster.into_model(Endpoint::FacilityRoster)
}

pub fn decode_facility_events(body: &[u8]) -> Result<Vec<Event>, ApiError> {
    events(Endpoint::FacilityEvents, body)
}

pub fn decode_division_events(body: &[u8]) -> Result<Vec<Event>, ApiError> {
    events(Endpoint::DivisionEvents, body)
}

fn events(endpoint: Endpoint, body: &[u8]) -> Result<Vec<Event>, ApiError> {
    let wire: Vec<WireEvent> = data(endpoint, body)?;
    (wire.into_iter().enumerate())
        .map(|(index, event)| {
            let place = RecordPlace {
                endpoint,
                record: record_label("data", index, "event", event.id.0),
            };
            event.into_model(&place)
        })
        .collect()
}

/// Documents are a bare array (spec 4.5); a wrapped `{"data": [...]}` is read too.
pub fn decode_documents(body: &[u8]) -> Result<Vec<DocumentCategory>, ApiError> {
    let body = &*lone_surrogates_replaced(body);
    let endpoint = Endpoint::FacilityDocuments;
    let (path, data) = match parse(endpoint, body)? {
        Top::Array(items) => ("", items),
        Top::Object(object) => ("data", unwrap(endpoint, object, "data")?),
    };
    let wire: Vec<WireCategory> = shape(endpoint, path, data)?;
    wire.into_iter()
        .enumerate()
        .map(|(index, category)| category.into_model(endpoint, index))
        .collect()
}

pub fn decode_user(cid: u64, body: &[u8]) -> Result<User, ApiError> {
    let user: WireUser = data(Endpoint::User(cid), body)?;
    user.into_model(Endpoint::User(cid))
}

/// The body's `data` member, read as `T`, after checking that the body is not an error object.
fn data<T: for<'de> Deserialize<'de>>(endpoint: Endpoint, body: &[u8]) -> Result<T, ApiError> {
    let body = &*lone_surrogates_replaced(body);
    match parse(endpoint, body)? {
        Top::Object(object) => shape(endpoint, "data", unwrap(endpoint, object, "data")?),
        Top::Array(_) => Err(wrong_top_level(endpoint)),
    }
}

/// Notes come under `notes` (spec 4.2); `data` is read too. The order is not trusted here;
/// the report sorts them.
pub fn decode_notes(cid: u64, body: &[u8]) -> Result<Vec<TrainingNote>, ApiError> {
    let body = &*lone_surrogates_replaced(body);
    let endpoint = Endpoint::UserNotes(cid);
    let object = match parse(endpoint, body)? {
        Top::Object(object) => object,
        Top::Array(_) => return Err(wrong_top_level(endpoint)),
    };
    let key = if object.contains_key("notes") {
        "notes"
    } else {
        "data"
    };
    let data = unwrap(endpoint, object, key)?;
    let wire: Vec<WireNote> = shape(endpoint, key, data)?;
    wire.into_iter()
        .enumerate()
        .map(|(index, note)| {
            let place = RecordPlace {
                endpoint,
                record: record_label(key, index, "note", note.id.0),
            };
            note.into_model(&place)
        })
        .collect()
}

/// `body` with every lone UTF-16 surrogate escape (`\ud800` without its pair, or a `\udc00`
/// alone) replaced by `\ufffd`, the replacement character: JSON allows them, Rust's strings
/// cannot hold them, and serde_json refuses the whole body for one, when one garbled event
/// name should cost that name a character, not the site its build. The same length, so
/// positions in errors stay true; the body as it is, not copied, when it has none.
pub(super) fn lone_surrogates_replaced(body: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let mut fixed: Option<Vec<u8>> = None;
    let mut pending_high: Option<usize> = None;
    let mut last_end = 0;
    for at in memchr::memmem::find_iter(body, b"\\u") {
        // An escape only where the backslash is not itself escaped: an odd run of them.
        let run = body[..=at]
            .iter()
            .rev()
            .take_while(|&&b| b == b'\\')
            .count();
        let Some(unit) = (run % 2 == 1)
            .then(|| hex_unit(body.get(at + 2..at + 6)))
            .flatten()
        else {
            continue;
        };
        // A high surrogate is whole only with a low one right after it.
        let high = pending_high.take();
        let follows_high = high.filter(|_| at == last_end);
        if let (Some(alone), None) = (high, follows_high) {
            replace_escape(&mut fixed, body, alone);
        }
        match (unit, follows_high) {
            (0xD800..=0xDBFF, before) => {
                if let Some(alone) = before {
                    replace_escape(&mut fixed, body, alone);
                }
                pending_high = Some(at);
            }
            (0xDC00..=0xDFFF, Some(_)) => {}
            (0xDC00..=0xDFFF, None) => replace_escape(&mut fixed, body, at),
            (_, Some(alone)) => replace_escape(&mut fixed, body, alone),
            (_, None) => {}
        }
        last_end = at + 6;
    }
    if let Some(high) = pending_high {
        replace_escape(&mut fixed, body, high);
    }
    match fixed {
        Some(fixed) => fixed.into(),
        None => body.into(),
    }
}

/// The UTF-16 code unit four hex digits write.
fn hex_unit(digits: Option<&[u8]>) -> Option<u16> {
    u16::from_str_radix(std::str::from_utf8(digits?).ok()?, 16).ok()
}

/// The escape at `at` of `body` written `\ufffd` in `fixed` (a copy made on the first).
fn replace_escape(fixed: &mut Option<Vec<u8>>, body: &[u8], at: usize) {
    let copy = fixed.get_or_insert_with(|| body.to_vec());
    copy[at..at + 6].copy_from_slice(b"\\ufffd");
}

/// Parses the body's top level, telling apart "this is not JSON at all" (an HTML error page
/// from a proxy, say) from "this is broken JSON". The whole body's syntax is checked here.
fn parse(endpoint: Endpoint, body: &[u8]) -> Result<Top<'_>, ApiError> {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let first = body.iter().find(|b| !b.is_ascii_whitespace());
    let invalid = |e: serde_json::Error| ApiError::InvalidJson {
        endpoint,
        reason: e.to_string(),
    };
    match first {
        Some(b'{') => serde_json::from_slice(body)
            .map(Top::Object)
            .map_err(invalid),
        Some(b'[') => serde_json::from_slice(body)
            .map(Top::Array)
            .map_err(invalid),
        _ => Err(ApiError::NotJson {
            endpoint,
            content_type: "a body that is not JSON".into(),
            start: excerpt(&String::from_utf8_lossy(&body[..body.len().min(200)]), 80),
        }),
    }
}

fn unwrap<'a>(
    endpoint: Endpoint,
    mut object: BTreeMap<String, &'a RawValue>,
    key: &str,
) -> Result<&'a RawValue, ApiError> {
    let is_null = |raw: &&RawValue| raw.get() == "null";
    let data = object.remove(key).filter(|v| !is_null(v));
    if data.is_none()
        && let Some(error) = object.get("error").filter(|v| !is_null(v))
    {
        let message = match serde_json::from_str::<Value>(error.get()) {
            Ok(Value::String(s)) => excerpt(&s, 300),
            _ => excerpt(error.get(), 300),
        };
        return Err(match endpoint {
            Endpoint::UserNotes(cid) if is_permission_message(&message) => {
                ApiError::NotesPermission {
                    endpoint,
                    cid,
                    message,
                }
            }
            _ => ApiError::Reported { endpoint, message },
        });
    }
    if object.get("success").is_some_and(|s| s.get() == "false") {
        return Err(ApiError::Reported {
            endpoint,
            message: "`success` is false".into(),
        });
    }
    data.ok_or_else(|| ApiError::Shape {
        endpoint,
        path: key.into(),
        reason: "missing".into(),
    })
}

fn wrong_top_level(endpoint: Endpoint) -> ApiError {
    ApiError::Shape {
        endpoint,
        path: "(top level)".into(),
        reason: "expected the response object, found an array".into(),
    }
}

/// Deserializes `raw` into a wire type, keeping the JSON path of the first mismatch.
fn shape<T: for<'de> Deserialize<'de>>(
    endpoint: Endpoint,
    prefix: &str,
    raw: &RawValue,
) -> Result<T, ApiError> {
    from_str_with_path(raw.get()).map_err(|error| {
        let inner = error.path().to_string();
        let path = match (prefix, inner.as_str()) {
            ("", ".") => "(top level)".to_owned(),
            (p, ".") => p.to_owned(),
            ("", i) => i.to_owned(),
            (p, i) if i.starts_with('[') => format!("{p}{i}"),
            (p, i) => format!("{p}.{i}"),
        };
        // serde_json ends its messages with "at line 1 column 5123", a place in the member's
        // own text rather than the body's; the JSON path says where, so it goes.
        let error = error.into_inner();
        let message = error.to_string();
        let position = format!(" at line {} column {}", error.line(), error.column());
        ApiError::Shape {
            endpoint,
            path,
            reason: excerpt(message.strip_suffix(&position).unwrap_or(&message), 300),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::lone_surrogates_replaced;

    /// serde_json's "at line 1 column N" is a place in the member's own text: the path says
    /// where, and the place goes.
    #[test]
    fn a_shape_error_names_the_path_without_serde_jsons_place() {
        let body = br#"{"data": [{"id": 1, "start": "2026-01-01"}, {"id": "x"}]}"#;
        let error = super::decode_facility_events(body).unwrap_err();
        assert_eq!(
            error.to_string(),
            r#"GET /api/v2/facility/events: unexpected JSON at `data[1].id`: expected an integer, found the string "x""#
        );
    }

    #[test]
    fn lone_surrogates_become_the_replacement_character_and_pairs_stay() {
        let cases = [
            (r#"["\ud800"]"#, "\u{fffd}"),
            (r#"["a\udc00b"]"#, "a\u{fffd}b"),
            (r#"["\ud83d\ude00"]"#, "😀"),
            (r#"["\ud83d\ud83d\ude00"]"#, "\u{fffd}😀"),
            (r#"["\ud800x\udc00"]"#, "\u{fffd}x\u{fffd}"),
            (r#"["\ud800\u0041"]"#, "\u{fffd}A"),
            (r#"["\\ud800"]"#, "\\ud800"),
            (r#"["\\\ud800", "\u00e9"]"#, "\\\u{fffd}"),
        ];
        for (body, first) in cases {
            let fixed = lone_surrogates_replaced(body.as_bytes());
            assert_eq!(fixed.len(), body.len(), "{body}");
            let read: Vec<String> =
                serde_json::from_slice(&fixed).unwrap_or_else(|e| panic!("{body}: {e}"));
            assert_eq!(read[0], first, "{body}");
        }
        let clean = br#"{"name": "caf\u00e9 \\u"}"#;
        assert!(matches!(
            lone_surrogates_replaced(clean),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
