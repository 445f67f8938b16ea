//! The "Restyling" section of docs/templates.md: the CSS custom properties of the built-in
//! `style.css`, with their values in each colour scheme read from the stylesheet itself, and
//! what each one colours. A property the stylesheet defines and this file does not describe
//! (or the reverse) fails the test.

use anyhow::{Result, bail};

/// What each custom property of `style.css`'s `:root` is for, in the order they are shown.
const PROPERTIES: &[(&str, &str)] = &[
    ("--ink", "text"),
    (
        "--ink-soft",
        "quieter text: leads, dates, captions, the footer",
    ),
    ("--paper", "the page's background"),
    (
        "--paper-alt",
        "tinted surfaces: table headings, the footer, past events",
    ),
    ("--line", "borders and rules"),
    (
        "--accent",
        "the facility's colour as text on the page: links, quiet buttons, the current menu entry. `accent` in `vatcar-site.toml` sets it, in a shade that reads on the page in each scheme",
    ),
    (
        "--accent-surface",
        "the facility's colour as a surface: the header's top rule, buttons, the facility code's badge, highlights. `accent` sets it, as given",
    ),
    (
        "--accent-ink",
        "text on `--accent-surface`, as on buttons: dark or white, whichever reads on it. Set by `accent` too",
    ),
    (
        "--accent-soft",
        "a pale accent: event dates, badges, notices. Set by `accent` too",
    ),
    (
        "--focus",
        "the keyboard's focus ring (3px); on an accent header the header's text colour instead",
    ),
    ("--live", "an event happening now: its border and badge"),
    ("--radius", "the rounding of cards, buttons and tables"),
    ("--shadow", "the shadow under cards (none in dark mode)"),
];

const RESTYLING_OPENING: &str = r##"
## Restyling: the CSS custom properties

The easiest way to restyle the built-in theme is to change its custom properties: the colours
of `static/style.css`, its corners and its shadow come from the variables below, set on
`:root`, with other values in dark mode. Set new values after the stylesheet, from the `head_extra` hook
of a `layout.html` of your own, and every page follows, the built-in templates untouched:

```
{% extends "base.html" %}
{% block head_extra %}
<style>
:root { --paper-alt: #fff6ef; --line: #f0d2bd; --radius: 0.25rem; }
@media (prefers-color-scheme: dark) {
  :root { --paper-alt: #211a15; --line: #4b3527; }
}
</style>
{% endblock head_extra %}
```

- A value set outside `@media (prefers-color-scheme: dark)` holds in dark mode too: give the
  dark scheme its own values, as above, or the light tints show on the dark page.
- For the facility's colour, set `accent = "#rrggbb"` in `vatcar-site.toml` rather than
  `--accent`: the program sets `--accent-surface`, `--accent-ink`, `--accent` and
  `--accent-soft` from it, and the reports' accent, by the rule below. A property set in
  `head_extra` wins over it.
- **The accent's rule.** Where the accent is a surface (the header's top rule, primary
  buttons, the accent header in light mode, the facility code's badge), it is the colour
  you give, in both schemes, and the text on it is dark or white, whichever reads on it at
  4.5:1 or more (black where neither does). Only where the accent is text on the page's own
  background (links, quiet buttons, the current menu entry's underline) is a readable shade
  of it used: moved towards black in light mode, towards white in dark mode, until it reads
  at 4.5:1 on the page's tinted paper; the colour itself wherever it already does. A yellow
  `#f5c400` makes yellow buttons with dark text, and links in a darker gold. The dark
  scheme's accent header is a deep shade of the accent, so that a saturated slab does not
  outshine the page. The keyboard's focus ring is the readable shade (the header's text
  colour on an accent header), 3:1 or more against what is behind it. A test of
  `src/view/identity.rs` checks all of this for every `#rgb` accent in both schemes.
- The same rules can live in a stylesheet of your own in the site's `static/` folder, linked
  from the hook (see "Good to know" under the hook blocks):
  `<link rel="stylesheet" href="{{ root }}css/facility.css">`.

| property | light | dark | what it colours |
|---|---|---|---|
"##;

/// Custom properties as (name, value), in the order they are set.
type Declarations = Vec<(String, String)>;

/// The custom properties of the built-in stylesheet: those `:root` sets for the screen, then
/// those its `prefers-color-scheme: dark` block changes.
fn declared(css: &str) -> Result<(Declarations, Declarations)> {
    let (mut light, mut dark) = (Vec::new(), Vec::new());
    let mut rest = css;
    while let Some(at) = rest.find(":root") {
        let context = &rest[..at];
        let Some(open) = rest[at..].find('{') else {
            bail!("static/style.css: a `:root` without a block");
        };
        let Some(close) = rest[at + open..].find('}') else {
            bail!("static/style.css: a `:root` block that does not end");
        };
        let body = &rest[at + open + 1..at + open + close];
        // The enclosing @media, if any, is the last one opened before this rule.
        let media = context.rfind("@media").map(|m| &context[m..]);
        let target = match media {
            Some(m) if m.contains("print") => None,
            Some(m) if m.contains("prefers-color-scheme: dark") => Some(&mut dark),
            _ => Some(&mut light),
        };
        if let Some(target) = target {
            for declaration in body.split(';') {
                if let Some((name, value)) = declaration.trim().split_once(':')
                    && name.trim().starts_with("--")
                {
                    target.push((name.trim().to_owned(), value.trim().to_owned()));
                }
            }
        }
        rest = &rest[at + open + close + 1..];
    }
    Ok((light, dark))
}

/// The "Restyling" section: [`PROPERTIES`] as a table with the values the stylesheet gives
/// them, after checking that both name the same properties.
pub fn custom_properties() -> Result<String> {
    let css = vatcar_site::render::STATIC_FILES
        .iter()
        .find(|(name, _)| *name == "style.css")
        .map(|(_, bytes)| String::from_utf8_lossy(bytes).into_owned())
        .expect("style.css is built in");
    let (light, dark) = declared(&css)?;
    let described: Vec<&str> = PROPERTIES.iter().map(|(name, _)| *name).collect();
    let undescribed: Vec<&str> = light
        .iter()
        .chain(&dark)
        .map(|(name, _)| name.as_str())
        .filter(|name| !described.contains(name))
        .collect();
    let missing: Vec<&str> = described
        .iter()
        .copied()
        .filter(|name| !light.iter().any(|(n, _)| n == name))
        .collect();
    if !undescribed.is_empty() || !missing.is_empty() {
        bail!(
            "the custom properties in tests/it/docs/style.rs differ from static/style.css's :root: \
             undescribed: {undescribed:?}; described but not set on :root: {missing:?}"
        );
    }
    let mut out = String::from(RESTYLING_OPENING);
    let value = |list: &[(String, String)], name: &str| {
        list.iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| format!("`{v}`"))
    };
    for (name, what) in PROPERTIES {
        let light_value = value(&light, name).unwrap_or_default();
        let dark_value = value(&dark, name).unwrap_or_else(|| "the same".to_owned());
        out.push_str(&format!(
            "| `{name}` | {light_value} | {dark_value} | {what} |\n"
        ));
    }
    Ok(out)
}
