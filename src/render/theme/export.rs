//! What `templates export` writes: the built-in templates, static files and catalogues, for a
//! webmaster to edit (`cmd::templates` writes them, on the rules of `cmd::new_files`).

use super::embedded::{STATIC_FILES, TEMPLATES};
use crate::i18n as texts;

/// Every file `templates export` writes, by its path in the folder (`/`-separated): the
/// templates at the top, the static files under `static/`, the catalogues under `i18n/`.
pub fn exported_files() -> Vec<(String, &'static [u8])> {
    TEMPLATES
        .iter()
        .map(|(name, text)| (name.to_string(), text.as_bytes()))
        .chain(
            STATIC_FILES
                .iter()
                .map(|(name, bytes)| (format!("static/{name}"), *bytes)),
        )
        .chain(
            texts::BUILT_IN
                .iter()
                .map(|(language, text)| (format!("i18n/{language}.toml"), text.as_bytes())),
        )
        .collect()
}
