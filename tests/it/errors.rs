//! Every error of a build at once, with a suggestion where a name was mistyped, and where the
//! webmaster looks: in GitHub Actions as annotations on the files and a step summary (issue
//! 24, items 4–6).

use crate::support::{KEY, Ran, build_site, build_site_command, run, site_folder};
use std::path::Path;

/// A page's file: its front matter, then `body` from line 4.
fn page(title: &str, body: &str) -> &'static [u8] {
    format!("+++\ntitle = \"{title}\"\n+++\n{body}")
        .into_bytes()
        .leak()
}

fn content(file: &str) -> String {
    format!("{}", Path::new("content").join(file).display())
}

/// Three broken links in three files, and an anchor the roster page does not have.
fn four_mistakes() -> tempfile::TempDir {
    site_folder(
        "",
        &[
            ("content/a.md", page("A", "Intro.\n\nSee [x](@/nowhere).\n")),
            ("content/b.md", page("B", "[y](@/missing.md)\n")),
            ("content/c.md", page("C", "\n\n[z](elsewhere/)\n")),
            ("content/d.md", page("D", "The [staff](@/roster#nope).\n")),
            (
                "content/relative.md",
                page("R", "[ok](../roster/#visitors) [ok](../events/#upcoming)\n"),
            ),
            (
                "content/fine.md",
                page("Fine", "[ok](@/roster#staff) [ok](@/a.md)\n"),
            ),
        ],
    )
}

/// `build --demo` of `site` as a step of GitHub Actions, its summary in `summary`.
fn build_in_actions(site: &Path, summary: &Path, extra: &[&str]) -> Ran {
    let (mut command, _) = build_site_command(site, extra);
    run(command
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", summary)
        .env("GITHUB_WORKSPACE", site))
}

#[test]
fn three_broken_links_in_three_files_and_a_bad_anchor_on_a_generated_page_are_reported_at_once() {
    let site = four_mistakes();
    let (ran, out) = build_site(site.path(), &[]);
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    assert!(!out.exists(), "nothing is published");
    let listed: Vec<&str> = ran
        .stderr
        .lines()
        .skip_while(|line| !line.starts_with("error: "))
        .collect();
    let expected = [
        "error: 4 problems with the site's pages:".to_owned(),
        format!(
            "{}:6:5: link @/nowhere: the site has no page or file @/nowhere",
            content("a.md")
        ),
        format!(
            "{}:4:1: link @/missing.md: there is no page missing.md in the content folder",
            content("b.md")
        ),
        format!(
            "{}:6:1: link elsewhere/: the site has no page or file c/elsewhere/",
            content("c.md")
        ),
        format!(
            "{}:4:5: link @/roster#nope: #nope: roster/index.html has no element with that id (it has: #controllers, #main, #site-menu, #staff, #visitors)",
            content("d.md")
        ),
    ];
    assert_eq!(listed.len(), expected.len(), "{}", ran.stderr);
    assert_eq!(listed[0], expected[0]);
    // Sorted by file; each names its file, line and column.
    for (line, want) in listed[1..].iter().zip(&expected[1..]) {
        assert!(line.starts_with("  - "), "{line}");
        assert!(line.contains(want.as_str()), "want {want}\n got {line}");
    }
}

#[test]
fn in_github_actions_each_error_is_an_annotation_on_its_file_and_the_step_summary_says_why() {
    let site = four_mistakes();
    let summary = site.path().join("summary.md");
    let ran = build_in_actions(
        site.path(),
        &summary,
        &["--site-url", "https://tjzs.example.org/"],
    );
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    let annotations: Vec<&str> = ran.stdout.lines().filter(|l| l.starts_with("::")).collect();
    assert_eq!(
        annotations,
        [
            "::error file=content/a.md,line=6,col=5::link @/nowhere: the site has no page or file @/nowhere",
            "::error file=content/b.md,line=4,col=1::link @/missing.md: there is no page missing.md in the content folder",
            "::error file=content/c.md,line=6,col=1::link elsewhere/: the site has no page or file c/elsewhere/ (a relative link starts from the page's address, c/); to link from the site's root write @/elsewhere/",
            "::error file=content/d.md,line=4,col=5::link @/roster#nope: #nope: roster/index.html has no element with that id (it has: #controllers, #main, #site-menu, #staff, #visitors)",
        ]
    );
    // The terminal's message is unchanged.
    assert!(
        ran.stderr
            .contains("error: 4 problems with the site's pages:")
    );
    let summary = std::fs::read_to_string(&summary).unwrap();
    assert!(summary.contains("The build failed: 4 errors."), "{summary}");
    assert!(
        summary.contains(&format!(
            "{}:4:5: link @/roster#nope",
            site.path().join("content").join("d.md").display()
        )),
        "{summary}"
    );
    assert!(
        summary.contains("| Site | <https://tjzs.example.org/> |"),
        "{summary}"
    );
}

