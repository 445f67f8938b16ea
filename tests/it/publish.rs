//! Publishing that is never half-done (issue 13): what a reader of the output folder sees
//! during a rebuild, runs stopped by signals at exact points, two runs at once, links inside
//! the output, a mount point as the output, private folders nested in sites, and files that
//! are the webmaster's.
//!
//! Exact points are reached with the publication's test pause (`VATCAR_SITE_TEST_PAUSE`, see
//! `src/publish/test_pause.rs`): the run says `paused at <point>` and waits there. Only debug
//! builds have it; `cargo test --release` skips the tests that need it, saying so (and fails
//! them where `VATCAR_REQUIRE_TEST_PAUSE` is set).
//!
//! The tests that need signals, links, `/proc` or `mount` are for Unix or Linux only; the
//! others run on every platform.

use crate::support::{
    AgainstMock, assert_same_files, demo_api, run, run_ok, tree, vatcar, vatcar_at_demo_time,
};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;
#[cfg(target_os = "linux")]
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
#[cfg(target_os = "linux")]
use std::sync::atomic::{AtomicBool, Ordering};
#[cfg(unix)]
use std::time::Duration;

/// A snapshot folder: the demo data with `events` generated facility events, so that a
/// publication has a few thousand files to move.
fn big_snapshot(events: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("demo");
    for file in [
        "facility-roster.json",
        "facility-documents.json",
        "division-events.json",
    ] {
        fs::copy(demo.join(file), dir.path().join(file)).unwrap();
    }
    let data: Vec<Value> = (0..events)
        .map(|i| {
            json!({
                "id": 10_000 + i,
                "name": format!("Generated event {i}"),
                "description": format!("Event **{i}**, one of many."),
                "start": format!("2026-{:02}-{:02} 20:00:00", 1 + i % 12, 1 + i % 28),
                "end": format!("2026-{:02}-{:02} 23:00:00", 1 + i % 12, 1 + i % 28),
            })
        })
        .collect();
    fs::write(
        dir.path().join("facility-events.json"),
        serde_json::to_vec(&json!({"success": true, "data": data})).unwrap(),
    )
    .unwrap();
    dir
}

fn build(snapshot: &Path, out: &Path, extra: &[&str]) -> Command {
    let mut args = vec![
        "build",
        "--snapshot",
        snapshot.to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
        "--quiet",
    ];
    args.extend_from_slice(extra);
    vatcar_at_demo_time(&args)
}

fn demo(out: &Path, extra: &[&str]) -> Command {
    let mut args = vec![
        "build",
        "--demo",
        "--output",
        out.to_str().unwrap(),
        "--quiet",
    ];
    args.extend_from_slice(extra);
    vatcar_at_demo_time(&args)
}

/// Every entry below `dir`: files with their bytes, links with their targets, folders.
fn snapshot_of(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for entry in walkdir::WalkDir::new(dir).min_depth(1) {
        let entry = entry.unwrap();
        let rel = entry
            .path()
            .strip_prefix(dir)
            .unwrap()
            .display()
            .to_string();
        let kind = entry.file_type();
        let value = if kind.is_symlink() {
            format!("link to {}", fs::read_link(entry.path()).unwrap().display())
        } else if kind.is_dir() {
            "folder".into()
        } else {
            String::from_utf8_lossy(&fs::read(entry.path()).unwrap()).into_owned()
        };
        out.insert(rel, value);
    }
    out
}

