//! `vatcar-site init`: the site folder it writes, what it keeps, and the GitHub Actions
//! workflow, which docs/github-actions.md shows word for word.

use crate::support::{AgainstMock, Ran, run, run_ok, tree, vatcar_at_demo_time};
use std::fs;
use std::path::Path;

const WRITTEN: [&str; 5] = [
    "vatcar-site.toml",
    "content/_index.md",
    "content/join.md",
    ".gitignore",
    ".github/workflows/site.yml",
];

fn init(cwd: &Path, args: &[&str]) -> Ran {
    let mut command = vatcar_at_demo_time(&[&["init"], args].concat());
    command.current_dir(cwd);
    run(&mut command)
}

#[test]
fn init_writes_a_site_folder_that_builds() {
    let tmp = tempfile::tempdir().unwrap();
    let Ran { status, stderr, .. } = init(tmp.path(), &["site"]);
    assert!(status.success(), "{stderr}");
    let site = tmp.path().join("site");
    let files = tree(&site);
    assert_eq!(
        files.keys().map(String::as_str).collect::<Vec<_>>(),
        [
            ".github/workflows/site.yml",
            ".gitignore",
            "content/_index.md",
            "content/join.md",
            "vatcar-site.toml"
        ]
    );
    assert!(site.join("static").is_dir());
    for name in WRITTEN {
        assert!(stderr.contains(&format!("wrote site/{name}\n")), "{stderr}");
    }
    assert!(
        stderr.contains("cd site && vatcar-site serve --demo") && stderr.contains("VATCAR_API_KEY"),
        "{stderr}"
    );
    let page = String::from_utf8(files["content/join.md"].clone()).unwrap();
    assert!(page.starts_with("+++\ntitle = \"Join or visit\"\n") && page.contains("menu = true"));
    let ignored = String::from_utf8(files[".gitignore"].clone()).unwrap();
    assert!(ignored.contains("\n/output/\n") && ignored.contains("\n/reports/\n"));

    // From inside the folder, as a webmaster runs it: the config is read (its output folder
    // is the one .gitignore names).
    run_ok(vatcar_at_demo_time(&["build", "--demo"]).current_dir(&site));
    // The example pages are the site's: the introduction on the home page, Join in the menu.
    let (_, home) = crate::support::page(&site.join("output/index.html"));
    assert_eq!(crate::support::texts(&home, "section.intro").len(), 1);
    assert!(
        crate::support::texts(&home, ".site-nav a").contains(&"Join or visit".to_owned()),
        "{:?}",
        crate::support::texts(&home, ".site-nav a")
    );
    let (_, join) = crate::support::page(&site.join("output/join/index.html"));
    assert_eq!(crate::support::texts(&join, "main h1"), ["Join or visit"]);
    // From elsewhere, naming the config file: its folder is the site folder.
    fs::remove_dir_all(site.join("output")).unwrap();
    let config = site.join("vatcar-site.toml");
    run_ok(
        vatcar_at_demo_time(&["build", "--demo", "--config", config.to_str().unwrap()])
            .current_dir(tmp.path()),
    );
    assert!(site.join("output/index.html").is_file());
    assert!(!tmp.path().join("output").exists());
}

#[test]
fn init_keeps_existing_files_unless_forced() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    fs::write(dir.join("vatcar-site.toml"), "title = \"Mine\"\n").unwrap();
    fs::write(dir.join(".gitignore"), "/target/\n").unwrap();
    fs::write(dir.join("notes.txt"), "not init's").unwrap();

    let Ran { status, stderr, .. } = init(dir, &[]);
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("error: these files exist already and were kept: vatcar-site.toml, .gitignore; pass --force to overwrite them"),
        "{stderr}"
    );
    assert_eq!(
        fs::read_to_string(dir.join("vatcar-site.toml")).unwrap(),
        "title = \"Mine\"\n"
    );
    assert!(
        !dir.join("content").exists() && !dir.join(".github").exists(),
        "a refused init wrote something"
    );

    // A folder with other files in it is fine when nothing would be overwritten.
    let other = dir.join("other");
    fs::create_dir(&other).unwrap();
    fs::write(other.join("README.md"), "mine").unwrap();
    let Ran { status, stderr, .. } = init(dir, &["other"]);
    assert!(status.success(), "{stderr}");
    assert_eq!(fs::read_to_string(other.join("README.md")).unwrap(), "mine");

    let Ran { status, stderr, .. } = init(dir, &["--force"]);
    assert!(status.success(), "{stderr}");
    assert!(stderr.contains("(2 overwritten)"), "{stderr}");
    assert_eq!(
        fs::read(dir.join("vatcar-site.toml")).unwrap(),
        fs::read(other.join("vatcar-site.toml")).unwrap()
    );
    assert_eq!(
        fs::read(dir.join(".gitignore")).unwrap(),
        fs::read(other.join(".gitignore")).unwrap()
    );
    assert_eq!(
        fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "not init's"
    );
}

