//! The event banners served with the site, as the pages name them: each banner's copies at a
//! few widths, by the address the API gave, and the files to publish. `fetch::banners` makes
//! them; the view shows them. A leaf, so that the view need not import a fetching stage.

use serde::Serialize;
use std::collections::HashMap;
use std::sync::Arc;

/// The folder of the output the copies are published in.
pub const OUTPUT_FOLDER: &str = "banners";

/// One copy of a banner, as a page names it: its path from the site's root and its width.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BannerCopy {
    pub path: String,
    pub width: u32,
}

/// A banner served with the site: the width and height of its widest copy (the `<img>`'s
/// `width` and `height`, which reserve its place before it loads), that copy's path (`src`),
/// and its copies, narrowest first: in the fallback format every browser shows, and in WebP
/// where that is the smaller (else none).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
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

    /// `banner` is served for the API's address `href`.
    pub fn insert(&mut self, href: String, banner: LocalBanner) {
        self.by_address.insert(href, Arc::new(banner));
    }
}
