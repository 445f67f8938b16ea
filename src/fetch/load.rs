//! The raw bodies a command needs, from wherever they come: the API, a snapshot folder or the
//! built-in demo. Decoding them is the next stage's job (`model`).
//!
//! Every endpoint is fetched before anything else happens, and every failure is reported, not
//! only the first: a webmaster fixing a CI job wants to see them all at once.

use crate::fetch::client::{ApiClient, ClientOptions};
use crate::fetch::endpoint::Endpoint;
use crate::fetch::error::combine_any;
use crate::fetch::snapshot::Snapshot;
use anyhow::Result;
use chrono::Utc;
use std::path::PathBuf;

/// Where the data comes from.
#[derive(Clone)]
pub enum Source {
    Api(ClientOptions),
    Snapshot(PathBuf),
    Demo,
    /// Bodies already in memory (fetched once by `serve`, then rebuilt from).
    Loaded(std::sync::Arc<Snapshot>),
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
                    Err(error) => errors.push(error.into()),
                }
            }
            if !errors.is_empty() {
                return Err(combine_any(errors));
            }
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
