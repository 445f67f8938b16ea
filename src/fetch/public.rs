//! Public files read over HTTP with no key and no other secret: the previous build's data
//! (`--previous`, [`super::previous`]), the ATC bookings list ([`super::bookings`]) and the
//! members' ATC sessions ([`super::activity`]). One
//! rule for where they may be read from, held at the address given and at every address it
//! redirects to ([`may_read`]); a size cap and a time limit on everything read.
//!
//! What goes wrong is a reason, never an error: each caller warns and builds without.

use crate::secret::shown_url;
use std::time::Duration;
use url::Url;

/// How vatcar-site names itself to every server it asks, the API's and others'.
pub const USER_AGENT: &str = concat!("vatcar-site/", env!("CARGO_PKG_VERSION"));

/// How many redirects are followed from each address.
const MAX_REDIRECTS: usize = 5;

/// Whether a public file may be read at `url`: the address given, and each one it redirects
/// to. Plain http could be read, or answered, by anyone on the way, so it is taken only to
/// this machine (tests, local mirrors).
pub fn may_read(url: &Url) -> bool {
    url.scheme() == "https" || url.scheme() == "http" && is_loopback(url)
}

/// The rule [`may_read`] holds every address to, as a warning says it: "the bookings list is
/// read over https (http only on this machine)".
pub fn https_rule(what: &str) -> String {
    format!("{what} is read over https (http only on this machine)")
}

fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(name)) => name == "localhost",
        None => false,
    }
}

/// An HTTP client for public files: no key, no cookie, [`may_read`] held at every redirect.
/// Its client is shared by the tasks its runtime runs, to read at once.
pub struct Reader {
    pub client: PublicClient,
    pub runtime: tokio::runtime::Runtime,
    /// What is read, in messages: "the previous site", "the bookings list".
    what: &'static str,
}

/// A [`Reader`]'s client, which tasks of its runtime share to read at once.
#[derive(Clone)]
pub struct PublicClient {
    http: reqwest::Client,
    /// The largest body; a larger one is refused, whether its length is announced or not.
    max_bytes: u64,
    /// How long everything one [`Reader::get_all`] reads may take, together.
    timeout: Duration,
    /// Each file asked for as the server holds it now, past any cache: see [`Reader::fresh`].
    fresh: Option<String>,
}

/// Why a read failed, and whether the host itself could not be reached (its name did not
/// resolve, or it refused the connection): the other addresses on it need not be tried.
#[derive(Debug)]
pub struct ReadFailure {
    pub reason: String,
    pub host_unreachable: bool,
}

impl Reader {
    pub fn new(what: &'static str, max_bytes: u64, timeout: Duration) -> Result<Self, String> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        // Each redirect is held to the rule of the first address, before it is followed:
        // else an https address, or one on this machine, could send the request over plain
        // http elsewhere.
        let redirects = reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() > MAX_REDIRECTS {
                attempt.error("too many redirects")
            } else if may_read(attempt.url()) {
                attempt.follow()
            } else {
                let error = format!(
                    "redirected to {}: {}",
                    shown_url(attempt.url()),
                    https_rule(what)
                );
                attempt.error(error)
            }
        });
        let http = reqwest::Client::builder()
            .user_agent(USER_AGENT)
            .timeout(timeout)
            .redirect(redirects)
            .build()
            .map_err(|e| format!("could not set up the HTTP client: {e}"))?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("could not start the I/O runtime: {e}"))?;
        Ok(Self {
            client: PublicClient {
                http,
                max_bytes,
                timeout,
                fresh: None,
            },
            runtime,
            what,
        })
    }

    /// Every file asked for as the server holds it now, not as a cache on the way kept it:
    /// with `Cache-Control: no-cache`, which a proxy honours, and at an address no cache can
    /// have kept, `?v=` and `now` (the milliseconds since 1970): a CDN keys its copies by the
    /// whole address, and many ignore a client's `no-cache`. GitHub Pages' CDN keeps a file
    /// up to ten minutes, past the deploy that replaced it.
    pub fn fresh(mut self, now: std::time::SystemTime) -> Self {
        let millis = now
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_millis());
        self.client.fresh = Some(millis.to_string());
        self
    }

    /// Each address's body in turn (`None` for one that answers 404), all within the time
    /// limit together; the first failure is the reason.
    pub fn get_all(&self, urls: &[Url]) -> Result<Vec<Option<Vec<u8>>>, String> {
        if let Some(url) = urls.iter().find(|url| !may_read(url)) {
            return Err(format!("{}: {}", shown_url(url), https_rule(self.what)));
        }
        let timeout = self.client.timeout;
        self.runtime.block_on(async {
            let all = async {
                let mut bodies = Vec::with_capacity(urls.len());
                for url in urls {
                    bodies.push(self.client.get(url).await.map_err(|f| f.reason)?);
                }
                Ok(bodies)
            };
            // reqwest's timeout is per request; this one bounds them together.
            tokio::time::timeout(timeout, all)
                .await
                .unwrap_or_else(|_| {
                    Err(format!(
                        "{} did not answer within {} s",
                        urls.first().map(shown_url).unwrap_or_default(),
                        timeout.as_secs()
                    ))
                })
        })
    }
}

/// What a server answered a [`PublicClient::answer`]: the body, or the status it refused
/// with and the wait its `Retry-After` asks for ([`retry_wait`]).
#[derive(Debug)]
pub enum Answer {
    Body(Vec<u8>),
    Refused {
        status: u16,
        retry_after: Option<Duration>,
    },
}

