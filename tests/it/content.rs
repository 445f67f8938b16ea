//! The webmaster's own pages (issue 14, items 1–3 and 5): Markdown under `content/` published
//! beside the API's pages, links between them checked and written relative, the menu.

use crate::support::{build_site, page, site_folder, texts};
use std::fs;
use std::path::Path;

const JOIN: &str = "+++
title = \"Join or visit\"
description = \"How to become a controller here\"
menu = true
weight = 1
+++
## Requirements

| Rating | Hours |
|--------|-------|
| S1     | 10    |

Read the [pilot guide](pilots/guide.md), the [roster](@/roster) and the
[first event](@/events/412).[^1]

[^1]: Once you are on the roster.
";

const PILOTS: &str = "+++
title = \"Pilot resources\"
menu = true
weight = 2
+++
Charts and procedures. Start with [the requirements](@/join.md#requirements).
";

const GUIDE: &str = "+++
title = \"Pilot guide\"
description = \"Flying through San Juan\"
+++
## Clearance

See [the SOPs](@/documents), [our calendar](@/calendar/facility.ics) and
![the logo](../../logo.svg). Back [home](@/).
";

fn full_site() -> tempfile::TempDir {
    site_folder(
        "title = \"San Juan CERAP\"\n\n[[menu]]\nname = \"Discord\"\nurl = \"https://discord.gg/example\"\n\n[[menu]]\nname = \"Staff\"\npage = \"roster\"\n",
        &[
            (
                "content/_index.md",
                b"+++\ntitle = \"Welcome\"\ndescription = \"ATC for Puerto Rico\"\n+++\nWelcome to **San Juan**: [join us](@/join.md).\n",
            ),
            ("content/join.md", JOIN.as_bytes()),
            ("content/pilots/_index.md", PILOTS.as_bytes()),
            ("content/pilots/guide.md", GUIDE.as_bytes()),
            (
                "content/draft.md",
                b"+++\ntitle = \"Coming soon\"\ndraft = true\n+++\nNot yet.\n",
            ),
            ("static/logo.svg", b"<svg xmlns=\"http://www.w3.org/2000/svg\"/>"),
        ],
    )
}

fn hrefs(html: &scraper::Html, css: &str) -> Vec<String> {
    html.select(&scraper::Selector::parse(css).unwrap())
        .filter_map(|a| a.value().attr("href").or(a.value().attr("src")))
        .map(str::to_owned)
        .collect()
}

/// Follows a relative link from a page to the file it names, as a browser would.
fn follow(out: &Path, from: &str, href: &str) -> std::path::PathBuf {
    let href = href.split(['#', '?']).next().unwrap();
    let folder = Path::new(from).parent().unwrap();
    let mut target = out.join(folder);
    for part in href.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                target.pop();
            }
            part => target.push(part),
        }
    }
    if href.is_empty() || href.ends_with('/') {
        target.push("index.html");
    }
    target
}

#[test]
fn pages_sections_and_the_home_introduction_are_published() {
    let site = full_site();
    let (ran, out) = build_site(site.path(), &[]);
    assert!(ran.status.success(), "{}", ran.text());

    let (_, join) = page(&out.join("join/index.html"));
    assert_eq!(texts(&join, "main h1"), ["Join or visit"]);
    assert_eq!(
        texts(&join, "main .lead"),
        ["How to become a controller here"]
    );
    assert_eq!(texts(&join, "title"), ["Join or visit · San Juan CERAP"]);
    // Markdown with tables, footnotes and heading anchors.
    assert_eq!(texts(&join, "main table td"), ["S1", "10"]);
    assert_eq!(texts(&join, "h2#requirements"), ["Requirements"]);
    assert_eq!(
        texts(&join, ".footnote-definition p"),
        ["Once you are on the roster."]
    );

    // A folder's _index.md lists the folder's pages.
    let (_, pilots) = page(&out.join("pilots/index.html"));
    assert_eq!(texts(&pilots, "main h1"), ["Pilot resources"]);
    assert_eq!(
        texts(&pilots, "main .link-grid li"),
        ["Pilot guide Flying through San Juan"]
    );
    assert!(out.join("pilots/guide/index.html").is_file());

    // content/_index.md introduces the home page.
    let (_, home) = page(&out.join("index.html"));
    assert_eq!(texts(&home, "section.intro h2"), ["Welcome"]);
    assert_eq!(
        texts(&home, "section.intro p"),
        ["Welcome to San Juan : join us ."]
    );
    assert_eq!(hrefs(&home, "section.intro a"), ["join/"]);

    // Drafts are left out unless asked for.
    assert!(!out.join("draft").exists());
    let (ran, out) = build_site(site.path(), &["--drafts"]);
    assert!(ran.status.success(), "{}", ran.text());
    assert!(out.join("draft/index.html").is_file());
}

