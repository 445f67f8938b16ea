//! The events' banners, served with the site (`banners = "local"`, the default): each
//! banner's address read at build time as a public file ([`super::public`]: no key, https or
//! http on this machine only, after every redirect too, with a size cap and a time limit),
//! decoded and copied at a few widths ([`crate::images`]), the copies handed to the build to
//! publish under `banners/`.
//!
//! A cache beside the output folder (never inside it, so never published) keeps each banner's
//! copies by its address and its content: an address read less than [`FRESH`] ago is not read
//! again, and one read again whose bytes are unchanged is not decoded again. An unchanged
//! rebuild makes no request and encodes nothing.
//!
//! A banner that cannot be read or decoded is a reason, never an error: the caller warns once
//! and the page shows the API's address, as with `banners = "remote"`.

use super::public::{Limits, Reader, may_read, read_over};
use crate::images::{self, Format};
use crate::secret::{shown_url, without_userinfo};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use url::Url;

/// The largest banner read: the API's are PNGs of a few hundred KiB.
pub const MAX_BYTES: u64 = 8 * 1024 * 1024;
/// How long reading one banner may take.
pub const TIMEOUT: Duration = Duration::from_secs(10);
/// How long reading every banner may take together; those left are shown from the API.
const ALL_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a banner read is used without asking its host again: a facility that replaces
/// the file at the same address sees the new one within a day.
pub const FRESH: Duration = Duration::from_secs(24 * 60 * 60);
/// The folder of the output the copies are published in.
pub const OUTPUT_FOLDER: &str = "banners";
/// The cache's folder, beside the output folder.
pub const CACHE_FOLDER: &str = ".vatcar-site-cache";
/// What a banner is called in messages.
const WHAT: &str = "an event banner";
/// The cache's list of what it holds.
const INDEX: &str = "index.json";
/// The index's layout; another is read as an empty cache.
const VERSION: u32 = 1;

/// One copy of a banner, as a page names it: its path from the site's root and its width.
#[derive(Clone, Debug, Hash, PartialEq, Eq, Serialize)]
pub struct BannerCopy {
    pub path: String,
    pub width: u32,
}

/// A banner served with the site: the width and height of its widest copy (the `<img>`'s
/// `width` and `height`, which reserve its place before it loads), that copy's path (`src`),
/// and its copies, narrowest first: in the fallback format every browser shows, and in WebP
/// where that is the smaller (else none).
#[derive(Clone, Debug, Hash, PartialEq, Eq, Serialize)]
pub struct LocalBanner {
    pub width: u32,
    pub height: u32,
    pub src: String,
    /// The fallback's media type: `image/jpeg`, or `image/png` for a banner with transparency.
    pub fallback_type: &'static str,
    pub fallback: Vec<BannerCopy>,
    pub webp: Vec<BannerCopy>,
}

/// The banners served with the site, by the address the API gave (as
/// [`crate::sanitize::links::safe_link`] makes it absolute), and the files to publish.
#[derive(Debug, Default)]
pub struct Banners {
    by_address: HashMap<String, Arc<LocalBanner>>,
    /// Each copy's path in the output and its bytes.
    pub files: Vec<(String, Vec<u8>)>,
}

impl Banners {
    /// The banner served with the site for the API's address `href`, if there is one.
    pub fn get(&self, href: &str) -> Option<&Arc<LocalBanner>> {
        self.by_address.get(href)
    }
}

/// Banners by address with no files, for a view made without a build (the template
/// documentation's).
impl FromIterator<(String, LocalBanner)> for Banners {
    fn from_iter<I: IntoIterator<Item = (String, LocalBanner)>>(banners: I) -> Self {
        Self {
            by_address: (banners.into_iter())
                .map(|(address, banner)| (address, Arc::new(banner)))
                .collect(),
            files: Vec::new(),
        }
    }
}

/// Where the cache is for an output folder: `.vatcar-site-cache/banners/` beside it.
pub fn cache_folder(output: &Path) -> PathBuf {
    let beside = match output.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    beside.join(CACHE_FOLDER).join("banners")
}

/// The banners at `addresses`, from the cache in `cache` or read now; and a reason for each
/// one that is shown from the API instead, to be warned of.
pub fn prepare(addresses: &[Url], cache: &Path) -> (Banners, Vec<String>) {
    let mut reasons = Vec::new();
    let index = Index::read(cache);
    let now = now_seconds();
    let (mut kept, to_make) = read_changed(addresses, &index, cache, now, &mut reasons);
    // The same bytes at several addresses (one banner for a series of events) are made into
    // copies once.
    let mut keys_of: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut bodies = Vec::new();
    for read in to_make {
        let keys = keys_of.entry(read.digest.clone()).or_default();
        if keys.is_empty() {
            bodies.push((read.digest, read.body));
        }
        keys.push(read.key);
    }
    let made = crate::parallel::map_parallel(bodies, |(digest, body)| {
        Ok((digest, images::make_copies(&body)))
    })
    .unwrap_or_default();
    for (digest, made) in made {
        let keys = keys_of.remove(&digest).unwrap_or_default();
        let (made, reason) = match made.map(|made| (store(cache, &digest, &made), made)) {
            Ok((Ok(copies), made)) => {
                let made = MadeEntry {
                    width: made.width,
                    height: made.height,
                    copies,
                };
                (Some(made), None)
            }
            Ok((Err(reason), _)) => {
                for key in &keys {
                    reasons.push(format!("{}: {reason}", shown_str(key)));
                }
                continue;
            }
            Err(reason) => (None, Some(reason)),
        };
        for key in keys {
            let entry = CachedBanner {
                fetched: now,
                sha256: digest.clone(),
                made: made.clone(),
                reason: reason.clone(),
            };
            kept.insert(key, entry);
        }
    }
    let index = Index {
        version: VERSION,
        banners: kept,
    };
    if let Err(reason) = index.write(cache) {
        reasons.push(reason);
    }
    let banners = banners_of(&index, cache, &mut reasons);
    (banners, reasons)
}

