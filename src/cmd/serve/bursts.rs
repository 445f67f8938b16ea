//! How serve learns that what the site is made from changed: in bursts, each one rebuild.
//!
//! Changes come as the system's file events (the `notify` crate: inotify, FSEvents,
//! ReadDirectoryChangesW), within milliseconds of a save; a burst of them makes one rebuild,
//! once none has come for [`QUIET`]. Each folder is watched whole, and the folders holding
//! the folders and the config file are watched on their own, so that a file saved by renaming
//! another over it, or a folder removed and made again, is seen (and the folder watched
//! anew). The files an editor keeps beside the one it saves (swap, backup, lock and probe
//! files) are no change to the site.
//!
//! Events do not come from every file system: a network share, or a folder a container
//! mounts from its host, may never send them. So the folders are also looked at every
//! [`CHECK`]; a change that no event told of turns the watch into polling, a look every
//! [`POLL`], for the rest of the run, with a warning (`--poll` polls from the start). A look
//! compares each file's modification time and length: notify's own PollWatcher (8.2) compares
//! times in whole seconds and only forward, so a second save within the same second would be
//! missed unless it read every file at every look.

use super::scan::{TimeAndLength, fingerprint, is_editors_own, stamp};
use notify::event::{AccessKind, AccessMode};
use notify::{Event, EventKind, RecursiveMode};
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashSet};
use std::hash::Hash;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// A burst of changes is built once no more came for this long, so that an editor saving
/// several files (or writing one in steps, or by rename) makes one rebuild.
const QUIET: Duration = Duration::from_millis(30);
/// Files that never stop changing are built after this long anyway.
const MOST_WAIT: Duration = Duration::from_secs(3);
/// How often the folders are looked at while events are watched, to learn whether events
/// come at all.
const CHECK: Duration = Duration::from_secs(2);
/// How long an event may come after the change it tells of.
const LAG: Duration = Duration::from_millis(250);
/// How often the folders are looked at when polling.
const POLL: Duration = Duration::from_millis(300);

/// How changes are learnt of, and what was there at the last rebuild.
pub(super) struct Watching {
    source: ChangeSource,
    places: Places,
    seen: WatchedState,
}

/// How changes to the watched files are learned: from the system's events, or by looking again.
enum ChangeSource {
    Events(FileEvents),
    /// `asked`: by `--poll`, rather than for want of events.
    Polling {
        asked: bool,
    },
}

/// The system's file events, through notify.
struct FileEvents {
    notify: Box<dyn notify::Watcher + Send>,
    events: Receiver<notify::Result<Event>>,
    /// The paths notify was given, and how.
    watched: BTreeMap<PathBuf, RecursiveMode>,
    /// When the folders were last looked at, to check that events come.
    checked: Instant,
}

impl FileEvents {
    fn start() -> notify::Result<FileEvents> {
        let (sender, events) = mpsc::channel();
        // Links are not followed, as the build does not follow them.
        let config = notify::Config::default().with_follow_symlinks(false);
        let notify: notify::RecommendedWatcher = notify::Watcher::new(sender, config)?;
        Ok(FileEvents {
            notify: Box::new(notify),
            events,
            watched: BTreeMap::new(),
            checked: Instant::now(),
        })
    }
}

/// The changes of one burst.
#[derive(Default)]
pub(super) struct Burst {
    /// The paths changed, as the webmaster names them, first seen first.
    paths: FirstSeen<PathBuf>,
    /// The same as the system names them, for [`Watching::follow`].
    touched: HashSet<PathBuf>,
}

impl Burst {
    fn add(&mut self, given: PathBuf, real: &Path) {
        self.paths.add(given);
        if !self.touched.contains(real) {
            self.touched.insert(real.to_path_buf());
        }
    }

    fn names(&self, place: &WatchedPath) -> bool {
        self.paths.contains(&place.given) || self.touched.contains(&place.real)
    }

    /// The path to name in the message: the first changed that still exists (a file saved
    /// by rename, not the temporary file renamed over it).
    pub(super) fn what(&self) -> PathBuf {
        (self.paths.order.iter().find(|path| path.exists()))
            .or(self.paths.order.first())
            .cloned()
            .unwrap_or_default()
    }
}

