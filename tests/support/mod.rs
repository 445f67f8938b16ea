//! A small HTTP/1.1 server on 127.0.0.1 for integration tests: scripted replies per path,
//! delays, bodies that trickle in byte by byte, and a log of every request received.
//!
//! Hand-written rather than a mock crate because the tests need what those do not offer
//! together: a body sent slower than the client's deadline, a reply that never comes, raw
//! non-JSON bytes, and request timestamps for checking that fetches overlap.

#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

#[derive(Clone, Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Wait this long before sending anything.
    pub delay: Duration,
    /// Wait this long between single bytes of the body.
    pub trickle: Option<Duration>,
}

impl Reply {
    pub fn json(status: u16, body: impl Into<Vec<u8>>) -> Self {
        Self {
            status,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: body.into(),
            delay: Duration::ZERO,
            trickle: None,
        }
    }

    pub fn ok(body: impl Into<Vec<u8>>) -> Self {
        Self::json(200, body)
    }

    pub fn status(status: u16) -> Self {
        Self::json(status, Vec::new())
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.headers.push((name.into(), value.into()));
        self
    }

    pub fn delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    pub fn trickle(mut self, per_byte: Duration) -> Self {
        self.trickle = Some(per_byte);
        self
    }
}

#[derive(Clone, Debug)]
pub struct Logged {
    pub method: String,
    /// Path and query as requested.
    pub target: String,
    /// Header names lower-cased.
    pub headers: HashMap<String, String>,
    pub received: Instant,
    pub answered: Option<Instant>,
}

#[derive(Default)]
struct State {
    /// Replies per path; the last one repeats.
    routes: HashMap<String, Vec<Reply>>,
    log: Vec<Logged>,
}

pub struct MockServer {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
}

impl MockServer {
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(Mutex::new(State::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let (state2, stop2) = (state.clone(), stop.clone());
        thread::spawn(move || {
            for stream in listener.incoming() {
                if stop2.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let state = state2.clone();
                thread::spawn(move || handle(stream, state));
            }
        });
        Self { addr, state, stop }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Replies for `path`, in order; the last one keeps being sent.
    pub fn route(&self, path: &str, replies: Vec<Reply>) {
        assert!(!replies.is_empty());
        self.state
            .lock()
            .unwrap()
            .routes
            .insert(path.into(), replies);
    }

    pub fn log(&self) -> Vec<Logged> {
        self.state.lock().unwrap().log.clone()
    }

    pub fn hits(&self, path: &str) -> usize {
        self.log().iter().filter(|l| l.target == path).count()
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
    }
}

fn handle(stream: TcpStream, state: Arc<Mutex<State>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or("").to_owned();
    let target = parts.next().unwrap_or("").to_owned();
    let mut headers = HashMap::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_owned());
        }
    }
    let length: usize = headers
        .get("content-length")
        .and_then(|l| l.parse().ok())
        .unwrap_or(0);
    let mut request_body = vec![0; length];
    let _ = reader.read_exact(&mut request_body);

    let received = Instant::now();
    let (index, reply) = {
        let mut state = state.lock().unwrap();
        let path = target.split('?').next().unwrap_or("").to_owned();
        let hits = state
            .log
            .iter()
            .filter(|l| l.target.split('?').next() == Some(&path))
            .count();
        let reply = match state.routes.get(&path) {
            Some(replies) => replies[hits.min(replies.len() - 1)].clone(),
            None => Reply::json(404, br#"{"error":"no such route in the mock"}"#.to_vec()),
        };
        state.log.push(Logged {
            method,
            target,
            headers,
            received,
            answered: None,
        });
        (state.log.len() - 1, reply)
    };
    let _ = send(stream, &reply);
    state.lock().unwrap().log[index].answered = Some(Instant::now());
}

fn send(mut stream: TcpStream, reply: &Reply) -> std::io::Result<()> {
    thread::sleep(reply.delay);
    let mut head = format!("HTTP/1.1 {} Mock\r\n", reply.status);
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        reply.body.len()
    ));
    stream.write_all(head.as_bytes())?;
    match reply.trickle {
        None => stream.write_all(&reply.body)?,
        Some(pause) => {
            for byte in &reply.body {
                stream.write_all(std::slice::from_ref(byte))?;
                stream.flush()?;
                thread::sleep(pause);
            }
        }
    }
    stream.flush()
}

/// A port on 127.0.0.1 where nothing listens.
pub fn closed_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// The demo data's response bodies, as the API would send them.
pub fn demo_body(file: &str) -> Vec<u8> {
    std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/demo/").to_owned() + file).unwrap()
}

/// A mock serving the demo data on all four site endpoints.
pub fn demo_api() -> MockServer {
    let server = MockServer::start();
    for (path, file) in [
        ("/api/v2/facility/roster", "facility-roster.json"),
        ("/api/v2/facility/events", "facility-events.json"),
        ("/api/v2/facility/documents", "facility-documents.json"),
        ("/api/v2/division/events", "division-events.json"),
    ] {
        server.route(path, vec![Reply::ok(demo_body(file))]);
    }
    server
}

/// The real binary, with none of the environment that would change what it does.
pub fn vatcar(args: &[&str]) -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_vatcar-site"));
    command
        .args(args)
        .env_remove("VATCAR_API_KEY")
        .env_remove("VATCAR_BASE_URL")
        .env_remove("SOURCE_DATE_EPOCH")
        .env_remove("CI");
    command
}

/// Every file below `dir`, by relative path with `/`, with its bytes.
pub fn tree(dir: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    fn walk(
        root: &std::path::Path,
        dir: &std::path::Path,
        out: &mut std::collections::BTreeMap<String, Vec<u8>>,
    ) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let rel = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = std::collections::BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// Two folder contents are the same, naming the files that differ (never dumping bytes).
pub fn assert_same_files(
    a: &std::collections::BTreeMap<String, Vec<u8>>,
    b: &std::collections::BTreeMap<String, Vec<u8>>,
) {
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "different files"
    );
    let differing: Vec<&String> = a.keys().filter(|k| a[*k] != b[*k]).collect();
    assert!(differing.is_empty(), "these files differ: {differing:?}");
}

/// The text of each element matching `css`, white space folded.
pub fn texts(html: &scraper::Html, css: &str) -> Vec<String> {
    html.select(&scraper::Selector::parse(css).unwrap())
        .map(|e| {
            e.text()
                .collect::<Vec<_>>()
                .join(" ")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// Every character of `text` as a JSON `\u` escape, as a server may echo a key.
pub fn unicode_escaped(text: &str) -> String {
    text.chars()
        .map(|c| format!("\\u{:04x}", c as u32))
        .collect()
}
