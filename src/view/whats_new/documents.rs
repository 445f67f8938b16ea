//! Documents between two builds: the API gives them no id (api-v2.md, 2.8), so a document is
//! known by its category and name, and one renamed or moved by its address alone; what is
//! new, updated or renamed since the previous build.

use super::{FoundChanges, fingerprint};
use crate::model::previous::{ChangeId, Previous};
use crate::view::time::midnight;
use chrono::NaiveDate;
use std::collections::HashMap;

/// A document as changes name it: its id, where it is listed, its name and date, and the
/// fingerprint of its address.
pub(super) struct DocumentRef<'v> {
    pub(super) anchor: &'v str,
    pub(super) name: &'v str,
    pub(super) updated: Option<NaiveDate>,
    pub(super) link: Option<String>,
}

/// A document's id: from its category and name, which stay when a file is replaced (a new
/// version is often uploaded at a new address: `TJSJ Tower SOP v3.2.pdf`). The API gives
/// documents no id of their own (api-v2.md, 2.8), so a document renamed or moved to another
/// category gets a new id, and only its address tells it is the same: see [`renamed_from`].
pub fn document_id(category: &str, name: &str) -> String {
    format!("doc-{}", fingerprint(&[category, name]))
}

/// New documents, documents with a new update date, and documents renamed (a renamed one
/// with a new date too is updated: its file changed, and the title names it as it is now).
pub(super) fn document_changes(
    documents: &HashMap<String, DocumentRef>,
    previous: &Previous,
    found: &mut FoundChanges,
) {
    let renamed = renamed_from(documents, previous);
    for (id, doc) in documents {
        let was = match (previous.documents.get(id), renamed.get(id.as_str())) {
            (Some(was), _) => *was,
            (None, Some(was)) => {
                if doc.updated.is_none_or(|now| *was == Some(now)) {
                    found.add(ChangeId::DocumentRenamed(id.clone()), None);
                    continue;
                }
                *was
            }
            (None, None) => {
                found.add(ChangeId::NewDocument(id.clone()), doc.updated.map(midnight));
                continue;
            }
        };
        if let Some(now) = doc.updated
            && was != Some(now)
        {
            found.add(
                ChangeId::DocumentUpdated(id.clone(), now),
                Some(midnight(now)),
            );
        }
    }
}

/// Today's documents that are a previous one renamed, by id, each with the previous one's
/// date.
///
/// The API gives documents no id (api-v2.md, 2.8), so the rule is: a document the previous
/// build did not have (by category and name) is one it had, renamed or moved to another
/// category, when it is at the address (`url`, as the site links it) of a document the
/// previous build had and today's data has not, and no other such document, gone or new,
/// is at that address. A file replaced at a new address under the same name keeps its id;
/// one replaced and renamed at once is new, as nothing tells it is the same; two documents
/// at one address that both changed are new, as nothing tells which is which.
fn renamed_from<'d>(
    documents: &'d HashMap<String, DocumentRef>,
    previous: &Previous,
) -> HashMap<&'d str, Option<NaiveDate>> {
    // By the fingerprint of the address: the documents gone, and the new ones.
    let mut gone: HashMap<&str, Vec<Option<NaiveDate>>> = HashMap::new();
    for (id, link) in &previous.document_links {
        if let Some(date) = previous.documents.get(id)
            && !documents.contains_key(id)
        {
            gone.entry(link.as_str()).or_default().push(*date);
        }
    }
    let mut fresh: HashMap<&str, Vec<&str>> = HashMap::new();
    for (id, doc) in documents {
        if let Some(link) = &doc.link
            && gone.contains_key(link.as_str())
            && !previous.documents.contains_key(id)
        {
            fresh.entry(link.as_str()).or_default().push(id);
        }
    }
    fresh
        .into_iter()
        .filter_map(
            |(link, new)| match (new.as_slice(), gone.get(link)?.as_slice()) {
                ([new], [was]) => Some((*new, *was)),
                _ => None,
            },
        )
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{DocumentRef, renamed_from};
    use crate::model::previous::Previous;
    use std::collections::HashMap;

    #[test]
    fn a_document_is_renamed_only_when_its_address_names_one_gone_and_one_new() {
        // Before: a and b at address 1, c at 3, d and e at 2. Today none is there by its id:
        // b2 and f are at 1, c2 at 3, d2 and e2 at 2. At 1 and at 2 two documents went and
        // two came, and nothing tells which is which: only c2 is c renamed.
        let mut previous = Previous::default();
        for (id, link) in [("a", "1"), ("b", "1"), ("c", "3"), ("d", "2"), ("e", "2")] {
            previous.documents.insert(id.into(), None);
            previous.document_links.insert(id.into(), link.into());
        }
        let doc = |link: &str| DocumentRef {
            anchor: "",
            name: "",
            updated: None,
            link: Some(link.into()),
        };
        let today: HashMap<String, DocumentRef> = [
            ("b2", "1"),
            ("c2", "3"),
            ("d2", "2"),
            ("e2", "2"),
            ("f", "1"),
        ]
        .into_iter()
        .map(|(id, link)| (id.to_owned(), doc(link)))
        .collect();
        let renamed = renamed_from(&today, &previous);
        assert_eq!(renamed.keys().collect::<Vec<_>>(), [&"c2"]);
    }
}
