//! The previous build's public state (`data/changes.json` and `data/roster.json`), raw: from
//! the output folder's last build, or from the published site (`--previous URL`), where a
//! CI run that starts from an empty folder finds it. `model::previous` checks what it holds.
//!
//! Whatever goes wrong here is a reason, never an error: the caller warns and builds as a
//! first build. No key or other secret is sent: the files are public, read by
//! [`super::public`] over https (http only on this machine).

use super::public::Reader;
use crate::secret::shown_url;
use std::path::PathBuf;
use std::time::Duration;
use url::Url;

/// The largest file read: a roster of 10,000 members is about 2 MiB.
pub const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// How long reading the published site may take, in all.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// The two files, below the site's root.
pub const CHANGES: &str = "data/changes.json";
pub const ROSTER: &str = "data/roster.json";
/// The members' sessions, published with `[activity]` on: read on its own, by
/// [`read_activity`].
pub const ACTIVITY: &str = "data/activity.json";

/// Where the previous build is.
#[derive(Clone, Debug)]
pub enum PreviousSource {
    /// The output folder of the last build.
    Folder(PathBuf),
    /// The published site's address, with a trailing slash.
    Site(Url),
    /// The demo's day before, built into the program (`demo/previous/`, written by its
    /// `make.py`), so that `build --demo` shows What's new at work.
    Demo,
}

impl std::fmt::Display for PreviousSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PreviousSource::Folder(dir) => write!(f, "{}", dir.display()),
            PreviousSource::Site(url) => f.write_str(&shown_url(url)),
            PreviousSource::Demo => f.write_str("the demo's previous build"),
        }
    }
}

/// The previous build's files as they were read.
#[derive(Clone, Debug)]
pub struct Bodies {
    pub changes: Vec<u8>,
    /// `None` when the previous build published no roster.
    pub roster: Option<Vec<u8>>,
}

/// The files, or why there are none (to be said in a warning).
pub fn read(place: &PreviousSource) -> Result<Bodies, String> {
    let (changes, roster) = match place {
        PreviousSource::Folder(dir) => (from_folder(dir, CHANGES)?, from_folder(dir, ROSTER)?),
        PreviousSource::Site(site) => {
            let mut bodies = from_site(site, &[CHANGES, ROSTER])?.into_iter();
            (bodies.next().flatten(), bodies.next().flatten())
        }
        PreviousSource::Demo => (
            Some(include_bytes!("../../demo/previous/changes.json").to_vec()),
            Some(include_bytes!("../../demo/previous/roster.json").to_vec()),
        ),
    };
    let changes = changes.ok_or_else(|| match place {
        PreviousSource::Folder(_) => format!(
            "{place} has no {CHANGES}; where the output folder starts empty, as in CI, pass \
             --previous with the published site's address"
        ),
        _ => format!("{place} has no {CHANGES}"),
    })?;
    Ok(Bodies { changes, roster })
}

/// The previous build's data/activity.json, `None` where it published none (or for the
/// demo, which reads no sessions); the reason it could not be read otherwise.
pub fn read_activity(place: &PreviousSource) -> Result<Option<Vec<u8>>, String> {
    match place {
        PreviousSource::Folder(dir) => from_folder(dir, ACTIVITY),
        PreviousSource::Demo => Ok(None),
        PreviousSource::Site(site) => Ok(from_site(site, &[ACTIVITY])?.pop().flatten()),
    }
}

/// A file of the folder, without following links (as every file of the user's is read), and
/// no larger than a build writes; `None` when it is not there.
fn from_folder(dir: &std::path::Path, file: &str) -> Result<Option<Vec<u8>>, String> {
    use crate::plain_files::{Plain, read_plain_at_most};
    match read_plain_at_most(dir, file, MAX_BYTES).map_err(|e| format!("{e:#}"))? {
        Plain::TooLarge => Err(format!(
            "{}, more than a build writes",
            super::public::too_large(&dir.join(file).display().to_string(), MAX_BYTES)
        )),
        Plain::File(bytes) => Ok(Some(bytes)),
        // A link where a build writes a file is said as one, so that the warning does not
        // send the webmaster looking for a lost file.
        Plain::NotPlain {
            path,
            is: "a symbolic link",
            ..
        } => Err(format!(
            "{} is a link, which is not followed",
            path.display()
        )),
        Plain::NotPlain { .. } | Plain::Missing => Ok(None),
    }
}

/// The files from the published site, within [`TIMEOUT`] together and [`MAX_BYTES`] each;
/// `None` for one the site does not have (404). Read fresh: a run soon after a deploy would
/// otherwise compare with the state before it, from a cache, and find the changes that deploy
/// published new again, for announce to post a second time.
fn from_site(site: &Url, files: &[&str]) -> Result<Vec<Option<Vec<u8>>>, String> {
    let urls = (files.iter())
        .map(|file| (site.join(file)).map_err(|e| format!("{}{file}: {e}", shown_url(site))))
        .collect::<Result<Vec<Url>, String>>()?;
    let reader = Reader::new("the previous site", MAX_BYTES, TIMEOUT)?;
    reader.fresh(std::time::SystemTime::now()).get_all(&urls)
}
