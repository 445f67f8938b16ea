//! The config file, the example pages and the workflow `init` writes, in each language it
//! offers: the embedded files beside this module, and the list that `init --language` takes (which the
//! command line's definition reads, so it lives apart from the command).

/// The config file, the example pages and the workflow in one language: English at the top of
/// `init/`, the others in a folder named by their code. The comments and pages are the
/// webmaster's first reading, so each built-in language has them (a test holds the two lists
/// together). A workflow's translation is of its comments and the names of the workflow, its
/// jobs and its steps; tests/it/init.rs holds the rest to the English one.
pub(super) struct Starter {
    pub(super) language: &'static str,
    pub(super) config: &'static str,
    pub(super) home: &'static str,
    pub(super) join: &'static str,
    /// With the placeholders that [`super::workflow`] fills in.
    pub(super) workflow: &'static str,
}

pub(super) const STARTERS: &[Starter] = &[
    Starter {
        language: "en",
        config: include_str!("vatcar-site.toml"),
        home: include_str!("content/_index.md"),
        join: include_str!("content/join.md"),
        workflow: include_str!("workflow.yml"),
    },
    Starter {
        language: "es",
        config: include_str!("es/vatcar-site.toml"),
        home: include_str!("es/content/_index.md"),
        join: include_str!("es/content/join.md"),
        workflow: include_str!("es/workflow.yml"),
    },
    Starter {
        language: "fr",
        config: include_str!("fr/vatcar-site.toml"),
        home: include_str!("fr/content/_index.md"),
        join: include_str!("fr/content/join.md"),
        workflow: include_str!("fr/workflow.yml"),
    },
    Starter {
        language: "nl",
        config: include_str!("nl/vatcar-site.toml"),
        home: include_str!("nl/content/_index.md"),
        join: include_str!("nl/content/join.md"),
        workflow: include_str!("nl/workflow.yml"),
    },
];

/// The languages `init --language` takes.
pub fn languages() -> impl Iterator<Item = &'static str> {
    STARTERS.iter().map(|s| s.language)
}
