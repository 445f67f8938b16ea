//! A page's frame (base.html around the content block: head, header, menu, footer) rendered
//! once for all the pages that share it, instead of once per page.
//!
//! Event pages have the same frame but for four texts (title, description, canonical address,
//! preview image), and Tera spends more instructions on base.html than on the event itself:
//! without this, a build of 1,000 events takes 1.7 times the instructions
//! (docs/dev/performance.md). So a page template, the theme's or the built-in one, that fills
//! only the `content` block over `layout.html` is registered as two templates ([`Split`]): the
//! frame, rendered once per [`key`] with placeholders where the page's texts go, and the
//! content, rendered per page. The theme keeps a split only where layout.html and base.html are
//! the built-in ones, whose uses of `page` [`key`] knows (a test holds base.html to them).
//! A page is the frame with its placeholders filled, byte for byte what a whole render gives:
//! tests/it/frames.rs builds sites both ways.

use crate::render::escape::escape_html;
use crate::render::tera_glue::calls::calls_of;
use crate::sanitize::chars::strip_forbidden;
use crate::view::MenuItem;
use anyhow::Result;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

/// A placeholder is a noncharacter (removed from the API's text when it is decoded, and from
/// every rendered page), a digit, another noncharacter. A frame is used only where nothing
/// else in it holds either ([`Frame::parse`]).
const OPEN: char = '\u{FDD0}';
const CLOSE: char = '\u{FDD1}';

/// The texts of `page` the frame prints, escaped as the template would: placeholders 1 to 4.
/// Placeholder 0 is the content.
const TEXTS: [&str; 4] = ["title", "description", "canonical", "image"];

fn placeholder(slot: usize) -> String {
    format!("{OPEN}{slot}{CLOSE}")
}

/// What the content of a page template rendered in two parts reads from the context
/// (`event`, `root`); `None`: any name.
pub struct Split(Option<BTreeSet<String>>);

impl Split {
    /// The split of a page template whose content template is `content`: every name the
    /// content's tags read, or any name when it includes another template or dumps the context
    /// with `__tera_context`. A macro it calls sees only its arguments, which are read here.
    pub fn new(content: &tera::Template) -> Self {
        let uses = calls_of(&content.ast);
        let any = !uses.includes.is_empty() || uses.roots.contains("__tera_context");
        Split((!any).then_some(uses.roots))
    }

    /// Whether the content reads `name` from the context.
    pub fn reads(&self, name: &str) -> bool {
        self.0.as_ref().is_none_or(|names| names.contains(name))
    }
}

/// The names of the two templates the page template `name` is registered as beside it: the
/// frame (`layout.html` with the content placeholder in its content block) and the content
/// (the page template's own text over a parent that is its content block alone).
pub fn names(name: &str) -> [String; 2] {
    ["frame", "content"].map(|part| format!("__split__/{part}/{name}"))
}

/// The parent of every split's content template, and its text.
pub const CONTENT_PARENT: &str = "__split__/content.html";
pub const CONTENT_PARENT_TEXT: &str = "{% block content %}{% endblock content %}";
/// How a page template must begin to be split.
const EXTENDS_LAYOUT: &str = r#"{% extends "layout.html" %}"#;

