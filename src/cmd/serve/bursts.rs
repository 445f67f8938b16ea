//! How serve learns that what the site is made from changed: in bursts, each one rebuild.
//!
//! What changed is always found by a look at the files (each one's modification time and
//! length) against the look the last burst ended with; a file event or a poll only wakes the
//! watcher to look. Events are the system's (the `notify` crate: inotify, FSEvents,
//! ReadDirectoryChangesW), within milliseconds of a save. A burst ends once two looks
//! [`QUIET`] apart agree, so that an editor saving several files (or one in steps, or by
//! rename) makes one rebuild. Each folder is watched whole, and the folders holding the
//! folders and the config file on their own, so that a folder removed and made again is seen;
//! the watch is made anew after each burst. The files an editor keeps beside the one it saves
//! (swap, backup, lock and probe files) are left out of the looks.
//!
//! Events do not come from every file system: a network share, or a folder a container
//! mounts from its host, may never send them. So the folders are also looked at every
//! [`CHECK`]; a change that no event told of turns the watch into polling, a look every
//! [`POLL`], for the rest of the run, with a warning (`--poll` polls from the start).
//! notify's own PollWatcher (8.2) compares times in whole seconds and only forward, and would
//! miss a second save within the same second.

use notify::event::{AccessKind, AccessMode};
use notify::{Event, EventKind, RecursiveMode, Watcher};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant, SystemTime};

/// Two looks this far apart that agree end a burst.
const QUIET: Duration = Duration::from_millis(30);
/// Files that never stop changing are built after this long anyway.
const MOST_WAIT: Duration = Duration::from_secs(3);
/// How often the folders are looked at while events are watched, to learn whether events
/// come at all.
const CHECK: Duration = Duration::from_secs(2);
/// How long an event may come after the change it tells of.
const LAG: Duration = Duration::from_millis(250);
/// How often the folders are looked at when polling.
pub(super) const POLL: Duration = Duration::from_millis(300);

type FileEvent = notify::Result<Event>;

/// How changes are learnt of, and what was there at the last rebuild.
pub(super) struct Watching {
    /// The system's file events; `None` when polling.
    notify: Option<notify::RecommendedWatcher>,
    /// Where every watch sends its events: one channel for the whole run, so that no event is
    /// lost while one watch gives way to the next.
    sender: Sender<FileEvent>,
    events: Receiver<FileEvent>,
    /// When the folders were last looked at for want of events, to check that events come.
    checked: Instant,
    /// `--poll`: polling was asked for, rather than fallen back to.
    asked: bool,
    places: Places,
    /// What the next burst is measured from: the last one's final look, taken before anything
    /// reads the files, so that a save made while they are read (in answer to an error, say)
    /// is another change.
    seen: WatchedState,
}

/// A watch on what `places` wants watched, sending its events to `sender`; Err says why
/// there is none.
fn file_events(
    places: &Places,
    sender: Sender<FileEvent>,
) -> Result<notify::RecommendedWatcher, String> {
    // Links are not followed, as the build does not follow them.
    let config = notify::Config::default().with_follow_symlinks(false);
    let mut notify = notify::RecommendedWatcher::new(sender, config)
        .map_err(|error| format!("could not watch for file events ({error})"))?;
    for (path, mode) in places.wanted() {
        // Removed since it was looked for: its holder's events tell.
        if let Err(error) = notify.watch(&path, mode)
            && !matches!(error.kind, notify::ErrorKind::PathNotFound)
        {
            return Err(format!("could not watch {} ({error})", path.display()));
        }
    }
    Ok(notify)
}

/// Whether `event` may tell of a change: a file opened or read tells of none (and each look
/// opens the folders it reads).
fn stirs(event: &FileEvent) -> bool {
    !matches!(event, Ok(Event { kind: EventKind::Access(kind), .. })
        if *kind != AccessKind::Close(AccessMode::Write))
}

/// The files one burst changed, as the webmaster names them: the config file first.
pub(super) struct Burst(pub(super) Vec<PathBuf>);