#[test]
fn every_link_is_written_relative_and_reaches_its_target() {
    let site = full_site();
    let (ran, out) = build_site(
        site.path(),
        &["--site-url", "https://owner.github.io/repo/"],
    );
    assert!(ran.status.success(), "{}", ran.text());
    for (file, expected) in [
        (
            "join/index.html",
            &["../pilots/guide/", "../roster/", "../events/412/"][..],
        ),
        ("pilots/index.html", &["../join/#requirements"][..]),
        (
            "pilots/guide/index.html",
            &[
                "../../documents/",
                "../../calendar/facility.ics",
                "../../logo.svg",
                "../../",
            ][..],
        ),
    ] {
        let (_, html) = page(&out.join(file));
        let links = hrefs(
            &html,
            "main article a:not(.footnote-reference a), main article img",
        );
        let links: Vec<&String> = links.iter().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(links, expected, "{file}");
        for link in links {
            let target = follow(&out, file, link);
            assert!(
                target.is_file(),
                "{file}: {link} reaches nothing ({})",
                target.display()
            );
        }
    }
    // The sitemap lists the content pages; a draft is not among them.
    let sitemap = fs::read_to_string(out.join("sitemap.xml")).unwrap();
    for url in ["join/", "pilots/", "pilots/guide/"] {
        assert!(
            sitemap.contains(&format!("<loc>https://owner.github.io/repo/{url}</loc>")),
            "{url}"
        );
    }
    assert!(!sitemap.contains("draft"));
}

#[test]
fn a_broken_link_fails_the_build_naming_the_file_and_line() {
    let cases: [(&str, &str, &str); 8] = [
        (
            "join.md",
            "+++\ntitle = \"J\"\n+++\n\nSee [x](@/visiting.md).\n",
            "join.md:5:5: link @/visiting.md: there is no page visiting.md in the content folder",
        ),
        (
            "join.md",
            "+++\ntitle = \"J\"\n+++\n[x](@/events/999999)\n",
            "join.md:4:1: link @/events/999999: the site has no page or file @/events/999999",
        ),
        (
            "join.md",
            "+++\ntitle = \"J\"\n+++\n\n\n[x](guide.md)\n",
            "join.md:6:1: link guide.md: there is no page guide.md in the content folder",
        ),
        (
            "join.md",
            "+++\ntitle = \"J\"\n+++\n![x](logo.png)\n",
            "join.md:4:1: link logo.png: the site has no page or file join/logo.png",
        ),
        (
            "join.md",
            "+++\ntitle = \"J\"\n+++\n[x](/roster/)\n",
            "join.md:4:1: link /roster/: a link from the domain's root breaks",
        ),
        (
            "join.md",
            "+++\ntitle = \"J\"\n+++\n[x](@/join.md#nowhere)\n",
            "join.md:4:1: link @/join.md#nowhere: #nowhere: the page has no heading with that anchor",
        ),
        (
            // An id of another page's template is not on this one.
            "join.md",
            "+++\ntitle = \"J\"\n+++\n[x](@/join.md#staff)\n",
            "join.md:4:1: link @/join.md#staff: #staff: the page has no heading with that anchor",
        ),
        (
            "join.md",
            "+++\ntitle = \"J\"\n+++\n[x](@/soon.md)\n",
            "join.md:4:1: link @/soon.md: soon.md is a draft (draft = true) and is not published",
        ),
    ];
    for (file, text, expected) in cases {
        let site = site_folder(
            "",
            &[
                (&format!("content/{file}"), text.as_bytes()),
                (
                    "content/soon.md",
                    b"+++\ntitle = \"Soon\"\ndraft = true\n+++\n",
                ),
            ],
        );
        let (ran, out) = build_site(site.path(), &[]);
        assert_eq!(ran.code(), Some(1), "{}", ran.text());
        let expected = format!("{}", Path::new("content").join(expected).display());
        assert!(
            ran.stderr.contains(&expected),
            "want {expected}\n got {}",
            ran.stderr
        );
        assert!(!out.exists(), "nothing is published");
    }
}

