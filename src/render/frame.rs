//! A page's frame (base.html around the content block: head, header, menu, footer) rendered
//! once for all the pages that share it, instead of once per page.
//!
//! Twenty thousand event pages have the same frame but for four values (title, description,
//! canonical address, preview image), and Tera spends more instructions on base.html than on
//! the event itself. So a page template, the theme's or the built-in one, that fills only the
//! `content` block over `layout.html`, whose chain is built in (or reads nothing a page has of
//! its own, [`reads_only_the_site`]), is split in two ([`Split`]): the frame, rendered once per [`FrameKey`] with placeholders where
//! the page's own values go, and the content, rendered per page. A page is the frame with its
//! placeholders filled, byte for byte what a whole render gives: the tests render both ways,
//! and a test holds base.html to the uses of `page` this file knows.
//!
//! A theme whose template in the chain reads what a page has of its own renders every page
//! whole.

use crate::render::escape::escape_html;
use crate::render::tera_glue::calls::calls_of;
use crate::render::tera_glue::flat::FlatReads;
use crate::sanitize::chars::strip_forbidden;
use crate::view::MenuItem;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

/// The placeholders: a noncharacter (removed from the API's text when it is decoded, and from
/// every rendered page), a digit, another noncharacter. A frame is used only where nothing
/// else in it holds the first ([`Frame::parse`]).
const OPEN: char = '\u{FDD0}';
const CLOSE: char = '\u{FDD1}';

/// What a placeholder stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    /// The page's content block, as rendered.
    Content,
    /// `page.title`, `page.description`, `page.canonical`, `page.image`: text, escaped as the
    /// template would.
    Title,
    Description,
    Canonical,
    Image,
}

const SLOTS: [Slot; 5] = [
    Slot::Content,
    Slot::Title,
    Slot::Description,
    Slot::Canonical,
    Slot::Image,
];

impl Slot {
    fn digit(self) -> char {
        char::from(b'0' + SLOTS.iter().position(|s| *s == self).unwrap_or(0) as u8)
    }

    fn from_digit(digit: char) -> Option<Slot> {
        SLOTS.get(digit.to_digit(10)? as usize).copied()
    }

    fn marker(self) -> String {
        format!("{OPEN}{}{CLOSE}", self.digit())
    }

    /// The key of `page` this slot stands for.
    fn field(self) -> Option<&'static str> {
        match self {
            Slot::Content => None,
            Slot::Title => Some("title"),
            Slot::Description => Some("description"),
            Slot::Canonical => Some("canonical"),
            Slot::Image => Some("image"),
        }
    }
}

/// The two templates a page template is split into, registered beside it by the theme.
#[derive(Clone, Debug)]
pub struct Split {
    /// Extends `layout.html`, as the page template does, with the content placeholder for its
    /// content block: the page template fills no other block, so this is its frame.
    pub frame: String,
    /// The page template's own text over a parent that is its content block alone.
    pub content: String,
    /// The names the content reads from the context (`event`, `root`); `None`: any of them.
    reads: Option<BTreeSet<String>>,
    /// The content's dotted reads, made plain names ([`FlatReads`]).
    flat: FlatReads,
}

impl Split {
    /// Whether the content reads `name` from the context.
    pub fn reads(&self, name: &str) -> bool {
        self.reads.as_ref().is_none_or(|names| names.contains(name))
    }

    /// Records what the parsed content template reads ([`names_read`]).
    pub fn read_by(&mut self, content: &tera::Template) {
        self.reads = names_read(content);
    }

    /// Makes the content's dotted reads plain names ([`FlatReads::make`]).
    pub fn make_flat(&mut self, content: &mut tera::Template) {
        self.flat = FlatReads::make(content);
    }

    /// The values of the content's flat reads, put in its context.
    pub fn add_flat_reads(&self, context: &mut serde_json::Map<String, Value>) {
        self.flat.add_to(context);
    }

    /// `name`'s value in a content's `context` made whole again ([`FlatReads::put_back`]).
    pub fn whole_value(&self, name: &str, context: &tera::Context) -> Value {
        let mut value = context.get(name).cloned().unwrap_or(Value::Null);
        self.flat.put_back(name, &mut value, context);
        value
    }
}

/// The parent of every split's content template.
pub const CONTENT_PARENT: &str = "__split__/content.html";
const CONTENT_PARENT_TEXT: &str = "{% block content %}{% endblock content %}";
/// How a built-in page template must begin to be split.
const EXTENDS_LAYOUT: &str = r#"{% extends "layout.html" %}"#;

