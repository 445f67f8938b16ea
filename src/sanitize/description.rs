//! Untrusted event descriptions and training notes (markdown or HTML) made into safe HTML.
//!
//! Markdown is made into HTML by pulldown-cmark, and all HTML is then cleaned by ammonia: no
//! scripts, no event handlers, no styles, links and images only to http(s) (relative ones
//! resolved against the API's base URL), and every link gets `rel="noopener noreferrer"`.
//! Every heading of a description becomes an `h3`: it sits below the page's `h1` and the
//! section's `h2`, and a flat level can never skip one (which validators and screen readers
//! flag).
//! On the site, every table and code block sits in a frame that scrolls sideways
//! ([`FrameTags`]), so that a wide one never makes the page wider than the window.

use crate::sanitize::frames::{self, FrameTags};
use crate::sanitize::links::{as_folder, safe_image, safe_link};
use ammonia::{Builder, UrlRelative};
use pulldown_cmark::{Options, Parser};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use url::Url;

/// The most bytes of one description or note that are rendered; the rest is cut off, and the
/// page says so. Real descriptions are a few kilobytes, and a long briefing with its charts'
/// text a few hundred: they are shown whole. The cap only bounds what one record can cost
/// every build that reads it (sanitizing is linear in size and depth, see [`MAX_DEPTH`]; a
/// response may be 64 MiB). Calendars and link previews carry a shorter text of their own.
pub const MAX_TEXT_BYTES: usize = 4 * 1024 * 1024;

/// The deepest elements may nest before they are sanitized. html5ever's tree builder scans
/// the stack of open elements for many tags, so its time grows with the square of the depth
/// (40,000 nested `<div>` took 5.3 s; the same bytes flat 0.1 s). Tags deeper than this are
/// dropped and their text kept, which keeps the time linear in the size.
pub const MAX_DEPTH: usize = 64;

/// Where images may come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Images {
    /// Shown when they come over https.
    HttpsOnly,
    /// Never loaded: a report must make no request when it is opened or printed, so an
    /// image becomes its alt text and address, as text.
    AsText,
}

pub struct Sanitizer {
    builder: Builder<'static>,
    images: Images,
    /// The frames tables and code blocks are put in, if any.
    frames: Option<FrameTags>,
}

impl Sanitizer {
    /// For the site: images only over https.
    pub fn new(base: &Url) -> Self {
        Self::with_images(base, Images::HttpsOnly)
    }

    /// For the private reports: nothing is loaded from anywhere.
    pub fn self_contained(base: &Url) -> Self {
        Self::with_images(base, Images::AsText)
    }

    fn with_images(base: &Url, images: Images) -> Self {
        let mut builder = Builder::default();
        let image_base = base.clone();
        builder
            .url_schemes(HashSet::from(["http", "https"]))
            .url_relative(UrlRelative::RewriteWithBase(as_folder(base)))
            .link_rel(Some("noopener noreferrer"))
            .set_tag_attribute_value("img", "loading", "lazy")
            // Runs before the relative rewrite, so it resolves the address itself.
            .attribute_filter(move |element, attribute, value| {
                if element != "img" || attribute != "src" {
                    return Some(Cow::Borrowed(value));
                }
                let safe = match images {
                    Images::HttpsOnly => safe_image(value, &image_base),
                    // Shown as text, never loaded: any safe address may be shown.
                    Images::AsText => safe_link(value, &image_base),
                };
                safe.map(|link| Cow::Owned(link.href))
            });
        Self {
            builder,
            images,
            frames: None,
        }
    }

    /// Every table and code block in a frame of its own that scrolls sideways.
    pub fn with_frames(mut self, frames: FrameTags) -> Self {
        self.frames = Some(frames);
        self
    }

    /// Markdown or HTML in, safe HTML out. Text that starts with a tag is taken as HTML;
    /// anything else as markdown (whose inline HTML, if any, goes through the sanitizer).
    /// Text over [`MAX_TEXT_BYTES`] is cut there, with a notice at the end.
    pub fn render(&self, text: &str) -> String {
        if text.len() <= MAX_TEXT_BYTES {
            return self.render_whole(text);
        }
        let mut cut = MAX_TEXT_BYTES;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let mut html = self.render_whole(&text[..cut]);
        html.push_str(&format!(
            "\n<p class=\"shortened\"><em>This text was shortened: it is {} KB long, and only the first {} KB are shown.</em></p>\n",
            text.len().div_ceil(1024),
            MAX_TEXT_BYTES / 1024
        ));
        html
    }

