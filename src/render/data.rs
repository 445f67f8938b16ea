//! The public data files (data/changes.json, data/roster.json, events.json) and the What's
//! new Atom feed, from the views `view::public_data` made.

use crate::render::page::SiteContext;
use crate::render::sink::{Rendered, Sink};
use crate::render::theme::Theme;
use crate::view::SiteView;
use crate::view::outputs::{self, Output};
use anyhow::Result;
use serde::Serialize;

/// Every data file the settings and the site's URL call for but events.json
/// ([`events_feed`]), handed to `sink`.
pub(super) fn render(view: &SiteView, theme: &Theme, site: &SiteContext, sink: Sink) -> Result<()> {
    let written = |output: &Output| output.is_written(&view.site.sections, view.site.has_feed);
    let public = &view.public;
    sink(json(&outputs::CHANGES_JSON, &public.changes)?)?;
    if written(&outputs::ROSTER_JSON) {
        sink(json(&outputs::ROSTER_JSON, &public.roster)?)?;
    }
    if let Some(activity) = public
        .activity
        .as_ref()
        .filter(|_| written(&outputs::ACTIVITY_JSON))
    {
        let output = &outputs::ACTIVITY_JSON;
        sink(Rendered::new(output, output.path, activity.clone()))?;
    }
    if written(&outputs::WHATS_NEW_FEED) {
        let mut context = site.context();
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

/// events.json, with the site's URL: made once every event's page is, since each item's
/// text is its event's excerpt.
pub(super) fn events_feed(view: &SiteView, sink: Sink) -> Result<()> {
    match &view.public.events {
        Some(events) => sink(json(&outputs::EVENTS_JSON, events)?),
        None => Ok(()),
    }
}

/// Indented, keys in the order of the view's fields, ending with a line break: the same
/// view gives the same bytes.
fn json(output: &'static Output, value: &impl Serialize) -> Result<Rendered> {
    let mut bytes = serde_json::to_vec_pretty(value)?;
    bytes.push(b'\n');
    Ok(Rendered::new(output, output.path, bytes))
}
