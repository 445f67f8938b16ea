//! The built-in languages, a theme's own catalogues, and the config's `language`.

use crate::support::{Ran, demo_body, page, run, run_ok, tree, vatcar_at_demo_time};
use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use vatcar_site::i18n::{BUILT_IN, Catalogue};

/// The demo's training records: one is refused by the API, so the index says why.
const CIDS: [&str; 3] = ["1547761", "1590318", "1612745"];

fn catalogue(language: &str) -> Catalogue {
    let (_, text) = BUILT_IN.iter().find(|(l, _)| *l == language).unwrap();
    Catalogue::parse(text, language).unwrap()
}

/// The site, the roster report and the training records of the demo, in `dir`, built with
/// the config file `config` (and the templates folder `theme/`, if the config names it).
fn build_everything(dir: &Path, config: &str) {
    fs::write(dir.join("vatcar-site.toml"), config).unwrap();
    let site = ["build", "--demo", "--site-url", "https://tjzs.example.org/"];
    run_ok(vatcar_at_demo_time(&site).current_dir(dir));
    let roster = ["report", "roster", "--demo", "--output", "reports"];
    run_ok(vatcar_at_demo_time(&roster).current_dir(dir));
    let mut training = vec!["report", "training", "--demo", "--include-contact"];
    for cid in CIDS {
        training.extend(["--cid", cid]);
    }
    training.extend(["--output", "records"]);
    // One record is refused by the demo's API: the run fails, and writes the others.
    run(vatcar_at_demo_time(&training).current_dir(dir));
    assert!(dir.join("records/index.html").is_file());
    activity_report(dir);
}

/// The activity report of the demo's roster, from the demo's sample of sessions.
fn activity_report(dir: &Path) {
    let report = ["report", "activity", "--demo", "--output", "reports"];
    run_ok(vatcar_at_demo_time(&report).current_dir(dir));
    assert!(dir.join("reports/activity.html").is_file());
}

