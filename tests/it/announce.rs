//! `announce` (issue 25, item 5): the changes a build found new, posted to a Discord webhook.
//!
//! The changes files here are written by hand, in the format `build` writes
//! (`data/changes.json`), so that each test says exactly what the build recorded.

use crate::support::webhook::{self, Webhook, too_many_requests};
use crate::support::{Ran, Reply, run, run_ok, run_within, tree, vatcar};
use serde_json::{Value, json};
use std::path::PathBuf;

const SITE: &str = "https://tjzs.example.org/";

/// One entry of a changes file.
fn change(id: &str, kind: &str, title: &str, url: &str, new: bool) -> Value {
    json!({
        "id": id, "kind": kind, "date": "2026-11-19T14:30:00Z", "title": title,
        "url": url, "new": new,
    })
}

/// A new change of kind `promotion` titled `title`.
fn new_change(index: usize, title: &str) -> Value {
    change(
        &format!("promotion:{index}:S2"),
        "promotion",
        title,
        &format!("{SITE}roster/"),
        true,
    )
}

/// A site folder: a config choosing an accent, and an output folder holding only the changes
/// file, as a build would have left them.
struct Site {
    dir: tempfile::TempDir,
}

impl Site {
    fn new(first_build: bool, changes: Vec<Value>) -> Self {
        let file = json!({
            "version": 1, "generated": "2026-11-20T06:17:00Z", "site_url": SITE,
            "language": "en", "first_build": first_build, "changes": changes,
        });
        Self::with_file(&serde_json::to_vec_pretty(&file).unwrap())
    }

    fn with_file(bytes: &[u8]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("vatcar-site.toml"),
            "accent = \"#d35400\"\noutput = \"public\"\n",
        )
        .unwrap();
        let data = dir.path().join("public/data");
        std::fs::create_dir_all(&data).unwrap();
        std::fs::write(data.join("changes.json"), bytes).unwrap();
        Self { dir }
    }

    fn output(&self) -> PathBuf {
        self.dir.path().join("public")
    }

    /// `announce` run in the site folder (so with its config), posting to `hook`.
    fn announce(&self, hook: Option<&Webhook>, extra: &[&str]) -> Ran {
        let mut args = vec!["announce"];
        args.extend_from_slice(extra);
        let mut command = vatcar(&args);
        command.current_dir(self.dir.path());
        if let Some(hook) = hook {
            command.env("DISCORD_WEBHOOK_URL", hook.url());
        }
        run(&mut command)
    }
}

