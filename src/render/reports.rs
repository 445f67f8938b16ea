//! The reports' template contexts: a training record or the roster under `report`, and the
//! index of a multi-student run.

use crate::view::report::IndexEntry;
use chrono::{DateTime, Utc};

/// The context of a training or roster report: everything under `report`.
pub fn report_context(report: &impl serde::Serialize) -> tera::Context {
    let mut context = tera::Context::new();
    context.insert("report", report);
    context
}

/// The context of the index of a multi-student run.
pub fn index_context(entries: &[IndexEntry], generated_at: DateTime<Utc>) -> tera::Context {
    let mut context = tera::Context::new();
    context.insert("entries", entries);
    context.insert(
        "generated_at",
        &generated_at.format("%Y-%m-%d %H:%MZ").to_string(),
    );
    context
}
