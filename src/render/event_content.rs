//! The content of the built-in event page, and the built-in event card of the event lists,
//! written by hand: the same bytes Tera makes of `templates/event.html`, and of the
//! `event_card` and `when` macros of `templates/macros.html`, in a tenth of the work. Tera 1
//! spends about 3,000 instructions on each variable it looks up (it copies every segment of a
//! dotted name), and an event page's content, 20,000 times on a large site, was a fifth of a
//! build; the two event lists' cards, as many again, a tenth.
//!
//! The page is written from the view's [`EventPage`], whose values have one shape, and the
//! context Tera would get is not made at all (making and dropping it cost twice the
//! writing). A card is written from the values Tera hands the lists' template, following
//! Tera's rules where they matter (what is true in an `if`, how a value prints, what is
//! escaped); a value it does not expect (missing, or of another shape) makes it name the
//! value. A theme that overrides `event.html` or `macros.html` (or, for the cards,
//! `event_lists.html`) gets Tera, as before: the templates stay the source, and tests hold
//! the two together (the tests below, over every branch of the templates, and
//! tests/it/frames.rs over whole sites).

use crate::fetch::banners::{BannerCopy, LocalBanner};
use crate::render::escape::escape_html_into;
use crate::view::{EventPage, EventStatus, When};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;
use tera::Tera;
use tera::ast::{ExprVal, FunctionCall, Node};

/// The function the built-in `event_lists.html` calls in place of `m::event_card`
/// ([`call_the_card_function`]).
pub const CARD_FUNCTION: &str = "__event_card";

/// The banner served with the site, as `event.html` writes it.
fn local_banner(o: &mut String, banner: &LocalBanner, root: &str) {
    const SIZES: &str = "sizes=\"(min-width: 66rem) 63.5rem, calc(100vw - 2.5rem)\" srcset=\"";
    let srcset = |o: &mut String, copies: &[BannerCopy]| {
        for (n, copy) in copies.iter().enumerate() {
            if n > 0 {
                o.push_str(", ");
            }
            escape_html_into(o, root);
            escape_html_into(o, &copy.path);
            o.push(' ');
            o.push_str(&copy.width.to_string());
            o.push('w');
        }
        o.push_str("\">");
    };
    o.push_str("\n  <picture>");
    if !banner.webp.is_empty() {
        o.push_str("\n    <source type=\"image/webp\" ");
        o.push_str(SIZES);
        srcset(o, &banner.webp);
    }
    o.push_str("\n    <img class=\"event-banner\" src=\"");
    escape_html_into(o, root);
    escape_html_into(o, &banner.src);
    o.push_str("\" alt=\"\" decoding=\"async\"\n      width=\"");
    o.push_str(&banner.width.to_string());
    o.push_str("\" height=\"");
    o.push_str(&banner.height.to_string());
    o.push_str("\"\n      ");
    o.push_str(SIZES);
    srcset(o, &banner.fallback);
    o.push_str("\n  </picture>");
}

/// The catalogue's texts the content shows, each escaped once for every page.
pub struct EventContent {
    breadcrumb_label: String,
    events: String,
    division: String,
    happening_now: String,
    past: String,
    facility_event: String,
    division_event: String,
    when: String,
    airports: String,
    departures: String,
    arrivals: String,
    participating: String,
    add_to_calendar: String,
    add_to_google: String,
    about: String,
    positions: String,
    last_updated: String,
    end_not_given: String,
    airports_label: String,
    facility: String,
    division_badge: String,
}

