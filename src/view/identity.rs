//! How the site shows whose it is: the accent colour as given where it is a surface, a
//! readable shade of it where it is text on the page, the text on it, the focus ring, and the
//! header's colours, which keep a logo in that colour legible.
//!
//! The rule (docs/templates.md, "The accent"): where the accent is a surface (the header's
//! top rule, primary buttons, the accent header in light mode, the facility code's badge) it
//! is the colour the config gives, in both schemes, and the text on it is dark or white,
//! whichever reads at 4.5:1 or more (black where neither does). Only where the accent would be
//! text on the page's own background (links, the current menu entry's underline, the quiet
//! buttons) is it moved, towards black in light mode and towards white in dark mode, until it
//! reads at 4.5:1 on the page's tinted paper. The focus ring is that readable shade, which is
//! at least 3:1 against every background a ring sits on, and the header's text on the accent
//! header.

use super::LogoFile;
use crate::settings::{HeaderStyle, LogoBackdrop};
use serde::Serialize;

/// The theme's colours for one accent, as CSS hex colours.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AccentView {
    /// The config's colour, as `#rrggbb`: the accent where it is a surface, in both schemes.
    pub chosen: String,
    /// Text on `chosen`: the light theme's dark ink or white, whichever contrasts more (black
    /// where neither reaches 4.5:1).
    pub ink: String,
    /// Light mode: the accent as text on the page (links) and the focus ring.
    pub light: String,
    /// Light mode: a pale tint of the accent, behind text (event dates, badges, notices).
    pub light_soft: String,
    /// Dark mode: the accent as text on the page (links) and the focus ring.
    pub dark: String,
    /// Dark mode: a deep tint of the accent, behind text.
    pub dark_soft: String,
}

type Rgb = [f64; 3];

/// The backgrounds the accent must read on: the light theme's paper tint, the dark theme's.
const LIGHT_PAPER: Rgb = [243.0, 246.0, 248.0];
const DARK_PAPER: Rgb = [24.0, 34.0, 43.0];
const WHITE: Rgb = [255.0, 255.0, 255.0];
const BLACK: Rgb = [0.0, 0.0, 0.0];
const DARK_BACKGROUND: Rgb = [16.0, 23.0, 30.0];
/// The dark theme's text colour.
const LIGHT_INK: Rgb = [231.0, 237.0, 242.0];
/// The light theme's text colour.
const DARK_INK: Rgb = [23.0, 33.0, 43.0];
/// The theme's own accent (style.css), in each colour scheme, when the config sets none.
const DEFAULT_LIGHT: Rgb = [11.0, 93.0, 122.0];
const DEFAULT_DARK: Rgb = [92.0, 192.0, 224.0];

/// WCAG's minimum contrast for body text.
const READABLE: f64 = 4.5;
/// WCAG's minimum contrast for graphics, a logo among them, and for a focus indicator.
const VISIBLE: f64 = 3.0;
/// WCAG's enhanced contrast for body text: the dark accent header's, which is a deep shade.
const RESTFUL: f64 = 7.0;

pub use crate::settings::parse_colour;

/// The accent's colours: as chosen for surfaces, with the text that reads on it; for text on
/// the page, the chosen colour where it reads well, else moved towards black (light mode) or
/// white (dark mode) in small steps until it reaches WCAG's 4.5:1 on the page's tinted paper.
/// A webmaster picks a brand colour; the theme shows it, and keeps its text legible.
pub fn accent(chosen: &str) -> Result<AccentView, String> {
    let colour = parse_colour(chosen)?;
    let light = towards(colour, BLACK, |c| contrast(c, LIGHT_PAPER) >= READABLE);
    let dark = towards(colour, WHITE, |c| contrast(c, DARK_PAPER) >= READABLE);
    Ok(AccentView {
        chosen: hex(colour),
        ink: hex(ink_on(colour)),
        light: hex(light),
        light_soft: hex(mix(colour, WHITE, 0.88)),
        dark: hex(dark),
        dark_soft: hex(mix(dark, DARK_BACKGROUND, 0.78)),
    })
}

/// The text on a surface of `colour`: the light theme's dark ink or white, whichever
/// contrasts more; black where neither reaches 4.5:1 (mid tones, #777 among them, where
/// white reaches 4.48:1), since black always does where white does not.
fn ink_on(colour: Rgb) -> Rgb {
    let best = if contrast(DARK_INK, colour) >= contrast(WHITE, colour) {
        DARK_INK
    } else {
        WHITE
    };
    if contrast(best, colour) >= READABLE {
        best
    } else {
        BLACK
    }
}