#[test]
fn front_matter_mistakes_are_errors_naming_the_file_and_line() {
    for (text, expected) in [
        (
            "No front matter\n",
            "join.md:1: a page starts with front matter",
        ),
        (
            "+++\ntitle = \"J\"\nmenu = \"yes\"\n+++\n",
            "join.md:3: front matter: invalid type",
        ),
        (
            "+++\ntitle = \"J\"\ntitel = \"x\"\n+++\n",
            "join.md:3: front matter: unknown key `titel`: did you mean `title`?",
        ),
        (
            "+++\ndescription = \"d\"\n+++\n",
            "join.md:1: front matter: `title` is required",
        ),
    ] {
        let site = site_folder("", &[("content/join.md", text.as_bytes())]);
        let (ran, _) = build_site(site.path(), &[]);
        assert_eq!(ran.code(), Some(1), "{}", ran.text());
        assert!(
            ran.stderr.contains(expected),
            "want {expected}\n got {}",
            ran.stderr
        );
    }
}

/// Issue 50: mistakes of the config file (three callsigns of one kind among them) and two of a
/// page's front matter, named in one run, each at its file and line; a usage error, and
/// nothing published. The file's own mistakes alone read as before, one a line.
#[test]
fn config_and_front_matter_mistakes_are_named_in_one_run() {
    let config = "titel = \"Santo Domingo\"\nrecent_days = -1\n[live]\ncallsigns = [\"MDCS_\", \"MDSD_\", \"MDPC_\"]\n";
    let page = "+++\ntitle = \"Únete\"\ndescripcion = \"x\"\nmenu = \"yes\"\n+++\nHola.\n";
    let site = site_folder(config, &[("content/unete.md", page.as_bytes())]);
    let (ran, out) = build_site(site.path(), &[]);
    assert_eq!(ran.code(), Some(2), "{}", ran.text());
    let toml = site.path().join("vatcar-site.toml").display().to_string();
    let page = site.path().join(content("unete.md")).display().to_string();
    for line in [
        "error: 5 problems with the config file and the site's pages:".to_owned(),
        format!("{toml}:1: unknown key `titel`"),
        format!("{toml}:2: recent_days"),
        format!("{toml}:4: live.callsigns: \"MDCS_\" holds a _"),
        "\"MDSD_\" holds a _".to_owned(),
        "\"MDPC_\" holds a _".to_owned(),
        format!("{page}:3: front matter: unknown key `descripcion`"),
        format!("{page}:4: front matter: invalid type"),
    ] {
        assert!(
            ran.stderr.contains(&line),
            "want {line}\n got {}",
            ran.stderr
        );
    }
    assert!(!out.exists(), "nothing is published");

    fs::write(
        site.path().join("content/unete.md"),
        "+++\ntitle = \"Únete\"\n+++\n",
    )
    .unwrap();
    let (ran, _) = build_site(site.path(), &[]);
    assert_eq!(ran.code(), Some(2), "{}", ran.text());
    assert!(
        ran.stderr
            .starts_with(&format!("error: {toml}:1: unknown key `titel`")),
        "{}",
        ran.stderr
    );
    assert!(!ran.stderr.contains("problems with"), "{}", ran.stderr);
}

