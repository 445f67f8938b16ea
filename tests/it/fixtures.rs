//! The hostile fixtures are made by scripts (tests/fixtures/*/make.py): each script must still
//! write the committed files byte for byte, so that a fixture edited by hand, or a script
//! changed without running it, is caught where every contributor runs the tests (and on the
//! three systems of CI), not only in the full checks of .ci/run.
//!
//! The scripts need Python 3; without a `python3` that runs, the check skips, saying so.
//!
//! The Spanish and Dutch facility sites (tests/fixtures/facility-es, facility-nl) are written
//! by hand, as a webmaster would; their tests below build them.

use crate::support::{assert_same_files, tree};
use std::path::Path;
use std::process::Command;

/// Runs `fixture`'s make.py into a fresh folder and compares it with the committed folder,
/// make.py aside.
fn script_reproduces(fixture: &str) {
    let committed = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(fixture);
    let made = tempfile::tempdir().unwrap();
    let ran = Command::new("python3")
        .arg(committed.join("make.py"))
        .arg(made.path())
        .output();
    let output = match ran {
        Ok(output) if output.status.success() => output,
        Ok(output) if !python_runs() => {
            eprintln!("skipped: python3 does not run here ({})", output.status);
            return;
        }
        Ok(output) => panic!(
            "{fixture}/make.py failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ),
        Err(error) => {
            eprintln!("skipped: python3 could not be run ({error})");
            return;
        }
    };
    assert!(
        output.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let mut expected = tree(&committed);
    expected.remove("make.py");
    assert_same_files(&tree(made.path()), &expected);
}

/// Whether `python3` runs at all (Windows may have only a stub of that name).
fn python_runs() -> bool {
    Command::new("python3")
        .args(["-c", "pass"])
        .status()
        .is_ok_and(|status| status.success())
}

#[test]
fn the_hostile_snapshot_is_what_its_script_writes() {
    script_reproduces("hostile");
}

#[test]
fn the_hostile_content_site_is_what_its_script_writes() {
    script_reproduces("hostile-content");
}

#[test]
fn the_ci_sites_event_banner_is_what_its_script_writes() {
    script_reproduces("banner");
}

/// tests/fixtures/facility-es is the site .ci/run measures in Chromium (tests/browser/
/// check-layout.mjs): it must keep building, and keep holding what the layout goals are
/// measured on, whoever changes the settings or the pages' Markdown.
#[test]
fn the_spanish_facility_site_builds_with_what_the_layout_check_measures() {
    let (config, out) = build_fixture_site("facility-es");

    let (text, home) = crate::support::page(&out.path().join("index.html"));
    assert!(text.contains("<html lang=\"es\">"));
    let menu: Vec<String> = menu_of(&home).into_iter().map(|(name, _)| name).collect();
    assert_eq!(menu.len(), 9, "{menu:?}");
    for name in [
        "Formación",
        "Normas de la dependencia",
        "Discord",
        "Contacto",
    ] {
        assert!(
            menu.iter().any(|m| m.starts_with(name)),
            "{name} not in {menu:?}"
        );
    }

    // Issue 50's facility: a 46-character name with a short one, and a square logo on its own
    // orange ground, which no plate surrounds (logo_backdrop "auto").
    let settings = std::fs::read_to_string(&config).unwrap();
    assert!(settings.contains("short_title = "), "{settings}");
    assert_eq!(
        crate::support::texts(&home, ".brand-name"),
        ["Centro de Control de Área de Santo Domingo ACC"]
    );
    let logo = std::fs::read(out.path().join("logo.png")).unwrap();
    assert_eq!(vatcar_site::images::is_opaque(&logo), Some(true));
    assert!(!text.contains("brand-plated"), "an opaque logo on a plate");

    // The pages .ci/run names with --page, and what makes them wide.
    let (_, section) = crate::support::page(&out.path().join("formacion/index.html"));
    assert!(
        crate::support::texts(&section, "main a")
            .iter()
            .any(|t| t.starts_with("Guía de aproximación radar"))
    );
    let (_, guide) = crate::support::page(&out.path().join("formacion/radar/index.html"));
    assert_eq!(
        crate::support::texts(&guide, "main table thead th").len(),
        7
    );
    assert_eq!(crate::support::texts(&guide, "main pre code").len(), 1);
    assert!(
        crate::support::texts(&guide, "main a")
            .iter()
            .any(|t| t.starts_with("https://") && t.len() > 100)
    );
    let event_with_table = std::fs::read_dir(out.path().join("events"))
        .unwrap()
        .filter_map(|e| std::fs::read_to_string(e.unwrap().path().join("index.html")).ok())
        .any(|page| page.contains("<table"));
    assert!(event_with_table, "no event page holds a table");
}

/// The demo built with the fixture site `name`'s config (written for it, every warning a
/// mistake of the fixture's): its config file, and the output folder.
fn build_fixture_site(name: &str) -> (std::path::PathBuf, tempfile::TempDir) {
    let config = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .join("vatcar-site.toml");
    let out = tempfile::tempdir().unwrap();
    let ran = crate::support::run_ok(&mut crate::support::vatcar_at_demo_time(&[
        "build",
        "--demo",
        "--config",
        config.to_str().unwrap(),
        "--output",
        out.path().to_str().unwrap(),
        "--site-url",
        &format!("https://{name}.example/"),
    ]));
    assert!(!ran.text().contains("warning"), "{name}: {}", ran.text());
    (config, out)
}

/// The menu as check-layout.mjs finds it: the links of the <nav>s outside <main> and the
/// footer, as (text, href).
fn menu_of(home: &scraper::Html) -> Vec<(String, String)> {
    let links = scraper::Selector::parse("nav a[href]").unwrap();
    home.select(&links)
        .filter(|a| {
            !a.ancestors()
                .filter_map(scraper::ElementRef::wrap)
                .any(|e| matches!(e.value().name(), "main" | "footer"))
        })
        .map(|a| {
            let text = a.text().collect::<String>();
            let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
            (text, a.value().attr("href").unwrap_or_default().to_owned())
        })
        .collect()
}

/// tests/fixtures/facility-nl is the second site .ci/run measures in Chromium (issue 40),
/// unlike the first in every way the layout can break: a long name in Dutch, a wide 4:1 logo
/// drawn in a bright yellow accent on an accent header, eleven menu entries of long Dutch
/// words (one renaming the built-in roster's), a display zone. It must keep building, without
/// a warning, and keep holding what the layout goals are measured on.
#[test]
fn the_dutch_facility_site_builds_with_what_the_layout_check_measures() {
    let (config, out) = build_fixture_site("facility-nl");

    let (text, home) = crate::support::page(&out.path().join("index.html"));
    assert!(text.contains("<html lang=\"nl\">"));
    assert_eq!(crate::support::texts(&home, ".brand-name"), ["Curaçao FIR"]);
    let menu = menu_of(&home);
    let names: Vec<&str> = menu.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Home",
            "Luchtverkeersleiders",
            "Evenementen",
            "Divisie",
            "Documenten",
            "Live",
            "Verkeersleidingsprocedures",
            "Opleidingsdocumenten",
            "Trainingscoördinator",
            "Bezoekende verkeersleiders",
            "Veelgestelde vragen",
            "Discord (externe site) ↗"
        ]
    );
    let addresses: std::collections::BTreeSet<&str> =
        menu.iter().map(|(_, href)| href.as_str()).collect();
    assert_eq!(addresses.len(), menu.len(), "a page twice in {menu:?}");

    // The accent, the logo in it, 4:1.
    let settings = std::fs::read_to_string(&config).unwrap();
    assert!(settings.contains("\naccent = \"#f5c400\"\n"), "{settings}");
    assert!(settings.contains("\nheader = \"accent\"\n"), "{settings}");
    let logo = std::fs::read_to_string(out.path().join("logo.svg")).unwrap();
    assert!(logo.contains("viewBox=\"0 0 256 64\""), "{logo}");
    assert!(logo.contains("\"#f5c400\""), "{logo}");

    // The pages .ci/run names with --page, and the long words they hold.
    let (_, section) = crate::support::page(&out.path().join("opleiding/index.html"));
    assert!(
        crate::support::texts(&section, "main a")
            .iter()
            .any(|t| t.starts_with("Torenverkeersleidingshandleiding"))
    );
    let (_, guide) = crate::support::page(&out.path().join("opleiding/toren/index.html"));
    assert_eq!(crate::support::texts(&guide, "main pre code").len(), 1);
    assert!(
        crate::support::texts(&guide, "main a")
            .iter()
            .any(|t| t.starts_with("https://") && t.len() > 100)
    );
    let (_, roster) = crate::support::page(&out.path().join("roster/index.html"));
    assert_eq!(
        crate::support::texts(&roster, "h1"),
        ["Luchtverkeersleiders"]
    );
}

/// tests/fixtures/facility-fr (issue 50), which .ci/run measures beside the others: a long name
/// with no short one (so, on the narrowest phones, ended after a whole word), and a navy logo
/// drawn on nothing, which needs a plate on the dark page and so has one on both.
#[test]
fn the_french_facility_site_builds_with_what_the_layout_check_measures() {
    let (_, out) = build_fixture_site("facility-fr");
    let (text, home) = crate::support::page(&out.path().join("index.html"));
    assert!(text.contains("<html lang=\"fr\">"));
    assert_eq!(
        crate::support::texts(&home, ".brand-name"),
        ["Centre de contrôle en route de Fort-de-France"]
    );
    assert!(
        !text.contains("data-short="),
        "the fixture has no short name"
    );
    assert!(text.contains("class=\"brand brand-plated\""), "no plate");
    assert_eq!(menu_of(&home).len(), 8);
    assert!(out.path().join("visiteurs/index.html").is_file());
}
