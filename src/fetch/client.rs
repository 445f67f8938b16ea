//! The fetching stage: HTTP requests to the API, with timeouts, retries and redaction.
//!
//! Requests run concurrently on a small single-threaded runtime behind a blocking facade, so
//! the rest of the program stays synchronous. What a careful client does where the spec says
//! "not shown" is decided here, and each decision is written next to the code it shapes:
//!
//! - The key goes only in the `api_key` header, never in a URL; the header is marked
//!   sensitive. Bodies are data and are kept as sent; whatever is quoted from a body or a
//!   header in an error is scrubbed of the key first.
//! - Redirects are followed only to the same scheme, host and port (or from http to https on
//!   the same host), because a custom header would otherwise travel to another host.
//! - Plain `http://` is refused except to loopback addresses (local mocks and tests).
//! - Connection errors, 5xx and 429 are retried up to `max_retries` times with exponential
//!   backoff and jitter; `Retry-After` (seconds or an HTTP date) is honoured up to a limit, and
//!   a longer request is an error rather than a silent long sleep. Other 4xx are final.
//! - A timeout is final: the total timeout is the user's bound on one request, and retrying
//!   would multiply it.
//! - Success statuses are not documented; any 2xx is accepted.

use crate::fetch::endpoint::Endpoint;
use crate::fetch::error::{ApiError, is_permission_message, looks_like_json, reported_message};
use crate::fetch::public::USER_AGENT;
use crate::fetch::public::{body_within, innermost, retry_after};
use crate::sanitize::quote::excerpt;
use crate::secret::ApiKey;
use backon::{ExponentialBuilder, Retryable};
use reqwest::header::{self, HeaderMap, HeaderValue};
use reqwest::{StatusCode, Url};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use crate::settings::DEFAULT_BASE_URL;

/// The largest body read, over HTTP or from a snapshot. The spec shows no size limits; a
/// division's events are a few megabytes.
pub const MAX_BODY_BYTES: u64 = 64 * 1024 * 1024;

#[derive(Clone, Debug)]
pub struct RetryPolicy {
    pub max_retries: usize,
    pub min_delay: Duration,
    pub max_delay: Duration,
    /// The longest `Retry-After` waited for; a longer one is reported as an error.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 3,
            min_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

/// Told about each endpoint as its fetch ends (after any retries), for progress displays.
pub trait FetchObserver: Send + Sync {
    fn started(&self, endpoint: Endpoint);
    fn finished(&self, endpoint: Endpoint, outcome: Result<usize, &ApiError>, elapsed: Duration);
}

#[derive(Clone)]
pub struct ClientOptions {
    pub base_url: String,
    pub api_key: Option<ApiKey>,
    pub connect_timeout: Duration,
    /// Bound on one request from connecting to the last byte of the body.
    pub timeout: Duration,
    pub retry: RetryPolicy,
    pub max_body_bytes: u64,
    pub observer: Option<Arc<dyn FetchObserver>>,
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            base_url: DEFAULT_BASE_URL.into(),
            api_key: None,
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs_f64(crate::settings::DEFAULT_TIMEOUT),
            retry: RetryPolicy::default(),
            max_body_bytes: MAX_BODY_BYTES,
            observer: None,
        }
    }
}

pub struct ApiClient {
    inner: Arc<Inner>,
    runtime: tokio::runtime::Runtime,
}

struct Inner {
    http: reqwest::Client,
    base: Url,
    key: ApiKey,
    options: ClientOptions,
}

/// One attempt's failure, and whether another attempt may help.
struct Failure {
    error: ApiError,
    retryable: bool,
    retry_after: Option<Duration>,
}

impl Failure {
    fn fatal(error: ApiError) -> Self {
        Self {
            error,
            retryable: false,
            retry_after: None,
        }
    }
}

