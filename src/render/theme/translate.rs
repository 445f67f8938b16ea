//! `t()`: the catalogue's texts, as templates call them.

use crate::i18n::{self as texts, Texts};
use crate::render::budget;
use crate::render::escape::escape_html;
use std::collections::HashMap;
use std::sync::Arc;

pub(super) const UNKNOWN_KEY: &str = "unknown text key `";

/// The most bytes [`escape_html`] makes of one (`"` is `&quot;`).
const MAX_ESCAPED: usize = 6;

/// What a filled text may make before its placeholders are counted.
const CHECKED_OVER: usize = 1 << 20;

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
        let count = match args.get("n") {
            None => None,
            Some(n) => Some(n.as_i64().ok_or_else(|| {
                tera::Error::msg(format!(
                    "t(key=\"{key}\"): n must be a whole number, found {n}"
                ))
            })?),
        };
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
        // A text may name an argument many times. Where that could make too much (a third
        // of the text in placeholders), they are counted, and what the filled text would
        // make is checked before it is made.
        let longest = (args.iter())
            .filter(|(name, _)| *name != "key")
            .map(|(_, value)| match value {
                tera::Value::String(text) => text.len(),
                other => other.to_string().len(),
            })
            .max()
            .unwrap_or(0);
        let each = longest.saturating_mul(if html { MAX_ESCAPED } else { 1 });
        if (text.len() / 3).saturating_mul(each) > CHECKED_OVER {
            let placeholders = text.matches('{').count();
            budget::fits(text.len().saturating_add(placeholders.saturating_mul(each)))?;
        }
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

impl Translate {
    /// `t(key=...)` without arguments, as a template prints it before escaping; `None` for a
    /// key no catalogue has, or a text that needs arguments.
    pub(super) fn plain(&self, key: &str) -> Option<String> {
        let args = HashMap::from([("key".to_owned(), tera::Value::from(key))]);
        match tera::Function::call(self, &args) {
            Ok(tera::Value::String(text)) => Some(text),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A text that names an argument many times would make it many times over: refused
    /// before it is filled when that passes what the render may make.
    #[test]
    fn a_text_that_repeats_a_long_argument_is_refused_before_it_is_filled() {
        let theme = tempfile::tempdir().unwrap();
        std::fs::create_dir(theme.path().join("i18n")).unwrap();
        let text = "{a}".repeat(100);
        std::fs::write(
            theme.path().join("i18n/en.toml"),
            format!("[echo]\nmany = \"{text}\"\n"),
        )
        .unwrap();
        let translate = Translate(Arc::new(Texts::load("en", Some(theme.path())).unwrap()));
        let args = |a: &str| {
            HashMap::from([
                ("key".to_owned(), tera::Value::from("echo.many")),
                ("a".to_owned(), tera::Value::from(a)),
            ])
        };
        let call = |a: &str| {
            budget::within_at_most(1 << 20, || tera::Function::call(&translate, &args(a)))
        };
        let filled = call(&"x".repeat(1000)).unwrap();
        assert_eq!(filled.as_str().map(str::len), Some(100_000));
        let error = call(&"x".repeat(20_000)).unwrap_err().to_string();
        assert!(error.contains(budget::MADE_TOO_MUCH), "{error}");
    }
}
