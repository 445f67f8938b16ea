//! `vatcar-site completions SHELL`: a completion script on stdout.

use super::args::Cli;
use clap::CommandFactory;
use std::io::Write;

const BIN_NAME: &str = "vatcar-site";

pub(crate) fn run(shell: clap_complete::Shell) {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), BIN_NAME, &mut script);
    if shell == clap_complete::Shell::Bash {
        script = repair_bash(&String::from_utf8_lossy(&script)).into_bytes();
    }
    // A closed pipe (`completions bash | head`) is not worth a panic.
    let _ = std::io::stdout().write_all(&script);
}

/// clap_complete's bash script names the state of a subcommand one way where it walks the
/// words (`vatcar__site__subcmd__build`) and another in the `case` that offers its options
/// (`vatcar__subcmd__site__subcmd__build`): it escapes the hyphen of the program's name as a
/// subcommand separator there. No arm ever matches, so nothing after a subcommand completes
/// (clap-rs/clap#6421, #6529). The arms are renamed to the spelling the walk arrives at; once
/// clap_complete spells both alike, the broken spelling is absent and this changes nothing.
fn repair_bash(script: &str) -> String {
    let broken = BIN_NAME.replace('-', "__subcmd__");
    let walked = BIN_NAME.replace('-', "__");
    script.replace(&broken, &walked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_case_arms_take_the_spelling_the_word_walk_arrives_at() {
        let arm = "        vatcar__subcmd__site__subcmd__report__subcmd__training)\n";
        assert_eq!(
            repair_bash(arm),
            "        vatcar__site__subcmd__report__subcmd__training)\n"
        );
        let walk = "cmd=\"vatcar__site__subcmd__build\"\n";
        assert_eq!(repair_bash(walk), walk);
    }
}
