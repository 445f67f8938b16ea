//! The layout of what is in <main> (issue 23, items 4 and 5), as far as markup holds it: wide
//! tables and code in frames of their own that a keyboard reaches and a screen reader names,
//! roster cells that carry their column's label for the stacked rows of narrow screens, the
//! staff's contact column only where there is a contact, and breadcrumbs. The geometry itself
//! (no page wider than a 320 px window) is measured in Chromium by .ci/run.

use crate::support::{
    KEY, build_site, demo_snapshot_copy, page, run, site_folder, vatcar_at_demo_time,
};
use scraper::{ElementRef, Html, Selector};
use serde_json::Value;
use std::fs;
use std::path::Path;

fn select<'a>(html: &'a Html, css: &str) -> Vec<ElementRef<'a>> {
    html.select(&Selector::parse(css).unwrap()).collect()
}

fn text(element: &ElementRef) -> String {
    element
        .text()
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A site folder with a section two levels deep, a page with a wide table and a code block,
/// and `config` as its vatcar-site.toml; built with the demo data.
fn built_site(config: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let site = site_folder(
        config,
        &[
            (
                "content/pilots/_index.md",
                b"+++\ntitle = \"Pilot resources\"\nmenu = true\n+++\nFor pilots.\n",
            ),
            (
                "content/pilots/guide.md",
                b"+++\ntitle = \"Pilot guide\"\n+++\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```\nvatcar-site build --output public\n```\n",
            ),
            (
                "content/pilots/vfr/_index.md",
                b"+++\ntitle = \"VFR\"\n+++\nVisual flight.\n",
            ),
            (
                "content/pilots/vfr/islands.md",
                b"+++\ntitle = \"Island hopping\"\n+++\nShort hops.\n",
            ),
            (
                "content/loose/page.md",
                b"+++\ntitle = \"In a folder without _index.md\"\n+++\nNo section.\n",
            ),
            ("content/join.md", b"+++\ntitle = \"Join\"\n+++\nJoin us.\n"),
        ],
    );
    let (ran, out) = build_site(site.path(), &[]);
    assert_eq!(ran.code(), Some(0), "{}", ran.stderr);
    (site, out)
}

/// The breadcrumb of a page: its links' (text, href) and the text of the current crumb.
fn breadcrumb(html: &Html) -> Option<(Vec<(String, String)>, String)> {
    let nav = select(html, "nav.breadcrumb").into_iter().next()?;
    assert!(
        nav.value()
            .attr("aria-label")
            .is_some_and(|l| !l.is_empty()),
        "a breadcrumb is a named navigation: {}",
        nav.html()
    );
    let crumbs = select(html, "nav.breadcrumb li");
    let links = crumbs[..crumbs.len() - 1]
        .iter()
        .map(|li| {
            let a = li.select(&Selector::parse("a").unwrap()).next().unwrap();
            (text(&a), a.value().attr("href").unwrap().to_owned())
        })
        .collect();
    let current = select(html, "nav.breadcrumb li:last-child [aria-current=page]");
    assert_eq!(
        current.len(),
        1,
        "the last crumb is the page: {}",
        nav.html()
    );
    Some((links, text(&current[0])))
}

#[test]
fn a_page_inside_a_section_has_a_breadcrumb_through_its_sections() {
    let (_site, out) = built_site("title = \"San Juan CERAP\"\n");
    let (_, islands) = page(&out.join("pilots/vfr/islands/index.html"));
    assert_eq!(
        breadcrumb(&islands),
        Some((
            vec![
                ("Pilot resources".into(), "../../../pilots/".into()),
                ("VFR".into(), "../../../pilots/vfr/".into()),
            ],
            "Island hopping".into()
        ))
    );
    let (_, guide) = page(&out.join("pilots/guide/index.html"));
    assert_eq!(
        breadcrumb(&guide),
        Some((
            vec![("Pilot resources".into(), "../../pilots/".into())],
            "Pilot guide".into()
        ))
    );
    // A section inside a section has one too; a page at the top, or in a folder that is no
    // section, has none.
    let (_, vfr) = page(&out.join("pilots/vfr/index.html"));
    assert_eq!(
        breadcrumb(&vfr),
        Some((
            vec![("Pilot resources".into(), "../../pilots/".into())],
            "VFR".into()
        ))
    );
    for top in [
        "pilots/index.html",
        "join/index.html",
        "loose/page/index.html",
    ] {
        let (_, html) = page(&out.join(top));
        assert_eq!(breadcrumb(&html), None, "{top}");
    }
    // Event pages use the same markup: the list they are in, then the event.
    let (_, event) = page(&out.join("events/426/index.html"));
    assert_eq!(
        breadcrumb(&event),
        Some((
            vec![("Events".into(), "../../events/".into())],
            "Holiday Lights over San Juan".into()
        ))
    );
}

#[test]
fn tables_and_code_of_a_page_scroll_in_frames_a_keyboard_reaches_and_that_are_named() {
    for (language, table_name, code_name) in [
        ("en", "Scrollable table", "Scrollable code"),
        ("es", "Tabla desplazable", "Código desplazable"),
    ] {
        let (_site, out) = built_site(&format!("language = \"{language}\"\n"));
        let (_, guide) = page(&out.join("pilots/guide/index.html"));
        let frames = select(&guide, ".prose .scroll-frame");
        // Each frame as `tabindex role "name" child`.
        let named: Vec<String> = frames
            .iter()
            .map(|frame| {
                let child = frame.children().find_map(ElementRef::wrap).unwrap();
                let attr = |name: &str| frame.value().attr(name).unwrap_or("-").to_owned();
                format!(
                    "{} {} {:?} {}",
                    attr("tabindex"),
                    attr("role"),
                    attr("aria-label"),
                    child.value().name()
                )
            })
            .collect();
        assert_eq!(
            named,
            [
                format!("0 region {table_name:?} table"),
                format!("0 region {code_name:?} pre"),
            ],
            "{language}"
        );
    }
}

#[test]
fn the_rosters_tables_scroll_in_named_frames_and_each_cell_carries_its_column_label() {
    let (_site, out) = built_site("title = \"San Juan CERAP\"\n");
    let (_, roster) = page(&out.join("roster/index.html"));
    for section in ["staff", "controllers", "visitors"] {
        let frame = select(
            &roster,
            &format!("section[aria-labelledby={section}] .scroll-frame"),
        );
        assert_eq!(frame.len(), 1, "{section}");
        let frame = frame[0].value();
        assert_eq!(frame.attr("tabindex"), Some("0"), "{section}");
        assert_eq!(frame.attr("role"), Some("region"), "{section}");
        let heading = text(&select(&roster, &format!("h2#{section}"))[0]);
        let name = frame.attr("aria-label").unwrap();
        assert!(
            name.ends_with(", scrollable table") && heading.starts_with(&name[..name.len() - 19]),
            "{section}: the frame {name:?} is named after its section {heading:?}"
        );

        let headings: Vec<String> = select(
            &roster,
            &format!("section[aria-labelledby={section}] thead th"),
        )
        .iter()
        .map(text)
        .collect();
        let rows = select(
            &roster,
            &format!("section[aria-labelledby={section}] tbody tr"),
        );
        assert!(!rows.is_empty(), "{section}");
        for row in rows {
            let labels: Vec<String> = row
                .select(&Selector::parse("td").unwrap())
                .map(|td| td.value().attr("data-label").unwrap_or("").to_owned())
                .collect();
            assert_eq!(labels, headings, "{section}: {}", row.html());
        }
    }
    // An empty cell is empty (no stray whitespace), so that a stacked row leaves it out.
    let (roster_text, _) = page(&out.join("roster/index.html"));
    assert!(
        roster_text.contains(r#"<td data-label="Joined"></td>"#),
        "the demo's controller without a join date"
    );
}

#[test]
fn the_contact_column_is_there_only_when_some_staff_has_an_email() {
    let headings = |config: &str| {
        let (_site, out) = built_site(config);
        let (_, roster) = page(&out.join("roster/index.html"));
        let headings: Vec<String> = select(&roster, "section[aria-labelledby=staff] thead th")
            .iter()
            .map(text)
            .collect();
        let cells: Vec<usize> = select(&roster, "section[aria-labelledby=staff] tbody tr")
            .iter()
            .map(|tr| tr.select(&Selector::parse("td").unwrap()).count())
            .collect();
        let mail: Vec<String> = select(&roster, "section[aria-labelledby=staff] a[href^=mailto]")
            .iter()
            .map(text)
            .collect();
        (headings, cells, mail)
    };
    let (without, cells, mail) = headings("title = \"San Juan CERAP\"\n");
    assert_eq!(without, ["Position", "Role", "Name"]);
    assert!(cells.iter().all(|&n| n == 3), "{cells:?}");
    assert!(mail.is_empty());

    let (with, cells, mail) =
        headings("title = \"San Juan CERAP\"\n\n[staff_emails]\natm = \"atm@tjzs.example.org\"\n");
    assert_eq!(with, ["Position", "Role", "Name", "Contact"]);
    assert!(cells.iter().all(|&n| n == 4), "{cells:?}");
    assert_eq!(mail, ["atm@tjzs.example.org"]);
}

#[test]
fn a_descriptions_tables_and_code_scroll_in_their_frames() {
    // The demo's event 426 holds a Markdown table; an event written in HTML holds a table
    // and a code block.
    let snapshot = demo_snapshot_copy();
    let file = snapshot.path().join("facility-events.json");
    let mut events: Value = serde_json::from_slice(&fs::read(&file).unwrap()).unwrap();
    let event = events["data"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|e| e["id"] == 412)
        .unwrap();
    event["description"] = Value::from(
        "<p>Bring charts.</p><table><tr><th>Fix</th><th>Altitude</th></tr><tr><td>BEANO</td><td>FL240</td></tr></table><pre>KJFK SAALR TJSJ</pre>",
    );
    fs::write(&file, serde_json::to_vec(&events).unwrap()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let ran = run(vatcar_at_demo_time(&[
        "build",
        "--snapshot",
        snapshot.path().to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
    ])
    .env("VATCAR_API_KEY", KEY));
    assert_eq!(ran.code(), Some(0), "{}", ran.stderr);

    let framed = |path: &str| -> Vec<String> {
        let (_, html) = page(&Path::new(&out).join(path));
        select(&html, ".description > .scroll-frame")
            .iter()
            .map(|frame| {
                let value = frame.value();
                assert_eq!(value.attr("tabindex"), Some("0"), "{}", frame.html());
                assert_eq!(value.attr("role"), Some("region"), "{}", frame.html());
                let child = frame.children().find_map(ElementRef::wrap).unwrap();
                format!(
                    "{} {}",
                    value.attr("aria-label").unwrap_or(""),
                    child.value().name()
                )
            })
            .collect()
    };
    assert_eq!(framed("events/426/index.html"), ["Scrollable table table"]);
    assert_eq!(
        framed("events/412/index.html"),
        ["Scrollable table table", "Scrollable code pre"]
    );
    // The calendar still reads the table's text.
    let ics = fs::read_to_string(out.join("events/412/event.ics")).unwrap();
    assert!(ics.contains("BEANO"), "{ics}");
}

#[test]
fn the_stylesheet_stacks_the_roster_on_narrow_screens_and_never_hides_the_pages_overflow() {
    // The file the binary embeds and publishes as static/style.css.
    let css =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("static/style.css")).unwrap();
    let narrow = &css[css
        .find("@media (max-width: 40rem) {\n  /* Buttons")
        .expect("the narrow-screen block of the layout")..];
    for rule in [
        ".stack-table td::before { content: attr(data-label);",
        ".stack-table td:empty { display: none; }",
        ".actions > .button { flex: 1 1 auto;",
    ] {
        assert!(narrow.contains(rule), "{rule}");
    }
    // Hiding what sticks out is no fix: the page itself never clips.
    for selector in ["html", "body", "main", "body > main", ".wrap"] {
        for start in css.match_indices(&format!("\n{selector} {{")) {
            let body = &css[start.0..];
            let body = &body[..body.find('}').unwrap()];
            assert!(
                !body.contains("overflow:") && !body.contains("overflow-x:"),
                "{body}"
            );
        }
    }
}