    fn render_whole(&self, text: &str) -> String {
        if text.trim_start().starts_with('<') {
            return self.clean(text);
        }
        let mut html = String::with_capacity(text.len() * 3 / 2);
        let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
        pulldown_cmark::html::push_html(&mut html, Parser::new_ext(text, options));
        self.clean(&html)
    }

    fn clean(&self, html: &str) -> String {
        let shallow = limit_nesting(html, MAX_DEPTH);
        finish_tags(
            &self.builder.clean(&shallow).to_string(),
            self.images,
            self.frames.as_ref(),
        )
    }
}

/// The length of the tag `text` starts with, up to its `>` outside quotes.
fn tag_end(text: &str) -> usize {
    // Bytes, not characters: `"` and `>` are ASCII, and no byte of a longer character is.
    let mut quoted = false;
    text.bytes()
        .position(|b| {
            if b == b'"' {
                quoted = !quoted;
            }
            b == b'>' && !quoted
        })
        .map_or(text.len(), |i| i + 1)
}

/// A tag's name as [`html_to_text`] reads it: after its `<`s, up to whitespace or `>`.
/// Bytes are read while they are ASCII (whitespace there is tab to carriage return, and space, as
/// for `char::is_whitespace`); a longer character ends the name only if it is whitespace, and a name holding one is none the caller knows, so it reads as `""`.
fn tag_name(tag: &str) -> &str {
    let name = tag.trim_start_matches('<');
    match name
        .bytes()
        .position(|b| matches!(b, b'\t'..=b'\r' | b' ' | b'>') || !b.is_ascii())
    {
        None => name,
        Some(at) if name.as_bytes()[at].is_ascii() => &name[..at],
        Some(at) => match name[at..].chars().next() {
            Some(c) if c.is_whitespace() => &name[..at],
            _ => "",
        },
    }
}

/// An image in a report: its alt text and address as text, loading nothing. Both arguments
/// are already escaped for HTML.
fn image_as_text(alt: &str, href: Option<&str>) -> String {
    let alt = if alt.trim().is_empty() { "image" } else { alt };
    let href = href.map(|href| format!(": {href}")).unwrap_or_default();
    format!("<span class=\"image-as-text\">[{alt}{href}]</span>")
}

/// Tags nested deeper than `max` dropped, their text kept: a linear pass that keeps the
/// sanitizer's work linear too (see [`MAX_DEPTH`]). It only has to bound the depth, not to
/// parse HTML exactly: whatever it lets through is sanitized next.
fn limit_nesting(html: &str, max: usize) -> Cow<'_, str> {
    // Elements that never nest (void elements) or that the parser closes when a sibling
    // opens (`<li>`, `<p>`, table cells...) do not deepen the tree however many there are.
    const FLAT: &[&str] = &[
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr", "p", "li", "dt", "dd", "tr", "td", "th", "option", "optgroup", "rb", "rp",
        "rt", "rtc", "thead", "tbody", "tfoot", "colgroup", "caption",
    ];
    let mut open: Vec<String> = Vec::new();
    let mut dropped: HashMap<String, usize> = HashMap::new();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut at = 0;
    while let Some(offset) = html[at..].find('<') {
        let start = at + offset;
        let end = start + tag_end(&html[start..]);
        at = end;
        let tag = &html[start..end];
        let closing = tag.starts_with("</");
        let name: String = tag[if closing { 2 } else { 1 }..]
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect();
        if name.is_empty() || FLAT.contains(&name.as_str()) || tag.ends_with("/>") {
            continue;
        }
        let keep = if closing {
            if let Some(depth) = open.iter().rposition(|n| *n == name) {
                open.truncate(depth);
                true
            } else if let Some(count) = dropped.get_mut(&name).filter(|c| **c > 0) {
                *count -= 1;
                false
            } else {
                true
            }
        } else if open.len() < max {
            open.push(name);
            true
        } else {
            *dropped.entry(name).or_insert(0) += 1;
            false
        };
        if !keep {
            let out = out.get_or_insert_with(|| String::with_capacity(html.len()));
            out.push_str(&html[copied..start]);
            copied = end;
        }
    }
    match out {
        Some(mut out) => {
            out.push_str(&html[copied..]);
            Cow::Owned(out)
        }
        None => Cow::Borrowed(html),
    }
}

