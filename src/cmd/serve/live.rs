//! Live reload: each HTML page is served with a script tag added (the file on disk is left
//! as built), and the script long-polls for the next rebuild that changed the site.
//!
//! Long polling needs nothing but plain requests, which tiny_http answers as any other; a
//! waiting poll is answered on a thread of its own (see `answer_connection`), so open pages
//! never hold the workers that serve files.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Every path under this one is the server's own; the output folder is never looked at.
pub(super) const RESERVED: &str = "/__vatcar-site/";
pub(super) const SCRIPT_PATH: &str = "/__vatcar-site/live-reload.js";
const CHANGES_PATH: &str = "/__vatcar-site/changes";
const SCRIPT: &str = include_str!("live-reload.js");

/// How long a poll waits for a change before answering that there was none. Short enough that
/// a browser's connection is not held for long, long enough that an idle page costs little.
pub(super) const POLL_WAIT: Duration = Duration::from_secs(20);
/// Polls waiting at once beyond this are told to come back later (503), so that a runaway
/// client cannot start a thread per request.
const MAX_WAITING: usize = 64;

/// Which build of the site is being served. Generations start from the clock, so a page
/// from an earlier run of `serve` sees a different one and reloads.
pub(super) struct Changes {
    generation: Mutex<u64>,
    changed: Condvar,
    waiting: AtomicUsize,
}

impl Changes {
    pub(super) fn new() -> Arc<Self> {
        let start = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |t| t.as_millis() as u64);
        Arc::new(Self {
            generation: Mutex::new(start),
            changed: Condvar::new(),
            waiting: AtomicUsize::new(0),
        })
    }

    pub(super) fn current(&self) -> u64 {
        *self
            .generation
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The site in the output folder changed: every waiting page reloads.
    pub(super) fn bump(&self) {
        *self
            .generation
            .lock()
            .unwrap_or_else(PoisonError::into_inner) += 1;
        self.changed.notify_all();
    }

    /// The generation once it is no longer `since`, or `since` after `wait`.
    fn after(&self, since: u64, wait: Duration) -> u64 {
        let generation = self
            .generation
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let (generation, _) = self
            .changed
            .wait_timeout_while(generation, wait, |now| *now == since)
            .unwrap_or_else(PoisonError::into_inner);
        *generation
    }

    /// A place among the waiting polls, if one is free.
    pub(super) fn permit(self: &Arc<Self>) -> Option<Permit> {
        let taken = self
            .waiting
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < MAX_WAITING).then_some(n + 1)
            });
        taken.is_ok().then(|| Permit(Arc::clone(self)))
    }

    /// Whether answering `url` would wait for a change.
    pub(super) fn would_wait(&self, url: &str) -> bool {
        matches!(route(url), Some(Route::Changes { since: Some(since) }) if since == self.current())
    }
}

/// Leave to wait for a change; given back when dropped.
pub(super) struct Permit(Arc<Changes>);

impl Drop for Permit {
    fn drop(&mut self) {
        self.0.waiting.fetch_sub(1, Ordering::AcqRel);
    }
}

#[derive(Debug, PartialEq)]
pub(super) enum Route {
    Script,
    /// The generation, after waiting for a change from `since` if given.
    Changes {
        since: Option<u64>,
    },
    Unknown,
}

/// What a request under [`RESERVED`] asks for; `None` for every other path.
pub(super) fn route(url: &str) -> Option<Route> {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    if !path.starts_with(RESERVED) {
        return None;
    }
    Some(match path {
        SCRIPT_PATH => Route::Script,
        CHANGES_PATH => Route::Changes {
            since: query
                .split('&')
                .find_map(|pair| pair.strip_prefix("since="))
                .and_then(|since| since.parse().ok()),
        },
        _ => Route::Unknown,
    })
}

/// The answer to a reserved path. A poll that would wait is answered 503 unless `may_wait`
/// (it holds a [`Permit`] on a thread of its own).
pub(super) fn respond(changes: &Changes, route: &Route, may_wait: bool) -> tiny_http::ResponseBox {
    match route {
        Route::Script => text(SCRIPT.as_bytes(), "text/javascript; charset=utf-8"),
        Route::Changes { since } => {
            let generation = match since {
                Some(since) if may_wait => changes.after(*since, POLL_WAIT),
                Some(since) if *since == changes.current() => {
                    return tiny_http::Response::empty(503)
                        .with_header(header("Retry-After", "2"))
                        .boxed();
                }
                _ => changes.current(),
            };
            text(
                generation.to_string().as_bytes(),
                "text/plain; charset=utf-8",
            )
        }
        Route::Unknown => tiny_http::Response::from_data(b"not found".to_vec())
            .with_status_code(404)
            .boxed(),
    }
}

fn text(body: &[u8], kind: &str) -> tiny_http::ResponseBox {
    tiny_http::Response::from_data(body.to_vec())
        .with_header(header("Content-Type", kind))
        .with_header(header("Cache-Control", "no-store"))
        .boxed()
}

fn header(name: &str, value: &str) -> tiny_http::Header {
    tiny_http::Header::from_bytes(name, value).expect("a valid header")
}

/// `html` with the live-reload script before its last `</body>` (in any case), or at its end
/// if it has none. The script reads the generation the page was served at from its tag.
pub(super) fn inject(mut html: Vec<u8>, generation: u64) -> Vec<u8> {
    let tag = format!("<script src=\"{SCRIPT_PATH}\" data-generation=\"{generation}\"></script>");
    let at = html
        .windows(b"</body>".len())
        .rposition(|w| w.eq_ignore_ascii_case(b"</body>"))
        .unwrap_or(html.len());
    html.splice(at..at, tag.bytes());
    html
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tag_goes_before_the_last_closing_body() {
        let page = b"<body><p>a</BODY> said </Body>\n</html>".to_vec();
        let served = String::from_utf8(inject(page, 7)).unwrap();
        assert_eq!(
            served,
            "<body><p>a</BODY> said <script src=\"/__vatcar-site/live-reload.js\" \
             data-generation=\"7\"></script></Body>\n</html>"
        );
        let bare = String::from_utf8(inject(b"<p>x".to_vec(), 1)).unwrap();
        assert!(bare.starts_with("<p>x<script "), "{bare}");
        assert!(bare.ends_with("</script>"), "{bare}");
    }

    #[test]
    fn reserved_paths() {
        assert_eq!(route("/index.html"), None);
        assert_eq!(route("/__vatcar-site"), None);
        assert_eq!(route(SCRIPT_PATH), Some(Route::Script));
        assert_eq!(
            route("/__vatcar-site/changes?x=1&since=42"),
            Some(Route::Changes { since: Some(42) })
        );
        assert_eq!(
            route("/__vatcar-site/changes?since=-1"),
            Some(Route::Changes { since: None })
        );
        assert_eq!(route("/__vatcar-site/other"), Some(Route::Unknown));
    }

    #[test]
    fn a_poll_waits_for_the_next_generation() {
        let changes = Changes::new();
        let first = changes.current();
        assert_eq!(changes.after(first + 5, Duration::from_secs(60)), first);
        let waiter = std::thread::spawn({
            let changes = Arc::clone(&changes);
            move || changes.after(first, Duration::from_secs(60))
        });
        changes.bump();
        assert_eq!(waiter.join().unwrap(), first + 1);
    }

    #[test]
    fn permits_run_out_and_come_back() {
        let changes = Changes::new();
        let permits: Vec<_> = (0..MAX_WAITING)
            .map(|_| changes.permit().unwrap())
            .collect();
        assert!(changes.permit().is_none());
        drop(permits);
        assert!(changes.permit().is_some());
    }
}
