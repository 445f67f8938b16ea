//! The header's navigation as the config's `[[menu]]` gives it: each entry a name and exactly
//! one of an address elsewhere (http, https or mailto) or a page of the site, checked with
//! the line it was written on.

use serde::Deserialize;
use toml::Spanned;

/// An entry of the header's navigation from the config's `[[menu]]`.
#[derive(Clone, Debug)]
pub struct MenuEntry {
    pub name: String,
    pub target: MenuTarget,
    /// Where it was written (`vatcar-site.toml:12`), for errors.
    pub origin: String,
}

#[derive(Clone, Debug)]
pub enum MenuTarget {
    /// An address elsewhere (http, https or mailto).
    Url(String),
    /// A page of the site, as an `@/` link names it: `join.md`, `roster`.
    Page(String),
}

/// A `[[menu]]` entry as written: a name, and an address elsewhere or a page of the site,
/// which [`super::Settings::parse`] checks with the lines of each (one of url and page, not
/// both, is a rule of the entry, which every mistake at once would report again for a
/// misspelled `url`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MenuFile {
    pub(super) name: Spanned<String>,
    pub(super) url: Option<Spanned<String>>,
    pub(super) page: Option<Spanned<String>>,
}

/// A menu entry's address elsewhere: http, https or mailto, nothing a browser would run.
pub(super) fn menu_url(text: &str) -> Result<String, String> {
    let url = url::Url::parse(text.trim()).map_err(|_| {
        format!("{text:?} is not an absolute address; for a page of the site write page = \"join.md\" (or \"roster\")")
    })?;
    match url.scheme() {
        "http" | "https" | "mailto" => Ok(url.to_string()),
        scheme => Err(format!(
            "{text:?}: only http, https and mailto addresses are linked, not {scheme}:"
        )),
    }
}

/// The `[[menu]]` entries: each a name and exactly one of an address or a page. A mistake is
/// `Err` of where it starts in the text, and what it is.
pub(super) fn menu(
    entries: Vec<MenuFile>,
    at: &dyn Fn(usize) -> String,
) -> Result<Vec<MenuEntry>, (usize, String)> {
    let mut menu = Vec::new();
    for entry in entries {
        let start = entry.name.span().start;
        let name = entry.name.get_ref().trim();
        if name.is_empty() {
            return Err((start, "menu: name is empty".to_owned()));
        }
        let target = match (&entry.url, &entry.page) {
            (Some(url), None) => MenuTarget::Url(
                menu_url(url.get_ref())
                    .map_err(|e| (url.span().start, format!("menu: url: {e}")))?,
            ),
            (None, Some(page)) => MenuTarget::Page(page.get_ref().trim().to_owned()),
            _ => {
                return Err((
                    start,
                    format!(
                        "menu: {name:?} needs either url = \"https://...\" (an address elsewhere) or page = \"join.md\" (a page of the site), not both"
                    ),
                ));
            }
        };
        menu.push(MenuEntry {
            name: name.to_owned(),
            target,
            origin: at(entry
                .page
                .as_ref()
                .map_or(entry.name.span(), |p| p.span())
                .start),
        });
    }
    Ok(menu)
}
