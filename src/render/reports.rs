//! The reports' template contexts: a training record or the roster under `report`, and the
//! reports folder's index; each with `style`, what report.css takes from the settings,
//! and `extra`, the config file's `[extra]`, as the site's templates get it.

use crate::view::report::{IndexEntry, ReportStyle};
use chrono::{DateTime, Utc};

/// The context of a training or roster report: everything under `report`.
pub fn report_context(
    report: &impl serde::Serialize,
    style: &ReportStyle,
    extra: &serde_json::Value,
) -> tera::Context {
    let mut context = tera::Context::new();
    context.insert("report", report);
    context.insert("style", style);
    context.insert("extra", extra);
    context
}

/// The context of the reports folder's index: `entries`, the students of this run (none for the
/// roster), and `others`, every other report the folder holds (the roster, earlier runs'
/// records), by file name.
pub fn index_context(
    entries: &[IndexEntry],
    others: &[String],
    generated_at: DateTime<Utc>,
    style: &ReportStyle,
    extra: &serde_json::Value,
) -> tera::Context {
    let mut context = tera::Context::new();
    context.insert("entries", entries);
    context.insert("others", others);
    context.insert(
        "generated_at",
        &generated_at.format("%Y-%m-%d %H:%MZ").to_string(),
    );
    context.insert("style", style);
    context.insert("extra", extra);
    context
}