impl Burst {
    /// The path to name in the message: the first changed that still exists (a file saved
    /// by rename, not the temporary file renamed over it).
    pub(super) fn what(&self) -> PathBuf {
        let there = self.0.iter().find(|path| path.exists());
        there.or(self.0.first()).cloned().unwrap_or_default()
    }
}

impl Watching {
    /// Starts watching `places`: by the system's file events, or by polling (with `poll`, or
    /// where events cannot be had).
    pub(super) fn start(places: Places, poll: bool) -> Watching {
        let (sender, events) = mpsc::channel();
        let mut watching = Watching {
            notify: None,
            sender,
            events,
            checked: Instant::now(),
            asked: poll,
            places,
            seen: WatchedState::default(),
        };
        if !poll {
            watching.rewatch();
        }
        // After the watch is made: whatever changes from here is told of.
        watching.seen = watching.places.scan();
        watching
    }

    /// Watches `places` from now on (a config file read again may name other folders); what
    /// is there now is what the next burst is measured from, as the rebuild that follows
    /// reads it.
    pub(super) fn watch(&mut self, places: Places) {
        self.places = places;
        if self.notify.is_some() {
            self.rewatch();
        }
        self.seen = self.places.scan();
    }

    /// File events from a watch made anew (a folder removed and made again is another folder
    /// to the system), or polling where they cannot be had.
    fn rewatch(&mut self) {
        match file_events(&self.places, self.sender.clone()) {
            Ok(notify) => self.notify = Some(notify),
            Err(why) => self.poll_instead(&why),
        }
    }

    /// How the folders are watched, for the line saying that serve runs: empty for events.
    pub(super) fn watch_mode(&self) -> String {
        let why = if self.asked { ", as --poll asks" } else { "" };
        match self.notify {
            Some(_) => String::new(),
            None => format!(" (polling every {} s{why})", POLL.as_secs_f32()),
        }
    }

    /// Waits for the next burst of changes; `None` once `site_folder`, the folder serve works
    /// in, is no longer the folder at its path (removed, or renamed away).
    pub(super) fn next(&mut self, site_folder: &Path) -> Option<Burst> {
        loop {
            let wait = CHECK.saturating_sub(self.checked.elapsed());
            let checking = match self.notify {
                None => {
                    std::thread::sleep(POLL);
                    false
                }
                Some(_) => match self.events.recv_timeout(wait) {
                    // One look answers every event that came meanwhile.
                    Ok(event) => {
                        let came: Vec<FileEvent> =
                            (std::iter::once(event).chain(self.events.try_iter())).collect();
                        if let Some(error) = came.iter().find_map(|event| event.as_ref().err()) {
                            self.poll_instead(&format!("the file events failed ({error})"));
                        }
                        if !came.iter().any(stirs) {
                            continue;
                        }
                        false
                    }
                    // The channel's sender is ours: it only times out.
                    Err(_) => {
                        self.checked = Instant::now();
                        true
                    }
                },
            };
            if !works_in(site_folder) {
                return None;
            }
            let mut now = self.places.scan();
            if now == self.seen {
                continue;
            }
            let started = Instant::now();
            while started.elapsed() < MOST_WAIT {
                std::thread::sleep(QUIET);
                let again = self.places.scan();
                if again == now {
                    break;
                }
                now = again;
            }
            let burst = now.difference(&self.seen, &self.places.config);
            self.seen = now;
            if checking {
                // An event on its way has come by now.
                std::thread::sleep(LAG);
                if !self.events.try_iter().any(|event| stirs(&event)) {
                    self.poll_instead(&format!(
                        "no file event came for a change to {} (is it on a network share, or mounted into a container?)",
                        burst.what().display()
                    ));
                }
            }
            if self.notify.is_some() {
                self.rewatch();
            }
            return Some(burst);
        }
    }

