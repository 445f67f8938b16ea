//! The webhook: its address, a secret like the API key, and the posts to it, within
//! Discord's rate limits.
//!
//! Whoever has the address can post to the channel, so it is handled as the key is: known to
//! the logger before anything could print it (every message is scrubbed of it, and of its
//! path alone, which holds Discord's token), never quoted in an error, and reqwest's errors
//! are taken without the address they carry.
//!
//! - Any `https://` address is accepted (Discord, or a relay); `http://` only to 127.0.0.1,
//!   for tests and relays on the same machine. Redirects are not followed: a POST is not sent
//!   on to another address.
//! - A 429 is waited out for the `retry_after` it gives, up to [`MAX_WAIT`]; a longer one
//!   stops the run. `X-RateLimit-Remaining: 0` pauses for `X-RateLimit-Reset-After` before
//!   the next post, so that a long list does not run into 429s at all.
//! - A 5xx or a connection that could not be made is retried [`SERVER_RETRIES`] times, with
//!   growing pauses. A timeout or a connection broken off after the post was sent is not:
//!   the post may have arrived, and a second one would post it twice.

use crate::cmd::args::DEFAULT_WEBHOOK_VARIABLE;
use crate::secret::{ApiKey, Secrets};
use crate::usage::UsageError;
use anyhow::{Context, Result, anyhow, bail};
use reqwest::header::{self, HeaderMap};
use std::time::Duration;

/// The longest wait Discord may ask for before the run stops instead.
pub const MAX_WAIT: Duration = Duration::from_secs(60);
/// How often a 5xx or a failed connection is retried.
const SERVER_RETRIES: u32 = 3;
/// How often one message may meet a 429 before the run stops.
const RATE_LIMIT_RETRIES: u32 = 5;
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
const TIMEOUT: Duration = Duration::from_secs(30);

/// The webhook's address, checked. Never printed (no `Display`, and `Debug` hides it).
pub struct Webhook(reqwest::Url);

impl std::fmt::Debug for Webhook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Webhook([REDACTED])")
    }
}

impl Webhook {
    /// Makes the address in `DISCORD_WEBHOOK_URL`, if there is one, known to the logger,
    /// whichever command runs: a webhook set beside a build is as secret as the key.
    pub fn know_default() {
        know(&std::env::var(DEFAULT_WEBHOOK_VARIABLE).unwrap_or_default());
    }

    /// Adds the address in `DISCORD_WEBHOOK_URL`, if there is one, to the secrets no
    /// published file may hold: a page holding it would hand the channel to every visitor.
    /// That variable is the one workflows set; a build cannot know which other one a later
    /// `announce --webhook-env` will read.
    pub fn guard_default(secrets: &mut Secrets) {
        let raw = std::env::var(DEFAULT_WEBHOOK_VARIABLE).unwrap_or_default();
        let what = format!("the Discord webhook's address ({DEFAULT_WEBHOOK_VARIABLE})");
        for part in secret_parts(&raw) {
            secrets.guard(part, &what);
        }
    }

    /// The address in the environment variable `name`, made known to the logger first.
    pub fn from_env(name: &str) -> Result<Self> {
        // A name that is not one is most likely the address itself, given to the flag: it is
        // known to the logger and never repeated.
        let is_name = !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !is_name {
            know(name);
            bail!(UsageError(
                "--webhook-env takes the name of an environment variable (letters, digits and _), not the address itself: put the address in DISCORD_WEBHOOK_URL, or in the variable you name".into()
            ));
        }
        let raw = match std::env::var(name) {
            Ok(raw) if !raw.trim().is_empty() => raw,
            Ok(_) | Err(std::env::VarError::NotPresent) => bail!(UsageError(format!(
                "{name} is not set: announce posts to the Discord webhook whose address it holds (in Discord: channel settings > Integrations > Webhooks > Copy Webhook URL; in GitHub Actions, a repository secret); or pass --dry-run to see what would be posted"
            ))),
            Err(std::env::VarError::NotUnicode(_)) => {
                bail!(UsageError(format!(
                    "{name} holds something that is not text, so no web address"
                )))
            }
        };
        know(&raw);
        Self::parse(&raw).map_err(|reason| anyhow!(UsageError(format!("{name}: {reason}"))))
    }

    /// The address checked; the reason it is refused never quotes it.
    fn parse(raw: &str) -> Result<Self, String> {
        let url = reqwest::Url::parse(raw.trim()).map_err(|_| {
            "is not a web address (the webhook's address starts with https://)".to_owned()
        })?;
        let loopback = url.host_str() == Some("127.0.0.1");
        match url.scheme() {
            "https" if url.host().is_some() => Ok(Self(url)),
            "http" if loopback => Ok(Self(url)),
            "http" => Err("is an http:// address; a webhook's address must start with https:// (http:// is accepted only for 127.0.0.1, for a relay on this machine)".into()),
            _ => Err("is not an https:// address; the webhook's address starts with https://".into()),
        }
    }
}

