//! The API key, and the one place that scrubs it out of text.
//!
//! The key is wrapped so that it cannot be printed by accident: `Debug` and `Display` show a
//! placeholder. Everything that may carry text from the server (error bodies, response bodies
//! that get saved or parsed) passes through [`ApiKey::redact`] or [`ApiKey::redact_bytes`]
//! first, because the service's invalid-key response echoes the key back.

use std::fmt;

/// What replaces the key wherever it would otherwise appear.
pub const REDACTED: &str = "[REDACTED]";

#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Trims surrounding white space (a key pasted into a CI secret often ends in a newline).
    /// Returns `None` for an empty key.
    pub fn new(raw: &str) -> Option<Self> {
        let key = raw.trim();
        (!key.is_empty()).then(|| Self(key.to_owned()))
    }

    /// The key itself, for the one place that sets the request header.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }

    /// The forms the key can take inside text from the server: as sent, JSON-escaped (`/`
    /// may come back as `\/`) and percent-encoded (if the server echoes a URL).
    fn forms(&self) -> Vec<String> {
        let mut forms = vec![self.0.clone()];
        let json_escaped = serde_json::to_string(&self.0)
            .map(|quoted| quoted[1..quoted.len() - 1].replace('/', "\\/"))
            .unwrap_or_default();
        let percent: String = self
            .0
            .bytes()
            .map(|b| {
                if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                    (b as char).to_string()
                } else {
                    format!("%{b:02X}")
                }
            })
            .collect();
        for form in [json_escaped, percent] {
            if !form.is_empty() && !forms.contains(&form) {
                forms.push(form);
            }
        }
        forms
    }

    /// `text` with every occurrence of the key replaced by [`REDACTED`].
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for form in self.forms() {
            if out.contains(&form) {
                out = out.replace(&form, REDACTED);
            }
        }
        out
    }

    /// The same for raw bytes (a response body that may not be UTF-8).
    pub fn redact_bytes(&self, bytes: &[u8]) -> Vec<u8> {
        let mut out = bytes.to_vec();
        for form in self.forms() {
            out = replace_bytes(&out, form.as_bytes(), REDACTED.as_bytes());
        }
        out
    }
}

fn replace_bytes(haystack: &[u8], needle: &[u8], with: &[u8]) -> Vec<u8> {
    if needle.is_empty() || haystack.len() < needle.len() {
        return haystack.to_vec();
    }
    let mut out = Vec::with_capacity(haystack.len());
    let mut rest = haystack;
    while let Some(at) = rest.windows(needle.len()).position(|w| w == needle) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(with);
        rest = &rest[at + needle.len()..];
    }
    out.extend_from_slice(rest);
    out
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(")?;
        f.write_str(REDACTED)?;
        f.write_str(")")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_or_blank_key_is_no_key() {
        assert!(ApiKey::new("").is_none());
        assert!(ApiKey::new(" \n").is_none());
        assert_eq!(ApiKey::new(" abc123\n").unwrap().expose(), "abc123");
    }

    #[test]
    fn key_never_prints() {
        let key = ApiKey::new("s3cr3t-key").unwrap();
        assert!(!format!("{key:?} {key}").contains("s3cr3t"));
    }

    #[test]
    fn redacts_every_form_of_the_key() {
        let key = ApiKey::new("ab/cd+ef").unwrap();
        let text = r#"{"error":"Invalid key ab\/cd+ef"} url=?k=ab%2Fcd%2Bef raw ab/cd+ef"#;
        let clean = key.redact(text);
        assert!(!clean.contains("ab/cd+ef") && !clean.contains("ab\\/cd+ef"));
        assert!(!clean.contains("ab%2Fcd%2Bef"));
        assert_eq!(clean.matches(REDACTED).count(), 3);
        let bytes = key.redact_bytes(text.as_bytes());
        assert_eq!(String::from_utf8(bytes).unwrap(), clean);
    }
}