/// Last touches on sanitized HTML, which html5ever has serialized in a regular form (text
/// has `<` as `&lt;`, attribute values are double-quoted with `"` as `&quot;`), so tags can be
/// found by scanning:
/// - every heading becomes an `h3`;
/// - an `img` whose source was unsafe (and so removed) goes, since an image needs one; one
///   that stays gets `alt=""` (decorative) if it has no `alt`, as HTML requires; in a report,
///   every image becomes text;
/// - an `a` whose `href` was removed loses its `rel` too, which is only valid beside an `href`;
/// - with `frames`, each outermost table and `pre` goes in its frame (the serializer closes
///   every element it opens, so counting their tags finds where each ends).
fn finish_tags(html: &str, images: Images, frames: Option<&FrameTags>) -> String {
    let mut out = String::with_capacity(html.len() + 16);
    let mut rest = html;
    // Tables and `pre` open around the tag at hand.
    let mut framed = 0usize;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let tag_and_after = &rest[open..];
        let end = tag_end(tag_and_after);
        let tag = &tag_and_after[..end];
        let is = |name: &str| {
            tag.strip_prefix(name)
                .is_some_and(|after| after.starts_with([' ', '>']))
        };
        if let Some(frames) = frames
            && (is("<table") || is("<pre"))
        {
            if framed == 0 {
                out.push_str(if is("<pre") {
                    frames.code()
                } else {
                    frames.table()
                });
            }
            framed += 1;
        }
        out.push_str(&finish_tag(tag, images));
        if frames.is_some() && (is("</table") || is("</pre")) && framed > 0 {
            framed -= 1;
            if framed == 0 {
                out.push_str(frames::CLOSE);
            }
        }
        rest = &tag_and_after[end..];
    }
    out.push_str(rest);
    out
}

/// The value of attribute `name` in a serialized tag (still escaped).
fn attribute<'t>(attrs: &'t str, name: &str) -> Option<&'t str> {
    let start = attrs.find(&format!(" {name}=\""))? + name.len() + 3;
    let length = attrs[start..].find('"')?;
    Some(&attrs[start..start + length])
}

fn finish_tag(tag: &str, images: Images) -> String {
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
        "<img" if images == Images::AsText => image_as_text(
            attribute(attrs, "alt").unwrap_or(""),
            attribute(attrs, "src"),
        ),
        "<img" if !has("src") => String::new(),
        "<img" if !has("alt") => format!("{renamed} alt=\"\"{attrs}"),
        "<a" if !has("href") => format!(
            "{renamed}{}",
            attrs.replace(" rel=\"noopener noreferrer\"", "")
        ),
        _ => format!("{renamed}{attrs}"),
    }
}

