//! The header's menu: Home and the built-in pages that are built, the pages whose front
//! matter asks for an entry, then the config's `[[menu]]` entries, each page once. An entry
//! for a built-in page renames that page's entry, and its title, in its place.

use super::links::Targets;
use super::{ContentPage, MenuEntry, MenuItem, MenuTarget, Output, PageKind, Problem, outputs};
use crate::view::settings::Sections;

/// The built-in pages the header's menu holds (base.html lists them, after Home), each by
/// the key of its name in the catalogue (`nav.<key>`; `page.<key>` is its page's title).
const BUILT_IN_ENTRIES: [(&str, &Output); 6] = [
    ("home", &outputs::HOME),
    ("roster", &outputs::ROSTER),
    ("events", &outputs::EVENTS),
    ("division", &outputs::DIVISION),
    ("documents", &outputs::DOCUMENTS),
    ("live", &outputs::LIVE),
];

/// The built-in entry of the menu that a `[[menu]]` entry's `page` names, when that page is
/// built: `"roster"` for `roster`, `@/roster`, `roster/` or `roster/index.html`; `"home"`
/// for `_index.md` or `@/`. A section that is off has no entry (a page of the webmaster's may
/// then take its address).
fn built_in_entry(target: &str, sections: &Sections) -> Option<&'static str> {
    let target = target.strip_prefix("@/").unwrap_or(target);
    let target = target.strip_suffix("index.html").unwrap_or(target);
    let url = match target.trim_end_matches('/') {
        "_index.md" | "" => String::new(),
        folder => format!("{folder}/"),
    };
    BUILT_IN_ENTRIES
        .iter()
        .find(|(_, output)| output.path.strip_suffix("index.html") == Some(url.as_str()))
        .filter(|(_, output)| output.is_written(sections, false))
        .map(|(key, _)| *key)
}

/// The catalogue's texts that the webmaster's `[[menu]]` entries rename: an entry that names
/// a built-in page takes that page's place in the menu under its own name, and the page's
/// title follows (`nav.roster` and `page.roster`), so that the menu and the page agree
/// wherever the built-in templates print either. The first entry for a page counts (a second
/// is refused by [`add_content`]), and so does no name with a `{placeholder}` in it.
pub fn menu_renames(menu: &[MenuEntry], sections: &Sections) -> Vec<(String, String)> {
    let mut renames: Vec<(String, String)> = Vec::new();
    for entry in menu {
        let MenuTarget::Page(target) = &entry.target else {
            continue;
        };
        let Some(key) = built_in_entry(target, sections) else {
            continue;
        };
        let nav = format!("nav.{key}");
        if renames.iter().any(|(k, _)| *k == nav)
            || !crate::i18n::placeholders(&entry.name).is_empty()
        {
            continue;
        }
        renames.push((nav, entry.name.clone()));
        // The home page's title is the site's name, which the menu does not change.
        if key != "home" {
            renames.push((format!("page.{key}"), entry.name.clone()));
        }
    }
    renames
}

/// The header's entries beyond the built-in ones: the pages that ask for one, by weight, then
/// the config's `[[menu]]` entries, each page it names checked. One entry per page: an entry
/// for a built-in page renames that page's own entry in its place ([`menu_renames`]), one for
/// a page whose front matter asks for an entry takes that entry's place, and a second entry
/// for the same page is refused, naming the first.
pub(super) fn menu_items(
    published: &[&ContentPage],
    menu: &[MenuEntry],
    targets: &Targets,
    sections: &Sections,
    errors: &mut Vec<Problem>,
) -> Vec<MenuItem> {
    let mut items: Vec<&&ContentPage> = published
        .iter()
        .filter(|p| p.menu && p.kind != PageKind::HomeIntro)
        .collect();
    items.sort_by(|a, b| (a.weight, &a.title, &a.path).cmp(&(b.weight, &b.title, &b.path)));
    let mut menu_items: Vec<MenuItem> = items
        .into_iter()
        .map(|p| MenuItem {
            name: p.title.clone(),
            url: p.url.clone(),
            external: false,
            description: p.description.clone(),
        })
        .collect();
    // Where each page's [[menu]] entry was written, for the error about a second one.
    let mut named: Vec<(String, &str)> = Vec::new();
    for entry in menu {
        let (url, external) = match &entry.target {
            MenuTarget::Url(url) => (url.clone(), true),
            MenuTarget::Page(target) => {
                let target = target.strip_prefix("@/").unwrap_or(target);
                match targets.site_target(target) {
                    Ok((url, _)) => (url, false),
                    Err(e) => {
                        errors.push(Problem::from_origin(
                            &entry.origin,
                            format!("menu: page = {target:?}: {e}"),
                        ));
                        continue;
                    }
                }
            }
        };
        let key = if external {
            url.clone()
        } else {
            url.strip_suffix("index.html").unwrap_or(&url).to_owned()
        };
        if let Some((_, first)) = named.iter().find(|(k, _)| *k == key) {
            let first = match first.rsplit_once(':') {
                Some((_, line)) => format!("line {line}"),
                None => (*first).to_owned(),
            };
            errors.push(Problem::from_origin(
                &entry.origin,
                format!(
                    "menu: {:?} leads to {}, as the entry of {first} does: one entry per page; remove one of them",
                    entry.name,
                    if key.is_empty() { "the home page" } else { key.as_str() }
                ),
            ));
            continue;
        }
        named.push((key.clone(), entry.origin.as_str()));
        if let MenuTarget::Page(target) = &entry.target
            && built_in_entry(target, sections).is_some()
        {
            if !crate::i18n::placeholders(&entry.name).is_empty() {
                errors.push(Problem::from_origin(
                    &entry.origin,
                    format!(
                        "menu: {:?}: the name of a built-in page's entry is also its title, and cannot hold {{braces}} around a word",
                        entry.name
                    ),
                ));
            }
            // Shown in the built-in entry's place, under this name (menu_renames).
            continue;
        }
        if !external {
            menu_items.retain(|item| item.external || item.url != url);
        }
        let description = (!external)
            .then(|| published.iter().find(|page| page.url == url))
            .flatten()
            .and_then(|page| page.description.clone());
        menu_items.push(MenuItem {
            name: entry.name.clone(),
            url,
            external,
            description,
        });
    }
    menu_items
}
