//! The words pages are made of, in the site's language: catalogues of texts by key (the
//! built-in `templates/i18n/*.toml`, and a theme's `i18n/*.toml` beside or over them).
//!
//! Loaded once by the command, for the language the config names, and handed to both users:
//! templates read them through `t()` (see `render::theme`); the view reads them for what it
//! writes itself: month and day names, calendar names, staff titles, rating names. A leaf
//! module: no stage owns the languages.

use crate::plain_files::read_plain;
use crate::sanitize::quote;
use crate::toml_errors;
use anyhow::{Result, bail};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The languages built in, with their catalogues.
pub const BUILT_IN: &[(&str, &str)] = &[
    ("en", include_str!("../../templates/i18n/en.toml")),
    ("es", include_str!("../../templates/i18n/es.toml")),
    ("fr", include_str!("../../templates/i18n/fr.toml")),
    ("nl", include_str!("../../templates/i18n/nl.toml")),
];

/// The language of a site whose config names none.
pub const DEFAULT_LANGUAGE: &str = "en";

/// One language's texts, every English key present (falling back to English where the
/// language's own catalogue lacks one).
#[derive(Debug)]
pub struct Texts {
    /// As `<html lang>` takes it: `es`.
    pub language: String,
    /// As OpenGraph's `og:locale` takes it (language_TERRITORY): `es_419`. From the
    /// catalogue's `[language] locale`, else from a tag with a region (`pt-BR` is `pt_BR`);
    /// none for a bare tag, which names no territory.
    pub locale: Option<String>,
    entries: BTreeMap<String, String>,
    /// Counts that take a key's `one` form.
    one: Vec<i64>,
}

/// One catalogue file, read.
#[derive(Debug, Default)]
pub struct Catalogue {
    pub name: Option<String>,
    pub locale: Option<String>,
    pub one: Option<Vec<i64>>,
    pub entries: BTreeMap<String, String>,
}

impl Catalogue {
    /// Parses a catalogue; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Self> {
        // toml's own message quotes the whole line, however long: it is told here as
        // `file:line`, its message's first line, and the part of the line around the column.
        let table: toml::Table = toml::from_str(text).map_err(|e| {
            let message = quote::short(toml_errors::message(&e));
            match toml_errors::place(&e, text) {
                Some((line, column)) => {
                    let quoted = quote::pointing(text, line, column)
                        .map(|q| format!("\n{q}"))
                        .unwrap_or_default();
                    anyhow::anyhow!("{origin}:{line}: not valid TOML: {message}{quoted}")
                }
                None => anyhow::anyhow!("{origin}: not valid TOML: {message}"),
            }
        })?;
        let mut catalogue = Catalogue::default();
        for (key, value) in table {
            if key == "language" {
                let toml::Value::Table(meta) = value else {
                    bail!("{origin}: `language` must be a table ([language])");
                };
                for (name, value) in meta {
                    match (name.as_str(), value) {
                        ("name", toml::Value::String(text)) => catalogue.name = Some(text),
                        ("locale", toml::Value::String(text)) if is_locale(&text) => {
                            catalogue.locale = Some(text)
                        }
                        ("locale", _) => bail!(
                            "{origin}: language.locale: expected a locale such as \"pt_BR\" (language_TERRITORY, as og:locale takes it)"
                        ),
                        ("one", toml::Value::Array(counts)) => {
                            let counts: Option<Vec<i64>> =
                                counts.iter().map(toml::Value::as_integer).collect();
                            catalogue.one = Some(counts.ok_or_else(|| {
                                anyhow::anyhow!("{origin}: language.one must list whole numbers")
                            })?);
                        }
                        (other, _) => bail!(
                            "{origin}: language.{}: expected `name` (text), `locale` (such as \"pt_BR\") or `one` (a list of counts)",
                            quote::short(other)
                        ),
                    }
                }
            } else {
                flatten(&key, value, &mut catalogue.entries, origin)?;
            }
        }
        Ok(catalogue)
    }
}

fn flatten(
    key: &str,
    value: toml::Value,
    into: &mut BTreeMap<String, String>,
    origin: &str,
) -> Result<()> {
    match value {
        toml::Value::String(text) => {
            into.insert(key.to_owned(), text);
        }
        toml::Value::Table(table) => {
            for (name, value) in table {
                flatten(&format!("{key}.{name}"), value, into, origin)?;
            }
        }
        other => bail!(
            "{origin}: {}: expected text, found a {}",
            quote::short(key),
            other.type_str()
        ),
    }
    Ok(())
}

