//! URLs from the API made safe to put in a page: only http(s), relative ones resolved against
//! the API's base URL, and characters that are not allowed in a URL (spaces, above all)
//! percent-encoded. Anything else (`javascript:`, `data:`, garbage) is dropped.

use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
use url::Url;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SafeLink {
    /// Ready for an `href` or `src` attribute (still to be HTML-escaped by the template).
    pub href: String,
    /// The host it points to.
    pub host: String,
    /// Not on the API's host.
    pub external: bool,
}

/// `raw` as a safe absolute link, or `None`.
///
/// An absolute http(s) URL is kept as given, only percent-encoding what a URL cannot contain.
/// A URL without a scheme (`/storage/x.pdf` or `storage/x.pdf`) is resolved against `base`,
/// taken as a folder (so `https://vatcar.net/public` + `storage/x` is `.../public/storage/x`,
/// and `/storage/x` is `https://vatcar.net/storage/x`).
pub fn safe_link(raw: &str, base: &Url) -> Option<SafeLink> {
    let raw = raw.trim();
    // Browsers drop tabs and newlines inside URLs, which hides schemes like `java\tscript:`.
    if raw.chars().any(char::is_control) {
        return None;
    }
    let encoded = utf8_percent_encode(raw, UNSAFE).to_string();
    if encoded.is_empty() || encoded.starts_with("//") {
        return None;
    }
    let has_scheme = encoded.split_once(':').is_some_and(|(scheme, _)| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    });
    let (href, parsed) = if has_scheme {
        let parsed = Url::parse(&encoded).ok()?;
        (encoded, parsed)
    } else {
        let parsed = as_folder(base).join(&encoded).ok()?;
        (parsed.to_string(), parsed)
    };
    if !matches!(parsed.scheme(), "http" | "https") {
        return None;
    }
    let host = parsed.host_str()?.to_owned();
    Some(SafeLink {
        external: base.host_str() != Some(host.as_str()),
        host,
        href,
    })
}

/// `base` taken as a folder, its path ending in `/`: what a relative link is resolved against.
pub fn as_folder(base: &Url) -> Url {
    let mut folder = base.clone();
    if !folder.path().ends_with('/') {
        let path = format!("{}/", folder.path());
        folder.set_path(&path);
    }
    folder
}

/// `raw` as the source of an image on a page: a [`safe_link`] over https only, since an
/// image loads by itself when the page opens.
pub fn safe_image(raw: &str, base: &Url) -> Option<SafeLink> {
    safe_link(raw, base).filter(|link| link.href.starts_with("https://"))
}

/// The bytes that may not appear in a URL, percent-encoded by [`safe_link`] (with every byte
/// of a character beyond ASCII); everything else, existing `%XX` escapes included, is left
/// alone.
const UNSAFE: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'<')
    .add(b'>')
    .add(b'\\')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Url {
        Url::parse("https://vatcar.net").unwrap()
    }

    fn href(raw: &str) -> Option<String> {
        safe_link(raw, &base()).map(|l| l.href)
    }

    #[test]
    fn spaces_are_encoded_and_absolute_urls_kept_as_given() {
        assert_eq!(
            href("https://vatcar.net/storage/files/TJSJ Tower SOP v3.2.pdf").as_deref(),
            Some("https://vatcar.net/storage/files/TJSJ%20Tower%20SOP%20v3.2.pdf")
        );
        assert_eq!(
            href("https://docs.google.com/document/d/1AbC/edit?usp=sharing#h.1").as_deref(),
            Some("https://docs.google.com/document/d/1AbC/edit?usp=sharing#h.1")
        );
        assert_eq!(
            href("https://example.org/a%20b").as_deref(),
            Some("https://example.org/a%20b")
        );
        assert_eq!(
            href("https://example.org/café").as_deref(),
            Some("https://example.org/caf%C3%A9")
        );
    }

    #[test]
    fn relative_urls_resolve_against_the_base() {
        assert_eq!(
            href("/storage/files/TJZS-TTZP LOA.pdf").as_deref(),
            Some("https://vatcar.net/storage/files/TJZS-TTZP%20LOA.pdf")
        );
        assert_eq!(
            href("storage/files/Radar Vectoring Guide.pdf").as_deref(),
            Some("https://vatcar.net/storage/files/Radar%20Vectoring%20Guide.pdf")
        );
        let public = Url::parse("https://vatcar.net/public").unwrap();
        assert_eq!(
            safe_link("storage/x.pdf", &public).unwrap().href,
            "https://vatcar.net/public/storage/x.pdf"
        );
    }

    #[test]
    fn external_hosts_are_marked() {
        assert!(!safe_link("/a.pdf", &base()).unwrap().external);
        let google = safe_link("https://docs.google.com/x", &base()).unwrap();
        assert!(google.external);
        assert_eq!(google.host, "docs.google.com");
    }

    #[test]
    fn other_schemes_are_dropped() {
        for bad in [
            "javascript:alert(1)",
            "JavaScript:alert(1)",
            " javascript:alert(1)",
            "java\tscript:alert(1)",
            "data:text/html;base64,PHNjcmlwdD4=",
            "vbscript:msgbox",
            "file:///etc/passwd",
            "mailto:x@example.com",
            "//evil.example/x",
            "",
            "https://",
        ] {
            assert_eq!(href(bad), None, "{bad:?}");
        }
    }
}
