//! Untrusted event descriptions and training notes (markdown or HTML) made into safe HTML.
//!
//! Markdown is rendered with pulldown-cmark, then everything is cleaned by ammonia: no
//! scripts, no event handlers, no styles, links and images only to http(s) (relative ones
//! resolved against the API's base URL), and every link gets `rel="noopener noreferrer"`.
//! Every heading of a description becomes an `h3`: it sits below the page's `h1` and the
//! section's `h2`, and a flat level can never skip one (which validators and screen readers
//! flag).

use ammonia::{Builder, UrlRelative};
use pulldown_cmark::{Options, Parser};
use std::collections::HashSet;
use url::Url;

pub struct Sanitizer {
    builder: Builder<'static>,
}

impl Sanitizer {
    pub fn new(base: &Url) -> Self {
        let mut folder = base.clone();
        if !folder.path().ends_with('/') {
            let path = format!("{}/", folder.path());
            folder.set_path(&path);
        }
        let mut builder = Builder::default();
        builder
            .url_schemes(HashSet::from(["http", "https"]))
            .url_relative(UrlRelative::RewriteWithBase(folder))
            .link_rel(Some("noopener noreferrer"))
            .set_tag_attribute_value("img", "loading", "lazy");
        Self { builder }
    }

    /// Markdown or HTML in, safe HTML out. Text that starts with a tag is taken as HTML;
    /// anything else as markdown (which passes inline HTML through to the sanitizer).
    pub fn render(&self, text: &str) -> String {
        let trimmed = text.trim_start();
        let html = if trimmed.starts_with('<') {
            text.to_owned()
        } else {
            markdown_to_html(text)
        };
        finish_tags(&self.builder.clean(&html).to_string())
    }
}

/// Last touches on sanitized HTML, which html5ever has serialized in a regular form (text
/// has `<` as `&lt;`, attribute values are double-quoted with `"` as `&quot;`), so tags can be
/// found by scanning:
/// - every heading becomes an `h3`;
/// - an `img` without `alt` gets `alt=""` (decorative), as HTML requires;
/// - an `a` whose `href` was removed loses its `rel` too, which is only valid beside an `href`.
fn finish_tags(html: &str) -> String {
    let mut out = String::with_capacity(html.len() + 16);
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let tag_and_after = &rest[open..];
        let mut quoted = false;
        let end = tag_and_after
            .char_indices()
            .find(|&(_, c)| {
                if c == '"' {
                    quoted = !quoted;
                }
                c == '>' && !quoted
            })
            .map_or(tag_and_after.len(), |(i, _)| i + 1);
        out.push_str(&finish_tag(&tag_and_after[..end]));
        rest = &tag_and_after[end..];
    }
    out.push_str(rest);
    out
}

fn finish_tag(tag: &str) -> String {
    let skip = if tag.starts_with("</") { 2 } else { 1 };
    let name_end = tag[skip..]
        .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
        .map_or(tag.len(), |i| i + skip);
    let (name, attrs) = tag.split_at(name_end);
    let renamed = match name {
        "<h1" | "<h2" | "<h4" | "<h5" | "<h6" => "<h3",
        "</h1" | "</h2" | "</h4" | "</h5" | "</h6" => "</h3",
        other => other,
    };
    let has = |attr: &str| attrs.contains(&format!(" {attr}=\""));
    match name {
        "<img" if !has("alt") => format!("{renamed} alt=\"\"{attrs}"),
        "<a" if !has("href") => format!(
            "{renamed}{}",
            attrs.replace(" rel=\"noopener noreferrer\"", "")
        ),
        _ => format!("{renamed}{attrs}"),
    }
}

pub fn markdown_to_html(text: &str) -> String {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let mut html = String::with_capacity(text.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, Parser::new_ext(text, options));
    html
}

