//! The "Hook blocks" section of docs/templates.md: the blocks a theme can fill, checked
//! against the blocks the built-in templates really introduce.

use anyhow::Result;
use std::collections::{BTreeMap, BTreeSet};

/// The blocks a theme can fill, by the template that introduces them: (template, block,
/// where it sits, what it is for). [`hook_blocks`] refuses a list that differs from the
/// blocks the built-in templates have.
const HOOKS: &[(&str, &str, &str, &str)] = &[
    (
        "base.html",
        "content_security_policy",
        "in `<head>`, first after the viewport: the Content-Security-Policy of the home and live pages (with `live` on)",
        "a policy of your own, where a theme loads more on those pages ([Live](live.md#what-a-visitors-browser-contacts))",
    ),
    (
        "base.html",
        "social",
        "in `<head>`: the OpenGraph and Twitter card `<meta>` tags",
        "link previews of your own, or none",
    ),
    (
        "base.html",
        "head_extra",
        "end of `<head>`",
        "more `<meta>`, `<link>` or `<style>` on every page (empty)",
    ),
    (
        "base.html",
        "header",
        "the whole `<header class=\"site-header\">`: the site's name and `nav`",
        "a header of your own",
    ),
    (
        "base.html",
        "nav",
        "the `<nav class=\"site-nav\">` menu, inside `header`",
        "a menu of your own",
    ),
    (
        "base.html",
        "nav_extra",
        "inside the menu's `<ul>`, after the last item",
        "more menu items, as `<li>` elements (empty)",
    ),
    (
        "base.html",
        "content",
        "inside `<main>`",
        "the page itself: every page template fills it",
    ),
    (
        "base.html",
        "footer",
        "the whole `<footer class=\"site-footer\">`",
        "a footer of your own",
    ),
    (
        "base.html",
        "footer_extra",
        "inside the footer, after the \"Built with\" line",
        "more footer lines (empty)",
    ),
    (
        "base.html",
        "scripts_extra",
        "before `</body>`, after the `local-time.js` script",
        "more scripts (empty)",
    ),
    (
        "index.html",
        "hero",
        "first in `content`: the `<h1>` (the tagline), `intro`, the facts and the buttons",
        "the top of the home page",
    ),
    (
        "index.html",
        "intro",
        "in the hero, after the `<h1>`: `home.lead`, `content/_index.md`'s `description` (else the API's description of the facility, unless that file has a text)",
        "the words under the home page's heading",
    ),
    (
        "index.html",
        "introduction",
        "after `hero`: `content/_index.md`'s text",
        "the webmaster's own introduction",
    ),
    (
        "index.html",
        "live",
        "after `introduction`: who is on now and the next 24 hours' bookings (`live-home.html`)",
        "the live block, or none (it is there unless `live = false`)",
    ),
    (
        "index.html",
        "whats_new",
        "after `live`: the latest changes (`whats-new-home.html`)",
        "promotions, new members, events and documents",
    ),
    (
        "index.html",
        "month_top",
        "after `whats_new`: the month's most active controllers (`activity-home.html`)",
        "the month's top three, or none (it is there with `[activity] home_top`)",
    ),
    (
        "index.html",
        "upcoming_events",
        "after `month_top`: the \"Coming up\" events",
        "the next events, facility and division",
    ),
    (
        "index.html",
        "staff",
        "after `upcoming_events`: the staff cards",
        "who runs the facility",
    ),
    (
        "index.html",
        "links",
        "last: the \"More\" cards",
        "links to the site's sections",
    ),
    (
        "page.html",
        "breadcrumb",
        "before the `<article>`: the `<nav class=\"breadcrumb\">` of a page inside a section",
        "a breadcrumb of your own, or none",
    ),
    (
        "page.html",
        "lead",
        "after the `<h1>`: the front matter's `description`",
        "what follows a content page's title",
    ),
    (
        "page.html",
        "listing",
        "after the `<article>`; section.html, which extends page.html, fills it",
        "the list of a section's pages (empty on a page)",
    ),
    (
        "roster.html",
        "intro",
        "after the `<h1>`",
        "an introduction to the roster (empty)",
    ),
    (
        "documents.html",
        "intro",
        "after the `<h1>`: the lead and notice paragraphs",
        "the documents page's introduction",
    ),
    (
        "whats-new.html",
        "intro",
        "after the `<h1>`: the lead paragraph and the feed's link",
        "the What's new page's introduction",
    ),
    (
        "live.html",
        "intro",
        "after the `<h1>`: the lead paragraph",
        "the live page's introduction",
    ),
    (
        "live.html",
        "now",
        "after `intro`: who is on now, filled by `static/live.js` from the data feed",
        "the live list, moved or left out",
    ),
    (
        "live.html",
        "bookings",
        "after `now`: the bookings by day, and the bookings calendar's links",
        "the bookings, moved or left out",
    ),
    (
        "404.html",
        "intro",
        "after the `<h1>`: the \"no page at this address\" paragraph",
        "the explanation on the not-found page",
    ),
    (
        "event_list_page.html",
        "heading",
        "inside the `<h1>`",
        "the heading; the page's title by default",
    ),
    (
        "event_list_page.html",
        "intro",
        "after the `<h1>`: the lead paragraph, `lead` then \"All times are UTC (Zulu)…\"",
        "the whole introduction of an event list",
    ),
    (
        "event_list_page.html",
        "lead",
        "the first sentence of the lead paragraph, inside `intro`",
        "the page's own wording: events.html and division.html fill it",
    ),
    (
        "event_list_page.html",
        "subscribe",
        "after `intro`: the \"Add them to your calendar\" paragraph",
        "calendar links: the facility's on events, the division's on division",
    ),
    (
        "report-layout.html",
        "title",
        "the `<title>` of a printable report",
        "set by each report; a report of your own extends `report-layout.html` and fills it",
    ),
    (
        "report-layout.html",
        "print_header",
        "in `<style>`: the text printed at the top of each page (`report.css_header`)",
        "a print header of your own, or none (the reports' index has none)",
    ),
    (
        "report-layout.html",
        "body",
        "the whole `<body>` of a printable report",
        "filled by each report (`report-training.html`, `report-roster.html`, `report-activity.html`, `report-index.html`)",
    ),
];