#[test]
fn a_page_may_not_take_the_place_of_a_generated_page() {
    let site = site_folder(
        "",
        &[("content/roster.md", b"+++\ntitle = \"Our roster\"\n+++\n")],
    );
    let (ran, _) = build_site(site.path(), &[]);
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    assert!(
        ran.stderr.contains("roster.md: would be published at roster/index.html, where vatcar-site writes the roster page; rename it, or turn that page off under [sections] in vatcar-site.toml"),
        "{}",
        ran.stderr
    );
    // An event's page is not turned off by itself: no such advice.
    let site = site_folder(
        "",
        &[("content/events/384.md", b"+++\ntitle = \"Ours\"\n+++\n")],
    );
    let (ran, _) = build_site(site.path(), &[]);
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    assert!(
        ran.stderr.contains("events/384.md: would be published at events/384/index.html, where vatcar-site writes the page of event 384; rename it\n"),
        "{}",
        ran.stderr
    );
    // With the roster turned off, the page is the roster.
    let site = site_folder(
        "[sections]\nroster = false\n",
        &[("content/roster.md", b"+++\ntitle = \"Our roster\"\n+++\n")],
    );
    let (ran, out) = build_site(site.path(), &[]);
    assert!(ran.status.success(), "{}", ran.text());
    assert_eq!(
        texts(&page(&out.join("roster/index.html")).1, "main h1"),
        ["Our roster"]
    );

    let site = site_folder(
        "",
        &[
            ("content/join.md", b"+++\ntitle = \"Join\"\n+++\n"),
            ("static/join/index.html", b"<p>old</p>"),
        ],
    );
    let (ran, _) = build_site(site.path(), &[]);
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    assert!(
        ran.stderr
            .contains("would both be published at join/index.html"),
        "{}",
        ran.stderr
    );
}

#[test]
fn the_menu_holds_config_entries_and_pages_that_opt_in() {
    let site = full_site();
    let (ran, out) = build_site(site.path(), &[]);
    assert!(ran.status.success(), "{}", ran.text());
    let (_, join) = page(&out.join("join/index.html"));
    // The entry "Staff", page = "roster", renames the roster's own entry in its place rather
    // than adding a second one at the end (issue 40).
    assert_eq!(
        texts(&join, ".site-nav li"),
        [
            "Home",
            "Staff",
            "Events",
            "Division",
            "Documents",
            "Live",
            "Join or visit",
            "Pilot resources",
            "Discord (external site) ↗"
        ]
    );
    assert_eq!(
        hrefs(&join, ".site-nav a")[1..],
        [
            "../roster/",
            "../events/",
            "../division/",
            "../documents/",
            "../live/",
            "../join/",
            "../pilots/",
            "https://discord.gg/example"
        ]
    );
    assert_eq!(
        texts(&join, ".site-nav a[aria-current=page]"),
        ["Join or visit"]
    );
    assert_eq!(
        hrefs(&join, ".site-nav a[rel~=external]"),
        ["https://discord.gg/example"]
    );

    // The home page's cards are the site's pages: the built-in ones and the webmaster's of the
    // menu, with their descriptions; no external address (issue 50). Their heading is not the
    // word of the menu's "More" button.
    let (_, home) = page(&out.join("index.html"));
    assert_eq!(
        hrefs(&home, "main .link-grid a"),
        [
            "roster/",
            "events/",
            "division/",
            "documents/",
            "join/",
            "pilots/"
        ]
    );
    assert_eq!(texts(&home, "#more"), ["On this site"]);
    let cards = texts(&home, "main .link-grid li");
    assert!(cards[4].starts_with("Join or visit"), "{cards:?}");
    assert!(
        cards[4].len() > "Join or visit".len(),
        "no description: {cards:?}"
    );

    for (config, expected) in [
        (
            "[[menu]]\nname = \"Forum\"\nurl = \"javascript:alert(1)\"\n",
            "vatcar-site.toml:3: menu: url: \"javascript:alert(1)\": only http, https and mailto",
        ),
        (
            "[[menu]]\nname = \"Visiting\"\npage = \"visiting.md\"\n",
            "vatcar-site.toml:3: menu: page = \"visiting.md\": there is no page visiting.md",
        ),
        (
            "[[menu]]\nname = \"Both\"\n",
            "vatcar-site.toml:2: menu: \"Both\" needs either url",
        ),
    ] {
        let site = site_folder(config, &[]);
        let (ran, _) = build_site(site.path(), &[]);
        assert!(!ran.status.success(), "{}", ran.text());
        assert!(
            ran.stderr.contains(expected),
            "want {expected}\n got {}",
            ran.stderr
        );
    }
}

