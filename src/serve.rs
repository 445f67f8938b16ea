//! `vatcar-site serve`: build, serve the output on 127.0.0.1, and rebuild when a file under
//! the templates folder changes, so a template author sees each change on reload.
//!
//! The data is fetched (or read) once; rebuilds render it again without the network. A
//! rebuild that fails prints its error and leaves the last good site being served.

use crate::build::{self, BuildOptions};
use crate::endpoint::Endpoint;
use crate::load::{self, Source};
use crate::progress::Progress;
use anyhow::{Context, Result};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

pub fn serve(options: &BuildOptions, port: u16, progress: &Progress) -> Result<()> {
    let snapshot = load::raw(&options.source, &Endpoint::SITE)?;
    let mut options = options.clone();
    options.source = Source::Loaded(Arc::new(snapshot));
    build::build(&options, progress)?;

    // The first look at the templates is taken before the address is announced, so that an
    // edit made the moment the server is up is seen as a change.
    let watched = options.templates.clone().map(|dir| {
        let seen = fingerprint(&dir);
        (dir, seen)
    });
    let server = tiny_http::Server::http(("127.0.0.1", port))
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
    let root = options.output.clone();
    for request in server.incoming_requests() {
        let response = respond(&root, request.url());
        let _ = request.respond(response);
    }
    Ok(())
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

type Response = tiny_http::Response<std::io::Cursor<Vec<u8>>>;

/// A static host's behaviour: `/dir/` serves `dir/index.html`, `/dir` redirects to `/dir/`,
/// anything else missing is a 404 with `404.html`.
fn respond(root: &Path, url: &str) -> Response {
    let path = url.split(['?', '#']).next().unwrap_or("/");
    let decoded = percent_decode(path);
    let relative = Path::new(decoded.trim_start_matches('/'));
    if relative
        .components()
        .any(|c| !matches!(c, Component::Normal(_)))
    {
        return not_found(root);
    }
    let target = root.join(relative);
    if target.is_dir() {
        if !path.ends_with('/') {
            let header = tiny_http::Header::from_bytes("Location", format!("{path}/"))
                .expect("valid header");
            return tiny_http::Response::from_data(Vec::new())
                .with_status_code(301)
                .with_header(header);
        }
        return file(&target.join("index.html"), 200).unwrap_or_else(|| not_found(root));
    }
    file(&target, 200).unwrap_or_else(|| not_found(root))
}

fn not_found(root: &Path) -> Response {
    file(&root.join("404.html"), 404).unwrap_or_else(|| {
        tiny_http::Response::from_data(b"not found".to_vec()).with_status_code(404)
    })
}

fn file(path: &Path, status: u16) -> Option<Response> {
    let bytes = std::fs::read(path).ok()?;
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
        tiny_http::Response::from_data(bytes)
            .with_status_code(status)
            .with_header(header),
    )
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(byte) = u8::from_str_radix(&text[i + 1..i + 3], 16)
        {
            out.push(byte);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