/// Names beside `out` other than `out` itself, sorted: staging folders and locks left behind.
fn litter_beside(out: &Path) -> Vec<String> {
    let name = out.file_name().unwrap();
    let mut names: Vec<String> = fs::read_dir(out.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n != name)
        .map(|n| n.to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Whether the binary has the publication's test pause, saying so when it has not: only debug
/// builds have it (`cargo test`, as CI runs it, builds one), and the tests are built alike, so
/// that `cargo test --release` skips the tests that need it, or, where CI asks for them
/// (`VATCAR_REQUIRE_TEST_PAUSE`), fails them.
fn has_test_pause() -> bool {
    if !cfg!(debug_assertions) {
        cannot_run_here(
            "the publication's test pause is compiled into debug builds only; run `cargo test` \
             without --release",
        );
    }
    cfg!(debug_assertions)
}

/// Says why a test of publishing cannot run here; where CI asks for every one of them
/// (`VATCAR_REQUIRE_MOUNTS`, set by `.ci/run`, which runs as root on Linux), fails instead, so
/// that a skip is never reported as a pass there.
fn cannot_run_here(why: &str) {
    assert!(
        std::env::var_os("VATCAR_REQUIRE_MOUNTS").is_none(),
        "VATCAR_REQUIRE_MOUNTS is set, and {why}"
    );
    eprintln!("skipped: {why}");
}

/// Starts `command` with the test pause at `point` and returns once the run has reached it.
fn start_paused(mut command: Command, point: &str, resume: Option<&Path>) -> Child {
    command
        .env("VATCAR_SITE_TEST_PAUSE", point)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if let Some(resume) = resume {
        command.env("VATCAR_SITE_TEST_RESUME", resume);
    }
    let mut child = command.spawn().unwrap();
    let stderr = child.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    let wanted = format!("paused at {point}");
    loop {
        match lines.next() {
            Some(Ok(line)) if line == wanted => break,
            Some(Ok(_)) => continue,
            _ => {
                let status = child.wait().unwrap();
                panic!("the run ended ({status}) before reaching {point}");
            }
        }
    }
    // The rest of stderr is drained so the run never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    child
}

#[cfg(unix)]
fn signal(child: &Child, signal: i32) {
    // SAFETY: kill(2) with the pid of a child this test started and has not reaped.
    assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
}

/// The title of a page, read through `dir` as it was when `dir` was opened: a reader's view
/// of one moment.
#[cfg(target_os = "linux")]
fn titles_at_one_moment(dir: &Path, pages: &[&str]) -> Option<Vec<String>> {
    let handle = fs::File::open(dir).ok()?;
    use std::os::fd::AsRawFd;
    let base = PathBuf::from(format!("/proc/self/fd/{}", handle.as_raw_fd()));
    pages
        .iter()
        .map(|page| {
            let text = fs::read_to_string(base.join(page)).ok()?;
            let start = text.find("<title>")? + 7;
            let end = text[start..].find("</title>")? + start;
            let title = &text[start..end];
            Some(title.rsplit(" · ").next().unwrap_or(title).to_owned())
        })
        .collect()
}

/// Rebuilds with alternating titles while a reader polls pages written first, in the middle
/// and last; every poll must see one build's pages only.
#[cfg(target_os = "linux")]
fn reader_never_sees_a_mix(root: &Path) {
    let snapshot = big_snapshot(400);
    let out = root.join("site");
    run_ok(&mut build(snapshot.path(), &out, &["--title", "Build 0"]));
    let pages = [
        "404.html",
        "events/10000/index.html",
        "events/10399/index.html",
        "index.html",
        "roster/index.html",
    ];
    let stop = AtomicBool::new(false);
    let (polls, mixed, titles) = std::thread::scope(|scope| {
        let reader = scope.spawn(|| {
            let (mut polls, mut mixed) = (0, Vec::new());
            let mut titles = std::collections::BTreeSet::new();
            while !stop.load(Ordering::Relaxed) {
                // A poll that opened the old tree as it was being removed after a swap reads
                // nothing; a server resolving each request's path never meets that.
                let Some(seen) = titles_at_one_moment(&out, &pages) else {
                    continue;
                };
                polls += 1;
                titles.extend(seen.iter().cloned());
                if seen.iter().any(|t| *t != seen[0]) {
                    mixed.push(format!("{seen:?}"));
                }
            }
            (polls, mixed, titles)
        });
        for n in 1..=6 {
            run_ok(&mut build(
                snapshot.path(),
                &out,
                &["--title", &format!("Build {n}")],
            ));
        }
        stop.store(true, Ordering::Relaxed);
        reader.join().unwrap()
    });
    assert!(
        mixed.is_empty(),
        "{} of {polls} polls saw a mix: {:?}",
        mixed.len(),
        &mixed[..mixed.len().min(5)]
    );
    assert!(polls > 50, "only {polls} polls");
    assert!(
        titles.len() >= 3,
        "the reader saw too few builds: {titles:?}"
    );
    assert!(litter_beside(&out).is_empty(), "{:?}", litter_beside(&out));
}

#[cfg(target_os = "linux")]
#[test]
fn a_reader_sees_the_old_site_or_the_new_one_never_a_mix_on_tmpfs() {
    let shm = Path::new("/dev/shm");
    if !shm.is_dir() {
        cannot_run_here("no /dev/shm (a tmpfs) on this machine");
        return;
    }
    let root = tempfile::tempdir_in(shm).unwrap();
    reader_never_sees_a_mix(root.path());
}

#[cfg(target_os = "linux")]
#[test]
fn a_reader_sees_the_old_site_or_the_new_one_never_a_mix_on_disk() {
    let root = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    reader_never_sees_a_mix(root.path());
}

#[cfg(unix)]
#[test]
fn an_unchanged_rebuild_touches_nothing_not_even_the_folder() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("site");
    run_ok(&mut demo(&out, &[]));
    let inode = |p: &Path| std::os::unix::fs::MetadataExt::ino(&fs::metadata(p).unwrap());
    let before = (inode(&out), inode(&out.join("index.html")));
    let marker_inode = inode(&out.join(".vatcar-site.json"));
    let marker = fs::read(out.join(".vatcar-site.json")).unwrap();
    let summary = run_ok(&mut vatcar_at_demo_time(&[
        "build",
        "--demo",
        "--output",
        out.to_str().unwrap(),
    ]));
    assert!(summary.stderr.contains("(0 written"), "{}", summary.stderr);
    assert_eq!((inode(&out), inode(&out.join("index.html"))), before);
    assert_eq!(inode(&out.join(".vatcar-site.json")), marker_inode);
    assert_eq!(fs::read(out.join(".vatcar-site.json")).unwrap(), marker);
}

#[cfg(unix)]
#[test]
fn sigterm_or_sigint_before_the_swap_leave_the_old_site_and_after_it_finish_the_new_one() {
    if !has_test_pause() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("site");
    run_ok(&mut demo(&out, &["--title", "Old"]));
    let before = snapshot_of(&out);
    for (sent, code) in [(libc::SIGTERM, 143), (libc::SIGINT, 130)] {
        let child = start_paused(demo(&out, &["--title", "New"]), "staged", None);
        signal(&child, sent);
        assert_eq!(child.wait_with_output().unwrap().status.code(), Some(code));
        assert_eq!(snapshot_of(&out), before, "the old site is not whole");
        assert!(litter_beside(&out).is_empty(), "{:?}", litter_beside(&out));
    }

    // After the swap the run finishes what it began: the new site, whole, and no old tree.
    let child = start_paused(demo(&out, &["--title", "New"]), "swapped", None);
    signal(&child, libc::SIGTERM);
    assert_eq!(child.wait_with_output().unwrap().status.code(), Some(143));
    let fresh = root.path().join("fresh");
    run_ok(&mut demo(&fresh, &["--title", "New"]));
    assert_eq!(snapshot_of(&out), snapshot_of(&fresh));
    assert!(
        litter_beside(&out).iter().all(|n| n == "fresh"),
        "{:?}",
        litter_beside(&out)
    );
}

#[test]
fn sigkill_at_any_point_leaves_a_whole_site_and_the_next_run_cleans_up() {
    if !has_test_pause() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("site");
    let reference = |title: &str| {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path().join("site");
        run_ok(&mut demo(&site, &["--title", title]));
        snapshot_of(&site)
    };
    let (old, new) = (reference("Old"), reference("New"));
    for (point, expected) in [("staged", &old), ("swapped", &new)] {
        run_ok(&mut demo(&out, &["--title", "Old"]));
        let mut child = start_paused(demo(&out, &["--title", "New"]), point, None);
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(&snapshot_of(&out), expected, "killed at {point}");
        assert!(
            !litter_beside(&out).is_empty(),
            "a kill at {point} leaves its staging folder"
        );
        // Any later run cleans up; here, one that then fails for a reason of its own.
        let failing = run(&mut vatcar_at_demo_time(&[
            "build",
            "--snapshot",
            "/nonexistent",
            "--output",
            out.to_str().unwrap(),
        ]));
        assert_eq!(failing.code(), Some(1));
        run_ok(&mut demo(&out, &["--title", "Old"]));
        assert!(
            litter_beside(&out).is_empty(),
            "after a kill at {point}: {:?}",
            litter_beside(&out)
        );
        assert_eq!(snapshot_of(&out), old);
    }
}

#[test]
fn a_second_run_fails_at_once_or_waits_and_the_site_is_one_runs() {
    if !has_test_pause() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("site");
    run_ok(&mut demo(&out, &["--title", "Zero"]));
    let resume = root.path().join("resume");
    let first = start_paused(demo(&out, &["--title", "First"]), "staged", Some(&resume));

    let second = run(&mut demo(&out, &["--title", "Second"]));
    assert_eq!(second.code(), Some(1), "{}", second.text());
    assert!(
        second
            .stderr
            .contains("another vatcar-site is publishing to"),
        "{}",
        second.stderr
    );
    assert!(second.stderr.contains("--wait"), "{}", second.stderr);

    // Not quiet: the waiting notice is a warning.
    let mut waiting = vatcar_at_demo_time(&[
        "build",
        "--demo",
        "--output",
        out.to_str().unwrap(),
        "--title",
        "Second",
        "--wait",
    ])
    .stderr(Stdio::piped())
    .stdout(Stdio::null())
    .spawn()
    .unwrap();
    // It says it waits, and does: it is still running while the first run is paused.
    let mut notice = BufReader::new(waiting.stderr.take().unwrap()).lines();
    assert!(
        notice.any(|line| line.is_ok_and(|line| line.contains("waiting for another vatcar-site"))),
        "the waiting run ended without saying that it waits"
    );
    assert!(
        waiting.try_wait().unwrap().is_none(),
        "the waiting run did not wait"
    );
    fs::write(&resume, "").unwrap();
    let first = first.wait_with_output().unwrap();
    assert!(first.status.success());
    let rest: Vec<String> = notice.map_while(Result::ok).collect();
    assert!(waiting.wait().unwrap().success(), "{rest:?}");
    let fresh = root.path().join("fresh");
    run_ok(&mut demo(&fresh, &["--title", "Second"]));
    assert_eq!(snapshot_of(&out), snapshot_of(&fresh));
    let _ = fs::remove_dir_all(&fresh);
    let _ = fs::remove_file(&resume);
    assert!(litter_beside(&out).is_empty(), "{:?}", litter_beside(&out));
}

#[cfg(unix)]
#[test]
fn nothing_is_written_replaced_or_deleted_through_a_link_inside_the_output() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("site");
    let elsewhere = root.path().join("elsewhere");
    run_ok(&mut demo(&out, &[]));
    // The events folder replaced by a link to a copy elsewhere.
    fs::rename(out.join("events"), &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, out.join("events")).unwrap();
    let before = snapshot_of(&elsewhere);
    let ran = run(&mut demo(&out, &["--title", "New title"]));
    assert_eq!(ran.code(), Some(1));
    assert!(
        ran.stderr
            .contains("holds files that vatcar-site did not write: events"),
        "{}",
        ran.stderr
    );
    assert_eq!(
        snapshot_of(&elsewhere),
        before,
        "a file was written through the link"
    );

    // A file the marker lists, under a linked folder, is not deleted through the link.
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("site");
    run_ok(&mut demo(&out, &[]));
    let outside = root.path().join("outside");
    fs::create_dir(&outside).unwrap();
    fs::write(outside.join("keep.html"), "not the site's").unwrap();
    std::os::unix::fs::symlink(&outside, out.join("linked")).unwrap();
    let marker_path = out.join(".vatcar-site.json");
    let mut marker: Value = serde_json::from_slice(&fs::read(&marker_path).unwrap()).unwrap();
    marker["files"]
        .as_array_mut()
        .unwrap()
        .push("linked/keep.html".into());
    fs::write(&marker_path, serde_json::to_vec(&marker).unwrap()).unwrap();
    assert_eq!(run(&mut demo(&out, &[])).code(), Some(1));
    // With --force the folder is replaced, and the old one, link and all, kept beside it.
    run_ok(&mut demo(&out, &["--force"]));
    assert!(!out.join("linked").exists());
    assert_eq!(
        fs::read_to_string(outside.join("keep.html")).unwrap(),
        "not the site's"
    );
    let kept = litter_beside(&out);
    assert_eq!(kept.len(), 2, "{kept:?}");
    assert!(
        fs::symlink_metadata(root.path().join(&kept[1]).join("linked"))
            .unwrap()
            .is_symlink(),
        "the webmaster's link stays, in {kept:?}"
    );
}

