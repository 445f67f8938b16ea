//! `vatcar-site serve`: build, serve the output on 127.0.0.1, rebuild when what the site is
//! made from changes (the config file, the templates, `static/`, `content/`), and reload the
//! open pages after each rebuild that changed the site.
//!
//! The data is fetched (or read) once; rebuilds render it again without the network. A
//! rebuild that fails, or a config file that no longer reads, prints its error and leaves the
//! last good site being served; the open pages show the error over the page (`live.rs`),
//! until the next good build reloads them.
//!
//! The port is taken before anything is fetched or built, so that one in use fails at once.

mod body;
mod bursts;
mod files;
mod live;
mod net;
mod scan;
mod watch;

use super::args::ServeArgs;
use super::build;
use super::options::BuildOptions;
use super::progress::Progress;
use super::settings::site_options;
use crate::fetch::endpoint::Endpoint;
use crate::fetch::load::{self, Source};
use crate::secret::ApiKey;
use crate::settings::{DEFAULT_FILE, Settings};
use anyhow::{Context, Result};
use body::Body;
use files::RequestPath;
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode, header};
use live::ServedBuild;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The `serve` command: the same options as `build`, then the server.
pub(crate) fn run(
    args: &ServeArgs,
    config: &Settings,
    progress: &Arc<Progress>,
    key: Option<ApiKey>,
) -> Result<()> {
    let mut options = site_options(&args.source, &args.site, config, progress.clone(), key)?;
    // The demo's pages read the server's own sample of the data feed, offline.
    let sample = args.source.demo;
    options.settings.live.sample_feed = sample;
    // Before anything is fetched or built: a port that is taken is known at once.
    let listener = listen(args.port)?;
    let snapshot = load::raw(&options.source, &Endpoint::SITE)?;
    options.bookings = crate::cmd::side_reads::bookings_for_serve(&options);
    options.source = Source::Loaded(Arc::new(snapshot));

    let reconfigure: watch::Reconfigure = Box::new({
        let (source, site) = (args.source.clone(), args.site.clone());
        let explicit = config.path.clone();
        let first = options.clone();
        let progress = progress.clone();
        move || {
            // Read as at startup: the file given, or `vatcar-site.toml` if there is one now.
            let config = Settings::load(explicit.as_deref())?;
            let mut fresh = site_options(&source, &site, &config, progress.clone(), None)?;
            fresh.settings.live.sample_feed = sample;
            if fresh.output != first.output {
                log::warn!(
                    "the output folder is still {}: a new one takes effect when serve is started again",
                    first.output.display()
                );
            }
            Ok(BuildOptions {
                source: first.source.clone(),
                output: first.output.clone(),
                key: first.key.clone(),
                bookings: first.bookings.clone(),
                templates_parsed: first.templates_parsed.clone(),
                // The data is the same as at startup, and so is the moment it was built from.
                build_time: first.build_time,
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
        changes: ServedBuild::new(),
        poll: args.poll,
        site_folder: std::env::current_dir().context("could not read the working folder")?,
        served: PathBuf::new(),
    };
    serve(watcher, listener, args.port, sample)
}

/// The server's socket on 127.0.0.1:`port`; a port that is taken is refused naming `--port`.
fn listen(port: u16) -> Result<std::net::TcpListener> {
    net::listen(port).map_err(|error| {
        let next = port.checked_add(1).unwrap_or(8001);
        if error.kind() == std::io::ErrorKind::AddrInUse {
            anyhow::anyhow!(
                "port {port} of 127.0.0.1 is taken (is another vatcar-site serve running?); choose another with --port, such as --port {next}, or --port 0 for any free one"
            )
        } else {
            anyhow::anyhow!(
                "could not listen on 127.0.0.1:{port} ({error}); choose another port with --port, such as --port {next}, or --port 0 for any free one"
            )
        }
    })
}

fn serve(
    mut watcher: watch::Watcher,
    listener: std::net::TcpListener,
    port: u16,
    sample: bool,
) -> Result<()> {
    let options = &watcher.options;
    let progress = &watcher.progress;
    build::build(options, progress)?;
    watcher.speak();
    // Resolved once: every file served must be under this real path, wherever the output
    // folder's own name points.
    let root: Arc<Path> = options
        .output
        .canonicalize()
        .with_context(|| format!("could not resolve {}", options.output.display()))?
        .into();

    // Watched before the address is announced, so that an edit made the moment the server is
    // up is seen as a change.
    let folders = watcher.folders();
    let watching = watcher.watch();
    let runtime = net::runtime().context("could not start the server")?;
    let address = listener
        .local_addr()
        .context("could not read the address")?;
    let mut sources = vec![watcher.config_file.display().to_string()];
    sources.extend(folders.iter().map(|f| f.display().to_string()));
    progress.done(&format!(
        "serving {} at http://{address}/ (Ctrl-C to stop); rebuilding when {} changes{}, and reloading open pages",
        options.output.display(),
        sources.join(", "),
        watching.how()
    ));

    let changes = Arc::clone(&watcher.changes);
    watcher.served = root.to_path_buf();
    std::thread::spawn(move || watcher.run(watching));
    // Runs until the process is stopped (Ctrl-C: see `cmd::stop_on_signals`).
    runtime
        .block_on(net::accept(listener, move |request| {
            answer(Arc::clone(&root), Arc::clone(&changes), sample, request)
        }))
        .with_context(|| format!("could not listen on 127.0.0.1:{port}"))
}

/// Larger URLs get 414 before any file system work.
const MAX_URL: usize = 8 * 1024;
/// Larger heads (names, values and separators of all headers) get 431.
const MAX_HEADERS: usize = 64 * 1024;

/// What a request is answered with, from its head alone.
#[derive(Debug, PartialEq)]
enum Routed {
    Status(StatusCode),
    /// A path under `/__vatcar-site/`.
    Live(live::Route),
    Files(RequestPath),
}

/// Routes a request for `path` and `query` whose headers take `head` bytes. The reserved
/// prefix is matched on the decoded, normalised path, as files are looked up, so that no
/// spelling of a path reaches a file in a folder of the server's own name.
fn route(path: &str, query: Option<&str>, head: usize) -> Routed {
    let length = path.len() + query.map_or(0, |query| query.len() + 1);
    if head > MAX_HEADERS {
        return Routed::Status(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
    }
    if length > MAX_URL {
        return Routed::Status(StatusCode::URI_TOO_LONG);
    }
    match RequestPath::parse(path) {
        Err(code) => Routed::Status(code),
        Ok(target) => match target.names.split_first() {
            Some((first, rest)) if first == live::RESERVED => {
                Routed::Live(live::route(rest, query.unwrap_or_default()))
            }
            _ => Routed::Files(target),
        },
    }
}

async fn answer(
    root: Arc<Path>,
    changes: Arc<ServedBuild>,
    sample: bool,
    request: Request<Incoming>,
) -> Response<Body> {
    let head: usize = request
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 4)
        .sum();
    let uri = request.uri();
    let mut response = match route(uri.path(), uri.query(), head) {
        Routed::Status(code) => files::status(code),
        Routed::Live(route) => live::respond(&changes, &route, sample).await,
        Routed::Files(target) => {
            // Read before the file is: a page read during a rebuild then carries the older
            // generation and reloads once more, rather than missing the change.
            let generation = changes.current();
            let looked_up =
                tokio::task::spawn_blocking(move || files::respond(&root, &target, generation));
            // Failing to look (a panic) answers 500 and ends nothing else.
            looked_up
                .await
                .unwrap_or_else(|_| files::status(StatusCode::INTERNAL_SERVER_ERROR))
        }
    };
    if !hyper::body::Body::is_end_stream(request.body()) {
        // A body is never wanted; closing rather than reading it means a client trickling one
        // cannot keep the connection.
        response.headers_mut().insert(
            header::CONNECTION,
            header::HeaderValue::from_static("close"),
        );
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(names: &[&str], slash: bool) -> Routed {
        let path = format!("/{}{}", names.join("/"), if slash { "/" } else { "" });
        Routed::Files(RequestPath::parse(&path).unwrap())
    }

    #[test]
    fn the_reserved_prefix_is_matched_on_the_decoded_normalised_path() {
        let changes = Routed::Live(live::Route::Changes { since: Some(7) });
        for path in [
            "/__vatcar-site/changes",
            "//__vatcar-site/changes",
            "/%5F%5Fvatcar-site/changes",
            "/%5f%5fvatcar-site%2Fchanges",
            "/./__vatcar-site/./changes",
            "///__vatcar-site//changes",
        ] {
            assert_eq!(route(path, Some("since=7"), 0), changes, "{path}");
        }
        assert_eq!(
            route("/__vatcar-site/live-reload.js", None, 0),
            Routed::Live(live::Route::Script)
        );
        assert_eq!(
            route("/__vatcar-site/page.html", None, 0),
            Routed::Live(live::Route::Unknown)
        );
        // Only as the first name, and only as written; files::resolve refuses the rest.
        assert_eq!(
            route("/events/__vatcar-site/changes", None, 0),
            target(&["events", "__vatcar-site", "changes"], false)
        );
        assert_eq!(
            route("/__VATCAR-SITE/changes", None, 0),
            target(&["__VATCAR-SITE", "changes"], false)
        );
        assert_eq!(
            route("/../__vatcar-site/changes", None, 0),
            Routed::Status(StatusCode::NOT_FOUND)
        );
        assert_eq!(route("/events/", None, 0), target(&["events"], true));
    }

    #[test]
    fn urls_and_heads_over_the_limits_are_refused_before_looking() {
        let long = format!("/{}", "a".repeat(MAX_URL));
        assert_eq!(
            route(&long, None, 0),
            Routed::Status(StatusCode::URI_TOO_LONG)
        );
        let fits = format!("/{}", "a".repeat(MAX_URL - 1));
        assert_eq!(route(&fits, None, 0), target(&[&fits[1..]], false));
        assert_eq!(
            route("/a", Some(&"q".repeat(MAX_URL)), 0),
            Routed::Status(StatusCode::URI_TOO_LONG)
        );
        assert_eq!(
            route("/", None, MAX_HEADERS + 1),
            Routed::Status(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE)
        );
        assert_eq!(route("*", None, 0), Routed::Status(StatusCode::BAD_REQUEST));
    }
}
