//! Errors where the webmaster looks when the site is built by GitHub Actions
//! (`GITHUB_ACTIONS=true`): every error and warning with a file and line is also printed as a
//! workflow command (`::error file=content/join.md,line=12,col=5::...`), which GitHub shows on
//! the file in the pull request's diff, and the build's outcome is added to the job's summary
//! page (`$GITHUB_STEP_SUMMARY`).
//!
//! What is printed here passes the console's door like every other line; the summary's
//! lines are made safe the same way.

use super::console;
use crate::problems::{CAP, ConfigMistakes, Problem, Problems};
use std::io::Write;
use std::path::Path;

/// Whether this run is a step of a GitHub Actions job.
pub fn in_actions() -> bool {
    std::env::var_os("GITHUB_ACTIONS").is_some_and(|v| v == "true")
}

/// Prints `problem` as the workflow command `command` (`error` or `warning`), when it has a
/// file and a line (an annotation without them shows on no file, and the message is printed
/// anyway).
pub fn annotate(command: &str, problem: &Problem) {
    let Some(line) = problem.line.filter(|_| !problem.file.is_empty()) else {
        return;
    };
    let mut properties = format!(
        "file={},line={line}",
        property(&workspace_path(&problem.file))
    );
    if let Some(column) = problem.column {
        properties.push_str(&format!(",col={column}"));
    }
    console::workflow_command(command, &properties, &problem.message);
}

/// Annotates every problem an error holds (as many as it prints), or the error itself when
/// its message starts with a file and line.
pub fn annotate_error(error: &anyhow::Error) {
    let problems = (error.chain().find_map(|e| e.downcast_ref::<Problems>()))
        .map(Problems::all)
        .or_else(|| {
            let mistakes = error
                .chain()
                .find_map(|e| e.downcast_ref::<ConfigMistakes>());
            mistakes.map(|mistakes| mistakes.0.as_slice())
        });
    if let Some(problems) = problems {
        for problem in problems.iter().take(CAP) {
            annotate("error", problem);
        }
    } else if let Some(problem) = located(&error.to_string()) {
        annotate("error", &problem);
    }
}

/// A message that starts with where it is (`content/join.md:12:5: ...`, as the program
/// writes them) as a problem at that place; `None` for any other.
pub fn located(message: &str) -> Option<Problem> {
    let first = message.lines().next()?;
    // The place ends at the first ": " after a `:line` (a path may hold a colon, a drive's).
    for (colon, _) in first.match_indices(':') {
        let (file, rest) = (&first[..colon], &first[colon + 1..]);
        let (numbers, text) = rest.split_once(": ")?;
        let mut numbers = numbers.split(':').map(str::parse::<usize>);
        let (Some(Ok(line)), column) = (numbers.next(), numbers.next()) else {
            continue;
        };
        if file.is_empty() || file.contains(' ') && !Path::new(file).exists() {
            return None;
        }
        if numbers.next().is_some() {
            continue;
        }
        let Ok(column) = column.transpose() else {
            continue;
        };
        let text = message[colon + 1..]
            .split_once(": ")
            .map_or(text, |(_, all)| all);
        return Some(Problem::at(file, line, column, text));
    }
    None
}

/// A file's path as GitHub names it: relative to the repository's folder (the workspace),
/// or to the working folder, with `/`.
fn workspace_path(file: &str) -> String {
    let path = Path::new(file);
    let bases = [
        std::env::var_os("GITHUB_WORKSPACE").map(std::path::PathBuf::from),
        std::env::current_dir().ok(),
    ];
    let relative = bases
        .iter()
        .flatten()
        .filter_map(|base| {
            let base = base.canonicalize().unwrap_or_else(|_| base.clone());
            let full = std::path::absolute(path).ok()?;
            let full = full.canonicalize().unwrap_or(full);
            full.strip_prefix(base).ok().map(Path::to_path_buf)
        })
        .next()
        .unwrap_or_else(|| path.to_path_buf());
    relative
        .to_string_lossy()
        .replace('\\', "/")
        .trim_start_matches("./")
        .to_owned()
}

/// A workflow command's property value, escaped: also `:` and `,`, which end it.
fn property(text: &str) -> String {
    console::command_data(text)
        .replace(':', "%3A")
        .replace(',', "%2C")
}

/// What a build's summary says.
pub struct BuildSummary<'a> {
    pub pages: usize,
    pub calendars: usize,
    pub warnings: usize,
    /// The site's address, when it has one.
    pub site_url: Option<&'a str>,
    /// The build's error, when it failed.
    pub error: Option<&'a anyhow::Error>,
}

/// Appends the build's summary to `$GITHUB_STEP_SUMMARY`, shown on the job's page.
pub fn summarize(summary: &BuildSummary) {
    let Some(file) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|f| !f.is_empty()) else {
        return;
    };
    let text = console::safe(&summary_text(summary));
    let written = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(&file)
        .and_then(|mut f| f.write_all(text.as_bytes()));
    if let Err(err) = written {
        log::warn!("could not write the step summary (GITHUB_STEP_SUMMARY): {err}");
    }
}

fn summary_text(summary: &BuildSummary) -> String {
    let mut text = String::from("## vatcar-site build\n\n");
    match summary.error {
        None => text.push_str("The site was built.\n\n"),
        Some(error) => {
            let problems = error.chain().find_map(|e| e.downcast_ref::<Problems>());
            let errors = super::progress::count(problems.map_or(1, |p| p.all().len()), "error");
            text.push_str(&format!("The build failed: {errors}.\n\n"));
            let lines: Vec<String> = match problems {
                Some(problems) => problems.all().iter().map(ToString::to_string).collect(),
                None => vec![format!("{error:#}")],
            };
            // A fence longer than any run of backticks in the messages holds them as text.
            text.push_str("```text\n");
            for line in lines.iter().take(CAP) {
                text.push_str(&line.replace("```", "'''"));
                text.push('\n');
            }
            if lines.len() > CAP {
                text.push_str(&format!("and {} more\n", lines.len() - CAP));
            }
            text.push_str("```\n\n");
        }
    }
    text.push_str("| | |\n|---|---|\n");
    if summary.error.is_none() {
        text.push_str(&format!("| Pages | {} |\n", summary.pages));
        text.push_str(&format!("| Calendars | {} |\n", summary.calendars));
    }
    text.push_str(&format!("| Warnings | {} |\n", summary.warnings));
    let address = match summary.site_url {
        Some(url) => format!("<{}>", url.replace(['<', '>', '|'], "")),
        None => "not set (--site-url or site_url)".to_owned(),
    };
    text.push_str(&format!("| Site | {address} |\n\n"));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn properties_are_escaped_as_github_reads_them() {
        assert_eq!(property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    }

    #[test]
    fn a_message_starting_with_its_place_is_located() {
        let found = located("vatcar-site.toml:12: recent_days: expected a whole number").unwrap();
        assert_eq!(
            (found.file.as_str(), found.line, found.column),
            ("vatcar-site.toml", Some(12), None)
        );
        assert_eq!(found.message, "recent_days: expected a whole number");
        let found = located("content/a.md:4:7: link @/x: no\nmore").unwrap();
        assert_eq!((found.line, found.column), (Some(4), Some(7)));
        assert_eq!(found.message, "link @/x: no\nmore");
        assert_eq!(located("could not publish to site: no"), None);
        assert_eq!(located("the API said: 404: not found"), None);
    }
}
