//! The previous build's public state (`data/changes.json` and `data/roster.json`), raw: from
//! the output folder's last build, or from the published site (`--previous URL`), where a
//! CI run that starts from an empty folder finds it. `model::previous` checks what it holds.
//!
//! Whatever goes wrong here is a reason, never an error: the caller warns and builds as a
//! first build. No key or other secret is sent: the files are public.

use std::path::PathBuf;
use std::time::Duration;
use url::Url;

/// The largest file read: a roster of 10,000 members is about 2 MiB.
pub const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// How long reading the published site may take, in all.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// The two files, below the site's root.
pub const CHANGES: &str = "data/changes.json";
pub const ROSTER: &str = "data/roster.json";

/// Where the previous build is.
#[derive(Clone, Debug)]
pub enum Place {
    /// The output folder of the last build.
    Folder(PathBuf),
    /// The published site's address, with a trailing slash.
    Site(Url),
    /// The demo's day before, built into the program (`demo/previous/`, written by its
    /// `make.py`), so that `build --demo` shows What's new at work.
    Demo,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Folder(dir) => write!(f, "{}", dir.display()),
            Place::Site(url) => f.write_str(&shown(url)),
            Place::Demo => f.write_str("the demo's previous build"),
        }
    }
}

/// The previous build's files as they were read.
#[derive(Clone, Debug)]
pub struct Bodies {
    pub changes: Vec<u8>,
    /// `None` when the previous build published no roster.
    pub roster: Option<Vec<u8>>,
}

/// The files, or why there are none (to be said in a warning).
pub fn read(place: &Place) -> Result<Bodies, String> {
    let (changes, roster) = match place {
        Place::Folder(dir) => (from_folder(dir, CHANGES)?, from_folder(dir, ROSTER)?),
        Place::Site(url) => from_site(url)?,
        Place::Demo => (
            Some(include_bytes!("../../demo/previous/changes.json").to_vec()),
            Some(include_bytes!("../../demo/previous/roster.json").to_vec()),
        ),
    };
    let changes = changes.ok_or_else(|| match place {
        Place::Folder(_) => format!(
            "{place} has no {CHANGES}; where the output folder starts empty, as in CI, pass \
             --previous with the published site's address"
        ),
        _ => format!("{place} has no {CHANGES}"),
    })?;
    Ok(Bodies { changes, roster })
}

/// A file of the folder, without following links (as every file of the user's is read);
/// `None` when it is not there.
fn from_folder(dir: &std::path::Path, file: &str) -> Result<Option<Vec<u8>>, String> {
    let path = dir.join(file);
    // `read_plain` takes a link for a missing file; a link where a build writes a file is
    // said as one, so that the warning does not send the webmaster looking for a lost file.
    let mut step = dir.to_path_buf();
    for part in file.split('/') {
        step.push(part);
        match std::fs::symlink_metadata(&step) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(format!(
                    "{} is a link, which is not followed",
                    step.display()
                ));
            }
            Ok(meta) if step == path && meta.is_file() && meta.len() > MAX_BYTES => {
                return Err(too_large(&path.display().to_string()));
            }
            Ok(_) => {}
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(format!("could not read {}: {error}", step.display())),
        }
    }
    let bytes = crate::plain_files::read_plain(dir, file).map_err(|e| format!("{e:#}"))?;
    match bytes {
        Some(bytes) if bytes.len() as u64 > MAX_BYTES => {
            Err(too_large(&path.display().to_string()))
        }
        other => Ok(other),
    }
}

fn too_large(what: &str) -> String {
    format!(
        "{what} is larger than {} MiB, more than a build writes",
        MAX_BYTES / (1024 * 1024)
    )
}

type Pair = (Option<Vec<u8>>, Option<Vec<u8>>);

