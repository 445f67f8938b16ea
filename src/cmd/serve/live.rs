//! Live reload: each HTML page is served with a script tag added (the file on disk is left
//! as built), and the script long-polls for the next rebuild that changed the site.
//!
//! A rebuild that fails is a change too: the open pages are told, fetch its errors and show
//! them over the page (the last good site, still served, one click away); the next good
//! build reloads them, which clears that.
//!
//! Long polling needs nothing but plain requests; a waiting poll is a task that holds its
//! connection and nothing else, so open pages never hold up page loads.

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::sync::watch;

/// The first name of every path that is the server's own; the output folder is never looked
/// at for them, and nothing under a folder of this name in the output is served.
pub(super) const RESERVED: &str = "__vatcar-site";
const SCRIPT_PATH: &str = "/__vatcar-site/live-reload.js";
const SCRIPT: &str = include_str!("live-reload.js");

/// `serve --demo`'s sample of VATSIM's data feed, for the demo's live page and home block to
/// read offline, at `view::SAMPLE_FEED_PATH` (`/__vatcar-site/live/vatsim-data.json`).
const SAMPLE_FEED: &[u8] = include_bytes!("../../../demo/vatsim-data.json");

/// How long a poll waits for a change before answering that there was none. Short enough that
/// a browser's connection is not held for long, long enough that an idle page costs little.
pub(super) const POLL_WAIT: Duration = Duration::from_secs(20);

/// Which build of the site is being served. Generations start from the clock, so a page
/// from an earlier run of `serve` sees a different one and reloads.
pub(super) struct ServedBuild {
    generation: watch::Sender<u64>,
    /// The errors of the last rebuild, when it failed (scrubbed of the key).
    failure: Mutex<Option<String>>,
    /// The words the pages show over a failed rebuild, in the site's language, as JSON.
    words: Mutex<String>,
}

impl ServedBuild {
    pub(super) fn new() -> Arc<Self> {
        let start = (SystemTime::now().duration_since(UNIX_EPOCH)).map_or(0, |t| t.as_millis());
        Arc::new(Self {
            generation: watch::Sender::new(start as u64),
            failure: Mutex::new(None),
            words: Mutex::new(words(&crate::i18n::Texts::english())),
        })
    }

    /// The site is now in the language of `texts`: the pages show a failed rebuild in it.
    pub(super) fn speak(&self, texts: &crate::i18n::Texts) {
        *lock(&self.words) = words(texts);
    }

    pub(super) fn current(&self) -> u64 {
        *self.generation.borrow()
    }

    /// The site in the output folder changed: every waiting page reloads.
    pub(super) fn bump(&self) {
        self.generation.send_modify(|generation| *generation += 1);
    }

    /// A rebuild failed with `errors`: every waiting page shows them.
    pub(super) fn fail(&self, errors: String) {
        *lock(&self.failure) = Some(errors);
        self.bump();
    }

    /// A rebuild succeeded, changing the site or not: the pages reload if it changed, or if
    /// they show the errors of a failed one.
    pub(super) fn succeed(&self, changed: bool) {
        let failed = lock(&self.failure).take().is_some();
        if changed || failed {
            self.bump();
        }
    }

    /// The generation once it is no longer `since`, or `since` after `wait`.
    async fn after(&self, since: u64, wait: Duration) -> u64 {
        let mut changed = self.generation.subscribe();
        let _ = tokio::time::timeout(wait, changed.wait_for(|now| *now != since)).await;
        self.current()
    }
}

/// `mutex` locked: what it holds is whole whenever a lock is let go.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    (mutex.lock()).unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The overlay's words from the catalogue (`[serve]`), as the script reads them.
fn words(texts: &crate::i18n::Texts) -> String {
    let text = |key: &str| texts.text(key, &[]);
    serde_json::json!({
        "title": text("serve.rebuild_failed"),
        "note": text("serve.still_serving"),
        "close": text("serve.show_last_good"),
    })
    .to_string()
}

