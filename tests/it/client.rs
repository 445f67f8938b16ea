//! The HTTP client against a real local server: what it sends, how it retries, and the error
//! a webmaster sees for each way the API can fail.
//!
//! Expected messages spell out `GET /api/v2/...` on purpose: that is what the webmaster reads.

use crate::support::mock::closed_port;
use crate::support::{MockServer, Reply, demo_api, demo_body, unicode_escaped};
use std::time::Duration;
use vatcar_site::fetch::client::{ApiClient, ClientOptions, RetryPolicy};
use vatcar_site::fetch::endpoint::Endpoint;
use vatcar_site::fetch::error::ApiError;
use vatcar_site::secret::ApiKey;

/// This module's own key, not `support::KEY`: it holds `/`, `+` and `=`, as base64 keys do, so
/// that an echo escaped as JSON sends it (`\/`) must still be found and redacted.
const KEY: &str = "k3y-5ecr3t/abc+def=";

fn options(server: &MockServer) -> ClientOptions {
    ClientOptions {
        base_url: server.url(),
        api_key: ApiKey::new(KEY).ok(),
        timeout: Duration::from_secs(5),
        retry: RetryPolicy {
            max_retries: 3,
            min_delay: Duration::from_millis(10),
            max_delay: Duration::from_millis(40),
            max_retry_after: Duration::from_secs(5),
        },
        ..ClientOptions::default()
    }
}

fn client(server: &MockServer) -> ApiClient {
    ApiClient::new(options(server)).unwrap()
}

const ROSTER: Endpoint = Endpoint::FacilityRoster;

/// One endpoint fetched the way the program fetches every one, through `fetch_all`: the
/// client has no other way in.
trait FetchOne {
    fn fetch(&self, endpoint: Endpoint) -> Result<Vec<u8>, ApiError>;
}

impl FetchOne for ApiClient {
    fn fetch(&self, endpoint: Endpoint) -> Result<Vec<u8>, ApiError> {
        let mut results = self.fetch_all(&[endpoint], 1);
        assert_eq!(results.len(), 1, "one result for one endpoint");
        results.pop().unwrap()
    }
}

/// Asserts that neither the message nor the debug form of an error holds the key.
fn assert_no_key(error: &ApiError) {
    for text in [error.to_string(), format!("{error:?}")] {
        assert!(!text.contains(KEY), "key leaked: {text}");
        assert!(!text.contains("k3y-5ecr3t"), "key leaked: {text}");
    }
}

#[test]
fn sends_the_key_only_in_the_api_key_header() {
    let server = demo_api();
    let body = client(&server).fetch(ROSTER).unwrap();
    assert_eq!(body, demo_body("facility-roster.json"));
    let log = server.log();
    assert_eq!(log.len(), 1);
    let request = &log[0];
    assert_eq!(request.method, "GET");
    assert_eq!(request.target, ROSTER.path(), "no query string");
    assert_eq!(
        request.headers.get("api_key").map(String::as_str),
        Some(KEY)
    );
    assert!(!request.target.contains("k3y"));
    let agent = request.headers.get("user-agent").unwrap();
    assert!(agent.starts_with("vatcar-site/"), "{agent}");
    assert!(agent.contains(env!("CARGO_PKG_VERSION")), "{agent}");
    // No other header carries the key.
    let carriers: Vec<_> = request
        .headers
        .iter()
        .filter(|(_, v)| v.contains("k3y"))
        .map(|(k, _)| k.as_str())
        .collect();
    assert_eq!(carriers, ["api_key"]);
}