#[cfg(unix)]
#[test]
fn an_output_folder_that_is_a_link_is_resolved_once_and_said_so() {
    let root = tempfile::tempdir().unwrap();
    let real = root.path().join("real");
    fs::create_dir(&real).unwrap();
    let link = root.path().join("site");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let ran = run_ok(&mut vatcar_at_demo_time(&[
        "build",
        "--demo",
        "--output",
        link.to_str().unwrap(),
        "-v",
    ]));
    assert!(ran.stderr.contains("is a link to"), "{}", ran.stderr);
    assert!(
        fs::symlink_metadata(&link).unwrap().is_symlink(),
        "the link itself stays"
    );
    assert!(real.join("index.html").is_file());
    run_ok(&mut demo(&link, &["--title", "Again"]));
    assert!(
        fs::read_to_string(real.join("index.html"))
            .unwrap()
            .contains("Again")
    );
}

/// Runs `mount` with `args`, then `at`, and returns a guard that unmounts it when dropped
/// (a failing test included): as root, or through `sudo -n` (GitHub's runners allow it without
/// a password); or says why not, where mounting is not permitted (a container without the
/// capability), and fails instead where CI asks for the mount tests (`VATCAR_REQUIRE_MOUNTS`).
#[cfg(target_os = "linux")]
fn mount(args: &[&std::ffi::OsStr], at: &Path) -> Option<Mounted> {
    fs::create_dir_all(at).unwrap();
    let ran = as_root("mount").args(args).arg(at).output();
    let why = match ran {
        Ok(out) if out.status.success() => {
            let at = fs::canonicalize(at).unwrap();
            // The newest mount at `at` is the one on top, listed last.
            let id = mount_table()
                .into_iter()
                .rev()
                .find(|(_, point)| *point == at)
                .map(|(id, _)| id);
            return Some(Mounted { id, at });
        }
        Ok(out) => format!(
            "mount is not permitted here: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ),
        Err(error) => format!("no mount command: {error}"),
    };
    cannot_run_here(&why);
    None
}

/// `program`, run as root: itself where this is root, else through `sudo -n`.
#[cfg(target_os = "linux")]
fn as_root(program: &str) -> Command {
    let root = fs::read_to_string("/proc/self/status")
        .is_ok_and(|status| status.lines().any(|line| line.starts_with("Uid:\t0\t")));
    if root {
        return Command::new(program);
    }
    let mut sudo = Command::new("sudo");
    sudo.args(["-n", program]);
    sudo
}

/// This process's mounts: each one's id and mount point (`/proc/self/mountinfo`).
#[cfg(target_os = "linux")]
fn mount_table() -> Vec<(String, PathBuf)> {
    let table = fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    table
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split(' ').collect();
            // Spaces in a mount point are written `\040`; the tests' paths have none.
            Some((fields.first()?.to_string(), PathBuf::from(fields.get(4)?)))
        })
        .collect()
}