/// The frame and the content of the page template `name` (`text`), to register with the
/// others. `None` for a template that does not begin by extending `layout.html`, or holds
/// more than one block (404.html's `intro` inside its content; a comment saying `endblock`
/// refuses one too, which is then only rendered whole). Whether one that parses fills no
/// block but `content` is [`splittable`]'s question.
pub fn split_sources(name: &str, text: &str) -> Option<[(String, String); 2]> {
    let rest = text.strip_prefix(EXTENDS_LAYOUT)?;
    if rest.matches("endblock").count() != 1 {
        return None;
    }
    let [frame, content] = names(name);
    // Over layout.html, not the page template: the page template's own text is parsed only
    // where a page is rendered whole. The content keeps its lines where they were, after the
    // first tag.
    let (open, close) = ("{% block content %}", "{% endblock content %}");
    let frame_text = format!("{EXTENDS_LAYOUT}{open}{}{close}", placeholder(0));
    let content_text = format!(r#"{{% extends "{CONTENT_PARENT}" %}}{rest}"#);
    Some([(frame, frame_text), (content, content_text)])
}

/// Whether the parsed page template fills the `content` block and no other.
pub fn splittable(template: &tera::Template) -> bool {
    template.blocks.len() == 1 && template.blocks.contains_key("content")
}

/// The sections base.html has a menu entry for, in its order.
const SECTION_ENTRIES: [&str; 5] = ["roster", "events", "division", "documents", "live"];

/// `page` as its frame is rendered: each text the frame prints that is set (not empty, which
/// Tera takes for false) replaced by its placeholder.
pub fn placeholder_page(page: &Value) -> Value {
    let mut page = page.clone();
    for (slot, field) in (1..).zip(TEXTS) {
        // A text, so `page` is an object: indexing it cannot panic.
        if page[field].as_str().is_some_and(|text| !text.is_empty()) {
            page[field] = Value::String(placeholder(slot));
        }
    }
    page
}

/// What a frame may differ by from one page to the next, as base.html uses `page` and `root`
/// (the test `base_html_uses_page_only_as_the_frame_key_knows` keeps the two in step): the
/// template, the way back to the root, the section, which of the page's values are set
/// (tested by `{% if %}`; the texts set are the placeholders of [`placeholder_page`]), and
/// which menu entries the page's address matches (for `aria-current`): for each built-in
/// section's entry, whether the page is that section's page; for each entry of the menu,
/// whether the page is it and whether the page is below it.
pub fn key(template: &str, root: &str, page: &Value, menu: &[MenuItem]) -> String {
    let url = page["url"].as_str().unwrap_or("");
    let set = TEXTS.map(|field| page[field].as_str().is_some_and(|text| !text.is_empty()));
    let mut flags = set.to_vec();
    flags.push(page["image_wide"] == true);
    flags.extend(SECTION_ENTRIES.map(|name| url.strip_suffix('/') == Some(name)));
    for item in menu.iter().filter(|item| !item.external) {
        flags.push(url == item.url);
        flags.push(!item.url.is_empty() && url.starts_with(&item.url));
    }
    let flags: String = flags.iter().map(|on| if *on { '1' } else { '0' }).collect();
    format!("{template}\n{root}\n{}\n{flags}", page["section"])
}

/// A rendered frame: its text cut at the placeholders.
pub struct Frame {
    /// The text before each placeholder, and after the last.
    texts: Vec<String>,
    /// The placeholders' numbers, in order.
    slots: Vec<usize>,
}

impl Frame {
    /// The frame from the text its template rendered. `None` when it cannot be used: the
    /// content placeholder is not there exactly once, or a placeholder's character appears
    /// anywhere but in a placeholder (the site's own text holds one).
    pub fn parse(text: &str) -> Option<Frame> {
        let mut pieces = text.split(OPEN);
        let mut texts = vec![strip_forbidden(pieces.next()?.to_owned())];
        let mut slots = Vec::new();
        for piece in pieces {
            let mut chars = piece.chars();
            let slot = chars.next()?.to_digit(10)? as usize;
            (slot <= TEXTS.len() && chars.next()? == CLOSE).then_some(())?;
            slots.push(slot);
            texts.push(strip_forbidden(chars.as_str().to_owned()));
        }
        let one_content = slots.iter().filter(|slot| **slot == 0).count() == 1;
        (one_content && text.matches(CLOSE).count() == slots.len())
            .then_some(Frame { texts, slots })
    }

    /// The page: the frame with `content` and `page`'s texts in place, without the characters
    /// no page may hold (the frame's own text lost them once, in [`Frame::parse`]).
    pub fn fill(&self, content: String, page: &Value) -> String {
        let escaped =
            |field: &str| strip_forbidden(escape_html(page[field].as_str().unwrap_or("")));
        let mut values = vec![strip_forbidden(content)];
        values.extend(TEXTS.map(escaped));
        let mut out = self.texts[0].clone();
        for (slot, text) in self.slots.iter().zip(&self.texts[1..]) {
            out.push_str(&values[*slot]);
            out.push_str(text);
        }
        out
    }
}

/// A frame made, or `None` for a key whose frame cannot be used.
type FrameMade = Option<Arc<Frame>>;

/// The frames made so far in one render, by [`key`].
#[derive(Default)]
pub struct Frames(Mutex<HashMap<String, FrameMade>>);

impl Frames {
    /// The frame for `key`, made by `make` the first time it is asked for.
    pub fn get(&self, key: String, make: impl FnOnce() -> Result<FrameMade>) -> Result<FrameMade> {
        // Made under the lock, once: the other threads wait for the first frame of a key.
        let mut frames = self.0.lock().expect("no panic holds the lock");
        if let Some(known) = frames.get(&key) {
            return Ok(known.clone());
        }
        let frame = make()?;
        frames.insert(key, frame.clone());
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
            placeholder(1),
            placeholder(2),
            placeholder(0)
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
        let content = placeholder(0);
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
                description: None,
            },
            MenuItem {
                name: "One".into(),
                url: "events/7/".into(),
                external: false,
                description: None,
            },
        ];
        let page = |url: &str| json!({"section": "events", "url": url, "title": "t"});
        let key = |url: &str| key("event.html", "../../", &page(url), &menu);
        assert_eq!(key("events/5/"), key("events/6/"));
        assert_ne!(key("events/5/"), key("events/7/"));
        assert_ne!(key("events/5/"), key("division/5/"));
    }

    #[test]
    fn the_key_follows_teras_truth_of_the_values_the_frame_tests() {
        let key = |page: Value| key("event.html", "../../", &page, &[]);
        let page = |description: Value| json!({"section": "events", "url": "events/1/", "description": description});
        // Tera takes an empty text, like a missing one, for false: it is no placeholder.
        assert_eq!(key(page(json!(""))), key(page(Value::Null)));
        assert_eq!(placeholder_page(&page(json!("")))["description"], "");
        assert_ne!(key(page(json!("An event"))), key(page(json!(""))));
        assert_eq!(key(page(json!("An event"))), key(page(json!("Another"))));
        let wide = |wide: bool| json!({"image": "https://x/b.png", "image_wide": wide});
        assert_ne!(key(wide(true)), key(wide(false)));
    }

    #[test]
    fn the_content_is_given_only_the_names_it_reads() {
        let names = |text: &str| {
            let template = tera::Template::new("content.html", None, text).unwrap();
            let split = Split::new(&template);
            (split.0).map(|names| names.into_iter().collect::<Vec<_>>())
        };
        let built_in = crate::render::theme::embedded::TEMPLATES
            .iter()
            .find(|(n, _)| *n == "event.html")
            .unwrap()
            .1;
        let sources = split_sources("event.html", built_in).unwrap();
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
    /// `page` in the frame must be known to [`key`] (a test, a comparison) or be a text of
    /// [`TEXTS`] (shown as it is), and then added here.
    #[test]
    fn base_html_uses_page_only_as_the_frame_key_knows() {
        let known = [
            r#"if page.section == "home""#,
            // `person.live` is the same on every member page of a build (the live page on or
            // off), and their template is in the key.
            r#"if site.live_connect_src and (page.section in ["home", "live"] or person.live)"#,
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