/// The header's colours in both schemes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HeaderView {
    /// `plain` or `accent`, as the config's `header` says.
    pub style: HeaderStyle,
    pub light: HeaderColours,
    pub dark: HeaderColours,
    /// Whether the logo sits on a plate in either scheme.
    pub plated: bool,
}

/// One scheme's header, as CSS colours.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HeaderColours {
    pub background: String,
    /// The text and menu on it.
    pub ink: String,
    /// Behind the logo: `transparent` where the logo reads on the header as it is.
    pub plate: String,
}

/// The header's colours for a header `style` and the site's accent (the theme's own when
/// `None`). The logo is taken to be in the accent, as a facility's logo usually is: it sits on
/// a plate whose contrast with the accent is at least 3:1 in both schemes, always on an
/// accent header, and on a plain one where the page's paper would not reach that. An accent
/// header is the accent as chosen in light mode, with the text that reads on it (see
/// [`accent`]), and a deep shade of it in dark mode, where a saturated slab would outshine
/// the page.
pub fn header(style: HeaderStyle, accent: Option<&AccentView>, wanted: Plate) -> HeaderView {
    let chosen = accent.and_then(|view| parse_colour(&view.chosen).ok());
    let dark = (accent.and_then(|view| parse_colour(&view.dark).ok())).unwrap_or(DEFAULT_DARK);
    // Without an accent the logo's colour is unknown: the theme's accent stands in for it on
    // an accent header; a plain header leaves the logo as it is.
    let surface = chosen.unwrap_or(DEFAULT_LIGHT);
    let logo = surface;
    let colours = |background: Rgb, ink: Rgb, plated: bool| HeaderColours {
        background: hex(background),
        ink: hex(ink),
        plate: if plated {
            hex(plate(logo))
        } else {
            "transparent".into()
        },
    };
    // The same in both schemes (issue 50): a logo set on a plate in one and bare in the other
    // looked like two logos.
    let plated = match (wanted, style) {
        (Plate::Never, _) => false,
        (Plate::Always, _) | (Plate::WhereNeeded, HeaderStyle::Accent) => true,
        (Plate::WhereNeeded, HeaderStyle::Plain) => {
            let needs = |paper: Rgb| chosen.is_some_and(|c| contrast(c, paper) < VISIBLE);
            needs(WHITE) || needs(DARK_BACKGROUND)
        }
    };
    let (light, dark) = match style {
        HeaderStyle::Plain => (
            colours(WHITE, DARK_INK, plated),
            colours(DARK_BACKGROUND, LIGHT_INK, plated),
        ),
        HeaderStyle::Accent => {
            let deep = towards(mix(dark, DARK_BACKGROUND, 0.6), DARK_BACKGROUND, |c| {
                contrast(c, LIGHT_INK) >= RESTFUL
            });
            (
                colours(surface, ink_on(surface), plated),
                colours(deep, LIGHT_INK, plated),
            )
        }
    };
    HeaderView {
        style,
        plated: light.plate != "transparent" || dark.plate != "transparent",
        light,
        dark,
    }
}

/// Whether the logo sits on a plate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plate {
    Never,
    Always,
    /// Where the accent (the logo's colour, as far as it is known) would not read on the header
    /// in either scheme, and always on an accent header.
    WhereNeeded,
}

/// The plate `logo_backdrop` asks for, given what the logo's file says: `auto` sets no plate
/// behind a logo that brings its own ground.
pub fn plate_for(backdrop: LogoBackdrop, logo: Option<LogoFile>) -> Plate {
    match backdrop {
        LogoBackdrop::None => Plate::Never,
        LogoBackdrop::Plate => Plate::Always,
        LogoBackdrop::Auto if logo.is_some_and(|logo| logo.opaque) => Plate::Never,
        LogoBackdrop::Auto => Plate::WhereNeeded,
    }
}

/// A plate for a logo in `logo`: white or the dark theme's paper, whichever contrasts more
/// (one of them always reaches 4.2:1).
fn plate(logo: Rgb) -> Rgb {
    if contrast(logo, WHITE) >= contrast(logo, DARK_BACKGROUND) {
        WHITE
    } else {
        DARK_BACKGROUND
    }
}

