//! The Discord messages for a list of changes: one embed per change, at most ten embeds to a
//! message, in the order given, within Discord's limits.
//!
//! Titles are the API's text, and Discord reads markdown and mentions in embeds: the
//! characters that would format a title are escaped, `@everyone` and `@here` are broken with a
//! zero-width space, and each message says that no mention may notify anyone
//! (`allowed_mentions`), so even a title that slipped through could not ping a soul.

use super::changes::{Change, Summary};
use serde::Serialize;

/// Discord's limits (developer documentation, "Embed Limits").
pub const MAX_EMBEDS: usize = 10;
pub const TITLE_LIMIT: usize = 256;
const MESSAGE_LIMIT: usize = 6000;
/// Addresses longer than this are left out of an embed: Discord refuses them.
const URL_LIMIT: usize = 2048;

// A message holds only titles (no description, footer or field), so a full one stays within
// the message's total by construction.
const _: () = assert!(MAX_EMBEDS * TITLE_LIMIT <= MESSAGE_LIMIT);
/// The most lines of a monthly summary posted, each as long as a title at most: the summary's
/// one embed stays within the message's total too.
const SUMMARY_LINES: usize = 10;
const _: () = assert!(TITLE_LIMIT * (1 + SUMMARY_LINES) + SUMMARY_LINES <= MESSAGE_LIMIT);

/// What the built-in theme's accent is (`--accent` in static/style.css), for a site whose
/// config chooses none.
pub const DEFAULT_ACCENT: &str = "#0b5d7a";

/// One webhook message, as posted.
#[derive(Debug, Serialize)]
pub struct Message {
    pub embeds: Vec<Embed>,
    pub allowed_mentions: AllowedMentions,
}

