//! The API key: checked once, never printed, scrubbed from what people see, and searched for
//! in every file before it is published, with any other secret of the run ([`Secrets`]: the
//! Discord webhook's address).
//!
//! The key is wrapped so that it cannot be printed by accident: `Debug` and `Display` show a
//! placeholder. Two different jobs use it:
//!
//! - [`ApiKey::redact`] scrubs text shown to a person (errors, clap's usage errors, log and
//!   progress lines, the lines `check` prints, error messages quoted in a report index). The
//!   service's invalid-key response echoes the key, possibly escaped (`\u0061…`), so the text
//!   is decoded before it is searched, and the original span of each match is replaced.
//!   Response bodies themselves are never redacted: they are data, and rewriting data
//!   corrupts it.
//! - [`ApiKey::leaks_into`] tells whether a file about to be written, or its path, contains
//!   the key in any form (raw, JSON- or iCal-escaped, `\u`-escaped, percent-encoded, as HTML
//!   character references, folded across iCal lines). A build that would write such a file
//!   writes nothing at all.
//!
//! A key shorter than [`MIN_KEY_LENGTH`] is refused before any request: scrubbing a key of
//! one or two characters would mangle every message, and searching output for it would find
//! it everywhere.
//!
//! The user name and password an address may hold (`https://user:pass@host/`, the previous
//! site's or the bookings list's) are a secret of the webmaster's too, of any length: an
//! address is printed by [`shown_url`], and the door every printed line passes through
//! (`cmd::console`) leaves them out of whatever address its text holds ([`without_userinfo`]),
//! clap's quotes of a refused flag among them.

use memchr::memmem;
use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

/// What replaces the key wherever it would otherwise appear.
pub const REDACTED: &str = "[REDACTED]";

/// The shortest key accepted. Real keys are long random strings; a short one cannot be told
/// apart from ordinary text.
pub const MIN_KEY_LENGTH: usize = 16;

/// How many layers of escaping are peeled off when looking for the key (JSON inside HTML,
/// say).
const DECODE_LAYERS: usize = 3;

#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("the API key is empty")]
    Empty,
    #[error(
        "the API key is {length} characters long; vatcar-site refuses keys shorter than {MIN_KEY_LENGTH} characters, because it could not keep so short a key out of its messages and output; check that the whole key was copied"
    )]
    TooShort { length: usize },
    #[error(
        "the API key contains white space or control characters, which cannot be sent in a header; check that it was copied whole and alone"
    )]
    BadCharacters,
}

impl ApiKey {
    /// Trims surrounding white space (a key pasted into a CI secret often ends in a newline),
    /// then checks what is left.
    pub fn new(raw: &str) -> Result<Self, KeyError> {
        let key = raw.trim();
        if key.is_empty() {
            return Err(KeyError::Empty);
        }
        if key.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(KeyError::BadCharacters);
        }
        let length = key.chars().count();
        if length < MIN_KEY_LENGTH {
            return Err(KeyError::TooShort { length });
        }
        Ok(Self(key.to_owned()))
    }

    /// The key itself, for the one place that sets the request header.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }

    /// `text` with every occurrence of the key, in any of the forms [`ApiKey::leaks_into`]
    /// finds, replaced by [`REDACTED`]. Text without the key comes back unchanged.
    pub fn redact(&self, text: &str) -> String {
        // Finding the spans costs a copy and two offsets per byte; most text has no key.
        if !self.leaks_into(text.as_bytes()) {
            return text.to_owned();
        }
        let needle = self.0.as_bytes();
        let mut layer = Spanned::identity(text.as_bytes());
        let mut spans: Vec<(usize, usize)> = Vec::new();
        for _ in 0..=DECODE_LAYERS {
            for at in memmem::find_iter(&layer.bytes, needle) {
                spans.push(layer.origin(at, at + needle.len()));
            }
            match layer.decoded() {
                Some(next) => layer = next,
                None => break,
            }
        }
        spans.sort_unstable();
        let mut out = String::with_capacity(text.len());
        let mut copied = 0;
        for (start, end) in merge(spans) {
            // Spans come from whole escape sequences, so they sit on character boundaries;
            // the check keeps a surprise from panicking.
            if let (Some(before), true) = (text.get(copied..start), text.is_char_boundary(end)) {
                out.push_str(before);
                out.push_str(REDACTED);
                copied = end;
            }
        }
        out.push_str(&text[copied..]);
        out
    }

    /// Whether `bytes` hold the key in any form a reader or a program could turn back into
    /// it: raw, JSON or iCal backslash escapes (`\/`, `\u0061`, `\,`), percent-encoding, HTML
    /// character references, folded iCal lines, and up to three such layers on one another.
    pub fn leaks_into(&self, bytes: &[u8]) -> bool {
        first_leaked([self], bytes).is_some()
    }
}