/// The text of HTML that [`Sanitizer::render`] made, with block ends as line breaks and list
/// items as `- ` lines.
pub fn html_to_text(html: &str) -> String {
    // One pass: text is copied with its entities decoded, tags are dropped, and the end of
    // each block adds the line breaks it stands for. A newline right after a tag is the
    // renderer's layout, not the author's, and is dropped. Tags and entities are found by one
    // search for either byte: the text between them is short (60 bytes in the benchmark's
    // descriptions), and searching it twice cost more than copying it.
    let bytes = html.as_bytes();
    let mut text = String::with_capacity(html.len());
    let (mut copied, mut from) = (0, 0);
    while let Some(found) = memchr::memchr2(b'<', b'&', &bytes[from..]) {
        let at = from + found;
        text.push_str(&html[copied..at]);
        if bytes[at] == b'&' {
            let (decoded, length) = entity(&html[at..]);
            text.push_str(decoded);
            from = at + length;
        } else {
            let tag_and_after = &html[at..];
            let end = tag_end(tag_and_after);
            text.push_str(tag_text(tag_name(&tag_and_after[..end])));
            from = at + end;
            if bytes.get(from) == Some(&b'\n') {
                from += 1;
            }
        }
        copied = from;
    }
    text.push_str(&html[copied..]);

    let mut out = String::with_capacity(text.len());
    let mut blank = false;
    // A line of whitespace alone is empty once its end is trimmed.
    for line in text.lines().map(str::trim_end) {
        if line.is_empty() {
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

/// What a tag of sanitized HTML stands for in its text: the line breaks a block's end makes,
/// a list item's `- `, the space between table cells.
fn tag_text(name: &str) -> &'static str {
    match name {
        "/p" | "/h3" | "/blockquote" | "/pre" => "\n\n",
        "/ul" | "/ol" | "/table" | "/div" | "/li" | "/tr" | "br" => "\n",
        "li" => "- ",
        "/td" | "/th" => " ",
        _ => "",
    }
}

/// The entity `text` starts with (at its `&`), as a serializer of sanitized HTML writes it,
/// back into its character, and its length; any other `&` stands for itself.
fn entity(text: &str) -> (&'static str, usize) {
    [
        ("&amp;", "&"),
        ("&lt;", "<"),
        ("&gt;", ">"),
        ("&quot;", "\""),
        ("&#39;", "'"),
        ("&nbsp;", "\u{a0}"),
    ]
    .iter()
    .find(|(entity, _)| text.starts_with(entity))
    .map_or(("&", 1), |(entity, c)| (*c, entity.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A description as the calendars carry it: sanitized first, so that the content of
    /// scripts and styles is gone, then stripped of tags (as `SiteView::describe` does).
    fn plain_text(sanitizer: &Sanitizer, text: &str) -> String {
        html_to_text(&sanitizer.render(text))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// A tag's end and name read by bytes are where reading characters put them, for the
        /// names the text cares about, with quotes, ASCII and other whitespace, and longer
        /// characters in and around the name.
        #[test]
        fn a_tag_is_read_by_bytes_as_by_characters(
            tag in "<{1,2}/?(p|li|br|td|h3|blockquote|x)?[ \t\n\x0b\x0c\r\u{a0}\u{2003}é✈\"=a>/]{0,8}[a-z\"> ]{0,6}",
        ) {
            let end = tag
                .char_indices()
                .scan(false, |quoted, (i, c)| {
                    if c == '"' {
                        *quoted = !*quoted;
                    }
                    Some((i, c == '>' && !*quoted))
                })
                .find(|&(_, closes)| closes)
                .map_or(tag.len(), |(i, _)| i + 1);
            proptest::prop_assert_eq!(tag_end(&tag), end);
            let by_chars = tag
                .trim_start_matches('<')
                .split(|c: char| c.is_whitespace() || c == '>')
                .next()
                .unwrap_or("");
            let known = |name: &str| if name.is_ascii() { name.to_owned() } else { String::new() };
            proptest::prop_assert_eq!(known(tag_name(&tag)), known(by_chars));
        }
    }

    /// The reading [`html_to_text`] had before it searched for tags and entities at once:
    /// tags found first, entities decoded in the text between them, and a whitespace-only
    /// line found by trimming it whole.
    fn html_to_text_in_two_searches(html: &str) -> String {
        let decode = |text: &str, out: &mut String| {
            let mut rest = text;
            while let Some(at) = rest.find('&') {
                out.push_str(&rest[..at]);
                let (decoded, length) = entity(&rest[at..]);
                out.push_str(decoded);
                rest = &rest[at + length..];
            }
            out.push_str(rest);
        };
        let mut text = String::new();
        let mut rest = html;
        while let Some(open) = rest.find('<') {
            decode(&rest[..open], &mut text);
            let tag_and_after = &rest[open..];
            let end = tag_end(tag_and_after);
            text.push_str(tag_text(tag_name(&tag_and_after[..end])));
            rest = &tag_and_after[end..];
            rest = rest.strip_prefix('\n').unwrap_or(rest);
        }
        decode(rest, &mut text);
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

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// Sanitized HTML, or anything near it (tags, entities whole and broken, attributes
        /// holding both, line breaks and other whitespace), reads as the two searches read it.
        #[test]
        fn text_is_read_in_one_search_as_in_two(
            parts in proptest::collection::vec(proptest::prop_oneof![
                proptest::prelude::Just("<p>".to_owned()),
                proptest::prelude::Just("</p>\n".to_owned()),
                proptest::prelude::Just("<li>".to_owned()),
                proptest::prelude::Just("</li>".to_owned()),
                proptest::prelude::Just("<br>".to_owned()),
                proptest::prelude::Just("</td>".to_owned()),
                proptest::prelude::Just("<a href=\"x?a=1&amp;b=<2>\">".to_owned()),
                proptest::prelude::Just("&amp;".to_owned()),
                proptest::prelude::Just("&lt;&gt;&quot;&#39;&nbsp;".to_owned()),
                proptest::prelude::Just("&am".to_owned()),
                proptest::prelude::Just("&".to_owned()),
                proptest::prelude::Just("<".to_owned()),
                "[ \t\n\r\x0b\x0c\u{a0}\u{2003}\u{85}]{1,3}",
                "[a-zé✈&<>;#\"/ ]{0,12}",
            ], 0..24),
        ) {
            let html = parts.concat();
            proptest::prop_assert_eq!(html_to_text(&html), html_to_text_in_two_searches(&html));
        }
    }

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
            finish_tags(
                r#"<a title="x > y" rel="noopener noreferrer">z</a>"#,
                Images::HttpsOnly,
                None
            ),
            r#"<a title="x > y">z</a>"#
        );
    }

    #[test]
    fn markdown_links_and_images_are_held_to_the_rules_of_html() {
        let html = render(
            "# Head\n\n[js](javascript:alert(1)) [data](data:text/html,x) [ok](</a b.pdf> \"T&\\\"\") \
             ![bad](javascript:x) ![good *alt*](/i.png) <https://vatcar.net/x?a=1&b=2> `<b>code</b>` 5 < 6 & 7",
        );
        assert!(html.starts_with("<h3>Head</h3>"), "{html}");
        assert!(
            !html.contains("javascript") && !html.contains("data:"),
            "{html}"
        );
        assert!(
            html.contains("<a>js</a> <a>data</a>"),
            "unsafe links keep their text, and no address: {html}"
        );
        assert!(html.contains(r#"<a href="https://vatcar.net/a%20b.pdf" title="T&amp;&quot;" rel="noopener noreferrer">ok</a>"#), "{html}");
        assert!(
            html.contains(r#"<img src="https://vatcar.net/i.png" alt="good alt" loading="lazy">"#),
            "{html}"
        );
        assert!(
            !html.contains("bad"),
            "an unsafe image is dropped with its alt text: {html}"
        );
        assert!(
            html.contains(r#"href="https://vatcar.net/x?a=1&amp;b=2""#),
            "{html}"
        );
        assert!(
            html.contains("<code>&lt;b&gt;code&lt;/b&gt;</code>")
                && html.contains("5 &lt; 6 &amp; 7"),
            "{html}"
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
        let text = plain_text(
            &sanitizer,
            "<p>Fly <strong>TJSJ</strong> &amp; TNCM</p><script>x()</script><p>Two</p>",
        );
        assert_eq!(text, "Fly TJSJ & TNCM\n\nTwo");
        assert_eq!(
            plain_text(&sanitizer, "**Bold** <b>x</b> 5 < 6"),
            "Bold x 5 < 6"
        );
        assert_eq!(
            plain_text(&sanitizer, "# Title\n\n- one\n- two\n\nEnd"),
            "Title\n\n- one\n- two\n\nEnd"
        );
    }

    /// The deepest nesting of elements in sanitized HTML (void elements aside).
    fn depth(html: &str) -> usize {
        let (mut depth, mut deepest) = (0usize, 0usize);
        for piece in html.split('<').skip(1) {
            if piece.starts_with('/') {
                depth = depth.saturating_sub(1);
            } else if !piece.starts_with("img") && !piece.starts_with("br") {
                depth += 1;
                deepest = deepest.max(depth);
            }
        }
        deepest
    }

    #[test]
    fn deep_nesting_is_cut_to_a_bounded_depth_and_keeps_its_text() {
        let nested = format!(
            "{}deep text{}",
            "<div>".repeat(5_000),
            "</div>".repeat(5_000)
        );
        let html = render(&nested);
        assert!(depth(&html) <= MAX_DEPTH, "{}", depth(&html));
        assert!(html.contains("deep text"));
        // Unclosed formatting elements and markdown that carries HTML are cut the same way.
        let unclosed = format!("<p>{}bold", "<b><i>".repeat(10_000));
        assert!(depth(&render(&unclosed)) <= MAX_DEPTH + 1);
        let quoted = format!("{}<b>x</b>", "> ".repeat(5_000));
        assert!(depth(&render(&quoted)) <= MAX_DEPTH + 2);
        // Ordinary HTML, lists of many items included, is left as it was.
        let list = format!("<ul>{}</ul>", "<li>item".repeat(500));
        assert_eq!(render(&list).matches("<li>").count(), 500);
        let shallow = "<div><div><p><em>a</em></p></div></div>";
        assert_eq!(render(shallow), shallow);
    }

    #[test]
    fn text_over_the_cap_is_cut_with_a_visible_notice() {
        let long = "ü".repeat(MAX_TEXT_BYTES); // two bytes each: twice the cap
        let html = render(&long);
        assert!(html.len() < MAX_TEXT_BYTES + 1024, "{}", html.len());
        assert!(
            html.ends_with("<p class=\"shortened\"><em>This text was shortened: it is 8192 KB long, and only the first 4096 KB are shown.</em></p>\n"),
            "{}",
            &html[html.len() - 200..]
        );
        let sanitizer = Sanitizer::new(&Url::parse("https://vatcar.net").unwrap());
        assert!(plain_text(&sanitizer, &long).ends_with("only the first 4096 KB are shown."));
        let short = "ü".repeat(100);
        assert!(!render(&short).contains("shortened"));
    }

    #[test]
    fn images_load_over_https_only_and_an_image_without_a_safe_source_goes() {
        let html = render(concat!(
            r#"<p><img src="javascript:alert(1)" alt="image"><img src="data:image/png;base64,AA">"#,
            r#"<img src="http://plain.example/a.png" alt="plain"><img src="https://ok.example/b.png" alt="ok"></p>"#
        ));
        assert_eq!(html.matches("<img").count(), 1, "{html}");
        assert!(html.contains(r#"src="https://ok.example/b.png""#), "{html}");
        let markdown =
            render("![plain](http://plain.example/a.png) ![ok](https://ok.example/b.png)");
        assert_eq!(markdown.matches("<img").count(), 1, "{markdown}");
        assert!(markdown.contains("https://ok.example/b.png"), "{markdown}");
    }

    #[test]
    fn on_the_site_each_outermost_table_and_code_block_sits_in_its_named_frame() {
        let sanitizer = Sanitizer::new(&Url::parse("https://vatcar.net").unwrap())
            .with_frames(FrameTags::new("Scrollable table", "Scrollable code"));
        let table_frame = r#"<div class="scroll-frame" tabindex="0" role="region" aria-label="Scrollable table"><table>"#;
        let code_frame = r#"<div class="scroll-frame scroll-code" tabindex="0" role="region" aria-label="Scrollable code"><pre>"#;
        // The fast path (markdown alone), markdown that carries HTML, and HTML.
        for text in [
            "| a | b |\n|---|---|\n| 1 | 2 |\n\n```\ncode\n```\n",
            "Bring <b>charts</b>.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```\ncode\n```\n",
            "<p>x</p><table><tr><td><table><tr><td>inner</td></tr></table></td></tr></table><pre>code</pre>",
        ] {
            // Line breaks between tags are the writer's layout.
            let html = sanitizer.render(text).replace('\n', "");
            assert_eq!(html.matches(table_frame).count(), 1, "{text}: {html}");
            assert_eq!(html.matches(code_frame).count(), 1, "{text}: {html}");
            assert_eq!(
                html.matches("<div").count(),
                html.matches("</div>").count(),
                "{html}"
            );
            let table_end = html.rfind("</table>").unwrap();
            assert!(html[table_end..].starts_with("</table></div>"), "{html}");
            assert!(html.ends_with("</pre></div>"), "{html}");
        }
        // A report's sanitizer frames nothing: paper does not scroll.
        let report = Sanitizer::self_contained(&Url::parse("https://vatcar.net").unwrap());
        assert!(
            !report
                .render("| a |\n|---|\n| 1 |\n")
                .contains("scroll-frame")
        );
    }

    #[test]
    fn a_report_shows_images_as_text_and_loads_nothing() {
        let sanitizer = Sanitizer::self_contained(&Url::parse("https://vatcar.net").unwrap());
        let html = sanitizer.render(
            "![pixel](https://tracker.example/p.gif?a=1&b=2) <img src=\"/x.png\" alt=\"a \\\"q\\\"\"> <img src=\"javascript:x\">",
        );
        assert!(!html.contains("<img"), "{html}");
        assert!(
            html.contains(r#"<span class="image-as-text">[pixel: https://tracker.example/p.gif?a=1&amp;b=2]</span>"#),
            "{html}"
        );
        assert!(html.contains("[image]"), "{html}");
        let markdown = sanitizer.render("Only markdown: ![chart](https://vatcar.net/c.png)");
        assert!(
            markdown.contains(
                r#"<span class="image-as-text">[chart: https://vatcar.net/c.png]</span>"#
            ),
            "{markdown}"
        );
    }
}
