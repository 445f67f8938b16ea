//! The ids a content page's headings and footnotes get, and which its links may name.

use super::options;
use crate::model::content::{ContentPage, PageKind};
use pulldown_cmark::{CowStr, Event, Parser, Tag, TagEnd};
use std::collections::{BTreeSet, HashMap, HashSet};
use unicase::UniCase;

/// Ids the built-in templates give elements of their own; an id made for a heading or a
/// footnote never takes one, since an id must be unique on its page.
const TEMPLATE_IDS: &[&str] = &[
    "about",
    "controllers",
    "intro",
    "main",
    "more",
    "next-events",
    "positions",
    "recent",
    "sessions",
    "site-menu",
    "staff",
    "student",
    "summary",
    "upcoming",
    "visitors",
];

/// The ids around every content page (base.html's `<main id="main">`, which "Skip to content"
/// leads to, and the header's menu, which its button folds), which a heading's written id may
/// not take.
const LAYOUT_IDS: &[&str] = &["main", "site-menu"];

/// The ids around the home page's introduction (index.html), likewise.
const HOME_IDS: &[&str] = &["intro", "more", "next-events", "staff"];

/// The ids a page's Markdown gives its elements.
#[derive(Debug, Default)]
pub(super) struct PageIds {
    /// Each heading's, by the byte offset in the body where the heading starts.
    pub(super) headings: HashMap<usize, String>,
    /// Each footnote's, by its label, matched as pulldown-cmark matches a reference to its
    /// definition: letter case aside (`[^A]` is `[^a]`).
    pub(super) footnotes: HashMap<UniCase<String>, String>,
    /// All of them, for the anchors of links.
    pub(super) anchors: BTreeSet<String>,
    /// The ids of the template's elements around the Markdown, which a link may name too.
    pub(super) around: Vec<&'static str>,
}

/// A heading or a footnote definition, in the order of the page.
enum Named {
    Heading {
        start: usize,
        written: Option<String>,
        text: String,
    },
    Footnote {
        start: usize,
        label: String,
    },
}

/// The id each heading and footnote gets. A heading's is the one written (`## Visiting
/// {#visit}` or `{id=visit}`), which may be neither an id of the page's templates nor another
/// heading's, else one made from its text; a footnote's is made from its label (`[^two
/// words]` is `fn-two-words`). A made id never takes one that is written or was made before:
/// the second `## Notes` is `notes-1`. Problems are added to `errors`, naming the file and line.
pub(super) fn page_ids(page: &ContentPage, errors: &mut Vec<crate::problems::Problem>) -> PageIds {
    let named = named_elements(page);
    let around = match page.kind {
        PageKind::HomeIntro => [LAYOUT_IDS, HOME_IDS].concat(),
        PageKind::Section | PageKind::Page => LAYOUT_IDS.to_vec(),
    };
    let written = written_ids(page, &named, &around, errors);

    let mut made = UniqueIds::new(
        TEMPLATE_IDS
            .iter()
            .copied()
            .chain(written.keys().copied())
            .map(str::to_owned),
    );
    let mut ids = PageIds {
        around,
        ..PageIds::default()
    };
    let mut footnote_starts: HashMap<UniCase<String>, usize> = HashMap::new();
    for item in named {
        match item {
            Named::Heading {
                start,
                written,
                text,
            } => {
                let id = match written {
                    Some(id) => id,
                    None => made.make(heading_slug(&text)),
                };
                ids.anchors.insert(id.clone());
                ids.headings.insert(start, id);
            }
            Named::Footnote { start, label } => {
                let key = UniCase::new(label.clone());
                if let Some(first) = footnote_starts.get(&key) {
                    errors.push(crate::problems::Problem::at(
                        &page.origin,
                        page.line_of(start),
                        None,
                        format!(
                            "the footnote [^{label}] is also defined on line {}; remove one, or rename it and its references",
                            page.line_of(*first)
                        ),
                    ));
                    continue;
                }
                footnote_starts.insert(key.clone(), start);
                let id = made.make(format!("fn-{}", heading_slug(&label)));
                ids.anchors.insert(id.clone());
                ids.footnotes.insert(key, id);
            }
        }
    }
    ids
}

/// The page's headings, with the ids written for them, and its footnote definitions.
fn named_elements(page: &ContentPage) -> Vec<Named> {
    let mut named = Vec::new();
    let mut open: Option<(usize, Option<String>, String)> = None;
    for (event, range) in Parser::new_ext(&page.body, options()).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { id, attrs, .. }) => {
                let written = id.map(|i| i.to_string()).or_else(|| {
                    id_attribute(&attrs).map(|value| value.unwrap_or_default().to_owned())
                });
                open = Some((range.start, written, String::new()));
            }
            Event::Text(text) | Event::Code(text) => {
                if let Some((_, _, heading)) = &mut open {
                    heading.push_str(&text);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((start, written, text)) = open.take() {
                    named.push(Named::Heading {
                        start,
                        written,
                        text,
                    });
                }
            }
            Event::Start(Tag::FootnoteDefinition(label)) => named.push(Named::Footnote {
                start: range.start,
                label: label.to_string(),
            }),
            _ => {}
        }
    }
    named
}

