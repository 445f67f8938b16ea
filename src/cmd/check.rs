//! `vatcar-site check`: every endpoint called with the key and decoded, with what was found.
//! Writes nothing.

use super::args::CheckArgs;
use super::progress::Progress;
use crate::fetch::endpoint::Endpoint;
use crate::fetch::load::{self, Source};
use crate::model::SitePart;
use crate::secret::ApiKey;
use crate::settings::Settings;
use anyhow::{Result, bail};
use std::sync::Arc;

/// Every endpoint, decoded, with what was found: the first command to run with a real key.
pub(crate) fn run(
    args: &CheckArgs,
    config: &Settings,
    progress: &Arc<Progress>,
    key: Option<&ApiKey>,
) -> Result<()> {
    let source = args.source.source(config, progress.clone())?;
    if let Source::Api(options) = &source {
        // Without a key every endpoint would fail alike: say so once, before any request.
        let Some(held) = config.api_key.as_ref().filter(|_| key.is_some()) else {
            return Err(crate::fetch::error::ApiError::MissingKey.into());
        };
        progress.step(&format!(
            "checking {} with the key from {}",
            options.base_url, held.origin
        ));
    }
    let bodies = load::raw_each(&source, &Endpoint::SITE, Endpoint::SITE.len())?;
    let mut failures = 0;
    for (endpoint, body) in Endpoint::SITE.iter().zip(bodies) {
        let line = match body.and_then(|body| Ok(summary(SitePart::decode(*endpoint, &body)?))) {
            Ok(text) => format!("ok    {endpoint}: {text}"),
            Err(error) => {
                failures += 1;
                let error = without_endpoint(&format!("{error:#}"), *endpoint);
                format!("FAIL  {endpoint}: {error}")
            }
        };
        // A decoding error may quote the body, and the body may echo the key.
        match key {
            Some(key) => super::console::print_lines(&key.redact(&line)),
            None => super::console::print_lines(&line),
        }
    }
    if failures > 0 {
        bail!(
            "{failures} of {} endpoints failed; nothing was written",
            Endpoint::SITE.len()
        );
    }
    progress.done("all endpoints answered and decoded; nothing was written");
    Ok(())
}

/// An error's text without the endpoint it names, for a line that starts with it: fetch
/// and decoding errors begin with `GET /api/v2/...: `, and a snapshot's missing file says
/// whose body it is.
fn without_endpoint(text: &str, endpoint: Endpoint) -> String {
    let named = endpoint.to_string();
    let text = text.strip_prefix(&format!("{named}: ")).unwrap_or(text);
    text.replace(&format!(" (the body of {named})"), "")
}

/// One line on what an endpoint answered.
fn summary(part: SitePart) -> String {
    match part {
        SitePart::Roster(roster) => {
            let vacant: Vec<&str> = roster
                .staff
                .iter()
                .filter(|p| p.holders.is_empty())
                .map(|p| p.role.code())
                .collect();
            format!(
                "{}: {} controllers, {} visitors, staff posts vacant: {}",
                roster
                    .facility
                    .and_then(|f| f.display_name())
                    .unwrap_or_else(|| "roster".into()),
                roster.controllers.len(),
                roster.visitors.len(),
                if vacant.is_empty() {
                    "none".into()
                } else {
                    vacant.join(", ")
                }
            )
        }
        SitePart::FacilityEvents(events) => format!("{} facility events", events.len()),
        SitePart::DivisionEvents(events) => format!("{} division events", events.len()),
        SitePart::Documents(categories) => format!(
            "{} documents in {} categories",
            categories.iter().map(|c| c.files.len()).sum::<usize>(),
            categories.len()
        ),
    }
}