#[test]
fn a_good_build_in_github_actions_sums_up_pages_calendars_warnings_and_the_address() {
    let site = site_folder("", &[("content/a.md", page("A", "[r](@/roster#staff)\n"))]);
    let summary = site.path().join("summary.md");
    // Something was in the summary before: it is added to.
    std::fs::write(&summary, "## Earlier step\n").unwrap();
    let ran = build_in_actions(site.path(), &summary, &[]);
    assert!(ran.status.success(), "{}", ran.text());
    let summary = std::fs::read_to_string(&summary).unwrap();
    assert!(
        summary.starts_with("## Earlier step\n## vatcar-site build\n"),
        "{summary}"
    );
    let built = ran
        .stderr
        .lines()
        .find(|l| l.starts_with("built "))
        .unwrap();
    let pages: usize = built.split(' ').nth(1).unwrap().parse().unwrap();
    assert!(
        summary.contains(&format!("| Pages | {pages} |")),
        "{summary}"
    );
    let words: Vec<&str> = built.split(' ').collect();
    let calendars = words[words.iter().position(|w| *w == "calendars").unwrap() - 1];
    assert!(
        summary.contains(&format!("| Calendars | {calendars} |")),
        "{summary}"
    );
    // No --site-url: that warning is counted, and the summary says the address is unset.
    assert!(
        ran.stderr.contains("warning: no --site-url"),
        "{}",
        ran.stderr
    );
    assert!(summary.contains("| Warnings | 1 |"), "{summary}");
    assert!(summary.contains("| Site | not set"), "{summary}");
    // Outside GitHub Actions: no annotations and no summary.
    let (ran, _) = build_site(site.path(), &[]);
    assert!(ran.status.success(), "{}", ran.text());
    assert!(!ran.stdout.contains("::"), "{}", ran.stdout);
}

#[test]
fn a_warning_with_a_file_and_line_is_annotated_and_the_key_never_is() {
    // A key in the config file is warned about, on its line; a link naming the key fails.
    let site = site_folder(
        &format!("title = \"T\"\napi_key = \"{KEY}\"\n"),
        &[(
            "content/a.md",
            page("A", &format!("[k](@/{KEY}%0A100%,x)\n")),
        )],
    );
    let summary = site.path().join("summary.md");
    let ran = build_in_actions(site.path(), &summary, &[]);
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    assert!(
        ran.stdout.contains(
            "::warning file=vatcar-site.toml,line=2::api_key in a config file is easy to commit by mistake"
        ),
        "{}",
        ran.stdout
    );
    // The link's text, escaped for GitHub (% is %25), and the key redacted.
    assert!(
        ran.stdout
            .contains("::error file=content/a.md,line=4,col=1::link @/[REDACTED]%250A100%25,x: "),
        "{}",
        ran.stdout
    );
    let summary = std::fs::read_to_string(&summary).unwrap();
    for text in [&ran.stdout, &ran.stderr, &summary] {
        assert!(!text.contains(KEY), "{text}");
    }
}

#[test]
fn two_broken_links_on_one_line_both_show_with_their_columns() {
    let site = site_folder(
        "",
        &[("content/a.md", page("A", "[one](@/x) and [two](@/y.md)\n"))],
    );
    let (ran, _) = build_site(site.path(), &[]);
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    for want in [
        format!("{}:4:1: link @/x:", content("a.md")),
        format!("{}:4:16: link @/y.md:", content("a.md")),
    ] {
        assert!(
            ran.stderr.contains(&want),
            "want {want}\n got {}",
            ran.stderr
        );
    }
}

#[test]
fn past_fifty_problems_the_rest_are_counted() {
    let body: String = (0..60).map(|n| format!("[x](@/gone-{n:02})\n\n")).collect();
    let site = site_folder("", &[("content/a.md", page("A", &body))]);
    let (ran, _) = build_site(site.path(), &[]);
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    assert!(
        ran.stderr
            .contains("error: 60 problems with the site's pages:")
    );
    let listed = ran.stderr.lines().filter(|l| l.starts_with("  - ")).count();
    assert_eq!(listed, 50, "{}", ran.stderr);
    assert!(ran.stderr.contains("\n  and 10 more\n"), "{}", ran.stderr);
    // The first fifty by line: the last shown is the fiftieth link.
    assert!(ran.stderr.contains("link @/gone-49:"), "{}", ran.stderr);
    assert!(!ran.stderr.contains("link @/gone-50:"), "{}", ran.stderr);
}

