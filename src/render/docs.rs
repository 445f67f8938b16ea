//! `docs/templates.md`: every variable each template receives, generated from the contexts
//! the demo data actually renders, and the hook blocks of the built-in templates, checked
//! against the blocks the templates really have, so the documentation cannot drift from the
//! code (a test compares the file with this output).

use crate::fetch::endpoint::Endpoint;
use crate::fetch::snapshot::Snapshot;
use crate::model;
use crate::render::Theme;
use crate::render::reports::{index_context, report_context};
use crate::render::site;
use crate::settings::{Settings, SiteFile};
use crate::view;
use crate::view::report::{self, IndexEntry, ReportSettings};
use anyhow::Result;
use serde_json::Value;
use std::collections::BTreeMap;

/// Settings that give every variable a value.
fn example_settings() -> Result<Settings> {
    let mut settings = Settings::default();
    settings.site.site_url = Some(url::Url::parse("https://tjzs.example.org/")?);
    settings.site.display_zone = Some(chrono_tz::America::Puerto_Rico);
    settings.site.tagline = Some("Caribbean skies".into());
    settings.roster.staff_emails.atm = Some("atm@tjzs.example.org".into());
    settings.events.facility_bits = vec![(1, "San Juan CERAP".into())];
    settings.site.logo = Some(SiteFile {
        path: "logo.png".into(),
        origin: String::new(),
    });
    settings.site.accent = Some("#0b5d7a".into());
    Ok(settings)
}

/// The Markdown text of `docs/templates.md`.
pub fn template_variables() -> Result<String> {
    let theme = Theme::recording()?;
    let demo = Snapshot::demo();
    let mut data = crate::model::decode_site(&demo)?;
    // The demo's roster names its facility by a bare string; a full FIR object shows every
    // field a template may use.
    data.roster.facility = Some(model::Facility {
        id: Some(7),
        short_name: Some("TJZS".into()),
        long_name: Some("San Juan CERAP".into()),
        website_url: Some("https://tjzs.example.org".into()),
        description: Some("San Juan Combined Enroute Radar Approach Control".into()),
    });
    let base = url::Url::parse(crate::fetch::client::DEFAULT_BASE_URL)?;
    let time = demo.fetched_at.expect("the demo has a capture time");
    let run = view::Run {
        base_url: base.clone(),
        build_time: time,
        texts: view::Texts::english(),
    };
    let mut site_view = view::build(&data, &example_settings()?, &run);
    // The demo's pages, and a section to show section.html's variables.
    let mut content = crate::fetch::site_files::demo_content();
    content.push(crate::fetch::site_files::ContentFile {
        path: "guides/_index.md".into(),
        origin: "guides/_index.md".into(),
        text: "+++\ntitle = \"Guides\"\ndescription = \"For pilots and controllers\"\n[extra]\nicon = \"book\"\n+++\nStart here.\n".into(),
    });
    let pages: Vec<_> = content
        .iter()
        .map(crate::model::content::parse)
        .collect::<Result<_>>()?;
    view::add_content(
        &mut site_view,
        &pages,
        &std::collections::HashSet::from(["logo.png"]),
        &theme.static_paths(),
        &[],
        false,
    )?;
    site::render(&site_view, &theme, &|_| Ok(()))?;

    let report_settings = ReportSettings {
        include_contact: true,
        generated_at: time,
        base_url: base,
        texts: theme.texts(),
    };
    let cid = 1590318;
    let user = model::decode_user(cid, demo.body(Endpoint::User(cid))?)?;
    let notes = model::decode_notes(cid, demo.body(Endpoint::UserNotes(cid))?)?;
    let training = report::training(&user, &notes, &report_settings);
    theme.render("report-training.html", &report_context(&training))?;
    theme.render(
        "report-roster.html",
        &report_context(&report::roster(&data.roster, &report_settings)),
    )?;
    let entries = vec![
        IndexEntry {
            cid,
            name: Some(training.student.name.clone()),
            file: Some("training-1590318.html".into()),
            sessions: Some(9),
            error: None,
        },
        IndexEntry {
            cid: 1547761,
            name: None,
            file: None,
            sessions: None,
            error: Some("no permission".into()),
        },
    ];
    theme.render("report-index.html", &index_context(&entries, time))?;

    let mut by_template: BTreeMap<String, BTreeMap<String, Shape>> = BTreeMap::new();
    // Pages render on several threads; a fixed order keeps the chosen examples stable.
    let mut recorded = theme.recorded();
    recorded.sort_by_cached_key(|(template, context)| (template.clone(), context.to_string()));
    for (template, context) in recorded {
        let shapes = by_template.entry(template).or_default();
        walk(&context, String::new(), shapes);
    }
    let mut out = String::from(
        "# Templates\n\n\
         The hook blocks of the built-in templates, notes for themes made from older templates,\n\
         and every variable each built-in template receives, with an example from the demo data.\n\
         Generated by `cargo test --test it docs::` from the templates and the contexts they are really\n\
         rendered with; do not edit by hand (run `VATCAR_UPDATE_DOCS=1 cargo test --test it docs::`\n\
         after changing a view or a block). Export the templates with\n\
         `vatcar-site templates export DIR`, edit them, and build with `--templates DIR`.\n\n\
         `a[].b` is field `b` of each item of list `a`. Text is HTML-escaped when printed,\n\
         except fields ending in `_html` (already sanitized), which templates print with `| safe`.\n\
         Templates that are only extended or included by others (`base.html`, `layout.html`,\n\
         `event_list_page.html`, `macros.html`, `event_lists.html`, `report.css`) see the\n\
         variables of the page being rendered.\n",
    );
    out.push_str(&hook_blocks()?);
    out.push_str(LANGUAGES);
    out.push_str(MIGRATION_NOTES);
    for (template, shapes) in &by_template {
        out.push_str(&format!(
            "\n## {template}\n\n| variable | type | example |\n|---|---|---|\n"
        ));
        for (path, shape) in shapes {
            let kinds: Vec<&str> = shape.kinds.iter().map(String::as_str).collect();
            out.push_str(&format!(
                "| `{path}` | {} | {} |\n",
                kinds.join(" or "),
                shape
                    .example
                    .as_deref()
                    .map(|e| format!("`{e}`"))
                    .unwrap_or_default()
            ));
        }
    }
    Ok(out)
}

