//! The service's operations (spec section 4), named once so that the client, the decoders
//! and the snapshot files all agree on paths, file names and how errors refer to them.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Endpoint {
    FacilityRoster,
    FacilityEvents,
    FacilityDocuments,
    DivisionEvents,
    User(u64),
    UserNotes(u64),
}

impl Endpoint {
    /// The four endpoints a site build needs, in the order they are reported.
    pub const SITE: [Endpoint; 4] = [
        Endpoint::FacilityRoster,
        Endpoint::FacilityEvents,
        Endpoint::FacilityDocuments,
        Endpoint::DivisionEvents,
    ];

    /// The path below the base URL.
    pub fn path(&self) -> String {
        match self {
            Endpoint::FacilityRoster => "/api/v2/facility/roster".into(),
            Endpoint::FacilityEvents => "/api/v2/facility/events".into(),
            Endpoint::FacilityDocuments => "/api/v2/facility/documents".into(),
            Endpoint::DivisionEvents => "/api/v2/division/events".into(),
            Endpoint::User(cid) => format!("/api/v2/user/{cid}"),
            Endpoint::UserNotes(cid) => format!("/api/v2/user/{cid}/notes"),
        }
    }

    /// The file that holds this endpoint's raw response body in a snapshot folder.
    pub fn snapshot_file(&self) -> String {
        match self {
            Endpoint::FacilityRoster => "facility-roster.json".into(),
            Endpoint::FacilityEvents => "facility-events.json".into(),
            Endpoint::FacilityDocuments => "facility-documents.json".into(),
            Endpoint::DivisionEvents => "division-events.json".into(),
            Endpoint::User(cid) => format!("user-{cid}.json"),
            Endpoint::UserNotes(cid) => format!("notes-{cid}.json"),
        }
    }

    /// The endpoint whose body the snapshot file `file` holds, if any.
    pub fn of_snapshot_file(file: &str) -> Option<Endpoint> {
        if let Some(site) = Endpoint::SITE
            .into_iter()
            .find(|e| e.snapshot_file() == file)
        {
            return Some(site);
        }
        let cid = |prefix: &str| {
            file.strip_prefix(prefix)?
                .strip_suffix(".json")?
                .parse()
                .ok()
        };
        (cid("user-").map(Endpoint::User)).or_else(|| cid("notes-").map(Endpoint::UserNotes))
    }

    /// A short human name, for progress lines.
    pub fn label(&self) -> String {
        match self {
            Endpoint::FacilityRoster => "facility roster".into(),
            Endpoint::FacilityEvents => "facility events".into(),
            Endpoint::FacilityDocuments => "facility documents".into(),
            Endpoint::DivisionEvents => "division events".into(),
            Endpoint::User(cid) => format!("user {cid}"),
            Endpoint::UserNotes(cid) => format!("training notes of {cid}"),
        }
    }
}

/// Errors name an endpoint as `GET /api/v2/...`, the form a webmaster can paste into curl.
impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GET {}", self.path())
    }
}
