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

    /// Markdown events with every table and code block in its frame: a frame's opening tag
    /// before one starts, its close after one ends. Markdown nests neither in the other, so
    /// no depth is kept.
    pub fn around<'a, 'f: 'a>(
        &'f self,
        events: impl Iterator<Item = Event<'a>>,
    ) -> impl Iterator<Item = Event<'a>> {
        let html = |text: &'f str| Some(Event::Html(CowStr::Borrowed(text)));
        events.flat_map(move |event| {
            let (before, after) = match &event {
                Event::Start(Tag::Table(_)) => (html(&self.table), None),
                Event::Start(Tag::CodeBlock(_)) => (html(&self.code), None),
                Event::End(TagEnd::Table | TagEnd::CodeBlock) => (None, html(CLOSE)),
                _ => (None, None),
            };
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
