//! What a build reads beside the API's data, while that data is fetched: the previous build's
//! state (What's new compares with it) and VATSIM's ATC bookings list (the live
//! page). Both are public files read without the key, and both are optional: what cannot be
//! read is a warning, and the site is built without it.

use super::options::BuildOptions;
use crate::fetch::banners::Banners;
use crate::fetch::load::Source;
use crate::fetch::snapshot::Snapshot;
use crate::model::previous::{Origin, Previous};
use crate::settings::BannerSource;
use std::sync::Arc;
use std::thread::JoinHandle;

/// The previous build's state, for What's new, read while the data is fetched: from the
/// published site when `--previous` or `previous` names it, else from the output folder (for
/// the demo, from the demo's own day before). `serve` compares with none: its rebuilds would
/// otherwise compare with its own last rebuild, and a save without an edit would change the
/// site. Why there is none, if there should be one, is said by [`previous_or_warn`].
pub(super) fn read_previous_meanwhile(
    options: &BuildOptions,
) -> Option<JoinHandle<Result<Previous, String>>> {
    use crate::fetch::previous::{self, PreviousSource};
    let place = match (&options.settings.previous, &options.source) {
        (_, Source::Loaded(_)) => return None,
        (Some(url), _) => PreviousSource::Site(url.0.clone()),
        (None, Source::Demo) => PreviousSource::Demo,
        (None, _) => PreviousSource::Folder(options.output.clone()),
    };
    Some(std::thread::spawn(move || {
        previous::read(&place).and_then(|bodies| {
            crate::model::previous::decode_previous(&bodies.changes, bodies.roster.as_deref())
                .map_err(|reason| format!("{place}: {reason}"))
        })
    }))
}

/// The bookings list decoded, or why it could not be read.
pub(super) type ReadBookings = Arc<Result<crate::model::bookings::Bookings, String>>;

/// The ATC bookings list, fetched while the API's data is (from VATSIM's bookings API, never
/// with the facility's key): only for a build from the API with the live page on. Other
/// sources hold the list in their snapshot ([`bookings_or_warn`]).
pub(super) fn fetch_bookings_meanwhile(
    options: &BuildOptions,
) -> Option<JoinHandle<Result<Vec<u8>, String>>> {
    if !options.settings.sections.live
        || options.bookings.is_some()
        || !matches!(options.source, Source::Api(_))
    {
        return None;
    }
    let url = options.settings.live.bookings.url.clone();
    Some(std::thread::spawn(move || {
        crate::fetch::bookings::fetch(&url)
    }))
}

/// The bookings list, decoded, or why there is none (said in a warning that names what to
/// do, and on the live page); `None` with the live page off. A list fetched now that reads
/// goes into `snapshot` beside the API's answers, as it came, for a saved snapshot.
pub(super) fn bookings_or_warn(
    options: &BuildOptions,
    fetching: Option<JoinHandle<Result<Vec<u8>, String>>>,
    snapshot: &mut Snapshot,
) -> Option<ReadBookings> {
    if !options.settings.sections.live {
        return None;
    }
    let (body, fetched) = match (fetching, &options.bookings) {
        (_, Some(read)) => (read.as_ref().clone(), false),
        (Some(fetching), None) => (fetching.join().expect("fetching does not panic"), true),
        (None, None) => (crate::fetch::bookings::from_snapshot(snapshot), false),
    };
    let decoded = (body.as_ref().map_err(Clone::clone))
        .and_then(|body| crate::model::bookings::decode_bookings(body));
    // Only a list fetched now that reads goes into a saved snapshot.
    if let (true, Ok(body), Ok(_)) = (fetched, body, &decoded) {
        snapshot.insert_file(crate::fetch::bookings::FILE, body);
    }
    let what_to_do = match (&options.source, &options.bookings) {
        (Source::Api(_), _) | (_, Some(_)) => {
            "Check [live] bookings in vatcar-site.toml (or --bookings-url), or build again later"
        }
        _ => "`vatcar-site fetch` saves the list in a snapshot, beside the API's answers",
    };
    match &decoded {
        Ok(bookings) => {
            if let Some(first) = &bookings.first_unreadable {
                log::warn!(
                    "Live: {} of the bookings list's records could not be read and are left out (the first, {first}); the others are listed",
                    bookings.unreadable
                );
            }
        }
        Err(reason) => log::warn!(
            "Live: bookings are unavailable ({reason}); the site is built without them and the live page says so. {what_to_do}"
        ),
    }
    Some(Arc::new(decoded))
}

/// The previous build's state; a warning, once the data is in, when it could not be read or
/// was made from other data than this build's (`origin`).
pub(super) fn previous_or_warn(
    reading: Option<JoinHandle<Result<Previous, String>>>,
    origin: &Origin,
) -> Option<Arc<Previous>> {
    let read = reading?
        .join()
        .expect("reading the previous build does not panic");
    let read = read.and_then(|previous| match origin.differs_from(&previous.origin) {
        Some(reason) => Err(format!("the one found {reason}")),
        None => Ok(previous),
    });
    match read {
        Ok(previous) => Some(Arc::new(previous)),
        Err(reason) => {
            log::warn!(
                "What's new: no previous build to compare with ({reason}); built as a first build, which lists only the members who joined recently"
            );
            None
        }
    }
}