fn towards(colour: Rgb, target: Rgb, good: impl Fn(Rgb) -> bool) -> Rgb {
    (0..=20)
        .map(|step| mix(colour, target, f64::from(step) * 0.05))
        .find(|c| good(*c))
        .unwrap_or(target)
}

fn mix(a: Rgb, b: Rgb, amount: f64) -> Rgb {
    [0, 1, 2].map(|i| (a[i] + (b[i] - a[i]) * amount).round())
}

fn hex(c: Rgb) -> String {
    format!("#{:02x}{:02x}{:02x}", c[0] as u8, c[1] as u8, c[2] as u8)
}

/// WCAG 2's relative luminance.
fn luminance(c: Rgb) -> f64 {
    let linear = |v: f64| {
        let v = v / 255.0;
        if v <= 0.04045 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * linear(c[0]) + 0.7152 * linear(c[1]) + 0.0722 * linear(c[2])
}

fn contrast(a: Rgb, b: Rgb) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The header where the logo is one drawn on nothing in the accent (`logo_backdrop` auto).
    fn header(style: HeaderStyle, accent: Option<&AccentView>) -> HeaderView {
        super::header(style, accent, Plate::WhereNeeded)
    }

    #[test]
    fn a_readable_accent_is_kept_and_an_unreadable_one_adjusted() {
        let kept = accent("#0B5D7A").unwrap();
        assert_eq!(kept.light, "#0b5d7a");
        assert_eq!(kept.chosen, "#0b5d7a");
        // Gold reads on neither white nor under white text: darkened for light mode.
        let gold = accent("#ffd166").unwrap();
        assert_ne!(gold.light, "#ffd166");
        assert_eq!(gold.dark, "#ffd166");
        for view in [kept, gold, accent("#000").unwrap(), accent("#fff").unwrap()] {
            let light = parse_colour(&view.light).unwrap();
            let dark = parse_colour(&view.dark).unwrap();
            assert!(contrast(light, LIGHT_PAPER) >= READABLE, "{view:?}");
            assert!(contrast(light, WHITE) >= READABLE, "{view:?}");
            assert!(contrast(dark, DARK_PAPER) >= READABLE, "{view:?}");
        }
    }

    /// Orange, navy, yellow, white and black, the default, and every `#rgb` colour: the logo,
    /// in the accent, reads on its backdrop (the plate, or the header where there is none)
    /// at 3:1 in both schemes, whichever the header; the header's text reads on it.
    #[test]
    fn a_logo_in_the_accent_reads_on_its_backdrop_in_both_schemes() {
        let named = [
            "#ff6600", "#001f5b", "#ffd700", "#ffffff", "#000000", "#0b5d7a",
        ];
        let every = (0..4096).map(|n| format!("#{n:03x}"));
        let mut checked = 0;
        for chosen in named.iter().map(|c| c.to_string()).chain(every) {
            let view = accent(&chosen).unwrap();
            let logo = parse_colour(&chosen).unwrap();
            for style in [HeaderStyle::Plain, HeaderStyle::Accent] {
                let header = header(style, Some(&view));
                for colours in [&header.light, &header.dark] {
                    let background = parse_colour(&colours.background).unwrap();
                    let backdrop = parse_colour(&colours.plate).unwrap_or(background);
                    assert!(
                        contrast(logo, backdrop) >= VISIBLE,
                        "{chosen} {style:?}: {colours:?}"
                    );
                    let ink = parse_colour(&colours.ink).unwrap();
                    assert!(
                        contrast(ink, background) >= READABLE,
                        "{chosen} {style:?}: {colours:?}"
                    );
                    checked += 1;
                }
                // An accent header always sets the logo on a plate; a plain one only where
                // the page's paper is too near the accent.
                assert_eq!(
                    header.plated,
                    style == HeaderStyle::Accent
                        || contrast(logo, WHITE) < VISIBLE
                        || contrast(logo, DARK_BACKGROUND) < VISIBLE,
                    "{chosen} {style:?}"
                );
            }
        }
        assert_eq!(checked, (named.len() + 4096) * 4);
        // On a plain header a burnt orange reads on white and on the dark paper as it is; a
        // bright one (2.9:1 on white) gets a dark plate, the same in both schemes (issue 50:
        // a plate in light mode only looked like another logo).
        let burnt = header(HeaderStyle::Plain, Some(&accent("#e8590c").unwrap()));
        assert_eq!(
            (burnt.light.plate.as_str(), burnt.dark.plate.as_str()),
            ("transparent", "transparent")
        );
        let bright = header(HeaderStyle::Plain, Some(&accent("#ff6600").unwrap()));
        assert_eq!(
            (bright.light.plate.as_str(), bright.dark.plate.as_str()),
            ("#10171e", "#10171e")
        );
        // Navy vanishes on the dark theme's paper: a white plate, in both.
        let navy = header(HeaderStyle::Plain, Some(&accent("#001f5b").unwrap()));
        assert_eq!(
            (navy.light.plate.as_str(), navy.dark.plate.as_str()),
            ("#ffffff", "#ffffff")
        );
        // Yellow on an accent header: a dark plate in both schemes.
        let yellow = header(HeaderStyle::Accent, Some(&accent("#ffd700").unwrap()));
        assert_eq!(
            (yellow.light.plate.as_str(), yellow.dark.plate.as_str()),
            ("#10171e", "#10171e")
        );
    }

    /// `logo_backdrop`: `auto` sets no plate behind a logo with its own ground, `none` never
    /// one, `plate` always one; each the same in both schemes.
    #[test]
    fn the_logo_backdrop_is_the_same_in_both_schemes_as_asked() {
        let bright = accent("#ff6600").unwrap();
        let opaque = Some(LogoFile {
            size: Some((64, 64)),
            opaque: true,
        });
        let drawn = Some(LogoFile {
            size: Some((64, 64)),
            opaque: false,
        });
        let plates = |backdrop, logo, style| {
            let header = super::header(style, Some(&bright), plate_for(backdrop, logo));
            (header.light.plate, header.dark.plate)
        };
        let none = ("transparent".to_owned(), "transparent".to_owned());
        let dark = ("#10171e".to_owned(), "#10171e".to_owned());
        for style in [HeaderStyle::Plain, HeaderStyle::Accent] {
            for (backdrop, logo, expected) in [
                (LogoBackdrop::Auto, opaque, &none),
                (LogoBackdrop::None, drawn, &none),
                (LogoBackdrop::Plate, opaque, &dark),
                (LogoBackdrop::Auto, drawn, &dark),
            ] {
                let found = plates(backdrop, logo, style);
                assert_eq!(&found, expected, "{style:?} {backdrop:?}");
            }
        }
    }

    #[test]
    fn the_dark_accent_header_is_a_deep_shade_not_the_saturated_accent() {
        for chosen in ["#ff6600", "#ffd700", "#e4002b", "#00a651", "#0b5d7a"] {
            let view = accent(chosen).unwrap();
            let header = header(HeaderStyle::Accent, Some(&view));
            // Light mode's is the accent itself, its text dark or white to suit.
            assert_eq!(header.light.background, view.chosen, "{chosen}");
            assert_eq!(header.light.ink, view.ink, "{chosen}");
            let deep = parse_colour(&header.dark.background).unwrap();
            // Dark enough for the dark theme's text at 7:1, and no brighter than a tenth of
            // white (the saturated accents above are a third to four fifths).
            assert!(contrast(deep, LIGHT_INK) >= RESTFUL, "{chosen}: {deep:?}");
            assert!(luminance(deep) < 0.1, "{chosen}: {deep:?}");
        }
        // Without an accent, the theme's own: no plate on a plain header, whose colours are
        // the stylesheet's.
        let plain = header(HeaderStyle::Plain, None);
        assert!(!plain.plated);
        assert_eq!(plain.light.background, "#ffffff");
        assert_eq!(plain.dark.background, "#10171e");
        let accented = header(HeaderStyle::Accent, None);
        assert_eq!(accented.light.background, "#0b5d7a");
        assert_eq!(accented.light.plate, "#ffffff");
    }

    /// Orange, navy, yellow, white, black, a mid grey and every `#rgb` colour.
    fn every_accent() -> impl Iterator<Item = String> {
        let named = [
            "#ff6600", "#001f5b", "#f5c400", "#ffffff", "#000000", "#777777",
        ];
        named
            .into_iter()
            .map(str::to_owned)
            .chain((0..4096).map(|n| format!("#{n:03x}")))
    }

    /// Where the accent is a surface it is the colour as given, in both schemes (the page
    /// sets it for both), and the text on it reads at 4.5:1: on the top rule, the primary
    /// buttons, the facility code's badge and the light accent header.
    #[test]
    fn the_accent_is_a_surface_as_given_with_text_that_reads_on_it() {
        let mut checked = 0;
        for chosen in every_accent() {
            let view = accent(&chosen).unwrap();
            let surface = parse_colour(&chosen).unwrap();
            assert_eq!(parse_colour(&view.chosen).unwrap(), surface, "{chosen}");
            let ink = parse_colour(&view.ink).unwrap();
            assert!(
                contrast(ink, surface) >= READABLE,
                "{chosen}: {} on it is {:.2}:1",
                view.ink,
                contrast(ink, surface)
            );
            let header = header(HeaderStyle::Accent, Some(&view));
            assert_eq!(header.light.background, view.chosen, "{chosen}");
            assert_eq!(header.light.ink, view.ink, "{chosen}");
            checked += 1;
        }
        assert_eq!(checked, 6 + 4096);
        // Yellow keeps its colour, with dark text; a deep blue takes white; a mid grey, where
        // white reaches only 4.48:1 and the dark ink less, takes black.
        let yellow = accent("#f5c400").unwrap();
        assert_eq!(
            (yellow.chosen.as_str(), yellow.ink.as_str()),
            ("#f5c400", "#17212b")
        );
        assert_eq!(accent("#0b5d7a").unwrap().ink, "#ffffff");
        assert_eq!(accent("#777").unwrap().ink, "#000000");
    }

    /// Where the accent is text on the page (links), in either scheme, it reads at 4.5:1 on
    /// the page's paper and on its tint; it is the colour as given wherever that already
    /// does, and only a readable shade of it where it does not.
    #[test]
    fn the_accent_as_text_on_the_page_reads_in_both_schemes() {
        for chosen in every_accent() {
            let view = accent(&chosen).unwrap();
            let colour = parse_colour(&chosen).unwrap();
            let light = parse_colour(&view.light).unwrap();
            let dark = parse_colour(&view.dark).unwrap();
            for paper in [WHITE, LIGHT_PAPER] {
                assert!(contrast(light, paper) >= READABLE, "{chosen}: {view:?}");
            }
            for paper in [DARK_BACKGROUND, DARK_PAPER] {
                assert!(contrast(dark, paper) >= READABLE, "{chosen}: {view:?}");
            }
            assert_eq!(
                light == colour,
                contrast(colour, LIGHT_PAPER) >= READABLE,
                "{chosen}"
            );
            assert_eq!(
                dark == colour,
                contrast(colour, DARK_PAPER) >= READABLE,
                "{chosen}"
            );
        }
    }

    /// The focus ring (3px, style.css) is the accent's readable shade on the page and the
    /// header's text on an accent header: at least 3:1 (WCAG 2.2's focus appearance) against
    /// every background it sits on, in both schemes, whatever the accent: the page, its
    /// tinted paper, the accent's pale tint, and the header of either style.
    #[test]
    fn the_focus_ring_is_seen_against_whatever_is_behind_it() {
        for chosen in every_accent() {
            let view = accent(&chosen).unwrap();
            let ring = [
                (parse_colour(&view.light).unwrap(), WHITE),
                (parse_colour(&view.dark).unwrap(), DARK_BACKGROUND),
            ];
            let behind = [
                vec![WHITE, LIGHT_PAPER, parse_colour(&view.light_soft).unwrap()],
                vec![DARK_BACKGROUND, DARK_PAPER],
            ];
            for ((ring, _), backgrounds) in ring.iter().zip(&behind) {
                for background in backgrounds {
                    assert!(
                        contrast(*ring, *background) >= VISIBLE,
                        "{chosen}: ring {ring:?} on {background:?}"
                    );
                }
            }
            for style in [HeaderStyle::Plain, HeaderStyle::Accent] {
                let header = header(style, Some(&view));
                for (colours, (page_ring, _)) in [&header.light, &header.dark].into_iter().zip(ring)
                {
                    let background = parse_colour(&colours.background).unwrap();
                    let ring = match style {
                        HeaderStyle::Plain => page_ring,
                        HeaderStyle::Accent => parse_colour(&colours.ink).unwrap(),
                    };
                    assert!(
                        contrast(ring, background) >= VISIBLE,
                        "{chosen} {style:?}: ring {ring:?} on {colours:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn only_hex_colours_are_accepted() {
        assert_eq!(parse_colour("#abc").unwrap(), [170.0, 187.0, 204.0]);
        for bad in ["blue", "#abcd", "0b5d7a", "#0b5d7g", "#", "#ééé"] {
            assert!(parse_colour(bad).is_err(), "{bad}");
        }
    }
}
