//! Answering a request from the output folder, as a static host would, with the live-reload
//! script added to each HTML page on its way out.

use super::MAX_URL;
use super::live;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use std::io::Read;
use std::path::{Component, Path, PathBuf};

pub(super) type Response = tiny_http::ResponseBox;

#[derive(Debug, PartialEq)]
enum Resolved {
    /// A regular file inside the root, by its real path.
    File(PathBuf),
    /// A folder asked for without its trailing slash: where it is with one.
    Redirect(String),
    NotFound,
    BadRequest,
    UriTooLong,
}

/// A static host's behaviour: `/dir/` serves `dir/index.html`, `/dir` redirects to `/dir/`,
/// anything else missing is a 404 with `404.html`. HTML pages carry the live-reload script
/// for `generation`, the build being served.
pub(super) fn respond(root: &Path, url: &str, generation: u64) -> Response {
    match resolve(root, url) {
        Resolved::File(path) => {
            file(&path, 200, generation).unwrap_or_else(|| not_found(root, generation))
        }
        Resolved::Redirect(location) => {
            let header = tiny_http::Header::from_bytes("Location", location)
                .expect("a percent-encoded location is a valid header");
            tiny_http::Response::empty(301).with_header(header).boxed()
        }
        Resolved::NotFound => not_found(root, generation),
        Resolved::BadRequest => status(400),
        Resolved::UriTooLong => status(414),
    }
}

/// Maps a request target to what to answer. `root` must be a real path (no symlinks, as
/// `canonicalize` gives). Only regular files whose real path is under `root` are served, so
/// a symlink in the output pointing elsewhere is a 404.
fn resolve(root: &Path, url: &str) -> Resolved {
    if url.len() > MAX_URL {
        return Resolved::UriTooLong;
    }
    let path = url.split(['?', '#']).next().unwrap_or_default();
    if !path.starts_with('/') {
        return Resolved::BadRequest;
    }
    let Ok(decoded) = percent_decode_str(path).decode_utf8() else {
        return Resolved::NotFound;
    };
    // Splitting after decoding makes `%2F` a separator and `%2E%2E` a `..`, which is refused;
    // empty names are skipped, so `//events` is `events` and can never redirect off-host.
    let mut names = Vec::new();
    for name in decoded.split('/').filter(|name| !name.is_empty()) {
        let mut parts = Path::new(name).components();
        let plain = matches!(
            (parts.next(), parts.next()),
            (Some(Component::Normal(_)), None)
        ) && !name.contains(['\0', '\\']);
        if !plain {
            return Resolved::NotFound;
        }
        names.push(name);
    }
    let Some(target) = inside(root, &root.join(names.iter().collect::<PathBuf>())) else {
        return Resolved::NotFound;
    };
    let slash = decoded.ends_with('/');
    if target.is_dir() {
        if !slash {
            // Built from the checked names alone: the query means nothing to static files,
            // and leaving it out keeps the header free of anything the client wrote raw.
            let mut location = String::from("/");
            for name in &names {
                location.extend(utf8_percent_encode(name, PATH_NAME));
                location.push('/');
            }
            return Resolved::Redirect(location);
        }
        return match inside(root, &target.join("index.html")) {
            Some(index) if index.is_file() => Resolved::File(index),
            _ => Resolved::NotFound,
        };
    }
    if target.is_file() && !slash {
        Resolved::File(target)
    } else {
        Resolved::NotFound
    }
}

/// Everything but unreserved characters, so a name read back from a location is the name.
const PATH_NAME: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The real path of `path` when it lies under `root` (itself a real path).
fn inside(root: &Path, path: &Path) -> Option<PathBuf> {
    let real = path.canonicalize().ok()?;
    real.starts_with(root).then_some(real)
}

fn not_found(root: &Path, generation: u64) -> Response {
    inside(root, &root.join("404.html"))
        .filter(|page| page.is_file())
        .and_then(|page| file(&page, 404, generation))
        .unwrap_or_else(|| {
            tiny_http::Response::from_data(b"not found".to_vec())
                .with_status_code(404)
                .boxed()
        })
}

pub(super) fn status(code: u16) -> Response {
    tiny_http::Response::empty(code).boxed()
}