/// A locale as `og:locale` takes it: a language, `_`, and a territory or a region
/// (`es_419`).
fn is_locale(text: &str) -> bool {
    text.split_once('_').is_some_and(|(language, territory)| {
        (2..=3).contains(&language.len())
            && language.bytes().all(|b| b.is_ascii_lowercase())
            && ((territory.len() == 2 && territory.bytes().all(|b| b.is_ascii_uppercase()))
                || (territory.len() == 3 && territory.bytes().all(|b| b.is_ascii_digit())))
    })
}

/// A language tag as a file name may give it: `pt`, `pt-BR`.
fn is_language_tag(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 35
        && name.split('-').all(|part| {
            !part.is_empty() && part.len() <= 8 && part.chars().all(|c| c.is_ascii_alphanumeric())
        })
}

/// The catalogues a theme folder holds: `i18n/<language>.toml`, by language. Only plain
/// files in a plain folder count: a link is never read (the theme's check on its files names
/// it in a warning).
pub fn theme_catalogues(theme: Option<&Path>) -> Vec<(String, PathBuf)> {
    let plain_folder = |dir: &PathBuf| std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir());
    let dir = theme.map(|t| t.join("i18n")).filter(plain_folder);
    let Some(Ok(entries)) = dir.map(std::fs::read_dir) else {
        return Vec::new();
    };
    let mut found: Vec<(String, PathBuf)> = entries
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let path = entry.path();
            let stem = path.file_stem()?.to_str()?.to_owned();
            let plain = entry.file_type().ok()?.is_file();
            (path.extension()? == "toml" && plain && is_language_tag(&stem)).then_some((stem, path))
        })
        .collect();
    found.sort();
    found
}

/// Every language a site can be built in with this theme: the built-in ones, then the
/// theme's own.
pub fn available(theme: Option<&Path>) -> Vec<String> {
    let mut languages: Vec<String> = BUILT_IN.iter().map(|(l, _)| l.to_string()).collect();
    for (language, _) in theme_catalogues(theme) {
        if !languages.contains(&language) {
            languages.push(language);
        }
    }
    languages
}

impl Texts {
    /// The built-in English texts.
    pub fn english() -> Arc<Texts> {
        static ENGLISH: std::sync::OnceLock<Arc<Texts>> = std::sync::OnceLock::new();
        Arc::clone(ENGLISH.get_or_init(|| {
            Arc::new(Texts::load(DEFAULT_LANGUAGE, None).expect("the built-in English loads"))
        }))
    }

    /// The texts of `language`: the built-in catalogue if there is one, the theme's
    /// `i18n/<language>.toml` over it key by key, and English (the theme's `en.toml` over the
    /// built-in one) for any key the language lacks.
    pub fn load(language: &str, theme: Option<&Path>) -> Result<Texts> {
        let english = layers(DEFAULT_LANGUAGE, theme)?;
        let own = if language == DEFAULT_LANGUAGE {
            Vec::new()
        } else {
            layers(language, theme)?
        };
        if language != DEFAULT_LANGUAGE && own.is_empty() {
            bail!(
                "there is no catalogue for the language {language:?}; available: {}",
                available(theme).join(", ")
            );
        }
        let mut entries = BTreeMap::new();
        let mut one = vec![1];
        let own_or_english = if own.is_empty() { &english } else { &own };
        let locale = own_or_english
            .iter()
            .rev()
            .find_map(|c| c.locale.clone())
            .or_else(|| {
                let (language, region) = language.split_once('-')?;
                let locale = format!("{language}_{region}");
                is_locale(&locale).then_some(locale)
            });
        for catalogue in english.iter().chain(&own) {
            entries.extend(catalogue.entries.clone());
            if let Some(counts) = &catalogue.one {
                one = counts.clone();
            }
        }
        warn_missing(language, &english, &own);
        Ok(Texts {
            language: language.to_owned(),
            locale,
            entries,
            one,
        })
    }

    /// `key`'s text replaced by `text` for this build: the webmaster's name for a built-in
    /// menu entry, which its page's title takes too (`view::menu_renames`).
    pub fn rename(&mut self, key: &str, text: &str) {
        self.entries.insert(key.to_owned(), text.to_owned());
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries.get(key).map(String::as_str)
    }