#[test]
fn a_page_can_name_a_template_of_the_theme() {
    let page_text = b"+++\ntitle = \"Visiting\"\ntemplate = \"visiting.html\"\n[extra]\nform = \"https://forms.example/visit\"\n+++\nHello\n";
    let site = site_folder(
        "templates = \"theme\"\n",
        &[
            ("content/visiting.md", page_text),
            (
                "theme/visiting.html",
                b"{% extends \"page.html\" %}{% block lead %}<p class=\"form\">{{ content.extra.form }}</p>{% endblock lead %}",
            ),
            ("theme/unused.html", b""),
        ],
    );
    let (ran, out) = build_site(site.path(), &[]);
    assert!(ran.status.success(), "{}", ran.text());
    let (_, html) = page(&out.join("visiting/index.html"));
    assert_eq!(texts(&html, "p.form"), ["https://forms.example/visit"]);
    assert_eq!(texts(&html, "main article > p:not(.form)"), ["Hello"]);
    // The named template is in use; an unnamed one is still reported.
    assert!(!ran.stderr.contains("visiting.html"), "{}", ran.stderr);
    assert!(ran.stderr.contains("unused.html"), "{}", ran.stderr);

    let site = site_folder("", &[("content/visiting.md", page_text)]);
    let (ran, _) = build_site(site.path(), &[]);
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    assert!(
        ran.stderr
            .contains("visiting.md:3: template = \"visiting.html\": no templates folder is set"),
        "{}",
        ran.stderr
    );
}

#[test]
fn other_files_in_the_content_folder_are_named_and_left_out() {
    let site = site_folder(
        "",
        &[
            ("content/join.md", b"+++\ntitle = \"Join\"\n+++\n"),
            ("content/photo.jpg", b"\xff\xd8"),
            ("content/.join.md.swp", b"x"),
        ],
    );
    let (ran, out) = build_site(site.path(), &[]);
    assert!(ran.status.success(), "{}", ran.text());
    assert!(
        ran.stderr.contains("photo.jpg is not a page"),
        "{}",
        ran.stderr
    );
    assert!(!ran.stderr.contains("swp"), "{}", ran.stderr);
    assert!(!out.join("photo.jpg").exists());
}

/// Every `id` on a page, in order.
fn ids(html: &scraper::Html) -> Vec<String> {
    html.select(&scraper::Selector::parse("[id]").unwrap())
        .map(|e| e.value().attr("id").unwrap().to_owned())
        .collect()
}

/// Asserts that every problem is in one build's errors, and that the build published nothing.
fn fails_naming_all(site: &Path, extra: &[&str], expected: &[String]) {
    let (ran, out) = build_site(site, extra);
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    for line in expected {
        assert!(
            ran.stderr.contains(line.as_str()),
            "want {line}\n got {}",
            ran.stderr
        );
    }
    assert!(!out.exists(), "nothing is published");
}

