//! `[activity]` in a build: what is known of the members' sessions (the copy kept beside the
//! output folder, and the previous build's data/activity.json, from the output folder or the
//! published site), then, for a build from the API, the members read longest ago read again
//! within the request budget ([`crate::fetch::activity`], each page decoded by
//! [`crate::model::activity`]), and the whole kept for the next build. Nothing here stops a
//! build: what cannot be read is a warning, and those members show as unknown.

use super::options::BuildOptions;
use crate::fetch::activity::{Outcome, PAGE_SIZE, Plan, Verdict, read_sessions};
use crate::fetch::load::Source;
use crate::fetch::previous::{PreviousSource, read_activity};
use crate::model::Roster;
use crate::model::activity::{Activity, Session, decode_page, window_start};
use crate::model::previous::Origin;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// The members' sessions for the view; `None` with `[activity]` off.
pub(super) fn activity(options: &BuildOptions, roster: &Roster) -> Option<Arc<Activity>> {
    let settings = &options.settings.activity;
    if !settings.enabled {
        return None;
    }
    let now = options.build_time;
    let start = window_start(now, settings.window_days.0);
    let members: Vec<u64> = (roster.controllers.iter())
        .chain(&roster.visitors)
        .map(|m| m.cid)
        .collect();
    if matches!(options.source, Source::Demo) {
        // The demo reads no one's sessions: its sample (demo/activity.json) shows what a
        // facility's would, and nothing is kept for a next build.
        return Some(Arc::new(demo_sample()));
    }
    let origin = Origin::of(roster, options.demo_data);
    let mut known = kept(options, &origin);
    if let Source::Api(_) = options.source {
        read_more(options, &members, &mut known);
    }
    known.keep(&members.iter().copied().collect(), start);
    let bytes = known.encode(now, settings.window_days.0, &origin);
    if let Err(reason) = crate::fetch::activity::write_kept(&options.output, &bytes) {
        log::warn!("Activity: {reason}; the next build reads again what this one read");
    }
    let checked = members.iter().filter(|c| known.was_checked(**c)).count();
    log::info!(
        "activity: {checked} of {} members' hours known",
        members.len()
    );
    Some(Arc::new(known))
}

/// The demo's sample of its members' sessions, as a build keeps them.
pub(super) fn demo_sample() -> Activity {
    let (sample, _) = Activity::decode(crate::fetch::snapshot::DEMO_ACTIVITY)
        .expect("demo/activity.json is an activity file (a unit test reads it)");
    sample
}

/// What earlier builds of the same facility knew: the copy kept beside the output folder and
/// the previous build's data/activity.json (the published site's with `previous`), together.
fn kept(options: &BuildOptions, origin: &Origin) -> Activity {
    let previous = match &options.settings.previous {
        Some(url) => PreviousSource::Site(url.0.clone()),
        None => PreviousSource::Folder(options.output.clone()),
    };
    let kept = kept_from(&options.output, &[previous], origin);
    for (what, why) in &kept.left_out {
        log::warn!("Activity: {what} {why}; the sessions are read again from VATSIM");
    }
    kept.activity
}

/// The sessions kept by earlier builds, as [`kept_from`] finds them.
#[derive(Default)]
pub(super) struct Kept {
    /// Every file's members and sessions, merged.
    pub activity: Activity,
    /// The files read, as messages name them.
    pub read: Vec<String>,
    /// The files there that were left out, and why, for the caller's warning.
    pub left_out: Vec<(String, String)>,
}

