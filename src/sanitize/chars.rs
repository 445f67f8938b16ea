//! Characters no page or feed may carry: XML 1.0 forbids C0 controls other than tab, LF and
//! CR, and U+FFFE and U+FFFF (a feed with one is not well-formed and readers drop it); HTML
//! calls controls and all noncharacters parse errors (the Nu Html Checker rejects them).
//! They are removed from the API's text when it is decoded, and again from every rendered
//! HTML and XML file, which also catches text from the config file and from a theme.

/// Whether `c` may not appear in an HTML or XML file.
pub fn is_forbidden(c: char) -> bool {
    (c.is_control() && !matches!(c, '\t' | '\n' | '\r')) || is_noncharacter(c)
}

/// U+FDD0 to U+FDEF, and the last two code points of every plane.
pub fn is_noncharacter(c: char) -> bool {
    let code = c as u32;
    (0xFDD0..=0xFDEF).contains(&code) || code & 0xFFFE == 0xFFFE
}

/// `text` without forbidden characters; unchanged (and not copied) when it has none.
pub fn strip_forbidden(text: String) -> String {
    if !text.chars().any(is_forbidden) {
        return text;
    }
    text.chars().filter(|&c| !is_forbidden(c)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_what_xml_and_html_forbid_and_keeps_the_rest() {
        let text = "a\u{1}b\u{b}c\u{fffe}d\u{ffff}e\u{fdd0}f\u{1fffe}g\u{85}h\u{7f}i\t\n\r j Ünï 😀 \u{fffd}";
        assert_eq!(
            strip_forbidden(text.into()),
            "abcdefghi\t\n\r j Ünï 😀 \u{fffd}"
        );
        let clean = "nothing to remove: café ✈ \u{fdef}x".replace('\u{fdef}', "");
        assert_eq!(strip_forbidden(clean.clone()), clean);
    }
}
