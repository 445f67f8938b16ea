//! VATSIM's ATC bookings list, raw: fetched from the bookings API at build time (it sends no
//! CORS header, so a visitor's browser cannot read it), or read back from a snapshot's
//! `bookings.json` (the demo has a sample of its own). `model::bookings` decodes it.
//!
//! The list is public: nothing is sent with the request, least of all the facility's API
//! key, which only [`super::client`] sends, and only to the API's host. A failure is a reason,
//! never an error: the build warns and says on the page that bookings are unavailable.

use super::public::Reader;
use super::snapshot::Snapshot;
use crate::secret::shown_url;
use std::time::Duration;
use url::Url;

/// The name of the list in a snapshot folder, beside the API's bodies.
pub const FILE: &str = "bookings.json";

/// The largest list read: the whole network's bookings for the days ahead are a few hundred
/// KiB.
pub const MAX_BYTES: u64 = 8 * 1024 * 1024;

/// How long reading the list may take, in all.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// What the list is called in messages.
const WHAT: &str = "the bookings list";

/// The list from the bookings API at `url`.
pub fn fetch(url: &Url) -> Result<Vec<u8>, String> {
    let reader = Reader::new(WHAT, MAX_BYTES, TIMEOUT)?;
    match reader.get_all(std::slice::from_ref(url))?.pop().flatten() {
        Some(body) => Ok(body),
        None => Err(format!("{} answered 404", shown_url(url))),
    }
}

/// The list a snapshot holds (the demo's sample, a snapshot folder's `bookings.json`, what
/// `serve` read when it started), or why there is none.
pub fn from_snapshot(snapshot: &Snapshot) -> Result<Vec<u8>, String> {
    match snapshot.file(FILE) {
        Some(body) if body.len() as u64 > MAX_BYTES => Err(super::public::too_large(
            &format!("{} in {}", FILE, snapshot.origin()),
            MAX_BYTES,
        )),
        Some(body) => Ok(body.to_vec()),
        None => Err(format!("{} holds no {FILE}", snapshot.origin())),
    }
}