fn content(file: &str) -> String {
    format!("{}", Path::new("content").join(file).display())
}

#[test]
fn identical_headings_get_ids_of_their_own_around_written_ones() {
    let mut body = String::from(
        "+++\ntitle = \"Notes\"\n+++\n## Same\n\n## Same\n\n## Other {#same-2}\n\n## Same\n\n## Same 1\n\n## Main\n\n",
    );
    // Many more: each takes the next free suffix.
    for _ in 0..500 {
        body.push_str("## Same\n\n");
    }
    let site = site_folder("", &[("content/notes.md", body.as_bytes())]);
    let (ran, out) = build_site(site.path(), &[]);
    assert!(ran.status.success(), "{}", ran.text());
    let (_, html) = page(&out.join("notes/index.html"));
    let headings = ids(&html)
        .into_iter()
        .filter(|id| id != "main" && id != "site-menu")
        .collect::<Vec<_>>();
    assert_eq!(
        headings[..5],
        ["same", "same-1", "same-2", "same-3", "same-1-1"]
    );
    // `main` is the page's own element's.
    assert_eq!(headings[5], "main-1");
    assert_eq!(headings.len(), 506);
    let rest: Vec<String> = (4..504).map(|n| format!("same-{n}")).collect();
    assert_eq!(headings[6..], rest);
}

#[test]
fn links_at_the_end_of_a_long_page_are_reported_on_their_own_lines_all_at_once() {
    // 20,000 good links, then two broken ones; Windows line endings in the middle.
    let mut body = String::from("+++\ntitle = \"Links\"\n+++\n");
    for _ in 0..10_000 {
        body.push_str("[roster](@/roster)\n");
    }
    for _ in 0..10_000 {
        body.push_str("[events](@/events) and\r\n");
    }
    body.push_str("\n[one](@/nowhere)\n\nText [two](@/nothing.md) and [three](/roster/).\n");
    let site = site_folder("", &[("content/links.md", body.as_bytes())]);
    // Front matter is lines 1-3, the links 4 to 20,003, the empty line 20,004.
    fails_naming_all(
        site.path(),
        &[],
        &[
            "3 problems with the site's pages".to_owned(),
            format!(
                "{}:20005:1: link @/nowhere: the site has no page or file @/nowhere",
                content("links.md")
            ),
            format!(
                "{}:20007:6: link @/nothing.md: there is no page nothing.md",
                content("links.md")
            ),
            format!(
                "{}:20007:30: link /roster/: a link from the domain's root breaks",
                content("links.md")
            ),
        ],
    );
}

#[test]
fn written_and_made_ids_and_footnotes_give_each_element_an_id_of_its_own() {
    let text = "+++
title = \"Ids\"
+++
## A

## A

## Written {#a-1}

## Written too {id=two}

## Fn main

See the notes.[^main] [^two words] [^A] [^Two   Words]

[^main]: The main note.
[^two words]: Two words.
[^a]: Case aside.
";
    let site = site_folder("", &[("content/ids.md", text.as_bytes())]);
    let (ran, out) = build_site(site.path(), &[]);
    assert!(ran.status.success(), "{}", ran.text());
    let (source, html) = page(&out.join("ids/index.html"));
    let all = ids(&html);
    assert_eq!(
        all,
        [
            "site-menu",
            "main",
            "a",
            "a-2",
            "a-1",
            "two",
            "fn-main",
            "fn-main-1",
            "fn-two-words",
            "fn-a"
        ]
    );
    // "Skip to content" leads to the page's <main>.
    assert_eq!(hrefs(&html, "a.skip-link"), ["#main"]);
    assert_eq!(
        html.select(&scraper::Selector::parse("#main").unwrap())
            .next()
            .unwrap()
            .value()
            .name(),
        "main"
    );
    // An id is written once in a heading's tag.
    assert!(
        source.contains("<h2 id=\"two\">Written too</h2>"),
        "{source}"
    );
    // Each footnote reference leads to its note, whatever the letter case and spaces, and
    // the notes are numbered in the order they are first referred to.
    assert_eq!(
        hrefs(&html, ".footnote-reference a"),
        ["#fn-main-1", "#fn-two-words", "#fn-a", "#fn-two-words"]
    );
    assert_eq!(texts(&html, ".footnote-reference a"), ["1", "2", "3", "2"]);
    assert_eq!(texts(&html, ".footnote-definition-label"), ["1", "2", "3"]);
    // A link may name a footnote's or a written id.
    let site = site_folder(
        "",
        &[
            ("content/ids.md", text.as_bytes()),
            (
                "content/other.md",
                b"+++\ntitle = \"O\"\n+++\n[a](@/ids.md#fn-two-words) [b](ids.md#two)\n",
            ),
        ],
    );
    let (ran, _) = build_site(site.path(), &[]);
    assert!(ran.status.success(), "{}", ran.text());
}

