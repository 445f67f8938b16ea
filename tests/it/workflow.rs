//! The webmaster's workflow: config file, theme export and override, check, serve,
//! completions, quiet and summary output.
//!
//! Expected messages spell out `GET /api/v2/...` on purpose: that is what the webmaster reads.

use crate::support::http::{Serving, get};
use crate::support::{KEY, Ran, Reply, demo_api, run, vatcar_at_demo_time};
use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use vatcar_site::fetch::endpoint::Endpoint;

/// The binary, run in `dir` as a webmaster runs it in their site's folder.
fn vatcar(dir: &Path, args: &[&str]) -> Command {
    let mut command = vatcar_at_demo_time(args);
    command.current_dir(dir);
    command
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
    let Ran { status, stderr, .. } = run(&mut vatcar(tmp.path(), &["build", "--demo"]));
    assert!(status.success(), "{stderr}");
    let public = tmp.path().join("public");
    let home = fs::read_to_string(public.join("index.html")).unwrap();
    assert!(
        home.contains("<span class=\"brand-name\">TJZS Virtual</span>")
            && home.contains("Caribbean skies, every evening")
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
    let Ran { status, stderr, .. } = run(&mut vatcar(
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
    assert!(status.success(), "{stderr}");
    assert!(
        fs::read_to_string(tmp.path().join("other/index.html"))
            .unwrap()
            .contains("<span class=\"brand-name\">From the flag</span>")
    );
}

#[test]
fn a_typo_in_the_config_names_the_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("site.toml");
    fs::write(&path, "title = \"x\"\n\n[calendar]\nrefresh_minuts = 5\n").unwrap();
    let Ran { status, stderr, .. } = run(&mut vatcar(
        tmp.path(),
        &["build", "--demo", "--config", path.to_str().unwrap()],
    ));
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert_eq!(
        stderr.lines().next().unwrap(),
        format!(
            "error: {}:4: unknown key `refresh_minuts` in [calendar]: did you mean `refresh_minutes`?",
            path.display()
        )
    );
    // Every other mistake a config file can hold is worded by the unit test
    // `settings::tests::errors_name_the_file_line_and_key`.
    let Ran { status, stderr, .. } = run(&mut vatcar(
        tmp.path(),
        &["build", "--demo", "--config", "missing.toml"],
    ));
    assert_eq!(status.code(), Some(2));
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
    let Ran {
        status,
        stdout,
        stderr,
    } = run(&mut vatcar(
        tmp.path(),
        &["build", "-vv", "--output", "site"],
    ));
    assert!(status.success(), "{stderr}");
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
    let Ran { status, stderr, .. } =
        run(&mut vatcar(tmp.path(), &["templates", "export", "theme"]));
    assert!(status.success(), "{stderr}");
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
    let Ran { status, stderr, .. } =
        run(&mut vatcar(tmp.path(), &["templates", "export", "theme"]));
    assert_eq!(status.code(), Some(1));
    assert!(stderr.contains("--force"), "{stderr}");

    let base = fs::read_to_string(theme.join("base.html")).unwrap();
    fs::write(
        theme.join("base.html"),
        base.replace(r#"{{ t(key="nav.skip") }}"#, "Saltar al contenido"),
    )
    .unwrap();
    let Ran { status, stderr, .. } = run(&mut vatcar(
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
    assert!(status.success(), "{stderr}");
    assert!(
        fs::read_to_string(tmp.path().join("site/roster/index.html"))
            .unwrap()
            .contains("Saltar al contenido")
    );

    // A template using a variable that does not exist names the file, the line and the variable.
    fs::write(theme.join("roster.html"), "{% extends \"base.html\" %}\n{% block content %}\n{{ roster.captain }}\n{% endblock content %}\n").unwrap();
    let Ran { status, stderr, .. } = run(&mut vatcar(
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
    assert_eq!(status.code(), Some(1));
    let expected = "theme/roster.html:3: variable `roster.captain` is not defined";
    assert!(stderr.contains(expected), "{stderr}");
}

#[test]
fn check_reports_what_it_found_and_writes_nothing() {
    let server = demo_api();
    let tmp = tempfile::tempdir().unwrap();
    let Ran {
        status,
        stdout,
        stderr,
    } = run(vatcar(tmp.path(), &["check", "--base-url", &server.url()]).env("VATCAR_API_KEY", KEY));
    assert!(status.success(), "{stderr}");
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

    server.reply(
        Endpoint::DivisionEvents,
        Reply::ok(r#"{"success":"ok","data":[{"id":1,"start":"soon"}]}"#),
    );
    server.reply(
        Endpoint::FacilityDocuments,
        Reply::json(404, br#"{"error":"gone"}"#.to_vec()),
    );
    let Ran {
        status,
        stdout,
        stderr,
    } = run(vatcar(tmp.path(), &["check", "--base-url", &server.url()]).env("VATCAR_API_KEY", KEY));
    assert_eq!(status.code(), Some(1));
    assert!(
        stdout.contains("FAIL  GET /api/v2/division/events: data[0] (event 1), field `start`"),
        "{stdout}"
    );
    // The roster and the events answered, so the address is not what is wrong.
    let documents = format!(
        "FAIL  GET /api/v2/facility/documents: not found (HTTP 404) at {}/api/v2/facility/documents; \
         the other endpoints answered at this address",
        server.url()
    );
    assert!(stdout.lines().any(|l| l == documents), "{stdout}");
    assert!(stderr.contains("2 of 4 endpoints failed"), "{stderr}");

    // Each line names its endpoint once, whatever the failure; a snapshot's too.
    let snapshot = tmp.path().join("snap");
    fs::create_dir(&snapshot).unwrap();
    let from_snapshot = run(&mut vatcar(
        tmp.path(),
        &["check", "--snapshot", snapshot.to_str().unwrap()],
    ));
    assert!(
        from_snapshot
            .stdout
            .contains("FAIL  GET /api/v2/facility/roster: snapshot folder"),
        "{}",
        from_snapshot.stdout
    );
    for line in stdout.lines().chain(from_snapshot.stdout.lines()) {
        assert_eq!(line.matches("GET /api/v2/").count(), 1, "{line}");
    }
}

#[test]
fn serve_builds_serves_and_rebuilds_on_a_template_change() {
    let tmp = tempfile::tempdir().unwrap();
    run(&mut vatcar(tmp.path(), &["templates", "export", "theme"]));
    let serving = Serving::start(&mut vatcar(
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
    ));
    let port = serving.port;
    let home = get(port, "/");
    assert_eq!(home.status, 200);
    assert!(
        home.text
            .contains("<span class=\"brand-name\">San Juan CERAP</span>")
    );
    assert_eq!(get(port, "/roster").status, 307);
    assert_eq!(get(port, "/roster/").status, 200);
    assert!(
        get(port, "/calendar/facility.ics")
            .text
            .contains("text/calendar")
    );
    let missing = get(port, "/no/such/page");
    assert_eq!(missing.status, 404);
    assert!(missing.text.contains("Page not found"));
    assert_eq!(get(port, "/../../etc/passwd").status, 404);

    let index = tmp.path().join("theme/index.html");
    let text = fs::read_to_string(&index).unwrap();
    fs::write(
        &index,
        text.replace(
            "<section class=\"hero\">",
            "<section class=\"hero\"><p>Edited {{ site.title }}</p>",
        ),
    )
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        if get(port, "/").text.contains("<p>Edited San Juan CERAP</p>") {
            break;
        }
        assert!(Instant::now() < deadline, "the change was not rebuilt");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn completions_quiet_and_the_summary_line() {
    let tmp = tempfile::tempdir().unwrap();
    let Ran { status, stdout, .. } = run(&mut vatcar(tmp.path(), &["completions", "bash"]));
    assert!(status.success());
    assert!(stdout.contains("vatcar-site") && stdout.contains("--site-url"));
    let Ran {
        status,
        stdout,
        stderr,
    } = run(&mut vatcar(
        tmp.path(),
        &["build", "--demo", "-q", "--output", "a"],
    ));
    assert!(
        status.success() && stdout.is_empty() && stderr.is_empty(),
        "{stderr}"
    );
    let Ran { stderr, .. } = run(&mut vatcar(
        tmp.path(),
        &["build", "--demo", "--output", "b"],
    ));
    let last = stderr.lines().last().unwrap();
    assert!(
        last.starts_with("built 72 pages, 14 of them event pages, and 17 calendars into b in "),
        "{last}"
    );
    assert!(
        last.ends_with("(99 written, 0 unchanged, 0 removed)"),
        "{last}"
    );
    // A site without events does not mention them.
    fs::write(
        tmp.path().join("no-events.toml"),
        "[sections]\nevents = false\ndivision = false\n",
    )
    .unwrap();
    let Ran { stderr, .. } = run(&mut vatcar(
        tmp.path(),
        &[
            "build",
            "--demo",
            "--config",
            "no-events.toml",
            "--output",
            "c",
        ],
    ));
    let last = stderr.lines().last().unwrap();
    assert!(last.starts_with("built 6 pages and "), "{last}");
}
