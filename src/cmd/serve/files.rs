//! Answering a request from the output folder, as a static host would, with the live-reload
//! script added to each HTML page on its way out. Everything here touches the file system and
//! runs on the runtime's file threads.

use super::body::Body;
use super::live;
use hyper::header::{self, HeaderValue};
use hyper::{Response, StatusCode};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// A request's path as it is routed: percent-decoded, then split at every `/` (so `%2F`
/// separates names too) with empty names and `.` left out, so that `//a`, `/./a`, `/%2E/a`
/// and `/a` are one path. A `..` anywhere refuses the request: nothing above a name is
/// reachable, not even by going back down.
#[derive(Debug, PartialEq)]
pub(super) struct RequestPath {
    pub(super) names: Vec<String>,
    /// Whether the path ends in a `/` (or a `/.`): a folder's page rather than the folder.
    slash: bool,
}

impl RequestPath {
    /// `path` is the request target without its query. Err is the status to answer instead.
    pub(super) fn parse(path: &str) -> Result<RequestPath, StatusCode> {
        if !path.starts_with('/') {
            return Err(StatusCode::BAD_REQUEST);
        }
        let decoded = percent_decode_str(path)
            .decode_utf8()
            .map_err(|_| StatusCode::NOT_FOUND)?;
        let mut names = Vec::new();
        for name in decoded
            .split('/')
            .filter(|name| !name.is_empty() && *name != ".")
        {
            let mut parts = Path::new(name).components();
            let plain = matches!(
                (parts.next(), parts.next()),
                (Some(Component::Normal(_)), None)
            ) && !name.contains(['\0', '\\']);
            if !plain {
                return Err(StatusCode::NOT_FOUND);
            }
            names.push(name.to_owned());
        }
        let slash = matches!(decoded.rsplit('/').next(), Some("" | "."));
        Ok(RequestPath { names, slash })
    }
}

#[derive(Debug, PartialEq)]
enum Resolved {
    /// A regular file inside the root, by its real path.
    File(PathBuf),
    /// A folder asked for without its trailing slash: where it is with one.
    Redirect(String),
    NotFound,
}

/// A static host's behaviour: `/dir/` serves `dir/index.html`, `/dir` redirects to `/dir/`,
/// anything else missing is a 404 with `404.html`. HTML pages carry the live-reload script
/// for `generation`, the build being served.
pub(super) fn respond(root: &Path, target: &RequestPath, generation: u64) -> Response<Body> {
    match resolve(root, target) {
        Resolved::File(path) => {
            file(&path, StatusCode::OK, generation).unwrap_or_else(|| not_found(root, generation))
        }
        Resolved::Redirect(location) => {
            let mut response = status(StatusCode::MOVED_PERMANENTLY);
            let location = HeaderValue::try_from(location)
                .expect("a percent-encoded location is a valid header");
            response.headers_mut().insert(header::LOCATION, location);
            response
        }
        Resolved::NotFound => not_found(root, generation),
    }
}

