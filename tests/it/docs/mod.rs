//! docs/templates.md lists the hook blocks of the built-in templates and every variable each
//! template receives; it is generated here from the templates and the contexts the demo data
//! really renders, and this test fails when the file and the code disagree.

mod contexts;
mod hooks;
mod prose;
mod style;
mod variables;

/// The Markdown text of `docs/templates.md`.
fn template_variables() -> anyhow::Result<String> {
    let mut out = String::from(prose::INTRO);
    out.push_str(&style::custom_properties()?);
    out.push_str(&hooks::hook_blocks()?);
    out.push_str(prose::HOME_PAGE_BLOCKS);
    out.push_str(prose::LANGUAGES);
    out.push_str(prose::MIGRATION_NOTES);
    out.push_str(&variables::tables(&contexts::rendered()?));
    Ok(out)
}

#[test]
fn template_documentation_matches_the_code() {
    let generated = template_variables().unwrap();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/templates.md");
    if std::env::var_os("VATCAR_UPDATE_DOCS").is_some() {
        std::fs::create_dir_all(concat!(env!("CARGO_MANIFEST_DIR"), "/docs")).unwrap();
        std::fs::write(path, &generated).unwrap();
    }
    let written = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        written == generated,
        "docs/templates.md is out of date: run `VATCAR_UPDATE_DOCS=1 cargo test --test it docs::`"
    );
    for template in [
        "index.html",
        "event.html",
        "roster.html",
        "report-training.html",
    ] {
        assert!(
            generated.contains(&format!("\n## {template}\n")),
            "{template} undocumented"
        );
    }
    assert!(generated.contains("| `event.when.start.iso` | text | `2026-"));
}
