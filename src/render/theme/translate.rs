//! `t()`: the catalogue's texts, as templates call them.

use crate::i18n::{self as texts, Texts};
use crate::render::escape::escape_html;
use std::collections::HashMap;
use std::sync::Arc;

pub(super) const UNKNOWN_KEY: &str = "unknown text key `";

/// `t(key="...", n=..., name=value...)`: the text of `key` in the site's language, `{name}`
/// filled from the arguments; with `n`, the form of the key that count takes (`key.one` or
/// `key.other`). The text is plain and escaped like any value, except under keys ending in
/// `_html`: those are markup from the catalogue, with their arguments escaped here, printed
/// with `| safe`. The catalogue stays in the function: no page's context carries it.
pub(super) struct Translate(pub(super) Arc<Texts>);

impl tera::Function for Translate {
    fn call(&self, args: &HashMap<String, tera::Value>) -> tera::Result<tera::Value> {
        let Some(key) = args.get("key").and_then(tera::Value::as_str) else {
            return Err(tera::Error::msg(
                "t() needs the text's key as text: t(key=\"nav.home\")",
            ));
        };
        let whole = |n: &tera::Value| {
            let message = || format!("t(key=\"{key}\"): n must be a whole number, found {n}");
            n.as_i64().ok_or_else(|| tera::Error::msg(message()))
        };
        let count = args.get("n").map(whole).transpose()?;
        let full = match count {
            Some(n) => self.0.plural_key(key, n),
            None => key.to_owned(),
        };
        let Some(text) = self.0.get(&full) else {
            return Err(tera::Error::msg(format!(
                "{UNKNOWN_KEY}{key}`{}",
                if count.is_some() {
                    " (with n: `.one` and `.other`)"
                } else {
                    ""
                }
            )));
        };
        let html = key.ends_with("_html");
        let filled = texts::fill(text, |name| {
            let value = match args.get(name)? {
                tera::Value::String(text) => text.clone(),
                tera::Value::Null => String::new(),
                other => other.to_string(),
            };
            Some(if html { escape_html(&value) } else { value })
        })
        .map_err(|missing| {
            tera::Error::msg(format!(
                "t(key=\"{key}\"): the text {text:?} needs the argument `{missing}`"
            ))
        })?;
        Ok(tera::Value::String(filled))
    }
}