/// Which of `secrets` `bytes` hold in any form [`ApiKey::leaks_into`] finds: its index (the
/// first in their order, of those found with the fewest layers decoded). Each layer is
/// decoded once, whatever the number of secrets.
fn first_leaked<'k>(secrets: impl IntoIterator<Item = &'k ApiKey>, bytes: &[u8]) -> Option<usize> {
    let finders: Vec<memmem::Finder> = (secrets.into_iter())
        .map(|secret| memmem::Finder::new(secret.0.as_bytes()))
        .collect();
    let found = |bytes: &[u8]| finders.iter().position(|f| f.find(bytes).is_some());
    if let Some(index) = found(bytes) {
        return Some(index);
    }
    let mut current: Option<Vec<u8>> = None;
    for _ in 0..DECODE_LAYERS {
        let input = current.as_deref().unwrap_or(bytes);
        let next = decode_layer(input)?;
        if let Some(index) = found(&next) {
            return Some(index);
        }
        current = Some(next);
    }
    None
}

/// The secrets a run keeps out of every file it publishes (the API key, the Discord
/// webhook's address), each with what an error calls it. An error names the file, never the
/// secret.
#[derive(Clone, Default)]
pub struct Secrets(Vec<(ApiKey, String)>);

impl Secrets {
    /// None at all, for a publication that guards nothing.
    pub fn none() -> &'static Secrets {
        static NONE: Secrets = Secrets(Vec::new());
        &NONE
    }

    /// Adds `secret`, called `what` ("the API key") where a file would hold it.
    pub fn guard(&mut self, secret: ApiKey, what: &str) {
        if !self.0.iter().any(|(known, _)| *known == secret) {
            self.0.push((secret, what.to_owned()));
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// What the secret that `bytes` hold is called, if they hold one in any form
    /// [`ApiKey::leaks_into`] finds.
    pub fn found_in(&self, bytes: &[u8]) -> Option<&str> {
        let secrets = self.0.iter().map(|(secret, _)| secret);
        first_leaked(secrets, bytes).map(|index| self.0[index].1.as_str())
    }

    /// `text` with every secret replaced by [`REDACTED`].
    pub fn redact(&self, text: &str) -> String {
        (self.0.iter()).fold(text.to_owned(), |text, (secret, _)| secret.redact(&text))
    }
}

impl fmt::Debug for Secrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|(_, what)| what))
            .finish()
    }
}