const HOOK_BLOCKS_GUIDE: &str = r##"
### Filling a hook block

A file in your templates folder replaces the built-in file of the same name. Every built-in
template is also there as `builtin/<name>`, so your file can extend the one it replaces and
fill only the blocks it changes. So:

- **On every page:** write a `layout.html` of your own. Every page extends `layout.html`,
  which extends `base.html`; the built-in `layout.html` does nothing else. Yours fills the
  blocks of `base.html`, and `base.html` itself stays built in:

  ```
  {% extends "base.html" %}
  {% block head_extra %}
  <meta name="theme-color" content="#0b5d7a">
  {% endblock head_extra %}
  {% block nav_extra %}
  <li><a href="https://discord.example.org/">Discord</a></li>
  {% endblock nav_extra %}
  ```
- **The events and division pages:** they are short files over `event_list_page.html`, and
  yours can be as short. An `events.html` with another first sentence:

  ```
  {% extends "event_list_page.html" %}
  {% block lead %}Events run by our facility, most weekends.{% endblock lead %}
  ```
- **The home page:** its parts are blocks (`hero`, `introduction`, `whats_new`,
  `upcoming_events`, `staff`, `links`) that an `index.html` extending `builtin/index.html` replaces one at a
  time: see "Changing one block of the home page" below.
- **One other page:** export it, edit your copy, and fill blocks there. In your `roster.html`,
  `{% block head_extra %}{{ super() }}<meta name="robots" content="noindex">{% endblock head_extra %}`
  adds to the roster page only; `{{ super() }}` keeps what your `layout.html` put there. A
  page's `intro` block marks the part to edit, but replacing it takes a copy of that page.

Good to know:
- Event pages share one frame (everything but their content), rendered once, while
  `layout.html` and `base.html` are the built-in ones. With your own `layout.html` or
  `base.html`, every page is rendered whole: the same pages, for about 1.7 times the work,
  which only a site of thousands of events notices. `build -vv` names the templates that
  share their frame.
- Every page is made from its template, yours or the built-in one, the same way: a copy of
  `event.html`, `macros.html` or `event_lists.html` costs no more than the built-in file.
  Your `event.html` shares the frame too while it extends `layout.html` and fills only the
  `content` block.
- An empty hook adds nothing to the page: the blocks are placed with `{%-`. What you put in a
  block is printed as written, line breaks included.
- A page template copied before `layout.html` existed extends `base.html` and skips your
  `layout.html`; change its first line to `{% extends "layout.html" %}`.
- A `base.html` copied before the hook blocks existed has none of them: blocks your
  `layout.html` fills are then ignored, with no error. Export `base.html` again, or add the
  blocks to your copy.
