//! `vatcar-site serve` as a child process, and a raw HTTP/1.1 client to talk to it: plain
//! sockets, so that tests can send bytes no browser or HTTP library would.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// How long any one socket wait may take before the test fails instead of hanging. A safety
/// bound, not a speed target.
const PATIENCE: Duration = Duration::from_secs(10);

/// A running `vatcar-site serve`, killed when dropped (pass or fail) so that no server
/// outlives its test (an orphan holding the test's output open would stall the whole run).
pub struct Serving {
    child: Child,
    pub port: u16,
    /// Everything it printed on stderr so far.
    stderr: Arc<(Mutex<String>, Condvar)>,
}

impl Serving {
    /// Spawns `command` (a `serve` with `--port 0`) and waits until it prints its address.
    pub fn start(command: &mut Command) -> Serving {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Read on another thread for as long as the server runs, so that the server never
        // blocks on a full pipe and a server that never prints fails the test by timeout.
        let mut pipe = child.stderr.take().unwrap();
        let stderr = Arc::new((Mutex::new(String::new()), Condvar::new()));
        std::thread::spawn({
            let stderr = Arc::clone(&stderr);
            move || {
                let mut buf = [0u8; 1024];
                while let Ok(n) = pipe.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    let (text, grown) = &*stderr;
                    text.lock()
                        .unwrap()
                        .push_str(&String::from_utf8_lossy(&buf[..n]));
                    grown.notify_all();
                }
            }
        });
        let mut serving = Serving {
            child,
            port: 0,
            stderr,
        };
        let seen = serving.printed(0, "http://127.0.0.1:");
        serving.port = seen
            .split("http://127.0.0.1:")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .and_then(|port| port.parse().ok())
            .unwrap_or_else(|| panic!("no address in: {seen}"));
        serving
    }

    /// How much it has printed on stderr so far: a mark for [`Serving::printed`].
    pub fn mark(&self) -> usize {
        self.stderr.0.lock().unwrap().len()
    }

    /// What it printed on stderr after `mark`, once that holds `needle` and a line break
    /// after it. Fails the test after 60 seconds without.
    pub fn printed(&self, mark: usize, needle: &str) -> String {
        let (text, grown) = &*self.stderr;
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut text = text.lock().unwrap();
        loop {
            let after = &text[mark.min(text.len())..];
            if let Some(at) = after.find(needle)
                && after[at..].contains('\n')
            {
                return after.to_owned();
            }
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "no {needle:?} printed after: {after}");
            text = grown.wait_timeout(text, left).unwrap().0;
        }
    }

    /// The server's process id.
    #[cfg(unix)]
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// How the server process ended, once it has; fails the test after 60 seconds without.
    #[cfg(unix)]
    pub fn ended(&mut self) -> std::process::ExitStatus {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "the server did not stop");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Whether the server process has ended.
    pub fn exited(&mut self) -> bool {
        self.child.try_wait().unwrap().is_some()
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn connect(port: u16) -> TcpStream {
    let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    stream.set_write_timeout(Some(PATIENCE)).unwrap();
    stream
}

/// Sends `raw` and reads until the server closes the connection.
pub fn exchange(port: u16, raw: &[u8]) -> Vec<u8> {
    let mut stream = connect(port);
    stream.write_all(raw).unwrap();
    let mut response = Vec::new();
    match stream.read_to_end(&mut response) {
        Ok(_) => response,
        // The server may close while unread request bytes are still arriving: a reset.
        Err(e) if e.kind() == ErrorKind::ConnectionReset => response,
        Err(e) => panic!(
            "no complete answer within {PATIENCE:?} ({e}); got {:?}",
            String::from_utf8_lossy(&response)
        ),
    }
}

/// An HTTP answer: its status, and the whole of it (head and body) as text.
pub struct Answer {
    pub status: u16,
    pub text: String,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        let head = self.text.split("\r\n\r\n").next().unwrap();
        head.lines().skip(1).find_map(|line| {
            let (field, value) = line.split_once(':')?;
            field
                .eq_ignore_ascii_case(name)
                .then_some(value.trim_start())
        })
    }
}

pub fn parse(response: &[u8]) -> Answer {
    let text = String::from_utf8_lossy(response).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP answer: {text:?}"));
    Answer { status, text }
}

/// `GET target` on 127.0.0.1:`port`, on a connection of its own.
pub fn get(port: u16, target: &str) -> Answer {
    parse(&exchange(
        port,
        format!("GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").as_bytes(),
    ))
}
