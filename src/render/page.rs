//! One page through its template: its context (the site's values, the way back to the root,
//! the page's own facts, its data), rendered whole, or in two parts over a shared frame
//! ([`frame`]).

use crate::render::frame::{self, Frame, Frames};
use crate::render::theme::Theme;
use crate::view::SiteView;
use anyhow::Result;
use serde_json::{Value, json};

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
    frames: Frames,
}

impl SiteContext {
    pub(super) fn new(value: Value, extra: Value) -> Self {
        Self {
            value,
            extra,
            frames: Frames::default(),
        }
    }

    /// A context holding what every template gets, `site` and `extra`, for the rest to be
    /// added.
    pub(super) fn context(&self) -> tera::Context {
        let mut context = tera::Context::new();
        context.insert("site", &self.value);
        context.insert("extra", &self.extra);
        context
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

/// A page's context: the site's values and `extra`, the way back to the root, the page's own
/// facts and its data under `name`; of the first three only those `reads` names (the content
/// of a split page reads only some: the site's values are the same on every page, and copying
/// them into each page's context was a tenth of its cost). Built as one JSON object and moved
/// into the context: `Context::insert` would copy `data` once more, and for a list of 10,000
/// events that copy is the build's peak memory.
fn page_context(
    site: &SiteContext,
    root: &str,
    page: &Value,
    name: &str,
    data: Value,
    reads: impl Fn(&str) -> bool,
) -> tera::Result<tera::Context> {
    let mut values = serde_json::Map::new();
    if reads("site") {
        values.insert("site".into(), site.value.clone());
    }
    if reads("extra") {
        values.insert("extra".into(), site.extra.clone());
    }
    values.insert("root".into(), Value::String(root.to_owned()));
    if reads("page") {
        values.insert("page".into(), page.clone());
    }
    values.insert(name.into(), data);
    tera::Context::from_value(Value::Object(values))
}

/// The shared frame of a page of a split template, made the first time its key is asked
/// for; `None` when it cannot be used (the site's own text holds a placeholder's character),
/// and the page is rendered whole.
fn frame(
    theme: &Theme,
    site: &SiteContext,
    view: &SiteView,
    template: &str,
    root: &str,
    page: &Value,
) -> Result<Option<std::sync::Arc<Frame>>> {
    let key = frame::key(template, root, page, &view.site.menu);
    site.frames.get(key, || {
        // The frame is the built-in layout.html and base.html, which read no page's data.
        let mut context = site.context();
        context.insert("root", root);
        context.insert("page", &frame::placeholder_page(page));
        let [frame, _] = frame::names(template);
        let frame = Frame::parse(&theme.render_part(&frame, &context)?);
        if frame.is_none() {
            log::debug!("{template}: the site's text holds U+FDD0 or U+FDD1: pages rendered whole");
        }
        Ok(frame.map(std::sync::Arc::new))
    })
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
    let (value, root) = (page_value(view, page), page.root());
    let split = theme.split(page.template);
    let frame = match split {
        Some(_) => frame(theme, site, view, page.template, &root, &value)?,
        None => None,
    };
    let (Some(split), Some(frame)) = (split, frame) else {
        let context = page_context(site, &root, &value, name, data, |_| true)?;
        return theme.render(page.template, &context);
    };
    let context = page_context(site, &root, &value, name, data, |part| split.reads(part))?;
    let [_, content] = frame::names(page.template);
    let error = match theme.render_part(&content, &context) {
        Ok(content) => return Ok(frame.fill(content, &value)),
        Err(error) => error,
    };
    // A content that fails is worded as the page rendered whole words it: naming the template,
    // and the line where it can. One that fails where the whole page renders is the program's
    // mistake, never hidden by a page rendered whole.
    let data = context.get(name).cloned().unwrap_or(Value::Null);
    let whole = page_context(site, &root, &value, name, data, |_| true)?;
    match theme.render(page.template, &whole) {
        Err(whole) => Err(whole),
        Ok(_) => Err(anyhow::anyhow!(
            "internal error: {} of {} failed alone where the whole page renders: {error}",
            page.template,
            page.path
        )),
    }
}
