//! docs/templates.md lists every variable each template receives; it is generated from the
//! real render contexts, and this test fails when the file and the code disagree.

#[test]
fn template_documentation_matches_the_code() {
    let generated = vatcar_site::render::docs::template_variables().unwrap();
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
