//! Issue 36, items 1, 6, 14 and 15: every line the binary prints, in every mode (a terminal's
//! plain lines, a CI log, a GitHub Actions step), holds no workflow command and no terminal
//! escape, whatever the API, the site folder's file names and links, or a previous build put
//! in them; the text still says what it is about.
//!
//! GitHub's runner reads a line whose first non-blank characters are `::` as a command, and
//! `##[` anywhere in a line; the program's own annotations are the only lines allowed to start
//! with `::`.

use crate::support::{KEY, Ran, demo_snapshot_copy, run, vatcar_at_demo_time};
use serde_json::{Value, json};
use std::fs;
use std::path::Path;

/// The program's own annotation: `::error file=F,line=N[,col=N]::` or `::warning ...`.
fn is_our_annotation(line: &str) -> bool {
    let Some(rest) = line
        .strip_prefix("::error file=")
        .or_else(|| line.strip_prefix("::warning file="))
    else {
        return false;
    };
    let Some((properties, _message)) = rest.split_once("::") else {
        return false;
    };
    let mut parts = properties.split(',');
    let file = parts.next().unwrap_or("");
    let numbers: Vec<&str> = parts.collect();
    !file.contains(':')
        && (1..=2).contains(&numbers.len())
        && numbers[0].strip_prefix("line=").is_some_and(is_number)
        && numbers
            .get(1)
            .is_none_or(|c| c.strip_prefix("col=").is_some_and(is_number))
}

