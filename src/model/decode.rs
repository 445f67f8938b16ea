//! From a response body to typed models: one function per endpoint.
//!
//! The envelope varies (spec 4.1–4.6): `success` may be a string of any wording or a boolean,
//! documents come as a bare array, notes under `notes`. A body of the form `{"error": "..."}`
//! is the API saying no, even with HTTP 200. Bodies may be huge or hostile; nothing here
//! panics, and every error names the endpoint and where in the JSON it went wrong.

use super::json_path::from_str_with_path;
use super::wire::{Place, WireCategory, WireEvent, WireNote, WireRoster, WireUser, record_label};
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
    let endpoint = Endpoint::FacilityRoster;
    let data = envelope(endpoint, body, "data")?;
    let roster: WireRoster = shape(endpoint, "data", data)?;
    roster.into_model(endpoint)
}

pub fn decode_facility_events(body: &[u8]) -> Result<Vec<Event>, ApiError> {
    events(Endpoint::FacilityEvents, body)
}

pub fn decode_division_events(body: &[u8]) -> Result<Vec<Event>, ApiError> {
    events(Endpoint::DivisionEvents, body)
}

fn events(endpoint: Endpoint, body: &[u8]) -> Result<Vec<Event>, ApiError> {
    let data = envelope(endpoint, body, "data")?;
    let wire: Vec<WireEvent> = shape(endpoint, "data", data)?;
    let mut events: Vec<Event> = (wire.into_iter().enumerate())
        .map(|(index, event)| {
            let place = Place {
                endpoint,
                record: record_label("data", index, "event", event.id),
            };
            event.into_model(&place)
        })
        .collect::<Result<_, _>>()?;
    // Collected in the wire records' place, which are larger: the room left over would be
    // held as long as the models are.
    events.shrink_to_fit();
    Ok(events)
}

/// Documents are a bare array (spec 4.5); a wrapped `{"data": [...]}` is read too.
pub fn decode_documents(body: &[u8]) -> Result<Vec<DocumentCategory>, ApiError> {
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
    let endpoint = Endpoint::User(cid);
    let data = envelope(endpoint, body, "data")?;
    let user: WireUser = shape(endpoint, "data", data)?;
    user.into_model(endpoint)
}

/// Notes come under `notes` (spec 4.2); `data` is read too. The order is not trusted here;
/// the report sorts them.
pub fn decode_notes(cid: u64, body: &[u8]) -> Result<Vec<TrainingNote>, ApiError> {
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
            let place = Place {
                endpoint,
                record: record_label(key, index, "note", note.id),
            };
            note.into_model(&place)
        })
        .collect()
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

/// The object's `key` member, after checking that the body is not an error object.
fn envelope<'a>(endpoint: Endpoint, body: &'a [u8], key: &str) -> Result<&'a RawValue, ApiError> {
    match parse(endpoint, body)? {
        Top::Object(object) => unwrap(endpoint, object, key),
        Top::Array(_) => Err(wrong_top_level(endpoint)),
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
            (p, ".") => {
                if p.is_empty() {
                    "(top level)".to_owned()
                } else {
                    p.to_owned()
                }
            }
            ("", i) => i.to_owned(),
            (p, i) if i.starts_with('[') => format!("{p}{i}"),
            (p, i) => format!("{p}.{i}"),
        };
        ApiError::Shape {
            endpoint,
            path,
            reason: excerpt(without_position(&error.into_inner().to_string()), 300),
        }
    })
}

/// serde_json ends its messages with "at line 1 column 5123", a place in the member's own
/// text rather than the body's; the JSON path says where, so it goes.
fn without_position(message: &str) -> &str {
    match message.rsplit_once(" at line ") {
        Some((head, tail))
            if tail
                .split_once(" column ")
                .is_some_and(|(l, c)| l.parse::<u64>().is_ok() && c.parse::<u64>().is_ok()) =>
        {
            head
        }
        _ => message,
    }
}