fn titles(message: &Value) -> Vec<&str> {
    message["embeds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["title"].as_str().unwrap())
        .collect()
}

#[test]
fn each_kind_of_change_is_posted_as_an_embed_in_the_sites_accent() {
    let site = Site::new(
        false,
        vec![
            change(
                "new_member:1",
                "new_member",
                "Ana Ruiz joined",
                &format!("{SITE}roster/"),
                true,
            ),
            change(
                "new_visitor:2",
                "new_visitor",
                "Ben Ode visits",
                &format!("{SITE}roster/"),
                true,
            ),
            change(
                "promotion:3:S2",
                "promotion",
                "Cy Lee is now S2",
                &format!("{SITE}roster/"),
                true,
            ),
            change(
                "promotion:9:S3",
                "promotion",
                "Old news",
                &format!("{SITE}roster/"),
                false,
            ),
            change(
                "new_event:4",
                "new_event",
                "FNO San Juan",
                &format!("{SITE}events/4/"),
                true,
            ),
            change(
                "event_changed:5",
                "event_changed",
                "Piarco night moved",
                &format!("{SITE}events/5/"),
                true,
            ),
            change(
                "new_document:6",
                "new_document",
                "SOP 2026",
                &format!("{SITE}documents/"),
                true,
            ),
            change(
                "document_updated:7",
                "document_updated",
                "LOA TJZS",
                &format!("{SITE}documents/"),
                true,
            ),
            change(
                "new_event:8",
                "new_event",
                "Also old",
                &format!("{SITE}events/8/"),
                false,
            ),
        ],
    );
    let hook = Webhook::accepting();
    let ran = site.announce(Some(&hook), &[]);
    assert!(ran.status.success(), "{}", ran.text());

    let posts = hook.delivered();
    assert_eq!(posts.len(), 1, "one message");
    assert_eq!(
        titles(&posts[0]),
        [
            "Ana Ruiz joined",
            "Ben Ode visits",
            "Cy Lee is now S2",
            "FNO San Juan",
            "Piarco night moved",
            "SOP 2026",
            "LOA TJZS"
        ]
    );
    let first = &posts[0]["embeds"][0];
    assert_eq!(first["url"], format!("{SITE}roster/"));
    assert_eq!(first["color"], 0xd35400);
    assert_eq!(first["timestamp"], "2026-11-19T14:30:00Z");
    assert_eq!(posts[0]["embeds"][3]["url"], format!("{SITE}events/4/"));
    assert_eq!(posts[0]["allowed_mentions"], json!({ "parse": [] }));
    assert!(
        ran.stderr.contains("posted 7 changes in 1 message"),
        "{}",
        ran.stderr
    );
}

#[test]
fn changes_go_ten_to_a_message_in_their_order() {
    let changes = (1..=23)
        .map(|i| new_change(i, &format!("change {i}")))
        .collect();
    let site = Site::new(false, changes);
    let hook = Webhook::accepting();
    run_ok(
        vatcar(&["announce"])
            .current_dir(site.dir.path())
            .env("DISCORD_WEBHOOK_URL", hook.url()),
    );
    let posts = hook.delivered();
    let sizes: Vec<usize> = posts.iter().map(|p| titles(p).len()).collect();
    assert_eq!(sizes, [10, 10, 3]);
    let all: Vec<&str> = posts.iter().flat_map(titles).collect();
    let expected: Vec<String> = (1..=23).map(|i| format!("change {i}")).collect();
    assert_eq!(all, expected);
}

#[test]
fn a_first_build_posts_nothing_unless_the_backlog_is_asked_for() {
    let changes = (1..=3)
        .map(|i| new_change(i, &format!("change {i}")))
        .collect();
    let site = Site::new(true, changes);
    let hook = Webhook::accepting();

    let ran = site.announce(Some(&hook), &[]);
    assert!(ran.status.success(), "{}", ran.text());
    assert!(hook.posts().is_empty());
    assert!(
        ran.stderr.contains("a first build (no previous build to compare with), so its history (3 changes) is not news; nothing was posted (--backlog posts it)"),
        "{}",
        ran.stderr
    );

    let ran = site.announce(Some(&hook), &["--backlog"]);
    assert!(ran.status.success(), "{}", ran.text());
    let posts = hook.delivered();
    assert_eq!(posts.len(), 1);
    assert_eq!(titles(&posts[0]), ["change 1", "change 2", "change 3"]);
}

/// The next build, compared with the live site that the first announce ran after, records
/// the same change as not new: it is posted once.
#[test]
fn a_change_is_posted_by_the_run_whose_build_found_it_and_never_again() {
    let hook = Webhook::accepting();
    let found = Site::new(false, vec![new_change(1, "Cy Lee is now S2")]);
    run_ok(
        vatcar(&["announce"])
            .current_dir(found.dir.path())
            .env("DISCORD_WEBHOOK_URL", hook.url()),
    );
    let mut seen = new_change(1, "Cy Lee is now S2");
    seen["new"] = json!(false);
    let next = Site::new(false, vec![seen]);
    let ran = next.announce(Some(&hook), &[]);
    assert!(ran.status.success(), "{}", ran.text());
    assert_eq!(hook.posts().len(), 1, "posted once, by the first run");
    assert!(
        ran.stderr.contains("nothing new since the previous build"),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_429_and_a_500_are_waited_out_and_the_rate_limit_headers_pause_the_next_post() {
    let changes = (1..=12)
        .map(|i| new_change(i, &format!("change {i}")))
        .collect();
    let site = Site::new(false, changes);
    let hook = Webhook::start(vec![
        too_many_requests(0.3),
        Reply::status(500),
        Reply::status(204)
            .header("X-RateLimit-Remaining", "0")
            .header("X-RateLimit-Reset-After", "0.4"),
        Reply::status(204),
    ]);
    let ran = site.announce(Some(&hook), &["-v"]);
    assert!(ran.status.success(), "{}", ran.text());

    let posts = hook.posts();
    let statuses: Vec<u16> = posts.iter().map(|p| p.status).collect();
    assert_eq!(statuses, [429, 500, 204, 204]);
    // The first message was sent three times, the same each time, and delivered once.
    assert_eq!(posts[0].body, posts[2].body);
    assert_eq!(posts[1].body, posts[2].body);
    let delivered = hook.delivered();
    assert_eq!(delivered.len(), 2);
    assert_eq!(titles(&delivered[0]).len(), 10);
    assert_eq!(titles(&delivered[1]), ["change 11", "change 12"]);
    // It waited at least as long as it was asked (a lower bound only: never a speed check).
    assert!(posts[1].received - posts[0].received >= std::time::Duration::from_millis(300));
    assert!(posts[3].received - posts[2].received >= std::time::Duration::from_millis(400));
    for said in [
        "Discord answered 429 (too many requests); waiting 0.30 s as it asks",
        "the webhook answered 500; retrying in 0.5 s",
        "pausing 0.4 s: Discord's rate limit",
    ] {
        assert!(ran.stderr.contains(said), "{said}: {}", ran.stderr);
    }
}

#[test]
fn a_wait_over_a_minute_stops_the_run_naming_what_was_not_posted() {
    let changes = (1..=12)
        .map(|i| new_change(i, &format!("change {i}")))
        .collect();
    let site = Site::new(false, changes);
    let hook = Webhook::start(vec![Reply::status(204), too_many_requests(120.0)]);
    let ran = site.announce(Some(&hook), &[]);
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    assert_eq!(hook.delivered().len(), 1);
    assert_eq!(hook.posts().len(), 2, "no second try after a refused wait");
    for said in [
        "could not post message 2 of 2 to the webhook in DISCORD_WEBHOOK_URL; 10 of 12 changes were posted before it",
        "not posted: \"change 11\", \"change 12\"",
        "Discord asked to wait 120 s before posting again (429), more than the 60 s announce waits",
    ] {
        assert!(ran.stderr.contains(said), "{said}: {}", ran.stderr);
    }
}

#[test]
fn a_server_error_is_retried_three_times_then_reported() {
    let site = Site::new(false, vec![new_change(1, "change 1")]);
    let hook = Webhook::start(vec![Reply::json(
        502,
        r#"{"message": "Bad gateway", "code": 0}"#,
    )]);
    let ran = site.announce(Some(&hook), &[]);
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    assert_eq!(hook.posts().len(), 4);
    assert!(
        ran.stderr.contains("error: could not post message 1 of 1 to the webhook in DISCORD_WEBHOOK_URL; nothing was posted; not posted: \"change 1\"\n"),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr
            .contains("the webhook answered 502 (Bad gateway), 4 times; try again later"),
        "{}",
        ran.stderr
    );
}

/// Every line printed and every file left, in runs that succeed, fail, and are told about
/// the address in the wrong place: neither the address nor its token.
#[test]
fn the_webhook_address_is_never_printed_nor_written() {
    let site = Site::new(false, vec![new_change(1, "change 1")]);
    let before = tree(site.dir.path());
    let assert_absent = |ran: &Ran, hook_url: &str| {
        let text = ran.text();
        for secret in [hook_url, webhook::PATH, webhook::TOKEN] {
            assert!(!text.contains(secret), "{text}");
        }
    };

    let hook = Webhook::accepting();
    let ran = site.announce(Some(&hook), &["-vv"]);
    assert!(ran.status.success(), "{}", ran.text());
    assert_absent(&ran, &hook.url());

    // Discord's answer quoting the address back.
    let mut echo = Webhook::accepting();
    let body = format!(
        r#"{{"message": "Unknown Webhook {}", "code": 10015}}"#,
        echo.url()
    );
    echo.answer(vec![Reply::json(404, body)]);
    let ran = site.announce(Some(&echo), &["-vv"]);
    assert_eq!(ran.code(), Some(1));
    assert!(
        ran.stderr
            .contains("answered 404 (Unknown Webhook [REDACTED])"),
        "{}",
        ran.stderr
    );
    assert_absent(&ran, &echo.url());

    // Nothing listening: the connection error names no address.
    let closed = format!(
        "http://127.0.0.1:{}{}",
        crate::support::mock::closed_port(),
        webhook::PATH
    );
    let ran = run(vatcar(&["announce", "-vv"])
        .current_dir(site.dir.path())
        .env("DISCORD_WEBHOOK_URL", &closed));
    assert_eq!(ran.code(), Some(1));
    assert!(
        ran.stderr.contains("could not reach the webhook"),
        "{}",
        ran.stderr
    );
    assert_absent(&ran, &closed);

    // Refused addresses, and the address given where a variable's name goes.
    let plain = format!("http://discord.example{}", webhook::PATH);
    let ran = run(vatcar(&["announce"])
        .current_dir(site.dir.path())
        .env("DISCORD_WEBHOOK_URL", &plain));
    assert_eq!(ran.code(), Some(2));
    assert!(
        ran.stderr
            .contains("DISCORD_WEBHOOK_URL: is an http:// address"),
        "{}",
        ran.stderr
    );
    assert_absent(&ran, &plain);
    let ran = run(vatcar(&["announce", "--webhook-env", &plain]).current_dir(site.dir.path()));
    assert_eq!(ran.code(), Some(2));
    assert!(
        ran.stderr.contains("--webhook-env takes the name"),
        "{}",
        ran.stderr
    );
    assert_absent(&ran, &plain);

    assert_eq!(tree(site.dir.path()), before, "announce writes nothing");
}

#[test]
fn the_address_comes_from_the_variable_named() {
    let site = Site::new(false, vec![new_change(1, "change 1")]);
    let ran = site.announce(None, &[]);
    assert_eq!(ran.code(), Some(2));
    assert!(
        ran.stderr
            .starts_with("error: DISCORD_WEBHOOK_URL is not set"),
        "{}",
        ran.stderr
    );
    let hook = Webhook::accepting();
    let ran = run(vatcar(&["announce", "--webhook-env", "TJZS_HOOK"])
        .current_dir(site.dir.path())
        .env("TJZS_HOOK", hook.url()));
    assert!(ran.status.success(), "{}", ran.text());
    assert!(
        ran.stderr.contains("to the webhook in TJZS_HOOK"),
        "{}",
        ran.stderr
    );
    assert_eq!(hook.delivered().len(), 1);
}

#[test]
fn a_dry_run_prints_the_posts_and_sends_nothing() {
    let site = Site::new(
        false,
        vec![
            change(
                "new_event:4",
                "new_event",
                "FNO *San Juan*",
                &format!("{SITE}events/4/"),
                true,
            ),
            change(
                "new_document:6",
                "new_document",
                "SOP 2026",
                "documents/",
                true,
            ),
        ],
    );
    let ran = site.announce(None, &["--dry-run"]);
    assert!(ran.status.success(), "{}", ran.text());
    assert_eq!(
        ran.stdout,
        "message 1 of 1 (2 embeds, colour #d35400):\n\
         \x20 1. FNO \\*San Juan\\*\n\
         \x20    new_event  2026-11-19T14:30:00Z  https://tjzs.example.org/events/4/\n\
         \x20 2. SOP 2026\n\
         \x20    new_document  2026-11-19T14:30:00Z  (no link: the site was built without --site-url)\n"
    );
    assert!(
        ran.stderr
            .contains("would post 2 changes in 1 message; nothing was sent (--dry-run)"),
        "{}",
        ran.stderr
    );

    // With a webhook set, still nothing is sent.
    let hook = Webhook::accepting();
    let ran = site.announce(Some(&hook), &["--dry-run"]);
    assert!(ran.status.success(), "{}", ran.text());
    assert!(hook.posts().is_empty());
}

#[test]
fn hostile_titles_are_escaped_and_cut_to_discords_limits() {
    let long = "A".repeat(5000);
    let site = Site::new(
        false,
        vec![
            new_change(
                1,
                "**Bold** [click](https://evil.example) @everyone <@123456789> `x` ||s||",
            ),
            new_change(2, &long),
            new_change(3, "@here\nline two\u{0007}"),
        ],
    );
    let hook = Webhook::accepting();
    let ran = site.announce(Some(&hook), &[]);
    assert!(ran.status.success(), "{}", ran.text());
    let posts = hook.delivered();
    let titles = titles(&posts[0]);
    assert_eq!(
        titles[0],
        "\\*\\*Bold\\*\\* \\[click\\](https://evil.example) @\u{200B}everyone \\<@123456789> \\`x\\` \\|\\|s\\|\\|"
    );
    assert_eq!(titles[1].encode_utf16().count(), 256);
    assert!(titles[1].ends_with("AAA…"));
    assert_eq!(titles[2], "@\u{200B}here line two");
    assert_eq!(posts[0]["allowed_mentions"], json!({ "parse": [] }));
    let characters: usize = titles.iter().map(|t| t.encode_utf16().count()).sum();
    assert!(characters <= 6000);
}

/// A character that Discord, a client or a later step could drop, sat between `@` and the
/// word, must not leave a working mention once it is gone: controls are removed before
/// mentions are looked for, and invisible characters are looked through.
#[test]
fn a_mention_with_an_invisible_character_inside_is_still_broken() {
    let titles_given = [
        "@\u{0007}everyone",
        "@\u{0085}everyone",
        "@\u{00AD}here",
        "@\u{202E}everyone",
        "@\u{2066}\u{200D}Here",
        "<\u{0007}@123456789>",
    ];
    let site = Site::new(
        false,
        (titles_given.iter().enumerate())
            .map(|(i, title)| new_change(i, title))
            .collect(),
    );
    let hook = Webhook::accepting();
    let ran = site.announce(Some(&hook), &[]);
    assert!(ran.status.success(), "{}", ran.text());
    let posts = hook.delivered();
    assert_eq!(
        titles(&posts[0]),
        [
            "@\u{200B}everyone",
            "@\u{200B}everyone",
            "@\u{200B}\u{00AD}here",
            "@\u{200B}\u{202E}everyone",
            "@\u{200B}\u{2066}\u{200D}Here",
            "\\<@123456789>",
        ]
    );
}

#[test]
fn a_changes_file_with_text_after_its_json_is_refused_naming_the_file() {
    let file = json!({
        "version": 1, "generated": "2026-11-20T06:17:00Z", "site_url": SITE,
        "language": "en", "first_build": false, "changes": [new_change(1, "change 1")],
    });
    let mut bytes = serde_json::to_vec_pretty(&file).unwrap();
    bytes.extend_from_slice(b"\ngarbage");
    let stderr = refused(&Site::with_file(&bytes));
    let path = std::path::Path::new("public").join("data/changes.json");
    assert!(
        stderr.starts_with(&format!(
            "error: {} is not a changes file this vatcar-site can read, so nothing was posted",
            path.display()
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("caused by: line 18: text after the end of the JSON"),
        "{stderr}"
    );
}

#[test]
fn a_change_listed_three_times_is_posted_once_with_a_warning_naming_it() {
    let site = Site::new(
        false,
        vec![
            new_change(1, "Cy Lee is now S2"),
            new_change(2, "Ana Ruiz is now S2"),
            new_change(1, "Cy Lee is now S2, again"),
            new_change(1, "Cy Lee is now S2, thrice"),
        ],
    );
    let hook = Webhook::accepting();
    let ran = site.announce(Some(&hook), &[]);
    assert!(ran.status.success(), "{}", ran.text());
    let posts = hook.delivered();
    assert_eq!(posts.len(), 1);
    assert_eq!(
        titles(&posts[0]),
        ["Cy Lee is now S2", "Ana Ruiz is now S2"]
    );
    assert!(
        ran.stderr.contains(&format!(
            "warning: {} lists the same change more than once (\"promotion:1:S2\" 3 times); only the first entry of each is read",
            std::path::Path::new("public")
                .join("data/changes.json")
                .display()
        )),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains("posted 2 changes in 1 message"),
        "{}",
        ran.stderr
    );
}

/// Reading a named pipe waits for a writer, for ever: the run must refuse it at once (the
/// test gives up after a minute rather than hang).
#[cfg(unix)]
#[test]
fn a_changes_file_that_is_a_named_pipe_is_refused_without_waiting() {
    let site = Site::new(false, vec![new_change(1, "change 1")]);
    let file = site.output().join("data/changes.json");
    std::fs::remove_file(&file).unwrap();
    let name = std::ffi::CString::new(file.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    let hook = Webhook::accepting();
    let ran = run_within(
        vatcar(&["announce"])
            .current_dir(site.dir.path())
            .env("DISCORD_WEBHOOK_URL", hook.url()),
        std::time::Duration::from_secs(60),
    );
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    assert!(hook.posts().is_empty());
    assert!(
        ran.stderr.starts_with(
            "error: public/data/changes.json is a named pipe, not a plain file; announce reads only the file `vatcar-site build` wrote there"
        ),
        "{}",
        ran.stderr
    );
}

/// A link could lead to any file on the machine; the build does not follow one to its own
/// files, and neither does announce, whether the file or its folder is the link.
#[cfg(unix)]
#[test]
fn a_changes_file_reached_through_a_link_is_refused() {
    use std::os::unix::fs::symlink;
    let elsewhere = Site::new(false, vec![new_change(1, "change 1")]);
    let real = elsewhere.output().join("data");

    let file_linked = Site::new(false, vec![]);
    let file = file_linked.output().join("data/changes.json");
    std::fs::remove_file(&file).unwrap();
    symlink(real.join("changes.json"), &file).unwrap();
    let stderr = refused(&file_linked);
    assert!(
        stderr.starts_with(
            "error: public/data/changes.json is a symbolic link, not a plain file; announce reads only the file `vatcar-site build` wrote there"
        ),
        "{stderr}"
    );

    let folder_linked = Site::new(false, vec![]);
    let folder = folder_linked.output().join("data");
    std::fs::remove_dir_all(&folder).unwrap();
    symlink(&real, &folder).unwrap();
    let stderr = refused(&folder_linked);
    assert!(
        stderr.starts_with("error: public/data is a symbolic link, not a plain folder"),
        "{stderr}"
    );
}

fn refused(site: &Site) -> String {
    let hook = Webhook::accepting();
    let ran = site.announce(Some(&hook), &[]);
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    assert!(
        hook.posts().is_empty(),
        "nothing is posted from a refused file"
    );
    ran.stderr
}

#[test]
fn a_tampered_changes_file_is_refused_whole_naming_the_file_and_the_field() {
    // The config's output folder, relative to the config file in the working folder.
    let file = |_: &Site| {
        std::path::Path::new("public")
            .join("data/changes.json")
            .display()
            .to_string()
    };

    let wrong_type = Site::new(
        false,
        vec![json!({
            "id": "x", "kind": "promotion", "date": "2026-11-19T14:30:00Z",
            "title": "<script>alert(1)</script>", "url": "roster/", "new": "yes"
        })],
    );
    let stderr = refused(&wrong_type);
    assert!(
        stderr.starts_with(&format!(
            "error: {} is not a changes file this vatcar-site can read, so nothing was posted",
            file(&wrong_type)
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "caused by: line 7: changes[0].new: invalid type: string \"yes\", expected a boolean"
        ),
        "{stderr}"
    );

    let demotion = Site::new(
        false,
        vec![change("d:1", "demotion", "A is now S1", "roster/", true)],
    );
    assert!(refused(&demotion).contains("changes[0].kind: unknown variant `demotion`"));

    let oversized = Site::with_file(&vec![b' '; 17 * 1024 * 1024]);
    let stderr = refused(&oversized);
    assert!(
        stderr.contains(&format!("{} is over 16 MiB", file(&oversized))),
        "{stderr}"
    );

    let not_json = Site::with_file(b"<html>not json</html>");
    assert!(refused(&not_json).contains("line 1: expected value"));

    let missing = Site::new(false, vec![]);
    std::fs::remove_file(missing.output().join("data/changes.json")).unwrap();
    let stderr = refused(&missing);
    assert!(
        stderr.contains("does not exist: announce posts what `vatcar-site build` recorded there"),
        "{stderr}"
    );
}

/// The workflow `init` writes has the announce job, commented out, after the deploy job it
/// waits for, with the secret's name; uncommented, it is the job docs/discord.md describes.
#[test]
fn the_workflow_init_writes_has_the_announce_job_commented_out_after_deploy() {
    let tmp = tempfile::tempdir().unwrap();
    run_ok(vatcar(&["init"]).current_dir(tmp.path()));
    let workflow = std::fs::read_to_string(tmp.path().join(".github/workflows/site.yml")).unwrap();
    let job = uncommented_announce_job(&workflow);
    assert!(workflow.find("\n  deploy:\n").unwrap() < workflow.find("\n  # announce:\n").unwrap());
    assert!(job.contains("\n    needs: deploy\n"), "{job}");
    assert!(
        job.contains("DISCORD_WEBHOOK_URL: ${{ secrets.DISCORD_WEBHOOK_URL }}"),
        "{job}"
    );
    assert!(job.contains("args: announce --output "), "{job}");
    assert!(
        !job.contains("VATCAR_API_KEY"),
        "the key stays in the build job"
    );
}

/// The announce job of `workflow` with its comment marks taken off (as a webmaster would).
fn uncommented_announce_job(workflow: &str) -> String {
    let start = workflow
        .find("\n  # announce:\n")
        .expect("the announce job")
        + 1;
    workflow[start..]
        .lines()
        .take_while(|l| l.starts_with("  #"))
        .map(|l| format!("  {}\n", l["  #".len()..].strip_prefix(' ').unwrap_or("")))
        .collect()
}

/// `announce --dry-run` on the demo shows what the demo's previous state makes new: a
/// promotion, two new members, a new event and an updated document.
#[test]
fn a_dry_run_on_the_demo_prints_its_five_posts() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("demo");
    run_ok(&mut crate::support::vatcar_at_demo_time(&[
        "build",
        "--demo",
        "--output",
        out.to_str().unwrap(),
        "--site-url",
        "https://demo.example.org/",
    ]));
    let ran = run_ok(
        vatcar(&["announce", "--dry-run", "--output", out.to_str().unwrap()])
            .current_dir(tmp.path()),
    );
    assert!(
        ran.stdout.starts_with("message 1 of 1 (5 embeds"),
        "{}",
        ran.stdout
    );
    for kind in ["promotion", "new_member", "new_event", "document_updated"] {
        assert!(
            ran.stdout.contains(&format!("    {kind}  ")),
            "{}",
            ran.stdout
        );
    }
    assert!(!ran.stdout.contains("(no link"), "{}", ran.stdout);
}

/// The address in `DISCORD_WEBHOOK_URL` is scrubbed from what any command prints, as the key
/// is: here pasted into the wrong flag of a build.
#[test]
fn the_webhook_address_beside_another_command_is_scrubbed_too() {
    let url = format!("https://discord.example{}", webhook::PATH);
    let ran = run(vatcar(&["build", "--demo", "--config", &url]).env("DISCORD_WEBHOOK_URL", &url));
    assert_eq!(ran.code(), Some(2), "{}", ran.text());
    assert!(ran.stderr.contains("[REDACTED]"), "{}", ran.stderr);
    assert!(!ran.text().contains(webhook::TOKEN), "{}", ran.text());
}

/// A webhook address in the environment of a build, as in a workflow that sets the secret for
/// every job: no page may hold its token, nor the address, any more than the API key.
fn webhook_beside_a_build() -> String {
    format!(
        "http://127.0.0.1:{}{}",
        crate::support::mock::closed_port(),
        webhook::PATH
    )
}

/// What a refused run printed: that it was refused, naming a file (whichever page or
/// calendar was made first), and not the secret.
fn assert_refused_for_the_webhook(ran: &Ran, url: &str) {
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    let refusal = " would contain the Discord webhook's address (DISCORD_WEBHOOK_URL), so nothing was written";
    let named = (ran.stderr.split_once(refusal))
        .and_then(|(before, _)| before.split_whitespace().next_back());
    assert!(
        named.is_some_and(|file| file.ends_with(".html") || file.ends_with(".ics")),
        "{}",
        ran.stderr
    );
    for secret in [url, webhook::PATH, webhook::TOKEN] {
        assert!(!ran.text().contains(secret), "{}", ran.text());
    }
}

#[test]
fn a_build_whose_pages_would_hold_the_webhook_token_fails_without_printing_it() {
    let url = webhook_beside_a_build();
    for title in [format!("x {}", webhook::TOKEN), format!("x {url}")] {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("site");
        let ran = run(crate::support::vatcar_at_demo_time(&[
            "build",
            "--demo",
            "--output",
            out.to_str().unwrap(),
            "--title",
            &title,
        ])
        .env("DISCORD_WEBHOOK_URL", &url));
        assert_refused_for_the_webhook(&ran, &url);
        assert!(!out.exists(), "nothing is published");
    }
}

/// `serve` builds as `build` does, and stops on the same refusal (the test gives up after a
/// minute rather than wait on a server that would serve the token).
#[test]
fn serve_refuses_to_build_pages_that_would_hold_the_webhook_token() {
    let url = webhook_beside_a_build();
    let tmp = tempfile::tempdir().unwrap();
    let ran = run_within(
        crate::support::vatcar_at_demo_time(&[
            "serve",
            "--demo",
            "--port",
            "0",
            "--output",
            "site",
            "--title",
            &format!("x {}", webhook::TOKEN),
        ])
        .current_dir(tmp.path())
        .env("DISCORD_WEBHOOK_URL", &url),
        std::time::Duration::from_secs(60),
    );
    assert_refused_for_the_webhook(&ran, &url);
    assert!(!tmp.path().join("site/index.html").exists());
}