- `static/` in your templates folder can replace the built-in `style.css`, `local-time.js`,
  `menu.js` and `icon.svg`, and nothing else there is copied. A stylesheet, script or image of your own
  goes in the site's `static/` folder (beside `vatcar-site.toml`), which is published as it
  is, and a hook links it with `{{ root }}`, the way to the site's root from any page (the
  not-found page included): `static/css/facility.css` is
  `<link rel="stylesheet" href="{{ root }}css/facility.css">`. Not in `static/static/`, which
  is the theme's: a file there is an error naming both.
- Only the built-in names are read. Every other file in your folder (a `visiting.html`, a
  `logo.png`, a `static/extra.css`) is named in a warning at each build and otherwise
  ignored; a folder holding nothing that is read is named once. Hidden files and folders
  (`.git`, `.DS_Store`) are left alone.
- The home page and the live page (with `live` on) carry a Content-Security-Policy
  ([Live](live.md#what-a-visitors-browser-contacts)): there, scripts run only from files of
  the site itself, never inline (no `<script>…</script>`, no `onclick=`, no script from a
  CDN or an analytics host), and so with fonts, frames and the rest, but for images (the
  site, or any https address), styles (the site's files, and inline `<style>`, so the
  custom properties above work) and connections (the site and the data feed). What a hook
  adds that needs more is blocked on those two pages alone, and the browser's console names
  the rule it broke. Put your scripts and fonts in the site's `static/` folder, or fill
  `content_security_policy` in your `layout.html` with a policy of your own that keeps
  `connect-src {{ site.live_connect_src }}` (the live list reads the feed through it):

  ```
  {% block content_security_policy %}
  {%- if site.live_connect_src and page.section in ["home", "live"] %}
  <meta http-equiv="Content-Security-Policy"
    content="default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline' https://fonts.googleapis.com; font-src 'self' https://fonts.gstatic.com; img-src 'self' https:; connect-src {{ site.live_connect_src }}; object-src 'none'; base-uri 'none'; form-action 'self'">
  {%- endif %}
  {% endblock content_security_policy %}
  ```

  It reads `page`, so event pages then render whole (the first point above). A policy in a
  `<meta>` cannot forbid other sites to frame yours (`frame-ancestors`): that takes a header
  from your host.
- A template that calls `m::…` imports `{% import "macros.html" as m %}` itself, your
  `layout.html` too if a block there calls a macro. When a block includes a template (as
  `event_list_page.html` includes `event_lists.html`), Tera 1 looks the included template's
  macros up in the template that defines the block, so both import them.
"##;

/// The "Hook blocks" section: [`HOOKS`] as a table, after checking it against the blocks the
/// built-in templates introduce (a block a template's parents do not have).
pub fn hook_blocks() -> Result<String> {
    let mut parsed = BTreeMap::new();
    for (name, text) in vatcar_site::render::TEMPLATES {
        parsed.insert(*name, tera::Template::new(name, None, text)?);
    }
    let mut introduced = BTreeSet::new();
    for (name, template) in &parsed {
        for block in template.blocks.keys() {
            let mut parent = template.parent.as_deref();
            let mut inherited = false;
            while let Some(p) = parent.and_then(|p| parsed.get(p)) {
                inherited |= p.blocks.contains_key(block);
                parent = p.parent.as_deref();
            }
            if !inherited {
                introduced.insert((name.to_string(), block.clone()));
            }
        }
    }
    let documented: BTreeSet<(String, String)> = HOOKS
        .iter()
        .map(|(template, block, ..)| (template.to_string(), block.to_string()))
        .collect();
    if introduced != documented {
        let list = |set: Vec<&(String, String)>| {
            set.iter()
                .map(|(t, b)| format!("{b} in {t}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        anyhow::bail!(
            "the hook blocks in tests/it/docs/hooks.rs differ from the templates: undocumented: [{}]; \
             documented but not in the templates: [{}]",
            list(introduced.difference(&documented).collect()),
            list(documented.difference(&introduced).collect())
        );
    }
    let mut out = String::from(
        "\n## Hook blocks\n\n\
         Blocks a theme fills to change one part of a page without copying the file that\n\
         defines it. \"(empty)\": the block holds nothing until a theme fills it.\n\n\
         | block | in | where it sits | what it is for |\n|---|---|---|---|\n",
    );
    for (template, block, place, purpose) in HOOKS {
        out.push_str(&format!(
            "| `{block}` | `{template}` | {place} | {purpose} |\n"
        ));
    }
    out.push_str(HOOK_BLOCKS_GUIDE);
    Ok(out)
}
