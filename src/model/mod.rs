//! The API's resources as typed values: what every later stage works from.
//!
//! These types hold only what the site, the feeds and the reports use. Personal data the
//! public site must never show (email addresses, email preferences, integrations) is not kept
//! on roster entries at all, so no template can leak it; it is kept only on [`User`], which
//! feeds the private training report.
//!
//! Text fields have had control characters other than tab and newline removed; they are
//! otherwise as the API sent them (unescaped, possibly HTML).

pub mod activity;
pub mod bookings;
pub mod content;
mod decode;
mod json_path;
mod lenient;
pub mod previous;
mod rating;
mod site;
pub mod timestamp;
mod wire;

pub use decode::{
    decode_division_events, decode_documents, decode_facility_events, decode_notes, decode_roster,
    decode_user,
};
pub use rating::Rating;
pub use site::{SiteData, SitePart, decode_site};

use chrono::{DateTime, NaiveDate, Utc};
use std::fmt;

/// A facility as the roster names it: a full FIR object (spec 2.3), a bare name, or an id.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Facility {
    pub id: Option<i64>,
    pub short_name: Option<String>,
    pub long_name: Option<String>,
    pub website_url: Option<String>,
    pub description: Option<String>,
}

impl Facility {
    /// The best name there is: long, else short, else `Facility <id>`.
    pub fn display_name(&self) -> Option<String> {
        self.long_name
            .clone()
            .or_else(|| self.short_name.clone())
            .or_else(|| self.id.map(|id| format!("Facility {id}")))
    }
}

/// A staff post; shown (and serialised) by its code, `ATM`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum StaffRole {
    Atm,
    Datm,
    Ta,
    Ec,
    Fe,
    Wm,
}

impl StaffRole {
    pub const ALL: [StaffRole; 6] = [
        StaffRole::Atm,
        StaffRole::Datm,
        StaffRole::Ta,
        StaffRole::Ec,
        StaffRole::Fe,
        StaffRole::Wm,
    ];

    pub fn code(self) -> &'static str {
        match self {
            StaffRole::Atm => "ATM",
            StaffRole::Datm => "DATM",
            StaffRole::Ta => "TA",
            StaffRole::Ec => "EC",
            StaffRole::Fe => "FE",
            StaffRole::Wm => "WM",
        }
    }
}

/// A person on the roster: a staff member, home controller or visitor, from either a full
/// User object or one of the reduced shapes (spec 2.7). No contact data on purpose.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Member {
    pub cid: u64,
    /// Full name; `None` if the API sent none.
    pub name: Option<String>,
    pub rating: Option<Rating>,
    /// When the controller joined the facility (`join_date`, or a full User's `facility_join`).
    pub joined: Option<NaiveDate>,
    /// A visitor's home facility, where known.
    pub home_facility: Option<String>,
    pub visit_start: Option<NaiveDate>,
}