impl EventContent {
    /// The content's texts through `text` (the template's `t(key=...)`, unescaped); `None`
    /// when one of them is not to be had, and Tera is to say so.
    pub fn new(text: impl Fn(&str) -> Option<String>) -> Option<Self> {
        let escaped = |key: &str| text(key).map(|text| escape(&text));
        Some(Self {
            breadcrumb_label: escaped("breadcrumb.label")?,
            events: escaped("page.events")?,
            division: escaped("page.division")?,
            happening_now: escaped("event.happening_now")?,
            past: escaped("event.past")?,
            facility_event: escaped("event.facility_event")?,
            division_event: escaped("event.division_event")?,
            when: escaped("event.when")?,
            airports: escaped("event.airports")?,
            departures: escaped("event.departures")?,
            arrivals: escaped("event.arrivals")?,
            participating: escaped("event.participating")?,
            add_to_calendar: escaped("event.add_to_calendar")?,
            add_to_google: escaped("event.add_to_google")?,
            about: escaped("event.about")?,
            positions: escaped("event.positions")?,
            last_updated: escaped("event.last_updated")?,
            end_not_given: escaped("event.end_not_given")?,
            airports_label: escaped("event.airports_label")?,
            facility: escaped("event.facility")?,
            division_badge: escaped("event.division")?,
        })
    }

    /// The content block of `event`'s page, `root` the way back to the site's root and
    /// `google` its Google Calendar link: what Tera makes of the built-in `event.html` over
    /// [`EventPage::context`], written from the view itself, whose values have the one shape
    /// the context's do (`bool` for `facility`, text for `name`, a list of texts for
    /// `airports`), without making the context at all (making it and dropping it took twice
    /// the writing).
    pub fn write_page(&self, event: &EventPage, root: &str, google: Option<&str>) -> String {
        let summary = &event.summary;
        let description = &event.description_html;
        let mut out = String::with_capacity(3072 + description.len());
        let o = &mut out;
        o.push_str("\n<article class=\"event\">\n  <nav class=\"breadcrumb\" aria-label=\"");
        o.push_str(&self.breadcrumb_label);
        o.push_str("\"><ol><li>");
        let (section, name) = if summary.facility {
            ("events/", &self.events)
        } else {
            ("division/", &self.division)
        };
        o.push_str("<a href=\"");
        escape_html_into(o, root);
        o.push_str(section);
        o.push_str("\">");
        o.push_str(name);
        o.push_str("</a></li><li><span aria-current=\"page\">");
        escape_html_into(o, &summary.name);
        o.push_str("</span></li></ol></nav>");
        // A banner is an object of fields, true in an `if`.
        if let Some(banner) = &summary.banner_copies {
            local_banner(o, banner, root);
        } else if let Some(banner) = &summary.banner {
            o.push_str("\n  <img class=\"event-banner\" src=\"");
            escape_html_into(o, &banner.href);
            o.push_str("\" alt=\"\" width=\"1200\" height=\"400\">");
        }
        o.push_str("\n  <h1>");
        escape_html_into(o, &summary.name);
        o.push_str("</h1>\n  <p class=\"badges\">");
        match summary.status {
            EventStatus::Ongoing => badge(o, " badge-live", &self.happening_now),
            EventStatus::Past => badge(o, " badge-past", &self.past),
            EventStatus::Upcoming => {}
        }
        source_badges(
            o,
            summary.facility,
            summary.division,
            (&self.facility_event, &self.division_event),
        );
        o.push_str("</p>\n  <dl class=\"facts\">\n    <div><dt>");
        o.push_str(&self.when);
        o.push_str("</dt><dd>");
        self.when_macro(o, &summary.when);
        o.push_str("</dd></div>");
        for (list, term) in [
            (&event.airports, &self.airports),
            (&event.departure, &self.departures),
            (&event.arrival, &self.arrivals),
            (&event.participants, &self.participating),
        ] {
            if !list.is_empty() {
                o.push_str("\n    <div><dt>");
                o.push_str(term);
                o.push_str("</dt><dd>");
                for (i, item) in list.iter().enumerate() {
                    if i > 0 {
                        o.push_str(", ");
                    }
                    escape_html_into(o, item);
                }
                o.push_str("</dd></div>");
            }
        }
        o.push_str("\n  </dl>");
        if summary.status != EventStatus::Past {
            o.push_str("\n  <p class=\"actions\"><a class=\"button\" href=\"event.ics\" download>");
            o.push_str(&self.add_to_calendar);
            o.push_str("</a>");
            if let Some(google) = google.filter(|google| !google.is_empty()) {
                o.push_str("\n    <a class=\"button button-quiet\" href=\"");
                escape_html_into(o, google);
                o.push_str("\" rel=\"noopener noreferrer\">");
                o.push_str(&self.add_to_google);
                o.push_str("</a>");
            }
            o.push_str("</p>");
        }
        if !description.is_empty() {
            o.push_str("\n  <section aria-labelledby=\"about\">\n    <h2 id=\"about\">");
            o.push_str(&self.about);
            o.push_str("</h2>\n    <div class=\"description\">");
            // `| safe`: sanitized by the view.
            o.push_str(description);
            o.push_str("</div>\n  </section>");
        }
        if !event.positions.is_empty() {
            o.push_str("\n  <section aria-labelledby=\"positions\">\n    <h2 id=\"positions\">");
            o.push_str(&self.positions);
            o.push_str("</h2>\n    <ul class=\"positions\">");
            for position in &event.positions {
                o.push_str("\n      <li><strong>");
                escape_html_into(o, &position.label);
                o.push_str("</strong>");
                if let Some(detail) = position.detail.as_deref().filter(|d| !d.is_empty()) {
                    o.push_str(" <span>");
                    escape_html_into(o, detail);
                    o.push_str("</span>");
                }
                o.push_str("</li>");
            }
            o.push_str("\n    </ul>\n  </section>");
        }
        // An instant is an object of four fields, true in an `if`.
        if let Some(updated) = &event.updated {
            o.push_str("\n  <p class=\"updated\">");
            o.push_str(&self.last_updated);
            o.push_str("\n    <time datetime=\"");
            escape_html_into(o, &updated.iso);
            o.push_str("\">");
            escape_html_into(o, &updated.zulu);
            o.push_str("</time>.</p>");
        }
        o.push_str("\n</article>\n");
        out
    }

