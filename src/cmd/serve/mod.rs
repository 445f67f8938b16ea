//! `vatcar-site serve`: build, serve the output on 127.0.0.1, rebuild when what the site is
//! made from changes (the config file, the templates, `static/`, `content/`), and reload the
//! open pages after each rebuild that changed the site.
//!
//! The data is fetched (or read) once; rebuilds render it again without the network. A
//! rebuild that fails, or a config file that no longer reads, prints its error and leaves the
//! last good site being served, with no reload.

mod files;
mod live;
mod watch;

use super::args::ServeArgs;
use super::build::{self, BuildOptions};
use super::config::{DEFAULT_FILE, Loaded};
use super::progress::Progress;
use super::settings::site_options;
use crate::fetch::endpoint::Endpoint;
use crate::fetch::load::{self, Source};
use crate::fetch::secret::ApiKey;
use anyhow::{Context, Result};
use live::{Changes, Permit};
use std::collections::VecDeque;
use std::collections::hash_map::{Entry, HashMap};
use std::net::SocketAddr;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, mpsc};
use std::time::Duration;

/// The `serve` command: the same options as `build`, then the server.
pub(crate) fn run(
    args: &ServeArgs,
    config: &Loaded,
    progress: &Arc<Progress>,
    key: Option<ApiKey>,
) -> Result<()> {
    let mut options = site_options(&args.source, &args.site, config, progress.clone(), key)?;
    let snapshot = load::raw(&options.source, &Endpoint::SITE)?;
    options.source = Source::Loaded(Arc::new(snapshot));

    let reconfigure: watch::Reconfigure = Box::new({
        let (source, site) = (args.source.clone(), args.site.clone());
        let explicit = config.path.clone();
        let first = options.clone();
        let progress = progress.clone();
        move || {
            // Read as at startup: the file given, or `vatcar-site.toml` if there is one now.
            let config = Loaded::load(explicit.as_deref())?;
            let fresh = site_options(&source, &site, &config, progress.clone(), None)?;
            if fresh.output != first.output {
                log::warn!(
                    "the output folder is still {}: a new one takes effect when serve is started again",
                    first.output.display()
                );
            }
            let mut settings = fresh.settings;
            // The data is the same as at startup, and so is the moment it was built from.
            settings.build_time = first.settings.build_time;
            Ok(BuildOptions {
                source: first.source.clone(),
                output: first.output.clone(),
                key: first.key.clone(),
                settings,
                ..fresh
            })
        }
    });
    let watcher = watch::Watcher {
        reconfigure,
        key: options.key.clone(),
        config_file: config
            .path
            .clone()
            .unwrap_or_else(|| PathBuf::from(DEFAULT_FILE)),
        options,
        progress: progress.clone(),
        changes: Changes::new(),
    };
    serve(watcher, args.port)
}