#[test]
fn front_matter_templates_and_links_are_reported_together() {
    let site = site_folder(
        "",
        &[
            (
                "content/a.md",
                b"+++\ntitle = \"A\"\ndescripton = \"x\"\n+++\n[x](@/nowhere)\n",
            ),
            (
                "content/b.md",
                b"+++\ntitle = \"B\"\ntemplate = \"visiting.html\"\n+++\n",
            ),
            ("content/c.md", page("C", "[a](@/a.md) [y](@/yonder)\n")),
        ],
    );
    let (ran, _) = build_site(site.path(), &[]);
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    for want in [
        "4 problems with the site's pages:".to_owned(),
        // The page with a mistake in its front matter is still a page: the link to it is
        // good, and the links in it are checked.
        format!(
            "{}:3: front matter: unknown key `descripton`: did you mean `description`?",
            content("a.md")
        ),
        format!("{}:5:1: link @/nowhere:", content("a.md")),
        format!(
            "{}:3: template = \"visiting.html\": no templates folder is set",
            content("b.md")
        ),
    ] {
        assert!(
            ran.stderr.contains(&want),
            "want {want}\n got {}",
            ran.stderr
        );
    }
    // The fourth: c.md's link to @/yonder.
    assert!(ran.stderr.contains("link @/yonder"), "{}", ran.stderr);
}

#[test]
fn a_mistyped_name_gets_the_nearest_one() {
    let cases = [
        (
            "[r](@/rostr)",
            "link @/rostr: the site has no page or file @/rostr; did you mean `@/roster`?",
        ),
        (
            "[g](@/guias.md)",
            "link @/guias.md: there is no page guias.md in the content folder; did you mean `guides.md`?",
        ),
        (
            "[g](guias.md)",
            "there is no page guias.md in the content folder; did you mean `guides.md`?",
        ),
        (
            "[s](@/roster#staf)",
            "#staf: roster/index.html has no element with that id; did you mean `#staff`?",
        ),
        (
            "[h](@/guides.md#helo)",
            "#helo: the page has no heading with that anchor; did you mean `#hello`?",
        ),
        // Nothing near: no suggestion.
        (
            "[x](@/x.md)",
            "there is no page x.md in the content folder\n",
        ),
    ];
    for (link, want) in cases {
        let site = site_folder(
            "",
            &[
                ("content/a.md", page("A", &format!("{link}\n"))),
                ("content/guides.md", page("Guides", "## Hello\n")),
            ],
        );
        let (ran, _) = build_site(site.path(), &[]);
        assert_eq!(ran.code(), Some(1), "{}", ran.text());
        assert!(
            ran.stderr.contains(want),
            "{link}: want {want}\n got {}",
            ran.stderr
        );
    }
}

#[test]
fn yaml_and_json_front_matter_are_recognised_with_the_toml_form_shown() {
    let site = site_folder(
        "",
        &[
            (
                "content/a.md",
                b"---\ntitle: Join us\nweight: 2\n---\n[x](@/nowhere)\n",
            ),
            ("content/b.md", b"{\n  \"title\": \"B\"\n}\nBody\n"),
        ],
    );
    let (ran, _) = build_site(site.path(), &[]);
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    for want in [
        format!(
            "{}:1: this front matter is YAML (between --- lines), which vatcar-site does not read; write it in TOML between +++ lines:\n\n    +++\n    title = \"Join us\"\n    weight = 2\n    +++\n",
            content("a.md")
        ),
        // The body below the YAML is read, and its links checked.
        format!("{}:5:1: link @/nowhere", content("a.md")),
        format!(
            "{}:1: this front matter is JSON, which vatcar-site does not read; write it in TOML between +++ lines:\n\n    +++\n    title = \"B\"\n    +++\n",
            content("b.md")
        ),
    ] {
        assert!(
            ran.stderr.contains(&want),
            "want {want}\n got {}",
            ran.stderr
        );
    }
}

