//! Arbitrary bytes and arbitrary JSON, fed to every endpoint's decoder: each returns a value
//! or an error, and never panics. Real bodies with one node replaced at random reach the
//! deep corners of the decoders that random top-level JSON never does.

use proptest::prelude::*;
use serde_json::{Map, Value};
use vatcar_site::model;

fn decode_everything(body: &[u8]) {
    let _ = model::decode_roster(body);
    let _ = model::decode_facility_events(body);
    let _ = model::decode_division_events(body);
    let _ = model::decode_documents(body);
    let _ = model::decode_user(1, body);
    let _ = model::decode_notes(1, body);
}

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        ".{0,24}".prop_map(Value::String),
        prop_oneof![
            Just("2025-11-05 23:00:00"),
            Just("05-Nov-2025"),
            Just("2025-02-30"),
            Just("positions"),
            Just("C1"),
            Just("-1"),
            Just("99999999999999999999999"),
        ]
        .prop_map(|s| Value::String(s.into())),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        let keys = prop_oneof![
            Just("data".to_owned()),
            Just("success".to_owned()),
            Just("error".to_owned()),
            Just("notes".to_owned()),
            Just("positions".to_owned()),
            Just("staff".to_owned()),
            Just("controllers".to_owned()),
            Just("id".to_owned()),
            Just("start".to_owned()),
            "[a-z_]{1,8}",
        ];
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((keys, inner), 0..6)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Every node of `value`, as pointers.
fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                pointers(item, format!("{at}/{i}"), out);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                pointers(
                    v,
                    format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        _ => {}
    }
}

const DEMO: [&str; 6] = [
    include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/demo/facility-roster.json"
    )),
    include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/demo/facility-events.json"
    )),
    include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/demo/facility-documents.json"
    )),
    include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/demo/division-events.json"
    )),
    include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/demo/user-1590318.json"
    )),
    include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/demo/notes-1590318.json"
    )),
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(body in prop::collection::vec(any::<u8>(), 0..512)) {
        decode_everything(&body);
    }

    #[test]
    fn arbitrary_json_never_panics(value in arbitrary_json()) {
        decode_everything(value.to_string().as_bytes());
        let wrapped = serde_json::json!({"success": true, "data": value.clone(), "notes": value});
        decode_everything(wrapped.to_string().as_bytes());
    }

    #[test]
    fn real_bodies_with_one_node_replaced_never_panic(
        file in 0..DEMO.len(),
        pick in any::<prop::sample::Index>(),
        replacement in arbitrary_json(),
    ) {
        let mut value: Value = serde_json::from_str(DEMO[file]).unwrap();
        let mut all = Vec::new();
        pointers(&value, String::new(), &mut all);
        let pointer = &all[pick.index(all.len())];
        if pointer.is_empty() {
            value = replacement;
        } else if let Some(node) = value.pointer_mut(pointer) {
            *node = replacement;
        }
        decode_everything(value.to_string().as_bytes());
    }

    #[test]
    fn truncated_real_bodies_are_errors(file in 0..DEMO.len(), cut in any::<prop::sample::Index>()) {
        let body = DEMO[file].as_bytes();
        let cut = cut.index(body.len() - 1);
        // Cutting a body anywhere short of its closing brace breaks it.
        let cut_body = &body[..cut];
        if !cut_body.trim_ascii().is_empty() {
            prop_assert!(model::decode_roster(cut_body).is_err());
            prop_assert!(model::decode_facility_events(cut_body).is_err());
            prop_assert!(model::decode_documents(cut_body).is_err());
        }
    }
}