/// Which mentions may notify anyone: none.
#[derive(Debug, Serialize)]
pub struct AllowedMentions {
    parse: [&'static str; 0],
}

#[derive(Debug, Serialize)]
pub struct Embed {
    pub title: String,
    /// The monthly summary's lines; a change's embed has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    pub color: u32,
    pub timestamp: String,
}

/// The messages that post `changes`, ten embeds to each.
pub fn messages(changes: &[&Change], colour: u32) -> Vec<Message> {
    changes
        .chunks(MAX_EMBEDS)
        .map(|chunk| Message {
            embeds: chunk.iter().map(|change| embed(change, colour)).collect(),
            allowed_mentions: AllowedMentions { parse: [] },
        })
        .collect()
}

fn embed(change: &Change, colour: u32) -> Embed {
    Embed {
        title: title(&change.title),
        description: None,
        url: absolute(&change.url),
        color: colour,
        timestamp: change
            .date
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
    }
}

/// The message that posts the month's activity summary: one embed, its title and each line
/// of its text escaped as a change's title is, linked to the site (with its address), dated
/// by the build that wrote it.
pub fn summary_message(
    summary: &Summary,
    site_url: Option<&str>,
    colour: u32,
    built: chrono::DateTime<chrono::Utc>,
) -> Message {
    let lines: Vec<String> = summary
        .text
        .lines()
        .take(SUMMARY_LINES)
        .map(title)
        .collect();
    Message {
        embeds: vec![Embed {
            title: title(&summary.title),
            description: Some(lines.join("\n")).filter(|d| !d.is_empty()),
            url: site_url.and_then(absolute),
            color: colour,
            timestamp: built.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        }],
        allowed_mentions: AllowedMentions { parse: [] },
    }
}

/// `#rrggbb` or `#rgb` as Discord's colour number.
pub fn colour(accent: &str) -> Result<u32, String> {
    let [r, g, b] = crate::settings::parse_colour(accent)?;
    Ok(((r as u32) << 16) | ((g as u32) << 8) | b as u32)
}

/// The change's address, when it is one a reader can follow from Discord: an absolute
/// `http(s)` address. A site built without `--site-url` has site-relative ones, left out.
fn absolute(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    let web = matches!(parsed.scheme(), "https" | "http") && parsed.host().is_some();
    (web && parsed.as_str().len() <= URL_LIMIT).then(|| parsed.to_string())
}

/// A title as Discord shows it: on one line, without characters no message should carry,
/// markdown and mentions escaped, and cut to [`TITLE_LIMIT`] (counted in UTF-16 units, as
/// Discord counts) with `…` where it was cut. The cut falls between escapes, never inside one.
pub fn title(text: &str) -> String {
    // Characters are removed before mentions are looked for: `@`, a control, `everyone` would
    // otherwise pass the look and then close up into a mention.
    let clean: Vec<char> = text
        .chars()
        .filter_map(|c| match c {
            '\n' | '\r' | '\t' | '\u{2028}' | '\u{2029}' => Some(' '),
            c if crate::sanitize::chars::is_forbidden(c) => None,
            c => Some(c),
        })
        .collect();
    let mut out = String::new();
    let mut length = 0;
    let mut cut = false;
    let mut at_start = true;
    for (index, &c) in clean.iter().enumerate() {
        let piece = match c {
            c if MARKDOWN.contains(&c) || (at_start && STARTS_A_BLOCK.contains(&c)) => {
                format!("\\{c}")
            }
            '@' if starts_a_mention(&clean[index + 1..]) => "@\u{200B}".to_owned(),
            c => c.to_string(),
        };
        let units = piece.encode_utf16().count();
        // Room is kept for the `…` unless this is the last piece.
        let last = index + 1 == clean.len();
        if length + units > TITLE_LIMIT - usize::from(!last) {
            cut = true;
            break;
        }
        length += units;
        out.push_str(&piece);
        at_start &= piece.trim().is_empty();
    }
    if cut {
        out.push('…');
    }
    out
}

/// Whether what follows an `@` makes a mention of everyone (`everyone`, `here`, in any case),
/// looking through the characters a reader does not see: Discord, a client or a later
/// cleaning may drop them and close the mention up, so the `@` is broken either way.
fn starts_a_mention(after: &[char]) -> bool {
    let seen = after.iter().filter(|c| !is_invisible(**c));
    ["everyone", "here"].iter().any(|word| {
        let mut seen = seen.clone();
        word.chars()
            .all(|w| seen.next().is_some_and(|c| c.to_lowercase().eq([w])))
    })
}

/// Characters that show nothing: controls, Unicode's format characters (Cf: the soft hyphen,
/// zero-width spaces and joiners, bidi embeddings, overrides and isolates, the BOM, tags) and
/// its other default-ignorable code points (variation selectors, Hangul fillers), as of
/// Unicode 16.
fn is_invisible(c: char) -> bool {
    const RANGES: &[(u32, u32)] = &[
        (0x00AD, 0x00AD),
        (0x034F, 0x034F),
        (0x0600, 0x0605),
        (0x061C, 0x061C),
        (0x06DD, 0x06DD),
        (0x070F, 0x070F),
        (0x0890, 0x0891),
        (0x08E2, 0x08E2),
        (0x115F, 0x1160),
        (0x17B4, 0x17B5),
        (0x180B, 0x180F),
        (0x200B, 0x200F),
        (0x202A, 0x202E),
        (0x2060, 0x206F),
        (0x3164, 0x3164),
        (0xFE00, 0xFE0F),
        (0xFEFF, 0xFEFF),
        (0xFFA0, 0xFFA0),
        (0xFFF0, 0xFFFB),
        (0x110BD, 0x110BD),
        (0x110CD, 0x110CD),
        (0x13430, 0x1343F),
        (0x1BCA0, 0x1BCA3),
        (0x1D173, 0x1D17A),
        (0xE0000, 0xE0FFF),
    ];
    let code = c as u32;
    c.is_control()
        || RANGES
            .iter()
            .any(|&(low, high)| (low..=high).contains(&code))
}

/// Characters that format text wherever they are: emphasis, strike-through, code, spoilers,
/// mentions, channels, custom emoji and timestamps (`<@…>`, `<#…>`, `<:…:…>`, `<t:…>`),
/// masked links (`[…](…)`: breaking the bracket is enough), and the backslash itself.
///
/// Only these are escaped mid-title: where Discord shows a title as a link, it may show the
/// backslashes of escapes too (as it does in masked links), so a hyphenated name or an event
/// "(TJZS)" is left as it is.
const MARKDOWN: &[char] = &['\\', '*', '_', '~', '`', '|', '<', '[', ']'];

/// Characters that format text only at the start of a line: headings and subtext (`#`,
/// `-#`), lists (`-`, `+`) and quotes (`>`). A title is one line.
const STARTS_A_BLOCK: &[char] = &['#', '-', '+', '>'];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_and_mentions_are_escaped() {
        assert_eq!(
            title("**Bold** _it_ [x](https://e.example) <@123> @everyone @Here a@b.c"),
            "\\*\\*Bold\\*\\* \\_it\\_ \\[x\\](https://e.example) \\<@123> @\u{200B}everyone @\u{200B}Here a@b.c"
        );
        // Block markers only where a line starts; names and event titles keep theirs.
        assert_eq!(title("  # Big -# small"), "  \\# Big -# small");
        assert_eq!(title("> quote"), "\\> quote");
        assert_eq!(title("- item"), "\\- item");
        assert_eq!(
            title("FNO: San Juan - Piarco (TJZS/TTZP) > 50 pilots"),
            "FNO: San Juan - Piarco (TJZS/TTZP) > 50 pilots"
        );
        assert_eq!(title("line\none\u{0007}\ttab"), "line one tab");
    }

