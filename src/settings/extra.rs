//! `[extra]`: a theme's own settings, passed to every template as written, TOML's values
//! turned into JSON's.

use super::values::invalid;
use serde::Deserialize;

/// `[extra]` as the templates get it: TOML's values as JSON's, a date as its text. A float
/// that is not a number (`nan`, `inf`) has no JSON value, and is refused naming its key.
pub(super) fn extra<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<serde_json::Map<String, serde_json::Value>, D::Error> {
    let table = toml::Table::deserialize(d)?;
    as_json_table(table, "extra").or_else(|key| {
        invalid(format!(
            "{key}: nan and inf are not numbers a template can show; write them as text, in quotes"
        ))
        .map_err(serde::de::Error::custom)
    })
}

/// A TOML table's values as JSON's; `Err` names the key (`extra.a.b[2]`) of a float that
/// JSON cannot hold.
fn as_json_table(
    table: toml::Table,
    path: &str,
) -> Result<serde_json::Map<String, serde_json::Value>, String> {
    table
        .into_iter()
        .map(|(key, value)| {
            let value = as_json(value, &format!("{path}.{key}"))?;
            Ok((key, value))
        })
        .collect()
}

fn as_json(value: toml::Value, path: &str) -> Result<serde_json::Value, String> {
    use serde_json::Value as Json;
    Ok(match value {
        toml::Value::String(text) => Json::String(text),
        toml::Value::Integer(number) => Json::from(number),
        toml::Value::Float(number) => serde_json::Number::from_f64(number)
            .map(Json::Number)
            .ok_or_else(|| path.to_owned())?,
        toml::Value::Boolean(flag) => Json::Bool(flag),
        toml::Value::Datetime(time) => Json::String(time.to_string()),
        toml::Value::Array(items) => Json::Array(
            (items.into_iter().enumerate())
                .map(|(i, item)| as_json(item, &format!("{path}[{i}]")))
                .collect::<Result<_, _>>()?,
        ),
        toml::Value::Table(table) => Json::Object(as_json_table(table, path)?),
    })
}