/// Every string value in the demo data: text made of these is the data's, not the templates'.
fn demo_strings() -> Vec<String> {
    fn walk(value: &serde_json::Value, out: &mut Vec<String>) {
        match value {
            serde_json::Value::String(text) => out.push(text.clone()),
            serde_json::Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
            serde_json::Value::Object(map) => map.values().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("demo");
    for entry in fs::read_dir(demo).unwrap() {
        let entry = entry.unwrap();
        // demo/site/ is the demo's site folder, not its data.
        if !entry.file_type().unwrap().is_file() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let json: serde_json::Value = serde_json::from_slice(&demo_body(&name)).unwrap();
        walk(&json, &mut out);
    }
    out
}

/// The text a reader sees or hears on every HTML page below `dir`: text nodes (outside
/// scripts, styles and the data's own descriptions and notes) and the `aria-label`, `title`
/// and `data-your-time` attributes, each with its page.
fn visible_texts(dir: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for (path, _) in tree(dir) {
        if !path.ends_with(".html") {
            continue;
        }
        let (_, html) = page(&dir.join(&path));
        for node in html.root_element().descendants() {
            if let Some(text) = node.value().as_text() {
                let inside_data = node.ancestors().any(|a| {
                    a.value().as_element().is_some_and(|e| {
                        matches!(e.name(), "script" | "style")
                            || e.classes().any(|c| c == "description" || c == "note-body")
                    })
                });
                if !inside_data {
                    found.push((path.clone(), text.to_string()));
                }
            } else if let Some(element) = node.value().as_element() {
                for name in ["aria-label", "title", "data-your-time"] {
                    if let Some(value) = element.attr(name) {
                        found.push((path.clone(), value.to_owned()));
                    }
                }
            }
        }
    }
    found
        .into_iter()
        .map(|(path, text)| (path, text.split_whitespace().collect::<Vec<_>>().join(" ")))
        .filter(|(_, text)| !text.is_empty())
        .collect()
}

/// Whether `word` occurs in `text` as whole words (not inside a longer word).
fn has_words(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// The English texts that must not appear on a page in `language`: each literal piece of
/// every English text (between placeholders, trimmed of punctuation) of three letters or
/// more, unless the language's own catalogue uses it too ("Supervisor", "OTS", "Webmaster").
fn english_pieces(language: &str) -> BTreeSet<String> {
    let english = catalogue("en");
    let own = catalogue(language);
    let mut pieces = BTreeSet::new();
    for (key, text) in &english.entries {
        if key.ends_with("_html") || own.entries[key] == *text {
            continue;
        }
        for piece in text.split(['{', '}']).step_by(2) {
            let piece = piece.trim_matches(|c: char| !c.is_alphanumeric());
            let letters = piece.chars().filter(|c| c.is_alphabetic()).count();
            if letters >= 3 && !own.entries.values().any(|v| has_words(v, piece)) {
                pieces.insert(piece.to_owned());
            }
        }
    }
    pieces
}

#[test]
fn every_built_in_language_translates_every_page_and_report() {
    let data = demo_strings();
    for (language, _) in BUILT_IN.iter().filter(|(l, _)| *l != "en") {
        let tmp = tempfile::tempdir().unwrap();
        // The webmaster's pages, a section and an external menu entry use template words too.
        for (path, text) in [
            ("content/_index.md", "+++\n+++\n¡Hola!\n"),
            (
                "content/visita.md",
                "+++\ntitle = \"Visita\"\nmenu = true\n+++\nHola.\n",
            ),
            (
                "content/guias/_index.md",
                "+++\ntitle = \"Guías\"\n+++\nHola.\n",
            ),
            ("content/guias/uno.md", "+++\ntitle = \"Uno\"\n+++\nHola.\n"),
        ] {
            let path = tmp.path().join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        build_everything(
            tmp.path(),
            &format!(
                "language = \"{language}\"\n[[menu]]\nname = \"Discord\"\nurl = \"https://discord.example/\"\n"
            ),
        );
        assert!(tmp.path().join("output/guias/uno/index.html").is_file());
        let pieces = english_pieces(language);
        assert!(
            pieces.len() > 150,
            "{language}: only {} pieces",
            pieces.len()
        );
        let texts = visible_texts(tmp.path());
        let mut left = BTreeSet::new();
        // A title joins the page's name and the site's with " · ".
        let parts = texts
            .iter()
            .flat_map(|(path, text)| text.split(" · ").map(move |part| (path, part)));
        for (path, text) in parts {
            // The data's own text (event names, staff names) is shown as the API sent it.
            if data.iter().any(|d| d.contains(text)) {
                continue;
            }
            for piece in &pieces {
                // What's new titles join the language's words and the data's ("Documento
                // actualizado: Student Training Handbook"): a word of the data is its own.
                if has_words(text, piece) && !data.iter().any(|d| has_words(d, piece)) {
                    left.insert(format!("{path}: {piece:?} in {text:?}"));
                }
            }
        }
        assert!(
            left.is_empty(),
            "{language}: English left:\n{}",
            left.into_iter().collect::<Vec<_>>().join("\n")
        );

        for (path, bytes) in tree(tmp.path()) {
            if path.ends_with(".html") {
                let text = String::from_utf8(bytes).unwrap();
                assert!(
                    text.contains(&format!("<html lang=\"{language}\">")),
                    "{language}: {path} has no <html lang=\"{language}\">"
                );
            }
        }
        let calendar = fs::read_to_string(tmp.path().join("output/calendar/division.ics")).unwrap();
        let name = &catalogue(language).entries["calendar.division_name"];
        assert!(
            calendar.contains(&format!("X-WR-CALNAME:{name}\r\n")),
            "{language}: {calendar}"
        );
    }
}

#[test]
fn english_is_the_default_and_names_itself() {
    let tmp = tempfile::tempdir().unwrap();
    build_everything(tmp.path(), "");
    let (text, _) = page(&tmp.path().join("output/roster/index.html"));
    assert!(text.contains("<html lang=\"en\">"));
    assert!(text.contains("<h2 id=\"visitors\">Visiting controllers <span"));
    let (text, _) = page(&tmp.path().join("records/index.html"));
    assert!(text.contains("<html lang=\"en\">"));
    assert!(text.contains("<h1>Training records</h1>"));
    // The demo's sample: 45 of its 48 members read, 3 unknown.
    let (text, html) = page(&tmp.path().join("reports/activity.html"));
    assert!(text.contains("<h1>Controller activity</h1>"));
    let totals = crate::support::texts(&html, "section[aria-labelledby=totals] tr");
    assert_eq!(totals[0], "Members 48");
    assert_eq!(totals[3], "Unknown 3");
}

#[test]
fn a_theme_adds_a_language_and_overrides_keys_of_a_built_in_one() {
    let tmp = tempfile::tempdir().unwrap();
    let i18n = tmp.path().join("theme/i18n");
    fs::create_dir_all(&i18n).unwrap();
    fs::write(
        i18n.join("pt.toml"),
        "[language]\nname = \"Português\"\none = [0, 1]\n\n[nav]\nhome = \"Início\"\n\
         [home]\nvisitors = { one = \"{n} visitante\", other = \"{n} visitantes\" }\n",
    )
    .unwrap();
    fs::write(i18n.join("es.toml"), "[nav]\nhome = \"Portada\"\n").unwrap();

    fs::write(
        tmp.path().join("vatcar-site.toml"),
        "templates = \"theme\"\nlanguage = \"pt\"\n",
    )
    .unwrap();
    let site = ["build", "--demo", "--output", "pt"];
    let Ran { stderr, .. } = run_ok(vatcar_at_demo_time(&site).current_dir(tmp.path()));
    // Keys the new language lacks are English, and the build says so; its files are read.
    assert!(
        stderr.contains("the pt catalogue lacks") && stderr.contains("English is shown instead"),
        "{stderr}"
    );
    assert!(!stderr.contains("i18n"), "{stderr}");
    let (text, _) = page(&tmp.path().join("pt/index.html"));
    assert!(text.contains("<html lang=\"pt\">"), "{text}");
    assert!(text.contains(">Início</a>"));
    assert!(text.contains("8 visitantes"));
    assert!(text.contains(">Coming up</h2>"));

    fs::write(
        tmp.path().join("vatcar-site.toml"),
        "templates = \"theme\"\nlanguage = \"es\"\n",
    )
    .unwrap();
    let site = ["build", "--demo", "--output", "es"];
    let Ran { stderr, .. } = run_ok(vatcar_at_demo_time(&site).current_dir(tmp.path()));
    // The theme's es.toml changes one key; the rest stays built-in Spanish, without warning.
    assert!(!stderr.contains("lacks"), "{stderr}");
    let (text, _) = page(&tmp.path().join("es/index.html"));
    assert!(text.contains(">Portada</a>"));
    assert!(text.contains(">Próximos eventos</h2>"));
}

#[test]
fn an_unknown_language_names_the_line_and_what_is_available() {
    let tmp = tempfile::tempdir().unwrap();
    fs::create_dir_all(tmp.path().join("theme/i18n")).unwrap();
    fs::write(tmp.path().join("theme/i18n/pt.toml"), "").unwrap();
    fs::write(
        tmp.path().join("vatcar-site.toml"),
        "title = \"TJZS\"\ntemplates = \"theme\"\nlanguage = \"de\"\n",
    )
    .unwrap();
    for args in [
        &["build", "--demo"][..],
        &["report", "roster", "--demo"][..],
    ] {
        let ran = run(vatcar_at_demo_time(args).current_dir(tmp.path()));
        assert_eq!(ran.code(), Some(2), "{}", ran.text());
        assert!(
            ran.stderr
                .contains("vatcar-site.toml:3: language: \"de\" is not available; available: en, es, fr, nl, pt"),
            "{}",
            ran.stderr
        );
    }
}

#[test]
fn a_mistyped_text_key_names_the_file_line_and_key() {
    let tmp = tempfile::tempdir().unwrap();
    let theme = tmp.path().join("theme");
    fs::create_dir_all(&theme).unwrap();
    fs::write(
        theme.join("404.html"),
        "{% extends \"layout.html\" %}\n{% block content %}\n<h1>{{ t(key=\"page.not_fund\") }}</h1>\n{% endblock content %}\n",
    )
    .unwrap();
    let ran = run(
        vatcar_at_demo_time(&["build", "--demo", "--templates", "theme"]).current_dir(tmp.path()),
    );
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    assert!(
        ran.stderr
            .contains("404.html:3: t(): no catalogue has the text key `page.not_fund`"),
        "{}",
        ran.stderr
    );
}

/// `--language` wins over the config's `language`, on `build`, `serve` and `report` alike,
/// and is checked as the key is: a language nobody has is a usage error naming the flag.
#[test]
fn the_language_flag_wins_over_the_config_and_is_checked_like_it() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("vatcar-site.toml"), "language = \"nl\"\n").unwrap();
    let site = [
        "build",
        "--demo",
        "--language",
        "es",
        "--site-url",
        "https://tjzs.example.org/",
    ];
    run_ok(vatcar_at_demo_time(&site).current_dir(tmp.path()));
    let (_, home) = page(&tmp.path().join("output/index.html"));
    assert_eq!(home.root_element().value().attr("lang"), Some("es"));
    let roster = ["report", "roster", "--demo", "--language", "fr"];
    run_ok(vatcar_at_demo_time(&roster).current_dir(tmp.path()));
    let (_, report) = page(&tmp.path().join("reports/roster.html"));
    assert_eq!(report.root_element().value().attr("lang"), Some("fr"));

    for args in [
        &["build", "--demo", "--language", "de"][..],
        &["serve", "--demo", "--port", "0", "--language", "de"][..],
        &["report", "roster", "--demo", "--language", "de"][..],
    ] {
        let ran = run(vatcar_at_demo_time(args).current_dir(tmp.path()));
        assert_eq!(ran.code(), Some(2), "{}", ran.text());
        assert!(
            ran.stderr
                .contains("--language: \"de\" is not available; available: en, es, fr, nl"),
            "{}",
            ran.stderr
        );
    }
}

/// Link previews are told the language and territory of the texts: `og:locale`, from the
/// catalogue (es_419: the Spanish of Latin America and the Caribbean), or from a theme's
/// tag with a region; none for a bare tag, which names no territory.
#[test]
fn pages_name_their_locale_for_link_previews() {
    let locale = |dir: &Path| -> Vec<String> {
        let (_, home) = page(&dir.join("output/index.html"));
        let selector = scraper::Selector::parse("meta[property='og:locale']").unwrap();
        home.select(&selector)
            .filter_map(|m| m.value().attr("content").map(str::to_owned))
            .collect()
    };
    for (language, expected) in [
        ("en", "en_US"),
        ("es", "es_419"),
        ("fr", "fr_FR"),
        ("nl", "nl_NL"),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let site = ["build", "--demo", "--language", language];
        run_ok(vatcar_at_demo_time(&site).current_dir(tmp.path()));
        assert_eq!(locale(tmp.path()), [expected], "{language}");
    }
    let tmp = tempfile::tempdir().unwrap();
    fs::create_dir_all(tmp.path().join("theme/i18n")).unwrap();
    fs::write(tmp.path().join("theme/i18n/pt-BR.toml"), "").unwrap();
    fs::write(tmp.path().join("theme/i18n/pt.toml"), "").unwrap();
    for (language, expected) in [("pt-BR", &["pt_BR"][..]), ("pt", &[][..])] {
        let site = [
            "build",
            "--demo",
            "--templates",
            "theme",
            "--language",
            language,
        ];
        run_ok(vatcar_at_demo_time(&site).current_dir(tmp.path()));
        assert_eq!(locale(tmp.path()), expected, "{language}");
    }
}

/// The Spanish a native reader asked for (issue 24): an OTS is "reprobado" (not the rating
/// "Suspendido"), the home page's events are "Próximos eventos", a member is one "desde" a
/// date, the calendar is "del" facility, and staff titles name the post, not a man.
#[test]
fn the_spanish_reads_as_a_native_speaker_wrote_it() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("vatcar-site.toml"), "language = \"es\"\n").unwrap();
    build_everything(tmp.path(), "language = \"es\"\n");
    let (home, _) = page(&tmp.path().join("output/index.html"));
    assert!(home.contains(">Próximos eventos</h2>"), "{home}");
    let (roster, _) = page(&tmp.path().join("output/roster/index.html"));
    assert!(roster.contains("Miembro desde"), "{roster}");
    for masculine in [
        "Jefe de",
        "Subjefe",
        "Coordinador de",
        "Ingeniero",
        "Administrador de",
    ] {
        assert!(!roster.contains(masculine), "{masculine}");
    }
    assert!(roster.contains("Coordinación de Eventos"), "{roster}");
    let calendar = fs::read_to_string(tmp.path().join("output/calendar/facility.ics")).unwrap();
    assert!(
        calendar.contains("X-WR-CALNAME:San Juan CERAP: eventos"),
        "{calendar}"
    );
    let records: String = CIDS[1..]
        .iter()
        .map(|cid| {
            fs::read_to_string(tmp.path().join(format!("records/training-{cid}.html"))).unwrap()
        })
        .collect();
    assert!(
        records.contains("reprobado"),
        "no failed OTS in the demo's records"
    );
    assert!(!records.contains("suspendido"));
}

