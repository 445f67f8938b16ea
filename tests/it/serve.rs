//! `vatcar-site serve` against hostile clients, over raw sockets: bytes a browser would never
//! send, symlinks out of the output folder, off-host redirects, clients that stop reading, and
//! oversized requests.

use crate::support::http::{Serving, connect, exchange, get, parse};
use crate::support::vatcar;
use std::fs;
use std::io::{Read, Write};
use std::net::TcpStream;
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
    assert!(
        home.text
            .contains("<span class=\"brand-name\">San Juan CERAP</span>")
    );
    assert!(!server.serving.exited(), "the server exited");
}

#[test]
fn a_multibyte_character_after_a_percent_sign_does_not_stop_the_server() {
    let mut server = start();
    let raw = exchange(
        server.port(),
        b"GET /%a\xc3\xa9 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    );
    // Bytes that are not ASCII in a request line: the server may close the connection
    // without an answer, but whatever it answers must be a client error.
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
    for (target, location) in [
        ("/events", "/events/"),
        ("//events", "/events/"),
        ("///events", "/events/"),
        ("//events?to=//evil.example", "/events/?to=//evil.example"),
    ] {
        let answer = get(server.port(), target);
        // Temporary, as tower-http's ServeDir answers: a preview's folders may become files.
        assert_eq!(answer.status, 307, "{target}");
        assert_eq!(answer.header("Location"), Some(location), "{target}");
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

/// The rest of an answer whose start was read already: its `Content-Length`, and how many
/// body bytes came before the server closed the connection.
fn rest_of_answer(stream: &mut TcpStream) -> (Option<u64>, u64) {
    let mut length = None;
    let mut line = Vec::new();
    let mut byte = [0u8];
    // What is left of the status line, the header lines, the empty line.
    loop {
        stream.read_exact(&mut byte).unwrap();
        line.push(byte[0]);
        if line.ends_with(b"\r\n") {
            if line == b"\r\n" {
                break;
            }
            let text = String::from_utf8_lossy(&line).to_ascii_lowercase();
            if let Some(value) = text.strip_prefix("content-length:") {
                length = value.trim().parse().ok();
            }
            line.clear();
        }
    }
    let mut body = 0u64;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match stream.read(&mut buf) {
            // A reset, or a read timeout: the body ends short.
            Ok(0) | Err(_) => return (length, body),
            Ok(n) => body += n as u64,
        }
    }
}

#[test]
fn clients_that_never_read_a_large_file_do_not_hold_up_a_page_load() {
    let mut server = start();
    // Far more than the kernel buffers on both ends hold, so the server's writes block.
    const SIZE: u64 = 64 << 20;
    fs::write(server.output.join("big.bin"), vec![b'x'; SIZE as usize]).unwrap();
    // Each asks for the file and reads the first bytes of the answer, so the server is
    // known to be sending to all of them, and then reads nothing more for now. Eight held
    // up every page load of the server this replaced (a pool of eight workers).
    let stalled: Vec<TcpStream> = (0..8)
        .map(|_| {
            let mut stream = connect(server.port());
            stream
                .write_all(b"GET /big.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                .unwrap();
            let mut first = [0u8; 12];
            stream.read_exact(&mut first).unwrap();
            assert_eq!(&first, b"HTTP/1.1 200");
            stream
        })
        .collect();

    // The page comes while the server still sends to every stalled client. The generous
    // wait only keeps a broken server from hanging the test; a server that answers only by
    // giving up on the stalled clients fails below.
    let mut page = connect(server.port());
    page.set_read_timeout(Some(Duration::from_secs(120)))
        .unwrap();
    page.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut raw = Vec::new();
    page.read_to_end(&mut raw).unwrap();
    let home = parse(&raw);
    assert_eq!(home.status, 200);
    assert!(
        home.text
            .contains("<span class=\"brand-name\">San Juan CERAP</span>")
    );

    // Each stalled client, reading again now, gets the whole file: none was cut off for
    // the page to be served. All read at once, so none waits on another.
    let readers: Vec<_> = stalled
        .into_iter()
        .map(|mut stream| {
            std::thread::spawn(move || {
                stream
                    .set_read_timeout(Some(Duration::from_secs(60)))
                    .unwrap();
                rest_of_answer(&mut stream)
            })
        })
        .collect();
    for reader in readers {
        assert_eq!(reader.join().unwrap(), (Some(SIZE), SIZE));
    }
    still_serving(&mut server);
}

#[test]
fn idle_connections_cost_no_thread_each_and_do_not_hold_up_a_page_load() {
    let mut server = start();
    // More than the server keeps open at once (512): the newest make the oldest leave.
    const IDLE: usize = 600;
    // Connected and silent, or stopped half way through a request line.
    let idle: Vec<TcpStream> = (0..IDLE)
        .map(|i| {
            let mut stream = connect(server.port());
            if i % 2 == 1 {
                stream.write_all(b"GET /ro").unwrap();
            }
            stream
        })
        .collect();
    // Asked for after all of them, so accepted after them.
    still_serving(&mut server);
    #[cfg(target_os = "linux")]
    {
        let status = fs::read_to_string(format!("/proc/{}/status", server.serving.pid())).unwrap();
        let threads: usize = status
            .lines()
            .find_map(|line| line.strip_prefix("Threads:"))
            .and_then(|n| n.trim().parse().ok())
            .unwrap();
        assert!(
            threads < IDLE / 2,
            "{threads} threads for {IDLE} idle connections"
        );
    }
    drop(idle);
}

#[test]
fn files_in_a_folder_named_as_the_servers_own_paths_are_never_served() {
    let mut server = start();
    const MINE: &str = "mine-5d2a: put into the output by hand";
    // The build refuses such folders; put there by hand after it, they are still not served.
    for folder in ["__vatcar-site", "events/__vatcar-site"] {
        let folder = server.output.join(folder);
        fs::create_dir_all(&folder).unwrap();
        for name in ["page.txt", "index.html", "live-reload.js", "changes"] {
            fs::write(folder.join(name), MINE).unwrap();
        }
    }
    #[cfg(unix)]
    std::os::unix::fs::symlink(
        server.output.join("__vatcar-site"),
        server.output.join("alias"),
    )
    .unwrap();
    for target in [
        "/__vatcar-site/page.txt",
        "/__vatcar-site/",
        "/%5F%5Fvatcar-site/page.txt",
        "/%5f%5fvatcar-site/",
        "//__vatcar-site/page.txt",
        "/./__vatcar-site/page.txt",
        "/%2E/__vatcar-site/index.html",
        "/events/__vatcar-site/page.txt",
        "/events/%5F%5Fvatcar-site/page.txt",
        "/events//__vatcar-site/",
        "/__VATCAR-SITE/page.txt",
        "/alias/page.txt",
    ] {
        let answer = get(server.port(), target);
        assert_eq!(answer.status, 404, "{target}: {}", answer.text);
        assert!(!answer.text.contains(MINE), "{target} served the file");
    }
    // However the server's own paths are spelled, they are the server's.
    for target in [
        "/%5F%5Fvatcar-site/live-reload.js",
        "//__vatcar-site/live-reload.js",
        "/./__vatcar-site//live-reload.js",
    ] {
        let answer = get(server.port(), target);
        assert_eq!(answer.status, 200, "{target}");
        assert!(body(&answer).contains("location.reload()"), "{target}");
    }
    for target in ["//__vatcar-site/changes", "/%5F%5Fvatcar-site%2Fchanges"] {
        let answer = get(server.port(), target);
        assert_eq!(answer.status, 200, "{target}");
        assert!(
            body(&answer).trim().parse::<u64>().is_ok(),
            "{target}: {}",
            answer.text
        );
    }
    still_serving(&mut server);
}

#[test]
fn oversized_urls_and_heads_are_refused_and_the_server_carries_on() {
    // hyper's bounds: a URL of 64 KiB, a head of about 400 KiB.
    let mut server = start();
    let long = format!("/{}", "a".repeat(100 << 10));
    assert_eq!(get(server.port(), &long).status, 414);
    still_serving(&mut server);
    let filler = format!(
        "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: {}\r\nConnection: close\r\n\r\n",
        "b".repeat(500 << 10)
    );
    assert_eq!(
        parse(&exchange(server.port(), filler.as_bytes())).status,
        431
    );
    still_serving(&mut server);
}

// Live reload: a site folder as a webmaster has it (config file, static/, content/ and a
// templates folder), served; its files are changed while a page waits for the signal.

const SCRIPT: &str = "/__vatcar-site/live-reload.js";

/// A served site folder: `vatcar-site.toml` titled "First Title", `static/extra.css`,
/// `content/` and `theme/static/style.css`, built into `site/`.
fn start_site() -> Server {
    start_site_with(&[])
}

/// [`start_site`], with more flags for `serve`.
fn start_site_with(flags: &[&str]) -> Server {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    fs::write(dir.join("vatcar-site.toml"), "title = \"First Title\"\n").unwrap();
    fs::create_dir_all(dir.join("static")).unwrap();
    fs::write(dir.join("static/extra.css"), "p { color: black; }\n").unwrap();
    fs::create_dir_all(dir.join("content")).unwrap();
    fs::create_dir_all(dir.join("theme/static")).unwrap();
    fs::write(dir.join("theme/static/style.css"), "body { margin: 0; }\n").unwrap();
    let serving = Serving::start(
        vatcar(&[
            "serve",
            "--demo",
            "--port",
            "0",
            "--output",
            "site",
            "--templates",
            "theme",
        ])
        .args(flags)
        .current_dir(dir),
    );
    Server {
        serving,
        output: dir.join("site"),
        tmp,
    }
}

fn body(answer: &crate::support::http::Answer) -> &str {
    answer.text.split_once("\r\n\r\n").unwrap().1
}

/// The build being served, answered at once.
fn generation(port: u16) -> u64 {
    let answer = get(port, "/__vatcar-site/changes");
    assert_eq!(answer.status, 200, "{}", answer.text);
    body(&answer).trim().parse().unwrap()
}

/// What a page's script does: polls from `since` until the answer is another generation.
/// Each poll is answered after the server's own wait (20 s) at the latest; the deadline only
/// keeps a broken server from hanging the test.
fn next_generation(port: u16, since: u64) -> u64 {
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    loop {
        let mut stream = connect(port);
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        stream
            .write_all(
                format!(
                    "GET /__vatcar-site/changes?since={since} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                )
                .as_bytes(),
            )
            .unwrap();
        let mut raw = Vec::new();
        std::io::Read::read_to_end(&mut stream, &mut raw).unwrap();
        let answer = parse(&raw);
        assert_eq!(answer.status, 200, "{}", answer.text);
        let now: u64 = body(&answer).trim().parse().unwrap();
        if now != since {
            return now;
        }
        assert!(std::time::Instant::now() < deadline, "no reload signal");
    }
}

/// Starts a page's poll from the current generation, runs `change`, and gives the signal.
fn signal_after(server: &Server, change: impl FnOnce()) -> (u64, u64) {
    let port = server.port();
    let before = generation(port);
    let poll = std::thread::spawn(move || next_generation(port, before));
    change();
    (before, poll.join().unwrap())
}

#[test]
fn served_pages_carry_the_live_reload_script_and_the_built_files_do_not() {
    let server = start_site();
    let port = server.port();
    let now = generation(port);
    let tag = format!("<script src=\"{SCRIPT}\" data-generation=\"{now}\"></script>");
    for (target, file) in [
        ("/", "index.html"),
        ("/events/", "events/index.html"),
        ("/no/such/page", "404.html"),
    ] {
        let answer = get(port, target);
        let built = fs::read_to_string(server.output.join(file)).unwrap();
        // Not in the file: the demo's pages name the server's sample feed, not its script.
        assert!(!built.contains(SCRIPT), "{file}");
        // The page as built, with the tag after it and nothing else changed.
        assert_eq!(body(&answer), format!("{built}{tag}"), "{target}");
        assert_eq!(
            answer.header("Content-Length"),
            Some(body(&answer).len().to_string().as_str())
        );
    }
    // Other files are served as they are.
    let css = get(port, "/extra.css");
    assert_eq!(body(&css), "p { color: black; }\n");

    let script = get(port, SCRIPT);
    assert_eq!(script.status, 200);
    assert_eq!(
        script.header("Content-Type"),
        Some("text/javascript; charset=utf-8")
    );
    assert!(body(&script).contains("location.reload()"));
    assert!(body(&script).contains("/__vatcar-site/changes?since="));
    assert_eq!(get(port, "/__vatcar-site/other").status, 404);
    // Nothing of the server's own is written into the output folder.
    assert!(!server.output.join("__vatcar-site").exists());
}

/// The tag goes where a browser runs it, whatever text the page holds: never into a comment
/// or a textarea that happens to hold `</body>` (a page may leave out its own `</body>`, as
/// HTML allows).
#[test]
fn the_live_reload_script_is_never_put_inside_a_comment_or_a_textarea() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    fs::create_dir_all(dir.join("theme")).unwrap();
    fs::write(
        dir.join("theme/index.html"),
        "<!DOCTYPE html>\n<html lang=\"en\"><head><title>Home</title></head>\n<body><form>\
         <textarea name=\"note\">Pages end in </body></textarea></form>\n",
    )
    .unwrap();
    fs::write(
        dir.join("theme/404.html"),
        "<!DOCTYPE html>\n<html lang=\"en\"><head><title>Lost</title></head>\n\
         <body><p>Lost.</p></body></html>\n<!-- the old layout ended here: </body> -->\n",
    )
    .unwrap();
    let serving = Serving::start(
        vatcar(&[
            "serve",
            "--demo",
            "--port",
            "0",
            "--output",
            "site",
            "--templates",
            "theme",
        ])
        .current_dir(dir),
    );
    let port = serving.port;
    let tag = format!(
        "<script src=\"{SCRIPT}\" data-generation=\"{}\"></script>",
        generation(port)
    );
    for (target, closes) in [("/", "</textarea>"), ("/no/such/page", "-->")] {
        let answer = get(port, target);
        let page = body(&answer);
        assert_eq!(page.matches(&tag).count(), 1, "{target}: {page}");
        assert!(
            page.find(&tag) > page.rfind(closes),
            "{target}: the script is inside the {closes:?} it comes before: {page}"
        );
    }
}

#[test]
fn a_change_to_static_the_theme_or_the_config_file_signals_a_reload_of_the_rebuilt_site() {
    let mut server = start_site();
    let port = server.port();
    let dir = server.tmp.path().to_path_buf();

    let (before, after) = signal_after(&server, || {
        fs::write(dir.join("static/extra.css"), "p { color: red; }\n").unwrap()
    });
    assert!(after > before);
    assert_eq!(body(&get(port, "/extra.css")), "p { color: red; }\n");
    // The page served now waits from the new generation.
    assert!(body(&get(port, "/")).contains(&format!("data-generation=\"{after}\"")));

    let (before, after) = signal_after(&server, || {
        fs::write(
            dir.join("theme/static/style.css"),
            "body { margin: 1em; }\n",
        )
        .unwrap()
    });
    assert!(after > before);
    assert_eq!(
        body(&get(port, "/static/style.css")),
        "body { margin: 1em; }\n"
    );

    assert!(
        get(port, "/")
            .text
            .contains("<span class=\"brand-name\">First Title</span>")
    );
    let (before, after) = signal_after(&server, || {
        fs::write(dir.join("vatcar-site.toml"), "title = \"Second Title\"\n").unwrap()
    });
    assert!(after > before);
    assert!(
        get(port, "/")
            .text
            .contains("<span class=\"brand-name\">Second Title</span>")
    );

    // A file added to static/ reaches the site, and one removed leaves it.
    let (before, after) = signal_after(&server, || {
        fs::write(dir.join("static/new.txt"), "new\n").unwrap()
    });
    assert!(after > before);
    assert_eq!(get(port, "/new.txt").status, 200);
    let (before, after) = signal_after(&server, || {
        fs::remove_file(dir.join("static/new.txt")).unwrap()
    });
    assert!(after > before);
    assert_eq!(get(port, "/new.txt").status, 404);
    still_serving_at(&mut server);
}

#[test]
fn a_template_edit_reaches_the_pages_and_other_edits_rebuild_without_parsing_the_templates() {
    let server = start_site_with(&["-vv"]);
    let port = server.port();
    let dir = server.tmp.path().to_path_buf();
    let lost = |text: &str| {
        let page = format!(
            "<!DOCTYPE html>\n<html lang=\"en\"><head><title>Lost</title></head>\n<body><p>{text}</p></body></html>\n"
        );
        fs::write(dir.join("theme/404.html"), page).unwrap()
    };
    for text in ["Lost once.", "Lost twice."] {
        let (before, after) = signal_after(&server, || lost(text));
        assert!(after > before);
        assert!(body(&get(port, "/no/such/page")).contains(text), "{text}");
    }
    // A first content page adds the content templates; an edit to it, with the templates
    // and the words as the last build parsed them, is rebuilt from that parse.
    let about = dir.join("content/about.md");
    let mut mark = 0;
    for text in ["Hello.", "Hello again."] {
        mark = server.serving.mark();
        let (before, after) = signal_after(&server, || {
            fs::write(&about, format!("+++\ntitle = \"About\"\n+++\n{text}\n")).unwrap()
        });
        assert!(after > before);
        assert!(body(&get(port, "/about/")).contains(text));
    }
    server.serving.printed(mark, "not parsed again");
    assert!(body(&get(port, "/no/such/page")).contains("Lost twice."));
}

#[test]
fn a_rebuild_that_changes_nothing_signals_nothing_and_a_new_content_page_reloads() {
    let server = start_site();
    let port = server.port();
    let dir = server.tmp.path();
    let before = generation(port);

    // The same bytes again (a save without an edit): rebuilt, nothing written, so open
    // pages stay as they are.
    let mark = server.serving.mark();
    let css = fs::File::options()
        .write(true)
        .open(dir.join("static/extra.css"))
        .unwrap();
    let modified = css.metadata().unwrap().modified().unwrap();
    css.set_modified(modified + Duration::from_secs(10))
        .unwrap();
    drop(css);
    let printed = server.serving.printed(mark, "rebuilt after a change to");
    assert!(
        printed.contains("static/extra.css: the site is unchanged"),
        "{printed}"
    );
    assert_eq!(generation(port), before);

    // A page added to content/ is built, and open pages reload onto it.
    assert_eq!(get(port, "/about/").status, 404);
    let (before, after) = signal_after(&server, || {
        fs::write(
            dir.join("content/about.md"),
            "+++\ntitle = \"About\"\n+++\nAbout us.\n",
        )
        .unwrap()
    });
    assert!(after > before);
    let about = get(port, "/about/");
    assert_eq!(about.status, 200, "{}", about.text);
    assert!(about.text.contains("<p>About us.</p>"), "{}", about.text);
}

#[test]
fn a_config_file_that_no_longer_reads_keeps_the_site_and_shows_the_error_in_the_pages() {
    let server = start_site();
    let port = server.port();
    let dir = server.tmp.path().to_path_buf();
    let before = generation(port);
    let page = body(&get(port, "/")).to_owned();
    // A page waiting from before the config file breaks.
    let poll = std::thread::spawn(move || next_generation(port, before));

    let mark = server.serving.mark();
    fs::write(dir.join("vatcar-site.toml"), "title = \n").unwrap();
    let printed = server
        .serving
        .printed(mark, "still serving the last good build");
    assert!(printed.contains("error: vatcar-site.toml:1: "), "{printed}");
    // The waiting page is told, and finds the error to show over the last good site.
    let failed = poll.join().unwrap();
    assert_eq!(failed, before + 1);
    let errors = body(&get(port, "/__vatcar-site/errors")).to_owned();
    assert!(errors.starts_with("vatcar-site.toml:1: "), "{errors}");
    let generations = |text: &str, generation: u64| {
        text.replace(&format!("data-generation=\"{generation}\""), "")
    };
    assert_eq!(
        generations(body(&get(port, "/")), failed),
        generations(&page, before)
    );

    // While it is broken, other changes are not built either: the error is shown again.
    let mark = server.serving.mark();
    fs::write(dir.join("static/extra.css"), "p { color: blue; }\n").unwrap();
    server
        .serving
        .printed(mark, "still serving the last good build");
    assert_eq!(body(&get(port, "/extra.css")), "p { color: black; }\n");

    // Fixed, the site is rebuilt with both changes, the pages are told, and no error is left.
    let failed = generation(port);
    let poll = std::thread::spawn(move || next_generation(port, failed));
    fs::write(dir.join("vatcar-site.toml"), "title = \"Fixed Title\"\n").unwrap();
    assert_eq!(poll.join().unwrap(), failed + 1);
    assert_eq!(body(&get(port, "/__vatcar-site/errors")), "");
    assert!(
        get(port, "/")
            .text
            .contains("<span class=\"brand-name\">Fixed Title</span>")
    );
    assert_eq!(body(&get(port, "/extra.css")), "p { color: blue; }\n");
}

#[test]
fn waiting_pages_do_not_hold_up_page_loads() {
    let mut server = start_site();
    let port = server.port();
    let now = generation(port);
    // Far more waiting pages than a browser opens connections, or the machine has cores.
    let waiting: Vec<_> = (0..20)
        .map(|_| {
            let mut stream = connect(port);
            stream
                .write_all(
                    format!(
                        "GET /__vatcar-site/changes?since={now} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                    )
                    .as_bytes(),
                )
                .unwrap();
            stream
        })
        .collect();
    for target in ["/", "/events/", "/roster/", "/static/style.css", SCRIPT] {
        assert_eq!(get(port, target).status, 200, "{target}");
    }
    still_serving_at(&mut server);
    // And a change still reaches every one of them.
    fs::write(
        server.tmp.path().join("static/extra.css"),
        "p { color: red; }\n",
    )
    .unwrap();
    for mut stream in waiting {
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        let mut raw = Vec::new();
        std::io::Read::read_to_end(&mut stream, &mut raw).unwrap();
        let answer = parse(&raw);
        assert_eq!(answer.status, 200);
        assert_eq!(body(&answer).trim(), (now + 1).to_string());
    }
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_the_server_while_pages_wait_and_connections_idle() {
    let mut server = start_site();
    let port = server.port();
    let now = generation(port);
    let mut waiting = connect(port);
    waiting
        .write_all(
            format!("GET /__vatcar-site/changes?since={now} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                .as_bytes(),
        )
        .unwrap();
    let _idle = connect(port);
    still_serving_at(&mut server);
    let pid = server.serving.pid() as libc::pid_t;
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    assert_eq!(server.serving.ended().code(), Some(130));
    // The waiting page learns at once that the server is gone, and tries again later.
    let mut rest = Vec::new();
    let _ = waiting.read_to_end(&mut rest);
    assert!(rest.is_empty(), "{}", String::from_utf8_lossy(&rest));
}

fn still_serving_at(server: &mut Server) {
    let home = get(server.port(), "/");
    assert_eq!(home.status, 200);
    assert!(!server.serving.exited(), "the server exited");
}

// How editors save (mdBook's issues #383, #1441, #1707, #2035, #2102 name each): by rename,
// with swap and backup files beside, a folder removed and made again, a page in a new folder.

/// The lines saying a rebuild was made, in what was printed.
fn rebuilds(printed: &str) -> Vec<&str> {
    printed
        .lines()
        .filter(|line| line.contains("rebuilt after a change to"))
        .collect()
}

/// A page body, once the server answers 200 for it.
fn page_text(port: u16, target: &str) -> String {
    let answer = get(port, target);
    assert_eq!(answer.status, 200, "{target}: {}", answer.text);
    body(&answer).to_owned()
}

/// Waits, rebuild after rebuild from generation `since`, until the page at `target` shows
/// `text`: a save split in two by a busy machine reloads the pages twice.
fn showing(port: u16, mut since: u64, target: &str, text: &str) {
    for _ in 0..5 {
        let answer = get(port, target);
        if answer.status == 200 && body(&answer).contains(text) {
            return;
        }
        since = next_generation(port, since);
    }
    panic!("{target} does not show {text:?}");
}

/// Writes `text` to a file beside `path` and renames it over `path`, as editors that save
/// atomically do.
fn save_by_rename(path: &std::path::Path, text: &str) {
    let temp = path.with_file_name(format!(
        "{}.tmp-4821",
        path.file_name().unwrap().to_str().unwrap()
    ));
    fs::write(&temp, text).unwrap();
    fs::rename(&temp, path).unwrap();
}

/// Each save pattern, on a served site; `flags` say how serve watches.
fn editors_saves_are_seen(flags: &[&str]) {
    let server = start_site_with(flags);
    let port = server.port();
    let dir = server.tmp.path().to_path_buf();
    let page = |n: u32| format!("+++\ntitle = \"About\"\n+++\nVersion {n} of the page.\n");
    // Makes `change`, and waits until the reloaded page at `target` shows `text`.
    let saved = |change: &dyn Fn(), target: &str, text: &str| {
        let (before, after) = signal_after(&server, change);
        assert!(after > before, "{target}");
        showing(port, after, target, text);
    };
    let about = dir.join("content/about.md");
    saved(
        &|| fs::write(&about, page(0)).unwrap(),
        "/about/",
        "Version 0 of the page.",
    );

    // Saved by rename, twice: the second save is seen too (a watch on the file itself
    // would have followed the first file away).
    for n in [1, 2] {
        saved(
            &|| save_by_rename(&about, &page(n)),
            "/about/",
            &format!("Version {n} of the page."),
        );
    }
    // And the config file, the same way.
    for title in ["Renamed Title", "Renamed Again"] {
        saved(
            &|| {
                save_by_rename(
                    &dir.join("vatcar-site.toml"),
                    &format!("title = \"{title}\"\n"),
                )
            },
            "/",
            &format!("<span class=\"brand-name\">{title}</span>"),
        );
    }

    // A folder removed and made again, with a file changed in it: built, and watched anew.
    saved(
        &|| {
            fs::remove_dir_all(dir.join("static")).unwrap();
            fs::create_dir(dir.join("static")).unwrap();
            fs::write(dir.join("static/extra.css"), "p { color: green; }\n").unwrap();
        },
        "/extra.css",
        "p { color: green; }",
    );
    saved(
        &|| fs::write(dir.join("static/extra.css"), "p { color: navy; }\n").unwrap(),
        "/extra.css",
        "p { color: navy; }",
    );

    // A page in a folder that did not exist, and a later edit of it.
    let steps = dir.join("content/guides/first/steps.md");
    saved(
        &|| {
            fs::create_dir_all(steps.parent().unwrap()).unwrap();
            fs::write(&steps, page(3)).unwrap();
        },
        "/guides/first/steps/",
        "Version 3 of the page.",
    );
    saved(
        &|| fs::write(&steps, page(4)).unwrap(),
        "/guides/first/steps/",
        "Version 4 of the page.",
    );

    // Past the moment serve looks at the folders itself, to learn whether events come (they
    // do here): it goes on as it started, and a save is still seen.
    std::thread::sleep(Duration::from_millis(2500));
    saved(
        &|| fs::write(&steps, page(5)).unwrap(),
        "/guides/first/steps/",
        "Version 5 of the page.",
    );
    let printed = server.serving.printed(0, "steps.md: ");
    let polling = printed.contains("polling every");
    assert_eq!(polling, flags.contains(&"--poll"), "{printed}");
}

#[test]
fn saves_by_rename_folders_made_again_and_pages_in_new_folders_are_all_seen() {
    editors_saves_are_seen(&[]);
}

#[test]
fn with_poll_the_same_saves_are_seen_by_polling() {
    editors_saves_are_seen(&["--poll"]);
}

#[test]
fn serve_says_when_it_watches_by_polling() {
    let server = start_site_with(&["--poll"]);
    let printed = server.serving.printed(0, "http://127.0.0.1:");
    assert!(
        printed.contains("(polling every 0.3 s, as --poll asks)"),
        "{printed}"
    );
}

#[test]
fn an_editors_swap_and_backup_files_make_no_rebuild_of_their_own() {
    let server = start_site();
    let port = server.port();
    let dir = server.tmp.path().to_path_buf();
    let about = dir.join("content/about.md");
    signal_after(&server, || {
        fs::write(&about, "+++\ntitle = \"About\"\n+++\nFirst.\n").unwrap()
    });

    // Vim's save: its swap file, a probe that the folder takes new files, the old file kept
    // as a backup while the new one is written, then the backup removed.
    let mark = server.serving.mark();
    let (before, after) = signal_after(&server, || {
        fs::write(dir.join("content/.about.md.swp"), "swap").unwrap();
        fs::write(dir.join("content/4913"), "").unwrap();
        fs::remove_file(dir.join("content/4913")).unwrap();
        fs::rename(&about, dir.join("content/about.md~")).unwrap();
        fs::write(&about, "+++\ntitle = \"About\"\n+++\nSecond.\n").unwrap();
        fs::remove_file(dir.join("content/about.md~")).unwrap();
    });
    assert!(after > before);
    showing(port, after, "/about/", "Second.");
    // Every rebuild is the page's. (One save makes one rebuild, but a machine busy enough
    // to pause the test between two of these steps for longer than the quiet window splits
    // it in two: the count is not what is tested here.)
    let printed = server.serving.printed(mark, "rebuilt after a change to");
    let made = rebuilds(&printed);
    assert!(
        made.iter().all(|line| line.contains("content/about.md: ")),
        "{printed}"
    );

    // While the page is being edited, the editor writes its swap file again and again, and
    // other editors their own files; none of that is a change to the site. The rebuilds
    // from here to a change to static/ are that change's.
    let mark = server.serving.mark();
    for name in [".about.md.swp", ".about.md.swx", "#about.md#", ".#about.md"] {
        fs::write(dir.join("content").join(name), "typing").unwrap();
    }
    fs::write(dir.join("static/extra.css~"), "p { color: black; }\n").unwrap();
    std::thread::sleep(Duration::from_millis(500));
    fs::write(dir.join("static/extra.css"), "p { color: teal; }\n").unwrap();
    let printed = server.serving.printed(mark, "static/extra.css: ");
    let made = rebuilds(&printed);
    // (A rebuild of the page's save may come late on a busy machine.)
    assert!(
        made.iter()
            .all(|line| line.contains("static/extra.css: ") || line.contains("content/about.md: ")),
        "{printed}"
    );
    assert_eq!(page_text(port, "/extra.css"), "p { color: teal; }\n");
}

#[test]
fn a_burst_of_saves_makes_one_rebuild() {
    let server = start_site();
    let port = server.port();
    let dir = server.tmp.path().to_path_buf();
    let mark = server.serving.mark();
    // As a `git checkout` writes them: twenty pages at once.
    let (before, after) = signal_after(&server, || {
        for n in 0..20 {
            fs::write(
                dir.join(format!("content/page-{n}.md")),
                format!("+++\ntitle = \"Page {n}\"\n+++\nPage number {n}.\n"),
            )
            .unwrap();
        }
    });
    assert!(after > before);
    // A machine paused between two writes for longer than the quiet window rebuilds twice: the
    // later pages may come with the second rebuild.
    for n in 0..20 {
        showing(
            port,
            after,
            &format!("/page-{n}/"),
            &format!("Page number {n}."),
        );
    }
    // A sentinel change, so that every rebuild the burst made has been printed before its own.
    fs::write(dir.join("static/extra.css"), "p { color: olive; }\n").unwrap();
    let printed = server.serving.printed(mark, "static/extra.css: ");
    // One for the burst and one for the sentinel. A machine busy enough to pause the test
    // between two writes for longer than the quiet window splits the burst: the bound allows
    // two such pauses, far fewer rebuilds than saves.
    let made = rebuilds(&printed).len();
    assert!((2..=4).contains(&made), "{printed}");
}

/// A rebuild leaves out the warnings and steps its last build printed (issue 50, item 9): the
/// data is read once, so "no --site-url" and "read 40 controllers" would come with every save
/// and bury the line that changed. Errors come each time, and a warning comes again once a
/// build no longer says it and a later one does.
#[test]
fn a_rebuild_prints_no_warning_or_step_of_the_last_build_again_but_every_error() {
    let server = start_site();
    let dir = server.tmp.path().to_path_buf();
    let start = server.serving.printed(0, "serving ");
    const NO_SITE_URL: &str = "warning: no --site-url";
    const READ: &str = "read 40 controllers";
    assert_eq!(start.matches(NO_SITE_URL).count(), 1, "{start}");
    assert_eq!(start.matches(READ).count(), 1, "{start}");
    let mark = server.serving.mark();
    fs::write(dir.join("static/extra.css"), "p { color: teal; }\n").unwrap();
    let first = server.serving.printed(mark, "static/extra.css: ");
    let mark = server.serving.mark();
    fs::write(dir.join("content/bad.md"), "---\ntitle: Bad\n---\n").unwrap();
    let broken = server.serving.printed(mark, "front matter is YAML");
    let mark = server.serving.mark();
    fs::remove_file(dir.join("content/bad.md")).unwrap();
    fs::write(dir.join("static/extra.css"), "p { color: navy; }\n").unwrap();
    let fixed = server.serving.printed(mark, "static/extra.css: ");
    for (what, printed) in [
        ("a rebuild", &first),
        ("a broken one", &broken),
        ("the next", &fixed),
    ] {
        assert!(
            !printed.contains(NO_SITE_URL),
            "{what} repeated the warning: {printed}"
        );
        assert!(
            !printed.contains(READ),
            "{what} repeated the step: {printed}"
        );
    }
    assert!(
        first.contains("(1 warning as before, not repeated)"),
        "{first}"
    );
    assert!(broken.contains("error: content/bad.md:1:"), "{broken}");

    // Without --site-url in the config the warning went; put back, it comes again.
    let mark = server.serving.mark();
    fs::write(
        dir.join("vatcar-site.toml"),
        "title = \"First Title\"\nsite_url = \"https://example.org/\"\n",
    )
    .unwrap();
    server.serving.printed(mark, "vatcar-site.toml: ");
    let mark = server.serving.mark();
    fs::write(dir.join("vatcar-site.toml"), "title = \"First Title\"\n").unwrap();
    let again = server.serving.printed(mark, "vatcar-site.toml: ");
    assert_eq!(again.matches(NO_SITE_URL).count(), 1, "{again}");
}

/// The words over a failed rebuild are the site's language's, and follow its config
/// (issue 40): the page's script reads them from the server's own path.
#[test]
fn the_words_over_a_failed_rebuild_are_in_the_sites_language() {
    let server = start_site();
    let port = server.port();
    let words = |port| -> serde_json::Value {
        let answer = get(port, "/__vatcar-site/words");
        assert_eq!(answer.status, 200, "{}", answer.text);
        serde_json::from_str(body(&answer)).unwrap()
    };
    assert_eq!(words(port)["title"], "The site could not be rebuilt");
    let dir = server.tmp.path().to_path_buf();
    signal_after(&server, || {
        fs::write(
            dir.join("vatcar-site.toml"),
            "title = \"First Title\"\nlanguage = \"nl\"\n",
        )
        .unwrap();
    });
    let dutch = words(port);
    assert_eq!(dutch["title"], "De site kon niet opnieuw worden gemaakt");
    assert_eq!(dutch["close"], "Toon de laatste goede site");
}

/// The site folder of [`start_site`] (config file, `static/`, `content/`, `theme/`) made at
/// `dir`, titled `title`.
fn make_site_folder(dir: &std::path::Path, title: &str) {
    fs::create_dir_all(dir.join("static")).unwrap();
    fs::write(
        dir.join("vatcar-site.toml"),
        format!("title = \"{title}\"\n"),
    )
    .unwrap();
    fs::write(dir.join("static/extra.css"), "p { color: black; }\n").unwrap();
    fs::create_dir_all(dir.join("content")).unwrap();
    fs::create_dir_all(dir.join("theme/static")).unwrap();
    fs::write(dir.join("theme/static/style.css"), "body { margin: 0; }\n").unwrap();
}

/// The site folder removed while serve runs in it (a clone made again, a folder restored from
/// a copy), and put back with an edit: serve says that it waits for the folder, and builds
/// the folder put back. `output` is the output folder, from the site folder; `put_back`
/// makes the folder again, at the path it is given.
fn a_site_folder_removed_and_put_back(
    output: &str,
    take_away: fn(&std::path::Path),
    put_back: fn(&std::path::Path),
) {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site folder");
    make_site_folder(&site, "First Title");
    let serving = Serving::start(
        vatcar(&[
            "serve",
            "--demo",
            "--port",
            "0",
            "--output",
            output,
            "--templates",
            "theme",
        ])
        .current_dir(&site),
    );
    let port = serving.port;
    assert!(page_text(port, "/").contains("<span class=\"brand-name\">First Title</span>"));
    // An output folder outside the site folder outlives its removal.
    let kept = output.starts_with("..");

    let mark = serving.mark();
    let since = generation(port);
    take_away(&site);
    let printed = serving.printed(mark, "is gone");
    // The line that says so (a rebuild may fail first, while the folder is being removed).
    let gone = (printed.lines().find(|line| line.contains("is gone"))).unwrap();
    assert!(gone.contains("the site folder"), "{printed}");
    if kept {
        // The output folder is elsewhere: the last good build is still served.
        assert!(page_text(port, "/").contains("First Title"));
        assert!(
            gone.contains("still serving the last good build"),
            "{printed}"
        );
    } else {
        assert!(gone.contains("pages answer 404 until then"), "{printed}");
    }

    let mark = serving.mark();
    put_back(&site);
    showing(
        port,
        since,
        "/",
        "<span class=\"brand-name\">Second Title</span>",
    );
    let printed = serving.printed(mark, "rebuilt after a change to");
    assert!(printed.contains("is back"), "{printed}");
    // And it is watched again: a later edit is built too.
    let since = generation(port);
    fs::write(site.join("static/extra.css"), "p { color: teal; }\n").unwrap();
    showing(port, since, "/extra.css", "p { color: teal; }");
}

fn remove(site: &std::path::Path) {
    fs::remove_dir_all(site).unwrap();
}

#[test]
fn a_site_folder_removed_and_made_again_in_place_is_built_again() {
    a_site_folder_removed_and_put_back("site", remove, |site| {
        make_site_folder(site, "Second Title")
    });
}

#[test]
fn a_site_folder_renamed_away_and_another_put_in_its_place_is_the_one_built() {
    a_site_folder_removed_and_put_back(
        "site",
        |site| fs::rename(site, site.with_file_name("moved away")).unwrap(),
        |site| make_site_folder(site, "Second Title"),
    );
}

#[test]
fn a_site_folder_removed_and_renamed_back_is_built_again_and_the_last_build_served_meanwhile() {
    a_site_folder_removed_and_put_back("../site", remove, |site| {
        let copy = site.with_file_name("copy");
        make_site_folder(&copy, "Second Title");
        fs::rename(&copy, site).unwrap();
    });
}