/// A banner read whose bytes the cache has no copies of.
struct Read {
    /// Its address.
    key: String,
    /// The SHA-256 of its bytes, in hex.
    digest: String,
    body: Vec<u8>,
}

/// What is read: the cache's entries still fresh, kept; each other address read, and kept
/// again where its bytes are those the cache has copies of, else returned with its digest
/// and its bytes, to be made into copies. What cannot be read is a reason.
fn read_changed(
    addresses: &[Url],
    index: &Index,
    cache: &Path,
    now: u64,
    reasons: &mut Vec<String>,
) -> (BTreeMap<String, CachedBanner>, Vec<Read>) {
    // Made at the first banner to read: an unchanged rebuild starts no client.
    let mut reader: Option<Result<Reader, String>> = None;
    let started = Instant::now();
    let mut kept = BTreeMap::new();
    let mut to_make = Vec::new();
    let unique: BTreeSet<&Url> = addresses.iter().collect();
    for address in unique {
        let key = address.as_str().to_owned();
        let cached = index.banners.get(&key).filter(|e| e.usable(cache));
        if let Some(entry) = cached.filter(|e| now.saturating_sub(e.fetched) < FRESH.as_secs()) {
            kept.insert(key, entry.clone());
            continue;
        }
        let body = if !may_read(address) {
            Err(format!("{}: {}", shown_url(address), read_over(WHAT)))
        } else if started.elapsed() > ALL_TIMEOUT {
            Err(format!(
                "{} was not read: reading the banners took more than {} s together",
                shown_url(address),
                ALL_TIMEOUT.as_secs()
            ))
        } else {
            let limits = Limits {
                max_bytes: MAX_BYTES,
                timeout: TIMEOUT,
            };
            match reader.get_or_insert_with(|| Reader::new(WHAT, limits)) {
                Ok(reader) => read(reader, address),
                Err(reason) => Err(reason.clone()),
            }
        };
        match body {
            Ok(body) => {
                let digest = hex(ring::digest::digest(&ring::digest::SHA256, &body).as_ref());
                // Copies of these bytes made for this address, or for another.
                let same = |e: &&CachedBanner| e.sha256 == digest;
                let made_before = cached
                    .filter(same)
                    .or_else(|| (index.banners.values()).find(|e| same(e) && e.usable(cache)));
                match made_before {
                    Some(entry) => {
                        let entry = CachedBanner {
                            fetched: now,
                            ..entry.clone()
                        };
                        kept.insert(key, entry);
                    }
                    None => to_make.push(Read { key, digest, body }),
                }
            }
            Err(reason) => reasons.push(reason),
        }
    }
    (kept, to_make)
}

/// One banner's body; a 404 is a reason like any other failure.
fn read(reader: &Reader, address: &Url) -> Result<Vec<u8>, String> {
    reader
        .get_all(std::slice::from_ref(address))?
        .pop()
        .flatten()
        .ok_or_else(|| format!("{} answered 404", shown_url(address)))
}

/// What the pages show and the build publishes, from the cache; a banner that could not be
/// decoded, or whose copies cannot be read back, is a reason.
fn banners_of(index: &Index, cache: &Path, reasons: &mut Vec<String>) -> Banners {
    let mut banners = Banners::default();
    for (address, entry) in &index.banners {
        let Some(made) = &entry.made else {
            let why = entry.reason.as_deref().unwrap_or("it could not be decoded");
            reasons.push(format!("{}: {why}", shown_str(address)));
            continue;
        };
        let mut files = Vec::new();
        for copy in &made.copies {
            match std::fs::read(cache.join(&copy.file)) {
                Ok(bytes) => files.push((format!("{OUTPUT_FOLDER}/{}", copy.file), bytes)),
                Err(e) => {
                    reasons.push(format!(
                        "{}: could not read its copy {} in the cache: {e}",
                        shown_str(address),
                        cache.join(&copy.file).display()
                    ));
                    break;
                }
            }
        }
        if files.len() != made.copies.len() {
            continue;
        }
        let list = |webp: bool| -> Vec<BannerCopy> {
            (made.copies.iter())
                .filter(|c| (c.format == Format::Webp) == webp)
                .map(|c| BannerCopy {
                    path: format!("{OUTPUT_FOLDER}/{}", c.file),
                    width: c.width,
                })
                .collect()
        };
        let Some(widest) = (made.copies.iter())
            .filter(|c| c.format != Format::Webp)
            .max_by_key(|c| c.width)
        else {
            continue;
        };
        let banner = LocalBanner {
            width: widest.width,
            height: widest.height,
            src: format!("{OUTPUT_FOLDER}/{}", widest.file),
            fallback_type: widest.format.media_type(),
            fallback: list(false),
            webp: list(true),
        };
        for file in files {
            if !banners.files.iter().any(|(path, _)| *path == file.0) {
                banners.files.push(file);
            }
        }
        banners.by_address.insert(address.clone(), Arc::new(banner));
    }
    banners
}

