//! A Discord webhook on 127.0.0.1, for `announce`: the [`MockServer`] answering posts at a
//! webhook's path as scripted (a 429 with `retry_after`, a 500, rate-limit headers), and
//! recording every post.

use super::{MockServer, Reply};
use serde_json::Value;
use std::time::Instant;

/// A webhook's path as Discord writes it: the channel's webhook id, then its token.
pub const PATH: &str = "/api/webhooks/123456789012345678/it-webhook-token-0123456789abcdefghij";

/// The token alone: the secret part of the address.
pub const TOKEN: &str = "it-webhook-token-0123456789abcdefghij";

pub struct Webhook {
    server: MockServer,
    replies: Vec<Reply>,
}

/// One post the webhook received, and how it was answered.
pub struct Post {
    pub body: Value,
    pub status: u16,
    pub received: Instant,
}

impl Webhook {
    /// Answers `replies` in order, the last one again and again.
    pub fn start(replies: Vec<Reply>) -> Self {
        let server = MockServer::start();
        server.route_path(PATH, replies.clone());
        Self { server, replies }
    }

    /// From now on, answers `replies` in order, counting the posts already received.
    pub fn answer(&mut self, replies: Vec<Reply>) {
        self.server.route_path(PATH, replies.clone());
        self.replies = replies;
    }

    /// Answers every post with 204, as Discord does.
    pub fn accepting() -> Self {
        Self::start(vec![Reply::status(204)])
    }

    /// The address to give `announce`.
    pub fn url(&self) -> String {
        format!("{}{PATH}", self.server.url())
    }

    /// Every post, in the order received.
    pub fn posts(&self) -> Vec<Post> {
        self.server
            .log()
            .into_iter()
            .filter(|r| r.target == PATH)
            .enumerate()
            .map(|(index, r)| {
                assert_eq!(r.method, "POST");
                assert_eq!(
                    r.headers.get("content-type").map(String::as_str),
                    Some("application/json")
                );
                Post {
                    body: serde_json::from_slice(&r.body).expect("a post is JSON"),
                    status: self.replies[index.min(self.replies.len() - 1)].status,
                    received: r.received,
                }
            })
            .collect()
    }

    /// The posts that were answered with success: what the channel shows.
    pub fn delivered(&self) -> Vec<Value> {
        (self.posts().into_iter())
            .filter(|p| (200..300).contains(&p.status))
            .map(|p| p.body)
            .collect()
    }
}

/// Discord's 429: wait `seconds` (with a fraction) before posting again.
pub fn too_many_requests(seconds: f64) -> Reply {
    Reply::json(
        429,
        format!(
            r#"{{"message": "You are being rate limited.", "retry_after": {seconds}, "global": false}}"#
        ),
    )
    .header("Retry-After", &format!("{}", seconds.ceil()))
}
