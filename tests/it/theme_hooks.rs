//! Themes that fill the built-in templates' hook blocks instead of copying the templates, and
//! the rules the built-in templates keep so that a webmaster can read and override them.
//! The built binary, a theme folder in a temporary directory, the demo data.

use scraper::{Html, Selector};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const TEMPLATES_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/templates");

/// A theme folder holding `files`, and the output of `build --demo` with it: the site's
/// folder, or the build's stderr when it fails.
fn build_with_theme(files: &[(&str, &str)]) -> (tempfile::TempDir, Result<PathBuf, String>) {
    let tmp = tempfile::tempdir().unwrap();
    let theme = tmp.path().join("theme");
    fs::create_dir_all(&theme).unwrap();
    for (name, text) in files {
        fs::write(theme.join(name), text).unwrap();
    }
    let out = tmp.path().join("site");
    let output = crate::support::vatcar(&["build", "--demo", "--quiet", "--templates"])
        .arg(&theme)
        .arg("--output")
        .arg(&out)
        .output()
        .unwrap();
    let result = if output.status.success() {
        Ok(out)
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    };
    (tmp, result)
}

/// Every HTML page below `dir`, by path.
fn pages(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(pages(&path));
        } else if path.extension().is_some_and(|e| e == "html") {
            let text = fs::read_to_string(&path).unwrap();
            found.push((path, text));
        }
    }
    found
}

fn count(html: &str, selector: &str) -> usize {
    Html::parse_document(html)
        .select(&Selector::parse(selector).unwrap())
        .count()
}

const LAYOUT: &str = r##"{% extends "base.html" %}
{% block head_extra %}
<meta name="theme-color" content="#0b5d7a">
{% endblock head_extra %}
{% block nav_extra %}
<li><a href="https://discord.example.org/">Discord</a></li>
{% endblock nav_extra %}
{% block footer_extra %}
<p class="hosted">Hosted by volunteers.</p>
{% endblock footer_extra %}
{% block scripts_extra %}
<script src="https://stats.example.org/count.js" defer></script>
{% endblock scripts_extra %}
"##;

#[test]
fn a_layout_fills_the_hooks_of_base_html_on_every_page_without_copying_it() {
    let (_tmp, site) = build_with_theme(&[("layout.html", LAYOUT)]);
    let site = site.unwrap();
    let pages = pages(&site);
    // The home page, 4 section pages, the 404 page and the demo's event pages.
    assert!(pages.len() > 10, "{}", pages.len());
    for (path, html) in &pages {
        let path = path.display();
        assert_eq!(
            count(
                html,
                r##"head > meta[name="theme-color"][content="#0b5d7a"]"##
            ),
            1,
            "{path}"
        );
        assert_eq!(
            count(
                html,
                r#"nav.site-nav > ul > li > a[href="https://discord.example.org/"]"#
            ),
            1,
            "{path}"
        );
        assert_eq!(count(html, "footer.site-footer p.hosted"), 1, "{path}");
        // The rest of base.html is still the built-in one.
        assert_eq!(count(html, "a.skip-link"), 1, "{path}");
        assert_eq!(count(html, "footer p.generator"), 1, "{path}");
        let script = html.find("https://stats.example.org/count.js").unwrap();
        assert!(html.find("local-time.js").unwrap() < script, "{path}");
        assert!(script < html.find("</body>").unwrap(), "{path}");
    }
}