    /// The counts that take a key's `one` form (the browser's live script picks forms by
    /// them).
    pub fn one_counts(&self) -> &[i64] {
        &self.one
    }

    /// The key of the form of `key` that a count of `n` takes: `key.one` or `key.other`.
    pub fn plural_key(&self, key: &str, n: i64) -> String {
        let form = if self.one.contains(&n) {
            "one"
        } else {
            "other"
        };
        format!("{key}.{form}")
    }

    /// The text of a key the program itself uses, with `{name}` filled from `args`; the key
    /// itself where the catalogues lack it (every one is in every built-in catalogue, which
    /// `view`'s test `every_key_the_program_writes_is_in_every_built_in_catalogue` checks).
    pub fn text(&self, key: &str, args: &[(&str, &str)]) -> String {
        let template = self.get(key).unwrap_or(key);
        fill(template, |name| {
            args.iter()
                .find(|(arg, _)| *arg == name)
                .map(|(_, value)| value.to_string())
        })
        .unwrap_or_else(|missing| format!("{template} ({missing}?)"))
    }
}

/// The catalogues of `language`, lowest first: the built-in one, then the theme's over it.
fn layers(language: &str, theme: Option<&Path>) -> Result<Vec<Catalogue>> {
    let built_in = BUILT_IN
        .iter()
        .find(|(l, _)| *l == language)
        .map(|(l, text)| Catalogue::parse(text, &format!("built-in i18n/{l}.toml")))
        .transpose()?;
    Ok([built_in, themed(language, theme)?]
        .into_iter()
        .flatten()
        .collect())
}

/// The theme's `i18n/<language>.toml`, if it has one.
fn themed(language: &str, theme: Option<&Path>) -> Result<Option<Catalogue>> {
    let (Some(theme), Some((_, path))) = (
        theme,
        theme_catalogues(theme)
            .into_iter()
            .find(|(l, _)| l == language),
    ) else {
        return Ok(None);
    };
    let Some(bytes) = read_plain(theme, &format!("i18n/{language}.toml"))? else {
        return Ok(None);
    };
    let text = String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("could not read {}: it is not UTF-8 text", path.display()))?;
    Catalogue::parse(&text, &path.display().to_string()).map(Some)
}

/// A warning naming the first few keys English has and `language`'s catalogues lack.
fn warn_missing(language: &str, english: &[Catalogue], own: &[Catalogue]) {
    if own.is_empty() {
        return;
    }
    let own_keys: BTreeSet<&String> = own.iter().flat_map(|c| c.entries.keys()).collect();
    let missing: Vec<&String> = english
        .iter()
        .flat_map(|c| c.entries.keys())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .filter(|key| !own_keys.contains(key))
        .collect();
    if !missing.is_empty() {
        log::warn!(
            "the {language} catalogue lacks {} text{} ({}); English is shown instead",
            missing.len(),
            if missing.len() == 1 { "" } else { "s" },
            quote::first_few(missing.iter().map(|key| key.to_string()), 5)
        );
    }
}

/// `template` with each `{name}` replaced by `value(name)`; a `{` not starting a placeholder
/// stays as it is. The error is the first name `value` has nothing for.
pub fn fill(
    template: &str,
    mut value: impl FnMut(&str) -> Option<String>,
) -> std::result::Result<String, String> {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let name_end = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        if name_end > 0 && after[name_end..].starts_with('}') {
            let name = &after[..name_end];
            out.push_str(&value(name).ok_or_else(|| name.to_owned())?);
            rest = &after[name_end + 1..];
        } else {
            out.push('{');
            rest = after;
        }
    }
    out.push_str(rest);
    Ok(out)
}

