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
            let mut anchor = slug(&category.name, |c| c.is_ascii_alphanumeric());
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

/// `text` as an id: lower case, the characters `keep` keeps, each run of the rest one `-`;
/// `section` if nothing is left. A document category's anchor keeps ASCII letters and digits,
/// a heading's id letters and digits of any script ("Información de vuelo" is
/// `información-de-vuelo`).
pub(super) fn slug(text: &str, keep: fn(char) -> bool) -> String {
    let mut slug = String::new();
    for c in text.chars() {
        if keep(c) {
            slug.extend(c.to_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug = slug.trim_end_matches('-');
    if slug.is_empty() {
        "section".to_owned()
    } else {
        slug.to_owned()
    }
}