    /// Polls from now on, saying why once.
    fn poll_instead(&mut self, why: &str) {
        if self.notify.take().is_some() || !self.asked {
            let every = POLL.as_secs_f32();
            log::warn!("{why}; watching by polling every {every} s instead");
        }
    }
}

/// Whether the process works in the folder now at `folder`: not in one removed, or renamed
/// away, since. The paths a webmaster gives are relative to the folder serve was started in,
/// and a process keeps the folder it works in, not its name.
#[cfg(unix)]
fn works_in(folder: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata("."), std::fs::metadata(folder)) {
        (Ok(here), Ok(there)) => (here.dev(), here.ino()) == (there.dev(), there.ino()),
        _ => false,
    }
}

/// Windows removes or renames no folder a process works in.
#[cfg(not(unix))]
fn works_in(_: &Path) -> bool {
    true
}

/// What is watched: paths as the webmaster names them.
pub(super) struct Places {
    pub(super) config: PathBuf,
    pub(super) folders: Vec<PathBuf>,
    /// Paths never to look into: the output folder, as given and real.
    pub(super) ignored: Vec<PathBuf>,
}

impl Places {
    /// What notify is to watch, by real path: each folder whole; alone, the folders that
    /// hold them and the config file, to see them made, removed or renamed.
    fn wanted(&self) -> BTreeMap<PathBuf, RecursiveMode> {
        let existing: Vec<PathBuf> = (self.folders.iter())
            .filter_map(|folder| folder.canonicalize().ok())
            .filter(|path| path.is_dir())
            .collect();
        // A folder inside another is watched with it.
        let whole = |path: &Path| !existing.iter().any(|o| o != path && path.starts_with(o));
        let mut wanted: BTreeMap<PathBuf, RecursiveMode> = (existing.iter())
            .filter(|path| whole(path))
            .map(|path| (path.clone(), RecursiveMode::Recursive))
            .collect();
        for place in self.folders.iter().chain([&self.config]) {
            let holder = std::path::absolute(place).ok();
            let holder = holder.and_then(|path| path.parent()?.canonicalize().ok());
            let watched = |holder: &PathBuf| existing.iter().any(|w| holder.starts_with(w));
            for holder in holder.into_iter().filter(|holder| !watched(holder)) {
                wanted.entry(holder).or_insert(RecursiveMode::NonRecursive);
            }
        }
        wanted
    }

    /// The config file's and every watched file's time and length now.
    fn scan(&self) -> WatchedState {
        WatchedState {
            config: stamp(&self.config),
            files: fingerprint(&self.folders, &self.ignored),
        }
    }
}

/// The state of the watched files, compared between looks.
#[derive(PartialEq, Default)]
struct WatchedState {
    config: Option<Stamp>,
    files: BTreeMap<PathBuf, Stamp>,
}

impl WatchedState {
    /// The files that differ from `before` (made, removed, or of another stamp) as a burst:
    /// the config file first, then the others in the order of their paths.
    fn difference(&self, before: &WatchedState, config: &Path) -> Burst {
        let config = (self.config != before.config).then(|| config.to_path_buf());
        let paths: BTreeSet<&PathBuf> = self.files.keys().chain(before.files.keys()).collect();
        let files =
            (paths.into_iter()).filter(|path| self.files.get(*path) != before.files.get(*path));
        Burst(config.into_iter().chain(files.cloned()).collect())
    }
}

