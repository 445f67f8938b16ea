//! The API's JSON as it arrives, and the one place its quirks are absorbed.
//!
//! Every field is optional and read leniently (an integer may come as `"12"`, a flag as `1`,
//! `"1"` or `true`, a list as `null`), because the spec's prose and its samples disagree and
//! the API is someone else's. A value of a shape no variant explains is a serde error, which
//! `decode` turns into an error naming the endpoint and the JSON path. The `into_model`
//! functions then check what a record cannot do without (ids, start times, URLs) and parse
//! timestamps, naming the record and the field when something is wrong.

use super::lenient::*;
use super::timestamp::{self, parse_date, parse_instant};
use super::*;
use crate::fetch::endpoint::Endpoint;
use crate::fetch::error::ApiError;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct WireFir {
    id: Int,
    name_long: Text,
    name_short: Text,
    website_url: Text,
    fir_description: Text,
}

/// The roster's `facility`, a visitor's `home_facility`, a user's `fir`: an object, a name or
/// an id.
fn facility<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Facility>, D::Error> {
    let value = Value::deserialize(d)?;
    match value {
        Value::Null => Ok(None),
        Value::String(name) => Ok(clean_opt(Some(name)).map(|name| Facility {
            long_name: Some(name),
            ..Facility::default()
        })),
        Value::Number(n) => Ok(n.as_i64().map(|id| Facility {
            id: Some(id),
            ..Facility::default()
        })),
        Value::Object(_) => {
            let fir = WireFir::deserialize(value).map_err(D::Error::custom)?;
            Ok(Some(Facility {
                id: fir.id.0,
                short_name: clean_opt(fir.name_short.0),
                long_name: clean_opt(fir.name_long.0),
                website_url: clean_opt(fir.website_url.0),
                description: clean_opt(fir.fir_description.0),
            }))
        }
        other => Err(D::Error::custom(format!(
            "expected a facility object or name, found {}",
            kind(&other)
        ))),
    }
}

/// Where a record sits, for errors: `data[3] (event 42)`.
pub(super) struct RecordPlace {
    pub endpoint: Endpoint,
    pub record: String,
}

impl RecordPlace {
    fn error(&self, field: &'static str, reason: impl Into<String>) -> ApiError {
        ApiError::Record {
            endpoint: self.endpoint,
            record: self.record.clone(),
            field,
            reason: reason.into(),
        }
    }

    fn instant(
        &self,
        field: &'static str,
        raw: Option<String>,
    ) -> Result<Option<DateTime<Utc>>, ApiError> {
        self.parsed(field, raw, "timestamp", parse_instant)
    }

    fn date(
        &self,
        field: &'static str,
        raw: Option<String>,
    ) -> Result<Option<NaiveDate>, ApiError> {
        self.parsed(field, raw, "date", parse_date)
    }

    /// `raw` read by `parse`, blank text as absent; an error names the `noun` not read.
    fn parsed<T>(
        &self,
        field: &'static str,
        raw: Option<String>,
        noun: &str,
        parse: fn(&str) -> Result<T, timestamp::Rejected>,
    ) -> Result<Option<T>, ApiError> {
        let Some(text) = raw.as_deref().map(str::trim).filter(|t| !t.is_empty()) else {
            return Ok(None);
        };
        let reason = match parse(text) {
            Ok(value) => return Ok(Some(value)),
            Err(timestamp::Rejected::Unrecognised) => format!(
                "unrecognised {noun} {} ({})",
                quoted(text),
                timestamp::EXPECTED
            ),
            Err(timestamp::Rejected::YearOutOfRange(year)) => format!(
                "{noun} {} has the year {year}; only years 1 to 9999 are accepted",
                quoted(text)
            ),
        };
        Err(self.error(field, reason))
    }

    fn id(&self, field: &'static str, raw: Option<i64>) -> Result<u64, ApiError> {
        match raw {
            None => Err(self.error(field, "missing")),
            Some(n) => u64::try_from(n)
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| self.error(field, format!("expected a positive number, found {n}"))),
        }
    }
}