/// A link where init would write, even one that leads nowhere, is the user's: refused like a
/// file, and with --force replaced rather than written through.
#[cfg(unix)]
#[test]
fn init_never_writes_through_a_link() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("site");
    fs::create_dir(&dir).unwrap();
    let target = tmp.path().join("elsewhere.toml");
    std::os::unix::fs::symlink(&target, dir.join("vatcar-site.toml")).unwrap();

    let Ran { status, stderr, .. } = init(tmp.path(), &["site"]);
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("site/vatcar-site.toml"), "{stderr}");
    assert!(!target.exists());

    let Ran { status, stderr, .. } = init(tmp.path(), &["site", "--force"]);
    assert!(status.success(), "{stderr}");
    assert!(!target.exists(), "written through the link");
    let meta = fs::symlink_metadata(dir.join("vatcar-site.toml")).unwrap();
    assert!(meta.is_file());
}

/// The workflow in the guide is the one init writes, byte for byte.
#[test]
fn the_guide_shows_the_workflow_init_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let Ran { status, stderr, .. } = init(tmp.path(), &[]);
    assert!(status.success(), "{stderr}");
    let written = fs::read_to_string(tmp.path().join(".github/workflows/site.yml")).unwrap();

    let readme = fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/github-actions.md"
    ))
    .unwrap();
    let start = "```yaml\n# .github/workflows/site.yml\n";
    let blocks: Vec<&str> = readme
        .match_indices(start)
        .map(|(at, _)| at)
        .map(|at| {
            let body = &readme[at + "```yaml\n".len()..];
            &body[..body.find("\n```\n").expect("the block ends") + 1]
        })
        .collect();
    assert_eq!(
        blocks.len(),
        1,
        "one workflow block in docs/github-actions.md"
    );
    if blocks[0] != written {
        let line = blocks[0]
            .lines()
            .zip(written.lines())
            .position(|(a, b)| a != b)
            .map_or("past the shorter one's end".to_owned(), |n| {
                format!("{}", n + 1)
            });
        panic!(
            "docs/github-actions.md's workflow differs from the one `vatcar-site init` writes, from line {line}; copy the output of `vatcar-site init` into it"
        );
    }
}

/// `init --language es`, `fr` or `nl` writes the English workflow in other words: its comments
/// and the names shown on the Actions tab (the workflow's, its jobs' and its steps'), nothing
/// that GitHub runs, and no English sentence left among its comments.
#[test]
fn the_translated_workflows_are_the_english_one_in_other_words() {
    let written = |language: &str| {
        let tmp = tempfile::tempdir().unwrap();
        let Ran { status, stderr, .. } = init(tmp.path(), &["--language", language]);
        assert!(status.success(), "{language}: {stderr}");
        let workflow = fs::read_to_string(tmp.path().join(".github/workflows/site.yml")).unwrap();
        announce_uncommented(&workflow)
            .unwrap_or_else(|| panic!("{language}: no `  # announce:` line"))
    };
    let english = written("en");
    let english_runs = what_github_runs(&english);
    assert!(
        english_runs.contains(&"  announce:".to_owned()),
        "{english}"
    );
    let english_comments: Vec<&str> = english.lines().map(|l| comment(l).1).collect();
    for language in ["es", "fr", "nl"] {
        let translated = written(language);
        let file = format!("src/cmd/init/{language}/workflow.yml");
        let runs = what_github_runs(&translated);
        if let Some((english, translated)) = english_runs.iter().zip(&runs).find(|(a, b)| a != b) {
            panic!(
                "{file} runs `{translated}` where the English workflow runs `{english}`: only its comments and names are translated"
            );
        }
        assert_eq!(
            runs.len(),
            english_runs.len(),
            "{file} has more or fewer lines of YAML than the English workflow"
        );
        // A sentence of four words or more, as it is in English, was left untranslated.
        for line in translated.lines() {
            let text = comment(line).1;
            assert!(
                text.split_whitespace().count() < 4 || !english_comments.contains(&text),
                "{file} has an English comment: {text}"
            );
        }
    }
}

