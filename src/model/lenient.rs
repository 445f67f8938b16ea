//! Lenient readers for single values, used by the wire types as field types ([`Text`],
//! [`Int`]) or through `#[serde(deserialize_with)]`: each says which shapes it accepts, and anything else is a
//! serde error naming what it found, which `decode` turns into an error naming the endpoint
//! and the JSON path. Text is cleaned of characters no page or calendar may carry.

use super::Rating;
use crate::sanitize::chars;
use crate::sanitize::quote::{excerpt, is_bidi_control};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

pub(super) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

pub(super) fn quoted(text: &str) -> String {
    format!("{:?}", excerpt(text, 60))
}

pub(super) fn int<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    let value = Value::deserialize(d)?;
    match &value {
        Value::Null => Ok(None),
        Value::Number(n) => n
            .as_i64()
            .or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
                    .map(|f| f as i64)
            })
            .map(Some)
            .ok_or_else(|| D::Error::custom(format!("expected an integer, found {n}"))),
        Value::String(s) if s.trim().is_empty() => Ok(None),
        Value::String(s) => s.trim().parse().map(Some).map_err(|_| {
            D::Error::custom(format!(
                "expected an integer, found the string {}",
                quoted(s)
            ))
        }),
        other => Err(D::Error::custom(format!(
            "expected an integer, found {}",
            kind(other)
        ))),
    }
}

/// A wire type's text field: absent, `null`, or text, with numbers and booleans taken as
/// their text (an id sent as a number still reads).
#[derive(Default)]
pub(super) struct Text(pub Option<String>);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::Null => Ok(Text(None)),
            Value::String(s) => Ok(Text(Some(s))),
            Value::Number(n) => Ok(Text(Some(n.to_string()))),
            Value::Bool(b) => Ok(Text(Some(b.to_string()))),
            other => Err(D::Error::custom(format!(
                "expected text, found {}",
                kind(&other)
            ))),
        }
    }
}

/// A wire type's integer field, read by [`int`].
#[derive(Default)]
pub(super) struct Int(pub Option<i64>);

impl<'de> Deserialize<'de> for Int {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        int(d).map(Int)
    }
}

pub(super) fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    let value = Value::deserialize(d)?;
    match &value {
        Value::Null => Ok(None),
        Value::Bool(b) => Ok(Some(*b)),
        Value::Number(n) => Ok(Some(n.as_f64().is_some_and(|f| f != 0.0))),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "" => Ok(None),
            "1" | "true" | "yes" => Ok(Some(true)),
            "0" | "false" | "no" => Ok(Some(false)),
            _ => Err(D::Error::custom(format!(
                "expected 0 or 1, found the string {}",
                quoted(s)
            ))),
        },
        other => Err(D::Error::custom(format!(
            "expected 0 or 1, found {}",
            kind(other)
        ))),
    }
}

/// A list of codes: an array of strings, `null`, or one string of codes separated by commas
/// or spaces.
pub(super) fn codes<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let value = Value::deserialize(d)?;
    let split = |s: &str| -> Vec<String> {
        s.split(|c: char| c == ',' || c == ';' || c.is_whitespace())
            .filter(|part| !part.is_empty())
            .map(str::to_owned)
            .collect()
    };
    match value {
        Value::Null => Ok(Vec::new()),
        Value::String(s) => Ok(split(&s)),
        Value::Array(items) => {
            let mut out = Vec::new();
            for item in items {
                match item {
                    Value::Null => {}
                    Value::String(s) => out.extend(split(&s)),
                    Value::Number(n) => out.push(n.to_string()),
                    other => {
                        return Err(D::Error::custom(format!(
                            "expected a list of codes, found {} in the list",
                            kind(&other)
                        )));
                    }
                }
            }
            Ok(out)
        }
        other => Err(D::Error::custom(format!(
            "expected a list of codes, found {}",
            kind(&other)
        ))),
    }
}

/// A JSON array, with `null` read as empty. Paths into the items stay exact.
pub(super) fn list<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Ok(Option::<Vec<T>>::deserialize(d)?.unwrap_or_default())
}

/// A rating as its number (or numeric string), or as its short code.
pub(super) fn rating<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Rating>, D::Error> {
    let value = Value::deserialize(d)?;
    if let Value::String(s) = &value
        && let Some(rating) = Rating::from_code(s)
    {
        return Ok(Some(rating));
    }
    Ok(int(value)
        .map_err(D::Error::custom)?
        .map(Rating::from_number))
}

/// Facility events carry `{"positions": [...]}` (or `{"positions": null}`), division events
/// `null`; a bare array is read too. The entries' fields are not documented, so they are kept
/// as JSON.
pub(super) fn positions<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Value>, D::Error> {
    let value = Value::deserialize(d)?;
    match value {
        Value::Null => Ok(Vec::new()),
        Value::Array(items) => Ok(items),
        Value::Object(mut object) => match object.remove("positions") {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => Ok(items),
            Some(other) => Err(D::Error::custom(format!(
                "expected `positions` to hold an array, found {}",
                kind(&other)
            ))),
        },
        other => Err(D::Error::custom(format!(
            "expected an object holding `positions`, found {}",
            kind(&other)
        ))),
    }
}

/// Removes control characters other than tab and newline (they are invalid in HTML and iCal
/// and can move a terminal's cursor), noncharacters such as U+FFFE (XML forbids them; see
/// [`crate::sanitize::chars`]) and the bidi embedding, override and isolate controls (a
/// right-to-left override in a name would show the text around it reversed, on the page, in
/// a calendar, in Discord and on a terminal), and turns CRLF into LF.
pub(super) fn clean(text: String) -> String {
    let removed = |c: char| c == '\r' || chars::is_forbidden(c) || is_bidi_control(c);
    // Most text has nothing to remove (a lone CR is a control): it is kept, not copied.
    if !text.contains(removed) {
        return text;
    }
    text.replace("\r\n", "\n")
        .chars()
        .filter(|&c| !removed(c))
        .collect()
}

/// [`clean`], with blank text read as absent.
pub(super) fn clean_opt(text: Option<String>) -> Option<String> {
    let cleaned = text.map(clean)?;
    let trimmed = cleaned.trim();
    match trimmed.len() {
        0 => None,
        n if n == cleaned.len() => Some(cleaned),
        _ => Some(trimmed.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_go_and_crlf_becomes_lf() {
        assert_eq!(
            clean("a\r\nb\rc\u{7}d\u{85}e\u{9f}\u{a0}\tf\u{1b}[2J".into()),
            "a\nbcde\u{a0}\tf[2J"
        );
        assert_eq!(clean("Ünïcödé 😀 text\n".into()), "Ünïcödé 😀 text\n");
        assert_eq!(
            clean(
                "\u{202e}Zed\u{202c} \u{2066}x\u{2069} \u{202a}\u{202b}\u{202d}\u{2067}\u{2068}’"
                    .into()
            ),
            "Zed x ’"
        );
        assert_eq!(
            clean("Bad \u{fffe}and\u{ffff} \u{fdd0}x\u{10ffff}".into()),
            "Bad and x"
        );
    }
}