/// The split templates for the built-in page template `name` (`text`), to register with the
/// others: `(name, text)` pairs, the content parent among them. `None` for a template that
/// does not begin by extending `layout.html`. Whether a template that parses may really be
/// split (it fills no block but `content`) is [`splittable`]'s question.
pub fn split_sources(name: &str, text: &str) -> Option<(Split, [(String, String); 2])> {
    let rest = text.strip_prefix(EXTENDS_LAYOUT)?;
    // A template with more than one block (404.html's `intro` inside its content) cannot be
    // split, and its copies need not be parsed to learn it. Counted in the text, this may
    // also refuse one whose comment says `endblock`: that page is only rendered whole.
    if rest.matches("endblock").count() != 1 {
        return None;
    }
    let split = Split {
        frame: format!("__split__/frame/{name}"),
        content: format!("__split__/content/{name}"),
        reads: None,
        flat: FlatReads::default(),
    };
    // Over layout.html, not the page template: the frame needs nothing of the page
    // template's own text, which then is parsed only where a page is rendered whole.
    let frame_text = format!(
        r#"{EXTENDS_LAYOUT}{{% block content %}}{}{{% endblock content %}}"#,
        Slot::Content.marker()
    );
    let content_text = format!(r#"{{% extends "{CONTENT_PARENT}" %}}{rest}"#);
    let sources = [
        (split.frame.clone(), frame_text),
        (split.content.clone(), content_text),
    ];
    Some((split, sources))
}

/// The content parent's `(name, text)`.
pub fn content_parent() -> (&'static str, &'static str) {
    (CONTENT_PARENT, CONTENT_PARENT_TEXT)
}

/// Whether the parsed page template fills the `content` block and no other: then the frame is
/// the same for every page of a [`FrameKey`].
pub fn splittable(template: &tera::Template) -> bool {
    template.blocks.len() == 1 && template.blocks.contains_key("content")
}

/// Whether a theme's template in a page's chain (its own `layout.html` filling hook blocks,
/// say) leaves the frame the same for every page: it reads nothing but `site`, `extra` and
/// `root` (and its own loop and `set` names), calls no function but the catalogue's (`t`,
/// `language`, `locale`), includes no template and calls no macro, whose output this file
/// cannot see, and has no filter section, which would filter the content too. `page` and the
/// page's data are out of its reach, so the frame's only per-page values stay those of the
/// built-in `base.html` that [`FrameKey`] knows.
pub fn reads_only_the_site(template: &tera::Template) -> bool {
    let uses = calls_of(&template.ast);
    uses.includes.is_empty()
        && uses.macros.is_empty()
        && !uses.macro_definitions
        && !uses.filter_sections
        && uses.roots.iter().all(|root| {
            matches!(root.as_str(), "site" | "extra" | "root" | "loop") || uses.local.contains(root)
        })
        && uses
            .functions
            .iter()
            .all(|f| matches!(f.as_str(), "t" | "language" | "locale"))
}

/// The names a template reads from the context, or `None` when it may read any (it includes
/// another template, or dumps the context with `__tera_context`). A macro it calls sees only
/// its arguments, which are read here.
pub fn names_read(template: &tera::Template) -> Option<BTreeSet<String>> {
    let uses = calls_of(&template.ast);
    if !uses.includes.is_empty() || uses.roots.contains("__tera_context") {
        return None;
    }
    // A name the template also sets is kept: it may be read before it is set.
    Some(uses.roots)
}

/// What a frame may differ by from one page to the next, as base.html uses `page` and
/// `root` (the test `base_html_uses_page_only_as_the_frame_key_knows` keeps the two in step):
/// the template, the way back to the root, the section, which of the page's values are set
/// (tested by `{% if %}`), and which menu entries the page's address matches (for
/// `aria-current`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FrameKey {
    template: String,
    root: String,
    section: String,
    /// Tera's truth of `page.description`, `page.canonical`, `page.image`, `page.image_wide`.
    set: [bool; 4],
    /// For each built-in section's entry, whether the page is that section's page; for each
    /// entry of the menu, whether the page is it and whether the page is below it.
    menu: Vec<bool>,
}

/// The sections base.html has a menu entry for, in its order.
const SECTION_ENTRIES: [&str; 5] = ["roster", "events", "division", "documents", "live"];

