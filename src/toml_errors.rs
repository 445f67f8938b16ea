//! What a `toml` error says, in the shape this program's messages use: `file:line`, then the
//! message. toml's own text (`TOML parse error at line 3, column 7` and the whole line
//! quoted, however long) is never shown; its parts, and serde's wording inside it (`unknown
//! field`, `invalid type: string "x", expected i64`), are read here, and only here, so that
//! the tests below catch an upgrade that changes the wording or moves the place.

/// `text` read as a `T`, or every mistake in it: a value `T` refuses is left out and the rest
/// read again, so that one run names them all (a webmaster who fixes the first should not
/// meet the second only then). Not TOML at all is the parser's one error. The mistakes come
/// in the text's order.
pub fn every_mistake<T: serde::de::DeserializeOwned>(
    text: &str,
) -> Result<T, Vec<toml::de::Error>> {
    let mut table = toml::de::DeTable::parse(text).map_err(|e| vec![e])?;
    let mut mistakes = Vec::new();
    loop {
        match T::deserialize(toml::de::Deserializer::from(table.clone())) {
            Ok(read) if mistakes.is_empty() => return Ok(read),
            Ok(_) => break,
            Err(e) => {
                let at = e.span().map(|s| s.start);
                mistakes.push(e);
                if !at.is_some_and(|at| leave_out(table.get_mut(), at)) {
                    break;
                }
            }
        }
    }
    mistakes.sort_by_key(|e| e.span().map(|s| s.start));
    Err(mistakes)
}

/// Leaves out of `table` the value at byte `at` of the text (a key, or a value, the deepest
/// that holds it: one entry of `[live]`, one `[[menu]]` entry), so that the rest can be read
/// for more mistakes. Whether anything was left out. A table's own span may be its header
/// alone, so each is looked into, not only the one whose span holds `at`.
fn leave_out(table: &mut toml::de::DeTable<'_>, at: usize) -> bool {
    let mut found = None;
    for (key, value) in table.iter_mut() {
        if holds(key.span(), at) {
            found = Some(key.clone());
            break;
        }
        if leave_out_of(value.get_mut(), at) {
            return true;
        }
        if holds(value.span(), at) {
            found = Some(key.clone());
            break;
        }
    }
    found.is_some_and(|key| table.remove(&key).is_some())
}

fn holds(span: std::ops::Range<usize>, at: usize) -> bool {
    span.contains(&at) || span.start == at
}

/// [`leave_out`] inside a value: a table's entry, or a list's item.
fn leave_out_of(value: &mut toml::de::DeValue<'_>, at: usize) -> bool {
    match value {
        toml::de::DeValue::Table(table) => leave_out(table, at),
        toml::de::DeValue::Array(items) => {
            for i in 0..items.len() {
                if leave_out_of(items.as_mut()[i].get_mut(), at) {
                    return true;
                }
                if holds(items[i].span(), at) {
                    let kept = (items.iter().enumerate())
                        .filter(|(j, _)| *j != i)
                        .map(|(_, item)| item.clone());
                    *items = kept.collect();
                    return true;
                }
            }
            false
        }
        _ => false,
    }
}

/// Where the error is in `text` (line and column from 1, the column in characters), when toml
/// says.
pub fn place(error: &toml::de::Error, text: &str) -> Option<(usize, usize)> {
    let start = error.span()?.start.min(text.len());
    let before = text.get(..start).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    Some((line, column))
}

/// What is wrong, without the place (which [`place`] reads) or the quoted line.
pub fn message(error: &toml::de::Error) -> &str {
    error.message().trim()
}

