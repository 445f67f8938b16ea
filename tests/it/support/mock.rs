//! A small HTTP/1.1 server on 127.0.0.1 for integration tests: scripted replies per path,
//! delays, bodies that trickle in byte by byte, copies kept as a CDN's edge keeps them, and a
//! log of every request received.
//!
//! Hand-written rather than a mock crate because the tests need what those do not offer
//! together: a body sent slower than the client's deadline, a reply that never comes, raw
//! non-JSON bytes, and request timestamps for checking that fetches overlap.
//!
//! Routes are named by [`Endpoint`], so that the mock serves where the client asks; the one
//! test that pins the paths themselves is in `client.rs`.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};
use vatcar_site::fetch::endpoint::Endpoint;

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
    /// When the answer began to be written (after its delay).
    pub answered: Option<Instant>,
    /// The request's body, as sent (a webhook's post).
    pub body: Vec<u8>,
}

#[derive(Default)]
struct State {
    /// Replies per path; the last one repeats.
    routes: HashMap<String, Vec<Reply>>,
    /// A CDN's copies, by the whole target (path and query): see [`MockServer::edge_copy`].
    edge: HashMap<String, Reply>,
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

    /// `reply` to every request for `endpoint`.
    pub fn reply(&self, endpoint: Endpoint, reply: Reply) {
        self.replies(endpoint, vec![reply]);
    }

    /// `replies` to the requests for `endpoint`, in order; the last one keeps being sent.
    pub fn replies(&self, endpoint: Endpoint, replies: Vec<Reply>) {
        self.route_path(&endpoint.path(), replies);
    }

    /// Replies for a path as it goes over the wire, for the few tests about paths no
    /// [`Endpoint`] names (a base URL with a prefix, a redirect target).
    pub fn route_path(&self, path: &str, replies: Vec<Reply>) {
        assert!(!replies.is_empty());
        self.state
            .lock()
            .unwrap()
            .routes
            .insert(path.into(), replies);
    }

    /// A copy a CDN's edge keeps of `target` (path and query, as requested): a request for
    /// exactly that target gets it, whatever the route now says and whatever the request's
    /// `Cache-Control` (as a CDN keeps a file for its lifetime, ignoring a client's
    /// `no-cache`); another query is another address, which the edge has not kept.
    pub fn edge_copy(&self, target: &str, reply: Reply) {
        self.state.lock().unwrap().edge.insert(target.into(), reply);
    }

    pub fn log(&self) -> Vec<Logged> {
        self.state.lock().unwrap().log.clone()
    }

    /// How many requests for `endpoint` arrived.
    pub fn hits(&self, endpoint: Endpoint) -> usize {
        let path = endpoint.path();
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
        let reply = match (state.edge.get(&target), state.routes.get(&path)) {
            (Some(copy), _) => copy.clone(),
            (None, Some(replies)) => replies[hits.min(replies.len() - 1)].clone(),
            (None, None) => Reply::json(404, br#"{"error":"no such route in the mock"}"#.to_vec()),
        };
        state.log.push(Logged {
            method,
            target,
            headers,
            received,
            answered: None,
            body: request_body,
        });
        (state.log.len() - 1, reply)
    };
    thread::sleep(reply.delay);
    // Marked as the answer starts: marked after it, a client that had read it and asked again
    // could be seen overlapping it on a loaded machine (3 in flight of 2).
    state.lock().unwrap().log[index].answered = Some(Instant::now());
    let _ = send(stream, &reply);
}

fn send(mut stream: TcpStream, reply: &Reply) -> std::io::Result<()> {
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

/// Where the mocks serve the ATC bookings list, as VATSIM's bookings API does.
pub const BOOKINGS_PATH: &str = "/api/booking";

/// A port on 127.0.0.1 where nothing listens.
pub fn closed_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}