#[derive(Default)]
struct Shape {
    kinds: std::collections::BTreeSet<String>,
    example: Option<String>,
}

fn walk(value: &Value, path: String, shapes: &mut BTreeMap<String, Shape>) {
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "text",
        Value::Array(_) => "list",
        Value::Object(_) => "object",
    };
    if !path.is_empty() {
        let shape = shapes.entry(path.clone()).or_default();
        shape.kinds.insert(kind.to_owned());
        if shape.example.is_none() {
            shape.example = match value {
                Value::String(s) if !s.is_empty() => Some(example(s)),
                Value::Number(n) => Some(n.to_string()),
                Value::Bool(b) => Some(b.to_string()),
                _ => None,
            };
        }
    }
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                let child = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                walk(item, child, shapes);
            }
        }
        Value::Array(items) => {
            for item in items {
                walk(item, format!("{path}[]"), shapes);
            }
        }
        _ => {}
    }
}

/// A short, table-safe example.
fn example(text: &str) -> String {
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let short: String = one_line.chars().take(48).collect();
    let short = if short.len() < one_line.len() {
        format!("{short}…")
    } else {
        short
    };
    short.replace('|', "\\|").replace('`', "'")
}

/// The blocks a theme can fill, by the template that introduces them: (template, block,
/// where it sits, what it is for). [`hook_blocks`] refuses a list that differs from the
/// blocks the built-in templates have.
const HOOKS: &[(&str, &str, &str, &str)] = &[
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
        "intro",
        "in the hero, after the `<h1>`: the tagline and description paragraphs",
        "the home page's introduction",
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
];