impl FrameKey {
    /// `page` is the page's object as the template gets it.
    pub fn new(template: &str, root: &str, page: &Value, menu: &[MenuItem]) -> Self {
        let text = |key: &str| page.get(key).and_then(Value::as_str).unwrap_or("");
        let url = text("url");
        let truthy = |key: &str| match page.get(key) {
            Some(Value::String(s)) => !s.is_empty(),
            Some(Value::Bool(b)) => *b,
            Some(Value::Null) | None => false,
            // base.html's values are text, absent or a flag; anything else is not split.
            Some(_) => true,
        };
        let mut entries: Vec<bool> = SECTION_ENTRIES
            .iter()
            .map(|name| url.strip_suffix('/') == Some(name))
            .collect();
        for item in menu.iter().filter(|item| !item.external) {
            entries.push(url == item.url);
            entries.push(!item.url.is_empty() && url.starts_with(&item.url));
        }
        Self {
            template: template.to_owned(),
            root: root.to_owned(),
            section: text("section").to_owned(),
            set: [
                truthy("description"),
                truthy("canonical"),
                truthy("image"),
                truthy("image_wide"),
            ],
            menu: entries,
        }
    }
}

/// `page` with each of its text values that the frame shows replaced by its placeholder.
pub fn placeholder_page(page: &Value) -> Value {
    let mut page = page.clone();
    if let Value::Object(map) = &mut page {
        for slot in SLOTS {
            if let Some(field) = slot.field()
                && let Some(value @ Value::String(_)) = map.get_mut(field)
            {
                *value = Value::String(slot.marker());
            }
        }
    }
    page
}

/// A rendered frame: its text cut at the placeholders.
#[derive(Debug)]
pub struct Frame {
    /// The text before each placeholder, and the placeholder; then the text after the last.
    parts: Vec<(String, Slot)>,
    tail: String,
    /// The length of all the frame's own text.
    length: usize,
    /// A hash of the frame's text, for what a page is made from.
    fingerprint: u128,
}

impl Frame {
    /// The frame from the text its template rendered. `None` when it cannot be used: the
    /// content placeholder is not there exactly once, or a placeholder's character appears
    /// anywhere but in a placeholder (the site's own text holds one).
    pub fn parse(text: &str) -> Option<Frame> {
        let mut parts = Vec::new();
        let mut rest = text;
        while let Some(at) = rest.find(OPEN) {
            let (before, after) = rest.split_at(at);
            let mut chars = after[OPEN.len_utf8()..].chars();
            let slot = Slot::from_digit(chars.next()?)?;
            (chars.next()? == CLOSE).then_some(())?;
            parts.push((before, slot));
            rest = chars.as_str();
        }
        let contents = parts.iter().filter(|(_, s)| *s == Slot::Content).count();
        let stray = |t: &str| t.contains(CLOSE);
        if contents != 1 || stray(rest) || parts.iter().any(|(t, _)| stray(t)) {
            return None;
        }
        let parts: Vec<(String, Slot)> = parts
            .into_iter()
            .map(|(t, slot)| (strip_forbidden(t.to_owned()), slot))
            .collect();
        let tail = strip_forbidden(rest.to_owned());
        let length = parts.iter().map(|(t, _)| t.len()).sum::<usize>() + tail.len();
        Some(Frame {
            parts,
            tail,
            length,
            fingerprint: xxhash_rust::xxh3::xxh3_128(text.as_bytes()),
        })
    }

    /// A hash of the frame's text.
    pub fn fingerprint(&self) -> u128 {
        self.fingerprint
    }

    /// The page: the frame with `content` and `page`'s values in place, without the
    /// characters no page may hold (the frame's own text lost them once, in [`Frame::parse`]).
    pub fn fill(&self, content: String, page: &Value) -> String {
        let content = strip_forbidden(content);
        let values: Vec<(Slot, String)> = SLOTS
            .iter()
            .filter_map(|slot| {
                let text = page.get(slot.field()?)?.as_str()?;
                Some((*slot, strip_forbidden(escape_html(text))))
            })
            .collect();
        let value = |slot: Slot| {
            values
                .iter()
                .find(|(s, _)| *s == slot)
                .map_or("", |(_, text)| text.as_str())
        };
        let mut out = String::with_capacity(
            self.length + content.len() + values.iter().map(|(_, t)| 2 * t.len()).sum::<usize>(),
        );
        for (text, slot) in &self.parts {
            out.push_str(text);
            out.push_str(match slot {
                Slot::Content => &content,
                other => value(*other),
            });
        }
        out.push_str(&self.tail);
        out
    }
}