/// Overlapping or touching spans joined, in order.
fn merge(spans: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
    for (start, end) in spans {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    merged
}

/// Decoded bytes, each with the span of the original text it came from.
struct Spanned {
    bytes: Vec<u8>,
    /// For each byte of `bytes`: its original span.
    origins: Vec<(usize, usize)>,
}

impl Spanned {
    fn identity(bytes: &[u8]) -> Self {
        Self {
            bytes: bytes.to_vec(),
            origins: (0..bytes.len()).map(|i| (i, i + 1)).collect(),
        }
    }

    /// The original span of decoded bytes `start..end`.
    fn origin(&self, start: usize, end: usize) -> (usize, usize) {
        (self.origins[start].0, self.origins[end - 1].1)
    }

    /// One more layer decoded, or `None` when nothing in it decodes: a byte kept keeps its
    /// span, each byte of an escape's meaning has the escape's.
    fn decoded(&self) -> Option<Self> {
        let mut next = Self {
            bytes: Vec::with_capacity(self.bytes.len()),
            origins: Vec::with_capacity(self.bytes.len()),
        };
        let changed = decode_pieces(&self.bytes, |piece, from, escape| {
            next.bytes.extend_from_slice(piece);
            if escape {
                let span = (self.origins[from.start].0, self.origins[from.end - 1].1);
                next.origins.extend(std::iter::repeat_n(span, piece.len()));
            } else {
                next.origins.extend_from_slice(&self.origins[from]);
            }
        });
        changed.then_some(next)
    }
}

/// `bytes` with one layer of escapes decoded, or `None` when there is none.
fn decode_layer(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    decode_pieces(bytes, |piece, _, _| {
        // Decoding only shortens: room for `bytes` is room for all of it.
        out.reserve(bytes.len().saturating_sub(out.len()));
        out.extend_from_slice(piece);
    })
    .then_some(out)
}

/// One layer of `bytes` decoded, handed to `put` piece by piece in order: a run of bytes as
/// they are, or what an escape stands for (`escape`), each with the bytes of `bytes` it
/// comes from; nothing when no escape decodes. Whether any escape was decoded. An escape
/// starts at a `\\`, `%`, `&` or CR.
fn decode_pieces(bytes: &[u8], mut put: impl FnMut(&[u8], Range<usize>, bool)) -> bool {
    let mut changed = false;
    let mut copied = 0;
    let mut i = 0;
    let mut buffer = [0u8; 4];
    let mut starts = EscapeStarts::new(bytes);
    while let Some(at) = starts.next(i) {
        i = at;
        match escape_at(bytes, i, &mut buffer) {
            Some((decoded, consumed)) => {
                put(&bytes[copied..i], copied..i, false);
                put(decoded, i..i + consumed, true);
                changed = true;
                i += consumed;
                copied = i;
            }
            None => i += 1,
        }
    }
    // Every file a build publishes ends its search with a layer that decodes nothing: none
    // of it is copied.
    if changed {
        put(&bytes[copied..], copied..bytes.len(), false);
    }
    changed
}

/// Where escape sequences may start: at a `\\`, `%`, `&` or CR. Every file a build publishes
/// is decoded up to three times, so the bytes are searched with memchr's vector instructions,
/// not one at a time (that search was 15% of a build's instructions, callgrind). Each byte is
/// searched once, however many of them start no escape.
struct EscapeStarts<'b> {
    bytes: &'b [u8],
    /// The next `\\`, `%` or `&` found, or the end.
    mark: usize,
    /// Where that search started: before it, the next mark is not known.
    searched_from: usize,
}

impl<'b> EscapeStarts<'b> {
    fn new(bytes: &'b [u8]) -> Self {
        Self {
            bytes,
            mark: 0,
            searched_from: usize::MAX,
        }
    }

    /// The first possible start at `from` or after.
    fn next(&mut self, from: usize) -> Option<usize> {
        if self.searched_from > from || self.mark < from {
            self.mark = memchr::memchr3(b'\\', b'%', b'&', &self.bytes[from..])
                .map_or(self.bytes.len(), |offset| from + offset);
            self.searched_from = from;
        }
        match memchr::memchr(b'\r', &self.bytes[from..self.mark]) {
            Some(offset) => Some(from + offset),
            None => (self.mark < self.bytes.len()).then_some(self.mark),
        }
    }
}

/// The escape sequence starting at `bytes[i]`, if there is one: what it stands for (written
/// into `buffer`, or empty for a line fold) and how many bytes it takes.
fn escape_at<'b>(bytes: &[u8], i: usize, buffer: &'b mut [u8; 4]) -> Option<(&'b [u8], usize)> {
    let rest = &bytes[i..];
    let (c, consumed): (char, usize) = match rest[0] {
        // iCal folds a long line as CRLF followed by one space or tab. (A bare LF and a space
        // is indentation in HTML, and every page is full of it.)
        b'\r' if rest.len() >= 3 && rest[1] == b'\n' && matches!(rest[2], b' ' | b'\t') => {
            return Some((&buffer[..0], 3));
        }
        b'\\' => backslash_escape(rest)?,
        b'%' => {
            let byte = hex_value(rest.get(1..3)?)?;
            buffer[0] = u8::try_from(byte).ok()?;
            return Some((&buffer[..1], 3));
        }
        b'&' => character_reference(rest)?,
        _ => return None,
    };
    let length = c.encode_utf8(buffer).len();
    Some((&buffer[..length], consumed))
}

