//! Errors in a config file in the webmaster's words: the key, what it takes, what was found,
//! and for an unknown key the nearest known one.

use super::values::INVALID;

/// A TOML error in a webmaster's words: which key, what it takes and what was found
/// (`recent_days: expected a whole number, found the text "sixty"`), and for an unknown key
/// the nearest known one. serde's wording (`invalid type: string "sixty", expected i64`)
/// names Rust types and not the key; anything not recognised here is passed on as it is.
pub(super) fn readable(error: &toml::de::Error) -> String {
    let message = error.message();
    let key = error_key(error);
    // Refused by the value's own type, which says what the setting takes.
    if let Some(rest) = message.strip_prefix(INVALID) {
        return match key {
            Some(key) => format!("{key}: {rest}"),
            None => rest.to_owned(),
        };
    }
    if let Some(rest) = message.strip_prefix("unknown field `")
        && let Some((unknown, rest)) = rest.split_once('`')
    {
        // ", expected one of `a`, `b`" or ", expected `a`": the names between backticks.
        let known: Vec<&str> = rest.split('`').skip(1).step_by(2).collect();
        let place = key.map(|k| format!(" in [{k}]")).unwrap_or_default();
        return match nearest(unknown, &known) {
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
        };
    }
    let wrong = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "));
    if let (Some(rest), Some(key)) = (wrong, &key)
        && let Some((found, expected)) = rest.rsplit_once(", expected ")
    {
        return format!(
            "{key}: expected {}, found {}",
            expected_in_words(expected),
            found_in_words(found)
        );
    }
    message.to_owned()
}

/// The dotted key an error is about (`calendar.refresh_minutes`), which the error shows
/// only when it is printed without the document.
fn error_key(error: &toml::de::Error) -> Option<String> {
    let mut bare = error.clone();
    bare.set_input(None);
    let text = bare.to_string();
    let key = text
        .lines()
        .last()?
        .strip_prefix("in `")?
        .strip_suffix('`')?;
    Some(key.to_owned())
}

/// serde's name for what a key takes, in words.
fn expected_in_words(expected: &str) -> String {
    match expected {
        "i8" | "i16" | "i32" | "i64" | "u8" | "u16" | "u32" | "u64" | "usize" => {
            "a whole number".into()
        }
        "f32" | "f64" => "a number".into(),
        "a string" | "a borrowed string" => "text in quotes".into(),
        "path string" => "a path in quotes".into(),
        "a boolean" => "true or false".into(),
        "a sequence" => "a list".into(),
        "a map" => "a table".into(),
        other if other.starts_with("struct ") => "a table".into(),
        other => other.into(),
    }
}

/// serde's description of the value found, in words: `string "x"` is the text "x".
fn found_in_words(found: &str) -> String {
    let quoted = |prefix: &str| {
        found
            .strip_prefix(prefix)
            .map(|v| v.trim_matches('`').to_owned())
    };
    if let Some(text) = found.strip_prefix("string ") {
        format!("the text {text}")
    } else if let Some(n) = quoted("integer ") {
        format!("the whole number {n}")
    } else if let Some(n) = quoted("floating point ") {
        format!("the number {n}")
    } else if let Some(b) = quoted("boolean ") {
        b
    } else {
        match found {
            "sequence" => "a list".into(),
            // TOML dates reach serde as maps too.
            "map" => "a table or a date".into(),
            other => other.into(),
        }
    }
}

/// The known key nearest to `unknown`, if it is near enough to be a slip: the same but for
/// case, or a few letters changed, added, dropped or swapped (strsim's optimal string
/// alignment distance, the one clap suggests flags with).
fn nearest<'k>(unknown: &str, known: &[&'k str]) -> Option<&'k str> {
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