/// The frames made so far in one render, by key; `None` for a key whose frame cannot be used.
#[derive(Default)]
pub struct Frames(Mutex<HashMap<FrameKey, Option<Arc<Frame>>>>);

impl Frames {
    /// The frame for `key`, made by `make` the first time it is asked for.
    pub fn get(
        &self,
        key: FrameKey,
        make: impl FnOnce() -> anyhow::Result<Option<Frame>>,
    ) -> anyhow::Result<Option<Arc<Frame>>> {
        if let Some(known) = self.0.lock().expect("no panic holds the lock").get(&key) {
            return Ok(known.clone());
        }
        // Made outside the lock: two threads may both make the first frame of a key, and
        // both get the same text.
        let frame = make()?.map(Arc::new);
        self.0
            .lock()
            .expect("no panic holds the lock")
            .insert(key, frame.clone());
        Ok(frame)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_frame_is_filled_with_the_content_and_the_escaped_values() {
        let text = format!(
            "<title>{} · Site</title><meta content=\"{}\"><main>{}</main>",
            Slot::Title.marker(),
            Slot::Description.marker(),
            Slot::Content.marker()
        );
        let frame = Frame::parse(&text).unwrap();
        let page = json!({"title": "A & <b>", "description": "say \"hi\"", "canonical": null});
        assert_eq!(
            frame.fill("<p>x</p>".into(), &page),
            "<title>A &amp; &lt;b&gt; · Site</title><meta content=\"say &quot;hi&quot;\"><main><p>x</p></main>"
        );
    }

    #[test]
    fn a_frame_with_a_stray_placeholder_character_or_no_content_is_not_used() {
        let content = Slot::Content.marker();
        assert!(Frame::parse(&format!("a{content}b")).is_some());
        assert!(Frame::parse("no content here").is_none());
        assert!(Frame::parse(&format!("{content}{content}")).is_none());
        assert!(Frame::parse(&format!("site \u{FDD0} name {content}")).is_none());
        assert!(Frame::parse(&format!("site \u{FDD1} name {content}")).is_none());
        assert!(Frame::parse(&format!("\u{FDD0}9\u{FDD1}{content}")).is_none());
    }

    #[test]
    fn the_key_tells_apart_pages_whose_menu_entries_differ() {
        let menu = vec![
            MenuItem {
                name: "Ev".into(),
                url: "events/".into(),
                external: false,
            },
            MenuItem {
                name: "One".into(),
                url: "events/7/".into(),
                external: false,
            },
        ];
        let page = |url: &str| json!({"section": "events", "url": url, "title": "t"});
        let key = |url: &str| FrameKey::new("event.html", "../../", &page(url), &menu);
        assert_eq!(key("events/5/"), key("events/6/"));
        assert_ne!(key("events/5/"), key("events/7/"));
        assert_ne!(key("events/5/"), key("division/5/"));
    }

    #[test]
    fn the_key_follows_teras_truth_of_the_values_the_frame_tests() {
        let key = |page: Value| FrameKey::new("event.html", "../../", &page, &[]);
        let page = |description: Value| json!({"section": "events", "url": "events/1/", "description": description});
        // Tera takes an empty text, like a missing one, for false.
        assert_eq!(key(page(json!(""))), key(page(Value::Null)));
        assert_ne!(key(page(json!("An event"))), key(page(json!(""))));
        assert_eq!(key(page(json!("An event"))), key(page(json!("Another"))));
        let wide = |wide: bool| json!({"image": "https://x/b.png", "image_wide": wide});
        assert_ne!(key(wide(true)), key(wide(false)));
    }

    #[test]
    fn a_themes_template_keeps_the_shared_frame_only_when_it_reads_nothing_of_a_page() {
        let reads = |body: &str| {
            let text = format!(
                r#"{{% extends "base.html" %}}{{% block head_extra %}}{body}{{% endblock head_extra %}}"#
            );
            reads_only_the_site(&tera::Template::new("layout.html", None, &text).unwrap())
        };
        assert!(reads(""));
        assert!(reads(
            r#"<meta content="{{ site.title | upper }}">{{ t(key="nav.home") }}"#
        ));
        assert!(reads(
            "{% for item in site.menu %}{{ loop.index }}{{ item.url }}{% endfor %}"
        ));
        assert!(reads(
            r#"{% set x = site.sections["events"] %}{{ x }}{{ root }}"#
        ));
        // `[extra]` of the config file is the same on every page, as `site` is.
        assert!(reads(
            "{% if extra.banner %}{{ extra.banner.text }}{% endif %}{{ extra | json_encode() }}"
        ));
        assert!(!reads("{{ page.title }}"));
        assert!(!reads("{% if event %}x{% endif %}"));
        assert!(!reads("{{ site.sections[page.section] }}"));
        assert!(!reads("{% set x = page.url %}{{ x }}"));
        assert!(!reads("{{ now() }}"));
        assert!(!reads(r#"{% include "other.html" %}"#));
        assert!(!reads("{{ m::when(when=site.title) }}"));
        assert!(!reads("{% filter upper %}x{% endfilter %}"));
        assert!(!reads("{{ __tera_context }}"));
        assert!(!reads("{% if page is defined %}x{% endif %}"));
    }

    #[test]
    fn the_content_is_given_only_the_names_it_reads() {
        let names = |text: &str| {
            let template = tera::Template::new("content.html", None, text).unwrap();
            names_read(&template).map(|names| names.into_iter().collect::<Vec<_>>())
        };
        let built_in = crate::render::theme::embedded::TEMPLATES
            .iter()
            .find(|(n, _)| *n == "event.html")
            .unwrap()
            .1;
        let (_, sources) = split_sources("event.html", built_in).unwrap();
        let content = names(&sources[1].1).unwrap();
        assert!(content.contains(&"event".to_owned()), "{content:?}");
        assert!(!content.contains(&"site".to_owned()), "{content:?}");
        assert!(!content.contains(&"page".to_owned()), "{content:?}");
        assert_eq!(
            names(
                "{% for p in event.positions %}{{ p.label }}{% endfor %}{{ m::when(when=site.x) }}"
            ),
            Some(vec!["event".to_owned(), "p".to_owned(), "site".to_owned()])
        );
        assert_eq!(names(r#"{% include "x.html" %}"#), None);
        assert_eq!(names("{{ __tera_context }}"), None);
    }

    /// Every tag of base.html and layout.html that reads `page`, as written: a new use of
    /// `page` in the frame must be known to [`FrameKey`] (a test, a comparison) or be a
    /// [`Slot`] (text shown as it is), and then added here.
    #[test]
    fn base_html_uses_page_only_as_the_frame_key_knows() {
        let known = [
            r#"if page.section == "home""#,
            r#"if site.live_connect_src and page.section in ["home", "live"]"#,
            "page.title",
            "if page.description",
            "page.description",
            "if page.canonical",
            "page.canonical",
            "if page.image",
            "page.image",
            "if page.image_wide",
            r#"if page.url == name ~ "/""#,
            "elif page.section == name",
            "if page.url == item.url",
            "elif item.url and page.url is starting_with(item.url)",
        ];
        let mut seen = std::collections::BTreeSet::new();
        for name in ["base.html", "layout.html"] {
            let (_, text) = crate::render::theme::embedded::TEMPLATES
                .iter()
                .find(|(n, _)| *n == name)
                .unwrap();
            let mut rest = *text;
            while let Some(start) = rest.find('{') {
                rest = &rest[start + 1..];
                let close = match rest.chars().next() {
                    Some('{') => "}}",
                    Some('%') => "%}",
                    Some('#') => "#}",
                    _ => continue,
                };
                let end = rest.find(close).unwrap();
                let tag = rest[1..end].trim_matches('-').trim();
                if close != "#}" && tag.contains("page") {
                    seen.insert(tag.to_owned());
                }
                rest = &rest[end + 2..];
            }
        }
        let unknown: Vec<&String> = seen
            .iter()
            .filter(|t| !known.contains(&t.as_str()))
            .collect();
        assert!(
            unknown.is_empty(),
            "base.html reads `page` in a way src/render/frame.rs does not know: {unknown:?}"
        );
        assert_eq!(seen.len(), known.len(), "{seen:?}");
        let base = crate::render::theme::embedded::TEMPLATES[0].1;
        let sections = format!("{SECTION_ENTRIES:?}");
        assert!(
            base.contains(&format!("for name in {sections}")),
            "base.html's section entries are no longer {sections}"
        );
    }
}
