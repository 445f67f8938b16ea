//! Every response shape the spec and the real API show, decoded as a build decodes them, and
//! the errors for shapes no variant explains. The bodies go straight to the model's decoders:
//! the client hands bodies on byte for byte (`client.rs` checks that, and one test there goes
//! from the wire through the decoder).
//!
//! Expected messages spell out `GET /api/v2/...` on purpose: that is what the webmaster reads.

use crate::support::demo_body;
use chrono::{NaiveDate, TimeZone, Utc};
use serde_json::json;
use vatcar_site::fetch::error::ApiError;
use vatcar_site::model::{self, Rating, SessionType, StaffRole};

fn roster(body: serde_json::Value) -> Result<model::Roster, ApiError> {
    model::decode_roster(body.to_string().as_bytes())
}

fn events(body: serde_json::Value) -> Result<Vec<model::Event>, ApiError> {
    model::decode_facility_events(body.to_string().as_bytes())
}

fn utc(y: i32, m: u32, d: u32, h: u32, min: u32) -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(y, m, d, h, min, 0).unwrap()
}

#[test]
fn demo_roster_reduced_shapes_and_string_facility() {
    let roster = model::decode_roster(&demo_body("facility-roster.json")).unwrap();
    assert_eq!(
        roster.facility.unwrap().display_name().unwrap(),
        "San Juan CERAP"
    );
    assert_eq!(roster.controllers.len(), 40);
    assert_eq!(roster.visitors.len(), 8);
    let roles: Vec<StaffRole> = roster.staff.iter().map(|s| s.role).collect();
    assert_eq!(roles, StaffRole::ALL);
    let holders = |role: StaffRole| {
        roster
            .staff
            .iter()
            .find(|s| s.role == role)
            .unwrap()
            .holders
            .clone()
    };
    assert_eq!(
        holders(StaffRole::Atm)[0].name.as_deref(),
        Some("Marisol Vega-Torres")
    );
    assert!(holders(StaffRole::Ec).is_empty(), "ec is null: vacant");
    assert!(holders(StaffRole::Wm).is_empty(), "wm is null: vacant");
    // Full User objects and reduced entries side by side, both with names and join dates.
    assert!(
        roster
            .controllers
            .iter()
            .all(|c| c.name.is_some() && c.rating.is_some())
    );
    let visitor = roster.visitors.iter().find(|v| v.cid == 1547761).unwrap();
    assert_eq!(visitor.home_facility.as_deref(), Some("Piarco FIR"));
    assert!(visitor.visit_start.is_some());
}

