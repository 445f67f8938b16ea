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

/// Whether `bytes` (UTF-8) may hold a forbidden character; `false` is certain, `true` means
/// look closer. Most text has none, and this decides it without decoding: every rendered page
/// passes through here, so blocks of bytes are first tested for a lead byte that could start
/// a forbidden character (a test the compiler turns into vector instructions), and only a
/// block that has one is looked at byte by byte.
pub fn may_hold_forbidden(bytes: &[u8]) -> bool {
    const BLOCK: usize = 64;
    bytes.chunks(BLOCK).enumerate().any(|(index, block)| {
        block
            .iter()
            .fold(false, |seen, &b| seen | may_start_forbidden(b))
            && (index * BLOCK..index * BLOCK + block.len()).any(|i| forbidden_at(bytes, i))
    })
}

/// A byte that may begin a forbidden character: a control, or the lead byte of the UTF-8
/// forms below. Written with `&` and `|`, without branches, so that it vectorizes.
fn may_start_forbidden(b: u8) -> bool {
    (b < 0x20) & (b != b'\t') & (b != b'\n') & (b != b'\r')
        | (b == 0x7F)
        | (b == 0xC2)
        | (b >= 0xEF)
}

/// Whether a forbidden character starts at `bytes[i]`.
fn forbidden_at(bytes: &[u8], i: usize) -> bool {
    match bytes[i] {
        0x00..=0x08 | 0x0B | 0x0C | 0x0E..=0x1F | 0x7F => true,
        // C1 controls: U+0080 to U+009F.
        0xC2 => bytes.get(i + 1).is_some_and(|n| (0x80..=0x9F).contains(n)),
        // U+FDD0 to U+FDEF, U+FFFE, U+FFFF.
        0xEF => match (bytes.get(i + 1), bytes.get(i + 2)) {
            (Some(0xB7), Some(n)) => (0x90..=0xAF).contains(n),
            (Some(0xBF), Some(n)) => matches!(n, 0xBE | 0xBF),
            _ => false,
        },
        // U+nFFFE and U+nFFFF of the other planes.
        0xF0..=0xF4 => matches!(
            (bytes.get(i + 1), bytes.get(i + 2), bytes.get(i + 3)),
            (Some(a), Some(0xBF), Some(0xBE | 0xBF)) if a & 0x0F == 0x0F
        ),
        _ => false,
    }
}

/// `text` without forbidden characters; unchanged (and not copied) when it has none.
pub fn strip_forbidden(text: String) -> String {
    if !may_hold_forbidden(text.as_bytes()) {
        return text;
    }
    text.chars().filter(|&c| !is_forbidden(c)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quick_test_agrees_with_the_rule_on_every_code_point() {
        for code in 0..=0x10FFFF_u32 {
            let Some(c) = char::from_u32(code) else {
                continue;
            };
            let mut buffer = [0u8; 4];
            let bytes = c.encode_utf8(&mut buffer).as_bytes();
            assert_eq!(is_forbidden(c), may_hold_forbidden(bytes), "U+{code:04X}");
        }
    }

    #[test]
    fn a_forbidden_character_is_found_at_any_offset_across_blocks() {
        for forbidden in ['\u{1}', '\u{85}', '\u{fffe}', '\u{1ffff}'] {
            for offset in 0..140 {
                let text = format!(
                    "{}{forbidden}{}",
                    "é".repeat(offset / 2) + &"a".repeat(offset % 2),
                    "z".repeat(70)
                );
                assert!(
                    may_hold_forbidden(text.as_bytes()),
                    "{forbidden:?} at {offset}"
                );
            }
        }
        let clean = "· café → ✈ ü\t\r\n".repeat(40);
        assert!(!may_hold_forbidden(clean.as_bytes()));
    }

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
