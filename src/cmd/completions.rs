//! `vatcar-site completions SHELL`: a completion script on stdout.

use super::args::Cli;
use clap::CommandFactory;

pub(crate) fn run(shell: clap_complete::Shell) {
    clap_complete::generate(
        shell,
        &mut Cli::command(),
        "vatcar-site",
        &mut std::io::stdout(),
    );
}
