//! The members' ATC sessions, read from VATSIM's Core API (`GET {api}/v2/members/{cid}/atc
//! ?limit=&offset=`, newest first, no key) page by page within a budget of requests, one
//! request every `interval` (VATSIM allows about ten a minute), waiting as long as a 429's
//! `Retry-After` says; and the copy of what is known kept beside the output folder
//! (`.vatcar-site-cache/activity.json`), as the banners keep theirs.
//!
//! What a page holds, and when to stop, is the caller's to judge (it decodes with
//! `model::activity`, which this stage does not know): [`read_sessions`] asks it after each
//! page. What goes wrong is a reason for that member, never an error of the build.

use super::public::{Answer, Reader, https_rule, may_read};
use crate::secret::shown_url;
use std::path::{Path, PathBuf};
use std::time::Duration;
use url::Url;

/// Sessions asked for a page: a member's 90 days fit in one, mostly.
pub const PAGE_SIZE: u64 = 100;
/// The largest page read: a hundred sessions are about 30 KiB.
const MAX_BYTES: u64 = 4 * 1024 * 1024;
/// The longest wait a `Retry-After` is honoured for within a build; asked for longer, the
/// build stops reading and the next one goes on.
const MAX_RETRY_WAIT: Duration = Duration::from_secs(120);
/// The 429s in a row after which the build stops reading.
const MAX_REFUSALS: u32 = 3;
/// The wait after a 429 that gives no (readable) `Retry-After`.
const DEFAULT_RETRY_WAIT: Duration = Duration::from_secs(60);

/// The kept copy's file, in the cache folder beside the output folder.
const CACHE_FILE: &str = "activity.json";
/// The largest kept copy read back.
pub const MAX_KEPT_BYTES: u64 = 64 * 1024 * 1024;

/// What to read.
pub struct Plan<'a> {
    /// The Core API, with a trailing slash.
    pub api: &'a Url,
    /// The members, in the order to read them.
    pub members: &'a [u64],
    /// The most requests sent, 429s and retries among them.
    pub budget: u32,
    /// The wait between two requests.
    pub interval: Duration,
    /// How long one request may take.
    pub timeout: Duration,
}

/// What the caller makes of a page.
pub enum Verdict {
    /// Read the page at this offset next.
    More { offset: u64 },
    /// The member's sessions are read.
    Done,
    /// The page is not the Core API's answer.
    Unreadable(String),
}

/// How reading one member's sessions ended.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    Complete,
    Failed(String),
    /// Stopped part way (the budget, or the API asking to wait): what was read is not whole.
    Unfinished,
}

/// What a [`read_sessions`] did.
#[derive(Debug, Default)]
pub struct Reads {
    /// Each member tried, in order.
    pub outcomes: Vec<(u64, Outcome)>,
    /// Requests sent.
    pub requests: u32,
    /// Why reading stopped before the budget was spent or every member read, if it did.
    pub stopped: Option<String>,
}