/// The answer to `/__vatcar-site/` followed by `names` (the path's decoded names), with
/// `query` the part after `?`: the script, the overlay's words, the errors of the last
/// rebuild (empty when it did not fail), the sample data feed (`serve --demo` only), or the
/// generation; a poll from the generation being served (`changes?since=`) waits for the next
/// one, for [`POLL_WAIT`] at most.
pub(super) async fn respond(
    changes: &ServedBuild,
    names: &[String],
    query: &str,
    sample: bool,
) -> Response {
    let plain = "text/plain; charset=utf-8";
    match names {
        [name] if name == "live-reload.js" => text(SCRIPT, "text/javascript; charset=utf-8"),
        [name] if name == "words" => text(lock(&changes.words).clone(), "application/json"),
        [name] if name == "errors" => {
            text(lock(&changes.failure).clone().unwrap_or_default(), plain)
        }
        [folder, name] if sample && folder == "live" && name == "vatsim-data.json" => {
            text(SAMPLE_FEED, "application/json")
        }
        [name] if name == "changes" => {
            let since = (query.split('&'))
                .find_map(|pair| pair.strip_prefix("since="))
                .and_then(|since| since.parse().ok());
            let generation = match since {
                Some(since) => changes.after(since, POLL_WAIT).await,
                None => changes.current(),
            };
            text(generation.to_string(), plain)
        }
        _ => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

fn text(body: impl Into<Body>, kind: &'static str) -> Response {
    let headers = [
        (header::CONTENT_TYPE, kind),
        (header::CACHE_CONTROL, "no-store"),
    ];
    (headers, body.into()).into_response()
}

/// `response` with the live-reload tag for `generation` added when it is an HTML page, whole
/// (a page found, or the 404 page). The file on disk is left as built.
pub(super) async fn add_tag(response: Response, generation: u64) -> Response {
    let html = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|kind| kind.to_str().ok())
        .is_some_and(|kind| kind.starts_with("text/html"));
    let whole = matches!(response.status(), StatusCode::OK | StatusCode::NOT_FOUND);
    if !(html && whole) {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(page) = axum::body::to_bytes(body, usize::MAX).await else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    // The tag names the build: no copy of the page from another build may be taken as fresh,
    // whole or in part.
    for name in [
        header::CONTENT_LENGTH,
        header::LAST_MODIFIED,
        header::ETAG,
        header::ACCEPT_RANGES,
    ] {
        parts.headers.remove(name);
    }
    let no_store = HeaderValue::from_static("no-store");
    parts.headers.insert(header::CACHE_CONTROL, no_store);
    Response::from_parts(parts, Body::from(inject(page.into(), generation)))
}

/// `html` with the live-reload script at its very end. The script reads the generation the
/// page was served at from its tag.
///
/// The end, not before the page's `</body>`: the last `</body>` in the text may be in a
/// comment, a textarea or a script, and a page may leave its own out, as HTML allows. A
/// browser puts a tag that comes after `</html>` into the body all the same (the HTML
/// parser's "after after body" mode), and a preview need not please a validator.
pub(super) fn inject(mut html: Vec<u8>, generation: u64) -> Vec<u8> {
    let tag = format!("<script src=\"{SCRIPT_PATH}\" data-generation=\"{generation}\"></script>");
    html.extend_from_slice(tag.as_bytes());
    html
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tag_goes_at_the_end_whatever_the_page_holds() {
        let tag = "<script src=\"/__vatcar-site/live-reload.js\" data-generation=\"7\"></script>";
        for page in [
            "<body><p>a</p></body>\n</html>\n",
            "<body><textarea></body></textarea>",
            "<body></body></html><!-- </body> -->",
            "<p>x",
            "",
        ] {
            let served = String::from_utf8(inject(page.as_bytes().to_vec(), 7)).unwrap();
            assert_eq!(served, format!("{page}{tag}"));
        }
    }

    /// The status and body of the answer to `/__vatcar-site/{path}?{query}`.
    fn answer(changes: &ServedBuild, path: &str, query: &str, sample: bool) -> (u16, String) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let names: Vec<String> = path.split('/').map(str::to_owned).collect();
        runtime.block_on(async {
            let answer = respond(changes, &names, query, sample).await;
            let code = answer.status().as_u16();
            let body = axum::body::to_bytes(answer.into_body(), usize::MAX);
            (
                code,
                String::from_utf8_lossy(&body.await.unwrap()).into_owned(),
            )
        })
    }

    #[test]
    fn reserved_paths() {
        let changes = ServedBuild::new();
        let now = changes.current();
        let script = answer(&changes, "live-reload.js", "", false);
        assert!(script.1.contains("location.reload()"));
        // A poll from another generation answers at once, as does one without `since`.
        let other = format!("x=1&since={}", now + 9);
        let at_once = (200, now.to_string());
        assert_eq!(answer(&changes, "changes", &other, false), at_once);
        assert_eq!(answer(&changes, "changes", "since=-1", false), at_once);
        assert_eq!(answer(&changes, "errors", "", false), (200, String::new()));
        assert!(answer(&changes, "words", "", false).1.contains("\"title\""));
        let feed = answer(&changes, "live/vatsim-data.json", "", true);
        assert!(feed.0 == 200 && feed.1.contains("\"controllers\""));
        assert_eq!(
            format!("/{RESERVED}/live/vatsim-data.json"),
            crate::view::SAMPLE_FEED_PATH
        );
        for (path, sample) in [
            ("live/vatsim-data.json", false),
            ("other", true),
            ("changes/more", true),
            ("", true),
        ] {
            assert_eq!(answer(&changes, path, "", sample).0, 404, "{path}");
        }
    }

    #[test]
    fn a_failed_rebuild_is_a_change_and_the_next_good_one_clears_it() {
        let changes = ServedBuild::new();
        let first = changes.current();
        changes.succeed(false);
        assert_eq!(changes.current(), first, "nothing changed, nothing failed");
        changes.fail("content/a.md:4:1: link @/x".into());
        assert_eq!(changes.current(), first + 1);
        let failure = || lock(&changes.failure).clone();
        assert_eq!(failure().as_deref(), Some("content/a.md:4:1: link @/x"));
        // Good again with the same site as before the failure: the pages reload all the same.
        changes.succeed(false);
        assert_eq!(changes.current(), first + 2);
        assert_eq!(failure(), None);
    }

    /// The overlay over a failed rebuild speaks the site's language (issue 40).
    #[test]
    fn the_overlays_words_are_the_sites_language() {
        let changes = ServedBuild::new();
        let read = |changes: &ServedBuild| -> serde_json::Value {
            serde_json::from_str(&changes.words.lock().unwrap()).unwrap()
        };
        assert_eq!(read(&changes)["title"], "The site could not be rebuilt");
        changes.speak(&crate::i18n::Texts::load("nl", None).unwrap());
        let dutch = read(&changes);
        assert_eq!(dutch["title"], "De site kon niet opnieuw worden gemaakt");
        assert_eq!(dutch["close"], "Toon de laatste goede site");
    }

    #[test]
    fn a_poll_waits_for_the_next_generation() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let changes = ServedBuild::new();
        let first = changes.current();
        let wait = Duration::from_secs(60);
        assert_eq!(runtime.block_on(changes.after(first + 5, wait)), first);
        // Bumped from another thread, as the watcher does.
        let bump = std::thread::spawn({
            let changes = Arc::clone(&changes);
            move || {
                std::thread::sleep(Duration::from_millis(50));
                changes.bump();
            }
        });
        assert_eq!(runtime.block_on(changes.after(first, wait)), first + 1);
        bump.join().unwrap();
        // A poll that runs out answers the generation it came with.
        let short = Duration::from_millis(10);
        assert_eq!(runtime.block_on(changes.after(first + 1, short)), first + 1);
    }
}