/// Makes the address `raw` ([`secret_parts`]) known to the logger, so that no message prints
/// it.
fn know(raw: &str) {
    for secret in secret_parts(raw) {
        super::super::console::know(secret);
    }
}

/// What of an address must stay secret, each part alone: the whole address, as given and as
/// parsed (which may differ in case and escapes), its path, its last segment (Discord's
/// token, which alone lets anyone post) and its query (where a relay may take its key). Text
/// too short to hold a secret (`ApiKey` refuses under 16 characters) could not be told from
/// ordinary words, and is left out.
fn secret_parts(raw: &str) -> Vec<ApiKey> {
    let mut parts = vec![raw.trim().to_owned()];
    if let Ok(url) = reqwest::Url::parse(raw.trim()) {
        parts.push(url.as_str().to_owned());
        parts.push(url.path().to_owned());
        parts.extend((url.path_segments().and_then(|mut s| s.next_back())).map(str::to_owned));
        parts.extend(url.query().map(str::to_owned));
    }
    parts
        .iter()
        .filter_map(|part| ApiKey::new(part).ok())
        .collect()
}

/// Posts to one webhook, one message at a time.
pub struct Poster {
    http: reqwest::Client,
    runtime: tokio::runtime::Runtime,
    url: reqwest::Url,
    /// A pause the last answer asked for before the next post.
    pause: Option<Duration>,
}

/// Why a post failed, and whether the run may try it again.
enum Attempt {
    Retry { reason: String },
    RateLimited { wait: Duration },
    Fatal(anyhow::Error),
}

impl Poster {
    pub fn new(webhook: Webhook) -> Result<Self> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .user_agent(crate::fetch::public::USER_AGENT)
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| anyhow!("could not set up the HTTP client: {}", e.without_url()))?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        Ok(Self {
            http,
            runtime,
            url: webhook.0,
            pause: None,
        })
    }

    /// Posts `message` as JSON, waiting out rate limits and retrying server errors.
    pub fn post(&mut self, message: &super::embeds::Message) -> Result<()> {
        let body = serde_json::to_vec(message).context("could not write the message")?;
        if let Some(pause) = self.pause.take() {
            log::info!(
                "pausing {:.1} s: Discord's rate limit for this webhook is used up until then",
                pause.as_secs_f64()
            );
            std::thread::sleep(pause);
        }
        let (mut server_tries, mut limited) = (0, 0);
        loop {
            match self.attempt(&body) {
                Ok(()) => return Ok(()),
                Err(Attempt::Fatal(error)) => return Err(error),
                Err(Attempt::RateLimited { wait }) => {
                    limited += 1;
                    if limited > RATE_LIMIT_RETRIES {
                        bail!(
                            "Discord kept answering 429 (too many requests) after {RATE_LIMIT_RETRIES} waits"
                        );
                    }
                    log::warn!(
                        "Discord answered 429 (too many requests); waiting {:.2} s as it asks",
                        wait.as_secs_f64()
                    );
                    std::thread::sleep(wait);
                }
                Err(Attempt::Retry { reason }) => {
                    server_tries += 1;
                    if server_tries > SERVER_RETRIES {
                        bail!("{reason}, {} times; try again later", SERVER_RETRIES + 1);
                    }
                    let wait = Duration::from_millis(500) * 2u32.pow(server_tries - 1);
                    log::warn!("{reason}; retrying in {:.1} s", wait.as_secs_f64());
                    std::thread::sleep(wait);
                }
            }
        }
    }

    fn attempt(&mut self, body: &[u8]) -> Result<(), Attempt> {
        let request = self
            .http
            .post(self.url.clone())
            .header(header::CONTENT_TYPE, "application/json")
            .body(body.to_vec());
        let outcome = self.runtime.block_on(async {
            let mut response = request.send().await?;
            let status = response.status();
            let headers = response.headers().clone();
            // Discord's answers are small; a relay's should be too.
            let mut answer = Vec::new();
            while let Some(chunk) = response.chunk().await? {
                if answer.len() < 64 * 1024 {
                    answer.extend_from_slice(&chunk);
                }
            }
            Ok::<_, reqwest::Error>((status, headers, answer))
        });
        let (status, headers, answer) = match outcome {
            Ok(parts) => parts,
            Err(error) if error.is_timeout() => {
                return Err(Attempt::Fatal(anyhow!(
                    "the webhook did not answer within {} s; the message may or may not have been posted, so it is not sent again",
                    TIMEOUT.as_secs()
                )));
            }
            // Nothing was sent: trying again cannot post twice.
            Err(error) if error.is_connect() => {
                return Err(Attempt::Retry {
                    reason: format!(
                        "could not reach the webhook: {}",
                        crate::fetch::public::innermost(&error.without_url())
                    ),
                });
            }
            Err(error) => {
                return Err(Attempt::Fatal(anyhow!(
                    "the connection to the webhook broke off ({}); the message may or may not have been posted, so it is not sent again",
                    crate::fetch::public::innermost(&error.without_url())
                )));
            }
        };
        self.pause = rate_limit_pause(&headers);
        let code = status.as_u16();
        match code {
            200..=299 => Ok(()),
            429 => {
                let wait = retry_after(&answer, &headers).unwrap_or(Duration::from_secs(1));
                if wait > MAX_WAIT {
                    return Err(Attempt::Fatal(anyhow!(
                        "Discord asked to wait {:.0} s before posting again (429), more than the {} s announce waits; run it again later",
                        wait.as_secs_f64(),
                        MAX_WAIT.as_secs()
                    )));
                }
                Err(Attempt::RateLimited { wait })
            }
            500..=599 => Err(Attempt::Retry {
                reason: format!("the webhook answered {code}{}", detail(&answer)),
            }),
            401 | 403 | 404 => Err(Attempt::Fatal(anyhow!(
                "the webhook answered {code}{}: it was deleted, or its address is wrong or incomplete; copy it again from the channel's settings",
                detail(&answer)
            ))),
            _ => Err(Attempt::Fatal(anyhow!(
                "the webhook answered {code}{}",
                detail(&answer)
            ))),
        }
    }
}