    /// macros.html's `event_card(event, root, heading)`.
    pub fn write_card(&self, event: &Value, root: &Value, heading: &Value) -> Option<String> {
        let mut out = String::with_capacity(1024);
        let o = &mut out;
        let ongoing = field(event, "status")? == "ongoing";
        let when = field(event, "when")?;
        o.push_str("\n<article class=\"event-card");
        if ongoing {
            o.push_str(" is-ongoing");
        }
        o.push_str(
            "\">\n  <div class=\"event-date\" aria-hidden=\"true\"><span class=\"event-month\">",
        );
        print(o, field(when, "month"))?;
        o.push_str("</span><span class=\"event-day\">");
        print(o, field(when, "day"))?;
        o.push_str("</span></div>\n  <div class=\"event-body\">\n    <");
        print(o, Some(heading))?;
        o.push_str(" class=\"event-title\"><a href=\"");
        print(o, Some(root))?;
        print(o, field(event, "url"))?;
        o.push_str("\">");
        print(o, field(event, "name"))?;
        o.push_str("</a></");
        print(o, Some(heading))?;
        o.push_str(">\n    <p class=\"event-meta\">");
        self.when_macro(o, when)?;
        o.push_str("</p>");
        let route = field(event, "route");
        if truthy(route) {
            o.push_str("\n    <p class=\"event-route\"><span class=\"visually-hidden\">");
            o.push_str(&self.airports_label);
            o.push_str("</span>");
            print(o, route)?;
            o.push_str("</p>");
        }
        o.push_str("\n    <p class=\"badges\">");
        if ongoing {
            badge(o, " badge-live", &self.happening_now);
        }
        source_badges(
            o,
            truthy(field(event, "facility")),
            truthy(field(event, "division")),
            (&self.facility, &self.division_badge),
        );
        o.push_str("</p>\n  </div>\n</article>\n");
        Some(out)
    }

