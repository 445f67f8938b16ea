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

mod bursts;
mod files;
mod live;
mod watch;

use super::args::ServeArgs;
use super::build;
use super::options::BuildOptions;
use super::progress::Progress;
use super::settings::{site_options, site_over};
use crate::fetch::endpoint::Endpoint;
use crate::fetch::load::{self, Source};
use crate::secret::ApiKey;
use crate::settings::{DEFAULT_FILE, Settings};
use anyhow::{Context, Result};
use live::ServedBuild;
use std::path::PathBuf;
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
    // The bookings list too, read once as the API is (and while it is), for every rebuild;
    // `None` where the build takes it from its snapshot or the live page is off.
    let fetching = crate::cmd::side_reads::fetch_bookings_meanwhile(&options);
    let snapshot = load::raw(&options.source, &Endpoint::SITE)?;
    options.bookings =
        fetching.map(|thread| Arc::new(thread.join().expect("fetching does not panic")));
    options.source = Source::Loaded(Arc::new(snapshot));

    let reconfigure: watch::Reconfigure = Box::new({
        let (source, site) = (args.source.clone(), args.site.clone());
        let explicit = config.path.clone();
        let first = options.clone();
        let progress = progress.clone();
        move || {
            // Read as at startup: the file given, or `vatcar-site.toml` if there is one now.
            let settings = site_over(&source.api, &site, Settings::load(explicit.as_deref())?);
            let mut fresh = site_options(&source, &site, &settings, progress.clone(), None)?;
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
    let config_file = (config.path.clone()).unwrap_or_else(|| PathBuf::from(DEFAULT_FILE));
    let watcher = watch::Watcher {
        reconfigure,
        config_file,
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
    let listener = std::net::TcpListener::bind(("127.0.0.1", port));
    listener.and_then(|listener| listener.set_nonblocking(true).map(|()| listener)).map_err(|error| {
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
    // Counted, so that a rebuild leaves out what this build said already.
    crate::cmd::repeats::next_build();
    build::build(options, progress)?;
    crate::cmd::repeats::build_ended();
    watcher.speak();
    // Resolved once: every file served must be under this real path, wherever the output
    // folder's own name points.
    let root = (options.output.canonicalize())
        .with_context(|| format!("could not resolve {}", options.output.display()))?;

    // Watched before the address is announced, so that an edit made the moment the server is
    // up is seen as a change.
    let folders = watcher.folders();
    let watching = watcher.watch();
    let address = (listener.local_addr()).context("could not read the address")?;
    let mut sources = vec![watcher.config_file.display().to_string()];
    sources.extend(folders.iter().map(|f| f.display().to_string()));
    progress.done(&format!(
        "serving {} at http://{address}/ (Ctrl-C to stop); rebuilding when {} changes{}, and reloading open pages",
        options.output.display(),
        sources.join(", "),
        watching.watch_mode()
    ));

    let served = files::Served::new(root.clone(), Arc::clone(&watcher.changes), sample);
    watcher.served = root;
    std::thread::spawn(move || watcher.run(watching));
    // One thread answers; files are read on tokio's blocking threads.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .thread_name("vatcar-site-serve")
        .build()
        .context("could not start the server")?;
    let app = axum::Router::new()
        .fallback(files::answer)
        .with_state(served);
    // Runs until the process is stopped (Ctrl-C: see `cmd::stop_on_signals`).
    runtime
        .block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener)?;
            axum::serve(listener, app).await
        })
        .with_context(|| format!("could not listen on 127.0.0.1:{port}"))
}
