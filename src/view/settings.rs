//! What the view is given beside the data: the webmaster's settings ([`crate::settings`], the
//! flags laid over them) and what the run decided.

use chrono::{DateTime, Utc};
use std::sync::Arc;
use url::Url;

pub use crate::settings::{
    DEFAULT_FEED_LIMIT, MenuEntry, MenuTarget, Sections, Settings, SiteFile,
};

/// What one build gives the view beside the settings.
#[derive(Clone, Debug)]
pub struct BuildInputs {
    /// The API's base URL, the one the data came from: relative document and image URLs are
    /// resolved against it.
    pub base_url: Url,
    /// The "now" that decides upcoming and recent.
    pub build_time: DateTime<Utc>,
    /// The words the view writes itself (dates, calendar names, titles), in the site's
    /// language.
    pub texts: Arc<super::Texts>,
    /// The previous build's state, to find what changed since; `None` on a first build (or
    /// when the previous one could not be read).
    pub previous: Option<Arc<crate::model::previous::Previous>>,
    /// Whose data makes this build, written into data/changes.json for the next.
    pub origin: crate::model::previous::Origin,
    /// The ATC bookings list, or why it could not be read; `None` with the live page off.
    pub bookings: Option<Arc<Result<crate::model::bookings::Bookings, String>>>,
    /// What is known of the members' ATC sessions; `None` with `[activity]` off.
    pub activity: Option<Arc<crate::model::activity::Activity>>,
    /// The banners served with the site, by the API's address; empty with
    /// `banners = "remote"` (the pages then show the API's addresses).
    pub banners: Arc<crate::banner_copies::Banners>,
    /// What the logo's file says of it, when a logo is set.
    pub logo: Option<LogoFile>,
}

/// What a logo's file says of it: its own size (for the `<img>`'s `width` and `height`, so
/// that the header keeps its room while it loads) and whether it brings its own ground.
#[derive(Clone, Copy, Debug, Default)]
pub struct LogoFile {
    pub size: Option<(u32, u32)>,
    /// A PNG, JPEG or WebP with no transparent pixel.
    pub opaque: bool,
}

impl LogoFile {
    /// The facts of a logo's bytes (an SVG's size from its root; its ground is not known).
    pub fn of(bytes: &[u8]) -> Self {
        Self {
            size: crate::images::natural_size(bytes),
            opaque: crate::images::is_opaque(bytes).unwrap_or(false),
        }
    }
}

/// How a feed names itself and how often clients should refresh it.
#[derive(Clone, Debug)]
pub struct FeedSettings {
    pub name: String,
    pub description: String,
    /// Refresh hint in minutes (REFRESH-INTERVAL and X-PUBLISHED-TTL).
    pub refresh_minutes: u32,
    /// What a feed with no events says in their place.
    pub empty: String,
}
