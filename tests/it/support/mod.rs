//! What the test modules share: the API key, the binary and a run of it, the demo data, a
//! mock API ([`mock`]) and a raw HTTP client for `serve` ([`http`]), and checks on output
//! folders and pages.

pub mod browser;
pub mod http;
pub mod live;
pub mod mock;
pub mod webhook;

pub use mock::{MockServer, Reply};

use chrono::DateTime;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, ExitStatus};
use vatcar_site::fetch::endpoint::Endpoint;
use vatcar_site::fetch::snapshot::DEMO_FETCHED_AT;

/// The API key of every test that needs a key but not a particular one. Plain ASCII with no
/// JSON, TOML or URL metacharacters, so that it can be put into bodies and files as it is;
/// long enough for `ApiKey` (16 characters at least).
pub const KEY: &str = "it-test-key-0123456789abcdef";

/// `SOURCE_DATE_EPOCH` for the moment the demo data was captured ([`DEMO_FETCHED_AT`]), the
/// build time the demo's "upcoming" and "recent" lists are written for.
pub fn demo_epoch() -> String {
    DateTime::parse_from_rfc3339(DEMO_FETCHED_AT)
        .unwrap()
        .timestamp()
        .to_string()
}

/// An empty ATC bookings list on 127.0.0.1, shared by every run of the binary: a build from
/// the API reads the bookings list, and no test may reach VATSIM's. A test of the bookings
/// points `VATCAR_BOOKINGS_URL` (or `[live] bookings`, or `--bookings-url`) at its own mock.
pub fn no_bookings() -> &'static MockServer {
    static SERVER: std::sync::OnceLock<MockServer> = std::sync::OnceLock::new();
    SERVER.get_or_init(|| {
        let server = MockServer::start();
        server.route_path(mock::BOOKINGS_PATH, vec![Reply::ok("[]")]);
        server
    })
}

/// The real binary, with none of the environment that would change what it does, the
/// bookings list read from [`no_bookings`], and the events' banners shown from the API's
/// addresses (`VATCAR_BANNERS=remote`): an API's banners would be read from hosts no test may
/// reach, and copying the demo's own takes seconds of a debug build. A test of the banners
/// sets `VATCAR_BANNERS` (or removes it) and serves its own.
pub fn vatcar(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_vatcar-site"));
    command
        .args(args)
        .env(
            "VATCAR_BOOKINGS_URL",
            format!("{}{}", no_bookings().url(), mock::BOOKINGS_PATH),
        )
        .env("VATCAR_BANNERS", "remote")
        .env_remove("VATCAR_API_KEY")
        .env_remove("VATCAR_BASE_URL")
        .env_remove("SOURCE_DATE_EPOCH")
        .env_remove("CI")
        .env_remove("GITHUB_OUTPUT")
        .env_remove("DISCORD_WEBHOOK_URL")
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("GITHUB_WORKSPACE");
    command
}

/// [`vatcar`], built at the moment the demo data was captured ([`demo_epoch`]), whatever the
/// data source.
pub fn vatcar_at_demo_time(args: &[&str]) -> Command {
    let mut command = vatcar(args);
    command.env("SOURCE_DATE_EPOCH", demo_epoch());
    command
}

/// Points a command at a mock API, with [`KEY`], both through the environment as a CI job
/// would set them.
pub trait AgainstMock {
    fn against(&mut self, server: &MockServer) -> &mut Self;
}

impl AgainstMock for Command {
    fn against(&mut self, server: &MockServer) -> &mut Self {
        self.env("VATCAR_API_KEY", KEY)
            .env("VATCAR_BASE_URL", server.url())
    }
}

/// How a run of the binary ended, and what it printed.
pub struct Ran {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    pub fn code(&self) -> Option<i32> {
        self.status.code()
    }

    /// Everything printed: stdout, then stderr.
    pub fn text(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

/// Runs `command` to the end.
pub fn run(command: &mut Command) -> Ran {
    let output = command.output().unwrap();
    Ran {
        status: output.status,
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Runs `command` to the end, or fails the test (the process killed) if it has not ended
/// within `patience`: for a run that a bug would make wait forever (a named pipe read, a
/// server that should have stopped). A safety bound, not a speed target.
pub fn run_within(command: &mut Command, patience: std::time::Duration) -> Ran {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read on threads of their own, so that a full pipe never blocks the child.
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let deadline = std::time::Instant::now() + patience;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "still running after {patience:?}, so killed; it printed: {}",
                stderr.join().unwrap()
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    Ran {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// Runs `command` to the end and asserts that it succeeded, showing what it printed if not.
pub fn run_ok(command: &mut Command) -> Ran {
    let ran = run(command);
    assert!(ran.status.success(), "{}", ran.text());
    ran
}

/// The demo data's response bodies, as the API would send them.
pub fn demo_body(file: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("demo")
            .join(file),
    )
    .unwrap()
}

/// A mock serving the demo data on all four site endpoints.
pub fn demo_api() -> MockServer {
    let server = MockServer::start();
    for endpoint in Endpoint::SITE {
        server.reply(endpoint, Reply::ok(demo_body(&endpoint.snapshot_file())));
    }
    server
}

/// Every file below `dir`, by relative path with `/`, with its bytes.
pub fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
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
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// Two folder contents are the same, naming the files that differ (never dumping bytes).
pub fn assert_same_files(a: &BTreeMap<String, Vec<u8>>, b: &BTreeMap<String, Vec<u8>>) {
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "different files"
    );
    let differing: Vec<&String> = a.keys().filter(|k| a[*k] != b[*k]).collect();
    assert!(differing.is_empty(), "these files differ: {differing:?}");
}

/// No file below `dir` holds [`KEY`].
pub fn assert_key_absent(dir: &Path) {
    for (path, bytes) in tree(dir) {
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains(KEY), "{path} holds the API key");
    }
}

/// An HTML file, as text and parsed.
pub fn page(path: &Path) -> (String, scraper::Html) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let html = scraper::Html::parse_document(&text);
    (text, html)
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

/// A site folder (for `build --demo --config`): `vatcar-site.toml` holding `config`, and the
/// files given under it.
pub fn site_folder(config: &str, files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("vatcar-site.toml"), config).unwrap();
    for (path, bytes) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    dir
}

/// `build --demo` of the site folder `site` into its `public/`, at the demo's time.
pub fn build_site(site: &Path, extra: &[&str]) -> (Ran, std::path::PathBuf) {
    let (mut command, out) = build_site_command(site, extra);
    (run(&mut command), out)
}

/// The command [`build_site`] runs, for a test to add to (an environment), and the output
/// folder it builds into.
pub fn build_site_command(site: &Path, extra: &[&str]) -> (Command, std::path::PathBuf) {
    let out = site.join("public");
    let config = site.join("vatcar-site.toml");
    let mut args = vec![
        "build",
        "--demo",
        "--config",
        config.to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    (vatcar_at_demo_time(&args), out)
}

/// A snapshot folder holding a copy of the demo's data (not its site folder, `demo/site/`).
pub fn demo_snapshot_copy() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("demo");
    for entry in std::fs::read_dir(demo).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, tmp.path().join(path.file_name().unwrap())).unwrap();
        }
    }
    tmp
}