/// Each member's pages in turn, each handed to `judge` (the member, the body, the offset it
/// was asked at), until the members or the budget run out. Never more than `plan.budget`
/// requests; a wait of `plan.interval` before each but the first, and of a 429's
/// `Retry-After` (seconds or an HTTP date) after it.
pub fn read_sessions(plan: &Plan, judge: &mut dyn FnMut(u64, &[u8], u64) -> Verdict) -> Reads {
    let mut reads = Reads::default();
    if plan.members.is_empty() || plan.budget == 0 {
        return reads;
    }
    if !may_read(plan.api) {
        reads.stopped = Some(format!(
            "{}: {}",
            shown_url(plan.api),
            https_rule("the Core API")
        ));
        return reads;
    }
    let reader = match Reader::new("the Core API", MAX_BYTES, plan.timeout) {
        Ok(reader) => reader,
        Err(reason) => {
            reads.stopped = Some(reason);
            return reads;
        }
    };
    let mut wait = Duration::ZERO;
    let mut refusals = 0;
    'members: for &cid in plan.members {
        let mut offset = 0;
        let mut began = false;
        loop {
            if reads.requests >= plan.budget {
                if began {
                    reads.outcomes.push((cid, Outcome::Unfinished));
                }
                break 'members;
            }
            std::thread::sleep(wait);
            wait = plan.interval;
            began = true;
            reads.requests += 1;
            let url = page_url(plan.api, cid, offset);
            let answer = reader.runtime.block_on(reader.client.answer(&url));
            let outcome = match answer {
                Ok(Answer::Body(body)) => {
                    refusals = 0;
                    match judge(cid, &body, offset) {
                        Verdict::More { offset: next } if next > offset => {
                            offset = next;
                            continue;
                        }
                        Verdict::More { .. } | Verdict::Done => Outcome::Complete,
                        Verdict::Unreadable(reason) => {
                            Outcome::Failed(format!("{}: {reason}", shown_url(&url)))
                        }
                    }
                }
                Ok(Answer::Refused {
                    status: 429,
                    retry_after,
                }) => {
                    refusals += 1;
                    let asked = retry_after.unwrap_or(DEFAULT_RETRY_WAIT);
                    if asked > MAX_RETRY_WAIT || refusals >= MAX_REFUSALS {
                        reads.outcomes.push((cid, Outcome::Unfinished));
                        reads.stopped = Some(format!(
                            "{} answered 429 (too many requests) {refusals} time(s), asking to wait {} s",
                            shown_url(&url),
                            asked.as_secs()
                        ));
                        break 'members;
                    }
                    wait = wait.max(asked);
                    continue;
                }
                Ok(Answer::Refused { status, .. }) => {
                    Outcome::Failed(format!("{} answered {status}", shown_url(&url)))
                }
                Err(failure) => {
                    if failure.host_unreachable {
                        reads
                            .outcomes
                            .push((cid, Outcome::Failed(failure.reason.clone())));
                        reads.stopped = Some(failure.reason);
                        break 'members;
                    }
                    Outcome::Failed(failure.reason)
                }
            };
            reads.outcomes.push((cid, outcome));
            break;
        }
    }
    reads
}

/// `{api}v2/members/{cid}/atc?limit=&offset=`.
fn page_url(api: &Url, cid: u64, offset: u64) -> Url {
    let mut url = api
        .join(&format!("v2/members/{cid}/atc"))
        .expect("a path below an http(s) address is an address");
    url.query_pairs_mut()
        .append_pair("limit", &PAGE_SIZE.to_string())
        .append_pair("offset", &offset.to_string());
    url
}

/// The kept copy's path: `.vatcar-site-cache/activity.json` beside the output folder.
pub fn cache_file(output: &Path) -> PathBuf {
    let banners = super::banners::cache_folder(output);
    banners.parent().unwrap_or(&banners).join(CACHE_FILE)
}

/// The kept copy, if there is one; never through a link, and not a file larger than a
/// build writes.
pub fn read_kept(output: &Path) -> Result<Option<Vec<u8>>, String> {
    use crate::plain_files::{Plain, read_plain_at_most};
    let file = cache_file(output);
    let folder = file.parent().unwrap_or(Path::new("."));
    match read_plain_at_most(folder, CACHE_FILE, MAX_KEPT_BYTES).map_err(|e| format!("{e:#}"))? {
        Plain::TooLarge => Err(format!("{} is larger than a build writes", file.display())),
        Plain::File(bytes) => Ok(Some(bytes)),
        Plain::Missing => Ok(None),
        Plain::NotPlain { path, is, .. } => Err(format!(
            "{} is {is}, which is not read; remove it (the next build writes the file again)",
            path.display()
        )),
    }
}

/// `bytes` kept as the copy: written under a name of its own (never through a link) and
/// renamed into place, in a cache folder that is a folder and not a link.
pub fn write_kept(output: &Path, bytes: &[u8]) -> Result<(), String> {
    let file = cache_file(output);
    let folder = file.parent().unwrap_or(Path::new("."));
    let failed = |e: &std::io::Error| {
        format!(
            "could not keep the members' sessions in {}: {e}; check that the folder can be written",
            file.display()
        )
    };
    super::banners::real_folder(folder, failed)?;
    crate::plain_files::write_whole(folder, CACHE_FILE, bytes).map_err(|e| failed(&e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_asked_for_below_the_api_with_its_limit_and_offset() {
        let api = Url::parse("https://api.vatsim.net/").unwrap();
        assert_eq!(
            page_url(&api, 1_234_567, 200).as_str(),
            "https://api.vatsim.net/v2/members/1234567/atc?limit=100&offset=200"
        );
        let prefixed = Url::parse("http://127.0.0.1:9/core/").unwrap();
        assert_eq!(
            page_url(&prefixed, 1, 0).as_str(),
            "http://127.0.0.1:9/core/v2/members/1/atc?limit=100&offset=0"
        );
    }
}
