//! Snapshots: the raw response bodies of a fetch, saved as files so that a build can run
//! again later without the network, and the demo snapshot embedded in the binary.
//!
//! A snapshot folder holds one file per endpoint (named by [`Endpoint::snapshot_file`]) with
//! the body exactly as the server sent it. A body that holds the API key is never saved (see
//! `cmd::build::save_snapshot`). `snapshot.json` records when and from where it was fetched;
//! it holds no key.
//!
//! The events' banners, as `fetch` read them, are kept beside the bodies: `banners.json`
//! names each banner's address and its file, `banners/<SHA-256 of its bytes>`, so that a build
//! from the snapshot serves them with no network ([`Snapshot::banners`]).

use crate::fetch::banners::sha256_hex;
use crate::fetch::endpoint::Endpoint;
use anyhow::{Context, Result, bail};
use chrono::{DateTime, Utc};
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

pub const MANIFEST: &str = "snapshot.json";
/// The list of the banners a snapshot holds: each address, and its file under `banners/`.
pub const BANNERS: &str = "banners.json";

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    pub fetched_at: Option<DateTime<Utc>>,
    pub base_url: Option<String>,
    /// File name → body.
    bodies: BTreeMap<String, Vec<u8>>,
    /// Where it came from, for error messages.
    origin: String,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Manifest {
    format: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fetched_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    base_url: Option<String>,
    files: BTreeMap<String, String>,
}

const FORMAT: &str = "vatcar-site snapshot 1";

