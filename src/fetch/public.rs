//! Public files read over HTTP with no key and no other secret: the previous build's data
//! (`--previous`, [`super::previous`]) and the ATC bookings list ([`super::bookings`]). One
//! rule for where they may be read from, held at the address given and at every address it
//! redirects to ([`may_read`]); a size cap and a time limit on everything read.
//!
//! What goes wrong is a reason, never an error: each caller warns and builds without.

use crate::secret::shown_url;
use std::time::Duration;
use url::Url;

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
pub fn read_over(what: &str) -> String {
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

/// What one reader may read.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The largest body; a larger one is refused, whether its length is announced or not.
    pub max_bytes: u64,
    /// How long everything one [`Reader::get_all`] reads may take, together.
    pub timeout: Duration,
}

/// An HTTP client for public files: no key, no cookie, [`may_read`] held at every redirect.
pub struct Reader {
    http: reqwest::Client,
    runtime: tokio::runtime::Runtime,
    limits: Limits,
    /// What is read, in messages: "the previous site", "the bookings list".
    what: &'static str,
}

impl Reader {
    pub fn new(what: &'static str, limits: Limits) -> Result<Self, String> {
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
                    read_over(what)
                );
                attempt.error(error)
            }
        });
        let http = reqwest::Client::builder()
            .user_agent(super::client::USER_AGENT)
            .timeout(limits.timeout)
            .redirect(redirects)
            .build()
            .map_err(|e| format!("could not set up the HTTP client: {e}"))?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("could not start the I/O runtime: {e}"))?;
        Ok(Self {
            http,
            runtime,
            limits,
            what,
        })
    }

    /// Each address's body in turn (`None` for one that answers 404), all within the time
    /// limit together; the first failure is the reason.
    pub fn get_all(&self, urls: &[Url]) -> Result<Vec<Option<Vec<u8>>>, String> {
        for url in urls {
            if !may_read(url) {
                return Err(format!("{}: {}", shown_url(url), read_over(self.what)));
            }
        }
        let timeout = self.limits.timeout;
        self.runtime.block_on(async {
            let all = async {
                let mut bodies = Vec::with_capacity(urls.len());
                for url in urls {
                    bodies.push(self.get(url).await?);
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

    /// One body; `None` on 404.
    async fn get(&self, url: &Url) -> Result<Option<Vec<u8>>, String> {
        let address = shown_url(url);
        let limits = self.limits;
        let failed = |e: reqwest::Error| {
            if e.is_timeout() {
                format!(
                    "{address} did not answer within {} s",
                    limits.timeout.as_secs()
                )
            } else {
                // Without its address: reqwest's own text names the address whole.
                format!("could not read {address}: {}", innermost(&e.without_url()))
            }
        };
        let mut response = self.http.get(url.clone()).send().await.map_err(failed)?;
        let status = response.status();
        if status == reqwest::StatusCode::NOT_FOUND {
            return Ok(None);
        }
        if !status.is_success() {
            return Err(format!("{address} answered {}", status.as_u16()));
        }
        let too_large = || too_large(&address, limits.max_bytes);
        if response
            .content_length()
            .is_some_and(|len| len > limits.max_bytes)
        {
            return Err(too_large());
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(failed)? {
            if (body.len() + chunk.len()) as u64 > limits.max_bytes {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
        }
        Ok(Some(body))
    }
}

/// Why a body was refused for its size: "... is larger than 16 MiB".
pub fn too_large(what: &str, max_bytes: u64) -> String {
    format!("{what} is larger than {} MiB", max_bytes / (1024 * 1024))
}

/// The most specific cause of an error (e.g. "Connection refused (os error 111)").
pub fn innermost(error: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = error;
    while let Some(next) = cause.source() {
        cause = next;
    }
    cause.to_string()
}

#[cfg(test)]
mod tests {
    use super::may_read;
    use url::Url;

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
