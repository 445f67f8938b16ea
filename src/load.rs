//! Stages one and two together: get the raw bodies (from the API, a snapshot folder or the
//! built-in demo) and decode them into the models a site build needs.
//!
//! Every endpoint is fetched and decoded before anything else happens, and every failure is
//! reported, not only the first: a webmaster fixing a CI job wants to see them all at once.

use crate::client::{ApiClient, ClientOptions};
use crate::endpoint::Endpoint;
use crate::error::ApiError;
use crate::model::{self, DocumentCategory, Event, Roster};
use crate::snapshot::Snapshot;
use anyhow::{Result, anyhow};
use chrono::Utc;
use std::path::PathBuf;

/// Where the data comes from.
#[derive(Clone, Debug)]
pub enum Source {
    Api(ClientOptions),
    Snapshot(PathBuf),
    Demo,
    /// Bodies already in memory (fetched once by `serve`, then rebuilt from).
    Loaded(std::sync::Arc<Snapshot>),
}

/// Everything a site build reads, decoded.
#[derive(Clone, Debug)]
pub struct SiteData {
    pub roster: Roster,
    pub facility_events: Vec<Event>,
    pub division_events: Vec<Event>,
    pub documents: Vec<DocumentCategory>,
}

/// Raw bodies of the given endpoints, as a snapshot (fetched now, or read back).
pub fn raw(source: &Source, endpoints: &[Endpoint]) -> Result<Snapshot> {
    match source {
        Source::Api(options) => {
            let client = ApiClient::new(options.clone())?;
            let mut snapshot = Snapshot::new(Utc::now(), options.base_url.trim());
            let results = client.fetch_all(endpoints, endpoints.len());
            let mut errors = Vec::new();
            for (endpoint, result) in endpoints.iter().zip(results) {
                match result {
                    Ok(body) => snapshot.insert(*endpoint, body),
                    Err(error) => errors.push(error),
                }
            }
            combine(errors)?;
            Ok(snapshot)
        }
        Source::Snapshot(dir) => Snapshot::read_dir(dir),
        Source::Demo => Ok(Snapshot::demo()),
        Source::Loaded(snapshot) => Ok(snapshot.as_ref().clone()),
    }
}

/// Raw bodies of each endpoint, each its own result, for runs where one failure must not stop
/// the rest (reports for many students). At most `concurrency` requests are in flight.
pub fn raw_each(
    source: &Source,
    endpoints: &[Endpoint],
    concurrency: usize,
) -> Result<Vec<Result<Vec<u8>>>> {
    match source {
        Source::Api(options) => {
            let client = ApiClient::new(options.clone())?;
            Ok(client
                .fetch_all(endpoints, concurrency)
                .into_iter()
                .map(|r| r.map_err(anyhow::Error::from))
                .collect())
        }
        Source::Snapshot(_) | Source::Demo | Source::Loaded(_) => {
            let snapshot = raw(source, &[])?;
            Ok(endpoints
                .iter()
                .map(|e| snapshot.body(*e).map(<[u8]>::to_vec))
                .collect())
        }
    }
}

pub fn decode_site(snapshot: &Snapshot) -> Result<SiteData> {
    // The endpoints are independent and the two event lists are most of the bytes: each is
    // decoded on its own thread.
    let (roster, facility_events, division_events, documents) = std::thread::scope(|scope| {
        let facility = scope.spawn(|| {
            snapshot
                .body(Endpoint::FacilityEvents)
                .and_then(|b| Ok(model::decode_facility_events(b)?))
        });
        let division = scope.spawn(|| {
            snapshot
                .body(Endpoint::DivisionEvents)
                .and_then(|b| Ok(model::decode_division_events(b)?))
        });
        let roster = snapshot
            .body(Endpoint::FacilityRoster)
            .and_then(|b| Ok(model::decode_roster(b)?));
        let documents = snapshot
            .body(Endpoint::FacilityDocuments)
            .and_then(|b| Ok(model::decode_documents(b)?));
        (
            roster,
            facility.join().expect("decoding does not panic"),
            division.join().expect("decoding does not panic"),
            documents,
        )
    });
    match (roster, facility_events, division_events, documents) {
        (Ok(roster), Ok(facility_events), Ok(division_events), Ok(documents)) => Ok(SiteData {
            roster,
            facility_events,
            division_events,
            documents,
        }),
        (roster, facility, division, documents) => {
            let errors: Vec<anyhow::Error> = [
                roster.err(),
                facility.err(),
                division.err(),
                documents.err(),
            ]
            .into_iter()
            .flatten()
            .collect();
            Err(combine_any(errors))
        }
    }
}

fn combine(errors: Vec<ApiError>) -> Result<()> {
    if errors.is_empty() {
        return Ok(());
    }
    Err(combine_any(
        errors.into_iter().map(anyhow::Error::from).collect(),
    ))
}

/// One error if there is one; otherwise one error listing them all, one per line.
fn combine_any(mut errors: Vec<anyhow::Error>) -> anyhow::Error {
    if errors.len() == 1 {
        return errors.remove(0);
    }
    let lines: Vec<String> = errors.iter().map(|e| format!("  - {e:#}")).collect();
    anyhow!("{} endpoints failed:\n{}", errors.len(), lines.join("\n"))
}