#[test]
fn a_written_id_that_is_taken_fails_the_build_naming_the_file_and_line() {
    let site = site_folder(
        "",
        &[
            (
                "content/ids.md",
                b"+++\ntitle = \"Ids\"\n+++\n## One {#same}\n\n## Two {#same}\n\n## Skip {#main}\n\n## Attr {id=main}\n\nA note.[^n]\n\n[^n]: One.\n[^N]: Two.\n",
            ),
            (
                "content/_index.md",
                b"+++\ntitle = \"Home\"\n+++\n## Staff {#staff}\n",
            ),
        ],
    );
    fails_naming_all(
        site.path(),
        &[],
        &[
            "5 problems with the site's pages".to_owned(),
            format!(
                "{}:6: the heading's id #same is also written on line 4, and an id must be unique on its page; write another",
                content("ids.md")
            ),
            format!(
                "{}:8: the heading's id #main is one the page's template gives its own element (the \"Skip to content\" link leads to it); write another ({{#main-section}})",
                content("ids.md")
            ),
            format!(
                "{}:10: the heading's id #main is one the page's template",
                content("ids.md")
            ),
            format!(
                "{}:15: the footnote [^N] is also defined on line 14; remove one",
                content("ids.md")
            ),
            format!(
                "{}:4: the heading's id #staff is one the page's template",
                content("_index.md")
            ),
        ],
    );
}

#[test]
fn a_page_named_like_a_generated_file_is_refused_before_anything_is_written() {
    let page = b"+++\ntitle = \"P\"\n+++\n";
    let names = [
        (
            "feed.xml.md",
            "feed.xml",
            "vatcar-site writes the Atom feed there",
        ),
        (
            "calendar/facility.ics.md",
            "calendar/facility.ics",
            "vatcar-site writes the facility's calendar there",
        ),
        (
            "404.html.md",
            "404.html",
            "vatcar-site writes the page-not-found page there",
        ),
        (
            "sitemap.xml.md",
            "sitemap.xml",
            "vatcar-site writes the sitemap there",
        ),
        (
            "static/style.css.md",
            "static/style.css",
            "vatcar-site writes the templates' file static/style.css there",
        ),
        (
            "index.html.md",
            "index.html",
            "vatcar-site writes the home page there",
        ),
        (
            "logo.svg.md",
            "logo.svg",
            "the static file logo.svg is there",
        ),
        (
            "join/index.html.md",
            "join/index.html",
            &format!("{} is published there", content("join.md")),
        ),
    ];
    let mut files: Vec<(String, &[u8])> = names
        .iter()
        .map(|(name, ..)| (format!("content/{name}"), &page[..]))
        .collect();
    files.push(("content/join.md".into(), page));
    files.push(("static/logo.svg".into(), b"<svg/>"));
    let files: Vec<(&str, &[u8])> = files.iter().map(|(p, b)| (p.as_str(), *b)).collect();
    let site = site_folder("", &files);
    let mut expected = vec![format!("{} problems with the site's pages", names.len())];
    for (name, file, what) in names {
        // (An origin is the file's full path.)
        expected.push(format!(
            "{}: would be published at {file}/index.html, but {file} is a file (",
            content(name)
        ));
        expected.push(format!("{what}); rename the page"));
    }
    fails_naming_all(
        site.path(),
        &["--site-url", "https://example.org/"],
        &expected,
    );
    let (ran, _) = build_site(site.path(), &["--site-url", "https://example.org/"]);
    assert!(!ran.stderr.contains("staging"), "{}", ran.stderr);
}