/// Both files from the published site, within [`TIMEOUT`].
fn from_site(site: &Url) -> Result<Pair, String> {
    if !may_read(site) {
        return Err(format!("{}: {READ_OVER}", shown(site)));
    }
    let _ = rustls::crypto::ring::default_provider().install_default();
    // Each redirect is held to the rule of the first address, before it is followed: else an
    // https site, or one on this machine, could send the request over plain http elsewhere.
    let redirects = reqwest::redirect::Policy::custom(|attempt| {
        if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error("too many redirects")
        } else if may_read(attempt.url()) {
            attempt.follow()
        } else {
            let error = format!("redirected to {}: {READ_OVER}", shown(attempt.url()));
            attempt.error(error)
        }
    });
    let http = reqwest::Client::builder()
        .user_agent(super::client::USER_AGENT)
        .timeout(TIMEOUT)
        .redirect(redirects)
        .build()
        .map_err(|e| format!("could not set up the HTTP client: {e}"))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("could not start the I/O runtime: {e}"))?;
    let url = |file: &str| {
        site.join(file)
            .map_err(|e| format!("{}{file}: {e}", shown(site)))
    };
    let (changes, roster) = (url(CHANGES)?, url(ROSTER)?);
    runtime.block_on(async {
        let both = async {
            let changes = get(&http, &changes).await?;
            Ok((changes, get(&http, &roster).await?))
        };
        // reqwest's timeout is per request; this one bounds the two together.
        tokio::time::timeout(TIMEOUT, both)
            .await
            .unwrap_or_else(|_| {
                Err(format!(
                    "{} did not answer within {} s",
                    shown(site),
                    TIMEOUT.as_secs()
                ))
            })
    })
}

/// One file's body; `None` on 404 (a site that has no such file).
async fn get(http: &reqwest::Client, url: &Url) -> Result<Option<Vec<u8>>, String> {
    let shown_url = shown(url);
    let failed = |e: reqwest::Error| {
        if e.is_timeout() {
            format!("{shown_url} did not answer within {} s", TIMEOUT.as_secs())
        } else {
            // Without its address: reqwest's own text names the address whole.
            format!(
                "could not read {shown_url}: {}",
                innermost(&e.without_url())
            )
        }
    };
    let mut response = http.get(url.clone()).send().await.map_err(failed)?;
    let status = response.status();
    if status == reqwest::StatusCode::NOT_FOUND {
        return Ok(None);
    }
    if !status.is_success() {
        return Err(format!("{shown_url} answered {}", status.as_u16()));
    }
    if response.content_length().is_some_and(|len| len > MAX_BYTES) {
        return Err(too_large(&shown_url));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(failed)? {
        if (body.len() + chunk.len()) as u64 > MAX_BYTES {
            return Err(too_large(&shown_url));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Some(body))
}

/// `url` as it may be printed: a user name and password in it (`https://user:pass@host/`) are
/// a secret of the webmaster's, and a warning goes to CI logs that others read.
fn shown(url: &Url) -> String {
    let mut url = url.clone();
    // Both fail only for an address that cannot have them (`data:`), which has none to hide.
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.to_string()
}

/// How many redirects are followed from each file's address.
const MAX_REDIRECTS: usize = 5;

/// The rule [`may_read`] holds every address to, as a warning says it.
const READ_OVER: &str = "the previous site is read over https (http only on this machine)";

/// Whether the previous site may be read at `url`: the address given, and each one it
/// redirects to. Plain http could be read, or answered, by anyone on the way.
fn may_read(url: &Url) -> bool {
    url.scheme() == "https" || url.scheme() == "http" && is_loopback(url)
}

fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(name)) => name == "localhost",
        None => false,
    }
}

fn innermost(error: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = error;
    while let Some(next) = cause.source() {
        cause = next;
    }
    cause.to_string()
}

#[cfg(test)]
mod tests {
    use super::{may_read, shown};
    use url::Url;

    #[test]
    fn the_previous_site_is_read_over_https_or_over_http_on_this_machine_only() {
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

    #[test]
    fn an_address_is_shown_without_its_user_name_and_password() {
        let url = Url::parse("https://webmaster:s3cret@example.org:8443/site/").unwrap();
        assert_eq!(shown(&url), "https://example.org:8443/site/");
        let url = Url::parse("https://token@example.org/").unwrap();
        assert_eq!(shown(&url), "https://example.org/");
    }
}