#[test]
fn old_base_url_with_a_path_prefix_works() {
    let server = MockServer::start();
    // The wire path spelt out on purpose: the base URL's own path must come before the
    // endpoint's, which `Endpoint::path` alone cannot show.
    server.route_path(
        "/public/api/v2/division/events",
        vec![Reply::ok(r#"{"success":"ok","data":[]}"#)],
    );
    let client = ApiClient::new(ClientOptions {
        base_url: format!("{}/public/", server.url()),
        ..options(&server)
    })
    .unwrap();
    client.fetch(Endpoint::DivisionEvents).unwrap();
    assert_eq!(server.log()[0].target, "/public/api/v2/division/events");
}

/// The paths themselves, spelt out as the spec gives them: every other test names routes by
/// `Endpoint`, so this is the one that would catch a wrong path.
#[test]
fn every_endpoint_is_requested_at_its_documented_path() {
    let server = MockServer::start();
    let client = client(&server);
    for endpoint in [
        Endpoint::FacilityRoster,
        Endpoint::FacilityEvents,
        Endpoint::FacilityDocuments,
        Endpoint::DivisionEvents,
        Endpoint::User(1590318),
        Endpoint::UserNotes(1590318),
    ] {
        // Nothing is routed: each request gets the mock's 404, which is not retried.
        assert!(client.fetch(endpoint).is_err());
    }
    let targets: Vec<String> = server.log().into_iter().map(|l| l.target).collect();
    assert_eq!(
        targets,
        [
            "/api/v2/facility/roster",
            "/api/v2/facility/events",
            "/api/v2/facility/documents",
            "/api/v2/division/events",
            "/api/v2/user/1590318",
            "/api/v2/user/1590318/notes",
        ]
    );
}

#[test]
fn the_four_site_endpoints_are_fetched_at_once() {
    let server = MockServer::start();
    for endpoint in Endpoint::SITE {
        server.reply(endpoint, Reply::ok("[]").delay(Duration::from_millis(400)));
    }
    let results = client(&server).fetch_all(&Endpoint::SITE, 4);
    assert!(results.iter().all(Result::is_ok));
    let log = server.log();
    assert_eq!(log.len(), 4);
    // Every request arrived before any was answered: they overlapped.
    let first_answer = log.iter().filter_map(|l| l.answered).min().unwrap();
    assert!(log.iter().all(|l| l.received < first_answer), "{log:#?}");
}

#[test]
fn concurrency_is_bounded() {
    let server = MockServer::start();
    let endpoints: Vec<Endpoint> = (1..=6).map(Endpoint::User).collect();
    for &endpoint in &endpoints {
        server.reply(endpoint, Reply::ok("{}").delay(Duration::from_millis(150)));
    }
    let results = client(&server).fetch_all(&endpoints, 2);
    assert_eq!(results.len(), 6);
    let log = server.log();
    // As each request arrived, how many were in flight (itself included): never more than two,
    // and two at some moment, so the fetches overlap rather than run one after another.
    let in_flight: Vec<usize> = log
        .iter()
        .map(|request| {
            log.iter()
                .filter(|other| {
                    other.received <= request.received
                        && other.answered.is_none_or(|a| a > request.received)
                })
                .count()
        })
        .collect();
    assert!(in_flight.iter().all(|&n| n <= 2), "{in_flight:?}");
    assert!(in_flight.contains(&2), "never two at once: {in_flight:?}");
}

#[test]
fn retries_503_then_succeeds() {
    let server = MockServer::start();
    server.replies(
        ROSTER,
        vec![Reply::status(503), Reply::status(503), Reply::ok("{}")],
    );
    assert_eq!(client(&server).fetch(ROSTER).unwrap(), b"{}");
    assert_eq!(server.hits(ROSTER), 3);
}

#[test]
fn gives_up_after_three_retries() {
    let server = MockServer::start();
    server.reply(ROSTER, Reply::json(502, r#"{"error":"upstream down"}"#));
    let error = client(&server).fetch(ROSTER).unwrap_err();
    assert_eq!(server.hits(ROSTER), 4, "one try and three retries");
    assert!(
        matches!(error, ApiError::Status { status: 502, .. }),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "GET /api/v2/facility/roster: the server answered HTTP 502: upstream down"
    );
}

#[test]
fn honours_retry_after_on_429() {
    let server = MockServer::start();
    server.replies(
        ROSTER,
        vec![
            Reply::status(429).header("Retry-After", "1"),
            Reply::ok("{}"),
        ],
    );
    client(&server).fetch(ROSTER).unwrap();
    let log = server.log();
    assert_eq!(log.len(), 2);
    let waited = log[1].received - log[0].answered.unwrap();
    assert!(
        waited >= Duration::from_millis(950),
        "waited only {waited:?}"
    );
}

#[test]
fn a_retry_after_beyond_the_limit_is_an_error_not_a_long_sleep() {
    let server = MockServer::start();
    server.reply(ROSTER, Reply::status(429).header("Retry-After", "3600"));
    let error = client(&server).fetch(ROSTER).unwrap_err();
    assert!(
        matches!(error, ApiError::RetryAfterTooLong { seconds: 3600, .. }),
        "{error:?}"
    );
    assert_eq!(server.hits(ROSTER), 1);
}

#[test]
fn client_errors_are_never_retried() {
    for status in [400, 404, 410, 422] {
        let server = MockServer::start();
        server.reply(ROSTER, Reply::status(status));
        let error = client(&server).fetch(ROSTER).unwrap_err();
        assert_eq!(server.hits(ROSTER), 1, "HTTP {status} was retried");
        assert!(error.to_string().contains(&status.to_string()), "{error}");
    }
}

#[test]
fn connection_errors_are_retried_then_reported() {
    let port = closed_port();
    let mut options = ClientOptions {
        base_url: format!("http://127.0.0.1:{port}"),
        api_key: ApiKey::new(KEY).ok(),
        ..ClientOptions::default()
    };
    options.retry.min_delay = Duration::from_millis(5);
    options.retry.max_delay = Duration::from_millis(10);
    let error = ApiClient::new(options)
        .unwrap()
        .fetch(Endpoint::FacilityEvents)
        .unwrap_err();
    assert!(matches!(error, ApiError::Connect { .. }), "{error:?}");
    let message = error.to_string();
    assert!(
        message.starts_with("GET /api/v2/facility/events: could not connect to http://127.0.0.1:"),
        "{message}"
    );
    assert!(message.to_lowercase().contains("refused"), "{message}");
}

#[test]
fn rejected_key_is_one_clear_line_without_the_key() {
    for status in [401, 403] {
        let server = MockServer::start();
        // The real service echoes the key back in its invalid-key response.
        server.reply(
            ROSTER,
            Reply::json(status, format!(r#"{{"error":"Invalid API key {KEY}"}}"#)),
        );
        let error = client(&server).fetch(ROSTER).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "GET /api/v2/facility/roster: the API key was rejected (HTTP {status}); check VATCAR_API_KEY or --api-key"
            )
        );
        assert_no_key(&error);
        assert_eq!(server.hits(ROSTER), 1);
    }
}

#[test]
fn echoed_key_is_redacted_from_error_details_and_bodies() {
    let server = MockServer::start();
    let escaped = KEY.replace('/', "\\/");
    server.reply(
        ROSTER,
        Reply::json(500, format!(r#"{{"error":"bad key {escaped} / {KEY}"}}"#)),
    );
    server.reply(
        Endpoint::FacilityEvents,
        Reply::ok(format!(r#"{{"success":"{KEY}","data":[]}}"#)),
    );
    let client = client(&server);
    let error = client.fetch(ROSTER).unwrap_err();
    assert_no_key(&error);
    assert!(
        error
            .to_string()
            .contains("bad key [REDACTED] / [REDACTED]"),
        "{error}"
    );
    // A body is data and comes back exactly as sent: rewriting it would corrupt it. What keeps
    // an echoed key out of a site or a snapshot is the check on every file written.
    let body = client.fetch(Endpoint::FacilityEvents).unwrap();
    assert_eq!(
        String::from_utf8(body).unwrap(),
        format!(r#"{{"success":"{KEY}","data":[]}}"#)
    );
}

#[test]
fn an_echo_of_the_key_escaped_as_unicode_is_redacted_from_errors() {
    let unicode = unicode_escaped(KEY);
    for status in [422, 500] {
        let server = MockServer::start();
        server.reply(
            ROSTER,
            Reply::json(
                status,
                format!(r#"{{"error":"Invalid API key {unicode}"}}"#),
            ),
        );
        // Not JSON at all: the start of the body is quoted as it is, escapes and all.
        server.reply(
            Endpoint::FacilityEvents,
            Reply::json(status, format!("<p>key {unicode}</p>")),
        );
        let client = client(&server);
        for endpoint in [Endpoint::FacilityRoster, Endpoint::FacilityEvents] {
            let error = client.fetch(endpoint).unwrap_err();
            assert_no_key(&error);
            let text = error.to_string();
            assert!(
                !text.contains("\\u006b") && text.contains("[REDACTED]"),
                "{text}"
            );
        }
    }
}

#[test]
fn notes_permission_error_is_its_own_kind() {
    let message = "You do not have permission to view this controller's notes.";
    // The status of this error is not documented: as a 403, and as a 200.
    for status in [403, 200] {
        let server = MockServer::start();
        server.reply(
            Endpoint::UserNotes(1547761),
            Reply::json(status, format!(r#"{{"error":"{message}"}}"#)),
        );
        let client = client(&server);
        let result = client
            .fetch(Endpoint::UserNotes(1547761))
            .and_then(|body| vatcar_site::model::decode_notes(1547761, &body));
        match result {
            Err(ApiError::NotesPermission {
                cid, message: m, ..
            }) => {
                assert_eq!(cid, 1547761);
                assert_eq!(m, message);
            }
            other => panic!("HTTP {status}: {other:?}"),
        }
    }
}

#[test]
fn an_html_page_is_reported_with_its_content_type_and_first_bytes() {
    let server = MockServer::start();
    server.reply(
        ROSTER,
        Reply::ok("<!DOCTYPE html><html><body>Maintenance</body></html>")
            .header("Content-Type", "text/html; charset=utf-8"),
    );
    let error = client(&server).fetch(ROSTER).unwrap_err();
    assert_eq!(
        error.to_string(),
        r#"GET /api/v2/facility/roster: expected JSON but got text/html; charset=utf-8, starting with "<!DOCTYPE html><html><body>Maintenance</body></html>""#
    );
}

#[test]
fn a_hanging_endpoint_times_out_within_the_configured_time() {
    let server = MockServer::start();
    server.reply(ROSTER, Reply::ok("{}").delay(Duration::from_secs(30)));
    // The reply would come after 30 s: an error that says so is the deadline at work.
    let error = ApiClient::new(ClientOptions {
        timeout: Duration::from_secs(1),
        ..options(&server)
    })
    .unwrap()
    .fetch(ROSTER)
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "GET /api/v2/facility/roster: timed out after 1 s"
    );
    assert_eq!(server.hits(ROSTER), 1, "a timeout is not retried");
}

#[test]
fn a_trickling_body_is_bounded_by_the_total_deadline() {
    let server = MockServer::start();
    // 400 bytes at one byte per 20 ms: 8 s in all, but never silent for long.
    let body = format!(r#"{{"success":true,"data":"{}"}}"#, "x".repeat(380));
    server.reply(ROSTER, Reply::ok(body).trickle(Duration::from_millis(20)));
    // Never silent for the 1 s, so only a deadline on the whole read ends it: a timeout,
    // where the body would otherwise have been read whole.
    let error = ApiClient::new(ClientOptions {
        timeout: Duration::from_secs(1),
        ..options(&server)
    })
    .unwrap()
    .fetch(ROSTER)
    .unwrap_err();
    assert!(matches!(error, ApiError::Timeout { .. }), "{error:?}");
    assert_eq!(server.hits(ROSTER), 1, "a timeout is not retried");
}

#[test]
fn an_oversized_body_is_refused() {
    let server = MockServer::start();
    server.reply(ROSTER, Reply::ok(vec![b' '; 4096]));
    let error = ApiClient::new(ClientOptions {
        max_body_bytes: 1024,
        ..options(&server)
    })
    .unwrap()
    .fetch(ROSTER)
    .unwrap_err();
    assert!(matches!(error, ApiError::TooLarge { .. }), "{error:?}");
}

#[test]
fn redirects_to_another_host_are_not_followed() {
    let elsewhere = MockServer::start();
    elsewhere.reply(ROSTER, Reply::ok("{}"));
    let server = MockServer::start();
    // Another port on the same machine is another origin.
    server.reply(
        ROSTER,
        Reply::status(302).header("Location", &format!("{}{}", elsewhere.url(), ROSTER.path())),
    );
    let error = client(&server).fetch(ROSTER).unwrap_err();
    assert!(matches!(error, ApiError::Redirected { .. }), "{error:?}");
    assert_eq!(
        elsewhere.log().len(),
        0,
        "the key travelled to another origin"
    );
    assert!(error.to_string().contains(&elsewhere.url()), "{error}");
}

#[test]
fn redirects_on_the_same_origin_are_followed() {
    let server = MockServer::start();
    server.reply(
        ROSTER,
        Reply::status(301).header("Location", "/v2-moved/roster"),
    );
    server.route_path("/v2-moved/roster", vec![Reply::ok("{}")]);
    assert_eq!(client(&server).fetch(ROSTER).unwrap(), b"{}");
}

#[test]
fn without_a_key_nothing_is_sent() {
    let server = demo_api();
    let error = ApiClient::new(ClientOptions {
        api_key: None,
        ..options(&server)
    })
    .err()
    .unwrap();
    assert!(matches!(error, ApiError::MissingKey));
    assert!(error.to_string().contains("VATCAR_API_KEY"));
    assert!(server.log().is_empty());
}
