//! The banner cache, `.vatcar-site-cache/banners/` beside the output folder, guarded as the
//! output is. It may come from elsewhere (restored between CI runs, or in a parent folder
//! others can write, such as the system's temporary folder), so nothing in it is trusted:
//!
//! - the two folders are real folders, never links; a link is refused, and the cache is then
//!   not used at all;
//! - a file is read only if it is a regular file (never through a link, never a FIFO that would
//!   block), within a size cap;
//! - the index names nothing: each copy's file name is made from the source's digest, its
//!   width and its format, and a copy is published only if its bytes have the digest the
//!   index recorded and begin as its format does;
//! - files are written under a name of their own (never through a link planted at it) and
//!   renamed into place; only regular files with the names the cache gives are removed;
//! - one build at a time uses it (a lock), so sibling outputs that share it do not race.
//!
//! The index holds addresses, reasons and digests only; the build checks it for its secrets
//! before it is written ([`Cache::write_index`]).

use crate::images::{Format, MAX_SIDE, WIDTHS};
use crate::plain_files::{Plain, open_no_follow, read_plain_at_most};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

/// The cache's folder, beside the output folder.
pub const CACHE_FOLDER: &str = ".vatcar-site-cache";
/// The cache's list of what it holds.
const INDEX: &str = "index.json";
/// The lock file, held for as long as a build uses the cache.
const LOCK: &str = ".lock";
/// The index's layout; another is read as an empty cache. 2: copies named by their digest
/// alone, each copy's own digest recorded, failures remembered.
const VERSION: u32 = 2;
/// The largest index read: a facility's banners take a few KiB.
const MAX_INDEX_BYTES: u64 = 4 * 1024 * 1024;
/// The largest copy read back: a 1,440 px PNG of noise is under 7 MiB.
const MAX_COPY_BYTES: u64 = 16 * 1024 * 1024;
/// The longest reason kept.
const MAX_REASON: usize = 600;

/// The cache, open and locked; unlocked when dropped.
pub struct Cache {
    folder: PathBuf,
    _lock: File,
}

/// The cache's index: each address as it was last read.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Index {
    version: u32,
    pub banners: BTreeMap<String, CachedBanner>,
}

/// What an address held when it was last read, or why it could not be.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CachedBanner {
    /// When, in seconds since 1970.
    pub read_at: u64,
    #[serde(flatten)]
    pub state: BannerState,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "lowercase")]
pub enum BannerState {
    /// Read and copied.
    Made(MadeCopies),
    /// Read, but its bytes (SHA-256 `source`) are no image vatcar-site copies.
    Undecodable { source: String, reason: String },
    /// Not read: it failed (an error, a 404, a host that could not be reached).
    Unread { reason: String },
}

/// What a banner's bytes were made into.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MadeCopies {
    /// The SHA-256 of the bytes read, in hex.
    pub source: String,
    pub width: u32,
    pub height: u32,
    pub copies: Vec<CachedCopy>,
}

/// One copy: its width, height and format, and the SHA-256 of its bytes.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CachedCopy {
    pub width: u32,
    pub height: u32,
    pub format: Format,
    pub sha256: String,
}

impl CachedCopy {
    /// Its file's name, in the cache and under the output's `banners/`: the source's digest
    /// (its first 16 hex digits), the width, the format's extension. The same bytes make the
    /// same names, so a file is never replaced by another.
    pub fn file(&self, source: &str) -> String {
        format!(
            "{}-{}.{}",
            &source[..16],
            self.width,
            self.format.extension()
        )
    }
}

impl Cache {
    /// The cache at `folder` (`.vatcar-site-cache/banners`), made where it is missing, each of
    /// its two folders checked to be a folder and not a link, and locked: a build that shares
    /// it with another waits for the other to finish with it.
    pub fn open(folder: &Path) -> Result<Cache, String> {
        let top = folder.parent().unwrap_or(folder);
        for dir in [top, folder] {
            real_folder(dir, |e| cannot(dir, e))?;
        }
        let lock = open_no_follow(
            &folder.join(LOCK),
            OpenOptions::new().create(true).truncate(false).write(true),
        )
        .map_err(|e| cannot(folder, &e))?;
        lock.lock().map_err(|e| cannot(folder, &e))?;
        // Checked again with the lock held: a folder swapped for a link meanwhile is refused.
        for dir in [top, folder] {
            real_folder(dir, |e| cannot(dir, e))?;
        }
        Ok(Cache {
            folder: folder.to_path_buf(),
            _lock: lock,
        })
    }