/// How long a 429 asks to wait: the body's `retry_after` (seconds, with a fraction), else the
/// `Retry-After` header (whole seconds).
fn retry_after(body: &[u8], headers: &HeaderMap) -> Option<Duration> {
    #[derive(serde::Deserialize)]
    struct Limited {
        retry_after: f64,
    }
    let from_body = serde_json::from_slice::<Limited>(body)
        .ok()
        .map(|l| l.retry_after);
    let from_header = || header_seconds(headers, header::RETRY_AFTER.as_str());
    seconds(from_body.or_else(from_header)?)
}

/// The pause before the next post when this answer used up the rate limit's bucket.
fn rate_limit_pause(headers: &HeaderMap) -> Option<Duration> {
    let remaining = header_seconds(headers, "x-ratelimit-remaining")?;
    if remaining > 0.0 {
        return None;
    }
    let reset = seconds(header_seconds(headers, "x-ratelimit-reset-after")?)?;
    Some(reset.min(MAX_WAIT))
}

fn header_seconds(headers: &HeaderMap, name: &str) -> Option<f64> {
    headers.get(name)?.to_str().ok()?.trim().parse().ok()
}

/// A number of seconds as a wait: finite and not negative.
fn seconds(value: f64) -> Option<Duration> {
    (0.0..1e9)
        .contains(&value)
        .then(|| Duration::from_secs_f64(value))
}

/// Discord's `message` from an error body, shortened; nothing of a body that has none.
fn detail(body: &[u8]) -> String {
    #[derive(serde::Deserialize)]
    struct Reported {
        message: String,
    }
    match serde_json::from_slice::<Reported>(body) {
        Ok(reported) => format!(
            " ({})",
            crate::sanitize::quote::excerpt(&reported.message, 200)
        ),
        Err(_) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn https_anywhere_and_http_only_to_127_0_0_1() {
        assert!(Webhook::parse("https://discord.com/api/webhooks/1/tok").is_ok());
        assert!(Webhook::parse(" https://relay.example/hook\n").is_ok());
        assert!(Webhook::parse("http://127.0.0.1:9/hook").is_ok());
        for refused in [
            "http://discord.com/api/webhooks/1/token-abcdefghijkl",
            "http://localhost:9/hook-abcdefghijkl",
            "ftp://relay.example/hook-abcdefghijkl",
            "discord.com/api/webhooks/1/token-abcdefghijkl",
        ] {
            let reason = Webhook::parse(refused).unwrap_err();
            assert!(!reason.contains("token-abcdefghijkl") && !reason.contains("hook-abc"));
        }
    }

    #[test]
    fn discords_waits_are_read_from_the_body_and_the_headers() {
        let mut headers = HeaderMap::new();
        assert_eq!(
            retry_after(
                br#"{"message":"You are being rate limited.","retry_after":0.25,"global":false}"#,
                &headers
            ),
            Some(Duration::from_millis(250))
        );
        headers.insert(header::RETRY_AFTER, HeaderValue::from_static("2"));
        assert_eq!(retry_after(b"", &headers), Some(Duration::from_secs(2)));
        assert_eq!(
            retry_after(br#"{"retry_after":-1}"#, &HeaderMap::new()),
            None
        );

        headers.insert("x-ratelimit-remaining", HeaderValue::from_static("0"));
        headers.insert("x-ratelimit-reset-after", HeaderValue::from_static("1.5"));
        assert_eq!(
            rate_limit_pause(&headers),
            Some(Duration::from_millis(1500))
        );
        headers.insert("x-ratelimit-reset-after", HeaderValue::from_static("3600"));
        assert_eq!(rate_limit_pause(&headers), Some(MAX_WAIT));
        headers.insert("x-ratelimit-remaining", HeaderValue::from_static("4"));
        assert_eq!(rate_limit_pause(&headers), None);
    }
}
