//! What `serve` has said already. Each rebuild would print the same warnings and steps as the
//! last (the data is read once, so "no --site-url" and "read 40 controllers" never change),
//! burying the one line that did; so a line the last build printed is left out of the next,
//! and printed again once a build no longer says it and a later one does. Errors are always
//! printed: a rebuild that fails says why each time, and so are the lines serve prints
//! between builds ("rebuilt after a change to ...").

use std::collections::HashSet;
use std::sync::Mutex;

static SAID: Mutex<Option<Said>> = Mutex::new(None);

#[derive(Default)]
struct Said {
    /// The lines of the last build.
    before: HashSet<String>,
    /// The lines of this build, printed or not.
    now: HashSet<String>,
    /// The warnings of this build left out, as the last build printed them.
    warnings_left_out: usize,
    /// Whether a build runs: lines printed between builds are always new.
    building: bool,
}

fn said() -> std::sync::MutexGuard<'static, Option<Said>> {
    SAID.lock().unwrap_or_else(|e| e.into_inner())
}

/// A new build begins: what the one before it said is what this one need not say again. The
/// first call starts the count (serve's first build says everything).
pub fn next_build() {
    let mut said = said();
    let said = said.get_or_insert_with(Said::default);
    said.before = std::mem::take(&mut said.now);
    said.warnings_left_out = 0;
    said.building = true;
}

/// The build has ended: what is printed now is printed.
pub fn build_ended() {
    if let Some(said) = said().as_mut() {
        said.building = false;
    }
}

/// Whether to print `line` (a warning when `warning`): always, but in serve when the last
/// build printed it too.
pub fn is_new(line: &str, warning: bool) -> bool {
    let mut said = said();
    let Some(said) = said.as_mut().filter(|said| said.building) else {
        return true;
    };
    said.now.insert(line.to_owned());
    let new = !said.before.contains(line);
    if !new && warning {
        said.warnings_left_out += 1;
    }
    new
}

/// How many of this build's warnings were left out as the last build's.
pub fn warnings_left_out() -> usize {
    said().as_ref().map_or(0, |said| said.warnings_left_out)
}