/// An address from the cache's index, as a message shows it.
fn shown_str(address: &str) -> String {
    Url::parse(address).map_or_else(
        |_| without_userinfo(address).into_owned(),
        |url| shown_url(&url),
    )
}

/// The copies written into the cache, named by the source's digest and their width (the same
/// bytes make the same names, so a file is never replaced by another).
fn store(cache: &Path, digest: &str, made: &images::ImageCopies) -> Result<Vec<CopyEntry>, String> {
    let mut entries = Vec::new();
    for copy in &made.copies {
        let file = format!(
            "{}-{}.{}",
            &digest[..16],
            copy.width,
            copy.format.extension()
        );
        write_whole(&cache.join(&file), &copy.bytes)?;
        entries.push(CopyEntry {
            file,
            width: copy.width,
            height: copy.height,
            format: copy.format,
        });
    }
    Ok(entries)
}

/// A file written beside its place and renamed into it, so that a stopped build leaves
/// either the whole file or none.
fn write_whole(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let failed = |e: std::io::Error| {
        format!(
            "could not write the banner cache's {}: {e}; check that its folder can be written, or set banners = \"remote\" in vatcar-site.toml",
            path.display()
        )
    };
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder).map_err(failed)?;
    }
    let partial = path.with_extension("partial");
    std::fs::write(&partial, bytes).map_err(failed)?;
    std::fs::rename(&partial, path).map_err(failed)
}

fn now_seconds() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The cache's index: what each address held when last read, and what was made of it.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Index {
    version: u32,
    banners: BTreeMap<String, CachedBanner>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct CachedBanner {
    /// When the address was last read, in seconds since 1970.
    fetched: u64,
    /// The SHA-256 of what it held, in hex.
    sha256: String,
    /// Its copies; none when it could not be decoded ([`CachedBanner::reason`]).
    made: Option<MadeEntry>,
    reason: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct MadeEntry {
    width: u32,
    height: u32,
    copies: Vec<CopyEntry>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct CopyEntry {
    file: String,
    width: u32,
    height: u32,
    format: Format,
}

impl CachedBanner {
    /// Whether the entry can be used as it is: its copies are all in the cache, under names
    /// the cache would give them (an index edited by hand names no other file).
    fn usable(&self, cache: &Path) -> bool {
        self.made.as_ref().is_none_or(|made| {
            made.copies
                .iter()
                .all(|copy| is_copy_name(&copy.file) && cache.join(&copy.file).is_file())
        })
    }
}

/// A name [`store`] gives: hex digits, a dash, a width, an extension; no path.
fn is_copy_name(name: &str) -> bool {
    name.len() < 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
        && !name.starts_with('.')
}

impl Index {
    /// The cache's index, or an empty one where there is none or it cannot be read (the
    /// banners are then read again).
    fn read(cache: &Path) -> Self {
        std::fs::read(cache.join(INDEX))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Index>(&bytes).ok())
            .filter(|index| index.version == VERSION)
            .unwrap_or_default()
    }

    /// The index written, and the copies it no longer names removed: the cache holds the
    /// banners of the last build only.
    fn write(&self, cache: &Path) -> Result<(), String> {
        let json = serde_json::to_vec_pretty(self).expect("the index serializes");
        write_whole(&cache.join(INDEX), &json)?;
        let named: BTreeSet<&str> = (self.banners.values())
            .filter_map(|e| e.made.as_ref())
            .flat_map(|m| m.copies.iter().map(|c| c.file.as_str()))
            .collect();
        if let Ok(entries) = std::fs::read_dir(cache) {
            for entry in entries.flatten() {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                if name != INDEX && is_copy_name(&name) && !named.contains(name.as_ref()) {
                    let _ = std::fs::remove_file(entry.path());
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_is_beside_the_output_folder() {
        assert_eq!(
            cache_folder(Path::new("site/public")),
            Path::new("site/.vatcar-site-cache/banners")
        );
        assert_eq!(
            cache_folder(Path::new("public")),
            Path::new("./.vatcar-site-cache/banners")
        );
    }

    #[test]
    fn only_the_names_the_cache_gives_are_read_or_removed() {
        assert!(is_copy_name("0123456789abcdef-480.webp"));
        for no in ["../x", "/etc/passwd", ".hidden", "a/b", &"a".repeat(80)] {
            assert!(!is_copy_name(no), "{no}");
        }
    }
}
