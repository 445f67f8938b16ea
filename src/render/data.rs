//! The public data files (data/changes.json, data/roster.json, events.json) and the What's
//! new Atom feed, from the views `view::public_data` made.

use super::Theme;
use super::site::{Rendered, Sink};
use crate::view::SiteView;
use crate::view::outputs::{self, Output};
use anyhow::Result;
use serde::Serialize;
use serde_json::Value;

/// Every data file the settings and the site's URL call for, handed to `sink`.
pub(super) fn render(view: &SiteView, theme: &Theme, site: &Value, sink: Sink) -> Result<()> {
    let written = |output: &Output| output.is_written(&view.site.sections, view.site.has_feed);
    let public = &view.public;
    sink(json(&outputs::CHANGES_JSON, &public.changes)?)?;
    if written(&outputs::ROSTER_JSON) {
        sink(json(&outputs::ROSTER_JSON, &public.roster)?)?;
    }
    if let Some(events) = &public.events {
        sink(json(&outputs::EVENTS_JSON, events)?)?;
    }
    if written(&outputs::WHATS_NEW_FEED) {
        let mut context = tera::Context::new();
        context.insert("site", site);
        context.insert("entries", &public.whats_new_feed);
        context.insert("updated", &public.whats_new_updated);
        sink(Rendered::new(
            &outputs::WHATS_NEW_FEED,
            outputs::WHATS_NEW_FEED.path,
            theme.render("whats-new.xml", &context)?,
        ))?;
    }
    Ok(())
}

/// Indented, keys in the order of the view's fields, ending with a line break: the same
/// view gives the same bytes.
fn json(output: &'static Output, value: &impl Serialize) -> Result<Rendered> {
    let mut bytes = serde_json::to_vec_pretty(value)?;
    bytes.push(b'\n');
    Ok(Rendered::new(output, output.path, bytes))
}