const HOOK_BLOCKS_GUIDE: &str = r##"
### Filling a hook block

A file in your templates folder replaces the built-in file of the same name, and a template
cannot extend the file it replaces (Tera knows one template per name). So:

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
- **One other page:** export it, edit your copy, and fill blocks there. In your `roster.html`,
  `{% block head_extra %}{{ super() }}<meta name="robots" content="noindex">{% endblock head_extra %}`
  adds to the roster page only; `{{ super() }}` keeps what your `layout.html` put there. A
  page's `intro` block marks the part to edit, but replacing it takes a copy of that page.

Good to know:
- An empty hook adds nothing to the page: the blocks are placed with `{%-`. What you put in a
  block is printed as written, line breaks included.
- A page template copied before `layout.html` existed extends `base.html` and skips your
  `layout.html`; change its first line to `{% extends "layout.html" %}`.
- A `base.html` copied before the hook blocks existed has none of them: blocks your
  `layout.html` fills are then ignored, with no error. Export `base.html` again, or add the
  blocks to your copy.
- `static/` in your folder can replace the built-in `style.css`, `local-time.js` and
  `icon.svg`, and nothing else is copied: a script or stylesheet added through a hook is
  inline or at a full URL.
- Only the built-in names are read. Every other file in your folder (a `visiting.html`, a
  `logo.png`, a `static/extra.css`) is named in a warning at each build and otherwise
  ignored; a folder holding nothing that is read is named once. Hidden files and folders
  (`.git`, `.DS_Store`) are left alone.
- A template that calls `m::…` imports `{% import "macros.html" as m %}` itself, your
  `layout.html` too if a block there calls a macro. When a block includes a template (as
  `event_list_page.html` includes `event_lists.html`), Tera 1 looks the included template's
  macros up in the template that defines the block, so both import them.
"##;

const LANGUAGES: &str = r##"
## Languages

`language = "es"` in `vatcar-site.toml` builds the site and the reports in Spanish; `en`
(the default), `es`, `fr` and `nl` are built in. Every word of the built-in templates comes
from a catalogue, `i18n/<language>.toml`, and so do the words the program writes itself:
page titles, day and month names, the calendars' default names and descriptions, staff
titles, rating names (the codes, S1 to ADM, stay as they are), session types and report
headers. `<html lang>` follows the language. Data is shown as the API sends it, and error
messages quoted in a report index stay English.

**Reading a text.** A template prints one with `t()`:

```
{{ t(key="nav.roster") }}
{{ t(key="events.facility_lead", facility=site.facility.name) }}
{{ t(key="home.visitors", n=home.visitors) }}
{{ t(key="documents.notice_html") | safe }}
<html lang="{{ language() }}">
```

- `{name}` in a text is filled from the argument of that name. A missing argument is an
  error naming the key.
