//! Answering a request as a static host would: the server's own paths (`live.rs`), else a
//! file of the output folder by tower-http's `ServeDir` (ranges, validators, media types, a
//! folder's `index.html`, `/dir` redirected to `/dir/`, `404.html` for what is missing), with
//! the live-reload tag added to each HTML page on its way out.
//!
//! What is ours is the path: decoded and normalised once, so that every spelling of a path is
//! routed as the file it names, and checked against the output folder's real path, so that a
//! link put into the output by hand leads nowhere outside it.

use super::live::{self, ServedBuild};
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_status::SetStatus;

/// What every request is answered from.
pub(super) struct Served {
    /// The output folder's real path: every file served is under it.
    root: PathBuf,
    files: ServeDir<SetStatus<ServeFile>>,
    changes: Arc<ServedBuild>,
    /// `serve --demo`: the sample data feed is served.
    sample: bool,
}

impl Served {
    pub(super) fn new(root: PathBuf, changes: Arc<ServedBuild>, sample: bool) -> Arc<Self> {
        let missing = ServeFile::new(root.join(crate::view::outputs::NOT_FOUND.path));
        let files = ServeDir::new(&root).not_found_service(missing);
        Arc::new(Served {
            root,
            files,
            changes,
            sample,
        })
    }
}

/// The server's one handler.
pub(super) async fn answer(State(served): State<Arc<Served>>, mut request: Request) -> Response {
    let path = match RequestPath::parse(request.uri().path()) {
        Ok(path) => path,
        Err(code) => return code.into_response(),
    };
    if let Some((first, rest)) = path.names.split_first()
        && first == live::RESERVED
    {
        let query = request.uri().query().unwrap_or_default();
        return live::respond(&served.changes, rest, query, served.sample).await;
    }
    if !path.is_servable(&served.root) {
        return StatusCode::NOT_FOUND.into_response();
    }
    *request.uri_mut() = path.uri(request.uri());
    // Read before the file is: a page read during a rebuild then carries the older generation
    // and reloads once more, rather than missing the change.
    let generation = served.changes.current();
    match served.files.clone().try_call(request).await {
        Ok(response) => live::add_tag(response.map(Body::new), generation).await,
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

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
        let decoded =
            (percent_decode_str(path).decode_utf8()).map_err(|_| StatusCode::NOT_FOUND)?;
        let names = (decoded
            .split('/')
            .filter(|name| !name.is_empty() && *name != "."))
        .map(|name| {
            let mut parts = Path::new(name).components();
            let one = matches!(parts.next(), Some(Component::Normal(_))) && parts.next().is_none();
            let plain = one && !name.contains(['\0', '\\']);
            plain.then(|| name.to_owned()).ok_or(StatusCode::NOT_FOUND)
        })
        .collect::<Result<Vec<_>, _>>()?;
        let slash = matches!(decoded.rsplit('/').next(), Some("" | "."));
        Ok(RequestPath { names, slash })
    }

    /// The path as `ServeDir` is given it: the names percent-encoded again, joined by single
    /// slashes, with the query of `uri` kept (a folder's redirect carries it).
    fn uri(&self, uri: &Uri) -> Uri {
        let name = |name| format!("/{}", utf8_percent_encode(name, PATH_NAME));
        let mut path: String = self.names.iter().map(|n| name(n)).collect();
        if self.slash || path.is_empty() {
            path.push('/');
        }
        if let Some(query) = uri.query() {
            path.push('?');
            path.push_str(query);
        }
        path.parse().unwrap_or_else(|_| Uri::from_static("/"))
    }

    /// Whether the file named may be served: no name is the server's own, in any case, for
    /// file systems that ignore it; and where it exists, its real path is under `root` and
    /// under no folder of the server's own name (which a link could lead into). What does not
    /// exist is `ServeDir`'s to answer (404.html).
    fn is_servable(&self, root: &Path) -> bool {
        if self.names.iter().any(|name| reserved(name)) {
            return false;
        }
        let inside = |path: &Path| {
            path.canonicalize().map_or(true, |real| {
                real.strip_prefix(root).is_ok_and(|below| {
                    !below
                        .components()
                        .any(|part| part.as_os_str().to_str().is_some_and(reserved))
                })
            })
        };
        let named = root.join(self.names.iter().collect::<PathBuf>());
        // A folder is served by its `index.html`, which may be a link of its own.
        inside(&named) && (!named.is_dir() || inside(&named.join("index.html")))
    }
}

