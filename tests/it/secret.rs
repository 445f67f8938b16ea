//! The API key, once known, in no message and no published name: usage errors that echo a
//! flag's value, paths the user chose, config errors and the names of the site's own files.
//! The key comes from the environment (as a CI secret sets it) or from `--api-key`.

use crate::support::{
    AgainstMock, KEY, Ran, demo_api, run, site_folder, tree, vatcar, vatcar_at_demo_time,
};
use std::path::Path;

/// What a run printed holds no trace of the key, and says where it was instead.
fn assert_scrubbed(ran: &Ran) {
    let text = ran.text();
    assert!(!text.contains(KEY), "the key was printed:\n{text}");
    assert!(text.contains("[REDACTED]"), "{text}");
}

#[test]
fn usage_errors_do_not_echo_the_key() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let out = out.to_str().unwrap();
    for (command, flag) in [
        ("build", "--display-zone"),
        ("build", "--site-url"),
        ("fetch", "--cid"),
    ] {
        let args = [command, "--demo", flag, KEY, "--output", out];
        // `fetch` has no --demo: clap names it, or the value, first; either way no key.
        let args: Vec<&str> = args
            .into_iter()
            .filter(|a| command != "fetch" || *a != "--demo")
            .collect();
        let ran = run(vatcar(&args).env("VATCAR_API_KEY", KEY));
        assert_eq!(ran.code(), Some(2), "{}", ran.text());
        assert_scrubbed(&ran);
        assert!(ran.stderr.contains(flag), "{}", ran.stderr);

        // The key given as a flag (`--api-key KEY`, `--api-key=KEY`) is known as early.
        let joined = format!("--api-key={KEY}");
        for key_flag in [vec!["--api-key", KEY], vec![joined.as_str()]] {
            let mut args = args.clone();
            args.splice(1..1, key_flag);
            let ran = run(&mut vatcar(&args));
            assert_eq!(ran.code(), Some(2), "{}", ran.text());
            assert_scrubbed(&ran);
        }
    }
}

/// A password in an address (`https://user:pass@host/`) is the webmaster's secret too, of any
/// length: an address refused, as a flag, from the environment or in the config file, is
/// named without it; and a site URL that holds one, which every page would publish, is
/// refused.
#[test]
fn a_refused_address_is_named_without_its_user_name_and_password() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let out = out.to_str().unwrap();
    let bad = "ftp://user:hunter2@bookings.example.org/api";
    let with_password = "https://user:hunter2@bookings.example.org/api";
    let flag = |flag: &str, value: &str| {
        run(&mut vatcar(&[
            "build", "--demo", "--output", out, flag, value,
        ]))
    };
    let env = |value: &str| {
        run(vatcar(&["build", "--demo", "--output", out]).env("VATCAR_BOOKINGS_URL", value))
    };
    let config = tmp.path().join("vatcar-site.toml");
    std::fs::write(&config, format!("base_url = \"{with_password}\"\n")).unwrap();
    let in_config = run(vatcar(&["build", "--output", out, "--config"]).arg(&config));
    for (ran, names) in [
        (flag("--bookings-url", bad), "--bookings-url"),
        (flag("--bookings-url", with_password), "--bookings-url"),
        (env(bad), "--bookings-url"),
        (env(with_password), "--bookings-url"),
        (flag("--previous", bad), "--previous"),
        (flag("--site-url", bad), "--site-url"),
        // Written into every page, it would publish the password.
        (flag("--site-url", with_password), "--site-url"),
        (in_config, "base_url"),
    ] {
        let text = ran.text();
        assert_eq!(ran.code(), Some(2), "{text}");
        assert!(
            !text.contains("hunter2"),
            "the password was printed:\n{text}"
        );
        assert!(
            !text.contains("user:"),
            "the user name was printed:\n{text}"
        );
        assert!(text.contains(names), "{text}");
        assert!(text.contains("bookings.example.org/api"), "{text}");
    }
}

#[test]
fn a_config_path_holding_the_key_is_not_printed() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join(format!("{KEY}.toml"));
    let ran = run(vatcar(&["build", "--demo", "--config"])
        .arg(&config)
        .env("VATCAR_API_KEY", KEY));
    assert_eq!(ran.code(), Some(2), "{}", ran.text());
    assert!(
        ran.stderr.contains("could not read the config file"),
        "{}",
        ran.stderr
    );
    assert_scrubbed(&ran);
}

#[test]
fn a_menu_url_error_does_not_quote_the_key() {
    let site = site_folder(
        &format!("[[menu]]\nname = \"Mine\"\nurl = \"ftp://x.example/{KEY}\"\n"),
        &[],
    );
    let ran = run(vatcar(&["build", "--demo", "--config"])
        .arg(site.path().join("vatcar-site.toml"))
        .env("VATCAR_API_KEY", KEY));
    assert_eq!(ran.code(), Some(2), "{}", ran.text());
    assert!(ran.stderr.contains("menu: url:"), "{}", ran.stderr);
    assert_scrubbed(&ran);
}

#[test]
fn the_summary_does_not_name_an_output_folder_holding_the_key() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join(format!("out-{KEY}"));
    let ran = run(vatcar_at_demo_time(&["build", "--demo", "--output"])
        .arg(&out)
        .env("VATCAR_API_KEY", KEY));
    assert!(ran.status.success(), "{}", ran.text());
    assert!(out.join("index.html").is_file());
    assert!(ran.stderr.contains("built 72 pages"), "{}", ran.stderr);
    assert_scrubbed(&ran);

    let server = demo_api();
    let snap = tmp.path().join(format!("snap-{KEY}"));
    let ran = run(vatcar(&["fetch", "--output"]).arg(&snap).against(&server));
    assert!(ran.status.success(), "{}", ran.text());
    assert!(snap.join("facility-roster.json").is_file());
    assert!(ran.stderr.contains("saved"), "{}", ran.stderr);
    assert_scrubbed(&ran);
}

/// A site folder whose own file is named with the key is refused as a file holding it would
/// be: nothing is published, and the error names the file without the key.
#[test]
fn a_published_name_holding_the_key_stops_the_build() {
    for (file, bytes) in [
        (format!("static/{KEY}.txt"), &b"hello"[..]),
        (format!("static/keys/{KEY}/a.txt"), &b"hello"[..]),
        (
            format!("content/{KEY}.md"),
            &b"+++\ntitle = \"Keyed\"\n+++\nHello.\n"[..],
        ),
    ] {
        let site = site_folder("", &[(&file, bytes)]);
        let out = site.path().join("output");
        let ran = run(vatcar_at_demo_time(&["build", "--demo", "--config"])
            .arg(site.path().join("vatcar-site.toml"))
            .env("VATCAR_API_KEY", KEY));
        assert_eq!(ran.code(), Some(1), "{file}: {}", ran.text());
        assert!(
            ran.stderr.contains("would contain the API key in its name"),
            "{file}: {}",
            ran.stderr
        );
        assert_scrubbed(&ran);
        assert!(no_files(&out), "{file}: something was published");
    }
}

fn no_files(dir: &Path) -> bool {
    !dir.exists() || tree(dir).is_empty()
}