/// Items in the order they first came, each once. A burst may name tens of thousands of
/// paths (a checkout, an archive unpacked): each is looked up in a set, not in the list.
struct FirstSeen<T> {
    order: Vec<T>,
    seen: HashSet<T>,
}

impl<T> Default for FirstSeen<T> {
    fn default() -> Self {
        FirstSeen {
            order: Vec::new(),
            seen: HashSet::new(),
        }
    }
}

impl<T: Eq + Hash + Clone> FirstSeen<T> {
    fn add(&mut self, item: T) {
        if !self.seen.contains(&item) {
            self.seen.insert(item.clone());
            self.order.push(item);
        }
    }

    fn contains(&self, item: &T) -> bool {
        self.seen.contains(item)
    }
}

impl Watching {
    /// Starts watching `places`: by the system's file events, or by polling (with `poll`, or
    /// where events cannot be had).
    pub(super) fn start(places: Places, poll: bool) -> Watching {
        let seen = places.look();
        let mut watching = Watching {
            source: ChangeSource::Polling { asked: true },
            places,
            seen,
        };
        if !poll {
            match FileEvents::start() {
                Ok(events) => {
                    watching.source = ChangeSource::Events(events);
                    watching.follow(&HashSet::new());
                }
                Err(error) => {
                    watching.poll_instead(&format!("could not watch for file events ({error})"))
                }
            }
        }
        watching
    }

    /// Whether `burst` changed the config file.
    pub(super) fn names_config(&self, burst: &Burst) -> bool {
        burst.names(&self.places.config)
    }

    /// Watches other places from now on (a config file read again may name other folders).
    pub(super) fn watch_instead(&mut self, places: Places) {
        self.places = places;
    }

    /// `burst` taken in: the folders it touched watched anew, and what is there now the state
    /// the next burst is measured from.
    pub(super) fn taken(&mut self, burst: &Burst) {
        self.follow(&burst.touched);
        self.seen = self.places.look();
    }

    /// How the folders are watched, for the line saying that serve runs: empty for events.
    pub(super) fn how(&self) -> String {
        match self.source {
            ChangeSource::Events(_) => String::new(),
            ChangeSource::Polling { asked: true } => {
                format!(" (polling every {} s, as --poll asks)", POLL.as_secs_f32())
            }
            ChangeSource::Polling { asked: false } => {
                format!(" (polling every {} s)", POLL.as_secs_f32())
            }
        }
    }

    /// Waits for the next burst of changes.
    pub(super) fn next(&mut self) -> Burst {
        loop {
            let burst = match &mut self.source {
                ChangeSource::Polling { .. } => {
                    std::thread::sleep(POLL);
                    self.poll()
                }
                ChangeSource::Events(events) => {
                    let wait = CHECK.saturating_sub(events.checked.elapsed());
                    match events.events.recv_timeout(wait) {
                        Ok(event) => self.burst_from(event),
                        Err(RecvTimeoutError::Timeout) => self.check(),
                        Err(RecvTimeoutError::Disconnected) => {
                            self.poll_instead("the file events stopped");
                            None
                        }
                    }
                }
            };
            if let Some(burst) = burst {
                return burst;
            }
        }
    }

    /// A look at the folders; the burst, once they stay the same for [`QUIET`].
    fn poll(&mut self) -> Option<Burst> {
        let mut now = self.places.look();
        if now == self.seen {
            return None;
        }
        let started = Instant::now();
        while started.elapsed() < MOST_WAIT {
            std::thread::sleep(QUIET);
            let again = self.places.look();
            if again == now {
                break;
            }
            now = again;
        }
        Some(now.difference(&self.seen, &self.places))
    }

    /// The burst that `first` begins, if it is a change to the site: every change to the
    /// site until none came for [`QUIET`].
    fn burst_from(&mut self, first: notify::Result<Event>) -> Option<Burst> {
        let mut burst = Burst::default();
        if !self.add(&mut burst, first) {
            return None;
        }
        let started = Instant::now();
        while let ChangeSource::Events(events) = &self.source {
            let left = MOST_WAIT.saturating_sub(started.elapsed());
            match events.events.recv_timeout(QUIET.min(left)) {
                Ok(event) => {
                    self.add(&mut burst, event);
                }
                Err(_) => break,
            }
        }
        Some(burst)
    }