impl ApiClient {
    pub fn new(options: ClientOptions) -> Result<Self, ApiError> {
        let key = options.api_key.clone().ok_or(ApiError::MissingKey)?;
        let base = parse_base_url(&options.base_url)?;
        // reqwest is built without a bundled crypto provider; ring is ours. A second call
        // finds it installed, which is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let origin = base.clone();
        let http = reqwest::Client::builder()
            .user_agent(USER_AGENT)
            .connect_timeout(options.connect_timeout)
            .timeout(options.timeout)
            .redirect(reqwest::redirect::Policy::custom(move |attempt| {
                if attempt.previous().len() > 5 {
                    attempt.error("too many redirects")
                } else if same_origin(&origin, attempt.url()) {
                    attempt.follow()
                } else {
                    attempt.stop()
                }
            }))
            .build()
            .map_err(|e| ApiError::BadBaseUrl {
                url: options.base_url.clone(),
                reason: format!("could not set up the HTTP client: {e}"),
            })?;
        let runtime = (tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build())
        .map_err(|e| ApiError::BadBaseUrl {
            url: options.base_url.clone(),
            reason: format!("could not start the I/O runtime: {e}"),
        })?;
        Ok(Self {
            inner: Arc::new(Inner {
                http,
                base,
                key,
                options,
            }),
            runtime,
        })
    }

    /// Fetches all `endpoints` with at most `concurrency` requests in flight; results come
    /// back in the order asked.
    pub fn fetch_all(
        &self,
        endpoints: &[Endpoint],
        concurrency: usize,
    ) -> Vec<Result<Vec<u8>, ApiError>> {
        let permits = Arc::new(tokio::sync::Semaphore::new(concurrency.max(1)));
        self.runtime.block_on(async {
            let mut tasks = tokio::task::JoinSet::new();
            for (index, &endpoint) in endpoints.iter().enumerate() {
                let inner = self.inner.clone();
                let permits = permits.clone();
                tasks.spawn(async move {
                    let _permit = permits.acquire_owned().await;
                    (index, inner.fetch(endpoint).await)
                });
            }
            // In the order they ended (a task's panic is resumed here), then in the order asked.
            let mut ended = tasks.join_all().await;
            ended.sort_by_key(|(index, _)| *index);
            let mut results: Vec<_> = ended.into_iter().map(|(_, result)| result).collect();
            if results.iter().any(Result::is_ok) {
                for result in &mut results {
                    if let Err(ApiError::NotFound {
                        others_answered, ..
                    }) = result
                    {
                        *others_answered = true;
                    }
                }
            }
            results
        })
    }
}

impl Inner {
    fn url(&self, endpoint: Endpoint) -> Url {
        let mut url = self.base.clone();
        let base_path = self.base.path().trim_end_matches('/');
        url.set_path(&format!("{base_path}{}", endpoint.path()));
        url
    }

    /// One endpoint's body, after any retries; the observer told when it starts and ends.
    async fn fetch(self: Arc<Self>, endpoint: Endpoint) -> Result<Vec<u8>, ApiError> {
        let started = Instant::now();
        let observer = self.options.observer.as_ref();
        if let Some(observer) = observer {
            observer.started(endpoint);
        }
        let url = self.url(endpoint);
        let policy = &self.options.retry;
        let backoff = ExponentialBuilder::default()
            .with_jitter()
            .with_min_delay(policy.min_delay)
            .with_max_delay(policy.max_delay)
            .with_max_times(policy.max_retries);
        let attempt = || self.attempt(endpoint, &url);
        let result = attempt
            .retry(backoff)
            .sleep(tokio::time::sleep)
            .when(|failure: &Failure| failure.retryable)
            // The backoff says when to stop (`None`); Retry-After only lengthens a wait.
            .adjust(|failure: &Failure, delay| {
                delay.map(|delay| failure.retry_after.map_or(delay, |after| after.max(delay)))
            })
            .notify(|failure: &Failure, delay| {
                log::warn!(
                    "{}; retrying in {:.1} s",
                    failure.error,
                    delay.as_secs_f64()
                );
            })
            .await
            .map_err(|failure| failure.error);
        if let Some(observer) = observer {
            observer.finished(endpoint, result.as_ref().map(Vec::len), started.elapsed());
        }
        result
    }

