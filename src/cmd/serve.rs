//! `vatcar-site serve`: build, serve the output on 127.0.0.1, and rebuild when a file under
//! the templates folder changes, so a template author sees each change on reload.
//!
//! The data is fetched (or read) once; rebuilds render it again without the network. A
//! rebuild that fails prints its error and leaves the last good site being served.

use super::args::ServeArgs;
use super::build::{self, BuildOptions};
use super::config::Loaded;
use super::progress::Progress;
use super::settings::site_options;
use crate::fetch::endpoint::Endpoint;
use crate::fetch::load::{self, Source};
use crate::fetch::secret::ApiKey;
use anyhow::{Context, Result};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use std::collections::VecDeque;
use std::collections::hash_map::{Entry, HashMap};
use std::net::SocketAddr;
use std::panic::AssertUnwindSafe;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, mpsc};
use std::time::{Duration, SystemTime};

/// The `serve` command: the same options as `build`, then the server.
pub(crate) fn run(
    args: &ServeArgs,
    config: &Loaded,
    progress: &Arc<Progress>,
    key: Option<ApiKey>,
) -> Result<()> {
    let options = site_options(&args.source, &args.site, config, progress.clone(), key)?;
    serve(&options, args.port, progress)
}

pub fn serve(options: &BuildOptions, port: u16, progress: &Progress) -> Result<()> {
    let snapshot = load::raw(&options.source, &Endpoint::SITE)?;
    let mut options = options.clone();
    options.source = Source::Loaded(Arc::new(snapshot));
    build::build(&options, progress)?;
    // Resolved once: every file served must be under this real path, wherever the output
    // folder's own name points.
    let root = options
        .output
        .canonicalize()
        .with_context(|| format!("could not resolve {}", options.output.display()))?;

    // The first look at the templates is taken before the address is announced, so that an
    // edit made the moment the server is up is seen as a change.
    let watched = options.templates.clone().map(|dir| {
        let seen = fingerprint(&dir);
        (dir, seen)
    });
    let listener = listen(port).with_context(|| format!("could not listen on 127.0.0.1:{port}"))?;
    let server = tiny_http::Server::from_listener(listener, None)
        .map_err(|e| anyhow::anyhow!("could not listen on 127.0.0.1:{port}: {e}"))?;
    let address = server.server_addr().to_ip().context("not an IP listener")?;
    progress.done(&format!(
        "serving {} at http://{address}/ (Ctrl-C to stop){}",
        options.output.display(),
        match &options.templates {
            Some(dir) => format!("; rebuilding when {} changes", dir.display()),
            None => String::new(),
        }
    ));

    if let Some((templates, seen)) = watched {
        let options = options.clone();
        std::thread::spawn(move || watch(&templates, seen, &options));
    }
    let dispatch = Arc::new(Dispatch {
        server,
        turn: Mutex::new(()),
        busy: Mutex::new(HashMap::new()),
    });
    let (stopped, stop) = mpsc::channel();
    for _ in 0..WORKERS {
        let dispatch = Arc::clone(&dispatch);
        let root = root.clone();
        let stopped = stopped.clone();
        std::thread::spawn(move || {
            let _ = stopped.send(work(&dispatch, &root));
        });
    }
    // tiny_http reports one error, when its accept loop has ended; no request comes after it.
    let error = stop.recv().context("every worker ended")?;
    Err(error).context("the server stopped accepting connections")
}

// What holds against slow, stalled or greedy clients, given what tiny_http 0.12 does:
//
// - Request heads are not read here but on tiny_http's own threads, one per connection (its
//   pool starts a new thread whenever it sees none idle). A client trickling or stalling its
//   head holds only that thread, never a worker. tiny_http sets no read timeout and offers no
//   way to (a receive timeout on the listener would also make `accept` time out, which ends
//   tiny_http's accept loop), so such a client holds its thread until it disconnects.
// - That pool counts idle threads racily: a connection accepted in a burst can be queued
//   behind threads that are all held by open connections, and is read only when one of them
//   closes. Nothing outside tiny_http can reach that; owning the accept loop would.
// - tiny_http reads each head line into memory until CRLF with no length limit, and keeps
//   every header; it hands over a request only once the whole head is in. So the URL and
//   header limits below stop a large request from being looked at, but cannot bound the
//   memory tiny_http used to read it. Non-ASCII bytes in a head make tiny_http close the
//   connection without an answer.
// - Answers are written by `WORKERS` threads. A connection's requests are answered in order
//   by one worker at a time, so a client pipelining requests it never reads holds one
//   worker, not all of them.
// - Sockets get a write timeout (see `listen`). A response to a client that stopped reading
//   fails after about two such waits (the write that fills the socket, then the next), and
//   that connection's queued requests are dropped without writing. A client that keeps
//   reading, however slowly, keeps its worker.
const WORKERS: usize = 8;
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// Larger URLs get 414 before any file system work.
const MAX_URL: usize = 8 * 1024;
/// Larger heads (names, values and separators of all headers) get 431.
const MAX_HEADERS: usize = 64 * 1024;