    /// Adds what `event` changed to `burst`; whether it was a change to the site. An error
    /// turns the watch into polling, and counts as a change.
    fn add(&mut self, burst: &mut Burst, event: notify::Result<Event>) -> bool {
        let event = match event {
            Ok(event) => event,
            Err(error) => {
                self.poll_instead(&format!("the file events failed ({error})"));
                let folder = self.places.folders.first().unwrap_or(&self.places.config);
                burst.add(folder.given.clone(), &folder.real);
                return true;
            }
        };
        if matches!(event.kind, EventKind::Access(kind) if kind != AccessKind::Close(AccessMode::Write))
        {
            return false;
        }
        if event.need_rescan() {
            // The system lost count of its events: anything may have changed.
            let folder = self.places.folders.first().unwrap_or(&self.places.config);
            burst.add(folder.given.clone(), &folder.real);
            return true;
        }
        let mut changed = false;
        for path in &event.paths {
            if let Some(given) = self.places.given(path) {
                burst.add(given, path);
                changed = true;
            }
        }
        changed
    }

    /// The look every [`CHECK`]: a change found that no event tells of within [`LAG`] means
    /// that events do not come from these folders.
    fn check(&mut self) -> Option<Burst> {
        let ChangeSource::Events(events) = &mut self.source else {
            return None;
        };
        events.checked = Instant::now();
        let now = self.places.look();
        if now == self.seen {
            return None;
        }
        let started = Instant::now();
        while let Some(left) = LAG.checked_sub(started.elapsed()) {
            let ChangeSource::Events(events) = &self.source else {
                break;
            };
            match events.events.recv_timeout(left) {
                Ok(event) => {
                    if let Some(burst) = self.burst_from(event) {
                        return Some(burst);
                    }
                }
                Err(_) => break,
            }
        }
        let burst = now.difference(&self.seen, &self.places);
        self.poll_instead(&format!(
            "no file event came for a change to {} (is it on a network share, or mounted into a container?)",
            burst.what().display()
        ));
        Some(burst)
    }

    /// Polls from now on, saying why once.
    fn poll_instead(&mut self, why: &str) {
        if let ChangeSource::Events(_) = self.source {
            log::warn!(
                "{why}; watching by polling every {} s instead",
                POLL.as_secs_f32()
            );
        }
        self.source = ChangeSource::Polling { asked: false };
    }

    /// Has notify watch what [`Places::wanted`] says, the paths in `touched` (a folder
    /// removed, made again or renamed) anew.
    fn follow(&mut self, touched: &HashSet<PathBuf>) {
        let ChangeSource::Events(events) = &mut self.source else {
            return;
        };
        let wanted = self.places.wanted();
        let stale: Vec<PathBuf> = (events.watched.iter())
            .filter(|(path, mode)| wanted.get(*path) != Some(*mode) || touched.contains(*path))
            .map(|(path, _)| path.clone())
            .collect();
        for path in stale {
            // A folder removed is no longer watched, and notify says so: nothing to undo.
            let _ = events.notify.unwatch(&path);
            events.watched.remove(&path);
        }
        let mut failed = None;
        for (path, mode) in wanted {
            if events.watched.contains_key(&path) {
                continue;
            }
            match events.notify.watch(&path, mode) {
                Ok(()) => {
                    events.watched.insert(path, mode);
                }
                // Removed since it was looked for: its holder's events will tell.
                Err(error) if matches!(error.kind, notify::ErrorKind::PathNotFound) => {}
                Err(error) => {
                    failed = Some(format!("could not watch {} ({error})", path.display()));
                    break;
                }
            }
        }
        if let Some(why) = failed {
            self.poll_instead(&why);
        }
    }
}

/// A path as the webmaster named it, and as the system names it in its events.
struct WatchedPath {
    given: PathBuf,
    real: PathBuf,
}

impl WatchedPath {
    fn new(given: &Path) -> WatchedPath {
        WatchedPath {
            given: given.to_path_buf(),
            real: real_path(given),
        }
    }
}