/// The dotted key an error is about (`calendar.refresh_minutes`), which toml shows only when
/// the error is printed without the document.
pub fn key(error: &toml::de::Error) -> Option<String> {
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

/// What serde's message says is wrong, in parts.
#[derive(Debug, PartialEq)]
pub enum Complaint<'e> {
    /// A key the table does not take, and the keys it does (none when serde does not list
    /// them).
    UnknownField {
        unknown: &'e str,
        known: Vec<&'e str>,
    },
    /// A value of a kind the key does not take, both in a webmaster's words: `found` the
    /// text "sixty", `expected` a whole number.
    WrongValue { found: String, expected: &'e str },
    /// Anything else (a syntax error, a type's own message), as toml gives it.
    Other(&'e str),
}

/// What `error`'s message says is wrong.
pub fn complaint(error: &toml::de::Error) -> Complaint<'_> {
    let message = error.message();
    if let Some(rest) = message.strip_prefix("unknown field `")
        && let Some((unknown, rest)) = rest.split_once('`')
    {
        // ", expected one of `a`, `b`" or ", expected `a`": the names between backticks.
        let known = rest.split('`').skip(1).step_by(2).collect();
        return Complaint::UnknownField { unknown, known };
    }
    let wrong = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "));
    if let Some(rest) = wrong
        && let Some((found, expected)) = rest.rsplit_once(", expected ")
    {
        return Complaint::WrongValue {
            found: found_in_words(found),
            expected: expected_in_words(expected),
        };
    }
    Complaint::Other(message)
}

/// What a key takes, from serde's name for it (`i64`, `a string`, `struct Calendar`); serde's
/// own words for anything else (a type's `expecting`).
fn expected_in_words(expected: &str) -> &str {
    match expected {
        "i8" | "i16" | "i32" | "i64" | "u8" | "u16" | "u32" | "u64" | "usize" => "a whole number",
        "f32" | "f64" => "a number",
        "a string" | "a borrowed string" => "text in quotes",
        "path string" => "a path in quotes",
        "a boolean" => "true or false",
        "a sequence" => "a list",
        "a map" => "a table",
        other if other.starts_with("struct ") => "a table",
        other => other,
    }
}

/// The value serde found, in words: `string "x"` is the text "x". A date reaches serde as a
/// map; serde's own words for anything else.
fn found_in_words(found: &str) -> String {
    let quoted = |prefix: &str| found.strip_prefix(prefix).map(|v| v.trim_matches('`'));
    if let Some(text) = found.strip_prefix("string ") {
        format!("the text {text}")
    } else if let Some(n) = quoted("integer ") {
        format!("the whole number {n}")
    } else if let Some(n) = quoted("floating point ") {
        format!("the number {n}")
    } else if let Some(b) = quoted("boolean ") {
        b.to_owned()
    } else {
        match found {
            "sequence" => "a list",
            "map" => "a table or a date",
            other => other,
        }
        .to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::{Complaint, complaint, key, message, place};
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Matter {
        title: String,
    }

    /// A config-like shape with a key of every kind serde names.
    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Settings {
        days: Option<u32>,
        ratio: Option<f64>,
        title: Option<String>,
        folder: Option<PathBuf>,
        draft: Option<bool>,
        tags: Option<Vec<String>>,
        names: Option<BTreeMap<String, String>>,
        calendar: Option<Calendar>,
        even: Option<Even>,
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Calendar {
        refresh_minutes: Option<u32>,
    }

    /// A type with its own message, as the settings' value types have.
    #[derive(Debug, serde::Deserialize)]
    #[serde(try_from = "u32")]
    struct Even;

    impl TryFrom<u32> for Even {
        type Error = String;
        fn try_from(n: u32) -> Result<Self, String> {
            if n.is_multiple_of(2) {
                Ok(Even)
            } else {
                Err(format!("expected an even number, found {n}"))
            }
        }
    }

    fn refused(text: &str) -> toml::de::Error {
        toml::from_str::<Settings>(text).unwrap_err()
    }

    #[test]
    fn a_syntax_error_is_placed_and_its_message_is_bare() {
        let text = "a = 1\nb = \"open\n";
        let error = toml::from_str::<toml::Table>(text).unwrap_err();
        assert_eq!(place(&error, text), Some((2, 10)));
        // The place is not in the message: a message is shown after `file:line:`.
        assert_eq!(message(&error), "invalid basic string, expected `\"`");
        assert_eq!(
            complaint(&error),
            Complaint::Other("invalid basic string, expected `\"`")
        );
        assert_eq!(key(&error), None);
    }

    #[test]
    fn a_field_error_is_placed_at_its_key() {
        let text = "title = \"t\"\n\ntitel = \"u\"\n";
        let error = toml::from_str::<Matter>(text).unwrap_err();
        assert_eq!(place(&error, text), Some((3, 1)));
        assert!(
            message(&error).starts_with("unknown field `titel`"),
            "{}",
            message(&error)
        );
    }

    #[test]
    fn an_unknown_key_is_read_with_the_known_ones_and_its_table() {
        let error = refused("[calendar]\nrefresh_minuts = 5\n");
        assert_eq!(
            complaint(&error),
            Complaint::UnknownField {
                unknown: "refresh_minuts",
                known: vec!["refresh_minutes"],
            }
        );
        assert_eq!(key(&error).as_deref(), Some("calendar"));

        let error = refused("titel = \"t\"\n");
        let Complaint::UnknownField { unknown, known } = complaint(&error) else {
            panic!("{error}");
        };
        assert_eq!(unknown, "titel");
        assert_eq!(
            known,
            [
                "days", "ratio", "title", "folder", "draft", "tags", "names", "calendar", "even"
            ]
        );
        assert_eq!(key(&error), None);
    }

    #[test]
    fn a_value_of_the_wrong_kind_is_read_as_found_and_expected() {
        let cases = [
            ("days = \"sixty\"", "the text \"sixty\"", "a whole number"),
            ("days = -1", "the whole number -1", "a whole number"),
            ("ratio = true", "true", "a number"),
            ("title = 5", "the whole number 5", "text in quotes"),
            ("title = 1.5", "the number 1.5", "text in quotes"),
            ("title = [1]", "a list", "text in quotes"),
            ("title = 1979-05-27", "a table or a date", "text in quotes"),
            ("folder = false", "false", "a path in quotes"),
            ("draft = \"yes\"", "the text \"yes\"", "true or false"),
            ("tags = \"a\"", "the text \"a\"", "a list"),
            ("names = 1", "the whole number 1", "a table"),
            ("calendar = 1", "the whole number 1", "a table"),
        ];
        for (text, found, expected) in cases {
            let error = refused(text);
            assert_eq!(
                complaint(&error),
                Complaint::WrongValue {
                    found: found.to_owned(),
                    expected
                },
                "{text}"
            );
            let name = text.split(' ').next().unwrap();
            assert_eq!(key(&error).as_deref(), Some(name), "{text}");
        }
        let error = refused("[calendar]\nrefresh_minutes = \"often\"\n");
        assert_eq!(key(&error).as_deref(), Some("calendar.refresh_minutes"));
    }

    #[test]
    fn a_types_own_message_is_passed_on_as_it_is() {
        let error = refused("even = 3");
        assert_eq!(
            complaint(&error),
            Complaint::Other("expected an even number, found 3")
        );
        assert_eq!(key(&error).as_deref(), Some("even"));
    }
}
