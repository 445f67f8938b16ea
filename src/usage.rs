//! A mistake in how the program was called, whichever layer finds it: a flag, the config
//! file (a value it refuses, or a file it names that is not there, such as the logo), an
//! output folder inside a private one. The command line ends the run with exit code 2 for it
//! (`cmd::exit_code`), every other error with 1: the data, the network, and the
//! mistakes in the site's pages and templates (`crate::problems`), which are not the call's.

/// A usage mistake, said in the webmaster's words.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);