/// Mounts a tmpfs at `at` (see [`mount`]); its top is open to every user, as /tmp is, so that
/// a test not run as root writes there.
#[cfg(target_os = "linux")]
fn mount_tmpfs(at: &Path) -> Option<Mounted> {
    let args = ["-t", "tmpfs", "-o", "mode=1777", "tmpfs"];
    mount(&args.map(std::ffi::OsStr::new), at)
}

/// Mounts the folder `from` at `at` too (see [`mount`]): a bind mount, on the same file
/// system and device as `from`.
#[cfg(target_os = "linux")]
fn bind_mount(from: &Path, at: &Path) -> Option<Mounted> {
    mount(&[std::ffi::OsStr::new("--bind"), from.as_os_str()], at)
}

/// A mount made by a test, unmounted when dropped wherever it is by then: a folder renamed
/// with a mount inside takes the mount along (as the swap of an output folder did), so it is
/// found again by its id.
#[cfg(target_os = "linux")]
struct Mounted {
    id: Option<String>,
    at: PathBuf,
}

#[cfg(target_os = "linux")]
impl Drop for Mounted {
    fn drop(&mut self) {
        let now = self
            .id
            .as_ref()
            .and_then(|id| mount_table().into_iter().find(|(i, _)| i == id))
            .map_or_else(|| self.at.clone(), |(_, point)| point);
        let unmounted = as_root("umount").arg(&now).status();
        if !unmounted.is_ok_and(|s| s.success()) {
            // Busy (a run still inside): detached now, gone once it is no longer used.
            let _ = as_root("umount").arg("--lazy").arg(&now).status();
        }
    }
}

