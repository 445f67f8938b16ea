//! `vatcar-site serve` against hostile clients, over raw sockets: bytes a browser would never
//! send, symlinks out of the output folder, off-host redirects, clients that stop reading, and
//! oversized requests.

use crate::support::http::{Serving, connect, exchange, get, parse};
use crate::support::vatcar;
use std::fs;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// A running `serve --demo` in a folder of its own, killed when dropped.
struct Server {
    serving: Serving,
    output: PathBuf,
    tmp: tempfile::TempDir,
}

impl Server {
    fn port(&self) -> u16 {
        self.serving.port
    }
}

fn start() -> Server {
    let tmp = tempfile::tempdir().unwrap();
    let serving = Serving::start(
        vatcar(&["serve", "--demo", "--port", "0", "--output", "site"]).current_dir(tmp.path()),
    );
    Server {
        serving,
        output: tmp.path().join("site"),
        tmp,
    }
}

fn still_serving(server: &mut Server) {
    let home = get(server.port(), "/");
    assert_eq!(home.status, 200);
    assert!(home.text.contains("<h1>San Juan CERAP</h1>"));
    assert!(!server.serving.exited(), "the server exited");
}

#[test]
fn a_multibyte_character_after_a_percent_sign_does_not_stop_the_server() {
    let mut server = start();
    let raw = exchange(
        server.port(),
        b"GET /%a\xc3\xa9 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    );
    // tiny_http closes a connection whose head is not ASCII without answering; if it ever
    // passes such a request on, the answer must be a client error.
    if !raw.is_empty() {
        let status = parse(&raw).status;
        assert!((400..500).contains(&status), "{status}");
    }
    // The same bytes percent-encoded do reach the handler.
    for target in ["/%a%C3%A9", "/%a%c3", "/%ff%fe", "/events%00", "/%5Cevents"] {
        assert_eq!(get(server.port(), target).status, 404, "{target}");
    }
    still_serving(&mut server);
}

#[cfg(unix)]
#[test]
fn symlinks_out_of_the_output_folder_are_not_served() {
    use std::os::unix::fs::symlink;
    let mut server = start();
    const SECRET: &str = "secret-3f9c1e: not part of the site";
    let outside = server.tmp.path().join("outside");
    fs::create_dir(&outside).unwrap();
    fs::write(outside.join("secret.txt"), SECRET).unwrap();
    fs::write(outside.join("index.html"), SECRET).unwrap();
    symlink(&outside, server.output.join("evil")).unwrap();
    symlink(outside.join("secret.txt"), server.output.join("leak.txt")).unwrap();
    fs::create_dir(server.output.join("trap")).unwrap();
    symlink(
        outside.join("index.html"),
        server.output.join("trap/index.html"),
    )
    .unwrap();
    for target in [
        "/evil/secret.txt",
        "/evil/",
        "/evil",
        "/leak.txt",
        "/trap/",
        "/evil/%2E%2E/outside/secret.txt",
    ] {
        let answer = get(server.port(), target);
        assert_eq!(answer.status, 404, "{target}: {}", answer.text);
        assert!(!answer.text.contains(SECRET), "{target} leaked the secret");
    }
    // A symlink that stays inside is fine.
    symlink(
        server.output.join("static/style.css"),
        server.output.join("alias.css"),
    )
    .unwrap();
    assert_eq!(get(server.port(), "/alias.css").status, 200);
    still_serving(&mut server);
}

#[test]
fn folder_redirects_stay_on_this_host() {
    let mut server = start();
    for target in [
        "/events",
        "//events",
        "///events",
        "//events?to=//evil.example",
    ] {
        let answer = get(server.port(), target);
        assert_eq!(answer.status, 301, "{target}");
        assert_eq!(answer.header("Location"), Some("/events/"), "{target}");
    }
    assert_eq!(get(server.port(), "/\\events").status, 404);
    assert_eq!(get(server.port(), "//events/").status, 200);
    still_serving(&mut server);
}

#[test]
fn a_client_that_stops_reading_a_large_file_does_not_hold_up_others() {
    let mut server = start();
    // Far more than the kernel buffers on both ends hold, so the server's writes block.
    fs::write(server.output.join("big.bin"), vec![b'x'; 64 << 20]).unwrap();
    let mut stalled = connect(server.port());
    stalled
        .write_all(b"GET /big.bin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .unwrap();
    // And one that stops half way through its request line.
    let mut half = connect(server.port());
    half.write_all(b"GET /ro").unwrap();
    std::thread::sleep(Duration::from_millis(300));
    still_serving(&mut server);
    drop((stalled, half));
}

#[test]
fn a_client_pipelining_requests_it_never_reads_does_not_hold_up_others() {
    let mut server = start();
    let mut greedy = connect(server.port());
    // About 50 MB of answers, sent for but never read.
    let request = b"GET /roster/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    for _ in 0..4000 {
        greedy.write_all(request).unwrap();
    }
    std::thread::sleep(Duration::from_millis(300));
    still_serving(&mut server);
    // Several at once, so a single free worker would not be enough either.
    let port = server.port();
    let others: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(move || {
                parse(&exchange(
                    port,
                    b"GET /events/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                ))
                .status
            })
        })
        .collect();
    for other in others {
        assert_eq!(other.join().unwrap(), 200);
    }
    drop(greedy);
}

#[test]
fn oversized_urls_and_heads_are_refused_and_the_server_carries_on() {
    let mut server = start();
    let long = format!("/{}", "a".repeat(100 << 10));
    assert_eq!(get(server.port(), &long).status, 414);
    still_serving(&mut server);
    let filler = format!(
        "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: {}\r\nConnection: close\r\n\r\n",
        "b".repeat(70 << 10)
    );
    assert_eq!(
        parse(&exchange(server.port(), filler.as_bytes())).status,
        431
    );
    still_serving(&mut server);
}
