//! `completions`: the scripts complete in a real shell, past the subcommand too.

use crate::support::{run, run_ok, vatcar};
use std::path::Path;
use std::process::Command;

/// What bash offers for `line` (the last word is the one being completed), from the script
/// `vatcar-site completions bash` writes, sourced in a bash without any start-up file.
fn bash_offers(script: &Path, line: &str) -> Vec<String> {
    let words: Vec<&str> = line.split(' ').collect();
    let cword = words.len() - 1;
    let prev = if cword > 0 { words[cword - 1] } else { "" };
    // The function is called as bash's `complete -F` calls it: command, current word, previous.
    let program = format!(
        "source {script}; COMP_WORDS=({words}); COMP_CWORD={cword}; \
         _vatcar__site vatcar-site '{cur}' '{prev}'; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script = script.display(),
        words = words.join(" "),
        cur = words[cword],
    );
    let ran = run(Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &program])
        .env_remove("BASH_ENV"));
    assert!(ran.status.success(), "{}", ran.text());
    ran.stdout
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn bash_completes_subcommands_and_their_options() {
    let tmp = tempfile::tempdir().unwrap();
    let script = tmp.path().join("vatcar-site.bash");
    std::fs::write(
        &script,
        run_ok(&mut vatcar(&["completions", "bash"])).stdout,
    )
    .unwrap();

    assert_eq!(bash_offers(&script, "vatcar-site bu"), ["build"]);
    assert_eq!(bash_offers(&script, "vatcar-site build --de"), ["--demo"]);
    assert_eq!(bash_offers(&script, "vatcar-site serve --por"), ["--port"]);
    assert_eq!(
        bash_offers(&script, "vatcar-site serve --po"),
        ["--port", "--poll"]
    );
    assert_eq!(bash_offers(&script, "vatcar-site ann"), ["announce"]);
    assert_eq!(
        bash_offers(&script, "vatcar-site announce --"),
        [
            "--output",
            "--webhook-env",
            "--dry-run",
            "--backlog",
            "--config",
            "--verbose",
            "--quiet",
            "--help"
        ]
    );
    assert_eq!(
        bash_offers(&script, "vatcar-site report training --ci"),
        ["--cid", "--cids-file"]
    );
    assert_eq!(
        bash_offers(&script, "vatcar-site templates export --fo"),
        ["--force"]
    );
    let check = bash_offers(&script, "vatcar-site check --");
    assert!(
        check.contains(&"--snapshot".to_owned()) && !check.contains(&"--site-url".to_owned()),
        "{check:?}"
    );
}

/// What zsh offers for `line` typed at an interactive prompt followed by a Tab, driven
/// through a pseudo-terminal (zsh/zpty), with the script `vatcar-site completions zsh` writes
/// on `fpath`. Each candidate zsh adds is printed by a wrapper around `compadd`.
fn zsh_offers(dir: &Path, line: &str) -> Vec<String> {
    let driver = format!(
        r#"zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z 'PROMPT= ; fpath=({dir} $fpath); autoload -U compinit; compinit -u -D'
zpty -w z 'compadd () {{ builtin compadd -O __hits "$@"; print -rl -- "${{^__hits[@]/#/OFFER:}}"; builtin compadd "$@" }}'
zpty -w z $'{line}\t'
zpty -w z $'\C-u print END-OF-OFFERS\n'
while zpty -r z out; do
  print -rn -- "$out"
  [[ $out == END-OF-OFFERS* ]] && break
done
"#,
        dir = dir.display(),
    );
    // The deadline only ends a zsh that went astray; no assertion depends on timing.
    let ran = run(Command::new("timeout")
        .args(["60", "zsh", "-f", "-c", &driver])
        .env("HOME", dir));
    assert!(ran.status.success(), "{}", ran.text());
    let mut offers: Vec<String> = ran
        .stdout
        .lines()
        // zle may echo the typed line in front of the first offer; the echo of the wrapper's
        // own definition holds the marker too, followed by no candidate.
        .filter_map(|l| l.trim_end_matches('\r').split_once("OFFER:"))
        .map(|(_, offer)| offer.to_owned())
        .filter(|offer| offer.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-'))
        .collect();
    offers.sort();
    offers.dedup();
    offers
}

#[test]
fn zsh_completes_subcommands_and_their_options() {
    let zpty = Command::new("zsh")
        .args(["-f", "-c", "zmodload zsh/zpty"])
        .output();
    if !zpty.is_ok_and(|out| out.status.success()) {
        eprintln!("zsh with zsh/zpty is not installed: the zsh completion was not tried");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("_vatcar-site"),
        run_ok(&mut vatcar(&["completions", "zsh"])).stdout,
    )
    .unwrap();

    assert!(zsh_offers(tmp.path(), "vatcar-site bu").contains(&"build".to_owned()));
    assert_eq!(zsh_offers(tmp.path(), "vatcar-site build --de"), ["--demo"]);
    assert_eq!(
        zsh_offers(tmp.path(), "vatcar-site report training --ci"),
        ["--cid", "--cids-file"]
    );
}