/// A mount point as the output (a container's volume, a server's document root) shares its
/// file system with nothing beside it: the changed files are staged inside it and moved in one
/// by one. A run killed half-way leaves whole files, every one listed by the marker, so the
/// next build is not refused and puts the new site in place.
#[cfg(target_os = "linux")]
#[test]
fn a_mount_point_as_the_output_works_and_a_killed_run_is_repaired_by_the_next() {
    if !has_test_pause() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("volume");
    let Some(_mounted) = mount_tmpfs(&out) else {
        return;
    };
    let ran = run_ok(&mut vatcar_at_demo_time(&[
        "build",
        "--demo",
        "--output",
        out.to_str().unwrap(),
        "-v",
        "--title",
        "Old",
    ]));
    assert!(ran.stderr.contains("is a mount point"), "{}", ran.stderr);
    let old = snapshot_of(&out);
    assert!(old.contains_key("index.html"));
    // Files of the webmaster's would stay among the site's: refused, even with --force.
    fs::write(out.join("CNAME"), "tjzs.example.org").unwrap();
    let ran = run(&mut demo(&out, &["--force"]));
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    assert!(ran.stderr.contains("static/"), "{}", ran.stderr);
    fs::remove_file(out.join("CNAME")).unwrap();

    // SIGTERM before the moves: the folder as it was.
    let child = start_paused(demo(&out, &["--title", "New"]), "staged", None);
    signal(&child, libc::SIGTERM);
    assert_eq!(child.wait_with_output().unwrap().status.code(), Some(143));
    assert_eq!(snapshot_of(&out), old);

    // SIGKILL halfway through the moves: a mix of whole files, each listed by the marker.
    let mut child = start_paused(demo(&out, &["--title", "New"]), "moving", None);
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(out.join(".vatcar-staging").exists());
    let marker: Value =
        serde_json::from_slice(&fs::read(out.join(".vatcar-site.json")).unwrap()).unwrap();
    let listed: Vec<&str> = marker["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| file.as_str().unwrap())
        .collect();
    let files = tree(&out);
    let unlisted: Vec<&String> = files
        .keys()
        .filter(|file| {
            !file.starts_with(".vatcar-staging/")
                && *file != ".vatcar-site.json"
                && !listed.contains(&file.as_str())
        })
        .collect();
    assert!(
        unlisted.is_empty(),
        "not listed by the marker: {unlisted:?}"
    );
    let titles: std::collections::BTreeSet<bool> = files
        .iter()
        .filter(|(file, _)| file.ends_with(".html"))
        .map(|(_, bytes)| String::from_utf8_lossy(bytes).contains("· New"))
        .collect();
    assert_eq!(
        titles.len(),
        2,
        "the kill came before any page moved, or after all"
    );

    // The next build, with no --force, cleans up and puts the new site in place, whole.
    run_ok(&mut demo(&out, &["--title", "New"]));
    assert!(!out.join(".vatcar-staging").exists());
    let fresh = root.path().join("fresh");
    run_ok(&mut demo(&fresh, &["--title", "New"]));
    assert_eq!(snapshot_of(&out), snapshot_of(&fresh));
}

#[test]
fn private_folders_and_sites_are_never_nested() {
    let root = tempfile::tempdir().unwrap();
    let site = root.path().join("site");
    run_ok(&mut demo(&site, &[]));
    let site_arg = site.to_str().unwrap();

    // A report inside a site, its child or grandchild.
    for nested in ["reports", "private/reports"] {
        let target = site.join(nested);
        let ran = run(&mut vatcar_at_demo_time(&[
            "report",
            "training",
            "--demo",
            "--cid",
            "1590318",
            "--include-contact",
            "--output",
            target.to_str().unwrap(),
        ]));
        assert_eq!(ran.code(), Some(2), "{}", ran.text());
        assert!(ran.stderr.contains("private data"), "{}", ran.stderr);
        assert!(!target.exists());
    }
    // A snapshot saved into the site it builds: refused before anything is written.
    let snap = site.join("snap");
    let ran = run(vatcar_at_demo_time(&[
        "build",
        "--snapshot",
        "tests/fixtures/hostile",
        "--output",
        site_arg,
        "--save-snapshot",
        snap.to_str().unwrap(),
    ])
    .current_dir(env!("CARGO_MANIFEST_DIR")));
    assert_eq!(ran.code(), Some(2), "{}", ran.text());
    assert!(!snap.exists());

    // A site built over a folder that holds reports.
    let reports = root.path().join("reports");
    run_ok(&mut vatcar_at_demo_time(&[
        "report",
        "roster",
        "--demo",
        "--output",
        reports.to_str().unwrap(),
    ]));
    let outer = root.path();
    let ran = run(&mut demo(&outer.join("."), &["--force"]));
    assert_eq!(ran.code(), Some(2), "{}", ran.text());
    assert!(
        ran.stderr.contains(&format!(
            "{} is a vatcar-site reports folder, inside the site being written: ",
            reports.display()
        )),
        "{}",
        ran.stderr
    );
    // And a site inside a reports folder.
    let ran = run(&mut demo(&reports.join("site"), &[]));
    assert_eq!(ran.code(), Some(2), "{}", ran.text());
    assert!(
        ran.stderr
            .contains(", which holds a vatcar-site reports folder: "),
        "{}",
        ran.stderr
    );
    assert!(!reports.join("site").exists());
}

/// The output folder is vatcar-site's: one holding files it did not write is refused, naming
/// them and saying that they belong in the site folder's static/; with --force it is replaced,
/// and the old folder, their files with it, is kept beside it, named in a warning.
#[test]
fn a_folder_with_files_of_yours_is_refused_and_with_force_kept_beside() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("site");
    run_ok(&mut demo(&out, &[]));
    fs::write(out.join("CNAME"), "tjzs.example.org").unwrap();
    fs::create_dir(out.join(".well-known")).unwrap();
    fs::write(out.join(".well-known").join("security.txt"), "mine").unwrap();
    let before = snapshot_of(&out);

    let ran = run(&mut demo(&out, &["--title", "New"]));
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    assert!(
        ran.stderr.contains(&format!(
            "{} holds files that vatcar-site did not write: .well-known/, CNAME; ",
            out.display()
        )),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr
            .contains("your own files (CNAME, .well-known/, verification files) belong in the site folder's static/"),
        "{}",
        ran.stderr
    );
    assert_eq!(snapshot_of(&out), before);
    assert!(litter_beside(&out).is_empty(), "{:?}", litter_beside(&out));

    let ran = run_ok(&mut vatcar_at_demo_time(&[
        "build",
        "--demo",
        "--output",
        out.to_str().unwrap(),
        "--title",
        "New",
        "--force",
    ]));
    let kept = litter_beside(&out);
    assert_eq!(kept.len(), 1, "{kept:?}");
    let kept = root.path().join(&kept[0]);
    assert!(
        ran.stderr.contains(&format!(
            "held files that vatcar-site did not write, found when the site was replaced: \
             .well-known/security.txt, CNAME; nothing was deleted, they are in {}",
            kept.display()
        )),
        "{}",
        ran.stderr
    );
    assert_eq!(
        snapshot_of(&kept),
        BTreeMap::from([
            (".well-known".to_owned(), "folder".to_owned()),
            (".well-known/security.txt".to_owned(), "mine".to_owned()),
            ("CNAME".to_owned(), "tjzs.example.org".to_owned()),
        ]),
        "the old folder keeps the webmaster's files, and only them"
    );
    assert!(!out.join("CNAME").exists());
    assert!(
        fs::read_to_string(out.join("index.html"))
            .unwrap()
            .contains("New")
    );
}

#[test]
fn an_output_path_through_a_missing_folder_leaves_nothing_behind() {
    let root = tempfile::tempdir().unwrap();
    let ran = run(demo(&root.path().join("x/.."), &[]).current_dir(root.path()));
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    assert!(ran.stderr.contains("without `..`"), "{}", ran.stderr);
    assert_eq!(fs::read_dir(root.path()).unwrap().count(), 0);
}

