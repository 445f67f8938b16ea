//! One page through its template: its context (the site's values, the way back to the root,
//! the page's own facts, its data), rendered whole, or in two parts over a shared frame
//! ([`frame`]), or kept as the last build made it.

use crate::render::Theme;
use crate::render::frame::{self, Frame, FrameKey, Frames};
use crate::view::SiteView;
use anyhow::Result;
use serde::Serialize;
use serde_json::{Value, json};

use super::site::Keep;

/// Where a page sits and what the templates need to link from it.
pub(super) struct Page<'a> {
    /// Output path: `roster/index.html`.
    pub(super) path: String,
    pub(super) template: &'a str,
    /// Section for the navigation: `home`, `roster`, `events`, `division`, `documents`.
    pub(super) section: &'a str,
    pub(super) title: String,
    /// For search engines and link previews; the site's description when `None`.
    pub(super) description: Option<String>,
    /// An absolute image address for link previews, and whether it is a wide banner.
    pub(super) image: Option<(String, bool)>,
}

impl Page<'_> {
    /// The relative way back to the site root: `../../` from `events/412/index.html`.
    pub(super) fn root(&self) -> String {
        "../".repeat(self.path.matches('/').count())
    }

    /// The page's URL path below the root, as linked: `events/412/`.
    pub(super) fn url(&self) -> String {
        self.path.trim_end_matches("index.html").to_owned()
    }
}

/// What every page's context shares: the site's values, and the frames of the pages rendered
/// in two parts ([`frame`]).
pub(super) struct SiteContext {
    pub(super) value: Value,
    pub(super) frames: Frames,
}

impl std::ops::Deref for SiteContext {
    type Target = Value;

    fn deref(&self) -> &Value {
        &self.value
    }
}

impl Serialize for SiteContext {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(serializer)
    }
}

/// One page: its template with the site, the way back to the root, the page's own facts and
/// its data under `name`.
pub(super) fn render_page(
    theme: &Theme,
    site: &SiteContext,
    view: &SiteView,
    page: &Page,
    name: &str,
    data: Value,
) -> Result<String> {
    match make_page(theme, site, view, page, name, data, None)? {
        Made::Page { html, .. } => Ok(html),
        Made::Kept => anyhow::bail!("internal error: {} kept unasked", page.path),
    }
}

/// A page made, with the hash of its inputs when it was made in two parts; or kept.
pub(super) enum Made {
    Page { html: String, input: Option<u128> },
    Kept,
}

/// [`render_page`], asking `keep` first for a page made in two parts.
pub(super) fn make_page(
    theme: &Theme,
    site: &SiteContext,
    view: &SiteView,
    page: &Page,
    name: &str,
    data: Value,
    keep: Option<Keep>,
) -> Result<Made> {
    // Link previews need absolute addresses: the logo is one only where the site's is known.
    // Discord, Facebook and X show no SVG in a card, so only a bitmap logo is offered.
    let logo = || {
        let site_url = view.site.site_url.as_ref()?;
        let logo = view.site.logo.as_ref()?;
        let (_, extension) = logo.rsplit_once('.')?;
        let bitmap = ["png", "jpg", "jpeg", "gif", "webp"]
            .iter()
            .any(|e| extension.eq_ignore_ascii_case(e));
        bitmap.then(|| (format!("{site_url}{logo}"), false))
    };
    let image = page.image.clone().or_else(logo);
    let page_value = json!({
        "section": page.section,
        "title": page.title,
        "url": page.url(),
        "canonical": view.site.site_url.as_ref().map(|u| format!("{u}{}", page.url())),
        "description": page.description.as_ref().or(view.site.description.as_ref()),
        "image": image.as_ref().map(|(href, _)| href),
        "image_wide": image.is_some_and(|(_, wide)| wide),
    });
    let root = page.root();
    // Built as one JSON object and moved into the context: `Context::insert` would copy
    // `data` once more, and for a list of 10,000 events that copy is the build's peak memory.
    let whole = |page: Value, data: Value| {
        let mut values = serde_json::Map::new();
        values.insert("site".into(), site.value.clone());
        values.insert("root".into(), Value::String(root.clone()));
        values.insert("page".into(), page);
        values.insert(name.into(), data);
        tera::Context::from_value(Value::Object(values))
    };
    if let Some(split) = theme.split(page.template) {
        let key = FrameKey::new(page.template, &root, &page_value, &view.site.menu);
        let frame = site.frames.get(key, || {
            let placeholders = frame::placeholder_page(&page_value);
            let context = whole(placeholders, data.clone())?;
            Ok(Frame::parse(&theme.render_part(&split.frame, &context)?))
        });
        // A part that fails is rendered whole below, for the error to name the template.
        if let Ok(Some(frame)) = frame {
            // Only what the content reads: the site's values are the same on every page,
            // and copying them into each page's context was a tenth of its cost.
            let mut values = serde_json::Map::new();
            if split.reads("site") {
                values.insert("site".into(), site.value.clone());
            }
            values.insert("root".into(), Value::String(root.clone()));
            if split.reads("page") {
                values.insert("page".into(), page_value.clone());
            }
            values.insert(name.into(), data);
            // A page written by hand is made in less than its inputs take to hash (17,000
            // instructions against 45,000): it is made, and its file compared, every time.
            let keep = keep.filter(|_| !theme.writes_by_hand(page.template));
            let input = match keep {
                Some(keep) => {
                    let input = made_from(theme, &frame, &page_value, &values)?;
                    if keep(&page.path, input) {
                        return Ok(Made::Kept);
                    }
                    Some(input)
                }
                None => None,
            };
            if let Some(content) = theme.content_by_hand(page.template, &values) {
                let html = frame.fill(content, &page_value);
                return Ok(Made::Page { html, input });
            }
            let context = tera::Context::from_value(Value::Object(values))?;
            let html = match theme.render_part(&split.content, &context) {
                Ok(content) => frame.fill(content, &page_value),
                Err(_) => {
                    let data = context.get(name).cloned().unwrap_or(Value::Null);
                    theme.render(page.template, &whole(page_value, data)?)?
                }
            };
            return Ok(Made::Page { html, input });
        }
    }
    let html = theme.render(page.template, &whole(page_value, data)?)?;
    Ok(Made::Page { html, input: None })
}

/// The hash of everything a page made in two parts is made from: the program and the theme
/// (templates and texts, [`Theme::fingerprint`]), the frame's text, and the page's own
/// values, those the frame shows and those its content reads.
fn made_from(
    theme: &Theme,
    frame: &Frame,
    page: &Value,
    content: &serde_json::Map<String, Value>,
) -> Result<u128> {
    let mut bytes = Vec::with_capacity(4096);
    bytes.extend_from_slice(&theme.fingerprint().to_le_bytes());
    bytes.extend_from_slice(&frame.fingerprint().to_le_bytes());
    serde_json::to_writer(&mut bytes, page)?;
    serde_json::to_writer(&mut bytes, content)?;
    Ok(xxhash_rust::xxh3::xxh3_128(&bytes))
}