fn file(path: &Path, status: u16, generation: u64) -> Option<Response> {
    let mut file = std::fs::File::open(path).ok()?;
    // What is sent is what was opened, so check that, not only the path looked at before.
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let kind = match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "svg" => "image/svg+xml",
        "ics" => "text/calendar; charset=utf-8",
        "xml" => "application/xml; charset=utf-8",
        "json" => "application/json",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        _ => "application/octet-stream",
    };
    let header = tiny_http::Header::from_bytes("Content-Type", kind).expect("valid header");
    if kind.starts_with("text/html") {
        // Pages are small; the tag is added in memory so the built file stays as it is.
        let mut page = Vec::new();
        file.read_to_end(&mut page).ok()?;
        return Some(
            tiny_http::Response::from_data(live::inject(page, generation))
                .with_status_code(status)
                .with_header(header)
                .boxed(),
        );
    }
    Some(
        tiny_http::Response::from_file(file)
            // A known length, never chunks: a chunked body that fails half way still writes
            // its last chunk on drop, each write another wait on a client that stopped reading.
            .with_chunked_threshold(usize::MAX)
            .with_status_code(status)
            .with_header(header)
            .boxed(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// An output folder with a page, a folder page, a 404 page and a secret outside it.
    struct Site {
        _tmp: tempfile::TempDir,
        root: PathBuf,
        // Reached only through symbolic links, which the test making them needs Unix for.
        #[cfg_attr(not(unix), allow(dead_code))]
        secret: PathBuf,
    }

    fn site() -> Site {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("site");
        fs::create_dir_all(root.join("events")).unwrap();
        fs::create_dir_all(root.join("a b")).unwrap();
        fs::write(root.join("events/index.html"), "events").unwrap();
        fs::write(root.join("a b/index.html"), "spaced").unwrap();
        fs::write(root.join("style.css"), "css").unwrap();
        fs::write(root.join("404.html"), "missing").unwrap();
        let outside = tmp.path().join("outside");
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("index.html"), "secret").unwrap();
        let secret = outside.join("secret.txt");
        fs::write(&secret, "secret").unwrap();
        let root = root.canonicalize().unwrap();
        Site {
            _tmp: tmp,
            root,
            secret,
        }
    }

    fn file(site: &Site, path: &str) -> Resolved {
        Resolved::File(site.root.join(path))
    }

    #[test]
    fn percent_signs_before_multibyte_characters_and_bad_bytes_are_not_found() {
        let site = site();
        for url in [
            "/%a\u{e9}",
            "/%\u{e9}",
            "/\u{e9}%",
            "/%ff",
            "/events%00",
            "/%00",
            "/%5Cevents",
            "/\\events",
            "/%2e%2e/outside/secret.txt",
            "/../outside/secret.txt",
            "/events/%2E%2E/%2E%2E/outside/secret.txt",
            "/./events/",
            "/style.css/",
        ] {
            assert_eq!(resolve(&site.root, url), Resolved::NotFound, "{url}");
        }
        // The old hand-written decoder sliced inside the `é` here.
        assert_eq!(respond(&site.root, "/%a\u{e9}", 0).status_code().0, 404);
        assert_eq!(resolve(&site.root, "*"), Resolved::BadRequest);
    }

    #[test]
    fn files_folders_and_redirects() {
        let site = site();
        assert_eq!(resolve(&site.root, "/style.css"), file(&site, "style.css"));
        assert_eq!(
            resolve(&site.root, "/events/?x=1#top"),
            file(&site, "events/index.html")
        );
        assert_eq!(
            resolve(&site.root, "//events//"),
            file(&site, "events/index.html")
        );
        assert_eq!(
            resolve(&site.root, "/a%20b/"),
            file(&site, "a b/index.html")
        );
        for (url, location) in [
            ("/events", "/events/"),
            ("//events", "/events/"),
            ("///events?next=//evil.example", "/events/"),
            ("/a%20b", "/a%20b/"),
        ] {
            assert_eq!(
                resolve(&site.root, url),
                Resolved::Redirect(location.into()),
                "{url}"
            );
        }
        assert_eq!(resolve(&site.root, "/missing"), Resolved::NotFound);
    }

    #[test]
    fn urls_over_the_limit_are_refused_before_looking() {
        let site = site();
        let long = format!("/{}", "a".repeat(MAX_URL));
        assert_eq!(resolve(&site.root, &long), Resolved::UriTooLong);
        let fits = format!("/{}", "a".repeat(MAX_URL - 1));
        assert_eq!(resolve(&site.root, &fits), Resolved::NotFound);
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_followed_only_inside_the_output_folder() {
        use std::os::unix::fs::symlink;
        let site = site();
        let outside = site.secret.parent().unwrap();
        symlink(outside, site.root.join("evil")).unwrap();
        symlink(&site.secret, site.root.join("leak.txt")).unwrap();
        fs::create_dir(site.root.join("trap")).unwrap();
        symlink(
            outside.join("index.html"),
            site.root.join("trap/index.html"),
        )
        .unwrap();
        symlink(site.root.join("style.css"), site.root.join("alias.css")).unwrap();
        for url in ["/evil", "/evil/", "/evil/secret.txt", "/leak.txt", "/trap/"] {
            assert_eq!(resolve(&site.root, url), Resolved::NotFound, "{url}");
        }
        assert_eq!(resolve(&site.root, "/alias.css"), file(&site, "style.css"));

        // The output folder itself may be a symlink: its real path is the root.
        let link = site.root.parent().unwrap().join("site-link");
        symlink(&site.root, &link).unwrap();
        let root = link.canonicalize().unwrap();
        assert_eq!(resolve(&root, "/style.css"), file(&site, "style.css"));
    }
}