#[test]
fn full_user_objects_facility_object_and_every_null_staff_post() {
    let fir = json!({"id": 7, "name_long": "San Juan CERAP", "name_short": "TJZS",
        "website_url": "https://tjzs.example.org", "email_format": "x", "fir_description": "d",
        "is_fir": 1, "created_at": "2019-02-11T14:05:31.000000Z", "updated_at": "2019-02-11T14:05:31.000000Z"});
    let user = |cid: u64, rating: i64, extra: serde_json::Value| {
        let mut user = json!({
            "cid": cid, "first_name": "Ana", "last_name": format!("N{cid}"), "email": "ana@example.com",
            "email_preferences": 7, "facility": 7, "facility_join": "2022-03-14T18:22:05.000000Z",
            "rating": rating, "last_active": "2026-11-19 22:41:07", "flag_visible": 1, "flag_basic": 1,
            "flag_staff_assign": 0, "flag_is_visitor": 0, "flag_xferOverride": 0,
            "last_api_check": "2026-11-20 06:00:13", "created_at": "2024-09-30T18:27:36.000000Z",
            "updated_at": "2026-11-19T22:41:20.000000Z",
            "integrations": [{"id": 1, "type": 1, "user_cid": cid, "value": "412345678901234567",
                "created_at": "2025-02-02T03:18:55.000000Z", "updated_at": "2025-02-02T03:18:55.000000Z"}],
            "fir": fir.clone(), "visiting_facilities": [], "role_assignments": [],
            "some_future_field": {"nested": [1, 2, 3]}
        });
        user.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        user
    };
    let body = json!({
        "success": "Roster retrieved successfully",
        "data": {
            "facility": fir,
            "staff": {"atm": null, "datm": null, "ta": null, "ec": null, "fe": null, "wm": user(1300009, 5, json!({}))},
            "controllers": [user(1300001, 5, json!({})), user(1300002, 12, json!({"facility_join": null}))],
            "visitors": [user(1300003, 3, json!({"fir": {"id": 12, "name_long": "Piarco FIR", "name_short": "TTZP"}}))]
        }
    });
    let roster = roster(body).unwrap();
    let facility = roster.facility.unwrap();
    assert_eq!(
        (facility.id, facility.short_name.as_deref()),
        (Some(7), Some("TJZS"))
    );
    assert!(roster.staff.iter().take(5).all(|s| s.holders.is_empty()));
    assert_eq!(
        roster.staff[5].holders[0].name.as_deref(),
        Some("Ana N1300009")
    );
    let first = &roster.controllers[0];
    assert_eq!(first.joined, NaiveDate::from_ymd_opt(2022, 3, 14));
    assert_eq!(first.rating, Some(Rating::C1));
    assert_eq!(roster.controllers[1].rating, Some(Rating::Administrator));
    assert_eq!(roster.controllers[1].joined, None);
    assert_eq!(
        roster.visitors[0].home_facility.as_deref(),
        Some("Piarco FIR")
    );
}

#[test]
fn staff_post_holding_several_people_is_read() {
    let body = json!({"success": true, "data": {"facility": "X", "staff": {
        "atm": {"cid": 1, "name": "A"}, "datm": [{"cid": 2, "name": "B"}, {"cid": 3, "name": "C"}],
        "ta": {"cid": 4, "name": "D"}}, "controllers": [], "visitors": []}});
    let roster = roster(body).unwrap();
    assert_eq!(roster.staff[1].holders.len(), 2);
    assert!(
        roster.staff[3].holders.is_empty(),
        "missing keys are vacant"
    );
}