/// A workflow with its announce job uncommented, as a webmaster turns it on (and as
/// scripts/ci/lint-workflows.sh does): `# ` taken from each line from `  # announce:` to the
/// first line that is not a comment.
fn announce_uncommented(workflow: &str) -> Option<String> {
    let lines: Vec<&str> = workflow.lines().collect();
    let first = lines.iter().position(|l| *l == "  # announce:")?;
    let end = first
        + lines[first..]
            .iter()
            .take_while(|l| l.starts_with("  #"))
            .count();
    let mut uncommented = String::new();
    for (at, line) in lines.iter().enumerate() {
        if (first..end).contains(&at) {
            let rest = &line["  #".len()..];
            let line = format!("  {}", rest.strip_prefix(' ').unwrap_or(rest));
            uncommented += line.trim_end();
        } else {
            uncommented += line;
        }
        uncommented.push('\n');
    }
    Some(uncommented)
}

/// A line of YAML and its comment: from a `#` at the start or after a blank, outside a quoted
/// string (a quote opens one only where a value may start, so `l'organisme` is no quote).
fn comment(line: &str) -> (&str, &str) {
    let mut quote = None;
    let mut escaped = false;
    let mut previous = ' ';
    for (at, c) in line.char_indices() {
        match quote {
            Some('"') if escaped => escaped = false,
            Some('"') if c == '\\' => escaped = true,
            Some(open) if c == open => quote = None,
            Some(_) => {}
            None if c == '#' && previous.is_whitespace() => {
                let (yaml, comment) = line.split_at(at);
                return (yaml.trim_end(), comment.trim_start_matches('#').trim());
            }
            None if (c == '"' || c == '\'') && previous.is_whitespace() => quote = Some(c),
            None => {}
        }
        previous = c;
    }
    (line.trim_end(), "")
}

/// The lines of a workflow that GitHub and its linters read: without the comments, save the
/// two kinds that tools read (`# zizmor: ignore[...]`, the version beside a pinned action),
/// without blank lines, and with the names shown on the Actions tab cut to `name:`. A step's
/// `with: name:` and the environment's `name:` stay whole: they name things.
fn what_github_runs(workflow: &str) -> Vec<String> {
    workflow
        .lines()
        .filter_map(|line| {
            let (yaml, comment) = comment(line);
            if yaml.trim().is_empty() {
                return None;
            }
            let indent = yaml.len() - yaml.trim_start().len();
            let key = yaml.trim_start();
            let shown = (matches!(indent, 0 | 4 | 8) && key.starts_with("name: "))
                || (indent == 6 && key.starts_with("- name: "));
            let yaml = if shown {
                &yaml[..yaml.find("name:").unwrap() + "name:".len()]
            } else {
                yaml
            };
            let for_tools = if comment.starts_with("zizmor: ignore[") {
                &comment[..comment.find(']').unwrap() + 1]
            } else if comment.starts_with('v')
                && comment[1..].starts_with(|c: char| c.is_ascii_digit())
            {
                comment
            } else {
                ""
            };
            Some(if for_tools.is_empty() {
                yaml.to_owned()
            } else {
                format!("{yaml} # {for_tools}")
            })
        })
        .collect()
}

/// Least privilege, read from the file: only the deploy job may publish, only the keepalive
/// job may touch workflows, and the key reaches one step, the one running vatcar-site.
#[test]
fn the_workflow_gives_each_job_only_what_it_needs() {
    let tmp = tempfile::tempdir().unwrap();
    run_ok(vatcar_at_demo_time(&["init"]).current_dir(tmp.path()));
    let workflow = fs::read_to_string(tmp.path().join(".github/workflows/site.yml")).unwrap();
    let jobs = &workflow[workflow.find("\njobs:\n").unwrap()..];
    // A job runs from its name's line to the next line indented by exactly two spaces.
    let job = |name: &str| {
        let rest = &jobs[jobs.find(&format!("\n  {name}:\n")).unwrap() + 1..];
        let end = rest
            .match_indices("\n  ")
            .map(|(at, _)| at)
            .find(|&at| !rest[at + 3..].starts_with(' '))
            .unwrap_or(rest.len());
        &rest[..end]
    };
    let (build, deploy, keepalive) = (job("build"), job("deploy"), job("keepalive"));
    assert!(workflow.contains("\npermissions: {}\n"));
    assert!(!build.contains(": write"), "{build}");
    assert!(build.contains("contents: read") && build.contains("pages: read"));
    assert!(build.contains("persist-credentials: false"));
    assert!(deploy.contains("pages: write") && deploy.contains("id-token: write"));
    assert!(!deploy.contains("actions: write") && !deploy.contains("secrets."));
    assert!(keepalive.contains("actions: write") && !keepalive.contains("pages: write"));
    assert_eq!(workflow.matches("secrets.VATCAR_API_KEY").count(), 1);
    assert!(build.contains("--site-url ${{ steps.pages.outputs.base_url }}"));
    assert!(!workflow.contains("OWNER.github.io/REPO/\""));
    assert!(build.contains("rm -f \"$RUNNER_TEMP/pages/.vatcar-site.json\""));
    // Every action but vatcar-site's own is pinned by a full commit hash.
    for line in workflow
        .lines()
        .filter(|l| l.trim_start().starts_with("uses:"))
    {
        let reference = line.split('@').nth(1).unwrap_or_default();
        let hash = reference.split(' ').next().unwrap_or_default();
        let pinned = hash.len() == 40 && hash.bytes().all(|b| b.is_ascii_hexdigit());
        assert!(
            pinned || line.contains("zizmor: ignore[unpinned-uses]"),
            "{line}"
        );
    }
}