- With `n`, the key is a pair `one`/`other`: `n` picks the form (`one` for the counts the
  catalogue's `[language] one` lists, `[1]` by default, `[0, 1]` in French) and fills `{n}`.
- The text is plain and escaped like any value. Keys ending in `_html` hold markup written in
  the catalogue: their arguments are escaped by `t()`, and templates print them with
  `| safe`.
- A key no catalogue has stops the build, naming the file, the line and the key: when the
  theme loads for a literal key, when the page renders for a key built with `~`.
- `t()` reads the catalogue the theme holds; no page's context carries it. Print a text
  directly: `{% set x = t(...) %}` then `{{ x }}` works too, but escapes once more.

**Catalogues.** TOML; tables group keys (`[nav] home = "Home"` is `nav.home`); a value is a
text, or `{ one = "...", other = "..." }` for counts. `[language]` holds `name` (the
language's own name) and `one`. `vatcar-site templates export DIR` writes the built-in ones
to `DIR/i18n/`, English with a comment on the format.

**A theme's catalogues.** `i18n/<language>.toml` in your templates folder:

- for a new language (`i18n/pt.toml`, `language = "pt"`), no code change: a key it lacks
  is shown in English, and each build warns how many are missing and names the first few;
- for a built-in language, it replaces the keys it has, one by one; the others stay built
  in. `i18n/en.toml` changes English, and with it what any language lacks falls back to;
- a key of your own, for your own templates, is read like the built-in ones.

The order, first found wins: your `i18n/<language>.toml`, the built-in one, your
`i18n/en.toml`, the built-in English. A `language` that is neither built in nor in your
folder is an error naming the config file's line and listing those available.
"##;

const MIGRATION_NOTES: &str = r##"
## Migration notes

For a theme made from templates exported by an earlier vatcar-site (before `layout.html`).

- **Words come from catalogues.** A copy made before `t()` keeps its English words and its
  `<html lang="en">` whatever `language` says; export again, or replace words with
  `{{ t(key=...) }}` (the keys are in `i18n/en.toml`). `report.notes[].ots_label` is the OTS
  result in the report's language (`ots_result` stays `pass`, `fail` or `not applicable`);
  `static/local-time.js` takes its "Your time" from the script element's `data-your-time`.

- **Counts are named, not numbered.** Three lists of pairs became lists of objects; a copy that
  still reads `.0` and `.1` stops the build with an error naming the variable:
  - `roster.html`: `roster.rating_counts[]` is `{code, controllers}` (was `pair.0`, `pair.1`);
  - `report-training.html`: `report.summary.per_type[]` and `report.summary.positions[]` are
    `{name, sessions}` (were `t.0`, `t.1` and `p.0`, `p.1`), and
    `report.student.contact.integrations[]` is `{kind, value}` (was `i.0`, `i.1`).

  Every other variable is unchanged.

- **`macros.html`: `when(when, zone)` is now `when(when)`.** `zone` was never used (the local
  time is `when.local`). The built-in templates call `m::when(when=…)`, so a `macros.html` of
  your own that still declares `zone` stops the build with "Macro `when` is missing the
  argument `zone`": remove the argument, or give it a default (`when(when, zone="")`). Your
  templates that still pass `zone=""` keep working: Tera ignores an argument a macro does not
  declare.
- **Content pages (new).** `page.html` and `section.html` render the webmaster's pages from
  `content/`; `home.intro` is `content/_index.md`; `site.menu[]` holds the header's further
  entries (`{name, url, external}`: `url` is relative to `root` unless `external`), and a
  `base.html` of your own shows them only if it loops over `site.menu` as the built-in one does.
  `page.description`, `page.image` and `page.image_wide` feed the new `social` block;
  `site.logo`, `site.favicon` and `site.accent` are new. An older `base.html` keeps working,
  without the menu, logo, accent and link previews.
- **Pages extend `layout.html`** (new) instead of `base.html`. Copies that extend `base.html`
  still work, without what your `layout.html` adds.
- **`base.html`** has the hook blocks `head_extra`, `header`, `nav`, `nav_extra`, `footer`,
  `footer_extra` and `scripts_extra`; an older copy works, without them.
- **`events.html` and `division.html`** are short files over `event_list_page.html` (new),
  which holds the heading, the lead paragraph, the calendar links and the event lists. Old
  full copies keep working.
- **`event_lists.html`** imports `macros.html` itself. An old copy, which relied on the
  including page's import, keeps working: `event_list_page.html` imports it too.
- **Layout only:** the built-in templates are written one element per line, with `{%-` and
  `-%}` where a line break would otherwise reach the page's text. The pages read the same;
  only the line breaks between block elements moved, so a diff against your copy shows them.
"##;

/// The "Hook blocks" section: [`HOOKS`] as a table, after checking it against the blocks the
/// built-in templates introduce (a block a template's parents do not have).
fn hook_blocks() -> Result<String> {
    use std::collections::BTreeSet;
    let mut parsed = BTreeMap::new();
    for (name, text) in crate::render::theme::TEMPLATES {
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
            "the hook blocks in docs.rs differ from the templates: undocumented: [{}]; \
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