#[test]
fn every_rating_number_reads_and_unknown_ones_are_not_errors() {
    let controllers: Vec<_> = (-1..=14)
        .map(|n| json!({"cid": 1_300_100 + n, "name": format!("R{n}"), "rating": n}))
        .chain([
            json!({"cid": 1_300_200, "name": "Text", "rating": "7"}),
            json!({"cid": 1_300_201, "name": "Code", "rating": "I1"}),
            json!({"cid": 1_300_202, "name": "None", "rating": null}),
        ])
        .collect();
    let roster = roster(json!({"success": true, "data": {"controllers": controllers}})).unwrap();
    let codes: Vec<String> = roster
        .controllers
        .iter()
        .map(|c| {
            c.rating
                .map(|r| format!("{} {}", r.code(), r.name()))
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(
        codes,
        [
            "INA Inactive",
            "SUS Suspended",
            "OBS Observer",
            "S1 Tower Trainee",
            "S2 Tower Controller",
            "S3 Senior Student",
            "C1 Enroute Controller",
            "C2 Controller 2",
            "C3 Senior Controller",
            "I1 Instructor",
            "I2 Instructor 2",
            "I3 Senior Instructor",
            "SUP Supervisor",
            "ADM Administrator",
            "Unknown (13) Unknown (13)",
            "Unknown (14) Unknown (14)",
            "C3 Senior Controller",
            "I1 Instructor",
            "",
        ]
    );
}

#[test]
fn positions_in_every_documented_form() {
    let event = |id: u64, positions: serde_json::Value| {
        json!({"id": id, "name": "E", "start": "2025-11-05 23:00:00", "end": "2025-11-06 02:00:00",
               "airports": {"arrival": ["TJSJ"], "departure": ["TJSJ"]}, "positions": positions})
    };
    let body = json!({"success": "Events retrieved", "data": [
        event(1, json!(null)),
        event(2, json!({"positions": null})),
        event(3, json!({"positions": []})),
        event(4, json!({"positions": [{"position": "TJSJ_TWR", "cid": 1312345}, {"callsign": "SJU_CTR", "weird": [1]}, "TJSJ_GND"]})),
    ]});
    let events = events(body).unwrap();
    let counts: Vec<usize> = events.iter().map(|e| e.positions.len()).collect();
    assert_eq!(counts, [0, 0, 0, 3]);
    assert_eq!(events[3].positions[1]["callsign"], "SJU_CTR");
}

#[test]
fn every_timestamp_format_is_utc() {
    let body = json!({"success": "ok", "data": [
        {"id": 1, "name": "space", "start": "2025-11-05 23:00:00", "end": "2025-11-06 02:30:00"},
        {"id": 2, "name": "iso micro", "start": "2025-11-05T23:00:00.000000Z", "end": "2025-11-06T02:30:00.000000Z"},
        {"id": 3, "name": "iso plain", "start": "2025-11-05T23:00:00Z", "end": null},
        {"id": 4, "name": "date only", "start": "2025-11-05"},
        {"id": 5, "name": "offset", "start": "2025-11-05T19:00:00-04:00", "end": ""},
    ]});
    let events = events(body).unwrap();
    let start = utc(2025, 11, 5, 23, 0);
    assert_eq!(events[0].start, start);
    assert_eq!(events[0].end, Some(utc(2025, 11, 6, 2, 30)));
    assert_eq!(events[1].start, start);
    assert_eq!(events[1].end, Some(utc(2025, 11, 6, 2, 30)));
    assert_eq!((events[2].start, events[2].end), (start, None));
    assert_eq!(events[3].start, utc(2025, 11, 5, 0, 0));
    assert_eq!((events[4].start, events[4].end), (start, None));
}

#[test]
fn a_bad_timestamp_names_the_endpoint_record_and_field() {
    let body = json!({"success": "ok", "data": [
        {"id": 41, "name": "fine", "start": "2025-11-05 23:00:00"},
        {"id": 42, "name": "broken", "start": "2025-11-05 23:00:00", "end": "2025-13-45 99:00:00"},
    ]});
    let error = events(body).unwrap_err();
    assert_eq!(
        error.to_string(),
        "GET /api/v2/facility/events: data[1] (event 42), field `end`: unrecognised timestamp \
         \"2025-13-45 99:00:00\" (expected YYYY-MM-DD HH:MM:SS, ISO 8601, YYYY-MM-DD or DD-Mon-YYYY)"
    );
}

#[test]
fn a_record_without_its_id_or_start_is_an_error() {
    let error =
        events(json!({"data": [{"name": "no id", "start": "2025-11-05 23:00:00"}]})).unwrap_err();
    assert_eq!(
        error.to_string(),
        "GET /api/v2/facility/events: data[0], field `id`: missing"
    );
    let error = events(json!({"data": [{"id": 9, "name": "no start"}]})).unwrap_err();
    assert_eq!(
        error.to_string(),
        "GET /api/v2/facility/events: data[0] (event 9), field `start`: missing"
    );
}

#[test]
fn wrong_shape_names_the_json_path() {
    let body = json!({"success": true, "data": {"controllers": [
        {"cid": 1, "name": "ok", "rating": 5},
        {"cid": 2, "name": "bad", "rating": {"short": "C1"}}
    ]}});
    assert_eq!(
        roster(body).unwrap_err().to_string(),
        "GET /api/v2/facility/roster: unexpected JSON at `data.controllers[1].rating`: expected an integer, found an object"
    );
    let error = events(json!({"success": "ok", "data": {"not": "a list"}})).unwrap_err();
    assert!(
        matches!(&error, ApiError::Shape { path, .. } if path == "data"),
        "{error:?}"
    );
    let error = events(json!({"success": "ok", "data": [{"id": 1, "start": "2025-01-01", "airports": {"arrival": [{"icao": "TJSJ"}]}}]})).unwrap_err();
    assert!(
        error.to_string().contains("data[0].airports.arrival"),
        "{error}"
    );
}

#[test]
fn success_may_be_any_wording_or_a_boolean_but_false_or_error_is_failure() {
    for success in [
        json!(true),
        json!("Events retrieved successfully"),
        json!("OK"),
        json!(null),
    ] {
        assert!(
            events(json!({"success": success, "data": []})).is_ok(),
            "{success}"
        );
    }
    let error = events(json!({"success": false, "data": null})).unwrap_err();
    assert!(matches!(error, ApiError::Reported { .. }), "{error:?}");
    let error = events(json!({"error": "Facility not found"})).unwrap_err();
    assert_eq!(
        error.to_string(),
        "GET /api/v2/facility/events: the API reported an error: Facility not found"
    );
}

#[test]
fn documents_as_a_bare_array_or_wrapped() {
    let file = json!({"name": "TJSJ SOP", "details": null, "updated_at": "05-Nov-2025",
                      "url": "https://vatcar.net/storage/files/TJSJ SOP.pdf"});
    for body in [
        json!([{"name": "SOPs", "files": [file]}]),
        json!({"success": "ok", "data": [{"name": "SOPs", "files": [file]}]}),
    ] {
        let categories = model::decode_documents(body.to_string().as_bytes()).unwrap();
        let doc = &categories[0].files[0];
        assert_eq!(categories[0].name, "SOPs");
        assert_eq!(doc.updated, NaiveDate::from_ymd_opt(2025, 11, 5));
        assert_eq!(doc.details, None);
        assert_eq!(doc.url, "https://vatcar.net/storage/files/TJSJ SOP.pdf");
    }
    let demo = model::decode_documents(&demo_body("facility-documents.json")).unwrap();
    assert_eq!(demo.len(), 3);
    let error = model::decode_documents(
        br#"[{"name": "x", "files": [{"name": "y", "updated_at": "someday", "url": "/a.pdf"}]}]"#,
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "GET /api/v2/facility/documents: [0].files[0], field `updated_at`: unrecognised date \"someday\" \
         (expected YYYY-MM-DD HH:MM:SS, ISO 8601, YYYY-MM-DD or DD-Mon-YYYY)"
    );
}

#[test]
fn integration_values_keep_every_digit() {
    // 2^53 + 1 would become ...992 as a float.
    let body = json!({"success": "ok", "data": {"cid": 1590318, "first_name": "T", "last_name": "G",
        "integrations": [
            {"id": 1, "type": 1, "value": "412345678901234567"},
            {"id": 2, "type": 1, "value": 9007199254740993u64},
            {"id": 3, "type": 2, "value": "pilot_jm_77"}]}});
    let user = model::decode_user(1590318, body.to_string().as_bytes()).unwrap();
    let values: Vec<&str> = user.integrations.iter().map(|i| i.value.as_str()).collect();
    assert_eq!(
        values,
        ["412345678901234567", "9007199254740993", "pilot_jm_77"]
    );
}

#[test]
fn demo_users_and_notes() {
    let user = model::decode_user(1547761, &demo_body("user-1547761.json")).unwrap();
    assert_eq!(user.facility_id, Some(12));
    assert_eq!(user.visiting_facilities.len(), 1);
    let notes = model::decode_notes(1590318, &demo_body("notes-1590318.json")).unwrap();
    assert_eq!(notes.len(), 9);
    let types: std::collections::HashSet<String> = notes
        .iter()
        .map(|n| n.session_type.unwrap().to_string())
        .collect();
    assert_eq!(types.len(), 4, "{types:?}");
    assert!(
        notes
            .iter()
            .any(|n| n.session_type == Some(SessionType::Ots) && n.ots_pass)
    );
    assert!(
        notes
            .iter()
            .any(|n| n.session_type == Some(SessionType::Ots) && !n.ots_pass)
    );
    let none = model::decode_notes(1612745, &demo_body("notes-1612745.json")).unwrap();
    assert!(none.is_empty());
    let denied = model::decode_notes(1547761, &demo_body("notes-1547761.json")).unwrap_err();
    assert!(
        matches!(denied, ApiError::NotesPermission { cid: 1547761, .. }),
        "{denied:?}"
    );
}

#[test]
fn note_flags_and_session_types_in_every_spelling() {
    let body = json!({"success": "ok", "notes": [
        {"id": 1, "session_type": 2, "ots_pass": 1, "friendly_time": "2026-06-12"},
        {"id": 2, "session_type": "2", "ots_pass": "0", "friendly_time": "2026-06-13"},
        {"id": 3, "session_type": 7, "ots_pass": true},
        {"id": 4, "session_type": null, "ots_pass": null, "training_note": "a\r\nb\u{0007}c"}]});
    let notes = model::decode_notes(5, body.to_string().as_bytes()).unwrap();
    assert_eq!(
        notes
            .iter()
            .map(|n| (n.session_type, n.ots_pass))
            .collect::<Vec<_>>(),
        [
            (Some(SessionType::Ots), true),
            (Some(SessionType::Ots), false),
            (Some(SessionType::Unknown(7)), true),
            (None, false)
        ]
    );
    assert_eq!(
        notes[3].note, "a\nbc",
        "CRLF folded, control characters removed"
    );
}

#[test]
fn text_with_html_and_control_characters_is_kept_as_text_without_controls() {
    let body = json!({"success": "ok", "data": [{"id": 1, "start": "2025-01-01 10:00:00",
        "name": "<script>alert(1)</script>\u{0000}\u{001b}[31mRed",
        "description": "<img src=x onerror=alert(1)>"}]});
    let event = &events(body).unwrap()[0];
    assert_eq!(event.name, "<script>alert(1)</script>[31mRed");
    assert_eq!(event.description, "<img src=x onerror=alert(1)>");
}

#[test]
fn broken_or_foreign_bodies_are_errors_that_say_so() {
    let error = model::decode_roster(b"<html>Bad gateway</html>").unwrap_err();
    assert!(matches!(error, ApiError::NotJson { .. }), "{error:?}");
    assert!(
        error.to_string().contains("<html>Bad gateway</html>"),
        "{error}"
    );
    let error = model::decode_roster(br#"{"success": true, "data": {"controllers": [{"cid": 1"#)
        .unwrap_err();
    assert!(matches!(error, ApiError::InvalidJson { .. }), "{error:?}");
    let error = model::decode_facility_events(b"[1, 2]").unwrap_err();
    assert_eq!(
        error.to_string(),
        "GET /api/v2/facility/events: unexpected JSON at `(top level)`: expected the response object, found an array"
    );
}

/// Fields the spec shows that no page reads (an event's forum thread, a user's role
/// assignments, a note's author and facility) are not decoded, so no value of theirs, of
/// whatever shape, can fail an endpoint.
#[test]
fn fields_no_page_reads_hold_anything() {
    let odd = json!({"nested": [1, {"deep": null}]});
    let body = json!({"success": "ok", "data": [{"id": 7, "name": "E", "start": "2025-11-05 23:00:00",
        "forum_event_id": odd}]});
    assert_eq!(events(body).unwrap()[0].id, 7);
    let body = json!({"success": "ok", "data": {"cid": 1590318, "first_name": "T", "last_name": "G",
        "role_assignments": odd}});
    let user = model::decode_user(1590318, body.to_string().as_bytes()).unwrap();
    assert_eq!(user.cid, 1590318);
    let body =
        json!({"success": "ok", "notes": [{"id": 1, "user_cid": odd, "facility_id": "TJZS"}]});
    let notes = model::decode_notes(5, body.to_string().as_bytes()).unwrap();
    assert_eq!(notes.len(), 1);
}