fn is_number(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// Every line of `printed` is one the runner and a terminal take as plain text.
fn assert_commands_nothing(printed: &str, what: &str) {
    for line in printed.split('\n') {
        // .NET's Trim, as the runner trims, is Rust's: every Unicode blank.
        let trimmed = line.trim_start();
        assert!(
            !trimmed.starts_with("::") || is_our_annotation(line),
            "{what}: a line the runner would take for a command: {line:?}"
        );
        assert!(
            !line.contains("##["),
            "{what}: a line holding `##[`: {line:?}"
        );
        let bad = line.chars().find(|&c| {
            (c.is_control() && c != '\t')
                || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
        });
        assert!(bad.is_none(), "{what}: {bad:?} in a printed line: {line:?}");
    }
}

/// The three ways the binary is run, each with the environment that chooses it.
const MODES: &[(&str, &[(&str, &str)])] = &[
    ("plain", &[]),
    ("CI", &[("CI", "true")]),
    (
        "GitHub Actions",
        &[("CI", "true"), ("GITHUB_ACTIONS", "true")],
    ),
];

/// A site folder whose files are hostile by name and by link, built from a snapshot whose
/// event names are hostile: fails with every problem named, in every mode.
#[test]
fn no_line_printed_in_any_mode_commands_the_runner_or_the_terminal() {
    let site = tempfile::tempdir().unwrap();
    let root = site.path();
    fs::write(root.join("vatcar-site.toml"), "").unwrap();
    fs::create_dir_all(root.join("content")).unwrap();
    fs::create_dir_all(root.join("static")).unwrap();
    fs::write(
        root.join("content/join.md"),
        "+++\ntitle = \"Join\"\n+++\n[x](@/nope5%0A::add-mask::secret)\n\n\
         [y](@/nope6.md%0A##[error]Forged)\n\n[z](@/nope7%E2%80%A8::error::sep)\n",
    )
    .unwrap();
    #[cfg(unix)]
    for name in [
        "nl\n::error::INJECTED-NL.md",
        "esc\u{1b}]0;TITLE\u{7}\u{1b}[2J.md",
        "cr\r::error::CR.txt",
    ] {
        fs::write(root.join("content").join(name), "+++\ntitle = \"X\"\n+++\n").unwrap();
        fs::write(root.join("static").join(name), "x").unwrap();
    }
    let snapshot = hostile_names_snapshot();
    let summary = root.join("summary.md");
    for (mode, env) in MODES {
        let mut command = vatcar_at_demo_time(&[
            "build",
            "--snapshot",
            snapshot.path().to_str().unwrap(),
            "--config",
            root.join("vatcar-site.toml").to_str().unwrap(),
            "--output",
            root.join("public").to_str().unwrap(),
        ]);
        command
            .env("VATCAR_API_KEY", KEY)
            .env("GITHUB_STEP_SUMMARY", &summary)
            .envs(env.iter().copied());
        let ran = run(&mut command);
        assert_eq!(ran.code(), Some(1), "{mode}: {}", ran.text());
        assert_commands_nothing(&ran.stdout, &format!("{mode}, stdout"));
        assert_commands_nothing(&ran.stderr, &format!("{mode}, stderr"));
        // What it is about is still said, with the untrusted part escaped.
        assert!(
            ran.stderr
                .contains("the site has no page or file @/nope5\\n::add-mask::secret"),
            "{mode}: {}",
            ran.stderr
        );
        assert!(
            ran.stderr.contains("Fly-in ##\\[error]Forged"),
            "{mode}: {}",
            ran.stderr
        );
        #[cfg(unix)]
        {
            assert!(
                ran.stderr
                    .contains(r#"/content/nl\n::error::INJECTED-NL.md": "#),
                "{mode}: {}",
                ran.stderr
            );
            assert!(
                ran.stderr
                    .contains(r#"/content/esc\u{1b}]0;TITLE\u{7}\u{1b}[2J.md": "#),
                "{mode}: {}",
                ran.stderr
            );
            // Static files so named are left out with a warning, as pages are refused.
            assert!(
                ran.stderr
                    .contains(r#"static/esc\u{1b}]0;TITLE\u{7}\u{1b}[2J.md": a file's name"#),
                "{mode}: {}",
                ran.stderr
            );
        }
        if *mode == "GitHub Actions" {
            // The errors with a line are annotated on their file.
            assert!(
                ran.stdout.lines().filter(|l| is_our_annotation(l)).count() >= 3,
                "{}",
                ran.stdout
            );
            let written = fs::read_to_string(&summary).unwrap();
            assert_commands_nothing(&written, "the job summary");
            assert!(written.contains("The build failed"), "{written}");
        }
    }
}

/// The demo's data with an event named to forge a command, starting past the calendar
/// horizon so that a warning names it, and a division event of the same id and another
/// name (a second warning that names both).
fn hostile_names_snapshot() -> tempfile::TempDir {
    let snapshot = demo_snapshot_copy();
    edit(&snapshot.path().join("facility-events.json"), |events| {
        let list = events["data"].as_array_mut().unwrap();
        let mut forged = list[0].clone();
        forged["id"] = 9901.into();
        forged["name"] = "Fly-in ##[error]Forged \u{202e}\u{85}::error::NEL".into();
        forged["start"] = "9999-01-01 20:00:00".into();
        forged["end"] = "9999-01-01 23:00:00".into();
        list.push(forged);
        list[0]["name"] = "::add-mask::x\n::error::y ##[warning]z".into();
    });
    edit(&snapshot.path().join("division-events.json"), |events| {
        let list = events["data"].as_array_mut().unwrap();
        let id = list[0]["id"].clone();
        let mut copy = list[0].clone();
        copy["id"] = 9902.into();
        copy["name"] = "::stop-commands::token".into();
        list.push(copy);
        let _ = id;
    });
    snapshot
}

fn edit(file: &Path, change: impl FnOnce(&mut Value)) {
    let mut json: Value = serde_json::from_slice(&fs::read(file).unwrap()).unwrap();
    change(&mut json);
    fs::write(file, serde_json::to_vec(&json).unwrap()).unwrap();
}

/// A controller who joins with a first name that forges a command: the build that finds
/// them new and `announce --dry-run` after it name them in lines that command nothing.
#[test]
fn a_controller_named_as_a_command_is_announced_in_lines_that_command_nothing() {
    let before = demo_snapshot_copy();
    let after = demo_snapshot_copy();
    edit(&after.path().join("facility-roster.json"), |roster| {
        let controllers = roster["data"]["controllers"].as_array_mut().unwrap();
        controllers.push(json!({
            "cid": 1799999, "first_name": "::error title=Forged::Injected",
            "last_name": "Zed", "email": "zed@example.net", "rating": 2,
            "join_date": "2026-11-18 12:00:00",
        }));
    });
    for (mode, env) in MODES {
        let site = tempfile::tempdir().unwrap();
        let output = site.path().join("public");
        let build = |snapshot: &Path| -> Ran {
            let mut command = vatcar_at_demo_time(&[
                "build",
                "--snapshot",
                snapshot.to_str().unwrap(),
                "--output",
                output.to_str().unwrap(),
                "--site-url",
                "https://tjzs.example.org/",
            ]);
            command.env("VATCAR_API_KEY", KEY).envs(env.iter().copied());
            run(&mut command)
        };
        let first = build(before.path());
        assert!(first.status.success(), "{mode}: {}", first.text());
        let built = build(after.path());
        assert!(built.status.success(), "{mode}: {}", built.text());
        assert_commands_nothing(&built.stdout, &format!("{mode}, build's stdout"));
        assert_commands_nothing(&built.stderr, &format!("{mode}, build's stderr"));
        let mut command = vatcar_at_demo_time(&[
            "announce",
            "--dry-run",
            "--output",
            output.to_str().unwrap(),
        ]);
        command.envs(env.iter().copied());
        let ran = run(&mut command);
        assert!(ran.status.success(), "{mode}: {}", ran.text());
        assert_commands_nothing(&ran.stdout, &format!("{mode}, the dry run"));
        assert_commands_nothing(&ran.stderr, &format!("{mode}, announce's stderr"));
        assert!(
            ran.stdout
                .contains("::error title=Forged::Injected Zed joined as a home controller"),
            "{mode}: the title still names the controller:\n{}",
            ran.stdout
        );
    }
}

/// Item 14: bidi embedding, override and isolate controls from the API reach no page, feed or
/// calendar: a name is shown in the order it is written.
#[test]
fn right_to_left_overrides_from_the_api_are_shown_nowhere() {
    let snapshot = demo_snapshot_copy();
    let controls = "\u{202a}\u{202b}\u{202c}\u{202d}\u{202e}\u{2066}\u{2067}\u{2068}\u{2069}";
    edit(&snapshot.path().join("facility-roster.json"), |roster| {
        let first = &mut roster["data"]["controllers"][0];
        first["first_name"] = format!("\u{202e}Jada{controls}").into();
    });
    edit(&snapshot.path().join("facility-events.json"), |events| {
        events["data"][0]["name"] = format!("Holiday \u{202e}Lights{controls}").into();
    });
    let out = tempfile::tempdir().unwrap();
    let site = out.path().join("site");
    let ran = run(vatcar_at_demo_time(&[
        "build",
        "--snapshot",
        snapshot.path().to_str().unwrap(),
        "--output",
        site.to_str().unwrap(),
        "--site-url",
        "https://tjzs.example.org/",
    ])
    .env("VATCAR_API_KEY", KEY));
    assert!(ran.status.success(), "{}", ran.text());
    let mut shown_name = false;
    for (path, bytes) in crate::support::tree(&site) {
        let text = String::from_utf8_lossy(&bytes);
        let bad = text.chars().find(|c| controls.contains(*c));
        assert!(bad.is_none(), "{path} holds {bad:?}");
        shown_name |= text.contains("Holiday Lights");
    }
    assert!(
        shown_name,
        "the event's name is shown, without the controls"
    );
    let roster = fs::read_to_string(site.join("roster/index.html")).unwrap();
    assert!(roster.contains("Jada"), "the controller is listed");
}

/// Item 15: one lone UTF-16 surrogate (`\ud800`) in one event's name costs that name a
/// character (U+FFFD), not the site its build.
#[test]
fn a_lone_surrogate_in_an_event_name_is_replaced_and_the_site_builds() {
    let snapshot = demo_snapshot_copy();
    let events = snapshot.path().join("facility-events.json");
    let body = fs::read_to_string(&events).unwrap();
    let body = body.replacen(
        "\"Holiday Lights over San Juan\"",
        "\"Holiday \\ud800Lights over San Juan \\udc00\\ud83d\\ude00\"",
        1,
    );
    assert!(body.contains("\\ud800"));
    fs::write(&events, body).unwrap();
    let out = tempfile::tempdir().unwrap();
    let site = out.path().join("site");
    let ran = run(vatcar_at_demo_time(&[
        "build",
        "--snapshot",
        snapshot.path().to_str().unwrap(),
        "--output",
        site.to_str().unwrap(),
    ])
    .env("VATCAR_API_KEY", KEY));
    assert!(ran.status.success(), "{}", ran.text());
    let page = fs::read_to_string(site.join("events/426/index.html")).unwrap();
    assert!(
        page.contains("Holiday \u{fffd}Lights over San Juan \u{fffd}\u{1f600}"),
        "the name, each lone surrogate replaced and the pair kept"
    );
}