    async fn attempt(&self, endpoint: Endpoint, url: &Url) -> Result<Vec<u8>, Failure> {
        let started = Instant::now();
        let mut key_header = HeaderValue::from_str(self.key.expose()).map_err(|_| {
            Failure::fatal(ApiError::Other {
                endpoint,
                reason: "the API key contains characters that cannot be sent in a header".into(),
            })
        })?;
        key_header.set_sensitive(true);
        let request = self
            .http
            .get(url.clone())
            .header("api_key", key_header)
            .header(header::ACCEPT, "application/json");
        // reqwest's total timeout covers the body too; this outer bound is a second guard
        // so that no code path can wait longer than asked.
        let bound = self.options.timeout + Duration::from_millis(250);
        let outcome = tokio::time::timeout(bound, async {
            let mut response = request.send().await?;
            let body = body_within(&mut response, self.options.max_body_bytes).await?;
            Ok((response.status(), response.headers().clone(), body))
        })
        .await;
        let (status, headers, body) = match outcome {
            Err(_elapsed) => return Err(Failure::fatal(self.timeout_error(endpoint))),
            Ok(Err(error)) => return Err(self.transport_failure(endpoint, url, error)),
            Ok(Ok((_, _, None))) => {
                return Err(Failure::fatal(ApiError::TooLarge {
                    endpoint,
                    limit_mib: self.options.max_body_bytes / (1024 * 1024),
                }));
            }
            Ok(Ok((status, headers, Some(body)))) => (status, headers, body),
        };
        // The body is data and stays as sent; only what is quoted from it in an error is
        // scrubbed of the key (see `secret`).
        log::info!(
            "GET {} → {} ({:.1} KiB in {} ms)",
            url,
            status.as_u16(),
            body.len() as f64 / 1024.0,
            started.elapsed().as_millis()
        );
        if status.is_success() {
            if !looks_like_json(&body) {
                return Err(Failure::fatal(ApiError::NotJson {
                    endpoint,
                    content_type: self.key.redact(&content_type(&headers)),
                    start: self.quote(&body),
                }));
            }
            return Ok(body);
        }
        Err(self.status_failure(endpoint, url, status, &headers, &body))
    }

    /// The start of a body, for an error: scrubbed of the key, then shortened, so that a key
    /// cut in half by the excerpt is still found whole.
    fn quote(&self, body: &[u8]) -> String {
        let start = String::from_utf8_lossy(&body[..body.len().min(4096)]);
        excerpt(&self.key.redact(&start), 80)
    }

    fn timeout_error(&self, endpoint: Endpoint) -> ApiError {
        ApiError::Timeout {
            endpoint,
            seconds: self.options.timeout.as_secs_f64(),
        }
    }

    fn transport_failure(&self, endpoint: Endpoint, url: &Url, error: reqwest::Error) -> Failure {
        if error.is_timeout() {
            return Failure::fatal(self.timeout_error(endpoint));
        }
        if error.is_redirect() {
            return Failure::fatal(ApiError::Other {
                endpoint,
                reason: "too many redirects".into(),
            });
        }
        Failure {
            error: ApiError::Connect {
                endpoint,
                url: url.to_string(),
                reason: self.key.redact(&innermost(&error)),
            },
            retryable: true,
            retry_after: None,
        }
    }

    fn status_failure(
        &self,
        endpoint: Endpoint,
        url: &Url,
        status: StatusCode,
        headers: &HeaderMap,
        body: &[u8],
    ) -> Failure {
        // The message is scrubbed after JSON decoding, so that an echo of the key written
        // as `\u0061...` is found too.
        let reported = reported_message(body).map(|m| excerpt(&self.key.redact(&m), 300));
        let detail = match &reported {
            Some(message) => format!(": {message}"),
            None if body.is_empty() => String::new(),
            None => format!(
                " ({}, starting with {:?})",
                self.key.redact(&content_type(headers)),
                self.quote(body)
            ),
        };
        let code = status.as_u16();
        if let (Endpoint::UserNotes(cid), Some(message)) = (endpoint, &reported)
            && is_permission_message(message)
        {
            return Failure::fatal(ApiError::NotesPermission {
                endpoint,
                cid,
                message: message.clone(),
            });
        }
        match code {
            401 | 403 => Failure::fatal(ApiError::KeyRejected {
                endpoint,
                status: code,
            }),
            404 => Failure::fatal(ApiError::NotFound {
                endpoint,
                url: url.to_string(),
                others_answered: false,
            }),
            300..=399 => Failure::fatal(ApiError::Redirected {
                endpoint,
                location: headers
                    .get(header::LOCATION)
                    .map(|l| {
                        excerpt(
                            &self.key.redact(&String::from_utf8_lossy(l.as_bytes())),
                            200,
                        )
                    })
                    .unwrap_or_else(|| "(no Location header)".into()),
            }),
            _ => {
                // Worth another try: a 429 or a 5xx, after its Retry-After if it has one.
                let retryable = matches!(code, 429 | 500..=599);
                let retry_after = retry_after(headers).filter(|_| retryable);
                if let Some(after) = retry_after
                    && after > self.options.retry.max_retry_after
                {
                    return Failure::fatal(ApiError::RetryAfterTooLong {
                        endpoint,
                        seconds: after.as_secs(),
                        limit: self.options.retry.max_retry_after.as_secs(),
                    });
                }
                Failure {
                    error: ApiError::Status {
                        endpoint,
                        status: code,
                        detail,
                    },
                    retryable,
                    retry_after,
                }
            }
        }
    }
}