/// `path` with its links resolved, as far as it exists; absolute.
fn real_path(path: &Path) -> PathBuf {
    if let Ok(real) = path.canonicalize() {
        return real;
    }
    if let Some(name) = path.file_name() {
        let parent = (path.parent())
            .filter(|parent| !parent.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        if let Ok(real) = parent.canonicalize() {
            return real.join(name);
        }
        if parent != Path::new(".") {
            return real_path(parent).join(name);
        }
    }
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// What is watched.
pub(super) struct Places {
    config: WatchedPath,
    folders: Vec<WatchedPath>,
    /// Paths never to look into: the output and the publisher's files, as given and real.
    ignored: Vec<PathBuf>,
    /// The folder serve was started in, whose own removal and return are watched too.
    site_folder: PathBuf,
}

/// Makes the site folder the working folder again once it is back after being removed.
///
/// The paths a webmaster gives are relative to the folder serve was started in, and a process
/// keeps the folder it works in, not its name: once that folder is removed (a clone made
/// again, a folder restored from a copy), every relative path leads nowhere, even after a new
/// folder of the same name is put in its place. So each look first goes back to the folder
/// by its name.
pub(super) fn follow_site_folder(site_folder: &Path) {
    if site_folder.is_dir() && !works_in(site_folder) {
        let _ = std::env::set_current_dir(site_folder);
    }
}

/// Whether the process works in the folder now at `folder`: not in one removed, or renamed
/// away, since.
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

impl Places {
    /// The config file and the folders to watch, leaving out `ignored` (the output folder and
    /// the publisher's files beside it).
    pub(super) fn new(
        config: &Path,
        folders: &[PathBuf],
        ignored: Vec<PathBuf>,
        site_folder: &Path,
    ) -> Places {
        Places {
            config: WatchedPath::new(config),
            folders: folders.iter().map(|f| WatchedPath::new(f)).collect(),
            ignored,
            site_folder: site_folder.to_path_buf(),
        }
    }

    /// The path as the webmaster names it, when a change at `path` (as the system names it)
    /// is a change to the site.
    fn given(&self, path: &Path) -> Option<PathBuf> {
        if is_editors_own(path) || self.ignored.iter().any(|i| path.starts_with(i)) {
            return None;
        }
        // The site folder made again or renamed back holds a config file anew.
        if path == self.config.real || path == self.site_folder {
            return Some(self.config.given.clone());
        }
        self.folders.iter().find_map(|folder| {
            let rest = path.strip_prefix(&folder.real).ok()?;
            Some(if rest.as_os_str().is_empty() {
                folder.given.clone()
            } else {
                folder.given.join(rest)
            })
        })
    }

    /// `given`, a path under one of the folders as the webmaster names it, as the system
    /// does: without a look at the disk for each of a burst's files.
    fn real(&self, given: &Path) -> PathBuf {
        (self.folders.iter())
            .find_map(|folder| {
                let rest = given.strip_prefix(&folder.given).ok()?;
                Some(match rest.as_os_str().is_empty() {
                    true => folder.real.clone(),
                    false => folder.real.join(rest),
                })
            })
            .unwrap_or_else(|| real_path(given))
    }

    /// What notify is to watch: each folder whole; alone, the folders that hold them and the
    /// config file, to see them made, removed or renamed.
    fn wanted(&self) -> BTreeMap<PathBuf, RecursiveMode> {
        let existing: Vec<&Path> = (self.folders.iter())
            .map(|folder| folder.real.as_path())
            .filter(|path| path.is_dir())
            .collect();
        // A folder inside another is watched with it.
        let whole: Vec<&Path> = (existing.iter().copied())
            .filter(|path| !existing.iter().any(|o| o != path && path.starts_with(o)))
            .collect();
        let mut wanted: BTreeMap<PathBuf, RecursiveMode> = (whole.iter())
            .map(|path| (path.to_path_buf(), RecursiveMode::Recursive))
            .collect();
        let holders = (self.folders.iter())
            .chain([&self.config])
            .filter_map(|place| place.real.parent())
            .chain(self.site_folder.parent());
        for holder in holders {
            if holder.is_dir() && !whole.iter().any(|w| holder.starts_with(w)) {
                wanted
                    .entry(holder.to_path_buf())
                    .or_insert(RecursiveMode::NonRecursive);
            }
        }
        wanted
    }

    /// What is there now.
    fn look(&self) -> WatchedState {
        follow_site_folder(&self.site_folder);
        let folders: Vec<PathBuf> = self.folders.iter().map(|f| f.given.clone()).collect();
        WatchedState {
            config: stamp(&self.config.given),
            files: fingerprint(&folders, &self.ignored),
        }
    }
}

/// What is in one of two lists and not in the other, both sorted and without duplicates (as
/// [`fingerprint`] gives them), in order.
fn differing<'a, T: Ord>(now: &'a [T], before: &'a [T]) -> Vec<&'a T> {
    let (mut now, mut before) = (now.iter().peekable(), before.iter().peekable());
    let mut differ = Vec::new();
    loop {
        match (now.peek(), before.peek()) {
            (Some(a), Some(b)) => match a.cmp(b) {
                Ordering::Less => differ.extend(now.next()),
                Ordering::Greater => differ.extend(before.next()),
                Ordering::Equal => {
                    now.next();
                    before.next();
                }
            },
            (Some(_), None) => differ.extend(now.next()),
            (None, Some(_)) => differ.extend(before.next()),
            (None, None) => return differ,
        }
    }
}

/// The state of the watched files, compared between looks.
#[derive(PartialEq)]
struct WatchedState {
    config: Option<TimeAndLength>,
    files: Vec<(PathBuf, TimeAndLength)>,
}

impl WatchedState {
    /// The files that differ from `before`, the config file first, as a burst.
    fn difference(&self, before: &WatchedState, places: &Places) -> Burst {
        let mut burst = Burst::default();
        if self.config != before.config {
            burst.add(places.config.given.clone(), &places.config.real);
        }
        for (path, _) in differing(&self.files, &before.files) {
            burst.add(path.clone(), &places.real(path));
        }
        burst
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// A key that counts how often it is compared or hashed: the work a burst's gathering
    /// does, measured without a clock.
    #[derive(Clone)]
    struct Counted<'a> {
        key: u32,
        work: &'a Cell<u64>,
    }

    impl PartialEq for Counted<'_> {
        fn eq(&self, other: &Self) -> bool {
            self.work.set(self.work.get() + 1);
            self.key == other.key
        }
    }
    impl Eq for Counted<'_> {}
    impl Hash for Counted<'_> {
        fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
            self.work.set(self.work.get() + 1);
            self.key.hash(state);
        }
    }
    impl PartialOrd for Counted<'_> {
        fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
            Some(self.cmp(other))
        }
    }
    impl Ord for Counted<'_> {
        fn cmp(&self, other: &Self) -> Ordering {
            self.work.set(self.work.get() + 1);
            self.key.cmp(&other.key)
        }
    }

    /// 20,000 new files, as a checkout writes them: each path comes in several events (made,
    /// written, closed).
    const MANY: u32 = 20_000;

    #[test]
    fn a_burst_of_many_paths_keeps_each_once_in_first_seen_order_with_work_in_proportion() {
        let work = Cell::new(0);
        let key = |key| Counted { key, work: &work };
        let mut paths = FirstSeen::default();
        for n in 0..MANY {
            // Each path three times, the later ones among the next paths' first.
            paths.add(key(n));
            paths.add(key(n / 2));
            paths.add(key(n));
        }
        let order: Vec<u32> = paths.order.iter().map(|c| c.key).collect();
        assert_eq!(order, (0..MANY).collect::<Vec<_>>());
        assert!(paths.contains(&key(MANY - 1)) && !paths.contains(&key(MANY)));
        // A set does a few hashes and comparisons a path; a list looked through for each
        // does as many as it holds (200 million here).
        let done = work.get();
        assert!(done < 20 * u64::from(MANY), "{done} comparisons and hashes");
    }

    #[test]
    fn the_files_that_differ_between_two_looks_are_found_with_work_in_proportion() {
        let work = Cell::new(0);
        let key = |key| Counted { key, work: &work };
        // Before: every even number; now: every multiple of 3 (made, or kept) and nothing else.
        let before: Vec<Counted> = (0..2 * MANY).step_by(2).map(key).collect();
        let now: Vec<Counted> = (0..2 * MANY).step_by(3).map(key).collect();
        work.set(0);
        let found: Vec<u32> = differing(&now, &before).iter().map(|c| c.key).collect();
        // Made (odd multiples of 3) and removed (even numbers that are not), in order.
        let expected: Vec<u32> = (0..2 * MANY)
            .filter(|n| (n % 2 == 0) != (n % 3 == 0))
            .collect();
        assert_eq!(found, expected);
        let done = work.get();
        assert!(done < 4 * u64::from(MANY), "{done} comparisons");
    }
}