/// Everything but unreserved characters, so a name read back is the name.
const PATH_NAME: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

fn reserved(name: &str) -> bool {
    name.eq_ignore_ascii_case(live::RESERVED)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// An output folder with a page and a secret outside it.
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
        fs::write(root.join("events/index.html"), "events").unwrap();
        fs::write(root.join("style.css"), "css").unwrap();
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

    /// The path `ServeDir` is given for a request's, or the refusal.
    fn normal(target: &str) -> Result<String, StatusCode> {
        let uri: Uri = target.parse().unwrap();
        RequestPath::parse(uri.path()).map(|path| path.uri(&uri).to_string())
    }

    fn servable(root: &Path, target: &str) -> bool {
        RequestPath::parse(target).is_ok_and(|path| path.is_servable(root))
    }

    #[test]
    fn every_spelling_of_a_path_is_the_one_path() {
        for (target, path) in [
            ("/", "/"),
            ("/style.css", "/style.css"),
            ("/events/", "/events/"),
            ("//events//", "/events/"),
            ("/./events/", "/events/"),
            ("/%2E/events/.", "/events/"),
            ("/events/%2F", "/events/"),
            ("/events%2Findex.html", "/events/index.html"),
            ("///events", "/events"),
            ("//events?to=//evil.example", "/events?to=//evil.example"),
            ("/a%20b/", "/a%20b/"),
            ("/%5F%5Fvatcar-site/changes", "/__vatcar-site/changes"),
        ] {
            assert_eq!(normal(target).as_deref(), Ok(path), "{target}");
        }
    }

    #[test]
    fn percent_signs_before_multibyte_characters_bad_bytes_and_climbing_are_refused() {
        for target in [
            "/%ff",
            "/events%00",
            "/%00",
            "/%5Cevents",
            "/%2e%2e/outside/secret.txt",
            "/../outside/secret.txt",
            "/events/%2E%2E/%2E%2E/outside/secret.txt",
            "/events/../events/",
        ] {
            assert_eq!(normal(target), Err(StatusCode::NOT_FOUND), "{target}");
        }
        assert_eq!(RequestPath::parse("/\\events"), Err(StatusCode::NOT_FOUND));
        // The old hand-written decoder sliced inside the `é` here; a `%` that starts no
        // escape is itself.
        assert_eq!(RequestPath::parse("/%a\u{e9}").unwrap().names, ["%a\u{e9}"]);
        assert_eq!(RequestPath::parse("*"), Err(StatusCode::BAD_REQUEST));
    }

    #[test]
    fn nothing_under_a_folder_named_as_the_servers_own_paths_is_served() {
        let site = site();
        for folder in ["__vatcar-site", "events/__vatcar-site", "__VATCAR-SITE"] {
            fs::create_dir_all(site.root.join(folder)).unwrap();
            fs::write(site.root.join(folder).join("page.txt"), "mine").unwrap();
        }
        for target in [
            "/events/__vatcar-site/page.txt",
            "/events/%5F%5Fvatcar-site/",
            "/__VATCAR-SITE/page.txt",
            "/__Vatcar-Site/page.txt",
        ] {
            assert!(!servable(&site.root, target), "{target}");
        }
        assert!(servable(&site.root, "/events/"));
        assert!(servable(&site.root, "/missing.html"), "ServeDir's 404");
    }

    #[cfg(unix)]
    #[test]
    fn links_are_followed_only_inside_the_output_folder() {
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
        for target in [
            "/evil",
            "/evil/secret.txt",
            "/leak.txt",
            "/trap/",
            "/mine/page.txt",
        ] {
            assert!(!servable(&site.root, target), "{target}");
        }
        assert!(servable(&site.root, "/alias.css"));
        // The output folder itself may be a link: its real path is the root.
        let link = site.root.parent().unwrap().join("site-link");
        symlink(&site.root, &link).unwrap();
        assert!(servable(&link.canonicalize().unwrap(), "/style.css"));
    }
}
