//! The webmaster's workflow: config file, theme export and override, check, serve,
//! completions, quiet and summary output.

mod support;

use std::fs;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use support::{Reply, demo_api};

const KEY: &str = "workflow-key-0123456789";

fn vatcar(dir: &Path, args: &[&str]) -> Command {
    let mut command = support::vatcar(args);
    command
        .current_dir(dir)
        .env("SOURCE_DATE_EPOCH", "1795176000");
    command
}

fn run(command: &mut Command) -> (Output, String, String) {
    let output = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output, stdout, stderr)
}

const CONFIG: &str = r#"# vatcar-site.toml
title = "TJZS Virtual"
tagline = "Caribbean skies, every evening"
site_url = "https://tjzs.example.org"
display_zone = "America/Puerto_Rico"
output = "public"

[calendar]
facility_name = "TJZS events"
refresh_minutes = 60

[facilities]
"1" = "San Juan CERAP"

[staff_emails]
atm = "atm@tjzs.example.org"

[sections]
documents = false
"#;

#[test]
fn the_config_file_in_the_working_folder_shapes_the_site() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("vatcar-site.toml"), CONFIG).unwrap();
    let (output, _, stderr) = run(&mut vatcar(tmp.path(), &["build", "--demo"]));
    assert!(output.status.success(), "{stderr}");
    let public = tmp.path().join("public");
    let home = fs::read_to_string(public.join("index.html")).unwrap();
    assert!(
        home.contains("<h1>TJZS Virtual</h1>") && home.contains("Caribbean skies, every evening")
    );
    assert!(home.contains(r#"href="mailto:atm@tjzs.example.org""#));
    assert!(
        !home.contains("documents/"),
        "the documents section is switched off"
    );
    assert!(!public.join("documents").exists());
    assert!(
        public.join("sitemap.xml").exists(),
        "site_url came from the file"
    );
    let event = fs::read_to_string(public.join("events/421/index.html")).unwrap();
    assert!(event.contains("AST"), "display_zone came from the file");
    let calendar = fs::read_to_string(public.join("calendar/facility.ics")).unwrap();
    assert!(
        calendar.contains("X-WR-CALNAME:TJZS events")
            && calendar.contains("REFRESH-INTERVAL;VALUE=DURATION:PT60M")
    );
    // Flags override the file.
    let (output, _, stderr) = run(&mut vatcar(
        tmp.path(),
        &[
            "build",
            "--demo",
            "--title",
            "From the flag",
            "--output",
            "other",
        ],
    ));
    assert!(output.status.success(), "{stderr}");
    assert!(
        fs::read_to_string(tmp.path().join("other/index.html"))
            .unwrap()
            .contains("<h1>From the flag</h1>")
    );
}

#[test]
fn a_typo_in_the_config_names_the_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("site.toml");
    fs::write(&path, "title = \"x\"\n\n[calendar]\nrefresh_minuts = 5\n").unwrap();
    let (output, _, stderr) = run(&mut vatcar(
        tmp.path(),
        &["build", "--demo", "--config", path.to_str().unwrap()],
    ));
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "error: {}:4: unknown field `refresh_minuts`",
            path.display()
        )),
        "{stderr}"
    );
    let (output, _, stderr) = run(&mut vatcar(
        tmp.path(),
        &["build", "--demo", "--config", "missing.toml"],
    ));
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr.contains("missing.toml"), "{stderr}");
}

#[test]
fn an_api_key_in_the_config_is_used_with_a_warning_and_never_printed() {
    let server = demo_api();
    let tmp = tempfile::tempdir().unwrap();
    fs::write(
        tmp.path().join("vatcar-site.toml"),
        format!("base_url = \"{}\"\napi_key = \"{KEY}\"\n", server.url()),
    )
    .unwrap();
    let (output, stdout, stderr) = run(&mut vatcar(
        tmp.path(),
        &["build", "-vv", "--output", "site"],
    ));
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("vatcar-site.toml:2: api_key in a config file")
            && stderr.contains("VATCAR_API_KEY"),
        "{stderr}"
    );
    assert!(!stderr.contains(KEY) && !stdout.contains(KEY));
    assert_eq!(
        server.log()[0].headers.get("api_key").map(String::as_str),
        Some(KEY)
    );
}

#[test]
fn exported_templates_can_be_edited_and_used() {
    let tmp = tempfile::tempdir().unwrap();
    let (output, _, stderr) = run(&mut vatcar(tmp.path(), &["templates", "export", "theme"]));
    assert!(output.status.success(), "{stderr}");
    let theme = tmp.path().join("theme");
    for file in [
        "base.html",
        "index.html",
        "event.html",
        "report-training.html",
        "static/style.css",
    ] {
        assert!(theme.join(file).is_file(), "{file} not exported");
    }
    // A second export keeps the user's edits unless forced.
    let (output, _, stderr) = run(&mut vatcar(tmp.path(), &["templates", "export", "theme"]));
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr.contains("--force"), "{stderr}");

    let base = fs::read_to_string(theme.join("base.html")).unwrap();
    fs::write(
        theme.join("base.html"),
        base.replace("Skip to content", "Saltar al contenido"),
    )
    .unwrap();
    let (output, _, stderr) = run(&mut vatcar(
        tmp.path(),
        &[
            "build",
            "--demo",
            "--templates",
            "theme",
            "--output",
            "site",
        ],
    ));
    assert!(output.status.success(), "{stderr}");
    assert!(
        fs::read_to_string(tmp.path().join("site/roster/index.html"))
            .unwrap()
            .contains("Saltar al contenido")
    );

    // A template using a variable that does not exist names the file, the line and the variable.
    fs::write(theme.join("roster.html"), "{% extends \"base.html\" %}\n{% block content %}\n{{ roster.captain }}\n{% endblock content %}\n").unwrap();
    let (output, _, stderr) = run(&mut vatcar(
        tmp.path(),
        &[
            "build",
            "--demo",
            "--templates",
            "theme",
            "--output",
            "site",
        ],
    ));
    assert_eq!(output.status.code(), Some(1));
    let expected = "theme/roster.html:3: variable `roster.captain` is not defined";
    assert!(stderr.contains(expected), "{stderr}");
}

