//! What a `toml` error says, in the shape this program's messages use: `file:line`, then the
//! message. toml's own text (`TOML parse error at line 3, column 7` and the whole line
//! quoted, however long) is never shown; its parts are read here, and only here, so that the
//! tests below catch an upgrade that moves the place into the message or off the span.

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

#[cfg(test)]
mod tests {
    use super::{message, place};

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Matter {
        title: String,
    }

    #[test]
    fn a_syntax_error_is_placed_and_its_message_is_bare() {
        let text = "a = 1\nb = \"open\n";
        let error = toml::from_str::<toml::Table>(text).unwrap_err();
        assert_eq!(place(&error, text), Some((2, 10)));
        // The place is not in the message: a message is shown after `file:line:`.
        assert_eq!(message(&error), "invalid basic string, expected `\"`");
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
}