/// Where each written id is first written, by the id; a written id the page's template has
/// already, or written twice, is added to `errors`.
fn written_ids<'n>(
    page: &ContentPage,
    named: &'n [Named],
    around: &[&str],
    errors: &mut Vec<crate::problems::Problem>,
) -> HashMap<&'n str, usize> {
    // Where each id is written first; a line is worked out only for an error.
    let mut written: HashMap<&str, usize> = HashMap::new();
    for item in named {
        let Named::Heading {
            start,
            written: Some(id),
            ..
        } = item
        else {
            continue;
        };
        let problem = if id.is_empty() || id.contains(|c: char| c.is_ascii_whitespace()) {
            format!("the heading's id {id:?} is empty or holds a space, which an id may not")
        } else if around.contains(&id.as_str()) {
            format!(
                "the heading's id #{id} is one the page's template gives its own element{}; write another ({{#{id}-section}})",
                if id == "main" {
                    " (the \"Skip to content\" link leads to it)"
                } else {
                    ""
                }
            )
        } else if let Some(first) = written.get(id.as_str()) {
            format!(
                "the heading's id #{id} is also written on line {}, and an id must be unique on its page; write another",
                page.line_of(*first)
            )
        } else {
            written.insert(id, *start);
            continue;
        };
        errors.push(crate::problems::Problem::at(
            &page.origin,
            page.line_of(*start),
            None,
            problem,
        ));
    }
    written
}

/// The value of a heading's `id=` attribute (`## Title {id=x}`), if it has one: `Some(None)`
/// for a bare `{id}`.
fn id_attribute<'a>(attrs: &'a [(CowStr<'a>, Option<CowStr<'a>>)]) -> Option<Option<&'a str>> {
    attrs
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("id"))
        .map(|(_, value)| value.as_deref())
}

/// Ids made unique: one that is taken gets the first free `-1`, `-2`, … after the last suffix
/// its base was given, so that N identical headings take N steps, not N²/2.
struct UniqueIds {
    taken: HashSet<String>,
    /// The suffix to try next, by base: every suffix below it has been tried.
    next: HashMap<String, usize>,
}

impl UniqueIds {
    fn new(taken: impl IntoIterator<Item = String>) -> Self {
        UniqueIds {
            taken: taken.into_iter().collect(),
            next: HashMap::new(),
        }
    }

    fn make(&mut self, base: String) -> String {
        if !self.taken.contains(&base) {
            self.taken.insert(base.clone());
            return base;
        }
        let next = self.next.entry(base.clone()).or_insert(1);
        loop {
            let id = format!("{base}-{next}");
            *next += 1;
            if self.taken.insert(id.clone()) {
                return id;
            }
        }
    }
}

/// A heading's text as an id: letters and digits of any script kept.
fn heading_slug(text: &str) -> String {
    crate::view::documents::slug(text, char::is_alphanumeric)
}

#[cfg(test)]
mod tests {
    use super::{HOME_IDS, LAYOUT_IDS, TEMPLATE_IDS, UniqueIds, heading_slug};

    #[test]
    fn heading_ids_keep_letters_of_any_script() {
        assert_eq!(heading_slug("Información de vuelo"), "información-de-vuelo");
        assert_eq!(heading_slug("  Step 1: S1 → S2!  "), "step-1-s1-s2");
        assert_eq!(heading_slug("→"), "section");
    }

    #[test]
    fn a_made_id_takes_the_next_free_suffix_in_one_step() {
        let mut ids = UniqueIds::new(["x-3".to_owned()]);
        let made: Vec<String> = (0..5).map(|_| ids.make("x".into())).collect();
        assert_eq!(made, ["x", "x-1", "x-2", "x-4", "x-5"]);
        assert_eq!(ids.make("x-1".into()), "x-1-1");

        // N identical headings: each of the others tries one suffix, the next (restarting the
        // suffixes at 1 would try N²/2): after the 9,999 suffixes 1 to 9,999, the next is 10,000.
        let mut ids = UniqueIds::new([]);
        for _ in 0..10_000 {
            ids.make("same".into());
        }
        assert_eq!(ids.next["same"], 10_000);
    }

    #[test]
    fn the_ids_a_written_id_may_not_take_are_template_ids() {
        for id in LAYOUT_IDS.iter().chain(HOME_IDS) {
            assert!(TEMPLATE_IDS.contains(id), "{id}");
        }
    }
}