/// Issue 40, item 6: the calendar links and the display zone in the page's language. The
/// zone is shown by its place ("Curacao"), marked for the browser to show its own name for it
/// in the page's language ("Atlantic-standaardtijd": static/local-time.js), never by its IANA
/// id; Google's calendar is called what it is called in Dutch.
#[test]
fn the_display_zone_and_the_calendar_links_speak_the_pages_language() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(
        tmp.path().join("vatcar-site.toml"),
        "language = \"nl\"\ndisplay_zone = \"America/Curacao\"\n",
    )
    .unwrap();
    let site = ["build", "--demo", "--site-url", "https://tncf.example.org/"];
    run_ok(vatcar_at_demo_time(&site).current_dir(tmp.path()));
    let (_, events) = page(&tmp.path().join("output/events/index.html"));
    let select = |css: &str| {
        events
            .select(&scraper::Selector::parse(css).unwrap())
            .map(|e| e.text().collect::<String>())
            .collect::<Vec<_>>()
    };
    let lead = select("main p.lead").join(" ");
    assert!(
        lead.contains("Alle tijden zijn in UTC (Zulu), met de lokale tijd (Curacao)."),
        "{lead}"
    );
    let zone = events
        .select(&scraper::Selector::parse("main p.lead [data-zone]").unwrap())
        .map(|e| e.value().attr("data-zone").unwrap().to_owned())
        .collect::<Vec<_>>();
    assert_eq!(zone, ["America/Curacao"]);
    let links = select("main .subscribe a");
    assert!(links.iter().any(|l| l == "Google Agenda"), "{links:?}");
    for (path, text) in visible_texts(&tmp.path().join("output")) {
        assert!(!text.contains("America/Curacao"), "{path}: {text}");
        assert!(!text.contains("Google Calendar"), "{path}: {text}");
    }
    let script = fs::read_to_string(tmp.path().join("output/static/local-time.js")).unwrap();
    assert!(script.contains("timeZoneName: \"long\""), "{script}");
}