    /// macros.html's `when(when)`.
    fn when_macro(&self, o: &mut String, when: &impl WhenSource) -> Option<()> {
        o.push_str("\n<span class=\"when\"><time datetime=\"");
        when.print(o, WhenText::StartIso)?;
        o.push_str("\">");
        when.print(o, WhenText::StartZulu)?;
        o.push_str("</time> – <time datetime=\"");
        when.print(o, WhenText::EndIso)?;
        o.push_str("\">");
        if when.same_day() {
            when.print(o, WhenText::EndTime)?;
        } else {
            when.print(o, WhenText::EndZulu)?;
        }
        o.push_str("</time>");
        if when.end_assumed() {
            o.push_str(" <span class=\"note\">");
            o.push_str(&self.end_not_given);
            o.push_str("</span>");
        }
        o.push_str("</span>");
        if when.has_local() {
            o.push_str("<span class=\"when-local\">");
            when.print(o, WhenText::Local)?;
            o.push_str("</span>");
        }
        o.push_str("\n<span class=\"reader-time\" data-start=\"");
        when.print(o, WhenText::StartIso)?;
        o.push_str("\" data-end=\"");
        when.print(o, WhenText::EndIso)?;
        o.push_str("\" hidden></span>\n");
        Some(())
    }
}

/// The texts of an event's times that macros.html's `when` prints.
#[derive(Clone, Copy)]
enum WhenText {
    StartIso,
    StartZulu,
    EndIso,
    EndTime,
    EndZulu,
    Local,
}

/// What macros.html's `when` reads: from a card's values, which may be of any shape, or from
/// a page's view, which has the one.
trait WhenSource {
    /// `{{ text }}`, escaped; `None` where Tera is to print it.
    fn print(&self, o: &mut String, text: WhenText) -> Option<()>;
    fn same_day(&self) -> bool;
    fn end_assumed(&self) -> bool;
    fn has_local(&self) -> bool;
}

impl WhenSource for Value {
    fn print(&self, o: &mut String, text: WhenText) -> Option<()> {
        let (instant, key) = match text {
            WhenText::StartIso => ("start", "iso"),
            WhenText::StartZulu => ("start", "zulu"),
            WhenText::EndIso => ("end", "iso"),
            WhenText::EndTime => ("end", "time"),
            WhenText::EndZulu => ("end", "zulu"),
            WhenText::Local => return print(o, field(self, "local")),
        };
        print(o, field(field(self, instant)?, key))
    }

    fn same_day(&self) -> bool {
        truthy(field(self, "same_day"))
    }

    fn end_assumed(&self) -> bool {
        truthy(field(self, "end_assumed"))
    }

    fn has_local(&self) -> bool {
        truthy(field(self, "local"))
    }
}

impl WhenSource for When {
    fn print(&self, o: &mut String, text: WhenText) -> Option<()> {
        escape_html_into(
            o,
            match text {
                WhenText::StartIso => &self.start.iso,
                WhenText::StartZulu => &self.start.zulu,
                WhenText::EndIso => &self.end.iso,
                WhenText::EndTime => &self.end.time,
                WhenText::EndZulu => &self.end.zulu,
                WhenText::Local => self.local.as_deref().unwrap_or_default(),
            },
        );
        Some(())
    }

    fn same_day(&self) -> bool {
        self.same_day
    }

    fn end_assumed(&self) -> bool {
        self.end_assumed
    }

    fn has_local(&self) -> bool {
        self.local.as_deref().is_some_and(|local| !local.is_empty())
    }
}