/// A volume mounted inside the output folder (issue 21): a bind mount of a folder on the same
/// file system, which device numbers alone do not tell. The old tree, volume and all, once
/// went into the staging folder after the swap and was removed with it; the mount point
/// itself could not be, and every later build failed on the staging folder left behind.
#[cfg(target_os = "linux")]
#[test]
fn a_volume_mounted_inside_the_output_is_refused_and_never_emptied() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("site");
    let volume = root.path().join("volume");
    fs::create_dir_all(volume.join("charts")).unwrap();
    fs::write(volume.join("charts/tjzs.pdf"), "the chart").unwrap();
    fs::write(volume.join("readme.txt"), "mine").unwrap();
    run_ok(&mut demo(&out, &["--title", "Old"]));
    let downloads = out.join("downloads");
    let Some(mounted) = bind_mount(&volume, &downloads) else {
        return;
    };
    let on_volume = snapshot_of(&volume);
    assert_eq!(on_volume.len(), 3, "{on_volume:?}");
    let site = snapshot_of(&out);
    for extra in [&["--title", "New"][..], &["--title", "New", "--force"]] {
        let ran = run(&mut demo(&out, extra));
        assert_eq!(ran.code(), Some(1), "{}", ran.text());
        assert!(
            ran.stderr.contains(&format!(
                "{} is a mount point inside the output folder {}, so nothing was written",
                downloads.display(),
                out.display()
            )),
            "{}",
            ran.stderr
        );
        assert!(
            ran.stderr
                .contains(&format!("unmount it (`umount {}`)", downloads.display())),
            "{}",
            ran.stderr
        );
        assert_eq!(snapshot_of(&volume), on_volume, "the volume was changed");
        assert_eq!(snapshot_of(&out), site, "the site was changed");
        assert_eq!(litter_beside(&out), ["volume"]);
    }
    // Private folders too: a reports folder with a volume inside.
    let reports = root.path().join("reports");
    run_ok(&mut vatcar_at_demo_time(&[
        "report",
        "roster",
        "--demo",
        "--output",
        reports.to_str().unwrap(),
    ]));
    let Some(in_reports) = bind_mount(&volume, &reports.join("archive")) else {
        return;
    };
    let ran = run(&mut vatcar_at_demo_time(&[
        "report",
        "roster",
        "--demo",
        "--output",
        reports.to_str().unwrap(),
    ]));
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    assert!(
        ran.stderr.contains("is a mount point inside"),
        "{}",
        ran.stderr
    );
    drop(in_reports);
    drop(mounted);
    fs::remove_dir(&downloads).unwrap();
    assert_eq!(snapshot_of(&volume), on_volume);

    // A staging folder with a volume inside, as a run of vatcar-site before issue 21 left it:
    // no removal enters a volume, so the next run stops there, names it and says what to do.
    let staging = root.path().join(".site.vatcar-staging");
    let stuck = staging.join("new/downloads");
    fs::create_dir_all(staging.join("new/events/1")).unwrap();
    fs::write(staging.join("new/events/1/index.html"), "old").unwrap();
    let Some(_stuck_mount) = bind_mount(&volume, &stuck) else {
        return;
    };
    let site = snapshot_of(&out);
    let ran = run(&mut demo(&out, &["--title", "New"]));
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    assert!(
        ran.stderr.contains(&format!(
            "{} holds a mounted volume, so it was not removed: unmount it (`umount {}`)",
            staging.display(),
            stuck.display()
        )),
        "{}",
        ran.stderr
    );
    assert_eq!(snapshot_of(&volume), on_volume, "the volume was emptied");
    assert_eq!(snapshot_of(&out), site, "the site was changed");
}

/// `--output .` (or any folder holding the working folder) with `--force` once swapped the
/// working folder away, `.git` and all, and left the shell in a deleted folder.
#[test]
fn the_working_folder_and_the_folders_that_hold_it_are_never_an_output() {
    let root = tempfile::tempdir().unwrap();
    let work = root.path().join("checkout");
    fs::create_dir_all(work.join(".git")).unwrap();
    fs::write(work.join(".git").join("HEAD"), "ref: refs/heads/main\n").unwrap();
    fs::write(work.join("notes.txt"), "mine").unwrap();
    let before = snapshot_of(root.path());
    let server = demo_api();
    for output in [".", ".."] {
        let commands = [
            vatcar_at_demo_time(&["build", "--demo", "--output", output, "--force"]),
            vatcar_at_demo_time(&["report", "roster", "--demo", "--output", output, "--force"]),
            {
                let mut fetch = vatcar(&["fetch", "--output", output, "--force"]);
                fetch.against(&server);
                fetch
            },
        ];
        for mut command in commands {
            let ran = run(command.current_dir(&work));
            assert_eq!(ran.code(), Some(1), "{output}: {}", ran.text());
            assert!(
                ran.stderr.contains("the one you are working in")
                    || ran.stderr.contains("the folder you are working in"),
                "{output}: {}",
                ran.stderr
            );
            assert!(
                ran.stderr.contains("such as `--output site`"),
                "{}",
                ran.stderr
            );
            assert_eq!(snapshot_of(root.path()), before, "{output}");
        }
    }
    // A folder inside the working folder is fine.
    run_ok(
        vatcar_at_demo_time(&["build", "--demo", "--output", "site", "--quiet"]).current_dir(&work),
    );
    assert!(work.join("site").join("index.html").is_file());
    assert!(work.join(".git").join("HEAD").is_file());
}

/// `report` and `fetch` refuse a folder they did not make, as `build` does, and with `--force`
/// keep it beside their own.
#[test]
fn report_and_fetch_refuse_a_folder_of_yours_and_with_force_keep_it_beside() {
    let root = tempfile::tempdir().unwrap();
    let reports = root.path().join("reports");
    let snapshot = root.path().join("snapshot");
    let server = demo_api();
    for (dir, file) in [
        (&reports, "roster.html"),
        (&snapshot, "facility-roster.json"),
    ] {
        fs::create_dir(dir).unwrap();
        fs::write(dir.join(file), "mine").unwrap();
        let command = |force: bool| {
            let mut args = vec!["--output", dir.to_str().unwrap()];
            args.extend(force.then_some("--force"));
            if dir == &reports {
                vatcar_at_demo_time(&[&["report", "roster", "--demo"][..], &args].concat())
            } else {
                let mut fetch = vatcar(&[&["fetch"][..], &args].concat());
                fetch.against(&server);
                fetch
            }
        };
        let ran = run(&mut command(false));
        assert_eq!(ran.code(), Some(1), "{}", ran.text());
        assert!(
            ran.stderr.contains(&format!(
                "{} is not empty and was not made by vatcar-site: {file}",
                dir.display()
            )),
            "{}",
            ran.stderr
        );
        let ran = run_ok(&mut command(true));
        assert!(
            ran.stderr
                .contains(&format!("found when the site was replaced: {file}")),
            "{}",
            ran.stderr
        );
        let kept = litter_beside(dir)
            .into_iter()
            .find(|name| {
                name.starts_with(&format!(
                    "{}.old-",
                    dir.file_name().unwrap().to_str().unwrap()
                ))
            })
            .unwrap();
        assert_eq!(
            fs::read_to_string(root.path().join(kept).join(file)).unwrap(),
            "mine"
        );
        assert_ne!(fs::read_to_string(dir.join(file)).unwrap(), "mine");
    }
}