#[test]
fn logo_and_favicon_paths_written_from_the_site_folder_get_the_fix_and_one_exit_code() {
    let cases = [
        (
            "logo = \"static/logo.png\"\n",
            "vatcar-site.toml:1: logo: there is no static/logo.png in the static folder",
            "; write logo = \"logo.png\": paths are relative to the static folder\n",
        ),
        (
            "logo = \"/logo.png\"\n",
            "vatcar-site.toml:1: logo: \"/logo.png\" starts with /",
            "; write \"logo.png\": paths are relative to the static folder (static/)\n",
        ),
        (
            "\nfavicon = \"/static/favicon.png\"\n",
            "vatcar-site.toml:2: favicon: \"/static/favicon.png\" starts with /",
            "; write \"favicon.png\": paths are relative to the static folder (static/)\n",
        ),
        (
            "favicon = \"favicon.ico\"\n",
            "vatcar-site.toml:1: favicon: there is no favicon.ico in the static folder",
            // A slip of the name, not of the folder (issue 50).
            "; did you mean favicon = \"favicon.png\"?\n",
        ),
        (
            "logo = \"logo.jpg\"\n",
            "vatcar-site.toml:1: logo: there is no logo.jpg in the static folder",
            "; did you mean logo = \"logo.png\"?\n",
        ),
        (
            "logo = \"banner.svg\"\n",
            "vatcar-site.toml:1: logo: there is no banner.svg in the static folder",
            // Nothing near: no fix offered.
            "static)\n",
        ),
    ];
    for (config, problem, fix) in cases {
        let site = site_folder(
            config,
            &[
                ("static/logo.png", b"\x89PNG\r\n\x1a\n"),
                ("static/favicon.png", b"\x89PNG\r\n\x1a\n"),
            ],
        );
        let (ran, out) = build_site(site.path(), &[]);
        // The same class of mistake, a file the config names wrongly: the same exit code as
        // any mistake in the config file.
        assert_eq!(ran.code(), Some(2), "{config}: {}", ran.text());
        assert!(
            ran.stderr.contains(problem),
            "{config}: want {problem}\n got {}",
            ran.stderr
        );
        assert!(
            ran.stderr.contains(fix),
            "{config}: want {fix}\n got {}",
            ran.stderr
        );
        assert!(!out.exists());
    }
}

#[test]
fn an_anchor_of_a_generated_page_is_checked_through_a_relative_link_too() {
    let site = site_folder(
        "",
        &[(
            "content/a.md",
            page("A", "[ok](../roster/#staff) [no](../events/#upcomming)\n"),
        )],
    );
    let (ran, _) = build_site(site.path(), &[]);
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    let want = format!(
        "{}:4:24: link ../events/#upcomming: #upcomming: events/index.html has no element with that id; did you mean `#upcoming`?",
        content("a.md")
    );
    assert!(
        ran.stderr.contains(&want),
        "want {want}\n got {}",
        ran.stderr
    );
}

#[test]
fn config_errors_in_github_actions_are_annotations_each_on_its_line() {
    let site = site_folder(
        "title = \"T\"\n\nrecent_days = \"sixty\"\nfeed_limit = -1\n",
        &[],
    );
    let summary = site.path().join("summary.md");
    let ran = build_in_actions(site.path(), &summary, &[]);
    assert_eq!(ran.code(), Some(2), "{}", ran.text());
    assert_eq!(
        ran.stdout.trim().lines().collect::<Vec<_>>(),
        [
            "::error file=vatcar-site.toml,line=3::recent_days: expected a whole number, found the text \"sixty\"",
            "::error file=vatcar-site.toml,line=4::feed_limit: expected a whole number of entries (0 for no limit), found -1",
        ]
    );
    let summary = std::fs::read_to_string(&summary).unwrap();
    assert!(summary.contains("The build failed"), "{summary}");
}

#[test]
fn a_template_that_does_not_parse_is_reported_with_the_pages_mistakes() {
    let site = site_folder(
        "templates = \"theme\"\n",
        &[
            ("theme/page.html", b"<p>\n{% if %}\n"),
            ("content/a.md", page("A", "[x](@/nowhere)\n")),
        ],
    );
    let summary = site.path().join("summary.md");
    let ran = build_in_actions(site.path(), &summary, &[]);
    assert_eq!(ran.code(), Some(1), "{}", ran.text());
    assert!(
        ran.stderr
            .contains("error: 2 problems with the site's pages:"),
        "{}",
        ran.stderr
    );
    assert!(ran.stderr.contains("link @/nowhere"), "{}", ran.stderr);
    let annotated: Vec<&str> = ran.stdout.lines().collect();
    assert_eq!(annotated.len(), 2, "{}", ran.stdout);
    assert!(
        annotated[0].starts_with("::error file=content/a.md,line=4,col=1::link @/nowhere"),
        "{}",
        ran.stdout
    );
    assert!(
        annotated[1].starts_with("::error file=theme/page.html,line=2,col="),
        "{}",
        ran.stdout
    );
    assert!(annotated[1].contains("does not parse"), "{}", ran.stdout);
}