/// Writes by hand, for the theme loaded into `tera`, what it keeps of the built-in templates
/// these are written after (`built_in(name)`: the theme has no template of that name): the
/// lists' event cards, through [`CARD_FUNCTION`], and the event page's content, when its
/// template is split (`event_split`), which is returned for [`EventContent::write_page`]. `text` is
/// the template's `t(key=...)`, unescaped.
pub fn install(
    tera: &mut Tera,
    built_in: impl Fn(&str) -> bool,
    event_split: bool,
    text: impl Fn(&str) -> Option<String>,
) -> Option<Arc<EventContent>> {
    let written = built_in("macros.html")
        .then(|| EventContent::new(text))
        .flatten()
        .map(Arc::new);
    let event_content = written
        .clone()
        .filter(|_| event_split && built_in("event.html"));
    // Tera 1 finds an included template's macros among the imports of the template that
    // includes it: every one that includes event_lists.html must import macros.html as `m`
    // for `m::event_card` to be the built-in macro.
    let cards_by_hand = written.filter(|_| {
        built_in("event_lists.html")
            && tera.templates.values().all(|template| {
                !crate::render::limits::calls_of(&template.ast)
                    .includes
                    .iter()
                    .any(|name| name == "event_lists.html")
                    || template
                        .imported_macro_files
                        .iter()
                        .any(|(file, namespace)| file == "macros.html" && namespace == "m")
            })
    });
    let cards_rewritten = match (cards_by_hand, tera.templates.get_mut("event_lists.html")) {
        (Some(content), Some(lists)) => {
            let calls = call_the_card_function(&mut lists.ast, "m");
            tera.register_function(CARD_FUNCTION, CardFunction(content));
            calls
        }
        _ => 0,
    };
    log::debug!(
        "event pages' content written {}; event cards of the lists written {}",
        if event_content.is_some() {
            "without Tera (the built-in event.html and macros.html)"
        } else {
            "by Tera, from the theme's event.html or macros.html"
        },
        if cards_rewritten > 0 {
            "without Tera (the built-in event_lists.html and macros.html)"
        } else {
            "by Tera"
        }
    );
    event_content
}

/// [`EventContent::write_card`] as the Tera function [`CARD_FUNCTION`]: its text is markup,
/// escaped as the macro escapes it.
struct CardFunction(Arc<EventContent>);

impl tera::Function for CardFunction {
    fn call(&self, args: &HashMap<String, Value>) -> tera::Result<Value> {
        let arg = |name: &str| {
            args.get(name).ok_or_else(|| {
                tera::Error::msg(format!(
                    "macros.html's event_card needs the argument `{name}`"
                ))
            })
        };
        let card = self
            .0
            .write_card(arg("event")?, arg("root")?, arg("heading")?);
        card.map(Value::String).ok_or_else(|| {
            tera::Error::msg(
                "macros.html's event_card: an event without the name, url, status or when it shows",
            )
        })
    }

    fn is_safe(&self) -> bool {
        true
    }
}

/// Makes each `{{ namespace::event_card(...) }}` of `nodes` a call of [`CARD_FUNCTION`]
/// with the same arguments; how many it changed.
pub fn call_the_card_function(nodes: &mut [Node], namespace: &str) -> usize {
    let mut changed = 0;
    for node in nodes {
        match node {
            Node::VariableBlock(_, expr) if expr.filters.is_empty() && !expr.negated => {
                if let ExprVal::MacroCall(call) = &expr.val
                    && call.namespace == namespace
                    && call.name == "event_card"
                {
                    expr.val = ExprVal::FunctionCall(FunctionCall {
                        name: CARD_FUNCTION.to_owned(),
                        args: call.args.clone(),
                    });
                    changed += 1;
                }
            }
            Node::Forloop(_, forloop, _) => {
                changed += call_the_card_function(&mut forloop.body, namespace);
                if let Some(body) = &mut forloop.empty_body {
                    changed += call_the_card_function(body, namespace);
                }
            }
            Node::If(branches, _) => {
                for (_, _, body) in &mut branches.conditions {
                    changed += call_the_card_function(body, namespace);
                }
                if let Some((_, body)) = &mut branches.otherwise {
                    changed += call_the_card_function(body, namespace);
                }
            }
            Node::Block(_, block, _) => {
                changed += call_the_card_function(&mut block.body, namespace)
            }
            Node::FilterSection(_, section, _) => {
                changed += call_the_card_function(&mut section.body, namespace)
            }
            _ => {}
        }
    }
    changed
}

