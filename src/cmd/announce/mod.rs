//! `vatcar-site announce`: what the last build found new, posted to a Discord webhook.
//!
//! The build decides what is new: an entry of `data/changes.json` is new when the previous
//! build's (the live site's, in CI) did not have it. Announce posts exactly those, and writes
//! nothing. Run after the deploy, that makes it post once and only when live (docs/discord.md
//! says why): a failed deploy stops the job before announce, and the next run, built against
//! the same old live site, finds the same changes new again; once a site is live, its
//! `changes.json` is the next build's previous state, so nothing is new twice: the build reads
//! it past the CDN's cache (`fetch::public::Reader::fresh`), which would otherwise hand a run
//! started minutes after a deploy the state before it, and the same changes as new again.
//!
//! `changes.rs` reads the file, `embeds.rs` makes the messages, `webhook.rs` posts them.

mod changes;
mod embeds;
mod webhook;

use super::args::AnnounceArgs;
use super::progress::{Progress, count};
use crate::settings::Settings;
use anyhow::{Context, Result};
use changes::Change;
use std::sync::Arc;

pub(crate) use webhook::Webhook;

pub(crate) fn run(args: &AnnounceArgs, config: &Settings, progress: &Arc<Progress>) -> Result<()> {
    // The address is read (and known to the logger) before anything else can print: a dry run
    // needs none, but one that is set is still a secret.
    let webhook = match webhook::Webhook::from_env(&args.webhook_env) {
        Ok(webhook) => Some(webhook),
        Err(_) if args.dry_run => None,
        Err(error) => return Err(error),
    };
    let output = &config.output_folder();
    let found = changes::read(output)?;
    let file = output.join(changes::PATH);
    let new: Vec<&Change> = found.changes.iter().filter(|c| c.new).collect();
    // Posted once a month as a change is once: the build marks it new only when the
    // previous build (the live site's) carried another month's.
    let summary = (found.summary.as_ref()).filter(|s| s.new && !found.first_build);
    if found.first_build && !args.backlog {
        progress.done(&format!(
            "{}: a first build (no previous build to compare with), so its history ({}) is not news; nothing was posted (--backlog posts it)",
            file.display(),
            count(new.len(), "change")
        ));
        return Ok(());
    }
    if new.is_empty() && summary.is_none() {
        progress.done(&format!(
            "{}: nothing new since the previous build; nothing was posted",
            file.display()
        ));
        return Ok(());
    }
    let colour = accent(config)?;
    let messages = embeds::messages(&new, colour);
    let summary = summary.map(|s| {
        let site = found.site_url.as_deref();
        (s, embeds::summary_message(s, site, colour, found.generated))
    });
    match webhook {
        Some(webhook) if !args.dry_run => {
            let mut poster = webhook::Poster::new(webhook)?;
            if !new.is_empty() {
                post(&mut poster, &messages, &new, &args.webhook_env, progress)?;
            }
            if let Some((summary, message)) = summary {
                poster.post(&message).with_context(|| {
                    format!(
                        "could not post the activity summary of {} to the webhook in {}{}",
                        summary.month,
                        args.webhook_env,
                        if new.is_empty() {
                            ""
                        } else {
                            " (the changes above were posted)"
                        }
                    )
                })?;
                progress.done(&format!(
                    "posted the activity summary of {} to the webhook in {}",
                    summary.month, args.webhook_env
                ));
            }
            Ok(())
        }
        _ => {
            if !new.is_empty() {
                print_dry_run(&messages, &new, colour);
            }
            let mut also = String::new();
            if let Some((summary, message)) = &summary {
                print_summary(summary, message);
                also = " and the activity summary of the month".to_owned();
            }
            progress.done(&format!(
                "would post {} in {}{also}; nothing was sent (--dry-run)",
                count(new.len(), "change"),
                count(messages.len(), "message")
            ));
            Ok(())
        }
    }
}

/// The monthly summary as Discord would get it (escaped), each line after a mark of ours:
/// none of its text, from the API, starts or ends a line.
fn print_summary(summary: &changes::Summary, message: &embeds::Message) {
    use crate::sanitize::quote::one_line;
    let mut text = format!("activity summary of {} (1 embed):\n", summary.month);
    for embed in &message.embeds {
        text.push_str(&format!("  title: {}\n", one_line(&embed.title)));
        for line in embed.description.iter().flat_map(|d| d.lines()) {
            text.push_str(&format!("  | {}\n", one_line(line)));
        }
    }
    super::console::print_lines(text.trim_end_matches('\n'));
}

fn post(
    poster: &mut webhook::Poster,
    messages: &[embeds::Message],
    new: &[&Change],
    variable: &str,
    progress: &Progress,
) -> Result<()> {
    let mut posted = 0;
    for (index, message) in messages.iter().enumerate() {
        poster
            .post(message)
            .with_context(|| failed(index, messages.len(), posted, new, variable))?;
        posted += message.embeds.len();
        progress.step(&format!(
            "posted message {} of {} ({})",
            index + 1,
            messages.len(),
            count(message.embeds.len(), "change")
        ));
    }
    progress.done(&format!(
        "posted {} in {} to the webhook in {variable}",
        count(posted, "change"),
        count(messages.len(), "message")
    ));
    Ok(())
}

/// What a post that failed leaves: which changes were posted, and which were not (the
/// first ten of them named).
fn failed(index: usize, messages: usize, posted: usize, new: &[&Change], variable: &str) -> String {
    let left = (new[posted..].iter())
        .map(|c| format!("{:?}", crate::sanitize::quote::excerpt(&c.title, 80)));
    let left = crate::sanitize::quote::first_few(left, 10);
    let before = if posted == 0 {
        "nothing was posted".to_owned()
    } else {
        format!(
            "{posted} of {} changes were posted before it (announcing again would post those again)",
            new.len()
        )
    };
    format!(
        "could not post message {} of {messages} to the webhook in {variable}; {before}; not posted: {}",
        index + 1,
        left
    )
}

/// The colour of every embed: the site's accent, or the built-in theme's.
fn accent(config: &Settings) -> Result<u32> {
    let chosen = (config.accent.as_ref()).map_or(embeds::DEFAULT_ACCENT, |c| &c.0);
    // The config checked it as it was read.
    embeds::colour(chosen).map_err(anyhow::Error::msg)
}

/// What would be posted, message by message, on stdout: each change numbered, its title as
/// Discord would get it (escaped), its kind, time and link. The number starts the line: a
/// title is text from the API and the site folder, and shown on one line after it, it can
/// neither start a line nor end one.
fn print_dry_run(messages: &[embeds::Message], new: &[&Change], colour: u32) {
    use crate::sanitize::quote::one_line;
    let mut text = String::new();
    let mut changes = new.iter();
    let mut number = 0;
    for (index, message) in messages.iter().enumerate() {
        text.push_str(&format!(
            "message {} of {} ({}, colour #{colour:06x}):\n",
            index + 1,
            messages.len(),
            count(message.embeds.len(), "embed")
        ));
        for (embed, change) in message.embeds.iter().zip(&mut changes) {
            number += 1;
            let indent = " ".repeat(number.to_string().len() + 4);
            text.push_str(&format!(
                "  {number}. {}\n{indent}{}  {}  {}\n",
                one_line(&embed.title),
                change.kind,
                embed.timestamp,
                embed.url.as_deref().map_or(
                    "(no link: the site was built without --site-url)".into(),
                    one_line
                )
            ));
        }
    }
    super::console::print_lines(text.trim_end_matches('\n'));
}
