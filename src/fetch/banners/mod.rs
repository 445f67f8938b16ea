//! The events' banners, served with the site (`banners = "local"`, the default): each
//! banner's address read at build time as a public file ([`super::public`]: no key, https or
//! http on this machine only, after every redirect too, with a size cap and a time limit),
//! decoded and copied at a few widths ([`crate::images`]), the copies handed to the build to
//! publish under `banners/`.
//!
//! Banners are read a few at a time ([`AT_ONCE`]), and each is decoded as it arrives, on the
//! build's cores; a body is dropped once copied, and no more than [`AT_ONCE`] are held at
//! once, read or being copied, whatever the number of banners. Everything together ends by
//! [`DEADLINE`]. A host that could not be reached (a name that does not resolve, a refused
//! connection) is not asked again in the same build.
//!
//! A cache beside the output folder (never inside it, so never published; [`cache`]) keeps
//! each banner's copies by its address and its content: an address read less than [`FRESH`]
//! ago is not read again, one that failed less than [`FAILED_FRESH`] ago is not asked again,
//! and one read again whose bytes are unchanged is not decoded again. An unchanged rebuild
//! makes no request and encodes nothing.
//!
//! A banner that cannot be served is a reason, never an error: the caller warns once.

mod cache;
mod reads;

use super::public::{https_rule, may_read};
use crate::images::{self, Format};
use crate::secret::Secrets;
use cache::{BannerState, Cache, CachedBanner, CachedCopy, Index, MadeCopies};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use url::Url;

pub use crate::banner_copies::{BannerCopy, Banners, LocalBanner, OUTPUT_FOLDER};
pub use cache::{CACHE_FOLDER, real_folder, sha256_hex};
use reads::read_and_copy;
pub use reads::read_for_snapshot;

/// The largest banner read: the API's are PNGs of a few hundred KiB.
pub const MAX_BYTES: u64 = 8 * 1024 * 1024;
/// How long reading one banner may take.
pub const TIMEOUT: Duration = Duration::from_secs(10);
/// How long reading and copying every banner may take together; those left are not served.
pub const DEADLINE: Duration = Duration::from_secs(30);
/// How many banners are read, or held to be copied, at once: enough to hide a slow host's
/// latency, few enough that their bodies (8 MiB at most each) stay small beside the build.
pub const AT_ONCE: usize = 4;
/// How long a banner read is used without asking its host again: a facility that replaces
/// the file at the same address sees the new one within a day.
pub const FRESH: Duration = Duration::from_secs(24 * 60 * 60);
/// How long a banner that could not be read is not asked for again: `serve`'s rebuilds and a
/// webmaster's quick ones do not wait on a dead host each time, and a host back up is read
/// within the hour.
pub const FAILED_FRESH: Duration = Duration::from_secs(60 * 60);
/// What a banner is called in messages.
const WHAT: &str = "an event banner";

/// A banner that is not served with the site, and why.
#[derive(Debug)]
pub struct Unserved {
    pub address: Url,
    pub reason: String,
}

/// What the banner stage did: the banners served, those that were not, the cache's own
/// trouble if it could not be used, and how many were read, taken from the cache, or failed.
#[derive(Debug, Default)]
pub struct Prepared {
    pub banners: Banners,
    pub unserved: Vec<Unserved>,
    pub cache_refused: Option<String>,
    pub read: usize,
    pub reused: usize,
}

/// Where banners' bytes come from.
#[derive(Clone, Copy)]
pub enum BannerBodies<'a> {
    /// Their hosts, over the network.
    Hosts,
    /// A snapshot's (or the demo's), by address: no network.
    Saved(&'a BTreeMap<String, &'a [u8]>),
}

/// Where the cache is for an output folder: `.vatcar-site-cache/banners/` beside it.
pub fn cache_folder(output: &Path) -> PathBuf {
    let beside = match output.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    beside.join(CACHE_FOLDER).join("banners")
}

/// Told how many banners are read now, and of each as its copies are made: a progress bar.
pub trait Observer: Sync {
    fn reading(&self, count: usize);
    fn copied(&self);
}

/// No one to tell.
impl Observer for () {
    fn reading(&self, _: usize) {}
    fn copied(&self) {}
}

