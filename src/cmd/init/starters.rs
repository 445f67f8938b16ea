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

/// The starter in `$language`, from the files in `$folder` beside this module.
macro_rules! starter {
    ($language:literal, $folder:literal) => {
        Starter {
            language: $language,
            config: include_str!(concat!($folder, "vatcar-site.toml")),
            home: include_str!(concat!($folder, "content/_index.md")),
            join: include_str!(concat!($folder, "content/join.md")),
            workflow: include_str!(concat!($folder, "workflow.yml")),
        }
    };
}

pub(super) const STARTERS: &[Starter] = &[
    starter!("en", ""),
    starter!("es", "es/"),
    starter!("fr", "fr/"),
    starter!("nl", "nl/"),
];

/// The languages `init --language` takes.
pub fn languages() -> impl Iterator<Item = &'static str> {
    STARTERS.iter().map(|s| s.language)
}