impl Sanitizer {
    /// The description as plain text (for iCal): sanitized first, so that the content of
    /// scripts and styles is gone, then stripped of tags, with block ends as line breaks.
    pub fn plain_text(&self, text: &str) -> String {
        // Newlines right after a tag are the renderer's layout, not the author's.
        let mut html = self.render(text).replace(">\n", ">");
        for (tag, breaks) in [
            ("</p>", "\n\n"),
            ("</h3>", "\n\n"),
            ("</ul>", "\n"),
            ("</ol>", "\n"),
            ("</table>", "\n"),
            ("</blockquote>", "\n\n"),
            ("</pre>", "\n\n"),
            ("</div>", "\n"),
            ("</li>", "\n"),
            ("</tr>", "\n"),
            ("<br>", "\n"),
        ] {
            html = html.replace(tag, &format!("{tag}{breaks}"));
        }
        html = html
            .replace("<li>", "<li>- ")
            .replace("</td>", "</td> ")
            .replace("</th>", "</th> ");
        let stripped = Builder::empty().clean(&html).to_string();
        // The serializer leaves text escaped; turn the entities back into characters.
        let text = stripped
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&nbsp;", "\u{a0}")
            .replace("&amp;", "&");
        let mut out = String::new();
        let mut blank = false;
        for line in text.lines().map(str::trim_end) {
            if line.trim().is_empty() {
                blank = !out.is_empty();
                continue;
            }
            if !out.is_empty() {
                out.push_str(if blank { "\n\n" } else { "\n" });
            }
            blank = false;
            out.push_str(line);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(text: &str) -> String {
        Sanitizer::new(&Url::parse("https://vatcar.net").unwrap()).render(text)
    }

    #[test]
    fn markdown_renders_with_headings_below_the_page() {
        let html = render(
            "# Big night\n\n#### Deep <h2 title=\"t\">Raw</h2>\n\n**Bold** and a [link](https://vatcar.net/).\n\n| a | b |\n|---|---|\n| 1 | 2 |",
        );
        assert!(html.contains("<h3>Big night</h3>"), "{html}");
        assert!(html.contains("<h3>Deep"), "{html}");
        for level in ['1', '2', '4', '5', '6'] {
            assert!(!html.contains(&format!("<h{level}")), "{html}");
        }
        assert!(html.contains("<strong>Bold</strong>"), "{html}");
        assert!(
            html.contains(r#"<a href="https://vatcar.net/" rel="noopener noreferrer">link</a>"#),
            "{html}"
        );
        assert!(html.contains("<table>"), "{html}");
    }

    #[test]
    fn scripts_handlers_and_dangerous_urls_are_removed() {
        let hostile = concat!(
            "<p onclick=\"alert(1)\">hi</p><script>alert(2)</script>",
            "<img src=x onerror=alert(3)><a href=\"javascript:alert(4)\">j</a>",
            "<a href=\"data:text/html,<script>alert(5)</script>\">d</a>",
            "<iframe src=\"https://evil.example\"></iframe><style>body{display:none}</style>",
            "<svg onload=alert(6)></svg><form action=\"https://evil.example\"><input></form>",
            "<a href=\"JaVaScRiPt:alert(7)\">k</a><div style=\"background:url(javascript:x)\">s</div>"
        );
        let html = render(hostile);
        for bad in [
            "<script",
            "onclick",
            "onerror",
            "onload",
            "javascript:",
            "JaVaScRiPt",
            "data:",
            "<iframe",
            "<style",
            "<svg",
            "<form",
            "style=",
        ] {
            assert!(
                !html.to_lowercase().contains(&bad.to_lowercase()),
                "{bad} survived: {html}"
            );
        }
        assert!(html.contains("hi"));
    }

    #[test]
    fn images_get_alt_and_dead_links_lose_rel() {
        let html = render(
            r#"<img src="/a.png"><img src="/b.png" alt="Banner > map"><a href="javascript:x">dead</a> <a title="t>" href="https://vatcar.net/">live</a>"#,
        );
        assert!(
            html.contains(r#"<img alt="" src="https://vatcar.net/a.png""#),
            "{html}"
        );
        assert!(
            html.contains(r#"alt="Banner &gt; map""#) && html.matches("alt=").count() == 2,
            "{html}"
        );
        assert!(html.contains("<a>dead</a>"), "{html}");
        assert!(
            html.contains(r#"href="https://vatcar.net/" rel="noopener noreferrer">live</a>"#),
            "{html}"
        );
        assert_eq!(
            finish_tags(r#"<a title="x > y" rel="noopener noreferrer">z</a>"#),
            r#"<a title="x > y">z</a>"#
        );
    }

    #[test]
    fn hostile_markdown_is_cleaned_too() {
        let html = render(
            "Click [me](javascript:alert(1)) <script>alert(1)</script> ![x](data:image/png;base64,AAA)",
        );
        assert!(
            !html.contains("javascript:") && !html.contains("<script") && !html.contains("data:"),
            "{html}"
        );
    }

    #[test]
    fn relative_links_and_images_resolve_against_the_api() {
        let html = render("![banner](/storage/a.png) [SOP](storage/sop.pdf)");
        assert!(
            html.contains(r#"src="https://vatcar.net/storage/a.png""#),
            "{html}"
        );
        assert!(
            html.contains(r#"href="https://vatcar.net/storage/sop.pdf""#),
            "{html}"
        );
        assert!(html.contains(r#"loading="lazy""#), "{html}");
    }

    #[test]
    fn plain_text_has_no_tags_and_keeps_paragraphs() {
        let sanitizer = Sanitizer::new(&Url::parse("https://vatcar.net").unwrap());
        let text = sanitizer.plain_text(
            "<p>Fly <strong>TJSJ</strong> &amp; TNCM</p><script>x()</script><p>Two</p>",
        );
        assert_eq!(text, "Fly TJSJ & TNCM\n\nTwo");
        assert_eq!(
            sanitizer.plain_text("**Bold** <b>x</b> 5 < 6"),
            "Bold x 5 < 6"
        );
        assert_eq!(
            sanitizer.plain_text("# Title\n\n- one\n- two\n\nEnd"),
            "Title\n\n- one\n- two\n\nEnd"
        );
    }
}
