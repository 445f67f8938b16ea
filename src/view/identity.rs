//! How the site shows whose it is: the accent colour, made readable in light and dark mode.

use serde::Serialize;

/// The theme's colours for one accent, as CSS hex colours.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AccentView {
    /// As written in the config.
    pub chosen: String,
    /// Light mode: links and the header's background (white text on it).
    pub light: String,
    pub light_soft: String,
    /// Dark mode: links and the header's background (dark text on it).
    pub dark: String,
    pub dark_soft: String,
}

type Rgb = [f64; 3];

/// The backgrounds the accent must read on: the light theme's paper tint, the dark theme's.
const LIGHT_PAPER: Rgb = [243.0, 246.0, 248.0];
const DARK_PAPER: Rgb = [24.0, 34.0, 43.0];
const WHITE: Rgb = [255.0, 255.0, 255.0];
const BLACK: Rgb = [0.0, 0.0, 0.0];
const DARK_BACKGROUND: Rgb = [16.0, 23.0, 30.0];

/// WCAG's minimum contrast for body text.
const READABLE: f64 = 4.5;

pub use crate::settings::parse_colour;

/// The accent as chosen where it reads well, else moved towards black (light mode) or white
/// (dark mode) in small steps until text in it, and white or dark text on it, reach WCAG's
/// 4.5:1. A webmaster picks a brand colour; the theme keeps it legible.
pub fn accent(chosen: &str) -> Result<AccentView, String> {
    let colour = parse_colour(chosen)?;
    let light = towards(colour, BLACK, |c| contrast(c, LIGHT_PAPER) >= READABLE);
    let dark = towards(colour, WHITE, |c| contrast(c, DARK_PAPER) >= READABLE);
    Ok(AccentView {
        chosen: chosen.trim().to_ascii_lowercase(),
        light: hex(light),
        light_soft: hex(mix(light, WHITE, 0.88)),
        dark: hex(dark),
        dark_soft: hex(mix(dark, DARK_BACKGROUND, 0.78)),
    })
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

    #[test]
    fn only_hex_colours_are_accepted() {
        assert_eq!(parse_colour("#abc").unwrap(), [170.0, 187.0, 204.0]);
        for bad in ["blue", "#abcd", "0b5d7a", "#0b5d7g", "#", "#ééé"] {
            assert!(parse_colour(bad).is_err(), "{bad}");
        }
    }
}
