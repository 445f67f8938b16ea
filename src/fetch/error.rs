//! What can go wrong between the service and a parsed model, as one error type shared by the
//! fetching and decoding stages. Every variant names the endpoint; none carries the API key
//! (text from the server is redacted before it gets here).

use crate::fetch::endpoint::Endpoint;
use anyhow::anyhow;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("no API key: set VATCAR_API_KEY or pass --api-key (or build the demo with --demo)")]
    MissingKey,

    #[error(
        "invalid base URL {:?}: {reason}",
        crate::secret::without_userinfo(url)
    )]
    BadBaseUrl { url: String, reason: String },

    #[error(
        "{endpoint}: the API key was rejected (HTTP {status}); check VATCAR_API_KEY or --api-key"
    )]
    KeyRejected { endpoint: Endpoint, status: u16 },

    /// Spec 4.2: the key may only read notes of its own facility's users unless it has
    /// division-level access.
    #[error("{endpoint}: no permission to read the training notes of CID {cid}: {message}")]
    NotesPermission {
        endpoint: Endpoint,
        cid: u64,
        message: String,
    },

    #[error("{endpoint}: not found (HTTP 404) at {url}; {}", not_found_advice(*.endpoint, *.others_answered))]
    NotFound {
        endpoint: Endpoint,
        url: String,
        /// Other endpoints of the same run answered at this address, so the base URL is
        /// right and is not worth suspecting.
        others_answered: bool,
    },

    #[error("{endpoint}: the server answered HTTP {status}{detail}")]
    Status {
        endpoint: Endpoint,
        status: u16,
        /// Already redacted and shortened; empty or starting with ": ".
        detail: String,
    },

    #[error(
        "{endpoint}: rate limited (HTTP 429); the server asks to wait {seconds} s, longer than the {limit} s this tool waits; try again later"
    )]
    RetryAfterTooLong {
        endpoint: Endpoint,
        seconds: u64,
        limit: u64,
    },

    #[error(
        "{endpoint}: the server redirected to {location}; not following it, so that the API key is not sent to another address"
    )]
    Redirected {
        endpoint: Endpoint,
        location: String,
    },

    #[error("{endpoint}: timed out after {seconds} s")]
    Timeout { endpoint: Endpoint, seconds: f64 },

    #[error("{endpoint}: could not connect to {url}: {reason}")]
    Connect {
        endpoint: Endpoint,
        url: String,
        reason: String,
    },

    #[error("{endpoint}: the response body exceeds {limit_mib} MiB; refusing to read more")]
    TooLarge { endpoint: Endpoint, limit_mib: u64 },

    #[error("{endpoint}: expected JSON but got {content_type}, starting with {start:?}")]
    NotJson {
        endpoint: Endpoint,
        content_type: String,
        start: String,
    },

    #[error("{endpoint}: the response is not valid JSON: {reason}")]
    InvalidJson { endpoint: Endpoint, reason: String },

    /// JSON of the wrong shape; `path` is a JSON path such as `data.controllers[3].rating`.
    #[error("{endpoint}: unexpected JSON at `{path}`: {reason}")]
    Shape {
        endpoint: Endpoint,
        path: String,
        reason: String,
    },

    /// A record whose JSON had the right shape but a value this client cannot use, such as a
    /// timestamp in an unknown format or a missing id.
    #[error("{endpoint}: {record}, field `{field}`: {reason}")]
    Record {
        endpoint: Endpoint,
        record: String,
        field: &'static str,
        reason: String,
    },

    /// The server answered with a body of the form `{"error": "..."}`.
    #[error("{endpoint}: the API reported an error: {message}")]
    Reported { endpoint: Endpoint, message: String },

    #[error("{endpoint}: {reason}")]
    Other { endpoint: Endpoint, reason: String },
}

/// One error if there is one; otherwise one error listing them all, one per line.
pub fn combine_any(mut errors: Vec<anyhow::Error>) -> anyhow::Error {
    if errors.len() == 1 {
        return errors.remove(0);
    }
    let lines: Vec<String> = errors.iter().map(|e| format!("  - {e:#}")).collect();
    anyhow!("{} endpoints failed:\n{}", errors.len(), lines.join("\n"))
}

/// If `body` is an error object of the form `{"error": "..."}` (spec section 7), its message.
pub fn reported_message(body: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct ErrorBody {
        error: serde_json::Value,
    }
    let parsed: ErrorBody = serde_json::from_slice(body).ok()?;
    Some(match parsed.error {
        serde_json::Value::String(s) => s,
        serde_json::Value::Null => return None,
        other => other.to_string(),
    })
}

/// The notes permission error is told apart from other error bodies by its wording: its HTTP
/// status is not documented (spec section 7).
pub fn is_permission_message(message: &str) -> bool {
    message.to_ascii_lowercase().contains("permission")
}

/// Whether a body starts like a JSON object or array (after white space and a BOM).
pub fn looks_like_json(body: &[u8]) -> bool {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    matches!(
        body.iter().find(|b| !b.is_ascii_whitespace()),
        Some(b'{') | Some(b'[')
    )
}

/// What a 404 suggests: a user's endpoints answer 404 for a CID the API does not know; a
/// facility endpoint, for a wrong base URL, unless the others answered.
fn not_found_advice(endpoint: Endpoint, others_answered: bool) -> &'static str {
    match (endpoint, others_answered) {
        (Endpoint::User(_) | Endpoint::UserNotes(_), _) => "is the CID right?",
        (_, true) => "the other endpoints answered at this address",
        (_, false) => "check --base-url",
    }
}