/// JSON's `\uXXXX` (with surrogate pairs), `\/`, `\\`, `\"`, and iCal's `\,`, `\;`.
fn backslash_escape(rest: &[u8]) -> Option<(char, usize)> {
    match *rest.get(1)? {
        b'u' | b'U' => {
            let high = hex_value(rest.get(2..6)?)?;
            if (0xD800..0xDC00).contains(&high) {
                if rest.get(6..8)? != b"\\u" {
                    return None;
                }
                let low = hex_value(rest.get(8..12)?)?;
                if !(0xDC00..0xE000).contains(&low) {
                    return None;
                }
                let c = char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))?;
                return Some((c, 12));
            }
            Some((char::from_u32(high)?, 6))
        }
        c @ (b'/' | b'\\' | b'"' | b',' | b';' | b'\'') => Some((c as char, 2)),
        _ => None,
    }
}

/// `&#97;`, `&#x61;` and the named references of ASCII punctuation.
fn character_reference(rest: &[u8]) -> Option<(char, usize)> {
    let end = rest.iter().take(12).position(|&b| b == b';')?;
    let name = std::str::from_utf8(&rest[1..end]).ok()?;
    let c = if let Some(number) = name.strip_prefix('#') {
        let value = match number.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => number.parse().ok()?,
        };
        char::from_u32(value)?
    } else {
        NAMED_REFERENCES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, c)| *c)?
    };
    Some((c, end + 1))
}

const NAMED_REFERENCES: &[(&str, char)] = &[
    ("amp", '&'),
    ("lt", '<'),
    ("gt", '>'),
    ("quot", '"'),
    ("apos", '\''),
    ("excl", '!'),
    ("num", '#'),
    ("dollar", '$'),
    ("percnt", '%'),
    ("lpar", '('),
    ("rpar", ')'),
    ("ast", '*'),
    ("plus", '+'),
    ("comma", ','),
    ("period", '.'),
    ("sol", '/'),
    ("colon", ':'),
    ("semi", ';'),
    ("equals", '='),
    ("quest", '?'),
    ("commat", '@'),
    ("lsqb", '['),
    ("bsol", '\\'),
    ("rsqb", ']'),
    ("Hat", '^'),
    ("lowbar", '_'),
    ("grave", '`'),
    ("lcub", '{'),
    ("verbar", '|'),
    ("rcub", '}'),
    ("tilde", '~'),
];