#[test]
fn nothing_is_published_in_the_folder_serve_keeps_for_itself() {
    let site = site_folder(
        "",
        &[
            (
                "content/__vatcar-site/changes.md",
                b"+++\ntitle = \"C\"\n+++\n",
            ),
            ("content/__vatcar-site.md", b"+++\ntitle = \"C\"\n+++\n"),
            ("static/__vatcar-site/live-reload.js", b"alert(1)"),
        ],
    );
    fails_naming_all(
        site.path(),
        &[],
        &[
            "3 problems with the site's pages".to_owned(),
            "the static file __vatcar-site/live-reload.js: the folder __vatcar-site/ is vatcar-site serve's own (its live reload), so nothing may be published in it; move the file".to_owned(),
            format!(
                "{}: the folder __vatcar-site/ is vatcar-site serve's own (its live reload), so no page may be published in it; rename it",
                content("__vatcar-site/changes.md")
            ),
            format!(
                "{}: the folder __vatcar-site/ is vatcar-site serve's own",
                content("__vatcar-site.md")
            ),
        ],
    );
}

#[test]
fn every_page_with_a_mistake_in_its_front_matter_is_named_at_once() {
    let site = site_folder(
        "",
        &[
            ("content/a.md", b"+++\ntitle = \"A\"\nmenu = \"yes\"\n+++\n"),
            ("content/b.md", b"No front matter\n"),
        ],
    );
    fails_naming_all(
        site.path(),
        &[],
        &[
            "2 problems with the site's pages".to_owned(),
            format!("{}:3: front matter: invalid type", content("a.md")),
            format!("{}:1: a page starts with front matter", content("b.md")),
        ],
    );
}

/// An image of the site's own static files in a page gets its `width` and `height`, so that
/// the page keeps its room while it loads (issue 50); an image from elsewhere, or a file that
/// is no image, gets none.
#[test]
fn a_pages_own_images_carry_their_width_and_height() {
    let png =
        fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/banner/banner.png"))
            .unwrap();
    let (width, height) = vatcar_site::images::natural_size(&png).unwrap();
    let svg = b"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 120 30\"></svg>";
    let site = site_folder(
        "",
        &[
            ("static/img/tower.png", &png),
            ("static/img/map.svg", svg),
            (
                "content/guides/tower.md",
                b"+++\ntitle = \"Tower\"\n+++\n![The tower](../../img/tower.png)\n\n![A map](@/img/map.svg \"Map\")\n\n![Elsewhere](https://example.org/x.png)\n\n![The tower again](../../img/tower.png)\n",
            ),
        ],
    );
    let (ran, out) = build_site(site.path(), &[]);
    assert!(ran.status.success(), "{}", ran.text());
    let html = fs::read_to_string(out.join("guides/tower/index.html")).unwrap();
    assert!(
        html.contains(&format!(
            "<img src=\"../../img/tower.png\" width=\"{width}\" height=\"{height}\" alt=\"The tower\""
        )),
        "{html}"
    );
    assert!(
        html.contains("<img src=\"../../img/map.svg\" width=\"120\" height=\"30\" alt=\"A map\""),
        "{html}"
    );
    assert!(
        html.contains("<img src=\"https://example.org/x.png\" alt=\"Elsewhere\""),
        "{html}"
    );
}