/// The sessions kept beside the site's output folder `output` (the cache's copy) and in the
/// data/activity.json of each of `published`, merged: each member's sessions once, with the
/// latest of each read. A file that is not there is not said; one that cannot be read, or
/// that was made from other data than `origin`'s (the demo's, another facility's: its
/// members' CIDs may be this roster's, as What's new leaves out such a previous build), is
/// left out and named in `left_out`.
pub(super) fn kept_from(output: &Path, published: &[PreviousSource], origin: &Origin) -> Kept {
    let mut kept = Kept::default();
    let mut add = |what: String, read: Result<Option<Vec<u8>>, String>| {
        let decoded = read.and_then(|body| body.map(|b| Activity::decode(&b)).transpose());
        match decoded {
            Ok(Some((activity, made_from))) => match origin.differs_from(&made_from) {
                None => {
                    kept.activity.merge(activity);
                    kept.read.push(what);
                }
                Some(why) => kept
                    .left_out
                    .push((what, format!("{why}, and is left out"))),
            },
            Ok(None) => {}
            Err(reason) => kept
                .left_out
                .push((what, format!("could not be read ({reason})"))),
        }
    };
    let cache = crate::fetch::activity::cache_file(output);
    add(
        cache.display().to_string(),
        crate::fetch::activity::read_kept(output),
    );
    for place in published {
        let what = format!("{place}'s {}", crate::fetch::previous::ACTIVITY);
        add(what, read_activity(place));
    }
    kept
}

/// The members read longest ago (or never) read now, within the budget, into `known`.
fn read_more(options: &BuildOptions, members: &[u64], known: &mut Activity) {
    let settings = &options.settings.activity;
    let now = options.build_time;
    let start = window_start(now, settings.window_days.0);
    let order = known.reading_order(members);
    let plan = Plan {
        api: &settings.api.0,
        members: &order,
        budget: settings.requests.0,
        interval: Duration::from_secs_f64(settings.interval_seconds.0),
        timeout: Duration::from_secs_f64(options.settings.timeout.0),
    };
    let mut read: HashMap<u64, Vec<Session>> = HashMap::new();
    let mut skipped = 0;
    let reads = read_sessions(&plan, &mut |cid, body, offset| {
        let page = match decode_page(body, cid) {
            Ok(page) => page,
            Err(reason) => return Verdict::Unreadable(reason),
        };
        skipped += page.skipped;
        let next = offset + page.items as u64;
        // Stops: an empty page; a session that began before the window (newest first, the
        // rest are older); a member read before whose page holds no session it did not know;
        // the last page, by the count or a short page.
        let all_known =
            known.was_checked(cid) && page.sessions.iter().all(|s| known.knows(cid, s.id));
        let last = match page.count {
            Some(count) => next >= count,
            None => (page.items as u64) < PAGE_SIZE,
        };
        let before_window = page.earliest_start.is_some_and(|s| s < start);
        read.entry(cid).or_default().extend(page.sessions);
        if page.items == 0 || before_window || all_known || last {
            Verdict::Done
        } else {
            Verdict::More { offset: next }
        }
    });
    let mut failed = Vec::new();
    for (cid, outcome) in reads.outcomes {
        match outcome {
            Outcome::Complete => known.record(cid, read.remove(&cid).unwrap_or_default(), now),
            Outcome::Failed(reason) => {
                known.tried(cid, now);
                failed.push(format!("{cid}: {reason}"));
            }
            Outcome::Unfinished => known.tried(cid, now),
        }
    }
    log::info!(
        "activity: {} requests to the Core API (budget {})",
        reads.requests,
        plan.budget
    );
    if skipped > 0 {
        log::warn!(
            "Activity: {skipped} of the Core API's sessions could not be read and are left out"
        );
    }
    if !failed.is_empty() {
        log::warn!(
            "Activity: the sessions of {} member(s) could not be read ({}); they show as unknown until a build reads them",
            failed.len(),
            failed.join("; ")
        );
    }
    if let Some(reason) = reads.stopped {
        log::warn!(
            "Activity: reading stopped early ({reason}); the next build goes on with the members not read"
        );
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_demos_sample_reads_whole_and_leaves_some_members_unread() {
        let sample = super::demo_sample();
        let roster: serde_json::Value =
            serde_json::from_slice(include_bytes!("../../demo/facility-roster.json")).unwrap();
        let data = &roster["data"];
        let members: Vec<u64> = (data["controllers"].as_array().unwrap().iter())
            .chain(data["visitors"].as_array().unwrap())
            .map(|m| m["cid"].as_u64().unwrap())
            .collect();
        let read = members.iter().filter(|c| sample.was_checked(**c)).count();
        assert!(
            read >= members.len() - 5 && read < members.len(),
            "{read} of {}",
            members.len()
        );
        assert!(sample.members.keys().all(|cid| members.contains(cid)));
    }
}