/// The events' banners served with the site (`banners = "local"`, the default): read (for a
/// build from the API), taken from the snapshot or the demo where it holds them, or from the
/// cache beside the output folder; those not served said in one warning, grouped by host,
/// with what their pages show instead.
pub(super) fn local_banners(
    options: &BuildOptions,
    data: &crate::model::SiteData,
    snapshot: &Snapshot,
    base_url: &url::Url,
    secrets: &crate::secret::Secrets,
    progress: &super::progress::Progress,
) -> Arc<Banners> {
    use crate::fetch::banners::{BannerBodies, Unserved};
    let addresses = banner_addresses(&options.settings, data, base_url);
    if options.settings.banners == BannerSource::Remote {
        // Shown from their addresses, which a page does over https only: the others are
        // said, not dropped in silence.
        let unshown: Vec<Unserved> = (addresses.into_iter())
            .filter(|a| crate::sanitize::links::safe_image(a.as_str(), base_url).is_none())
            .map(|address| Unserved {
                address,
                reason: "a page shows a banner from elsewhere over https only".to_owned(),
            })
            .collect();
        if let Some(warning) = unserved_warning(&unshown, base_url) {
            log::warn!("{warning}");
        }
        return Arc::default();
    }
    if addresses.is_empty() {
        return Arc::default();
    }
    let saved = snapshot.banners();
    let bodies = match options.source {
        Source::Api(_) => BannerBodies::Hosts,
        // A snapshot that holds no banners (saved before they were, or `serve`'s data, read
        // once from the API) shows the API's addresses, as with banners = "remote".
        _ if !snapshot.holds_banners() => return Arc::default(),
        _ => BannerBodies::Saved(&saved),
    };
    let cache = crate::fetch::banners::cache_folder(&options.output);
    let prepared = crate::fetch::banners::prepare(&addresses, &cache, secrets, bodies, progress);
    log::info!(
        "banners: {} read, {} from the cache, {} not served",
        prepared.read,
        prepared.reused,
        prepared.unserved.len()
    );
    if let Some(reason) = &prepared.cache_refused {
        log::warn!("Event banners: {reason}; this build's banners are not kept for the next");
    }
    if let Some(warning) = unserved_warning(&prepared.unserved, base_url) {
        log::warn!("{warning}");
    }
    Arc::new(prepared.banners)
}

/// The addresses of the banners the site's event pages show, as the view keys them.
pub(super) fn banner_addresses(
    settings: &crate::settings::Settings,
    data: &crate::model::SiteData,
    base_url: &url::Url,
) -> Vec<url::Url> {
    let sections = &settings.sections;
    let facility = data.facility_events.iter().filter(|_| sections.events);
    let division = data.division_events.iter().filter(|_| sections.division);
    facility
        .chain(division)
        .filter_map(|event| event.image_url.as_deref())
        .filter_map(|image_url| crate::view::banner_address(image_url, base_url))
        .filter_map(|address| url::Url::parse(&address).ok())
        .collect()
}

/// The one warning for the banners not served with the site, grouped by where they are, each
/// group saying what its pages show instead: the banner from its address where that is https
/// (as with `banners = "remote"`), else none.
pub(super) fn unserved_warning(
    unserved: &[crate::fetch::banners::Unserved],
    base_url: &url::Url,
) -> Option<String> {
    use crate::secret::shown_url;
    let mut by_origin: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    let mut shown_there = std::collections::BTreeMap::new();
    for banner in unserved {
        let origin = banner.address.origin().ascii_serialization();
        let path = &banner.address[url::Position::BeforePath..];
        // The reasons name the address whole; in its host's group, "it" is enough.
        let reason = banner.reason.replace(&shown_url(&banner.address), "it");
        by_origin
            .entry(origin.clone())
            .or_default()
            .push(format!("{path} ({reason})"));
        let remote = crate::sanitize::links::safe_image(banner.address.as_str(), base_url);
        shown_there.insert(origin, remote.is_some());
    }
    if by_origin.is_empty() {
        return None;
    }
    let groups: Vec<String> = (by_origin.iter())
        .map(|(origin, items)| {
            let instead = match (shown_there[origin], items.len()) {
                (true, 1) => format!("its page shows it from {origin}"),
                (true, _) => format!("their pages show them from {origin}"),
                (false, 1) => "its page shows no banner".to_owned(),
                (false, _) => "their pages show no banner".to_owned(),
            };
            format!("{origin}: {}; {instead}", items.join(", "))
        })
        .collect();
    let count = match unserved.len() {
        1 => "1 event banner is".to_owned(),
        n => format!("{n} event banners are"),
    };
    Some(format!(
        "{count} not served with the site: {}",
        groups.join(" · ")
    ))
}
