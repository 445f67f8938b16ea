//! The web addresses a setting or a flag may hold, and why each is refused: the API's (which
//! is sent the key), the site's own (written into every page), a published site's (read for
//! What's new) and those of `[live]` (written into the pages' Content-Security-Policy).

use crate::sanitize::links::as_folder;
use crate::secret::without_userinfo;

/// An API address a key may be sent to: https, or plain http to this machine only.
pub fn check_base_url(text: &str) -> Result<url::Url, String> {
    let url = url::Url::parse(text.trim()).map_err(|e| e.to_string())?;
    match url.scheme() {
        "https" => {}
        "http" if is_loopback(&url) => {}
        "http" => return Err("plain http would send the API key unencrypted; use https".into()),
        _ => return Err("expected an http(s) URL".into()),
    }
    if url.host().is_none() {
        return Err("no host".into());
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err("a base URL takes no query or fragment".into());
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("a base URL takes no user name or password".into());
    }
    Ok(url)
}

/// `[activity] api`: VATSIM's Core API, read with no key: https, or plain http to this
/// machine only (tests, local mirrors), as every public file is read; with no user name,
/// password, query or fragment, since the paths are added to it.
pub fn parse_core_api_url(text: &str) -> Result<url::Url, String> {
    let shown = without_userinfo(text.trim());
    let url = web_address(text.trim())?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err("the address holds a user name or password; leave them out".into());
    }
    if url.scheme() == "http" && !is_loopback(&url) {
        return Err(format!(
            "{shown:?}: the Core API is read over https (http only on this machine)"
        ));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(format!("{shown:?} takes no query or fragment"));
    }
    // The paths are added below it: `https://x/core` reads `https://x/core/v2/...`.
    Ok(as_folder(&url))
}

/// `text` as an http(s) address with a host, else an error quoting it (without a user name or
/// password).
fn web_address(text: &str) -> Result<url::Url, String> {
    let shown = without_userinfo(text);
    match url::Url::parse(text) {
        Ok(url) if matches!(url.scheme(), "http" | "https") && url.host().is_some() => Ok(url),
        _ => Err(format!("{shown:?} is not an http(s) address")),
    }
}

fn is_loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(domain)) => domain.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// An http(s) address with a trailing slash and no user name or password, for `--site-url`
/// and `site_url`: it is written into the pages, the sitemap and the feeds.
pub fn parse_site_url(text: &str) -> Result<url::Url, String> {
    let url = parse_previous_url(text)?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(
            "the address holds a user name or password, which would be published in every page; leave them out"
                .into(),
        );
    }
    Ok(url)
}

/// A published site's address, as [`parse_site_url`] reads it, for `--previous`: a user name
/// and password in it are sent to read the site, and never printed.
pub fn parse_previous_url(text: &str) -> Result<url::Url, String> {
    let shown = without_userinfo(text);
    let url = url::Url::parse(text.trim()).map_err(|e| format!("{shown:?} is not a URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(format!("{shown:?} is not an http(s) address"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(format!("{shown:?}: a site URL takes no query or fragment"));
    }
    Ok(as_folder(&url))
}

/// An address of `[live]`, or `--bookings-url`: http(s), with a host name (or IP address) as
/// DNS writes it, no user name or password, and none of the characters that end or split a
/// Content-Security-Policy's source list (`;` `,` quotes, white space): the feed's origin is
/// written into the policy of the pages that read it.
pub fn parse_live_url(text: &str) -> Result<url::Url, String> {
    let text = text.trim();
    if let Some(c) = text
        .chars()
        .find(|c| matches!(c, ';' | ',' | '\'' | '"') || c.is_whitespace() || c.is_control())
    {
        let (name, escaped) = match c {
            ';' => ("a \";\"".to_owned(), Some("%3B")),
            ',' => ("a comma".to_owned(), Some("%2C")),
            '\'' => ("a quote".to_owned(), Some("%27")),
            '"' => ("a double quote".to_owned(), Some("%22")),
            ' ' => ("a space".to_owned(), Some("%20")),
            c if c.is_whitespace() => (format!("white space (U+{:04X})", u32::from(c)), None),
            c => (
                format!("a control character (U+{:04X})", u32::from(c)),
                None,
            ),
        };
        let instead = match escaped {
            Some(code) => {
                format!(": a host name has none, and in a path or query write it as {code}")
            }
            None => "; leave it out".to_owned(),
        };
        return Err(format!(
            "{:?} holds {name}, which an address here may not hold{instead}",
            without_userinfo(text)
        ));
    }
    let url = web_address(text)?;
    if !url.username().is_empty() || url.password().is_some() {
        // Not quoted: the password is a secret.
        return Err(
            "the address holds a user name or password, which would be published; leave them out"
                .into(),
        );
    }
    if let Some(host) = url.host()
        && !is_host_name(&host)
    {
        return Err(format!(
            "{text:?}: {:?} is not a host name; write one of letters, digits, hyphens and dots (such as \"data.vatsim.net\"), or an IP address",
            host.to_string()
        ));
    }
    Ok(url)
}

/// Whether `host` is an IP address, or a name as DNS writes it (the url crate has made an
/// international name its ASCII form): labels of letters, digits and hyphens, none empty.
/// Only such a host may go into a Content-Security-Policy as a source.
pub fn is_host_name(host: &url::Host<&str>) -> bool {
    match host {
        url::Host::Ipv4(_) | url::Host::Ipv6(_) => true,
        url::Host::Domain(name) => {
            name.len() <= 253
                && name.split('.').all(|label| {
                    !label.is_empty()
                        && label.len() <= 63
                        && !label.starts_with('-')
                        && !label.ends_with('-')
                        && label
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
                })
        }
    }
}
