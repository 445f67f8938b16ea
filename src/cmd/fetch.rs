//! `vatcar-site fetch`: the API's raw responses saved to a snapshot folder, to build from
//! later with `--snapshot`; `build --save-snapshot` saves the same way.

use super::args::FetchArgs;
use super::progress::Progress;
use crate::fetch::endpoint::Endpoint;
use crate::fetch::load::{self, Source};
use crate::fetch::snapshot::Snapshot;
use crate::output::OutputFile;
use crate::publish;
use crate::secret::ApiKey;
use crate::settings::Settings;
use anyhow::{Context, Result};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

pub(crate) fn run(
    args: &FetchArgs,
    config: &Settings,
    progress: &Arc<Progress>,
    key: Option<&ApiKey>,
    started: Instant,
) -> Result<()> {
    let source = Source::Api(args.api.client_options(config, progress.clone())?);
    let publishing =
        publish::PublishOptions::new(publish::FolderKind::Snapshot, args.force).waiting(args.wait);
    publish::check_and_recover(&args.output, publishing)
        .with_context(|| format!("could not save the snapshot in {}", args.output.display()))?;
    let mut cids = args.cids.clone();
    let mut seen = std::collections::HashSet::new();
    cids.retain(|cid| seen.insert(*cid));
    let students = cids
        .iter()
        .flat_map(|&cid| [Endpoint::User(cid), Endpoint::UserNotes(cid)]);
    let endpoints: Vec<Endpoint> = Endpoint::SITE.into_iter().chain(students).collect();
    let mut snapshot: Snapshot = load::raw(&source, &endpoints)?;
    // The bookings list too, for the live page of a build from this snapshot.
    if config.sections.live {
        let url = &config.live.bookings.url;
        let fetched = match crate::fetch::public::may_read(url) {
            true => crate::fetch::bookings::fetch(url),
            false => Err(crate::fetch::public::https_rule("the bookings list")),
        };
        match fetched.and_then(|body| crate::model::bookings::decode_bookings(&body).map(|_| body))
        {
            Ok(body) => snapshot.insert_file(crate::fetch::bookings::FILE, body),
            Err(reason) => log::warn!(
                "Live: the bookings list was not saved ({reason}); a build from this snapshot says bookings are unavailable. Check [live] bookings in vatcar-site.toml, or fetch again later"
            ),
        }
    }
    // Decoding now means a snapshot that cannot build (or report) is found today, not at
    // the next build.
    let data = crate::model::decode_site(&snapshot).context("the fetched data would not build")?;
    // The events' banners too, so that a build from this snapshot serves them with no
    // network (as it serves them from the API's, `banners = "local"`).
    if config.banners == crate::settings::BannerSource::Local {
        let base_url = super::options::api_base(&source)?;
        let addresses = super::side_reads::banner_addresses(config, &data, &base_url);
        let secrets = super::guarded(key);
        let (saved, unserved) = crate::fetch::banners::read_for_snapshot(&addresses, &secrets);
        if let Some(warning) = super::side_reads::unserved_warning(&unserved, &base_url) {
            log::warn!("{warning}; the snapshot holds no copy of them");
        }
        if !saved.is_empty() {
            snapshot.insert_banners(saved);
        }
    }
    for &cid in &cids {
        let decoded = || -> Result<()> {
            crate::model::decode_user(cid, snapshot.body(Endpoint::User(cid))?)?;
            crate::model::decode_notes(cid, snapshot.body(Endpoint::UserNotes(cid))?)?;
            Ok(())
        };
        decoded()
            .with_context(|| format!("the fetched data of CID {cid} would not make a report"))?;
    }
    save_snapshot(&snapshot, &args.output, args.force, args.wait, key)?;
    progress.done(&format!(
        "saved {} responses into {} in {:.2} s",
        endpoints.len(),
        args.output.display(),
        started.elapsed().as_secs_f64()
    ));
    Ok(())
}

/// Writes `snapshot` to `dir`, with the same all-or-nothing care as a site build. A body
/// that holds the key (a server echoing it) stops the whole snapshot: bodies are saved
/// exactly as sent, never rewritten.
pub fn save_snapshot(
    snapshot: &Snapshot,
    dir: &Path,
    force: bool,
    wait: bool,
    key: Option<&ApiKey>,
) -> Result<()> {
    let files: Vec<OutputFile> = snapshot
        .files()
        .into_iter()
        .map(|(name, bytes)| OutputFile::new(name, bytes))
        .collect();
    let secrets = super::guarded(key);
    let publishing = publish::PublishOptions::new(publish::FolderKind::Snapshot, force)
        .guarding(&secrets)
        .waiting(wait);
    publish::publish(dir, &files, publishing)
        .with_context(|| format!("could not save the snapshot in {}", dir.display()))?;
    Ok(())
}