/// A record's label: its index, and its id where it has one.
pub(super) fn record_label(list: &str, index: usize, noun: &str, id: Option<i64>) -> String {
    match id {
        Some(id) => format!("{list}[{index}] ({noun} {id})"),
        None => format!("{list}[{index}]"),
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct WireMember {
    pub cid: Int,
    name: Text,
    first_name: Text,
    last_name: Text,
    #[serde(deserialize_with = "rating")]
    rating: Option<Rating>,
    join_date: Text,
    facility_join: Text,
    #[serde(deserialize_with = "facility")]
    home_facility: Option<Facility>,
    visit_start: Text,
    /// A full User object's own facility; for a visitor, their home.
    #[serde(deserialize_with = "facility")]
    fir: Option<Facility>,
}

impl WireMember {
    pub(super) fn into_model(
        self,
        place: &RecordPlace,
        is_visitor: bool,
    ) -> Result<Member, ApiError> {
        let cid = place.id("cid", self.cid.0)?;
        let name = clean_opt(self.name.0).or_else(|| {
            let parts: Vec<String> = [self.first_name.0, self.last_name.0]
                .into_iter()
                .filter_map(clean_opt)
                .collect();
            (!parts.is_empty()).then(|| parts.join(" "))
        });
        let joined = match place.date("join_date", self.join_date.0)? {
            Some(date) => Some(date),
            None => place
                .instant("facility_join", self.facility_join.0)?
                .map(|t| t.date_naive()),
        };
        let home_facility = self
            .home_facility
            .or(if is_visitor { self.fir } else { None })
            .and_then(|f| f.display_name());
        Ok(Member {
            cid,
            name,
            rating: self.rating,
            joined,
            home_facility,
            visit_start: place.date("visit_start", self.visit_start.0)?,
        })
    }
}

/// A staff post: `null` (vacant), one person, or (defensively) several.
fn staff_slot<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<WireMember>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Slot {
        One(Box<WireMember>),
        Many(Vec<WireMember>),
    }
    Ok(match Option::<Slot>::deserialize(d)? {
        None => Vec::new(),
        Some(Slot::One(member)) => vec![*member],
        Some(Slot::Many(members)) => members,
    })
}

#[derive(Deserialize, Default)]
pub(super) struct WireStaff {
    #[serde(default, deserialize_with = "staff_slot")]
    atm: Vec<WireMember>,
    #[serde(default, deserialize_with = "staff_slot")]
    datm: Vec<WireMember>,
    #[serde(default, deserialize_with = "staff_slot")]
    ta: Vec<WireMember>,
    #[serde(default, deserialize_with = "staff_slot")]
    ec: Vec<WireMember>,
    #[serde(default, deserialize_with = "staff_slot")]
    fe: Vec<WireMember>,
    #[serde(default, deserialize_with = "staff_slot")]
    wm: Vec<WireMember>,
}

#[derive(Deserialize)]
pub(super) struct WireRoster {
    #[serde(default, deserialize_with = "facility")]
    facility: Option<Facility>,
    staff: Option<WireStaff>,
    #[serde(default, deserialize_with = "list")]
    controllers: Vec<WireMember>,
    #[serde(default, deserialize_with = "list")]
    visitors: Vec<WireMember>,
}

impl WireRoster {
    pub(super) fn into_model(self, endpoint: Endpoint) -> Result<Roster, ApiError> {
        let members = |list: Vec<WireMember>, name: &str, is_visitor: bool| {
            list.into_iter()
                .enumerate()
                .map(|(index, member)| {
                    let place = RecordPlace {
                        endpoint,
                        record: record_label(name, index, "CID", member.cid.0),
                    };
                    member.into_model(&place, is_visitor)
                })
                .collect::<Result<Vec<_>, _>>()
        };
        let staff = self.staff.unwrap_or_default();
        let slots = [
            staff.atm, staff.datm, staff.ta, staff.ec, staff.fe, staff.wm,
        ];
        let mut positions = Vec::with_capacity(6);
        for (role, holders) in StaffRole::ALL.into_iter().zip(slots) {
            let list = format!("data.staff.{}", role.code().to_ascii_lowercase());
            positions.push(StaffPosition {
                role,
                holders: members(holders, &list, false)?,
            });
        }
        Ok(Roster {
            facility: self.facility,
            staff: positions,
            controllers: members(self.controllers, "data.controllers", false)?,
            visitors: members(self.visitors, "data.visitors", true)?,
        })
    }
}

#[derive(Deserialize, Default)]
struct WireAirports {
    #[serde(default, deserialize_with = "codes")]
    arrival: Vec<String>,
    #[serde(default, deserialize_with = "codes")]
    departure: Vec<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct WireEvent {
    pub id: Int,
    name: Text,
    description: Text,
    image_url: Text,
    start: Text,
    end: Text,
    airports: Option<WireAirports>,
    #[serde(deserialize_with = "positions")]
    positions: Vec<Value>,
    facilities: Int,
    created_at: Text,
    updated_at: Text,
}

impl WireEvent {
    pub(super) fn into_model(self, place: &RecordPlace) -> Result<Event, ApiError> {
        let id = place.id("id", self.id.0)?;
        let start = place
            .instant("start", self.start.0)?
            .ok_or_else(|| place.error("start", "missing"))?;
        let airports = self.airports.unwrap_or_default();
        let upper = |codes: Vec<String>| -> Vec<String> {
            codes
                .into_iter()
                .map(|c| clean(c).trim().to_ascii_uppercase())
                .filter(|c| !c.is_empty())
                .collect()
        };
        Ok(Event {
            id,
            name: clean_opt(self.name.0).unwrap_or_default(),
            description: self.description.0.map(clean).unwrap_or_default(),
            image_url: clean_opt(self.image_url.0),
            start,
            end: place.instant("end", self.end.0)?,
            arrival: upper(airports.arrival),
            departure: upper(airports.departure),
            positions: self.positions,
            facilities: self.facilities.0,
            created_at: place.instant("created_at", self.created_at.0)?,
            updated_at: place.instant("updated_at", self.updated_at.0)?,
        })
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct WireDocument {
    name: Text,
    details: Text,
    updated_at: Text,
    url: Text,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct WireCategory {
    name: Text,
    #[serde(deserialize_with = "list")]
    files: Vec<WireDocument>,
}

impl WireCategory {
    pub(super) fn into_model(
        self,
        endpoint: Endpoint,
        index: usize,
    ) -> Result<DocumentCategory, ApiError> {
        let name = clean_opt(self.name.0).unwrap_or_else(|| "Documents".to_owned());
        let files = self
            .files
            .into_iter()
            .enumerate()
            .map(|(file_index, file)| {
                let place = RecordPlace {
                    endpoint,
                    record: format!("[{index}].files[{file_index}]"),
                };
                let url = clean_opt(file.url.0).ok_or_else(|| place.error("url", "missing"))?;
                Ok(Document {
                    name: clean_opt(file.name.0).unwrap_or_else(|| file_name_of(&url)),
                    details: clean_opt(file.details.0),
                    updated: place.date("updated_at", file.updated_at.0)?,
                    url,
                })
            })
            .collect::<Result<Vec<_>, ApiError>>()?;
        Ok(DocumentCategory { name, files })
    }
}

/// A document with no name is called by the last part of its URL.
fn file_name_of(url: &str) -> String {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    path.rsplit('/')
        .find(|part| !part.is_empty())
        .unwrap_or(path)
        .to_owned()
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct WireIntegration {
    id: Int,
    #[serde(rename = "type")]
    kind: Int,
    value: Text,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct WireVisiting {
    facility_id: Int,
    #[serde(deserialize_with = "facility")]
    fir: Option<Facility>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct WireUser {
    cid: Int,
    first_name: Text,
    last_name: Text,
    email: Text,
    email_preferences: Int,
    facility: Int,
    facility_join: Text,
    #[serde(deserialize_with = "rating")]
    rating: Option<Rating>,
    #[serde(deserialize_with = "facility")]
    fir: Option<Facility>,
    #[serde(deserialize_with = "list")]
    visiting_facilities: Vec<WireVisiting>,
    #[serde(deserialize_with = "list")]
    integrations: Vec<WireIntegration>,
}

impl WireUser {
    pub(super) fn into_model(self, endpoint: Endpoint) -> Result<User, ApiError> {
        let place = RecordPlace {
            endpoint,
            record: record_label("data", 0, "CID", self.cid.0).replace("data[0]", "data"),
        };
        Ok(User {
            cid: place.id("cid", self.cid.0)?,
            first_name: clean_opt(self.first_name.0),
            last_name: clean_opt(self.last_name.0),
            email: clean_opt(self.email.0),
            email_preferences: self.email_preferences.0,
            facility_id: self.facility.0,
            facility_join: place.instant("facility_join", self.facility_join.0)?,
            rating: self.rating,
            fir: self.fir,
            visiting_facilities: self
                .visiting_facilities
                .into_iter()
                .map(|v| {
                    v.fir.unwrap_or(Facility {
                        id: v.facility_id.0,
                        ..Facility::default()
                    })
                })
                .collect(),
            integrations: self
                .integrations
                .into_iter()
                .filter_map(|i| {
                    Some(Integration {
                        id: i.id.0,
                        kind: i.kind.0,
                        value: clean_opt(i.value.0)?,
                    })
                })
                .collect(),
        })
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct WireNote {
    pub id: Int,
    instructor_cid: Int,
    instructor_name: Text,
    position_trained: Text,
    training_note: Text,
    session_type: Int,
    marking_sheet: Text,
    #[serde(deserialize_with = "flag")]
    ots_pass: Option<bool>,
    friendly_time: Text,
    created_at: Text,
}

impl WireNote {
    pub(super) fn into_model(self, place: &RecordPlace) -> Result<TrainingNote, ApiError> {
        let positive = |n: Option<i64>| n.and_then(|n| u64::try_from(n).ok()).filter(|&n| n > 0);
        Ok(TrainingNote {
            id: place.id("id", self.id.0)?,
            instructor_cid: positive(self.instructor_cid.0),
            instructor_name: clean_opt(self.instructor_name.0),
            position_trained: clean_opt(self.position_trained.0),
            note: self.training_note.0.map(clean).unwrap_or_default(),
            session_type: self.session_type.0.map(SessionType::from_number),
            marking_sheet: clean_opt(self.marking_sheet.0),
            ots_pass: self.ots_pass.unwrap_or(false),
            date: place.date("friendly_time", self.friendly_time.0)?,
            created_at: place.instant("created_at", self.created_at.0)?,
        })
    }
}