fn content_type(headers: &HeaderMap) -> String {
    headers
        .get(header::CONTENT_TYPE)
        .map(|v| excerpt(&String::from_utf8_lossy(v.as_bytes()), 80))
        .unwrap_or_else(|| "a body with no content type".into())
}

fn same_origin(base: &Url, target: &Url) -> bool {
    let same_host = base.host_str() == target.host_str();
    let upgrade = base.scheme() == "http" && target.scheme() == "https";
    same_host
        && (upgrade
            || (base.scheme() == target.scheme()
                && base.port_or_known_default() == target.port_or_known_default()))
}

pub fn parse_base_url(text: &str) -> Result<Url, ApiError> {
    crate::settings::check_base_url(text).map_err(|reason| ApiError::BadBaseUrl {
        url: excerpt(text, 200),
        reason,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_url_keeps_its_path() {
        let key = ApiKey::new("k3y-for-url-tests-0123").unwrap();
        for (base, expected) in [
            (
                "https://vatcar.net",
                "https://vatcar.net/api/v2/facility/roster",
            ),
            (
                "https://vatcar.net/",
                "https://vatcar.net/api/v2/facility/roster",
            ),
            (
                "https://vatcar.net/public",
                "https://vatcar.net/public/api/v2/facility/roster",
            ),
            (
                "https://vatcar.net/public/",
                "https://vatcar.net/public/api/v2/facility/roster",
            ),
        ] {
            let client = ApiClient::new(ClientOptions {
                base_url: base.into(),
                api_key: Some(key.clone()),
                ..ClientOptions::default()
            })
            .unwrap();
            assert_eq!(
                client.inner.url(Endpoint::FacilityRoster).as_str(),
                expected
            );
        }
    }

    #[test]
    fn unsafe_base_urls_are_refused() {
        for bad in [
            "http://vatcar.net",
            "ftp://vatcar.net",
            "vatcar.net",
            "https://vatcar.net/?x=1",
            "https://user:pw@vatcar.net",
        ] {
            assert!(
                matches!(parse_base_url(bad), Err(ApiError::BadBaseUrl { .. })),
                "{bad}"
            );
        }
        for good in [
            "http://127.0.0.1:8080",
            "http://localhost:1",
            "http://[::1]:9",
        ] {
            assert!(parse_base_url(good).is_ok(), "{good}");
        }
    }

    #[test]
    fn redirects_stay_on_the_origin() {
        let base = Url::parse("http://127.0.0.1:8080/api").unwrap();
        let same = Url::parse("http://127.0.0.1:8080/other").unwrap();
        let other_port = Url::parse("http://127.0.0.1:9090/").unwrap();
        let other_host = Url::parse("http://evil.example/").unwrap();
        assert!(same_origin(&base, &same));
        assert!(!same_origin(&base, &other_port));
        assert!(!same_origin(&base, &other_host));
        let https = Url::parse("https://vatcar.net/").unwrap();
        assert!(same_origin(
            &Url::parse("http://vatcar.net/").unwrap(),
            &https
        ));
        assert!(!same_origin(
            &https,
            &Url::parse("http://vatcar.net/").unwrap()
        ));
    }
}