impl Member {
    pub fn display_name(&self) -> String {
        self.name
            .clone()
            .unwrap_or_else(|| format!("CID {}", self.cid))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct StaffPosition {
    pub role: StaffRole,
    /// Usually one; empty when the post is vacant (`null`). An array of several is accepted.
    pub holders: Vec<Member>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Roster {
    pub facility: Option<Facility>,
    /// All six posts, always in the order ATM, DATM, TA, EC, FE, WM.
    pub staff: Vec<StaffPosition>,
    pub controllers: Vec<Member>,
    pub visitors: Vec<Member>,
}

impl Roster {
    /// Every member the roster names: its home controllers, its visitors, then the staff's
    /// holders. A member may be named more than once (a controller on the staff).
    pub fn everyone(&self) -> impl Iterator<Item = &Member> {
        let staff = self.staff.iter().flat_map(|post| &post.holders);
        self.controllers.iter().chain(&self.visitors).chain(staff)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub id: u64,
    pub name: String,
    /// Markdown or HTML, untrusted.
    pub description: String,
    pub image_url: Option<String>,
    pub start: DateTime<Utc>,
    /// `None` when the API sent no end.
    pub end: Option<DateTime<Utc>>,
    pub arrival: Vec<String>,
    pub departure: Vec<String>,
    /// Entries of unknown shape (spec 2.6 does not show them), kept as JSON.
    pub positions: Vec<serde_json::Value>,
    /// Bitmask of participating facilities; the bits are not documented.
    pub facilities: Option<i64>,
    pub created_at: Option<DateTime<Utc>>,
    pub updated_at: Option<DateTime<Utc>>,
}

impl Event {
    /// How long an event lasts when the API gives no usable end.
    pub const DEFAULT_LENGTH: chrono::TimeDelta = chrono::TimeDelta::hours(2);

    /// Whether the API's end can be used: present and after the start.
    pub fn has_valid_end(&self) -> bool {
        self.end.is_some_and(|end| end > self.start)
    }

    /// When the event ends, for pages and calendars alike: the API's end, or
    /// [`Event::DEFAULT_LENGTH`] after the start when the end is missing or not after the start
    /// (a calendar event must end after it starts, and most events here run about two hours).
    pub fn effective_end(&self) -> DateTime<Utc> {
        match self.end {
            Some(end) if end > self.start => end,
            // Checked: a start late in year 9999 would otherwise leave the range (or
            // overflow chrono near its own limits).
            _ => timestamp::add_clamped(self.start, Self::DEFAULT_LENGTH),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct DocumentCategory {
    pub name: String,
    pub files: Vec<Document>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    pub name: String,
    pub details: Option<String>,
    pub updated: Option<NaiveDate>,
    /// As the API sent it: absolute, or relative to the base URL; not yet checked.
    pub url: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Integration {
    pub id: Option<i64>,
    /// The meaning of the type values is not documented.
    pub kind: Option<i64>,
    /// Always text: Discord ids exceed 2^53 and would lose digits as numbers.
    pub value: String,
}

/// One user's full record (spec 2.1), for the private training report.
#[derive(Clone, Debug, PartialEq)]
pub struct User {
    pub cid: u64,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub email: Option<String>,
    pub email_preferences: Option<i64>,
    pub facility_id: Option<i64>,
    pub facility_join: Option<DateTime<Utc>>,
    pub rating: Option<Rating>,
    pub fir: Option<Facility>,
    pub visiting_facilities: Vec<Facility>,
    pub integrations: Vec<Integration>,
}

impl User {
    pub fn display_name(&self) -> String {
        let parts: Vec<&str> = [&self.first_name, &self.last_name]
            .into_iter()
            .flatten()
            .map(|s| s.as_str())
            .filter(|s| !s.is_empty())
            .collect();
        if parts.is_empty() {
            format!("CID {}", self.cid)
        } else {
            parts.join(" ")
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionType {
    Sweatbox,
    LiveNetwork,
    Ots,
    Classroom,
    Unknown(i64),
}

impl SessionType {
    pub fn from_number(n: i64) -> SessionType {
        match n {
            0 => SessionType::Sweatbox,
            1 => SessionType::LiveNetwork,
            2 => SessionType::Ots,
            3 => SessionType::Classroom,
            other => SessionType::Unknown(other),
        }
    }
}

impl fmt::Display for SessionType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SessionType::Sweatbox => f.write_str("sweatbox"),
            SessionType::LiveNetwork => f.write_str("live network"),
            SessionType::Ots => f.write_str("OTS"),
            SessionType::Classroom => f.write_str("classroom"),
            SessionType::Unknown(n) => write!(f, "unknown session type ({n})"),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct TrainingNote {
    pub id: u64,
    pub instructor_cid: Option<u64>,
    pub instructor_name: Option<String>,
    pub position_trained: Option<String>,
    /// Markdown, untrusted.
    pub note: String,
    pub session_type: Option<SessionType>,
    pub marking_sheet: Option<String>,
    /// `ots_pass`: 1 is a pass; 0 means a fail or not applicable (spec 2.5).
    pub ots_pass: bool,
    /// `friendly_time`, the session's date.
    pub date: Option<NaiveDate>,
    pub created_at: Option<DateTime<Utc>>,
}
