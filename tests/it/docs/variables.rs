//! The variables tables of docs/templates.md: every path through each template's contexts,
//! its types, and a first example.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// One table per template: its contexts' paths, each with its types and an example.
pub fn tables(contexts: &[(String, Value)]) -> String {
    let mut by_template: BTreeMap<&str, BTreeMap<String, Shape>> = BTreeMap::new();
    for (template, context) in contexts {
        walk(
            context,
            String::new(),
            by_template.entry(template).or_default(),
        );
    }
    let mut out = String::new();
    for (template, shapes) in &by_template {
        out.push_str(&format!(
            "\n## {template}\n\n| variable | type | example |\n|---|---|---|\n"
        ));
        for (path, shape) in shapes {
            let kinds: Vec<&str> = shape.kinds.iter().map(String::as_str).collect();
            out.push_str(&format!(
                "| `{path}` | {} | {} |\n",
                kinds.join(" or "),
                shape
                    .example
                    .as_deref()
                    .map(|e| format!("`{e}`"))
                    .unwrap_or_default()
            ));
        }
    }
    out
}

/// What a path holds across the contexts: each type seen, and the first example.
#[derive(Default)]
struct Shape {
    kinds: BTreeSet<String>,
    example: Option<String>,
}

/// Records `value` at `path`, then everything below it.
fn walk(value: &Value, path: String, shapes: &mut BTreeMap<String, Shape>) {
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "text",
        Value::Array(_) => "list",
        Value::Object(_) => "object",
    };
    if !path.is_empty() {
        let shape = shapes.entry(path.clone()).or_default();
        shape.kinds.insert(kind.to_owned());
        if shape.example.is_none() {
            shape.example = match value {
                Value::String(s) if !s.is_empty() => Some(example(s)),
                Value::Number(n) => Some(n.to_string()),
                Value::Bool(b) => Some(b.to_string()),
                _ => None,
            };
        }
    }
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                let child = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                walk(item, child, shapes);
            }
        }
        Value::Array(items) => {
            for item in items {
                walk(item, format!("{path}[]"), shapes);
            }
        }
        _ => {}
    }
}

/// A short, table-safe example.
fn example(text: &str) -> String {
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let short: String = one_line.chars().take(48).collect();
    let short = if short.len() < one_line.len() {
        format!("{short}…")
    } else {
        short
    };
    short.replace('|', "\\|").replace('`', "'")
}