/// tiny_http accepts on a listener it is given, and accepted sockets inherit the listener's
/// send timeout (Linux and the BSDs copy it; a unit test checks it on Linux). That is the only
/// way to give tiny_http's sockets a timeout, since it never hands out the socket.
fn listen(port: u16) -> std::io::Result<std::net::TcpListener> {
    use socket2::{Domain, Socket, Type};
    let address = SocketAddr::from(([127, 0, 0, 1], port));
    let socket = Socket::new(Domain::IPV4, Type::STREAM, None)?;
    // As std's `TcpListener::bind` does on Unix, so that a restart can reuse the port at once.
    #[cfg(unix)]
    socket.set_reuse_address(true)?;
    socket.set_write_timeout(Some(WRITE_TIMEOUT))?;
    socket.bind(&address.into())?;
    socket.listen(128)?;
    Ok(socket.into())
}

struct Dispatch {
    server: tiny_http::Server,
    /// Held while taking a request and claiming its connection, so that a connection's
    /// requests are claimed in the order tiny_http read them: tiny_http makes a response wait
    /// until the connection's previous one is written, so answering #2 before #1 would hang.
    turn: Mutex<()>,
    /// Connections with a request being answered, and their requests waiting behind it.
    busy: Mutex<HashMap<Option<SocketAddr>, VecDeque<tiny_http::Request>>>,
}

fn work(dispatch: &Dispatch, root: &Path) -> std::io::Error {
    loop {
        let (connection, request) = {
            let _turn = lock(&dispatch.turn);
            let request = match dispatch.server.recv() {
                Ok(request) => request,
                Err(error) => return error,
            };
            let connection = request.remote_addr().copied();
            match lock(&dispatch.busy).entry(connection) {
                Entry::Occupied(mut waiting) => {
                    waiting.get_mut().push_back(request);
                    continue;
                }
                Entry::Vacant(slot) => {
                    slot.insert(VecDeque::new());
                }
            }
            (connection, request)
        };
        answer_connection(dispatch, root, connection, request);
    }
}

/// Answers `request` and then whatever the same connection sent meanwhile, until it has
/// nothing waiting.
fn answer_connection(
    dispatch: &Dispatch,
    root: &Path,
    connection: Option<SocketAddr>,
    mut request: tiny_http::Request,
) {
    let mut failed = false;
    loop {
        if failed {
            // Taking the writer away means dropping the request writes nothing; each write
            // would only wait out the timeout again.
            drop(request.into_writer());
        } else {
            // A panic while answering drops the request, and tiny_http answers 500; the
            // worker and the connection's queue carry on.
            failed = std::panic::catch_unwind(AssertUnwindSafe(|| answer(root, request)))
                .is_ok_and(|written| written.is_err());
        }
        let mut busy = lock(&dispatch.busy);
        match busy.get_mut(&connection).and_then(VecDeque::pop_front) {
            Some(next) => request = next,
            None => {
                busy.remove(&connection);
                return;
            }
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn answer(root: &Path, request: tiny_http::Request) -> std::io::Result<()> {
    let head: usize = request
        .headers()
        .iter()
        .map(|h| h.field.as_str().len() + h.value.len() + 4)
        .sum();
    let response = if head > MAX_HEADERS {
        status(431)
    } else {
        respond(root, request.url())
    };
    request.respond(response)
}

/// Polls the folder twice a second; polling needs no platform watcher and is plenty for a
/// person editing a template.
fn watch(dir: &Path, mut last: Fingerprint, options: &BuildOptions) {
    let progress = Progress::new(false);
    loop {
        std::thread::sleep(Duration::from_millis(500));
        let now = fingerprint(dir);
        if now != last {
            last = now;
            match build::build(options, &progress) {
                Ok(report) => progress.step(&format!(
                    "rebuilt after a template change ({} written)",
                    report.publish.written
                )),
                Err(error) => eprintln!("error: {error:#} (still serving the last good build)"),
            }
        }
    }
}

type Fingerprint = Vec<(PathBuf, Option<SystemTime>, u64)>;

fn fingerprint(dir: &Path) -> Fingerprint {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            match entry.metadata() {
                Ok(meta) if meta.is_dir() => stack.push(path),
                Ok(meta) => out.push((path, meta.modified().ok(), meta.len())),
                Err(_) => {}
            }
        }
    }
    out.sort();
    out
}

type Response = tiny_http::ResponseBox;

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
/// anything else missing is a 404 with `404.html`.
fn respond(root: &Path, url: &str) -> Response {
    match resolve(root, url) {
        Resolved::File(path) => file(&path, 200).unwrap_or_else(|| not_found(root)),
        Resolved::Redirect(location) => {
            let header = tiny_http::Header::from_bytes("Location", location)
                .expect("a percent-encoded location is a valid header");
            tiny_http::Response::empty(301).with_header(header).boxed()
        }
        Resolved::NotFound => not_found(root),
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

fn not_found(root: &Path) -> Response {
    inside(root, &root.join("404.html"))
        .filter(|page| page.is_file())
        .and_then(|page| file(&page, 404))
        .unwrap_or_else(|| {
            tiny_http::Response::from_data(b"not found".to_vec())
                .with_status_code(404)
                .boxed()
        })
}

fn status(code: u16) -> Response {
    tiny_http::Response::empty(code).boxed()
}

fn file(path: &Path, status: u16) -> Option<Response> {
    let file = std::fs::File::open(path).ok()?;
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
        assert_eq!(respond(&site.root, "/%a\u{e9}").status_code().0, 404);
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

    #[cfg(target_os = "linux")]
    #[test]
    fn accepted_sockets_inherit_the_write_timeout() {
        let listener = listen(0).unwrap();
        let _client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (accepted, _) = listener.accept().unwrap();
        assert_eq!(accepted.write_timeout().unwrap(), Some(WRITE_TIMEOUT));
    }
}