fn hex_value(digits: &[u8]) -> Option<u32> {
    if !digits.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
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

/// `url` as it may be printed: without its user name and password.
pub fn shown_url(url: &url::Url) -> String {
    let mut url = url.clone();
    // Both fail only for an address that cannot have them (`data:`), which has none to hide.
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.to_string()
}

/// `text` with the user name and password left out of every address in it, as an address
/// parser would find them: after a scheme (`https:`) and its slashes, up to the last `@`
/// before the end of the host (the first `/`, `\`, `?` or `#`, or the end of the line).
/// A line that quotes an address with no path and holds an `@` later loses the text between:
/// less of a message, never a password. Text with no such address comes back unchanged.
pub fn without_userinfo(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut from = 0;
    while let Some(colon) = memchr::memchr(b':', &bytes[from..]).map(|at| from + at) {
        from = colon + 1;
        let Some(host) = authority_after(bytes, colon) else {
            continue;
        };
        let end = (bytes[host..].iter())
            .position(|b| matches!(b, b'/' | b'\\' | b'?' | b'#' | b'\n'))
            .map_or(bytes.len(), |at| host + at);
        if let Some(at) = memchr::memrchr(b'@', &bytes[host..end]) {
            out.push_str(&text[copied..host]);
            copied = host + at + 1;
        }
        from = from.max(end);
    }
    if copied == 0 {
        return text.into();
    }
    out.push_str(&text[copied..]);
    out.into()
}

/// Where the authority (user name, password, host) of an address starts, when the `:` at
/// `colon` ends its scheme: after a scheme and two slashes or more (`\` too, as browsers
/// read them), or after a scheme that always has a host (`https:user@host` is read as
/// `https://user@host`).
fn authority_after(bytes: &[u8], colon: usize) -> Option<usize> {
    let is_scheme = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.');
    let run = bytes[..colon]
        .iter()
        .rev()
        .take_while(|b| is_scheme(b))
        .count();
    let scheme = &bytes[colon - run..colon];
    let scheme = &scheme[scheme.iter().position(u8::is_ascii_alphabetic)?..];
    let slashes = (bytes[colon + 1..].iter())
        .take_while(|b| matches!(b, b'/' | b'\\'))
        .count();
    let special = ["http", "https", "ws", "wss", "ftp"]
        .iter()
        .any(|name| scheme.eq_ignore_ascii_case(name.as_bytes()));
    (slashes >= 2 || special).then_some(colon + 1 + slashes)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "ab/cd+ef-0123456789";

    fn key() -> ApiKey {
        ApiKey::new(KEY).unwrap()
    }

    /// Every character of the key written as a JSON `\u` escape.
    fn unicode_escaped(text: &str) -> String {
        text.chars()
            .map(|c| format!("\\u{:04x}", c as u32))
            .collect()
    }

    #[test]
    fn keys_are_checked_before_use() {
        assert_eq!(ApiKey::new(" \n").unwrap_err(), KeyError::Empty);
        assert_eq!(
            ApiKey::new("e").unwrap_err(),
            KeyError::TooShort { length: 1 }
        );
        assert_eq!(
            ApiKey::new("abc def 0123456789").unwrap_err(),
            KeyError::BadCharacters
        );
        assert_eq!(ApiKey::new(&format!(" {KEY}\n")).unwrap().expose(), KEY);
        let message = KeyError::TooShort { length: 3 }.to_string();
        assert!(message.contains("16 characters"), "{message}");
    }

    #[test]
    fn key_never_prints() {
        let key = key();
        assert!(!format!("{key:?} {key}").contains("ab/cd"));
    }

    #[test]
    fn redacts_every_form_of_the_key() {
        let key = key();
        let text = format!(
            r#"{{"error":"Invalid key ab\/cd+ef-0123456789"}} url=?k=ab%2Fcd%2Bef-0123456789 raw {KEY} escaped {} html ab&#x2F;cd&plus;ef-0123456789 end"#,
            unicode_escaped(KEY)
        );
        let clean = key.redact(&text);
        assert!(!key.leaks_into(clean.as_bytes()), "{clean}");
        assert_eq!(clean.matches(REDACTED).count(), 5, "{clean}");
        assert!(clean.starts_with(r#"{"error":"Invalid key [REDACTED]"}"#));
        assert!(clean.ends_with(" html [REDACTED] end"), "{clean}");
    }

    #[test]
    fn text_without_the_key_is_left_exactly_alone() {
        let key = key();
        for text in [
            "Café \\u00e9 %41 &amp; &#39; \r\n folded \\n ab/cd+ef-012345678 (one short)",
            "",
            "\\u",
            "%",
            "&#xFFFFFFFFF;",
            "\\ud800\\u0041",
        ] {
            assert_eq!(key.redact(text), text);
            assert!(!key.leaks_into(text.as_bytes()), "{text}");
        }
    }

    /// One layer decoded as first written: every byte tested in turn.
    fn decode_layer_bytewise(bytes: &[u8]) -> Option<Vec<u8>> {
        let mut out: Option<Vec<u8>> = None;
        let (mut copied, mut i, mut buffer) = (0, 0, [0u8; 4]);
        while let Some(offset) = bytes[i..]
            .iter()
            .position(|b| matches!(b, b'\\' | b'%' | b'&' | b'\r'))
        {
            i += offset;
            match escape_at(bytes, i, &mut buffer) {
                Some((decoded, consumed)) => {
                    let out = out.get_or_insert_with(Vec::new);
                    out.extend_from_slice(&bytes[copied..i]);
                    out.extend_from_slice(decoded);
                    i += consumed;
                    copied = i;
                }
                None => i += 1,
            }
        }
        let mut out = out?;
        out.extend_from_slice(&bytes[copied..]);
        Some(out)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// Escapes of every kind, broken ones and bare CRs, at any offset.
        #[test]
        fn searching_for_escapes_by_vector_decodes_as_byte_by_byte(
            text in "([a-z0-9 ]{0,20}(%4[1f]|%z|&amp;|&#97;|&#x;|&|\\\\u0061|\\\\/|\\\\|\r\n |\r|\r\n)){0,12}[a-z]{0,20}"
        ) {
            proptest::prop_assert_eq!(decode_layer(text.as_bytes()), decode_layer_bytewise(text.as_bytes()));
        }
    }

    #[test]
    fn bare_carriage_returns_stay_and_escapes_after_them_decode() {
        let text = format!("{}&amp;\r\n x%41", "a\r".repeat(2_000));
        assert_eq!(
            decode_layer(text.as_bytes()).unwrap(),
            format!("{}&xA", "a\r".repeat(2_000)).into_bytes()
        );
    }

    #[test]
    fn secrets_are_found_in_any_form_and_named_never_shown() {
        let mut secrets = Secrets::default();
        assert!(secrets.found_in(KEY.as_bytes()).is_none());
        secrets.guard(key(), "the API key");
        let token = "webhook-token-0123456789";
        secrets.guard(ApiKey::new(token).unwrap(), "the webhook's address");
        secrets.guard(key(), "the same key again");
        assert_eq!(
            secrets.found_in(format!("<p>{}</p>", unicode_escaped(token)).as_bytes()),
            Some("the webhook's address")
        );
        assert_eq!(
            secrets.found_in(format!("{token} {KEY}").as_bytes()),
            Some("the API key"),
            "the first in the order they were guarded"
        );
        assert!(
            secrets
                .found_in(b"webhook-token-012345678 (one short)")
                .is_none()
        );
        assert_eq!(
            secrets.redact(&format!("{KEY} and {token}")),
            "[REDACTED] and [REDACTED]"
        );
        assert_eq!(
            format!("{secrets:?}"),
            "[\"the API key\", \"the webhook's address\"]"
        );
    }

    #[test]
    fn finds_the_key_in_every_encoding_a_file_could_carry() {
        let key = key();
        let percent: String = KEY.bytes().map(|b| format!("%{b:02x}")).collect();
        let folded = format!("DESCRIPTION:{}\r\n {}", &KEY[..7], &KEY[7..]);
        let html_of_json = unicode_escaped(KEY).replace('\\', "&#92;");
        for form in [
            format!("<p>{KEY}</p>"),
            serde_json::to_string(KEY).unwrap().replace('/', "\\/"),
            unicode_escaped(KEY),
            percent,
            folded,
            "ab\\/cd+ef-0123456789".into(),
            html_of_json,
        ] {
            assert!(key.leaks_into(form.as_bytes()), "{form}");
        }
    }

    #[test]
    fn an_address_is_shown_without_its_user_name_and_password() {
        let url = url::Url::parse("https://webmaster:s3cret@example.org:8443/site/").unwrap();
        assert_eq!(shown_url(&url), "https://example.org:8443/site/");
        let url = url::Url::parse("https://token@example.org/").unwrap();
        assert_eq!(shown_url(&url), "https://example.org/");
    }

    #[test]
    fn no_user_name_or_password_of_an_address_is_left_in_text() {
        for (text, shown) in [
            (
                "invalid value 'ftp://user:hunter2@example.org/x' for '--bookings-url <URL>'",
                "invalid value 'ftp://example.org/x' for '--bookings-url <URL>'",
            ),
            (
                "\"HTTPS://user:hunter2@example.org\" is not",
                "\"HTTPS://example.org\" is not",
            ),
            (
                "at https://user:hunter2@example.org",
                "at https://example.org",
            ),
            (
                "https:\\\\user:hunter2@example.org/",
                "https:\\\\example.org/",
            ),
            ("https:user:hunter2@example.org/", "https:example.org/"),
            (
                "https:\\/\\/user:hunter2@example.org/",
                "https:\\/\\/example.org/",
            ),
            ("https://user:hunter 2@example.org/", "https://example.org/"),
            ("https://a:hunter2@b@example.org/", "https://example.org/"),
            (
                "https://user:hunter%402@[::1]:8080/?q=@",
                "https://[::1]:8080/?q=@",
            ),
            (
                "é svn+ssh://user:hunter2@example.org/ and s3://key:hunter2@bucket/",
                "é svn+ssh://example.org/ and s3://bucket/",
            ),
            (
                "1https://user:hunter2@example.org/\nhttps://x:hunter2@y/",
                "1https://example.org/\nhttps://y/",
            ),
        ] {
            assert_eq!(without_userinfo(text), shown, "{text}");
        }
        for text in [
            "mailto:webmaster@example.org",
            "vatcar-site.toml:3: email: webmaster@example.org",
            "https://example.org/@team and a@b",
            "https://example.org/?to=a@b",
            "https://example.org#a@b",
            "a line ending in a colon:",
            "::error::x@y",
            "",
        ] {
            assert!(matches!(without_userinfo(text), Cow::Borrowed(_)), "{text}");
        }
    }
}