    /// The index, with every entry that does not hold to the cache's own rules left out (an
    /// index edited by hand, or from another version, names nothing it may not).
    pub fn read_index(&self) -> Index {
        let Ok(bytes) = self.read_regular(INDEX, MAX_INDEX_BYTES) else {
            return Index::default();
        };
        let Ok(mut index) = serde_json::from_slice::<Index>(&bytes) else {
            return Index::default();
        };
        if index.version != VERSION {
            return Index::default();
        }
        index
            .banners
            .retain(|address, entry| entry.is_sound(address));
        index
    }

    /// The copy's bytes, if the file holds what the index says: its digest, and the format's
    /// first bytes.
    pub fn read_copy(&self, source: &str, copy: &CachedCopy) -> Result<Vec<u8>, String> {
        let name = copy.file(source);
        let path = self.folder.join(&name);
        let bytes = (self.read_regular(&name, MAX_COPY_BYTES))
            .map_err(|e| format!("could not read its copy {}: {e}", path.display()))?;
        if sha256_hex(&bytes) != copy.sha256 || !copy.format.begins(&bytes) {
            return Err(format!(
                "its copy {} is not the one the cache made; it is made again",
                path.display()
            ));
        }
        Ok(bytes)
    }

    /// The cache's file `name`, if it is a regular file (never read through a link, never a
    /// FIFO that would block) of at most `max` bytes.
    fn read_regular(&self, name: &str, max: u64) -> Result<Vec<u8>, String> {
        match read_plain_at_most(&self.folder, name, max).map_err(|e| format!("{e:#}"))? {
            Plain::TooLarge => Err(format!("it is larger than {} MiB", max / (1024 * 1024))),
            Plain::File(bytes) => Ok(bytes),
            Plain::Missing => Err("it is missing".to_owned()),
            Plain::NotPlain { is, .. } => Err(format!("it is {is}, not a regular file")),
        }
    }

    /// A copy's bytes written into the cache.
    pub fn write_copy(&self, source: &str, copy: &CachedCopy, bytes: &[u8]) -> Result<(), String> {
        write_whole(&self.folder, &copy.file(source), bytes)
    }