#[test]
fn check_reports_what_it_found_and_writes_nothing() {
    let server = demo_api();
    let tmp = tempfile::tempdir().unwrap();
    let (output, stdout, stderr) =
        run(vatcar(tmp.path(), &["check", "--base-url", &server.url()]).env("VATCAR_API_KEY", KEY));
    assert!(output.status.success(), "{stderr}");
    assert!(stdout.contains("ok    GET /api/v2/facility/roster: San Juan CERAP: 40 controllers, 8 visitors, staff posts vacant: EC, WM"), "{stdout}");
    assert!(
        stdout.contains("ok    GET /api/v2/facility/events: 8 facility events"),
        "{stdout}"
    );
    assert!(
        stdout.contains("ok    GET /api/v2/facility/documents: 11 documents in 3 categories"),
        "{stdout}"
    );
    assert!(
        fs::read_dir(tmp.path()).unwrap().next().is_none(),
        "check wrote something"
    );

    server.route(
        "/api/v2/division/events",
        vec![Reply::ok(
            r#"{"success":"ok","data":[{"id":1,"start":"soon"}]}"#,
        )],
    );
    let (output, stdout, stderr) =
        run(vatcar(tmp.path(), &["check", "--base-url", &server.url()]).env("VATCAR_API_KEY", KEY));
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout.contains("FAIL  GET /api/v2/division/events: GET /api/v2/division/events: data[0] (event 1), field `start`"), "{stdout}");
    assert!(stderr.contains("1 of 4 endpoints failed"), "{stderr}");
}

fn get(port: u16, path: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response.split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, response)
}

#[test]
fn serve_builds_serves_and_rebuilds_on_a_template_change() {
    let tmp = tempfile::tempdir().unwrap();
    run(&mut vatcar(tmp.path(), &["templates", "export", "theme"]));
    // Killed when the test ends, pass or fail, so that no server outlives it (an orphan
    // holding the test's output open would stall the whole run).
    let mut child = KillOnDrop(
        vatcar(
            tmp.path(),
            &[
                "serve",
                "--demo",
                "--port",
                "0",
                "--templates",
                "theme",
                "--output",
                "site",
            ],
        )
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap(),
    );
    let mut stderr = child.0.stderr.take().unwrap();
    let mut seen = String::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    let port = loop {
        let mut buf = [0u8; 256];
        let n = stderr.read(&mut buf).unwrap();
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
        if let Some(rest) = seen.split("http://127.0.0.1:").nth(1)
            && let Some(port) = rest.split('/').next().and_then(|p| p.parse::<u16>().ok())
        {
            break port;
        }
        assert!(Instant::now() < deadline && n > 0, "no address in: {seen}");
    };
    // Keep reading what the server prints, so that it can never block on a full pipe.
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut stderr, &mut std::io::sink());
    });
    let (status, body) = get(port, "/");
    assert_eq!(status, 200);
    assert!(body.contains("<h1>San Juan CERAP</h1>"));
    assert_eq!(get(port, "/roster").0, 301);
    assert_eq!(get(port, "/roster/").0, 200);
    assert!(
        get(port, "/calendar/facility.ics")
            .1
            .contains("text/calendar")
    );
    let (status, body) = get(port, "/no/such/page");
    assert_eq!(status, 404);
    assert!(body.contains("Page not found"));
    assert_eq!(get(port, "/../../etc/passwd").0, 404);

    let index = tmp.path().join("theme/index.html");
    let text = fs::read_to_string(&index).unwrap();
    fs::write(
        &index,
        text.replace(
            "<h1>{{ site.title }}</h1>",
            "<h1>Edited {{ site.title }}</h1>",
        ),
    )
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        if get(port, "/").1.contains("<h1>Edited San Juan CERAP</h1>") {
            break;
        }
        assert!(Instant::now() < deadline, "the change was not rebuilt");
        std::thread::sleep(Duration::from_millis(200));
    }
}

struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn completions_quiet_and_the_summary_line() {
    let tmp = tempfile::tempdir().unwrap();
    let (output, stdout, _) = run(&mut vatcar(tmp.path(), &["completions", "bash"]));
    assert!(output.status.success());
    assert!(stdout.contains("vatcar-site") && stdout.contains("--site-url"));
    let (output, stdout, stderr) = run(&mut vatcar(
        tmp.path(),
        &["build", "--demo", "-q", "--output", "a"],
    ));
    assert!(
        output.status.success() && stdout.is_empty() && stderr.is_empty(),
        "{stderr}"
    );
    let (_, _, stderr) = run(&mut vatcar(
        tmp.path(),
        &["build", "--demo", "--output", "b"],
    ));
    let last = stderr.lines().last().unwrap();
    assert!(
        last.starts_with("built 20 pages, 16 calendars and 14 event pages into b in "),
        "{last}"
    );
    assert!(
        last.ends_with("(39 written, 0 unchanged, 0 removed)"),
        "{last}"
    );
}