/// The rebuild every site gets: a second build into the same folder updates the pages in
/// subfolders and removes the folders of events no longer in the data. Runs on every platform:
/// on Windows the old tree was once read with `\\` and looked up with `/`, so every nested file
/// of the last build passed for the webmaster's.
#[test]
fn a_second_build_into_one_folder_updates_nested_pages_and_removes_old_events() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("site");
    let (five, three) = (big_snapshot(5), big_snapshot(3));
    run_ok(&mut build(five.path(), &out, &["--title", "First"]));
    assert!(
        out.join("events")
            .join("10004")
            .join("index.html")
            .is_file()
    );
    run_ok(&mut build(three.path(), &out, &["--title", "Second"]));
    let fresh = root.path().join("fresh");
    run_ok(&mut build(three.path(), &fresh, &["--title", "Second"]));
    let mut expected = tree(&fresh);
    // What's new compares the second build with the first; the fresh one had none before.
    let mut second = tree(&out);
    for tree in [&mut second, &mut expected] {
        assert!(tree.remove("data/changes.json").is_some());
        assert!(tree.remove(".vatcar-site.json").is_some());
    }
    assert_same_files(&second, &expected);
    assert!(!out.join("events").join("10004").exists());
    let page = fs::read_to_string(out.join("events").join("10000").join("index.html")).unwrap();
    assert!(page.contains("Second"), "a nested page was not updated");
}

/// What the webmaster saves in the output folder while a build publishes there is not deleted:
/// the exchange takes it into the old tree, which then loses only what vatcar-site wrote and
/// stays beside the output, named in a warning.
#[test]
fn files_of_yours_saved_while_a_build_publishes_are_kept_beside_it() {
    if !has_test_pause() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("site");
    run_ok(&mut demo(&out, &["--title", "Old"]));
    let loud = vatcar_at_demo_time(&[
        "build",
        "--demo",
        "--output",
        out.to_str().unwrap(),
        "--title",
        "New",
    ]);
    let (files, stderr) = files_after_saving_meanwhile(&out, loud, || {
        fs::write(out.join("late.txt"), "added").unwrap();
        fs::write(
            out.join("events").join("notes.txt"),
            "in a folder of the site",
        )
        .unwrap();
    });
    assert!(!files.contains_key("late.txt"));
    assert!(String::from_utf8_lossy(&files["index.html"]).contains("New"));
    let kept = litter_beside(&out);
    assert_eq!(kept.len(), 1, "{kept:?}");
    let kept = root.path().join(&kept[0]);
    assert!(
        stderr.contains(&format!(
            "found when the site was replaced: events/notes.txt, late.txt; nothing was deleted, they are in {}",
            kept.display()
        )),
        "{stderr}"
    );
    assert_eq!(fs::read_to_string(kept.join("late.txt")).unwrap(), "added");
    assert_eq!(tree(&kept).len(), 2, "only the webmaster's files are kept");
}

/// Issue 45, finding 16: a file saved in the folder just before the exchange, by a run then
/// killed right after it, was deleted by the next run's clean-up. That run keeps it beside the
/// output and says where.
#[cfg(unix)]
#[test]
fn a_file_saved_just_before_the_exchange_of_a_killed_run_is_kept_by_the_next_run() {
    if !has_test_pause() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("site");
    run_ok(&mut demo(&out, &["--title", "Old"]));
    let resume = root.path().join("resume");
    let mut command = demo(&out, &["--title", "New"]);
    command
        .env("VATCAR_SITE_TEST_PAUSE", "staged,swapped")
        .env("VATCAR_SITE_TEST_RESUME", &resume)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut wait_for = |wanted: &str| {
        assert!(
            lines.any(|line| line.is_ok_and(|line| line == wanted)),
            "the run ended before {wanted}"
        );
    };
    wait_for("paused at staged");
    fs::write(out.join("late.txt"), "saved just before").unwrap();
    fs::write(&resume, "").unwrap();
    wait_for("paused at swapped");
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        fs::read_to_string(out.join("index.html"))
            .unwrap()
            .contains("New")
    );

    let next = run_ok(&mut vatcar_at_demo_time(&[
        "build",
        "--demo",
        "--output",
        out.to_str().unwrap(),
        "--title",
        "New",
    ]));
    let kept = litter_beside(&out);
    let kept: Vec<_> = kept
        .iter()
        .filter(|name| name.starts_with("site.old-"))
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    let kept = root.path().join(kept[0]);
    assert!(
        next.stderr.contains(&format!(
            "found when the site was replaced: late.txt; nothing was deleted, they are in {}",
            kept.display()
        )),
        "{}",
        next.stderr
    );
    assert_eq!(
        fs::read_to_string(kept.join("late.txt")).unwrap(),
        "saved just before"
    );
}

/// Runs `command`, a build into `out`, to its pause with everything staged and the output
/// folder not yet swapped, does `meanwhile` there as a webmaster would, lets the run finish,
/// and returns the output folder's files.
fn files_after_saving_meanwhile(
    out: &Path,
    mut command: Command,
    meanwhile: impl FnOnce(),
) -> (BTreeMap<String, Vec<u8>>, String) {
    let resume = tempfile::NamedTempFile::new().unwrap().into_temp_path();
    fs::remove_file(&resume).unwrap();
    command
        .env("VATCAR_SITE_TEST_PAUSE", "staged")
        .env("VATCAR_SITE_TEST_RESUME", &resume)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    assert!(
        lines.any(|line| line.is_ok_and(|line| line == "paused at staged")),
        "the run ended before its pause"
    );
    meanwhile();
    fs::write(&resume, "").unwrap();
    let stderr: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(child.wait().unwrap().success(), "{stderr:?}");
    (tree(out), stderr.join("\n"))
}

#[cfg(unix)]
/// How many files a build wrote, from its summary line (`... (3 written, 40 unchanged, ...)`).
fn written(stderr: &str) -> usize {
    // The last: with `-v` each stage's line says what it wrote too.
    let (before, _) = stderr
        .rsplit_once(" written, ")
        .unwrap_or_else(|| panic!("no summary in {stderr}"));
    before.rsplit('(').next().unwrap().parse().unwrap()
}

#[cfg(unix)]
/// Builds the demo into `out` again and returns how many files it wrote.
fn rebuild_demo(out: &Path) -> usize {
    let out = out.to_str().unwrap();
    written(
        &run_ok(&mut vatcar_at_demo_time(&[
            "build", "--demo", "--output", out,
        ]))
        .stderr,
    )
}