    /// The index written (its JSON is the caller's to check for secrets first), and every
    /// copy it no longer names removed: the cache holds the banners of the last build only.
    pub fn write_index(&self, json: &[u8], index: &Index) -> Result<(), String> {
        write_whole(&self.folder, INDEX, json)?;
        let named: BTreeSet<String> = (index.banners.values())
            .filter_map(|entry| match &entry.state {
                BannerState::Made(made) => Some(made),
                _ => None,
            })
            .flat_map(|made| made.copies.iter().map(|copy| copy.file(&made.source)))
            .collect();
        let Ok(entries) = std::fs::read_dir(&self.folder) else {
            return Ok(());
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let ours = is_copy_name(name) && !named.contains(name) || is_partial_name(name);
            // A regular file only: a link or a folder with such a name is not ours to remove.
            if ours && entry.file_type().is_ok_and(|t| t.is_file()) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
        Ok(())
    }
}

impl Index {
    pub fn new(banners: BTreeMap<String, CachedBanner>) -> Self {
        Index {
            version: VERSION,
            banners,
        }
    }
}

impl CachedBanner {
    /// Whether the entry holds to what the cache writes: digests in hex, copies no wider than
    /// the widest copy made, reasons of a sane length.
    fn is_sound(&self, address: &str) -> bool {
        let short = |reason: &str| reason.len() <= MAX_REASON;
        !address.is_empty()
            && match &self.state {
                BannerState::Made(made) => {
                    is_digest(&made.source)
                        && !made.copies.is_empty()
                        && made.copies.iter().all(|copy| {
                            is_digest(&copy.sha256)
                                && (1..=WIDTHS[WIDTHS.len() - 1]).contains(&copy.width)
                                && (1..=MAX_SIDE).contains(&copy.height)
                        })
                }
                BannerState::Undecodable { source, reason } => is_digest(source) && short(reason),
                BannerState::Unread { reason } => short(reason),
            }
    }
}

/// A reason as the index keeps it: cut to a sane length.
pub fn kept_reason(reason: &str) -> String {
    let mut end = reason.len().min(MAX_REASON);
    while !reason.is_char_boundary(end) {
        end -= 1;
    }
    reason[..end].to_owned()
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, bytes);
    digest.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

fn is_digest(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A name [`CachedCopy::file`] gives: 16 hex digits, a dash, a width, an extension.
fn is_copy_name(name: &str) -> bool {
    let Some((stem, extension)) = name.rsplit_once('.') else {
        return false;
    };
    let Some((digest, width)) = stem.split_once('-') else {
        return false;
    };
    digest.len() == 16
        && digest
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        && !width.is_empty()
        && width.len() <= 5
        && width.bytes().all(|b| b.is_ascii_digit())
        && ["jpg", "png", "webp"].contains(&extension)
}

/// A name [`write_whole`] writes before the rename: left by a build that was stopped.
fn is_partial_name(name: &str) -> bool {
    name.starts_with(".tmp-") && name.ends_with(".partial")
}

/// Refuses `dir` unless it is a folder and not a link, making it where it is missing (never
/// through a link: making a folder where a link is fails); `failed` words an error of the file
/// system's. The activity's kept copy is written in the same folder on the same terms.
pub fn real_folder(dir: &Path, failed: impl Fn(&std::io::Error) -> String) -> Result<(), String> {
    match std::fs::create_dir(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(failed(&e)),
    }
    let meta = std::fs::symlink_metadata(dir).map_err(|e| failed(&e))?;
    if meta.file_type().is_symlink() {
        return Err(format!(
            "the cache folder {} is a link, which vatcar-site never follows in its cache; remove the link (the cache is made again)",
            dir.display()
        ));
    }
    if !meta.is_dir() {
        return Err(format!(
            "the cache folder {} is not a folder; move it away (the cache is made again)",
            dir.display()
        ));
    }
    Ok(())
}

fn cannot(path: &Path, e: &std::io::Error) -> String {
    format!(
        "could not use the banner cache at {}: {e}; check that the folder can be written, or set banners = \"remote\" in vatcar-site.toml",
        path.display()
    )
}

/// `bytes` written as `name` whole ([`crate::plain_files::write_whole`]).
fn write_whole(folder: &Path, name: &str, bytes: &[u8]) -> Result<(), String> {
    crate::plain_files::write_whole(folder, name, bytes).map_err(|e| {
        format!(
            "could not write the banner cache's {}: {e}; check that its folder can be written, or set banners = \"remote\" in vatcar-site.toml",
            folder.join(name).display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_names_the_cache_gives_are_removed() {
        assert!(is_copy_name("0123456789abcdef-480.webp"));
        assert!(is_copy_name("0123456789abcdef-1440.jpg"));
        for no in [
            "../x",
            "/etc/passwd",
            ".hidden",
            "a/b",
            "evil.html",
            "0123456789abcdef-480.html",
            "0123456789abcdef-480.svg",
            "0123456789ABCDEF-480.jpg",
            "CNAME",
            "index.json",
            &"a".repeat(80),
        ] {
            assert!(!is_copy_name(no), "{no}");
        }
    }

    #[test]
    fn a_copy_file_is_named_by_its_source_width_and_format_alone() {
        let copy = CachedCopy {
            width: 480,
            height: 120,
            format: Format::Webp,
            sha256: "0".repeat(64),
        };
        let source = "ab".repeat(32);
        assert_eq!(copy.file(&source), "abababababababab-480.webp");
        assert!(is_copy_name(&copy.file(&source)));
    }
}