/// Files that are no part of the site, left out of the looks: those an editor keeps beside
/// the one it saves, and version control's folders, which the build does not read (Vim's swap
/// files, `.name.swp`, `.swo`, … and `.swx`, and its probe that a folder takes new files,
/// `4913`; backups, `name~`; Emacs's auto-save, `#name#`, and lock, `.#name`, files;
/// JetBrains' and GNOME's temporary files), and the publisher's own beside an output folder
/// (`.site.vatcar-staging`, `.site.vatcar-lock`, the banners' `.vatcar-site-cache`), which a
/// watched folder holding the output would otherwise see change at each rebuild.
fn left_out(path: &Path) -> bool {
    if path.components().any(|part| part.as_os_str() == ".git") {
        return true;
    }
    let Some(name) = path.file_name().and_then(|name| name.to_str()) else {
        return false;
    };
    let vim_swap = name.starts_with('.')
        && name.len() > 4
        && matches!(&name.as_bytes()[name.len() - 4..], [b'.', b's', b'w', c] if c.is_ascii_lowercase());
    // Vim tries 4913 first, then adds 123 until it finds a free name.
    let vim_probe = name.len() <= 6
        && name.bytes().all(|b| b.is_ascii_digit())
        && (name.parse::<u32>()).is_ok_and(|n| n >= 4913 && (n - 4913) % 123 == 0);
    vim_swap
        || vim_probe
        || name.ends_with('~')
        || (name.len() > 1 && name.starts_with('#') && name.ends_with('#'))
        || name.starts_with(".#")
        || name.ends_with("___jb_tmp___")
        || name.ends_with("___jb_old___")
        || name.starts_with(".goutputstream-")
        || (name.starts_with('.') && name.contains(".vatcar-"))
}

/// A file's modification time and length. An edit that keeps both is not seen; every file
/// system this runs on keeps at least millisecond times, far finer than a person's saves.
type Stamp = (Option<SystemTime>, u64);

fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok(), meta.len()))
}

/// Every file under `folders`, leaving out the paths in `ignored` (and what is under
/// them) and what [`left_out`] names. Links are not followed, as the build does not follow
/// them.
pub(super) fn fingerprint(folders: &[PathBuf], ignored: &[PathBuf]) -> BTreeMap<PathBuf, Stamp> {
    let walks = folders.iter().flat_map(|folder| {
        let walk = walkdir::WalkDir::new(folder).min_depth(1).into_iter();
        walk.filter_entry(|entry| {
            !ignored.iter().any(|i| i == entry.path()) && !left_out(entry.path())
        })
    });
    (walks.flatten())
        .filter(|entry| !entry.file_type().is_dir())
        .filter_map(|entry| {
            let meta = entry.metadata().ok()?;
            Some((entry.into_path(), (meta.modified().ok(), meta.len())))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_names_each_file_made_removed_or_saved_once_the_config_first() {
        let look = |config: u64, files: &[(&str, u64)]| WatchedState {
            config: Some((None, config)),
            files: (files.iter())
                .map(|(path, length)| (PathBuf::from(path), (None, *length)))
                .collect(),
        };
        let before = look(1, &[("a", 1), ("b", 1), ("c", 1)]);
        let now = look(2, &[("a", 1), ("b", 2), ("d", 1)]);
        let burst = now.difference(&before, Path::new("vatcar-site.toml"));
        assert_eq!(
            burst.0,
            ["vatcar-site.toml", "b", "c", "d"].map(PathBuf::from)
        );
        assert!(
            now.difference(&now, Path::new("vatcar-site.toml"))
                .0
                .is_empty()
        );
    }

    #[test]
    fn files_no_part_of_the_site_are_known_by_name() {
        for name in [
            "content/.about.md.swp",
            "content/.about.md.swo",
            "content/.about.md.swx",
            "content/4913",
            "content/5036",
            "content/about.md~",
            "content/#about.md#",
            "content/.#about.md",
            "content/about.md___jb_tmp___",
            "static/.goutputstream-X1Y2Z3",
            "static/.git/index",
            "static/.site.vatcar-staging",
            "static/.site.vatcar-lock",
            "static/.vatcar-site-cache",
        ] {
            assert!(left_out(Path::new(name)), "{name}");
        }
        for name in [
            "content/about.md",
            "content/.well-known.md",
            "static/.well-known/security.txt",
            "static/.htaccess",
            "static/4914",
            "static/49130",
            "static/#",
            "static/.sw",
            "static/.SWP",
        ] {
            assert!(!left_out(Path::new(name)), "{name}");
        }
    }
}
