//! One page through its template: its context (the site's values, the way back to the root,
//! the page's own facts, its data), rendered whole, or in two parts over a shared frame
//! ([`frame`]), or kept as the last build made it.

use crate::render::frame::{self, Frame, FrameKey, Frames};
use crate::render::theme::Theme;
use crate::view::{EventPage, SiteView};
use anyhow::Result;
use serde::Serialize;
use serde_json::{Value, json};
use xxhash_rust::xxh3::Xxh3Default;

use crate::render::sink::Keep;

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
    match make_page(theme, site, view, page, name, PageData::Value(data), None)? {
        Made::Page { html, .. } => Ok(html),
        Made::Kept => anyhow::bail!("internal error: {} kept unasked", page.path),
    }
}

/// A page made, with the hash of its inputs when it was made in two parts; or kept.
pub(super) enum Made {
    Page { html: String, input: Option<u128> },
    Kept,
}

/// A page's data, under the name its template reads it by: a value, or an event's page,
/// whose value is made only where the page is (a page kept needs only the hash of what it
/// shows, [`EventPage::hash_what_the_page_shows`], cheaper than the value).
pub(super) enum PageData<'e> {
    Value(Value),
    Event(&'e EventPage),
}

impl PageData<'_> {
    fn value(&self) -> Result<Value> {
        Ok(match self {
            PageData::Value(value) => value.clone(),
            PageData::Event(event) => event.context()?,
        })
    }

    fn into_value(self) -> Result<Value> {
        match self {
            PageData::Value(value) => Ok(value),
            PageData::Event(event) => Ok(event.context()?),
        }
    }

    fn hash(&self, state: &mut Xxh3Default) -> Result<()> {
        match self {
            PageData::Value(value) => serde_json::to_writer(HashWriter(state), value)?,
            PageData::Event(event) => event.hash_what_the_page_shows(state),
        }
        Ok(())
    }
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
    data: PageData,
    keep: Option<Keep>,
) -> Result<Made> {
    let placed = Placed::new(view, page);
    if let Some(split) = theme.split(page.template) {
        let frame = frame(theme, site, view, &placed, split, name, || data.value());
        // A part that fails is rendered whole below, for the error to name the template.
        if let Ok(Some(frame)) = frame {
            let input = match keep {
                Some(keep) => {
                    let made = MadeFrom {
                        theme,
                        frame: &frame,
                        placed: &placed,
                        split,
                        site,
                    };
                    let input = made.hash(name, &data)?;
                    if keep(&page.path, input) {
                        return Ok(Made::Kept);
                    }
                    Some(input)
                }
                None => None,
            };
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
            values.insert(name.into(), data.into_value()?);
            split.add_flat_reads(&mut values);
            let context = tera::Context::from_value(Value::Object(values))?;
            let html = match theme.render_part(&split.content, &context) {
                Ok(content) => frame.fill(content, &placed.value),
                Err(_) => {
                    let data = split.whole_value(name, &context);
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
        &whole_context(site, &placed.root, placed.value, name, data.into_value()?)?,
    )?;
    Ok(Made::Page { html, input: None })
}

/// What a page made in two parts is made from.
struct MadeFrom<'a> {
    theme: &'a Theme,
    frame: &'a Frame,
    placed: &'a Placed<'a>,
    split: &'a frame::Split,
    site: &'a SiteContext,
}

impl MadeFrom<'_> {
    /// The hash of all of it: the program and the theme (templates and texts,
    /// [`Theme::fingerprint`]), the frame's text, the page's values the frame shows, and
    /// what the content reads: the site's values where it reads them, the way back to the
    /// root, and the page's data under `name`.
    fn hash(&self, name: &str, data: &PageData) -> Result<u128> {
        let mut state = Xxh3Default::new();
        state.update(&self.theme.fingerprint().to_le_bytes());
        state.update(&self.frame.fingerprint().to_le_bytes());
        serde_json::to_writer(HashWriter(&mut state), &self.placed.value)?;
        for (read, value) in [("site", &self.site.value), ("extra", &self.site.extra)] {
            if self.split.reads(read) {
                state.update(read.as_bytes());
                serde_json::to_writer(HashWriter(&mut state), value)?;
            }
        }
        for text in [self.placed.root.as_str(), name] {
            state.update(&text.len().to_le_bytes());
            state.update(text.as_bytes());
        }
        data.hash(&mut state)?;
        Ok(state.digest128())
    }
}

/// Bytes written into a hash.
struct HashWriter<'s>(&'s mut Xxh3Default);

impl std::io::Write for HashWriter<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