    /// Characters that a reader may not see, and that this program, another engineer's
    /// cleaning or Discord's client may drop: controls (C0, C1), format characters (soft
    /// hyphen, zero-width ones, bidi embeddings and isolates, the BOM, tags) and the other
    /// default-ignorable ones (Hangul fillers, variation selectors).
    const INVISIBLE: &[char] = &[
        '\u{0000}',
        '\u{0007}',
        '\u{001B}',
        '\u{007F}',
        '\u{0085}',
        '\u{009F}',
        '\u{00AD}',
        '\u{034F}',
        '\u{061C}',
        '\u{115F}',
        '\u{180E}',
        '\u{200B}',
        '\u{200C}',
        '\u{200D}',
        '\u{200E}',
        '\u{200F}',
        '\u{202A}',
        '\u{202B}',
        '\u{202C}',
        '\u{202D}',
        '\u{202E}',
        '\u{2060}',
        '\u{2061}',
        '\u{2066}',
        '\u{2067}',
        '\u{2068}',
        '\u{2069}',
        '\u{206F}',
        '\u{3164}',
        '\u{FE0F}',
        '\u{FEFF}',
        '\u{FFA0}',
        '\u{FFF9}',
        '\u{FFFE}',
        '\u{1D173}',
        '\u{E0001}',
        '\u{E0041}',
        '\u{E0100}',
    ];

    /// `text` as a reader that drops every invisible character but the zero-width space
    /// (which Discord keeps: it is how mentions are broken) would take it.
    fn seen(text: &str) -> String {
        text.chars()
            .filter(|c| *c == '\u{200B}' || !INVISIBLE.contains(c))
            .collect::<String>()
            .to_lowercase()
    }

    #[test]
    fn a_mention_stays_broken_whatever_invisible_characters_sit_inside_it() {
        for &c in INVISIBLE {
            for &d in INVISIBLE {
                for word in ["everyone", "here", "Everyone"] {
                    let given = format!("@{c}{d}{word} and <{c}@123>");
                    let posted = seen(&title(&given));
                    assert!(
                        !posted.contains("@everyone") && !posted.contains("@here"),
                        "{given:?} became {posted:?}"
                    );
                    // Every `<` escaped: no `<@…>` mention can start.
                    assert_eq!(
                        posted.matches('<').count(),
                        posted.matches("\\<").count(),
                        "{given:?} became {posted:?}"
                    );
                }
            }
        }
        // Only a mention is broken: an address and a word after a space are left alone.
        assert_eq!(
            title("a@\u{00AD}b.c @ everyone"),
            "a@\u{00AD}b.c @ everyone"
        );
    }

    #[test]
    fn a_long_title_is_cut_to_discords_limit_between_escapes() {
        let plain = title(&"a".repeat(5000));
        assert_eq!(plain.encode_utf16().count(), TITLE_LIMIT);
        assert!(plain.ends_with("a…"));
        // 300 escapes: each two units, so the cut leaves 127 whole ones and the ellipsis.
        let escaped = title(&"*".repeat(300));
        assert_eq!(escaped, format!("{}…", "\\*".repeat(127)));
        // Astral characters count two units each, as in Discord.
        let emoji = title(&"🛫".repeat(200));
        assert_eq!(emoji.encode_utf16().count(), 255);
        assert_eq!(title(&"a".repeat(TITLE_LIMIT)), "a".repeat(TITLE_LIMIT));
    }

    #[test]
    fn only_absolute_web_addresses_are_linked() {
        assert_eq!(
            absolute("https://site.example/roster/").as_deref(),
            Some("https://site.example/roster/")
        );
        assert_eq!(absolute("roster/"), None);
        assert_eq!(absolute("javascript:alert(1)"), None);
        assert_eq!(
            absolute(&format!("https://e.example/{}", "a".repeat(3000))),
            None
        );
    }

    #[test]
    fn the_default_accent_is_the_built_in_themes() {
        let css = include_str!("../../../static/style.css");
        assert!(css.contains(&format!("--accent: {DEFAULT_ACCENT};")));
        assert_eq!(colour(DEFAULT_ACCENT), Ok(0x0b5d7a));
        assert_eq!(colour("#fff"), Ok(0xffffff));
    }
}