/// A folder of the site that is a link (`content` leading elsewhere) is not written through:
/// init stops before writing anything, naming the link, unless --force says to.
#[cfg(unix)]
#[test]
fn init_never_writes_through_a_linked_folder_without_force() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("site");
    fs::create_dir(&dir).unwrap();
    let elsewhere = tmp.path().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, dir.join("content")).unwrap();

    let Ran { status, stderr, .. } = init(tmp.path(), &["site"]);
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("error: site/content is a link to another folder; init does not write through it: remove the link, or pass --force to write through it"),
        "{stderr}"
    );
    assert!(tree(&elsewhere).is_empty(), "written through the link");
    assert_eq!(
        fs::read_dir(&dir).unwrap().count(),
        1,
        "a refused init wrote something"
    );

    let Ran { status, stderr, .. } = init(tmp.path(), &["site", "--force"]);
    assert!(status.success(), "{stderr}");
    assert!(elsewhere.join("_index.md").is_file() && dir.join("vatcar-site.toml").is_file());
}

/// Every path is checked before the first file is written: a `.github` that is a file stops
/// init with nothing written.
#[test]
fn init_that_cannot_finish_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("site");
    fs::create_dir(&dir).unwrap();
    fs::write(dir.join(".github"), "mine").unwrap();
    for force in [&[][..], &["--force"][..]] {
        let Ran { status, stderr, .. } = init(tmp.path(), &[&["site"], force].concat());
        assert_eq!(status.code(), Some(1), "{stderr}");
        assert!(
            stderr.starts_with("error: site/.github is a file, where init needs a folder (for .github/workflows/site.yml): move it away"),
            "{stderr}"
        );
        assert_eq!(
            tree(&dir).keys().collect::<Vec<_>>(),
            [".github"],
            "a refused init wrote something"
        );
        assert!(!dir.join("static").exists() && !dir.join("content").exists());
        assert_eq!(fs::read_to_string(dir.join(".github")).unwrap(), "mine");
    }
}

/// `init --language es`: the config names the language and lists the others, its comments
/// and the example pages are Spanish, and `build --demo` makes a Spanish site of them.
#[test]
fn init_in_spanish_gives_a_spanish_site() {
    let tmp = tempfile::tempdir().unwrap();
    let Ran { status, stderr, .. } = init(tmp.path(), &["site", "--language", "es"]);
    assert!(status.success(), "{stderr}");
    let site = tmp.path().join("site");
    let config = fs::read_to_string(site.join("vatcar-site.toml")).unwrap();
    assert!(config.contains("\nlanguage = \"es\"\n"), "{config}");
    for language in [
        "en (English)",
        "es (Español)",
        "fr (Français)",
        "nl (Nederlands)",
    ] {
        assert!(config.contains(language), "{language} is not listed");
    }
    assert!(config.contains("La clave de la API nunca va"), "{config}");
    // The workflow's comments too, and the names the Actions tab shows.
    let workflow = fs::read_to_string(site.join(".github/workflows/site.yml")).unwrap();
    for spanish in [
        "# Construye el sitio de la dependencia con la API de VATCAR y lo publica en GitHub Pages",
        "# Una sola vez, en la configuración del repositorio (Settings):",
        "la clave de la\n#   API de la dependencia. Solo la ve el paso que ejecuta vatcar-site.",
        "\nname: Publicar el sitio de la dependencia\n",
        "    name: Construir el sitio\n",
    ] {
        assert!(workflow.contains(spanish), "{spanish}\n{workflow}");
    }
    assert!(
        !workflow.contains("Builds the facility's site") && !workflow.contains("Once, in the"),
        "{workflow}"
    );
    // Where every key is explained: the guide of this very release.
    let guide = format!(
        "\n# {}/blob/v{}/docs/configuration.md\n",
        env!("CARGO_PKG_REPOSITORY"),
        env!("CARGO_PKG_VERSION")
    );
    assert!(config.contains(&guide), "{config}");

    run_ok(vatcar_at_demo_time(&["build", "--demo"]).current_dir(&site));
    let (_, home) = crate::support::page(&site.join("output/index.html"));
    assert_eq!(
        home.root_element().value().attr("lang"),
        Some("es"),
        "<html lang>"
    );
    let intro = crate::support::texts(&home, "section.intro").join(" ");
    assert!(intro.contains("Te damos la bienvenida"), "{intro}");
    let menu = crate::support::texts(&home, ".site-nav a");
    assert!(menu.contains(&"Inicio".to_owned()), "{menu:?}");
    assert!(menu.contains(&"Únete o visítanos".to_owned()), "{menu:?}");
    let (_, join) = crate::support::page(&site.join("output/join/index.html"));
    assert_eq!(
        crate::support::texts(&join, "main h1"),
        ["Únete o visítanos"]
    );
    let body = crate::support::texts(&join, "main h2");
    assert!(body.contains(&"Visitas".to_owned()), "{body:?}");
}

