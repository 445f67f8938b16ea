//! The numbers a setting may take: each a type of its own, with its default and its bounds,
//! checked as it is read (a value out of bounds is refused by the type's `TryFrom`, with an
//! [`Invalid`] naming what is expected).

use super::values::{Invalid, invalid};
use serde::Deserialize;

/// A setting that is a number: its type, what it holds, what it is read as (`i64` or `f64`,
/// as a type and as serde names it), its default, the values it takes, and those values in
/// words for the error (`1 to 365 days`).
macro_rules! number {
    ($(#[$doc:meta])* $name:ident($held:ty) from $from:ty, $serde:literal =
     $default:expr, $takes:expr, $words:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Deserialize)]
        #[serde(try_from = $serde)]
        pub struct $name(pub $held);

        impl Default for $name {
            fn default() -> Self {
                Self($default)
            }
        }

        impl TryFrom<$from> for $name {
            type Error = Invalid;
            fn try_from(number: $from) -> Result<Self, Invalid> {
                match <$held>::try_from(number) {
                    Ok(held) if ($takes).contains(&held) => Ok(Self(held)),
                    _ => invalid(format!("expected {}, found {number}", $words)),
                }
            }
        }
    };
}

/// [`number!`] for a setting that is a whole number, read as TOML's integers are.
macro_rules! whole_number {
    ($(#[$doc:meta])* $name:ident($held:ty) = $($rest:tt)*) => {
        number!($(#[$doc])* $name($held) from i64, "i64" = $($rest)*);
    };
}

/// [`number!`] for a setting that may have a fraction.
macro_rules! decimal_number {
    ($(#[$doc:meta])* $name:ident = $($rest:tt)*) => {
        number!($(#[$doc])* $name(f64) from f64, "f64" = $($rest)*);
    };
}

whole_number!(
    /// `recent_days`: how many days an event stays listed as "recent" after it ends.
    RecentDays(i64) = 60, 0..=3650, "0 to 3650"
);
whole_number!(
    /// `whats_new_days`: how long a change stays on the What's new page.
    WhatsNewDays(u32) = 30, 1..=365, "1 to 365 days"
);
whole_number!(
    /// `calendar.refresh_minutes`: how often calendar apps should refresh the feeds.
    RefreshMinutes(u32) = 180, 1..=10080, "1 to 10080 (a week)"
);
whole_number!(
    /// `activity.window_days`: the rolling window the hours are counted in.
    ActivityDays(u32) = 90, 1..=365, "1 to 365 days"
);
whole_number!(
    /// `activity.requests`: the most requests one build sends the Core API; 0 sends none (the
    /// figures kept are shown as they are).
    RequestBudget(u32) = 60, 0..=10_000, "0 to 10000 requests"
);
decimal_number!(
    /// `activity.rule_hours`: the hours the division's rule asks for in the window.
    RuleHours = 3.0, 0.0..=1000.0, "0 to 1000 hours"
);
decimal_number!(
    /// `activity.interval_seconds`: the wait between two requests to the Core API.
    Interval = 6.0, 0.0..=600.0, "0 to 600 seconds"
);

/// `feed_limit`: entries in the Atom feed, soonest first; `None` (written 0) for every
/// upcoming event. Read as any value, so that a value of the wrong type is reported in the
/// setting's own words (serde's type errors name only the type).
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(try_from = "toml::Value")]
pub struct FeedLimit(pub Option<usize>);

impl Default for FeedLimit {
    fn default() -> Self {
        Self(Some(super::DEFAULT_FEED_LIMIT))
    }
}

impl TryFrom<toml::Value> for FeedLimit {
    type Error = Invalid;
    fn try_from(value: toml::Value) -> Result<Self, Invalid> {
        let found = match value {
            // Beyond usize (on a 32-bit machine) is as good as no limit.
            toml::Value::Integer(0) => return Ok(Self(None)),
            toml::Value::Integer(n) if n > 0 => {
                return Ok(Self(Some(usize::try_from(n).unwrap_or(usize::MAX))));
            }
            toml::Value::Integer(n) => n.to_string(),
            other => format!("a {}", other.type_str()),
        };
        invalid(format!(
            "expected a whole number of entries (0 for no limit), found {found}"
        ))
    }
}

decimal_number!(
    /// `timeout`: seconds one request may take; more than none.
    Timeout = super::DEFAULT_TIMEOUT, f64::MIN_POSITIVE..=86_400.0, "seconds between 0 and 86400"
);
