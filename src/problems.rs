//! The mistakes a build finds in the webmaster's files, gathered from every stage and reported
//! together: each with its file, line and column where it has them, sorted by place, up to
//! [`CAP`] of them. Every stage adds what it finds to a list instead of stopping at the first,
//! so that three broken links take one build to find, not three.
//!
//! The command line prints the list, and in GitHub Actions also each problem with a place as
//! an annotation on the file (`cmd::github`).

use std::fmt;

/// The most problems printed; the rest are counted ("and 12 more").
pub const CAP: usize = 50;

/// One mistake, and where it is; problems sort by file, line, column and message.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Problem {
    /// The file (`content/join.md`), or empty for a problem of no one file.
    pub file: String,
    /// From 1.
    pub line: Option<usize>,
    /// From 1, in characters.
    pub column: Option<usize>,
    pub message: String,
}

impl Problem {
    /// A problem at a line (and a column) of `file`.
    pub fn at(
        file: impl Into<String>,
        line: usize,
        column: Option<usize>,
        message: impl Into<String>,
    ) -> Self {
        Problem {
            file: file.into(),
            line: Some(line),
            column,
            message: message.into(),
        }
    }

    /// A problem of a whole file.
    pub fn in_file(file: impl Into<String>, message: impl Into<String>) -> Self {
        Problem {
            file: file.into(),
            line: None,
            column: None,
            message: message.into(),
        }
    }

    /// A problem at `origin`, a file and its line as the settings and the theme write them
    /// (`vatcar-site.toml:12`, `content/join.md:3`), or a file alone.
    pub fn from_origin(origin: &str, message: impl Into<String>) -> Self {
        match origin.rsplit_once(':') {
            Some((file, line)) if !file.is_empty() => match line.parse() {
                Ok(line) => Problem::at(file, line, None, message),
                Err(_) => Problem::in_file(origin, message),
            },
            _ => Problem::in_file(origin, message),
        }
    }

    /// A problem of no one file.
    pub fn other(message: impl Into<String>) -> Self {
        Problem::in_file("", message)
    }

    /// Where it is, as compilers write it: `content/join.md:12:5`, or empty. A file's name
    /// that could end or start a line is quoted (`"content/nl\n::x.md":3`).
    pub fn place(&self) -> String {
        let mut place = crate::sanitize::quote::path(&self.file).into_owned();
        for number in [self.line, self.column].into_iter().map_while(|n| n) {
            place.push_str(&format!(":{number}"));
        }
        place
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.place() {
            place if place.is_empty() => f.write_str(&self.message),
            place => write!(f, "{place}: {}", self.message),
        }
    }
}

impl std::error::Error for Problem {}

/// Every problem a build found: one error, printed one problem a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problems {
    all: Vec<Problem>,
    /// Some are the config file's mistakes: a mistake in how the program is called (exit 2).
    in_config: bool,
}

impl Problems {
    /// `problems` sorted by file, line and column (the problems of no one file first), and
    /// each once.
    pub fn new(mut problems: Vec<Problem>) -> Self {
        problems.sort();
        problems.dedup();
        Problems {
            all: problems,
            in_config: false,
        }
    }

    /// The config file's `mistakes` with the site's pages' `problems`.
    pub fn with_config(mistakes: &ConfigMistakes, problems: Vec<Problem>) -> Self {
        let all = mistakes.0.iter().cloned().chain(problems).collect();
        Problems {
            in_config: true,
            ..Problems::new(all)
        }
    }

    /// Whether some are the config file's: a usage error.
    pub fn in_config(&self) -> bool {
        self.in_config
    }

    /// All of them, sorted.
    pub fn all(&self) -> &[Problem] {
        &self.all
    }

    /// `Err` of them all, or `Ok` when there is none.
    pub fn check(problems: Vec<Problem>) -> anyhow::Result<()> {
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Problems::new(problems).into())
        }
    }
}

impl fmt::Display for Problems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let files = match self.in_config {
            true => "the config file and the site's pages",
            false => "the site's pages",
        };
        match self.all.as_slice() {
            [one] => return write!(f, "{one}"),
            all => write!(f, "{} problems with {files}:", all.len())?,
        }
        for problem in self.all.iter().take(CAP) {
            // A message of several lines (an example to copy) is indented under its dash.
            let text = problem.to_string();
            let mut lines = text.split('\n');
            write!(f, "\n  - {}", lines.next().unwrap_or_default())?;
            for line in lines {
                match line {
                    "" => f.write_str("\n")?,
                    line => write!(f, "\n    {line}")?,
                }
            }
        }
        if self.all.len() > CAP {
            write!(f, "\n  and {} more", self.all.len() - CAP)?;
        }
        Ok(())
    }
}

impl std::error::Error for Problems {}

/// The config file's mistakes, every one at once, each at its line: a usage error, printed
/// one a line as `vatcar-site.toml:12: ...`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigMistakes(pub Vec<Problem>);

impl fmt::Display for ConfigMistakes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines: Vec<String> = self.0.iter().map(Problem::to_string).collect();
        f.write_str(&lines.join("\n"))
    }
}

impl std::error::Error for ConfigMistakes {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problems_are_sorted_by_place_and_cut_at_the_cap() {
        let mut list: Vec<Problem> = (1..=CAP + 3)
            .rev()
            .map(|line| Problem::at("content/b.md", line, None, "broken"))
            .collect();
        list.push(Problem::at("content/a.md", 2, Some(9), "second"));
        list.push(Problem::at("content/a.md", 2, Some(3), "first"));
        list.push(Problem::other("no file"));
        let text = Problems::new(list).to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            format!("{} problems with the site's pages:", CAP + 6)
        );
        assert_eq!(
            lines[1..5],
            [
                "  - no file",
                "  - content/a.md:2:3: first",
                "  - content/a.md:2:9: second",
                "  - content/b.md:1: broken",
            ]
        );
        assert_eq!(lines.len(), 1 + CAP + 1);
        assert_eq!(lines[CAP + 1], "  and 6 more");
    }

    #[test]
    fn one_problem_is_one_line() {
        let one = Problems::new(vec![Problem::in_file("content/a.md", "not UTF-8")]);
        assert_eq!(one.to_string(), "content/a.md: not UTF-8");
    }
}
