//! Errors in a config file in the webmaster's words: the key, what it takes, what was found,
//! and for an unknown key the nearest known one.

use super::values::INVALID;
use crate::suggest::nearest;
use crate::toml_errors::{self, Complaint};

/// A TOML error in a webmaster's words: which key, what it takes and what was found
/// (`recent_days: expected a whole number, found the text "sixty"`), and for an unknown key
/// the nearest known one. serde's wording (`invalid type: string "sixty", expected i64`)
/// names Rust types and not the key; [`toml_errors`] reads its parts (what was found and
/// what is expected already in words), and anything it does not recognise is passed on as it
/// is.
pub(super) fn readable(error: &toml::de::Error) -> String {
    let key = toml_errors::key(error);
    match toml_errors::complaint(error) {
        // Refused by the value's own type, which says what the setting takes.
        Complaint::Other(message) => match (message.strip_prefix(INVALID), key) {
            // A type that names a key below its own (`extra.a.b[1]`) is not told its own.
            (Some(rest), Some(key)) if rest.starts_with(&format!("{key}.")) => rest.to_owned(),
            (Some(rest), Some(key)) => format!("{key}: {rest}"),
            (Some(rest), None) => rest.to_owned(),
            (None, _) => message.to_owned(),
        },
        Complaint::UnknownField { unknown, known } => {
            let place = key.map(|k| format!(" in [{k}]")).unwrap_or_default();
            match nearest(unknown, known.iter().copied()) {
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
            Some(key) => format!("{key}: expected {expected}, found {found}"),
            None => error.message().to_owned(),
        },
    }
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