/// Every built-in language has its starter; one that is not is refused before anything is
/// written, naming those available.
#[test]
fn init_speaks_every_built_in_language_and_refuses_others() {
    // The steps printed at the end are in the language too, the commands as they are
    // (issue 40).
    for (language, title, next) in [
        (
            "en",
            "Join or visit",
            "next:\n  vatcar-site serve --demo    preview the site with sample data\n",
        ),
        (
            "fr",
            "Nous rejoindre ou nous rendre visite",
            "ensuite\u{a0}:\n  vatcar-site serve --demo    aperçu du site avec des données d’exemple\n",
        ),
        (
            "nl",
            "Lid worden of op bezoek komen",
            "volgende stappen:\n  vatcar-site serve --demo    bekijk de site met voorbeeldgegevens\n",
        ),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let Ran { status, stderr, .. } = init(tmp.path(), &["--language", language]);
        assert!(status.success(), "{language}: {stderr}");
        assert!(stderr.contains(next), "{language}: {stderr}");
        assert!(
            stderr.contains("VATCAR_API_KEY=... vatcar-site check    ")
                && stderr.contains(".github/workflows/site.yml"),
            "{language}: {stderr}"
        );
        let config = fs::read_to_string(tmp.path().join("vatcar-site.toml")).unwrap();
        assert!(config.contains(&format!("\nlanguage = \"{language}\"\n")));
        let join = fs::read_to_string(tmp.path().join("content/join.md")).unwrap();
        assert!(join.contains(&format!("title = \"{title}\"")), "{join}");
        // No sentence of ours in English (issue 50, item 5): every line but the commands and
        // paths comes from the language's catalogue.
        for english in [
            "wrote",
            "site folder",
            " files ",
            "next:",
            "preview",
            "publish:",
        ]
        .iter()
        .filter(|_| language != "en")
        {
            assert!(
                !stderr.contains(english),
                "{language}: {english:?} in {stderr}"
            );
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    let Ran { status, stderr, .. } = init(tmp.path(), &["--language", "pt"]);
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("en, es, fr, nl"), "{stderr}");
    assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 0);
}

/// `fetch` with no `--output` saves into `snapshot/`, which the `.gitignore` init writes
/// keeps out of git: a snapshot holds every member's e-mail address.
#[test]
fn a_fetched_snapshot_lands_where_gitignore_keeps_it_out() {
    let tmp = tempfile::tempdir().unwrap();
    run_ok(vatcar_at_demo_time(&["init", "-q"]).current_dir(tmp.path()));
    let server = crate::support::demo_api();
    run_ok(
        vatcar_at_demo_time(&["fetch"])
            .current_dir(tmp.path())
            .against(&server),
    );
    assert!(tmp.path().join("snapshot/facility-roster.json").is_file());
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(tmp.path())
        .status();
    if !git.is_ok_and(|s| s.success()) {
        eprintln!("skipped the git half: git is not installed");
        let ignored = fs::read_to_string(tmp.path().join(".gitignore")).unwrap();
        assert!(ignored.contains("\n/snapshot/\n"), "{ignored}");
        return;
    }
    let check = std::process::Command::new("git")
        .args(["check-ignore", "-q", "snapshot/facility-roster.json"])
        .current_dir(tmp.path())
        .status()
        .unwrap();
    assert!(check.success(), "git would add snapshot/");
}
