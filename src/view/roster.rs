//! The roster page: staff posts, controllers and visitors, in an order that is the same on
//! every build.

use crate::model::{Member, Roster, StaffRole};
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct StaffRow {
    pub code: &'static str,
    pub title: &'static str,
    /// Names; empty when vacant.
    pub names: Vec<String>,
    /// The role's address from the configuration (never the API's personal one).
    pub email: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct PersonRow {
    pub cid: u64,
    pub name: String,
    pub rating_code: String,
    pub rating_name: String,
    pub joined: Option<String>,
    pub home_facility: Option<String>,
    pub visit_start: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RosterPage {
    pub staff: Vec<StaffRow>,
    pub controllers: Vec<PersonRow>,
    pub visitors: Vec<PersonRow>,
    /// Controllers per rating code, highest rating first.
    pub rating_counts: Vec<RatingCount>,
}

/// How many home controllers hold one rating.
#[derive(Clone, Debug, Serialize)]
pub struct RatingCount {
    /// `C1`; empty for controllers without a rating.
    pub code: String,
    pub controllers: usize,
}

pub(super) fn person(member: &Member) -> PersonRow {
    PersonRow {
        cid: member.cid,
        name: member.display_name(),
        rating_code: member
            .rating
            .map(|r| r.code().into_owned())
            .unwrap_or_default(),
        rating_name: member
            .rating
            .map(|r| r.name().into_owned())
            .unwrap_or_default(),
        joined: member.joined.map(|d| d.format("%Y-%m-%d").to_string()),
        home_facility: member.home_facility.clone(),
        visit_start: member.visit_start.map(|d| d.format("%Y-%m-%d").to_string()),
    }
}

/// Highest rating first, then name (case-insensitively), then CID, so that the order is the
/// same on every build.
pub(super) fn sorted_people(members: &[Member]) -> Vec<PersonRow> {
    let mut sorted: Vec<&Member> = members.iter().collect();
    sorted.sort_by_cached_key(|m| {
        (
            std::cmp::Reverse(m.rating.map_or(i64::MIN, |r| r.number())),
            m.display_name().to_lowercase(),
            m.cid,
        )
    });
    sorted.into_iter().map(person).collect()
}

pub fn roster_page(roster: &Roster) -> RosterPage {
    let staff = StaffRole::ALL
        .iter()
        .map(|role| {
            let holders = roster
                .staff
                .iter()
                .find(|p| p.role == *role)
                .map(|p| p.holders.iter().map(Member::display_name).collect())
                .unwrap_or_default();
            StaffRow {
                code: role.code(),
                title: role.title(),
                names: holders,
                email: None,
            }
        })
        .collect();
    let controllers = sorted_people(&roster.controllers);
    let mut rating_counts: Vec<RatingCount> = Vec::new();
    for row in &controllers {
        match rating_counts.last_mut() {
            Some(last) if last.code == row.rating_code => last.controllers += 1,
            _ => rating_counts.push(RatingCount {
                code: row.rating_code.clone(),
                controllers: 1,
            }),
        }
    }
    RosterPage {
        staff,
        controllers,
        visitors: sorted_people(&roster.visitors),
        rating_counts,
    }
}