/// The badges of a facility's and of a division's event, in the page's or the card's words.
fn source_badges(o: &mut String, facility: bool, division: bool, texts: (&str, &str)) {
    if facility {
        badge(o, "", texts.0);
    }
    if division {
        badge(o, " badge-division", texts.1);
    }
}

fn badge(o: &mut String, class: &str, text: &str) {
    o.push_str("<span class=\"badge");
    o.push_str(class);
    o.push_str("\">");
    o.push_str(text);
    o.push_str("</span>");
}

/// `object.key`; `None` where Tera finds no such value.
fn field<'a>(object: &'a Value, key: &str) -> Option<&'a Value> {
    object.as_object()?.get(key)
}

/// Tera's truth in an `if`: what is missing, null, false, zero or empty is false.
fn truthy(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|n| n != 0.0 && !n.is_nan()),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
    }
}

/// `{{ value }}`, escaped; `None` (Tera to render) for a value missing or that Tera prints
/// in a way of its own (a list, an object).
fn print(o: &mut String, value: Option<&Value>) -> Option<()> {
    match value? {
        Value::String(s) => escape_html_into(o, s),
        Value::Null => {}
        Value::Bool(b) => o.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) if n.is_i64() || n.is_u64() => o.push_str(&n.to_string()),
        _ => return None,
    }
    Some(())
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_html_into(&mut out, text);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Texts;
    use crate::render::Theme;
    use crate::sanitize::links::SafeLink;
    use crate::view::{EventKey, EventSummary, Instant, Position};
    use serde_json::{Map, json};
    use std::sync::Arc;

    /// The content of the built-in event template as Tera renders it over a split frame.
    const CONTENT: &str = "__split__/content/event.html";

    fn theme(language: &str) -> Theme {
        Theme::load(None, Arc::new(Texts::load(language, None).unwrap())).unwrap()
    }

    /// A value from `choices` picked by the bits of `n` from `shift`, so that the cases
    /// below walk through every choice of every field.
    fn pick<T: Clone>(n: u64, shift: &mut u32, choices: &[T]) -> T {
        let bits = usize::BITS - (choices.len() - 1).leading_zeros();
        let i = ((n >> *shift) as usize & ((1 << bits) - 1)) % choices.len();
        *shift += bits;
        choices[i].clone()
    }

    const HOSTILE: &str = r#"<script>alert("x")</script> & 'quotes' ☃"#;

    fn instant(iso: &str) -> Instant {
        Instant {
            iso: iso.to_owned(),
            zulu: format!("{iso} Z<"),
            date: "d".to_owned(),
            time: "19:00Z".to_owned(),
        }
    }

    /// A banner served with the site, with WebP copies or without, paths to escape.
    fn local_banner_case(webp: bool) -> Arc<LocalBanner> {
        let copy = |path: &str, width| BannerCopy {
            path: path.to_owned(),
            width,
        };
        Arc::new(LocalBanner {
            width: 1200,
            height: 400,
            src: "banners/ab&c-1200.jpg".to_owned(),
            fallback_type: "image/jpeg",
            fallback: vec![
                copy("banners/ab-480.jpg", 480),
                copy("banners/ab&c-1200.jpg", 1200),
            ],
            webp: if webp {
                vec![
                    copy("banners/ab-480.webp", 480),
                    copy("banners/ab\"-1200.webp", 1200),
                ]
            } else {
                Vec::new()
            },
        })
    }

    /// An event's page, and the way back to the root, for case `n`: each field's choice
    /// picked by bits of `n`. The Google link is the page's (the view makes it from the
    /// event's times and text, which it is not worth varying here).
    fn event_page(n: u64) -> (EventPage, String, Option<String>) {
        let s = &mut 0;
        let when = When {
            start: instant("2026-11-05T19:00:00Z"),
            end: instant("2026-11-05T22:00:00Z&"),
            same_day: pick(n, s, &[true, false]),
            end_assumed: pick(n, s, &[false, true]),
            local: pick(
                n,
                s,
                &[
                    None,
                    Some("Thu 5 Nov 15:00–18:00 <AST>".to_owned()),
                    Some(String::new()),
                ],
            ),
            weekday: "Thursday".to_owned(),
            day: "5".to_owned(),
            month: "Nov".to_owned(),
        };
        let banner = SafeLink {
            href: "https://cdn.example/b&c\"d.png".to_owned(),
            host: "cdn.example".to_owned(),
            external: true,
        };
        let summary = EventSummary {
            key: EventKey::shared(412),
            id: 412,
            name: pick(n, s, &["Caribbean Crossfire", HOSTILE]).to_owned(),
            url: "events/412/".to_owned(),
            when,
            route: "TJSJ → TNCM".to_owned(),
            banner: pick(n, s, &[None, Some(banner)]),
            banner_copies: pick(
                n,
                s,
                &[
                    None,
                    Some(local_banner_case(false)),
                    Some(local_banner_case(true)),
                ],
            ),
            status: pick(
                n,
                s,
                &[
                    EventStatus::Upcoming,
                    EventStatus::Ongoing,
                    EventStatus::Past,
                ],
            ),
            facility: pick(n, s, &[true, false]),
            division: pick(n, s, &[false, true]),
        };
        let mut page = EventPage::of_summary(summary);
        page.description_html =
            pick(n, s, &["", "<p>Fly <strong>in</strong> &amp; out</p>"]).to_owned();
        page.excerpt = Some("Fly in".to_owned());
        let lists: [Vec<String>; 3] = [
            vec![],
            vec!["TJSJ".to_owned()],
            vec!["TJSJ".to_owned(), HOSTILE.to_owned()],
        ];
        page.airports = pick(n, s, &lists);
        page.departure = pick(n, s, &lists);
        page.arrival = pick(n, s, &lists);
        page.participants = pick(n, s, &lists);
        let position = |label: &str, detail: Option<&str>| Position {
            label: label.to_owned(),
            detail: detail.map(str::to_owned),
        };
        page.positions = pick(
            n,
            s,
            &[
                vec![],
                vec![
                    position("TJSJ_APP", None),
                    position(HOSTILE, Some("from 19:00 & <later>")),
                    position("TNCM_TWR", Some("")),
                ],
            ],
        );
        page.updated = pick(n, s, &[None, Some(instant("2026-11-01T10:00:00Z\""))]);
        let google = pick(
            n,
            s,
            &[
                None,
                Some(String::new()),
                Some(
                    "https://calendar.google.com/calendar/render?action=TEMPLATE&text=a%20b&x=<y>"
                        .to_owned(),
                ),
            ],
        );
        let root = pick(n, s, &["../../", "../\"<'&>/"]).to_owned();
        assert!(*s <= 40);
        (page, root, google)
    }

    /// What Tera is given for the page: its context, with the case's Google link.
    fn context(page: &EventPage, root: &str, google: Option<&str>) -> Map<String, Value> {
        let mut event = page.context().unwrap();
        event["google_calendar"] = json!(google);
        let mut context = Map::new();
        context.insert("root".into(), json!(root));
        context.insert("event".into(), event);
        context
    }

    #[test]
    fn writes_the_bytes_tera_renders_for_every_branch_of_the_template() {
        for language in ["en", "es", "fr", "nl"] {
            let theme = theme(language);
            let writer = theme
                .event_writer()
                .expect("the built-in theme writes events by hand");
            // Every field's every choice, many of them together: bits of a stepping counter.
            for n in (0..4000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20) {
                let (page, root, google) = event_page(n);
                let context = context(&page, &root, google.as_deref());
                let tera = theme
                    .render_part(
                        CONTENT,
                        &tera::Context::from_value(Value::Object(context.clone())).unwrap(),
                    )
                    .unwrap();
                let by_hand = writer.write_page(&page, &root, google.as_deref());
                assert_eq!(by_hand, tera, "{language}, case {n}: {context:#?}");
            }
        }
    }

    #[test]
    fn writes_the_cards_tera_renders_for_every_branch_of_the_macro() {
        const CARD: &str = r#"{% import "macros.html" as m %}{{ m::event_card(event=event, root=root, heading=heading) }}"#;
        for language in ["en", "es", "fr", "nl"] {
            let mut theme = theme(language);
            theme.add_template("card.html", CARD).unwrap();
            // The texts the theme writes the pages with, and so the cards.
            let content = theme.event_writer().unwrap();
            for n in (0..2000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20) {
                let (page, root, google) = event_page(n);
                let mut context = context(&page, &root, google.as_deref());
                let heading = if n % 2 == 0 { json!("h3") } else { json!("h2") };
                let event = &mut context["event"];
                if n % 3 == 0 {
                    event["route"] = json!("");
                }
                let by_hand = content
                    .write_card(&context["event"], &context["root"], &heading)
                    .expect("an event of the view's shape");
                context.insert("heading".into(), heading);
                let tera = theme
                    .render_part(
                        "card.html",
                        &tera::Context::from_value(Value::Object(context.clone())).unwrap(),
                    )
                    .unwrap();
                assert_eq!(by_hand, tera, "{language}, case {n}: {context:#?}");
            }
        }
    }

    #[test]
    fn the_built_in_lists_call_the_card_function_and_a_theme_of_its_own_the_macro() {
        let mut nodes = tera::Template::new(
            "lists.html",
            None,
            r#"{% import "macros.html" as m %}{% if a %}{% for e in l %}{{ m::event_card(event=e, root=r, heading="h3") }}{% endfor %}{% else %}{{ m::event_card(event=e, root=r, heading="h3") | upper }}{{ x::event_card(event=e) }}{% endif %}"#,
        )
        .unwrap()
        .ast;
        // Only the bare call of `m`'s macro: a filtered one or another namespace's stays.
        assert_eq!(call_the_card_function(&mut nodes, "m"), 1);
        assert_eq!(call_the_card_function(&mut nodes, "m"), 0);
    }

    #[test]
    fn a_card_gives_up_on_values_it_does_not_expect() {
        let theme = theme("en");
        let writer = theme.event_writer().unwrap();
        let (page, root, google) = event_page(0);
        let context = context(&page, &root, google.as_deref());
        let card = |event: &Value| writer.write_card(event, &json!(root), &json!("h3"));
        assert!(card(&context["event"]).is_some());
        let without = |path: &[&str]| {
            let mut event = context["event"].clone();
            let (last, parents) = path.split_last().unwrap();
            let mut value = &mut event;
            for key in parents {
                value = value.get_mut(*key).unwrap();
            }
            value.as_object_mut().unwrap().remove(*last);
            card(&event)
        };
        for path in [
            &["name"][..],
            &["status"],
            &["when"],
            &["when", "start"],
            &["when", "end", "iso"],
        ] {
            assert_eq!(without(path), None, "without {path:?}");
        }
        let mut odd = context["event"].clone();
        odd["name"] = json!(["a", "list"]);
        assert_eq!(card(&odd), None);
        odd["name"] = json!({"an": "object"});
        assert_eq!(card(&odd), None);
    }

    #[test]
    fn a_theme_that_overrides_the_event_or_its_macros_gets_tera() {
        for overridden in ["event.html", "macros.html"] {
            let dir = tempfile::tempdir().unwrap();
            let builtin = crate::render::TEMPLATES
                .iter()
                .find(|(name, _)| *name == overridden)
                .unwrap()
                .1;
            std::fs::write(dir.path().join(overridden), builtin).unwrap();
            let texts = Arc::new(Texts::load("en", None).unwrap());
            let theme = Theme::load(Some(dir.path()), texts).unwrap();
            assert!(theme.event_writer().is_none(), "{overridden}");
        }
        assert!(theme("en").event_writer().is_some());
    }
}