/// The banners at `addresses`, from the cache in `cache_folder` or read now from `bodies`. An
/// address that holds one of `secrets` is neither read (which would send it to the banner's
/// host) nor kept.
pub fn prepare(
    addresses: &[Url],
    cache_folder: &Path,
    secrets: &Secrets,
    bodies: BannerBodies,
    observer: &dyn Observer,
) -> Prepared {
    let mut prepared = Prepared::default();
    let cache = Cache::open(cache_folder)
        .map_err(|refused| prepared.cache_refused = Some(refused))
        .ok();
    let index = cache.as_ref().map(Cache::read_index).unwrap_or_default();
    let now = (SystemTime::now().duration_since(UNIX_EPOCH)).map_or(0, |since| since.as_secs());
    let mut outcomes: Vec<(Url, Outcome)> = Vec::new();
    let mut to_read = Vec::new();
    let unique: BTreeSet<&Url> = addresses.iter().collect();
    for address in unique {
        let outcome = match refusal(address, secrets) {
            Some(reason) => Outcome::Unserved {
                reason,
                entry: None,
            },
            None => {
                // Saved bytes are taken as they are now (unchanged ones are not copied again):
                // the cache's by time are for the network.
                let entry = (index.banners.get(address.as_str()))
                    .filter(|_| matches!(bodies, BannerBodies::Hosts));
                match entry.and_then(|entry| cached(cache.as_ref(), entry, now)) {
                    Some(outcome) => outcome,
                    None => {
                        to_read.push(address.clone());
                        continue;
                    }
                }
            }
        };
        if let Outcome::Served(..) = outcome {
            prepared.reused += 1;
        }
        outcomes.push((address.clone(), outcome));
    }
    if !to_read.is_empty() {
        prepared.read = to_read.len();
        observer.reading(to_read.len());
        let known = known_sources(&index, cache.as_ref());
        let arrived = match bodies {
            BannerBodies::Hosts => read_and_copy(&to_read, known, observer, false),
            BannerBodies::Saved(saved) => copy_saved(&to_read, saved, known, observer),
        };
        let settled = settle(arrived, &index, cache.as_ref(), now, &mut prepared);
        outcomes.extend(to_read.into_iter().zip(settled));
    }
    let mut kept = BTreeMap::new();
    let mut served = Vec::new();
    for (address, outcome) in outcomes {
        match outcome {
            Outcome::Served(entry, files) => {
                kept.insert(address.as_str().to_owned(), entry.clone());
                served.push((address, entry, files));
            }
            Outcome::Unserved { reason, entry } => {
                if let Some(entry) = entry {
                    kept.insert(address.as_str().to_owned(), entry);
                }
                prepared.unserved.push(Unserved { address, reason });
            }
        }
    }
    if let Some(cache) = &cache {
        let index = Index::new(kept);
        let json = serde_json::to_vec_pretty(&index).expect("the index serializes");
        // The addresses and reasons are the API's and the hosts': a secret in one keeps the
        // index from being written at all.
        let written = match secrets.found_in(&json) {
            Some(what) => Err(format!(
                "the banner cache's index would hold {what}; it was not written"
            )),
            None => cache.write_index(&json, &index),
        };
        if let Err(reason) = written {
            prepared.cache_refused = Some(reason);
        }
    }
    prepared.banners = banners_of(served);
    prepared.unserved.sort_by(|a, b| a.address.cmp(&b.address));
    prepared
}

/// Why `address` is not read, if it is not: it holds one of `secrets` (reading it would send
/// the secret to the banner's host), or it breaks [`may_read`]'s rule.
fn refusal(address: &Url, secrets: &Secrets) -> Option<String> {
    match secrets.found_in(address.as_str().as_bytes()) {
        Some(what) => Some(format!(
            "its address holds {what}, which vatcar-site sends to no other host"
        )),
        None => (!may_read(address)).then(|| https_rule(WHAT)),
    }
}

/// What the cache says of an address read before, or `None` to read it again (stale, or its
/// copies not what the cache made).
fn cached(cache: Option<&Cache>, entry: &CachedBanner, now: u64) -> Option<Outcome> {
    let age = now.saturating_sub(entry.read_at);
    let unserved = |reason: String| Outcome::Unserved {
        reason,
        entry: Some(entry.clone()),
    };
    match &entry.state {
        BannerState::Made(made) if age < FRESH.as_secs() => {
            let files = copies_of(cache?, made).ok()?;
            Some(Outcome::Served(entry.clone(), files))
        }
        BannerState::Undecodable { reason, .. } if age < FRESH.as_secs() => {
            Some(unserved(reason.clone()))
        }
        BannerState::Unread { reason } if age < FAILED_FRESH.as_secs() => Some(unserved(format!(
            "{reason} (at a build less than {} minutes ago; it is asked for again after that)",
            FAILED_FRESH.as_secs() / 60
        ))),
        _ => None,
    }
}