macro_rules! demo_files {
    ($($name:literal),* $(,)?) => {
        [$(($name, include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/demo/", $name)).as_slice())),*]
    };
}

/// The sample data shipped in the binary: a fictional Caribbean facility, and a sample of
/// the ATC bookings list for its live page.
const DEMO: [(&str, &[u8]); 12] = demo_files![
    "banners.json",
    "bookings.json",
    "facility-roster.json",
    "facility-events.json",
    "facility-documents.json",
    "division-events.json",
    "user-1590318.json",
    "notes-1590318.json",
    "user-1612745.json",
    "notes-1612745.json",
    "user-1547761.json",
    "notes-1547761.json",
];

/// The demo's own banners (small flat graphics made for it), by file name under
/// `demo/banners/`; `demo/banners.json` names the demo events' addresses each stands for.
const DEMO_BANNERS: &[(&str, &[u8])] =
    &include!(concat!(env!("CARGO_MANIFEST_DIR"), "/demo/banners/list.rs"));

/// The demo members' ATC sessions, as a build keeps them (data/activity.json), made up by
/// `demo/activity/make.py`: the demo reads no one's sessions from VATSIM.
pub const DEMO_ACTIVITY: &[u8] =
    include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/demo/activity.json"));

/// When the demo data was "fetched": demo builds use it as their build time, so that the
/// sample's upcoming events stay upcoming.
pub const DEMO_FETCHED_AT: &str = "2026-11-20T12:00:00Z";

/// The demo facility's callsign prefixes and airports, for its live page where `[live]` names
/// none: its roster names the facility by a bare name, with no code to take them from.
pub const DEMO_CALLSIGNS: [&str; 3] = ["TJSJ", "TJZS", "TJBQ"];
pub const DEMO_AIRPORTS: [&str; 2] = ["TJSJ", "TJBQ"];

impl Snapshot {
    pub fn new(fetched_at: DateTime<Utc>, base_url: &str) -> Self {
        Self {
            fetched_at: Some(fetched_at),
            base_url: Some(base_url.to_owned()),
            bodies: BTreeMap::new(),
            origin: "the fetched data".into(),
        }
    }

    pub fn demo() -> Self {
        Self {
            fetched_at: DateTime::parse_from_rfc3339(DEMO_FETCHED_AT)
                .ok()
                .map(|t| t.with_timezone(&Utc)),
            base_url: Some(crate::fetch::client::DEFAULT_BASE_URL.into()),
            bodies: (DEMO.iter())
                .map(|(name, body)| (name.to_string(), body.to_vec()))
                .chain(
                    (DEMO_BANNERS.iter())
                        .map(|(name, body)| (format!("banners/{name}"), body.to_vec())),
                )
                .collect(),
            origin: "the built-in demo data".into(),
        }
    }

    pub fn insert(&mut self, endpoint: Endpoint, body: Vec<u8>) {
        self.bodies.insert(endpoint.snapshot_file(), body);
    }

    pub fn body(&self, endpoint: Endpoint) -> Result<&[u8]> {
        self.bodies
            .get(&endpoint.snapshot_file())
            .map(Vec::as_slice)
            .with_context(|| {
                let mut message = format!(
                    "{} has no {} (the body of {endpoint})",
                    self.origin,
                    endpoint.snapshot_file()
                );
                if let Endpoint::User(_) | Endpoint::UserNotes(_) = endpoint {
                    message.push_str(&self.students_held());
                }
                message
            })
    }

    /// The CIDs whose user record this snapshot holds, said so that a mistyped CID is seen
    /// at once: "; it holds CIDs 1547761, 1590318 and 1612745".
    fn students_held(&self) -> String {
        let mut cids: Vec<u64> = (self.bodies.keys())
            .filter_map(|name| match Endpoint::of_snapshot_file(name) {
                Some(Endpoint::User(cid)) => Some(cid),
                _ => None,
            })
            .collect();
        cids.sort_unstable();
        let cids: Vec<String> = cids.iter().map(u64::to_string).collect();
        match cids.as_slice() {
            [] => "; it holds no student (`vatcar-site fetch --cid N` saves one)".into(),
            [one] => format!("; it holds CID {one}"),
            [rest @ .., last] => format!("; it holds CIDs {} and {last}", rest.join(", ")),
        }
    }

    /// A file that is no endpoint's body (the bookings list), by name.
    pub fn file(&self, name: &str) -> Option<&[u8]> {
        self.bodies.get(name).map(Vec::as_slice)
    }

    /// Adds a file that is no endpoint's body (the bookings list).
    pub fn insert_file(&mut self, name: &str, body: Vec<u8>) {
        self.bodies.insert(name.to_owned(), body);
    }

    /// Where it came from, for messages: "snapshot folder snap", "the built-in demo data".
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The banners it holds, by address: those `banners.json` names whose file is here and
    /// holds the bytes its name says (a file edited since is left out, and read again by the
    /// next fetch).
    pub fn banners(&self) -> BTreeMap<String, &[u8]> {
        let Some(list) = self.bodies.get(BANNERS) else {
            return BTreeMap::new();
        };
        let list: BTreeMap<String, String> = serde_json::from_slice(list).unwrap_or_default();
        (list.into_iter())
            .filter_map(|(address, file)| {
                let body = self.bodies.get(&file)?;
                let digest = file.strip_prefix("banners/")?;
                (sha256_hex(body) == digest).then_some((address, body.as_slice()))
            })
            .collect()
    }

    /// Whether it lists banners at all (`fetch` with `banners = "local"` saves the list).
    pub fn holds_banners(&self) -> bool {
        self.bodies.contains_key(BANNERS)
    }

    /// Adds the banners read at each address, listed in `banners.json`.
    pub fn insert_banners(&mut self, banners: Vec<(String, Vec<u8>)>) {
        let mut list = BTreeMap::new();
        for (address, body) in banners {
            let file = format!("banners/{}", sha256_hex(&body));
            list.insert(address, file.clone());
            self.bodies.insert(file, body);
        }
        let mut json = serde_json::to_vec_pretty(&list).expect("plain data");
        json.push(b'\n');
        self.bodies.insert(BANNERS.to_owned(), json);
    }

    /// Reads a snapshot folder. A folder without `snapshot.json` (made by hand, say) is read
    /// too; its fetch time is then unknown.
    pub fn read_dir(dir: &Path) -> Result<Self> {
        if !dir.is_dir() {
            bail!("snapshot folder {} does not exist", dir.display());
        }
        let mut snapshot = Self {
            origin: format!("snapshot folder {}", dir.display()),
            ..Self::default()
        };
        read_manifest(dir, &mut snapshot)?;
        for entry in
            fs::read_dir(dir).with_context(|| format!("could not read {}", dir.display()))?
        {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == MANIFEST || name.starts_with('.') || !name.ends_with(".json") {
                continue;
            }
            let body = read_capped(&entry.path(), MAX_FILE_BYTES)?;
            snapshot.bodies.insert(name, body);
        }
        snapshot.read_banners(dir)?;
        Ok(snapshot)
    }

    /// The banner files `banners.json` names, each read within the cap on a banner; a name that
    /// is not a banner file's, or a file that is missing, is left out (the build warns of the
    /// banner), never read.
    fn read_banners(&mut self, dir: &Path) -> Result<()> {
        let Some(list) = self.bodies.get(BANNERS) else {
            return Ok(());
        };
        let list: BTreeMap<String, String> = serde_json::from_slice(list)
            .with_context(|| format!("{} is not a list of banners", dir.join(BANNERS).display()))?;
        for file in list.into_values() {
            let Some(digest) = file.strip_prefix("banners/") else {
                continue;
            };
            let is_name = digest.len() == 64 && digest.bytes().all(|b| b.is_ascii_hexdigit());
            let path = dir.join("banners").join(digest);
            if !is_name || self.bodies.contains_key(&file) || fs::symlink_metadata(&path).is_err() {
                continue;
            }
            let body = read_capped(&path, crate::fetch::banners::MAX_BYTES)?;
            self.bodies.insert(file, body);
        }
        Ok(())
    }

    /// The files of this snapshot, manifest included, by name: what a snapshot folder holds.
    pub fn files(&self) -> Vec<(String, Vec<u8>)> {
        let manifest = Manifest {
            format: FORMAT.into(),
            fetched_at: self
                .fetched_at
                .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
            base_url: self.base_url.clone(),
            files: self
                .bodies
                .keys()
                .map(|name| {
                    let endpoint = Endpoint::of_snapshot_file(name);
                    (name.clone(), endpoint.map(|e| e.path()).unwrap_or_default())
                })
                .collect(),
        };
        let mut manifest_json = serde_json::to_vec_pretty(&manifest).expect("plain data");
        manifest_json.push(b'\n');
        self.bodies
            .iter()
            .map(|(name, body)| (name.clone(), body.clone()))
            .chain([(MANIFEST.to_owned(), manifest_json)])
            .collect()
    }
}

/// The most a snapshot file may hold: 512 MiB, eight times what a body fetched over HTTP may
/// (`client::MAX_BODY_BYTES`). That cap guards against a server that sends without end; a
/// snapshot is a file on the webmaster's own disk, whose size is known before it is read, so
/// its cap only catches a file that cannot be a body (a disk image named `x.json`) and lets a
/// large facility's saved data, or the benchmark's 50,000 events, be built. A body of 512 MiB
/// would need a few GiB of memory to build.
pub const MAX_FILE_BYTES: u64 = 512 * 1024 * 1024;

/// The manifest is a few lines; a large one is not a manifest.
const MAX_MANIFEST_BYTES: u64 = 1024 * 1024;

/// A snapshot file's bytes, refusing what is not a regular file (a link to `/dev/zero` or a
/// pipe would never end) and anything over `limit` bytes. A symbolic link to a regular file
/// is followed.
fn read_capped(path: &Path, limit: u64) -> Result<Vec<u8>> {
    use std::io::Read;
    let link =
        fs::symlink_metadata(path).with_context(|| format!("could not read {}", path.display()))?;
    let meta = fs::metadata(path).with_context(|| {
        format!(
            "could not read {}: it is a symbolic link to something that does not exist",
            path.display()
        )
    })?;
    if !meta.is_file() {
        let via = if link.file_type().is_symlink() {
            "a symbolic link to "
        } else {
            ""
        };
        bail!(
            "{} is {via}{}, not a regular file; a snapshot holds only files",
            path.display(),
            crate::plain_files::kind_of(&meta.file_type())
        );
    }
    let too_large = || {
        anyhow::anyhow!(
            "{} is larger than {} MiB, the most this tool reads of one snapshot file; a snapshot \
             holds each endpoint's response body, so check that this file is one",
            path.display(),
            limit / (1024 * 1024)
        )
    };
    // Refused before reading: there is no use in reading it to refuse it.
    if meta.len() > limit {
        return Err(too_large());
    }
    let file =
        fs::File::open(path).with_context(|| format!("could not read {}", path.display()))?;
    // Sized from the start: grown by doubling, a large body would be copied several times
    // and its buffer left up to twice its size.
    let mut bytes = Vec::with_capacity(meta.len().min(limit + 1) as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("could not read {}", path.display()))?;
    // It may have grown since its size was read.
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

/// What a snapshot folder's `snapshot.json` says, checked, set in `snapshot`: when it was
/// fetched and from where. Without the file, both stay unknown.
fn read_manifest(dir: &Path, snapshot: &mut Snapshot) -> Result<()> {
    let manifest_path = dir.join(MANIFEST);
    if fs::symlink_metadata(&manifest_path).is_err() {
        return Ok(());
    }
    let bytes = read_capped(&manifest_path, MAX_MANIFEST_BYTES)?;
    let manifest: Manifest = serde_json::from_slice(&bytes)
        .with_context(|| format!("{} is not a snapshot manifest", manifest_path.display()))?;
    if manifest.format != FORMAT {
        bail!(
            "{} has format {:?}; this version reads {FORMAT:?}",
            manifest_path.display(),
            manifest.format
        );
    }
    snapshot.fetched_at = (manifest.fetched_at.as_deref())
        .map(|text| {
            (DateTime::parse_from_rfc3339(text).map(|time| time.to_utc()))
                .with_context(|| format!("{}: bad fetched_at {text:?}", manifest_path.display()))
        })
        .transpose()?;
    snapshot.base_url = manifest.base_url;
    Ok(())
}

/// The base URL a snapshot folder was fetched from, reading only its manifest.
pub fn base_url_of(dir: &Path) -> Result<Option<String>> {
    let mut snapshot = Snapshot::default();
    read_manifest(dir, &mut snapshot)?;
    Ok(snapshot.base_url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_has_every_site_endpoint() {
        let demo = Snapshot::demo();
        for endpoint in Endpoint::SITE {
            assert!(demo.body(endpoint).is_ok(), "{endpoint}");
        }
        assert!(demo.fetched_at.is_some());
    }

    #[test]
    fn written_snapshot_reads_back_identically() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("snap");
        let demo = Snapshot::demo();
        fs::create_dir_all(&dir).unwrap();
        for (name, bytes) in demo.files() {
            let path = dir.join(name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, bytes).unwrap();
        }
        let read = Snapshot::read_dir(&dir).unwrap();
        assert_eq!(read.bodies, demo.bodies);
        // The demo's banners, one for each address its events name, read back too.
        assert_eq!(read.banners().len(), 13);
        assert_eq!(read.banners(), demo.banners());
        assert_eq!(read.fetched_at, demo.fetched_at);
        assert_eq!(read.base_url, demo.base_url);
        let manifest = fs::read_to_string(dir.join(MANIFEST)).unwrap();
        assert!(manifest.contains("\"facility-roster.json\": \"/api/v2/facility/roster\""));
        assert!(manifest.contains("\"notes-1590318.json\": \"/api/v2/user/1590318/notes\""));
    }

    #[test]
    #[cfg(unix)]
    fn what_is_not_a_file_is_named_and_nothing_reads_forever() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        fs::write(dir.join("elsewhere.txt"), b"{\"data\": []}").unwrap();
        std::os::unix::fs::symlink(dir.join("elsewhere.txt"), dir.join("division-events.json"))
            .unwrap();
        let read = Snapshot::read_dir(dir).unwrap();
        assert_eq!(
            read.body(Endpoint::DivisionEvents).unwrap(),
            b"{\"data\": []}"
        );

        std::os::unix::fs::symlink("/dev/zero", dir.join("facility-events.json")).unwrap();
        let error = format!("{:#}", Snapshot::read_dir(dir).unwrap_err());
        assert!(
            error.ends_with("facility-events.json is a symbolic link to a character device, not a regular file; a snapshot holds only files"),
            "{error}"
        );
        fs::remove_file(dir.join("facility-events.json")).unwrap();

        std::os::unix::fs::symlink("/dev/zero", dir.join(MANIFEST)).unwrap();
        let error = format!("{:#}", Snapshot::read_dir(dir).unwrap_err());
        assert!(
            error.contains("snapshot.json is a symbolic link to a character device"),
            "{error}"
        );
        fs::remove_file(dir.join(MANIFEST)).unwrap();

        std::os::unix::fs::symlink(dir.join("gone.json"), dir.join("facility-roster.json"))
            .unwrap();
        let error = format!("{:#}", Snapshot::read_dir(dir).unwrap_err());
        assert!(
            error.contains("symbolic link to something that does not exist"),
            "{error}"
        );
    }

    #[test]
    fn a_body_over_the_cap_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("big.json");
        fs::write(&path, vec![b' '; 2048]).unwrap();
        assert_eq!(read_capped(&path, 2048).unwrap().len(), 2048);
        let error = read_capped(&path, 1024).unwrap_err().to_string();
        assert!(error.contains("is larger than"), "{error}");
    }

    #[test]
    fn a_missing_body_is_named() {
        let tmp = tempfile::tempdir().unwrap();
        let error = Snapshot::read_dir(tmp.path())
            .unwrap()
            .body(Endpoint::DivisionEvents)
            .unwrap_err()
            .to_string();
        assert!(error.contains("division-events.json"), "{error}");
        assert!(error.contains("GET /api/v2/division/events"), "{error}");
    }
}
