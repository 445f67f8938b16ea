//! Wide blocks of HTML made from Markdown (tables, code) put in a frame of their own that
//! scrolls sideways, so that a page never grows wider than the window. A scrolling region
//! must be reachable by keyboard and named (axe: `scrollable-region-focusable`), so each
//! frame is focusable, a `region`, and labelled in the page's language.

use pulldown_cmark::{CowStr, Event, Tag, TagEnd};

/// The opening tags of the frames, one per kind of block, their labels already escaped.
#[derive(Clone, Debug)]
pub struct FrameTags {
    table: String,
    code: String,
}

/// What closes a frame.
pub const CLOSE: &str = "</div>";

impl FrameTags {
    /// Frames named `table_label` ("Scrollable table") and `code_label`.
    pub fn new(table_label: &str, code_label: &str) -> Self {
        let open = |class: &str, label: &str| {
            format!(
                "<div class=\"{class}\" tabindex=\"0\" role=\"region\" aria-label=\"{}\">",
                escape_attribute(label)
            )
        };
        Self {
            table: open("scroll-frame", table_label),
            code: open("scroll-frame scroll-code", code_label),
        }
    }

    /// The opening tag of a table's frame.
    pub fn table(&self) -> &str {
        &self.table
    }

    /// The opening tag of a code block's frame.
    pub fn code(&self) -> &str {
        &self.code
    }

    /// `event` added to `out` in its frame: a table or code block opened after its frame's
    /// opening tag, and closed before its frame's close. [`FrameTags::around`] for events
    /// already collected, without an iterator per event.
    pub fn push<'a, 'f: 'a>(&'f self, out: &mut Vec<Event<'a>>, event: Event<'a>) {
        let (before, after) = self.tags_around(&event);
        out.extend(before);
        out.push(event);
        out.extend(after);
    }

    /// What goes before and after `event`: a frame's opening tag before a table or code
    /// block starts, its close after one ends. Markdown nests neither in the other, so no
    /// depth is kept.
    fn tags_around<'a, 'f: 'a>(&'f self, event: &Event) -> (Option<Event<'a>>, Option<Event<'a>>) {
        let html = |text: &'f str| Some(Event::Html(CowStr::Borrowed(text)));
        match event {
            Event::Start(Tag::Table(_)) => (html(&self.table), None),
            Event::Start(Tag::CodeBlock(_)) => (html(&self.code), None),
            Event::End(TagEnd::Table | TagEnd::CodeBlock) => (None, html(CLOSE)),
            _ => (None, None),
        }
    }

    /// Markdown events with every table and code block in its frame.
    pub fn around<'a, 'f: 'a>(
        &'f self,
        events: impl Iterator<Item = Event<'a>>,
    ) -> impl Iterator<Item = Event<'a>> {
        events.flat_map(move |event| {
            let (before, after) = self.tags_around(&event);
            before.into_iter().chain([event]).chain(after)
        })
    }
}

fn escape_attribute(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use pulldown_cmark::{Options, Parser};

    #[test]
    fn events_pushed_one_at_a_time_are_framed_as_around_frames_them() {
        let frames = FrameTags::new("Scrollable table", "Scrollable code");
        let markdown = "| a |\n|---|\n| 1 |\n\n```\ncode\n```\n\n    indented\n\n> quote\n";
        let events = || Parser::new_ext(markdown, Options::ENABLE_TABLES);
        let around: Vec<Event> = frames.around(events()).collect();
        let mut pushed = Vec::new();
        for event in events() {
            frames.push(&mut pushed, event);
        }
        assert_eq!(pushed, around);
        assert_eq!(
            pushed
                .iter()
                .filter(|e| **e == Event::Html(CLOSE.into()))
                .count(),
            3
        );
    }

    #[test]
    fn tables_and_code_blocks_are_framed_and_named_and_nothing_else_is() {
        let frames = FrameTags::new("Scrollable \"table\"", "Scrollable code");
        let markdown =
            "Text\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```\nwide code\n```\n\n> quote\n";
        let mut html = String::new();
        pulldown_cmark::html::push_html(
            &mut html,
            frames.around(Parser::new_ext(markdown, Options::ENABLE_TABLES)),
        );
        // Line breaks between tags are the writer's layout.
        let html = html.replace('\n', "");
        assert!(
            html.contains(concat!(
                r#"<div class="scroll-frame" tabindex="0" role="region" aria-label="Scrollable &quot;table&quot;">"#,
                "<table>"
            )),
            "{html}"
        );
        assert!(html.contains("</table></div>"), "{html}");
        assert!(
            html.contains(concat!(
                r#"<div class="scroll-frame scroll-code" tabindex="0" role="region" aria-label="Scrollable code">"#,
                "<pre><code>wide code</code></pre></div>"
            )),
            "{html}"
        );
        assert_eq!(html.matches("<div").count(), 2, "{html}");
        assert_eq!(html.matches("</div>").count(), 2, "{html}");
    }
}