/// Each copy's bytes, read back and checked.
fn copies_of(cache: &Cache, made: &MadeCopies) -> Result<Vec<Vec<u8>>, String> {
    (made.copies.iter())
        .map(|copy| cache.read_copy(&made.source, copy))
        .collect()
}

/// What became of one banner read.
enum Arrived {
    /// Its bytes (their SHA-256) made into copies, or why not.
    Made(String, Result<images::ImageCopies, String>),
    /// Its bytes are those of copies the cache holds, or of another banner of this build.
    Same(String),
    /// Not read, or not copied: why.
    Failed { reason: String, remembered: bool },
    /// Its bytes, read for a snapshot to keep ([`read_for_snapshot`]).
    Read(Vec<u8>),
}

/// The sources the cache has copies of, checked: bytes read again unchanged are not decoded
/// again, whichever address they were read from before.
fn known_sources(index: &Index, cache: Option<&Cache>) -> HashSet<String> {
    (index.banners.values())
        .filter_map(|entry| match &entry.state {
            BannerState::Made(made) if cache.is_some_and(|c| copies_of(c, made).is_ok()) => {
                Some(made.source.clone())
            }
            BannerState::Undecodable { source, .. } => Some(source.clone()),
            _ => None,
        })
        .collect()
}

/// Each address's saved bytes copied (those the cache knows, and the second of the same,
/// taken as they are), on the build's cores.
fn copy_saved(
    addresses: &[Url],
    saved: &BTreeMap<String, &[u8]>,
    known: HashSet<String>,
    observer: &dyn Observer,
) -> Vec<Arrived> {
    let mut claimed = HashSet::new();
    let mut to_copy = Vec::new();
    let mut arrived: Vec<Option<Arrived>> = (addresses.iter())
        .enumerate()
        .map(|(n, address)| {
            let Some(body) = saved.get(address.as_str()) else {
                return Some(Arrived::Failed {
                    reason: "the snapshot holds no copy of it (`vatcar-site fetch` saves the banners its events name)".to_owned(),
                    remembered: false,
                });
            };
            let source = cache::sha256_hex(body);
            if known.contains(&source) || !claimed.insert(source.clone()) {
                return Some(Arrived::Same(source));
            }
            to_copy.push((n, source, *body));
            None
        })
        .collect();
    let made = crate::parallel::map_parallel(to_copy, |(n, source, body)| {
        let made = Arrived::Made(source, copies_of_body(body));
        observer.copied();
        Ok((n, made))
    });
    for (n, made) in made.unwrap_or_default() {
        arrived[n] = Some(made);
    }
    (arrived.into_iter())
        .map(|arrived| {
            arrived.unwrap_or(Arrived::Failed {
                reason: "its copies were not made".to_owned(),
                remembered: false,
            })
        })
        .collect()
}

/// The copies of a banner's bytes; a decoder's bug is this banner's failure, not the build's.
fn copies_of_body(body: &[u8]) -> Result<images::ImageCopies, String> {
    std::panic::catch_unwind(|| images::make_copies(body))
        .unwrap_or_else(|_| Err("the image could not be decoded (its decoder failed)".to_owned()))
}

/// What one banner read comes to: served (its entry in the cache's index, and its copies'
/// bytes), or not, and why (with the entry that remembers it, if it is to be remembered).
#[derive(Clone)]
enum Outcome {
    Served(CachedBanner, Vec<Vec<u8>>),
    Unserved {
        reason: String,
        entry: Option<CachedBanner>,
    },
}