/// The placeholders a text uses.
pub fn placeholders(template: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let _ = fill(template, |name| {
        names.insert(name.to_owned());
        Some(String::new())
    });
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalogue(language: &str) -> Catalogue {
        let text = BUILT_IN.iter().find(|(l, _)| *l == language).unwrap().1;
        Catalogue::parse(text, language).unwrap()
    }

    /// The menu's name of each built-in page and the page's own title agree in every
    /// language: the title is the name, or holds it ("Division" and "Division events").
    /// Dutch called the roster "Verkeersleiders" in the menu and "Ledenlijst" on the page.
    #[test]
    fn the_menus_names_and_the_pages_titles_agree() {
        for (language, _) in BUILT_IN {
            let texts = Texts::load(language, None).unwrap();
            for page in ["roster", "events", "division", "documents", "live"] {
                let name = texts.get(&format!("nav.{page}")).unwrap().to_lowercase();
                let title = texts.get(&format!("page.{page}")).unwrap().to_lowercase();
                assert!(
                    title.contains(&name),
                    "{language}: the menu's {name:?} is not in the page's title {title:?}"
                );
            }
        }
    }

    /// One rule for Google's product (the catalogues' comment): the name Google shows users
    /// of the language, "Google Calendar" in Spanish too, and the same name in every text
    /// that names it (issue 40: event pages and event lists once named it differently).
    #[test]
    fn google_calendar_is_named_as_google_names_it_in_each_language() {
        for (language, product) in [
            ("en", "Google Calendar"),
            ("es", "Google Calendar"),
            ("fr", "Google Agenda"),
            ("nl", "Google Agenda"),
        ] {
            let texts = Texts::load(language, None).unwrap();
            assert_eq!(
                texts.get("events.google_calendar"),
                Some(product),
                "{language}"
            );
            let add = texts.get("event.add_to_google").unwrap();
            assert!(add.contains(product), "{language}: {add:?}");
        }
        assert_eq!(
            BUILT_IN.len(),
            4,
            "a new language names Google's product here too"
        );
    }

    #[test]
    fn every_built_in_catalogue_has_exactly_the_english_keys_and_placeholders() {
        let english = catalogue("en");
        for (language, _) in BUILT_IN {
            let other = catalogue(language);
            assert!(other.name.is_some(), "{language}: language.name");
            let locale = other.locale.expect("language.locale");
            assert!(locale.starts_with(&format!("{language}_")), "{locale}");
            let missing: Vec<&String> = english
                .entries
                .keys()
                .filter(|k| !other.entries.contains_key(*k))
                .collect();
            let stray: Vec<&String> = other
                .entries
                .keys()
                .filter(|k| !english.entries.contains_key(*k))
                .collect();
            assert!(missing.is_empty(), "{language} lacks {missing:?}");
            assert!(
                stray.is_empty(),
                "{language} has keys English lacks: {stray:?}"
            );
            for (key, text) in &other.entries {
                assert_eq!(
                    placeholders(text),
                    placeholders(&english.entries[key]),
                    "{language}: {key}: {text:?} fills other placeholders than English"
                );
            }
        }
    }

    /// French sets a no-break space before `:`, `;`, `?` and `!`, so that none of them starts
    /// a line of its own when the text wraps.
    #[test]
    fn french_high_punctuation_never_wraps_alone() {
        for (key, text) in &catalogue("fr").entries {
            for mark in [" :", " ;", " ?", " !"] {
                assert!(
                    !text.contains(mark),
                    "fr: {key}: {text:?} has a plain space before {mark:?}"
                );
            }
        }
    }

    #[test]
    fn a_locale_is_language_and_territory() {
        for good in ["es_419", "pt_BR", "fil_PH"] {
            assert!(is_locale(good), "{good}");
        }
        for bad in [
            "es",
            "es-419",
            "ES_es",
            "es_4190",
            "pt_br",
            "spanish_ES",
            "",
        ] {
            assert!(!is_locale(bad), "{bad}");
        }
        let error = Catalogue::parse("[language]\nlocale = \"Español\"\n", "i18n/es.toml")
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("i18n/es.toml: language.locale: expected"),
            "{error}"
        );
    }

    #[test]
    fn placeholders_are_filled_and_other_braces_kept() {
        let filled = fill("{a} and {b}, {not closed, {} {c d}", |name| {
            Some(name.to_uppercase())
        });
        assert_eq!(filled.unwrap(), "A and B, {not closed, {} {c d}");
        assert_eq!(fill("x {gone}", |_| None), Err("gone".to_owned()));
    }

    #[test]
    fn counts_choose_the_form_the_language_gives_them() {
        let english = Texts::load("en", None).unwrap();
        assert_eq!(english.plural_key("home.visitors", 1), "home.visitors.one");
        assert_eq!(
            english.plural_key("home.visitors", 0),
            "home.visitors.other"
        );
        // French counts zero as singular.
        let french = Texts::load("fr", None).unwrap();
        assert_eq!(french.plural_key("home.visitors", 0), "home.visitors.one");
        assert!(Texts::load("xx", None).is_err());
    }
}