impl PublicClient {
    /// One body; `None` on 404.
    pub async fn get(&self, url: &Url) -> Result<Option<Vec<u8>>, ReadFailure> {
        match self.answer(url).await? {
            Answer::Body(body) => Ok(Some(body)),
            Answer::Refused { status: 404, .. } => Ok(None),
            Answer::Refused { status, .. } => Err(ReadFailure {
                reason: format!("{} answered {status}", shown_url(url)),
                host_unreachable: false,
            }),
        }
    }

    /// One body, or what the server refused it with (for a caller that waits when told to).
    pub async fn answer(&self, url: &Url) -> Result<Answer, ReadFailure> {
        let address = shown_url(url);
        let failed = |e: reqwest::Error| {
            let host_unreachable = e.is_connect() && !e.is_timeout();
            let reason = if e.is_timeout() {
                format!(
                    "{address} did not answer within {} s",
                    self.timeout.as_secs()
                )
            } else {
                // Without its address: reqwest's own text names the address whole.
                format!("could not read {address}: {}", innermost(&e.without_url()))
            };
            ReadFailure {
                reason,
                host_unreachable,
            }
        };
        let request = match &self.fresh {
            None => self.http.get(url.clone()),
            Some(version) => {
                // Messages name the address as given (`shown_url`), without the query.
                let mut fresh = url.clone();
                fresh.query_pairs_mut().append_pair("v", version);
                (self.http.get(fresh)).header(reqwest::header::CACHE_CONTROL, "no-cache")
            }
        };
        let mut response = request.send().await.map_err(failed)?;
        let status = response.status();
        if !status.is_success() {
            return Ok(Answer::Refused {
                status: status.as_u16(),
                retry_after: retry_after(response.headers()),
            });
        }
        match body_within(&mut response, self.max_bytes).await {
            Ok(Some(body)) => Ok(Answer::Body(body)),
            Ok(None) => Err(ReadFailure {
                reason: too_large(&address, self.max_bytes),
                host_unreachable: false,
            }),
            Err(e) => Err(failed(e)),
        }
    }
}

/// A response's body, `None` as soon as it is known to pass `max_bytes` (announced, or sent).
pub(super) async fn body_within(
    response: &mut reqwest::Response,
    max_bytes: u64,
) -> Result<Option<Vec<u8>>, reqwest::Error> {
    if response.content_length().is_some_and(|len| len > max_bytes) {
        return Ok(None);
    }
    // Sized from the declared length where there is one: grown by doubling, a body of
    // 15 MiB would be copied several times and its buffer left up to twice its size. A
    // server declaring more than it sends reserves address space, not memory.
    let declared = response.content_length().unwrap_or(0).min(max_bytes);
    let mut body = Vec::with_capacity(declared as usize);
    while let Some(chunk) = response.chunk().await? {
        if (body.len() + chunk.len()) as u64 > max_bytes {
            return Ok(None);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Some(body))
}

/// The wait a response's `Retry-After` asks for ([`retry_wait`]), from now.
pub(super) fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let text = headers.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?;
    retry_wait(text, chrono::Utc::now())
}

/// How long a `Retry-After` asks to wait: whole seconds, or an HTTP date (the wait until
/// then from `now`, none for a date past; RFC 9110 10.2.3). `None` for anything else.
pub fn retry_wait(text: &str, now: chrono::DateTime<chrono::Utc>) -> Option<Duration> {
    let text = text.trim();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return text.parse().ok().map(Duration::from_secs);
    }
    let then = chrono::DateTime::parse_from_rfc2822(text).ok()?;
    Some((then.to_utc() - now).to_std().unwrap_or(Duration::ZERO))
}

/// Why a body was refused for its size: "... is larger than 16 MiB".
pub fn too_large(what: &str, max_bytes: u64) -> String {
    format!("{what} is larger than {} MiB", max_bytes / (1024 * 1024))
}

/// The most specific cause of an error (e.g. "Connection refused (os error 111)").
pub fn innermost(error: &(dyn std::error::Error + 'static)) -> String {
    let causes = std::iter::successors(Some(error), |cause| cause.source());
    causes.last().map(ToString::to_string).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::{may_read, retry_wait};
    use std::time::Duration;
    use url::Url;

    #[test]
    fn retry_after_is_seconds_or_an_http_date() {
        let now = chrono::DateTime::parse_from_rfc3339("2026-11-29T12:00:00Z")
            .unwrap()
            .to_utc();
        assert_eq!(retry_wait("0", now), Some(Duration::ZERO));
        assert_eq!(retry_wait(" 7 ", now), Some(Duration::from_secs(7)));
        assert_eq!(
            retry_wait("Sun, 29 Nov 2026 12:00:30 GMT", now),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            retry_wait("Sun, 29 Nov 2026 11:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        // Any number of seconds is read (the callers refuse a wait too long to keep), and
        // only digits, as RFC 9110 writes delay-seconds.
        assert_eq!(
            retry_wait("12345678901", now),
            Some(Duration::from_secs(12_345_678_901))
        );
        for no in ["", "-1", "+7", "1.5", "soon", "99999999999999999999"] {
            assert_eq!(retry_wait(no, now), None, "{no}");
        }
    }

    #[test]
    fn a_public_file_is_read_over_https_or_over_http_on_this_machine_only() {
        for yes in [
            "https://example.org/",
            "https://192.0.2.2/x/",
            "http://127.0.0.1:8080/",
            "http://127.0.0.2/",
            "http://[::1]:8080/",
            "http://localhost/",
        ] {
            assert!(may_read(&Url::parse(yes).unwrap()), "{yes}");
        }
        for no in [
            "http://example.org/",
            "http://192.0.2.2:8080/",
            "http://[2001:db8::1]/",
            "http://localhost.example.org/",
            "ftp://127.0.0.1/",
            "file:///etc/passwd",
        ] {
            assert!(!may_read(&Url::parse(no).unwrap()), "{no}");
        }
    }
}