#[test]
fn a_page_adds_to_the_layout_hooks_with_super_and_old_pages_skip_the_layout() {
    let roster = r#"{% extends "layout.html" %}
{% block head_extra %}{{ super() }}<meta name="robots" content="noindex">{% endblock head_extra %}
{% block content %}<h1>Roster</h1>{% endblock content %}
"#;
    // A page copied before layout.html existed extends base.html directly.
    let old_404 =
        r#"{% extends "base.html" %}{% block content %}<h1>Gone</h1>{% endblock content %}"#;
    let (_tmp, site) = build_with_theme(&[
        ("layout.html", LAYOUT),
        ("roster.html", roster),
        ("404.html", old_404),
    ]);
    let site = site.unwrap();
    let roster = fs::read_to_string(site.join("roster/index.html")).unwrap();
    assert_eq!(count(&roster, r#"head > meta[name="theme-color"]"#), 1);
    assert_eq!(count(&roster, r#"head > meta[name="robots"]"#), 1);
    let home = fs::read_to_string(site.join("index.html")).unwrap();
    assert_eq!(count(&home, r#"head > meta[name="theme-color"]"#), 1);
    assert_eq!(count(&home, r#"head > meta[name="robots"]"#), 0);
    let not_found = fs::read_to_string(site.join("404.html")).unwrap();
    assert_eq!(count(&not_found, "h1"), 1);
    assert_eq!(count(&not_found, r#"meta[name="theme-color"]"#), 0);
}

#[test]
fn a_short_events_page_replaces_the_lead_and_keeps_the_rest() {
    let events = r#"{% extends "event_list_page.html" %}
{% block lead %}Events run by our facility, most weekends.{% endblock lead %}
"#;
    let (_tmp, site) = build_with_theme(&[("events.html", events)]);
    let site = site.unwrap();
    let built_in = {
        let (_tmp, site) = build_with_theme(&[]);
        fs::read_to_string(site.unwrap().join("events/index.html")).unwrap()
    };
    let page = fs::read_to_string(site.join("events/index.html")).unwrap();
    assert!(
        page.contains(
            "<p class=\"lead\">Events run by our facility, most weekends. \
             All times are UTC (Zulu).</p>"
        ),
        "{page}"
    );
    // Only the lead differs from the built-in page: the heading, the calendar links and the
    // event lists are event_list_page.html's.
    let lead = |html: &str| {
        let start = html.find("<p class=\"lead\">").unwrap();
        let end = start + html[start..].find("</p>").unwrap();
        format!("{}{}", &html[..start], &html[end..])
    };
    assert_eq!(lead(&page), lead(&built_in));
    assert_eq!(
        count(&page, "p.subscribe a[href$=\"calendar/facility.ics\"]"),
        1
    );
    let division = fs::read_to_string(site.join("division/index.html")).unwrap();
    assert!(division.contains("Events across the VATSIM Caribbean Division."));
}

#[test]
fn when_without_zone_accepts_old_calls_and_an_old_declaration_names_the_argument() {
    // A template copied before `when` lost its unused `zone` still passes it: Tera ignores
    // an argument the macro does not declare.
    let event = r#"{% extends "layout.html" %}{% import "macros.html" as m %}
{% block content %}<p class="old">{{ m::when(when=event.when, zone="") }}</p>{% endblock content %}
"#;
    let (_tmp, site) = build_with_theme(&[("event.html", event)]);
    let site = site.unwrap();
    let page = fs::read_to_string(site.join("events/384/index.html")).unwrap();
    assert_eq!(count(&page, "p.old span.when time"), 2, "{page}");

    // A macros.html of the theme's own that still declares `zone` stops the build, and the
    // error says which argument (the migration notes in docs/templates.md give the fix).
    let built_in = fs::read_to_string(Path::new(TEMPLATES_DIR).join("macros.html")).unwrap();
    let old = built_in.replace("{% macro when(when) %}", "{% macro when(when, zone) %}");
    assert_ne!(old, built_in);
    let (_tmp, site) = build_with_theme(&[("macros.html", &old)]);
    let error = site.unwrap_err();
    assert!(
        error.contains("Macro `when` is missing the argument `zone`"),
        "{error}"
    );
}

/// The built-in templates, by name, read from the source folder (not the catalogues in
/// `i18n/`).
fn built_in_templates() -> Vec<(String, String)> {
    let mut templates: Vec<(String, String)> = fs::read_dir(TEMPLATES_DIR)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file())
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, fs::read_to_string(&path).unwrap())
        })
        .collect();
    templates.sort();
    templates
}

#[test]
fn every_file_in_templates_is_built_in_and_exported() {
    let tmp = tempfile::tempdir().unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_vatcar-site"))
        .args(["templates", "export"])
        .arg(tmp.path().join("theme"))
        .status()
        .unwrap();
    assert!(status.success());
    for (name, text) in built_in_templates() {
        let exported = fs::read_to_string(tmp.path().join("theme").join(&name))
            .unwrap_or_else(|_| panic!("{name} is not in TEMPLATES in src/render/theme.rs"));
        assert_eq!(exported, text, "{name}");
    }
    let catalogues = fs::read_dir(Path::new(TEMPLATES_DIR).join("i18n")).unwrap();
    let mut exported = 0;
    for entry in catalogues {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap();
        let copy = fs::read_to_string(tmp.path().join("theme/i18n").join(name))
            .unwrap_or_else(|_| panic!("i18n/{name:?} is not exported"));
        assert_eq!(copy, fs::read_to_string(&path).unwrap());
        exported += 1;
    }
    assert_eq!(exported, 4);
}

#[test]
fn built_in_templates_import_the_macros_they_call_and_keep_short_lines() {
    for (name, text) in built_in_templates() {
        if text.contains("m::") {
            assert!(
                text.contains(r#"{% import "macros.html" as m %}"#),
                "{name} calls m:: without importing macros.html as m"
            );
        }
        for (number, line) in text.lines().enumerate() {
            assert!(
                line.chars().count() <= 120,
                "{name}:{}: {} characters",
                number + 1,
                line.chars().count()
            );
        }
    }
}

#[test]
fn every_macro_argument_is_used() {
    let macros = fs::read_to_string(Path::new(TEMPLATES_DIR).join("macros.html")).unwrap();
    let mut checked = 0;
    for definition in macros.split("{% macro ").skip(1) {
        let (signature, rest) = definition.split_once(')').unwrap();
        let (name, arguments) = signature.split_once('(').unwrap();
        let body = rest.split("{% endmacro").next().unwrap();
        // What the body's tags say, without the HTML around them (`class="when"` is no use).
        let mut code = String::new();
        for piece in body.split("{{").skip(1).chain(body.split("{%").skip(1)) {
            code.push_str(piece.split(['}', '%']).next().unwrap());
            code.push(' ');
        }
        for argument in arguments.split(',') {
            let argument = argument.split('=').next().unwrap().trim();
            let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            let used = code.match_indices(argument).any(|(at, _)| {
                !word(code[..at].chars().next_back())
                    && !word(code[at + argument.len()..].chars().next())
                    // `f(when=…)` names another macro's argument; it does not use this one.
                    && !code[at + argument.len()..].trim_start().starts_with('=')
            });
            assert!(used, "macro {name}: argument `{argument}` is never used");
            checked += 1;
        }
    }
    assert!(checked >= 4, "{checked}");
}

/// docs/templates.md, "Good to know" and "Restyling": a stylesheet in the site's `static/`
/// folder, linked from `head_extra` with `{{ root }}`, is found from every page, the
/// not-found page and a site under a base path included; and what `head_extra` sets comes
/// after the built-in stylesheet and the accent, so that its custom properties win.
#[test]
fn a_hook_links_a_stylesheet_of_the_sites_static_folder_from_every_page() {
    let site = crate::support::site_folder(
        "accent = \"#e8590c\"\n",
        &[
            ("static/css/facility.css", b":root { --radius: 0.25rem; }\n"),
            (
                "theme/layout.html",
                br#"{% extends "base.html" %}
{% block head_extra %}
<style>
:root { --paper-alt: #fff6ef; }
</style>
<link rel="stylesheet" href="{{ root }}css/facility.css">
{% endblock head_extra %}
"#,
            ),
        ],
    );
    let theme = site.path().join("theme");
    let (ran, out) = crate::support::build_site(
        site.path(),
        &[
            "--templates",
            theme.to_str().unwrap(),
            "--site-url",
            "https://owner.example/repo/",
        ],
    );
    assert!(ran.status.success(), "{}", ran.text());
    assert!(out.join("css/facility.css").is_file());
    let base = url::Url::parse("https://owner.example/repo/").unwrap();
    let all = pages(&out);
    assert!(all.len() > 10 && all.iter().any(|(path, _)| path.ends_with("404.html")));
    for (path, text) in all {
        let relative = path
            .strip_prefix(&out)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let page_url = base.join(&relative).unwrap();
        let html = Html::parse_document(&text);
        let links: Vec<String> = html
            .select(&Selector::parse("link[rel=stylesheet]").unwrap())
            .map(|link| link.value().attr("href").unwrap().to_owned())
            .collect();
        assert_eq!(links.len(), 2, "{relative}: {links:?}");
        let own = page_url.join(&links[1]).unwrap();
        assert_eq!(
            own.as_str(),
            "https://owner.example/repo/css/facility.css",
            "{relative}"
        );
        // The cascade: built-in stylesheet, then the accent, then what the hook adds.
        let built_in = text.find("static/style.css").unwrap();
        let accent = text.find("--accent:").unwrap();
        let added = text.find("--paper-alt: #fff6ef").unwrap();
        assert!(built_in < accent && accent < added, "{relative}");
    }
}