/// What each banner read comes to, its copies written into the cache; a copy that cannot be
/// written is served all the same, and the cache's trouble said once.
fn settle(
    arrived: Vec<Arrived>,
    index: &Index,
    cache: Option<&Cache>,
    now: u64,
    prepared: &mut Prepared,
) -> Vec<Outcome> {
    let mut made_now: HashMap<String, Outcome> = HashMap::new();
    let arrived: Vec<Arrived> = (arrived.into_iter())
        .map(|arrived| match arrived {
            Arrived::Made(source, made) => {
                let outcome = match made {
                    Ok(made) => {
                        let (outcome, unwritten) = stored(&source, made, cache, now);
                        if let Some(reason) = unwritten {
                            prepared.cache_refused.get_or_insert(reason);
                        }
                        outcome
                    }
                    Err(reason) => Outcome::Unserved {
                        entry: Some(CachedBanner {
                            read_at: now,
                            state: BannerState::Undecodable {
                                source: source.clone(),
                                reason: cache::kept_reason(&reason),
                            },
                        }),
                        reason,
                    },
                };
                made_now.insert(source.clone(), outcome);
                Arrived::Same(source)
            }
            other => other,
        })
        .collect();
    (arrived.into_iter())
        .map(|arrived| match arrived {
            Arrived::Same(source) => (made_now.get(&source).cloned())
                .unwrap_or_else(|| from_index(&source, index, cache, now)),
            Arrived::Failed { reason, remembered } => Outcome::Unserved {
                entry: remembered.then(|| CachedBanner {
                    read_at: now,
                    state: BannerState::Unread {
                        reason: cache::kept_reason(&reason),
                    },
                }),
                reason,
            },
            Arrived::Made(..) | Arrived::Read(_) => unreachable!("made into Same above"),
        })
        .collect()
}

/// A banner's copies, written into the cache: served, and why the cache could not take them.
fn stored(
    source: &str,
    made: images::ImageCopies,
    cache: Option<&Cache>,
    now: u64,
) -> (Outcome, Option<String>) {
    let mut unwritten = None;
    let mut copies = Vec::with_capacity(made.copies.len());
    let mut files = Vec::with_capacity(made.copies.len());
    for encoded in made.copies {
        let copy = CachedCopy {
            width: encoded.width,
            height: encoded.height,
            format: encoded.format,
            sha256: cache::sha256_hex(&encoded.bytes),
        };
        if let (Some(cache), None) = (cache, &unwritten) {
            unwritten = cache.write_copy(source, &copy, &encoded.bytes).err();
        }
        copies.push(copy);
        files.push(encoded.bytes);
    }
    let made = MadeCopies {
        source: source.to_owned(),
        width: made.width,
        height: made.height,
        copies,
    };
    let entry = CachedBanner {
        read_at: now,
        state: BannerState::Made(made),
    };
    (Outcome::Served(entry, files), unwritten)
}

/// A banner whose bytes the cache already knows, as the cache has them.
fn from_index(source: &str, index: &Index, cache: Option<&Cache>, now: u64) -> Outcome {
    let known = (index.banners.values()).find(|entry| match &entry.state {
        BannerState::Made(made) => made.source == source,
        BannerState::Undecodable { source: s, .. } => s == source,
        BannerState::Unread { .. } => false,
    });
    let again = |entry: &CachedBanner| CachedBanner {
        read_at: now,
        state: entry.state.clone(),
    };
    (known.and_then(|entry| cached(cache, &again(entry), now))).unwrap_or_else(|| {
        Outcome::Unserved {
            reason: "its copies were not made".to_owned(),
            entry: None,
        }
    })
}

/// What the pages show and the build publishes: each banner served, its entry and its
/// copies' bytes.
fn banners_of(served: Vec<(Url, CachedBanner, Vec<Vec<u8>>)>) -> Banners {
    let mut banners = Banners::default();
    let mut published = HashSet::new();
    for (address, entry, files) in served {
        let BannerState::Made(made) = entry.state else {
            continue;
        };
        let path = |copy: &CachedCopy| format!("{OUTPUT_FOLDER}/{}", copy.file(&made.source));
        let list = |webp: bool| -> Vec<BannerCopy> {
            (made.copies.iter())
                .filter(|copy| (copy.format == Format::Webp) == webp)
                .map(|copy| BannerCopy {
                    path: path(copy),
                    width: copy.width,
                })
                .collect()
        };
        let Some(widest) = (made.copies.iter())
            .filter(|copy| copy.format != Format::Webp)
            .max_by_key(|copy| copy.width)
        else {
            continue;
        };
        let banner = LocalBanner {
            width: widest.width,
            height: widest.height,
            src: path(widest),
            fallback_type: widest.format.media_type(),
            fallback: list(false),
            webp: list(true),
        };
        for (copy, bytes) in made.copies.iter().zip(files) {
            if published.insert(path(copy)) {
                banners.files.push((path(copy), bytes));
            }
        }
        banners.insert(address.into(), banner);
    }
    banners
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
}
