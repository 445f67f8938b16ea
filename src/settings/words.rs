//! Errors in a config file in the webmaster's words: the key, what it takes, what was found,
//! and for an unknown key the nearest known one.

use super::values::INVALID;
use crate::toml_errors::{self, Complaint, Expected, Found};

/// A TOML error in a webmaster's words: which key, what it takes and what was found
/// (`recent_days: expected a whole number, found the text "sixty"`), and for an unknown key
/// the nearest known one. serde's wording (`invalid type: string "sixty", expected i64`)
/// names Rust types and not the key; [`toml_errors`] reads its parts, and anything it does
/// not recognise is passed on as it is.
pub(super) fn readable(error: &toml::de::Error) -> String {
    let key = toml_errors::key(error);
    match toml_errors::complaint(error) {
        // Refused by the value's own type, which says what the setting takes.
        Complaint::Other(message) => match (message.strip_prefix(INVALID), key) {
            (Some(rest), Some(key)) => format!("{key}: {rest}"),
            (Some(rest), None) => rest.to_owned(),
            (None, _) => message.to_owned(),
        },
        Complaint::UnknownField { unknown, known } => {
            let place = key.map(|k| format!(" in [{k}]")).unwrap_or_default();
            match nearest(unknown, &known) {
                Some(near) => format!("unknown key `{unknown}`{place}: did you mean `{near}`?"),
                None if known.is_empty() => format!("unknown key `{unknown}`{place}"),
                None => format!(
                    "unknown key `{unknown}`{place}; the known keys are {}",
                    known
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }
        }
        Complaint::WrongValue { found, expected } => match key {
            Some(key) => format!(
                "{key}: expected {}, found {}",
                expected_in_words(expected),
                found_in_words(found)
            ),
            None => error.message().to_owned(),
        },
    }
}

/// What a key takes, in words.
fn expected_in_words(expected: Expected<'_>) -> String {
    match expected {
        Expected::WholeNumber => "a whole number".into(),
        Expected::Number => "a number".into(),
        Expected::Text => "text in quotes".into(),
        Expected::Path => "a path in quotes".into(),
        Expected::Boolean => "true or false".into(),
        Expected::List => "a list".into(),
        Expected::Table => "a table".into(),
        Expected::Other(other) => other.into(),
    }
}

/// The value found, in words: `"x"` is the text "x".
fn found_in_words(found: Found<'_>) -> String {
    match found {
        Found::Text(text) => format!("the text {text}"),
        Found::WholeNumber(n) => format!("the whole number {n}"),
        Found::Number(n) => format!("the number {n}"),
        Found::Boolean(b) => b.into(),
        Found::List => "a list".into(),
        Found::Map => "a table or a date".into(),
        Found::Other(other) => other.into(),
    }
}

/// The known key (or value) nearest to `unknown`, if it is near enough to be a slip: the same but for
/// case, or a few letters changed, added, dropped or swapped (strsim's optimal string
/// alignment distance, the one clap suggests flags with).
pub(super) fn nearest<'k>(unknown: &str, known: &[&'k str]) -> Option<&'k str> {
    let unknown = unknown.to_lowercase();
    let limit = (unknown.chars().count() / 3).max(1);
    known
        .iter()
        .map(|k| (strsim::osa_distance(&unknown, &k.to_lowercase()), *k))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Whether line `number` (from 1) of a TOML text sets `api_key`.
pub(super) fn defines_api_key(text: &str, number: usize) -> bool {
    text.lines().nth(number - 1).is_some_and(|line| {
        let line = line.trim_start();
        ["api_key", "\"api_key\"", "'api_key'"].iter().any(|key| {
            line.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        })
    })
}

pub(super) fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_near_key_is_suggested() {
        let known = ["site_url", "base_url", "title", "recent_days"];
        assert_eq!(nearest("site_ulr", &known), Some("site_url"));
        assert_eq!(nearest("SITE_URL", &known), Some("site_url"));
        assert_eq!(nearest("recentdays", &known), Some("recent_days"));
        assert_eq!(nearest("titel", &known), Some("title"));
        assert_eq!(nearest("colour", &known), None);
        assert_eq!(nearest("url", &known), None);
    }
}
