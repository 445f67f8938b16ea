//! Everything a site build reads, decoded at once.

use super::{DocumentCategory, Event, Roster};
use crate::fetch::endpoint::Endpoint;
use crate::fetch::error::combine_any;
use crate::fetch::snapshot::Snapshot;
use anyhow::Result;

/// Everything a site build reads, decoded.
#[derive(Clone, Debug)]
pub struct SiteData {
    pub roster: Roster,
    pub facility_events: Vec<Event>,
    pub division_events: Vec<Event>,
    pub documents: Vec<DocumentCategory>,
}

/// One site endpoint's body, decoded: what `check` reports on, endpoint by endpoint.
#[derive(Clone, Debug)]
pub enum SitePart {
    Roster(Roster),
    FacilityEvents(Vec<Event>),
    DivisionEvents(Vec<Event>),
    Documents(Vec<DocumentCategory>),
}

impl SitePart {
    /// Decodes the body of one of [`Endpoint::SITE`]; the user endpoints are not site parts.
    pub fn decode(endpoint: Endpoint, body: &[u8]) -> Result<SitePart> {
        Ok(match endpoint {
            Endpoint::FacilityRoster => SitePart::Roster(super::decode_roster(body)?),
            Endpoint::FacilityEvents => {
                SitePart::FacilityEvents(super::decode_facility_events(body)?)
            }
            Endpoint::DivisionEvents => {
                SitePart::DivisionEvents(super::decode_division_events(body)?)
            }
            Endpoint::FacilityDocuments => SitePart::Documents(super::decode_documents(body)?),
            Endpoint::User(_) | Endpoint::UserNotes(_) => {
                anyhow::bail!("{endpoint} is not part of a site")
            }
        })
    }
}

pub fn decode_site(snapshot: &Snapshot) -> Result<SiteData> {
    let roster =
        (snapshot.body(Endpoint::FacilityRoster)).and_then(|b| Ok(super::decode_roster(b)?));
    let facility_events = (snapshot.body(Endpoint::FacilityEvents))
        .and_then(|b| Ok(super::decode_facility_events(b)?));
    let division_events = (snapshot.body(Endpoint::DivisionEvents))
        .and_then(|b| Ok(super::decode_division_events(b)?));
    let documents =
        (snapshot.body(Endpoint::FacilityDocuments)).and_then(|b| Ok(super::decode_documents(b)?));
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
