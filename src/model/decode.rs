//! From a response body to typed models: one function per endpoint.
//!
//! The envelope varies (spec 4.1–4.6): `success` may be a string of any wording or a boolean,
//! documents come as a bare array, notes under `notes`. A body of the form `{"error": "..."}`
//! is the API saying no, even with HTTP 200. Bodies may be huge or hostile; nothing here
//! panics, and every error names the endpoint and where in the JSON it went wrong.

use super::wire::{Place, WireCategory, WireEvent, WireNote, WireRoster, WireUser, record_label};
use super::{DocumentCategory, Event, Roster, TrainingNote, User};
use crate::endpoint::Endpoint;
use crate::error::{ApiError, excerpt, is_permission_message};
use serde::Deserialize;
use serde_json::{Map, Value};

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
    wire.into_iter()
        .enumerate()
        .map(|(index, event)| {
            let place = Place {
                endpoint,
                record: record_label("data", index, "event", event.id),
            };
            event.into_model(&place)
        })
        .collect()
}

/// Documents are a bare array (spec 4.5); a wrapped `{"data": [...]}` is read too.
pub fn decode_documents(body: &[u8]) -> Result<Vec<DocumentCategory>, ApiError> {
    let endpoint = Endpoint::FacilityDocuments;
    let (path, data) = match parse(endpoint, body)? {
        Value::Array(items) => ("", Value::Array(items)),
        Value::Object(object) => ("data", unwrap(endpoint, object, "data")?),
        other => return Err(wrong_top_level(endpoint, &other)),
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
        Value::Object(object) => object,
        other => return Err(wrong_top_level(endpoint, &other)),
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

/// Parses the body, telling apart "this is not JSON at all" (an HTML error page from a proxy,
/// say) from "this is broken JSON".
fn parse(endpoint: Endpoint, body: &[u8]) -> Result<Value, ApiError> {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let first = body.iter().find(|b| !b.is_ascii_whitespace());
    if !matches!(first, Some(b'{') | Some(b'[')) {
        return Err(ApiError::NotJson {
            endpoint,
            content_type: "a body that is not JSON".into(),
            start: excerpt(&String::from_utf8_lossy(&body[..body.len().min(200)]), 80),
        });
    }
    serde_json::from_slice(body).map_err(|e| ApiError::InvalidJson {
        endpoint,
        reason: e.to_string(),
    })
}

/// The object's `key` member, after checking that the body is not an error object.
fn envelope(endpoint: Endpoint, body: &[u8], key: &str) -> Result<Value, ApiError> {
    match parse(endpoint, body)? {
        Value::Object(object) => unwrap(endpoint, object, key),
        other => Err(wrong_top_level(endpoint, &other)),
    }
}

fn unwrap(
    endpoint: Endpoint,
    mut object: Map<String, Value>,
    key: &str,
) -> Result<Value, ApiError> {
    let data = object.remove(key).filter(|v| !v.is_null());
    if data.is_none()
        && let Some(error) = object.get("error").filter(|v| !v.is_null())
    {
        let message = match error {
            Value::String(s) => excerpt(s, 300),
            other => excerpt(&other.to_string(), 300),
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
    if object.get("success") == Some(&Value::Bool(false)) {
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

fn wrong_top_level(endpoint: Endpoint, value: &Value) -> ApiError {
    let found = match value {
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
        _ => "a single value",
    };
    ApiError::Shape {
        endpoint,
        path: "(top level)".into(),
        reason: format!("expected the response object, found {found}"),
    }
}

/// Deserializes `value` into a wire type, keeping the JSON path of the first mismatch.
fn shape<T: for<'de> Deserialize<'de>>(
    endpoint: Endpoint,
    prefix: &str,
    value: Value,
) -> Result<T, ApiError> {
    serde_path_to_error::deserialize(value).map_err(|error| {
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
            reason: excerpt(&error.into_inner().to_string(), 300),
        }
    })
}