#[cfg(unix)]
fn set_mtime(path: &Path, mtime: std::time::SystemTime) {
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
}

/// A file of ours edited by hand is found and replaced by the next build, however it was
/// edited: another length, the same length with another mtime, a new file (an editor's save),
/// or the same length with its mtime put back (every file is compared with what the build
/// makes, byte for byte).
#[cfg(unix)]
#[test]
fn a_file_of_ours_edited_by_hand_is_replaced_by_the_next_build() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("site");
    run_ok(&mut demo(&out, &[]));
    let page = out.join("index.html");
    let original = fs::read(&page).unwrap();
    let mut same_length = original.clone();
    let middle = same_length.len() / 2;
    same_length[middle] = if same_length[middle] == b'x' {
        b'y'
    } else {
        b'x'
    };

    fs::write(&page, [original.as_slice(), b"<!-- mine -->"].concat()).unwrap();
    assert_eq!(rebuild_demo(&out), 1);
    assert_eq!(fs::read(&page).unwrap(), original, "another length");

    let mtime_now = fs::metadata(&page).unwrap().modified().unwrap();
    fs::write(&page, &same_length).unwrap();
    set_mtime(&page, mtime_now + Duration::from_secs(1));
    assert_eq!(rebuild_demo(&out), 1);
    assert_eq!(fs::read(&page).unwrap(), original, "another mtime");

    let saved = out.join("index.html.new");
    fs::write(&saved, &same_length).unwrap();
    set_mtime(&saved, fs::metadata(&page).unwrap().modified().unwrap());
    fs::rename(&saved, &page).unwrap();
    assert_eq!(rebuild_demo(&out), 1);
    assert_eq!(fs::read(&page).unwrap(), original, "another file");

    let mtime = fs::metadata(&page).unwrap().modified().unwrap();
    fs::write(&page, &same_length).unwrap();
    set_mtime(&page, mtime);
    assert_eq!(rebuild_demo(&out), 1);
    assert_eq!(fs::read(&page).unwrap(), original, "its mtime put back");
    assert_eq!(rebuild_demo(&out), 0);
}

/// The first unchanged rebuild over a full build writes nothing, not even the marker; an event
/// page edited by hand since is put back.
#[cfg(unix)]
#[test]
fn the_first_unchanged_rebuild_after_a_full_build_keeps_every_file() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("site");
    run_ok(&mut demo(&out, &[]));
    let inode = |p: &Path| std::os::unix::fs::MetadataExt::ino(&fs::metadata(p).unwrap());
    let marker_path = out.join(".vatcar-site.json");
    let (marker_bytes, marker_inode) = (fs::read(&marker_path).unwrap(), inode(&marker_path));
    let rebuild = |out: &Path| {
        run_ok(&mut vatcar_at_demo_time(&[
            "build",
            "--demo",
            "--output",
            out.to_str().unwrap(),
            "-vv",
        ]))
        .stderr
    };
    let pages: Vec<_> = fs::read_dir(out.join("events"))
        .unwrap()
        .map(|e| e.unwrap().path().join("index.html"))
        .filter(|p| p.is_file())
        .collect();
    assert!(!pages.is_empty());

    let first = rebuild(&out);
    assert_eq!(written(&first), 0, "{first}");
    assert_eq!(inode(&marker_path), marker_inode, "the marker was replaced");
    assert_eq!(fs::read(&marker_path).unwrap(), marker_bytes);

    let page = &pages[0];
    let original = fs::read(page).unwrap();
    fs::write(page, [original.as_slice(), b"<!-- mine -->"].concat()).unwrap();
    let edited = rebuild(&out);
    assert_eq!(written(&edited), 1, "{edited}");
    assert_eq!(fs::read(page).unwrap(), original);
}

/// The kill tests' pause is a hook no release may carry: the variables that drive it are read
/// in `src/publish/test_pause.rs` alone, a module only debug builds compile (`cargo test`
/// builds one). `scripts/dist.sh` checks each release binary for their names.
#[test]
fn the_test_pause_is_compiled_into_debug_builds_only() {
    fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut readers: Vec<String> = files
        .iter()
        .filter(|file| {
            fs::read_to_string(file)
                .unwrap()
                .lines()
                .filter(|line| !line.trim_start().starts_with("//"))
                .any(|line| line.contains("VATCAR_SITE_TEST_"))
        })
        .map(|file| {
            let name = file.strip_prefix(&src).unwrap().to_string_lossy();
            name.replace('\\', "/")
        })
        .collect();
    readers.sort();
    assert_eq!(
        readers,
        ["publish/test_pause.rs"],
        "the code naming the test pause's variables"
    );
    let publish = fs::read_to_string(src.join("publish/mod.rs")).unwrap();
    assert!(
        publish.contains("#[cfg(debug_assertions)]\nmod test_pause;"),
        "src/publish/mod.rs declares test_pause for debug builds only"
    );
}

/// Where the file system cannot exchange two folders, the folder is moved aside and the new
/// one moved in: a run killed between the two leaves it missing, and the next run puts the old
/// one back from the staging folder before anything else.
#[cfg(unix)]
#[test]
fn a_folder_moved_aside_by_a_stopped_run_is_put_back() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("site");
    run_ok(&mut demo(&out, &[]));
    let before = snapshot_of(&out);
    // What such a run leaves: the old site in the staging folder, the new one beside it.
    let staging = root.path().join(".site.vatcar-staging");
    fs::create_dir(&staging).unwrap();
    fs::rename(&out, staging.join("old")).unwrap();
    fs::create_dir_all(staging.join("new/events")).unwrap();
    fs::write(staging.join("new/index.html"), "new").unwrap();
    let marker = staging.join("old/.vatcar-site.json");
    fs::copy(&marker, staging.join("new/.vatcar-site.json")).unwrap();
    fs::write(staging.join("exchanging"), "").unwrap();
    let failing = run(&mut vatcar_at_demo_time(&[
        "build",
        "--snapshot",
        "/nonexistent",
        "--output",
        out.to_str().unwrap(),
    ]));
    assert_eq!(failing.code(), Some(1));
    assert_eq!(snapshot_of(&out), before);
    assert!(litter_beside(&out).is_empty(), "{:?}", litter_beside(&out));
}
