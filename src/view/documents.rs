//! The documents page: categories with in-page anchors, files by name.

use super::BuildInputs;
use crate::model::SiteData;
use crate::sanitize::links::{SafeLink, safe_link};
use serde::Serialize;
use std::collections::HashMap;

#[derive(Clone, Debug, Serialize)]
pub struct DocumentRow {
    pub name: String,
    pub details: Option<String>,
    pub updated: Option<String>,
    pub updated_iso: Option<String>,
    /// `None` when the URL was unsafe or unusable.
    pub link: Option<SafeLink>,
}

#[derive(Clone, Debug, Serialize)]
pub struct DocumentGroup {
    pub name: String,
    /// For in-page links: `standard-operating-procedures`.
    pub anchor: String,
    pub files: Vec<DocumentRow>,
}

pub(super) fn documents(data: &SiteData, inputs: &BuildInputs) -> Vec<DocumentGroup> {
    let mut used: HashMap<String, usize> = HashMap::new();
    data.documents
        .iter()
        .map(|category| {
            let mut anchor = slug(&category.name);
            let seen = used.entry(anchor.clone()).or_insert(0);
            *seen += 1;
            if *seen > 1 {
                anchor = format!("{anchor}-{seen}");
            }
            let mut files: Vec<DocumentRow> = category
                .files
                .iter()
                .map(|doc| DocumentRow {
                    name: doc.name.clone(),
                    details: doc.details.clone(),
                    updated: doc.updated.map(|d| super::time::date(&inputs.texts, d)),
                    updated_iso: doc.updated.map(|d| d.format("%Y-%m-%d").to_string()),
                    link: safe_link(&doc.url, &inputs.base_url),
                })
                .collect();
            files.sort_by_cached_key(|f| f.name.to_lowercase());
            DocumentGroup {
                name: category.name.clone(),
                anchor,
                files,
            }
        })
        .collect()
}

/// An id-safe slug: ASCII letters and digits, joined by hyphens; `section` if nothing is left.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-').to_owned();
    if out.is_empty() {
        "section".into()
    } else {
        out
    }
}