fn serve(watcher: watch::Watcher, port: u16) -> Result<()> {
    let options = &watcher.options;
    let progress = &watcher.progress;
    build::build(options, progress)?;
    // Resolved once: every file served must be under this real path, wherever the output
    // folder's own name points.
    let root = options
        .output
        .canonicalize()
        .with_context(|| format!("could not resolve {}", options.output.display()))?;

    // The first look is taken before the address is announced, so that an edit made the
    // moment the server is up is seen as a change.
    let folders = watcher.folders();
    let seen = watcher.look(&folders);
    let listener = listen(port).with_context(|| format!("could not listen on 127.0.0.1:{port}"))?;
    let server = tiny_http::Server::from_listener(listener, None)
        .map_err(|e| anyhow::anyhow!("could not listen on 127.0.0.1:{port}: {e}"))?;
    let address = server.server_addr().to_ip().context("not an IP listener")?;
    let mut sources = vec![watcher.config_file.display().to_string()];
    sources.extend(folders.iter().map(|f| f.display().to_string()));
    progress.done(&format!(
        "serving {} at http://{address}/ (Ctrl-C to stop); rebuilding when {} changes, and reloading open pages",
        options.output.display(),
        sources.join(", ")
    ));

    let dispatch = Arc::new(Dispatch {
        server,
        root,
        changes: Arc::clone(&watcher.changes),
        turn: Mutex::new(()),
        busy: Mutex::new(HashMap::new()),
    });
    std::thread::spawn(move || watcher.run(seen));
    let (stopped, stop) = mpsc::channel();
    for _ in 0..WORKERS {
        let dispatch = Arc::clone(&dispatch);
        let stopped = stopped.clone();
        std::thread::spawn(move || {
            let _ = stopped.send(work(&dispatch));
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
// - A live-reload poll that has to wait for a change is answered on a thread of its own, which
//   then answers the rest of that connection; at most `live::MAX_WAITING` such threads at
//   once, further polls are told to come back (503). So open pages never hold a worker. Each
//   open page does keep a connection, and so one of tiny_http's threads, which is what makes
//   the burst race above likelier than with page loads alone; a poll answers within
//   `live::POLL_WAIT`, but a browser keeps the connection for the next one.
const WORKERS: usize = 8;
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// Larger URLs get 414 before any file system work.
pub(super) const MAX_URL: usize = 8 * 1024;
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
    /// The output folder's real path.
    root: PathBuf,
    changes: Arc<Changes>,
    /// Held while taking a request and claiming its connection, so that a connection's
    /// requests are claimed in the order tiny_http read them: tiny_http makes a response wait
    /// until the connection's previous one is written, so answering #2 before #1 would hang.
    turn: Mutex<()>,
    /// Connections with a request being answered, and their requests waiting behind it.
    busy: Mutex<HashMap<Option<SocketAddr>, VecDeque<tiny_http::Request>>>,
}

fn work(dispatch: &Arc<Dispatch>) -> std::io::Error {
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
        answer_connection(dispatch, connection, request, None);
    }
}

/// Answers `request` and then whatever the same connection sent meanwhile, until it has
/// nothing waiting. With a `permit`, this runs on a thread of its own and may wait for a
/// change; on a worker, a poll that would wait hands the connection to such a thread.
fn answer_connection(
    dispatch: &Arc<Dispatch>,
    connection: Option<SocketAddr>,
    mut request: tiny_http::Request,
    permit: Option<Permit>,
) {
    let mut failed = false;
    loop {
        if failed {
            // Taking the writer away means dropping the request writes nothing; each write
            // would only wait out the timeout again.
            drop(request.into_writer());
        } else {
            if permit.is_none() && dispatch.changes.would_wait(request.url()) {
                match hand_over(dispatch, connection, request) {
                    None => return,
                    // No thread to wait on: answered at once (503, try again later).
                    Some(back) => request = back,
                }
            }
            let may_wait = permit.is_some();
            // A panic while answering drops the request, and tiny_http answers 500; the
            // worker and the connection's queue carry on.
            failed =
                std::panic::catch_unwind(AssertUnwindSafe(|| answer(dispatch, request, may_wait)))
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

/// Gives the connection, from `request` on, to a new thread that may wait: `None` once it
/// has, the request back when there is no permit left or no thread to be had.
fn hand_over(
    dispatch: &Arc<Dispatch>,
    connection: Option<SocketAddr>,
    request: tiny_http::Request,
) -> Option<tiny_http::Request> {
    let Some(permit) = dispatch.changes.permit() else {
        return Some(request);
    };
    // Sent after the thread exists, so that a failed spawn leaves the request here.
    let (give, take) = mpsc::channel();
    let spawned = std::thread::Builder::new().spawn({
        let dispatch = Arc::clone(dispatch);
        move || {
            if let Ok(request) = take.recv() {
                answer_connection(&dispatch, connection, request, Some(permit));
            }
        }
    });
    match spawned {
        Ok(_) => give
            .send(request)
            .err()
            .map(|mpsc::SendError(request)| request),
        Err(_) => Some(request),
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn answer(dispatch: &Dispatch, request: tiny_http::Request, may_wait: bool) -> std::io::Result<()> {
    let head: usize = request
        .headers()
        .iter()
        .map(|h| h.field.as_str().len() + h.value.len() + 4)
        .sum();
    let response = if head > MAX_HEADERS {
        files::status(431)
    } else if request.url().len() > MAX_URL {
        files::status(414)
    } else {
        match live::route(request.url()) {
            Some(route) => live::respond(&dispatch.changes, &route, may_wait),
            // Read before the file is: a page read during a rebuild then carries the older
            // generation and reloads once more, rather than missing the change.
            None => files::respond(&dispatch.root, request.url(), dispatch.changes.current()),
        }
    };
    request.respond(response)
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn accepted_sockets_inherit_the_write_timeout() {
        let listener = listen(0).unwrap();
        let _client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (accepted, _) = listener.accept().unwrap();
        assert_eq!(accepted.write_timeout().unwrap(), Some(WRITE_TIMEOUT));
    }
}