/// Maps a request path to what to answer. `root` must be a real path (no symlinks, as
/// `canonicalize` gives). Only regular files whose real path is under `root`, and not under a
/// folder named as the server's own paths are, are served: a symlink in the output pointing
/// elsewhere is a 404.
fn resolve(root: &Path, target: &RequestPath) -> Resolved {
    let names = &target.names;
    if names.iter().any(|name| reserved(name)) {
        return Resolved::NotFound;
    }
    let Some(found) = inside(root, &root.join(names.iter().collect::<PathBuf>())) else {
        return Resolved::NotFound;
    };
    if found.is_dir() {
        if !target.slash {
            // Built from the checked names alone: the query means nothing to static files,
            // and leaving it out keeps the header free of anything the client wrote raw.
            let mut location = String::from("/");
            for name in names {
                location.extend(utf8_percent_encode(name, PATH_NAME));
                location.push('/');
            }
            return Resolved::Redirect(location);
        }
        return match inside(root, &found.join("index.html")) {
            Some(index) if index.is_file() => Resolved::File(index),
            _ => Resolved::NotFound,
        };
    }
    if found.is_file() && !target.slash {
        Resolved::File(found)
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

/// Whether a name in the output is the server's own. In any case, for file systems that
/// ignore it.
fn reserved(name: &str) -> bool {
    name.eq_ignore_ascii_case(live::RESERVED)
}

/// The real path of `path` when it lies under `root` (itself a real path), and not under a
/// reserved folder (which a symlink could lead into).
fn inside(root: &Path, path: &Path) -> Option<PathBuf> {
    let real = path.canonicalize().ok()?;
    let below = real.strip_prefix(root).ok()?;
    let mine = below
        .components()
        .any(|part| part.as_os_str().to_str().is_some_and(reserved));
    (!mine).then_some(real)
}

fn not_found(root: &Path, generation: u64) -> Response<Body> {
    inside(root, &root.join(crate::view::outputs::NOT_FOUND.path))
        .filter(|page| page.is_file())
        .and_then(|page| file(&page, StatusCode::NOT_FOUND, generation))
        .unwrap_or_else(|| {
            let mut response = Response::new(Body::bytes("not found"));
            *response.status_mut() = StatusCode::NOT_FOUND;
            response
        })
}

/// An answer with `code` and no body.
pub(super) fn status(code: StatusCode) -> Response<Body> {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = code;
    response
}

fn file(path: &Path, code: StatusCode, generation: u64) -> Option<Response<Body>> {
    let mut file = std::fs::File::open(path).ok()?;
    // What is sent is what was opened, so check that, not only the path looked at before.
    let metadata = file.metadata().ok()?;
    if !metadata.is_file() {
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
    let body = if kind.starts_with("text/html") {
        // Pages are small; the tag is added in memory so the built file stays as it is.
        let mut page = Vec::new();
        file.read_to_end(&mut page).ok()?;
        Body::bytes(live::inject(page, generation))
    } else {
        Body::file(file, metadata.len())
    };
    let mut response = Response::new(body);
    *response.status_mut() = code;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    Some(response)
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

    /// What a request path (without its query) resolves to; any refusal is a 404 here.
    fn resolve(root: &Path, path: &str) -> Resolved {
        RequestPath::parse(path).map_or(Resolved::NotFound, |target| super::resolve(root, &target))
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
            "/events/../events/",
            "/style.css/",
        ] {
            assert_eq!(resolve(&site.root, url), Resolved::NotFound, "{url}");
        }
        // The old hand-written decoder sliced inside the `é` here; a `%` that starts no
        // escape is itself.
        assert_eq!(RequestPath::parse("/%a\u{e9}").unwrap().names, ["%a\u{e9}"]);
        assert_eq!(RequestPath::parse("*"), Err(StatusCode::BAD_REQUEST));
    }

    #[test]
    fn files_folders_and_redirects() {
        let site = site();
        assert_eq!(resolve(&site.root, "/style.css"), file(&site, "style.css"));
        for path in [
            "/events/",
            "//events//",
            "/./events/",
            "/%2E/events/.",
            "/events/%2F",
        ] {
            assert_eq!(
                resolve(&site.root, path),
                file(&site, "events/index.html"),
                "{path}"
            );
        }
        assert_eq!(
            resolve(&site.root, "/a%20b/"),
            file(&site, "a b/index.html")
        );
        for (url, location) in [
            ("/events", "/events/"),
            ("//events", "/events/"),
            ("///events", "/events/"),
            ("/./events", "/events/"),
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
    fn nothing_under_a_folder_named_as_the_servers_own_paths_is_served() {
        let site = site();
        for folder in ["__vatcar-site", "events/__vatcar-site", "__VATCAR-SITE"] {
            fs::create_dir_all(site.root.join(folder)).unwrap();
            fs::write(site.root.join(folder).join("index.html"), "mine").unwrap();
            fs::write(site.root.join(folder).join("page.txt"), "mine").unwrap();
        }
        for path in [
            "/__vatcar-site/page.txt",
            "/__vatcar-site/",
            "/__vatcar-site",
            "/%5F%5Fvatcar-site/page.txt",
            "/events/__vatcar-site/page.txt",
            "/events/__vatcar-site/",
            "/__VATCAR-SITE/page.txt",
            "/__Vatcar-Site/page.txt",
        ] {
            assert_eq!(resolve(&site.root, path), Resolved::NotFound, "{path}");
        }
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
        // Inside, but into a folder that is never served.
        fs::create_dir(site.root.join("__vatcar-site")).unwrap();
        fs::write(site.root.join("__vatcar-site/page.txt"), "mine").unwrap();
        symlink(site.root.join("__vatcar-site"), site.root.join("mine")).unwrap();
        symlink(
            site.root.join("__vatcar-site/page.txt"),
            site.root.join("mine.txt"),
        )
        .unwrap();
        for url in [
            "/evil",
            "/evil/",
            "/evil/secret.txt",
            "/leak.txt",
            "/trap/",
            "/mine/page.txt",
            "/mine.txt",
        ] {
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
