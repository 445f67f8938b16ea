//! One page through its template: its context (the site's values, the way back to the root,
//! the page's own facts, its data), rendered whole, or in two parts over a shared frame
//! ([`frame`]), or kept as the last build made it.

use crate::render::Theme;
use crate::render::frame::{self, Frame, FrameKey, Frames};
use crate::view::{EventPage, SiteView};
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

/// What every page's context shares: the site's values (`site`), the config file's
/// `[extra]` (`extra`), and the frames of the pages rendered in two parts ([`frame`]).
pub(super) struct SiteContext {
    pub(super) value: Value,
    pub(super) extra: Value,
    pub(super) frames: Frames,
}

impl SiteContext {
    /// A context holding what every template gets, `site` and `extra`, for the rest to be
    /// added.
    pub(super) fn context(&self) -> tera::Context {
        let mut context = tera::Context::new();
        context.insert("site", &self.value);
        context.insert("extra", &self.extra);
        context
    }
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

/// An event's page. Where the theme writes the event page's content by hand
/// ([`Theme::event_writer`]) it is written from the view, without the page's context
/// (which is made only for the frame's first page and for an error); otherwise
/// [`make_page`] over the context.
pub(super) fn make_event_page(
    theme: &Theme,
    site: &SiteContext,
    view: &SiteView,
    page: &Page,
    event: &EventPage,
    keep: Option<Keep>,
) -> Result<Made> {
    if let (Some(writer), Some(split)) = (theme.event_writer(), theme.split(page.template)) {
        let placed = Placed::new(view, page);
        let frame = frame(theme, site, view, &placed, split, "event", || {
            Ok(event.context()?)
        });
        // A frame that fails is rendered whole by make_page, for the error to name the
        // template.
        if let Ok(Some(frame)) = frame {
            let input = match keep {
                Some(keep) => {
                    let input = event_made_from(theme, &frame, &placed, event)?;
                    if keep(&page.path, input) {
                        return Ok(Made::Kept);
                    }
                    Some(input)
                }
                None => None,
            };
            let google = event.google_calendar();
            let content = writer.write_page(event, &placed.root, google.as_deref());
            let html = frame.fill(content, &placed.value);
            return Ok(Made::Page { html, input });
        }
    }
    make_page(theme, site, view, page, "event", event.context()?, keep)
}

/// A page with what every template has of it: its `page` value and the way back to the
/// root, made once for its frame and its content.
struct Placed<'p> {
    page: &'p Page<'p>,
    value: Value,
    root: String,
}

impl<'p> Placed<'p> {
    fn new(view: &SiteView, page: &'p Page<'p>) -> Self {
        Self {
            page,
            value: page_value(view, page),
            root: page.root(),
        }
    }
}

/// What every page's template has of it as `page`.
fn page_value(view: &SiteView, page: &Page) -> Value {
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
    json!({
        "section": page.section,
        "title": page.title,
        "url": page.url(),
        "canonical": view.site.site_url.as_ref().map(|u| format!("{u}{}", page.url())),
        "description": page.description.as_ref().or(view.site.description.as_ref()),
        "image": image.as_ref().map(|(href, _)| href),
        "image_wide": image.is_some_and(|(_, wide)| wide),
    })
}

/// A whole page's context: the site's values and `extra`, the way back to the root, the
/// page's own facts, and its data under `name`. Built as one JSON object and moved into the context:
/// `Context::insert` would copy `data` once more, and for a list of 10,000 events that copy
/// is the build's peak memory.
fn whole_context(
    site: &SiteContext,
    root: &str,
    page: Value,
    name: &str,
    data: Value,
) -> tera::Result<tera::Context> {
    let mut values = serde_json::Map::new();
    values.insert("site".into(), site.value.clone());
    values.insert("extra".into(), site.extra.clone());
    values.insert("root".into(), Value::String(root.to_owned()));
    values.insert("page".into(), page);
    values.insert(name.into(), data);
    tera::Context::from_value(Value::Object(values))
}

/// The shared frame of a page of a split template, made from the page's data (`name`, and
/// `data` makes its value) the first time its key is asked for; `None` when it cannot be
/// used.
fn frame(
    theme: &Theme,
    site: &SiteContext,
    view: &SiteView,
    placed: &Placed,
    split: &frame::Split,
    name: &str,
    data: impl FnOnce() -> Result<Value>,
) -> Result<Option<std::sync::Arc<Frame>>> {
    let (template, root) = (placed.page.template, placed.root.as_str());
    let key = FrameKey::new(template, root, &placed.value, &view.site.menu);
    site.frames.get(key, || {
        let placeholders = frame::placeholder_page(&placed.value);
        let context = whole_context(site, root, placeholders, name, data()?)?;
        Ok(Frame::parse(&theme.render_part(&split.frame, &context)?))
    })
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
    let placed = Placed::new(view, page);
    if let Some(split) = theme.split(page.template) {
        let frame = frame(theme, site, view, &placed, split, name, || Ok(data.clone()));
        // A part that fails is rendered whole below, for the error to name the template.
        if let Ok(Some(frame)) = frame {
            // Only what the content reads: the site's values are the same on every page,
            // and copying them into each page's context was a tenth of its cost.
            let mut values = serde_json::Map::new();
            if split.reads("site") {
                values.insert("site".into(), site.value.clone());
            }
            if split.reads("extra") {
                values.insert("extra".into(), site.extra.clone());
            }
            values.insert("root".into(), Value::String(placed.root.clone()));
            if split.reads("page") {
                values.insert("page".into(), placed.value.clone());
            }
            values.insert(name.into(), data);
            let input = match keep {
                Some(keep) => {
                    let input = made_from(theme, &frame, &placed.value, &values)?;
                    if keep(&page.path, input) {
                        return Ok(Made::Kept);
                    }
                    Some(input)
                }
                None => None,
            };
            let context = tera::Context::from_value(Value::Object(values))?;
            let html = match theme.render_part(&split.content, &context) {
                Ok(content) => frame.fill(content, &placed.value),
                Err(_) => {
                    let data = context.get(name).cloned().unwrap_or(Value::Null);
                    theme.render(
                        page.template,
                        &whole_context(site, &placed.root, placed.value, name, data)?,
                    )?
                }
            };
            return Ok(Made::Page { html, input });
        }
    }
    let html = theme.render(
        page.template,
        &whole_context(site, &placed.root, placed.value, name, data)?,
    )?;
    Ok(Made::Page { html, input: None })
}

/// [`made_from`] for an event page whose content is written by hand: the program and the
/// theme, the frame's text, the page's values the frame shows, the way back to the root, and
/// everything the event's page shows ([`EventPage::hash_what_the_page_shows`]).
fn event_made_from(
    theme: &Theme,
    frame: &Frame,
    placed: &Placed,
    event: &EventPage,
) -> Result<u128> {
    use std::hash::{Hash, Hasher};
    let mut state = xxhash_rust::xxh3::Xxh3Default::new();
    state.write_u128(theme.fingerprint());
    state.write_u128(frame.fingerprint());
    state.write(&serde_json::to_vec(&placed.value)?);
    placed.root.hash(&mut state);
    event.hash_what_the_page_shows(&mut state);
    Ok(state.digest128())
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
