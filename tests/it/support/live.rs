//! Mocks of VATSIM's live sources, written from their published shapes, on 127.0.0.1: the
//! ATC bookings list (vatsimnetwork/atc-bookings, `public/api-spec.json`), a bare JSON array
//! of `{id, cid, type, callsign, start, end, division, subdivision}`, times in UTC as
//! `YYYY-MM-DD HH:MM:SS`, served without a CORS header, as the real one is.

use super::mock::BOOKINGS_PATH;
use super::{MockServer, Reply};
use serde_json::{Value, json};

/// One booking as the bookings API lists it.
pub fn booking(id: u64, cid: Value, kind: &str, callsign: &str, start: &str, end: &str) -> Value {
    json!({
        "id": id,
        "cid": cid,
        "type": kind,
        "callsign": callsign,
        "start": start,
        "end": end,
        "division": "CAR",
        "subdivision": null,
    })
}

/// A bookings API answering every request with `reply`.
pub fn bookings_server(reply: Reply) -> MockServer {
    let server = MockServer::start();
    server.route_path(BOOKINGS_PATH, vec![reply]);
    server
}

/// The address of a mock's bookings list.
pub fn bookings_url(server: &MockServer) -> String {
    format!("{}{BOOKINGS_PATH}", server.url())
}
