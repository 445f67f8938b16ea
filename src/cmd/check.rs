//! `vatcar-site check`: every endpoint called with the key and decoded, with what was found.
//! Writes nothing.

use super::progress::Progress;
use super::{CheckArgs, Loaded, key_origin};
use crate::fetch::endpoint::Endpoint;
use crate::fetch::load::{self, Source};
use crate::fetch::secret::ApiKey;
use anyhow::{Result, bail};
use std::sync::Arc;

/// Every endpoint, decoded, with what was found: the first command to run with a real key.
pub fn check(
    args: &CheckArgs,
    config: &Loaded,
    progress: &Arc<Progress>,
    key: Option<&ApiKey>,
) -> Result<()> {
    let source = args.source.source(config, Some(progress.clone()))?;
    if let Source::Api(options) = &source {
        progress.step(&format!(
            "checking {} with the key from {}",
            options.base_url,
            key_origin(&args.source.api, config)
        ));
    }
    let bodies = load::raw_each(&source, &Endpoint::SITE, Endpoint::SITE.len())?;
    let mut failures = 0;
    let mut lines = Vec::new();
    for (endpoint, body) in Endpoint::SITE.iter().zip(bodies) {
        let line = body.and_then(|body| {
            Ok(match endpoint {
                Endpoint::FacilityRoster => {
                    let roster = crate::model::decode_roster(&body)?;
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
                Endpoint::FacilityEvents => {
                    format!(
                        "{} facility events",
                        crate::model::decode_facility_events(&body)?.len()
                    )
                }
                Endpoint::DivisionEvents => {
                    format!(
                        "{} division events",
                        crate::model::decode_division_events(&body)?.len()
                    )
                }
                Endpoint::FacilityDocuments => {
                    let categories = crate::model::decode_documents(&body)?;
                    format!(
                        "{} documents in {} categories",
                        categories.iter().map(|c| c.files.len()).sum::<usize>(),
                        categories.len()
                    )
                }
                _ => unreachable!("only site endpoints are checked"),
            })
        });
        match line {
            Ok(text) => lines.push(format!("ok    {endpoint}: {text}")),
            Err(error) => {
                failures += 1;
                lines.push(format!("FAIL  {endpoint}: {error:#}"));
            }
        }
    }
    // A decoding error may quote the body, and the body may echo the key.
    for line in &lines {
        match key {
            Some(key) => println!("{}", key.redact(line)),
            None => println!("{line}"),
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
