//! Printable private reports: a student's training record, and the roster on one page.
//!
//! Reports are views like the site's pages, rendered with the same overridable templates,
//! but each is one self-contained HTML file (styles inlined, no scripts, nothing loaded from
//! elsewhere) that prints on A4 and US Letter and converts to PDF in any browser. They are
//! written by their own command into their own folder, never into the site.

use crate::model::{Roster, SessionType, TrainingNote, User};
use crate::sanitize::description::Sanitizer;
use crate::view::{self, AccentView, RosterPage, Texts};
use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;
use url::Url;

#[derive(Clone, Debug)]
pub struct ReportSettings {
    /// Show the student's email, email preferences and integrations.
    pub include_contact: bool,
    pub generated_at: DateTime<Utc>,
    /// Relative links in notes resolve against it.
    pub base_url: Url,
    /// The words of the report, in the site's language.
    pub texts: Arc<Texts>,
    /// The config file's accent, as the site shows it.
    pub accent: Option<AccentView>,
}

/// What every report's style sheet takes from the settings, the index's included.
#[derive(Clone, Debug, Serialize)]
pub struct ReportStyle {
    /// The printed pages' counter as a CSS `content` value: CSS strings and counters.
    pub page_counter: String,
    /// Headings' rules and links in the accent; light mode's, since paper is light.
    pub accent: Option<AccentView>,
}

pub fn style(settings: &ReportSettings) -> ReportStyle {
    ReportStyle {
        page_counter: page_counter(&settings.texts),
        accent: settings.accent.clone(),
    }
}

/// `report.page_counter` ("Page {page} of {pages}") as a CSS `content` value: its words as
/// escaped CSS strings, its placeholders as the page counters.
fn page_counter(texts: &Texts) -> String {
    // Characters no catalogue holds mark where the counters go.
    const PAGE: char = '\u{F8F0}';
    const PAGES: char = '\u{F8F1}';
    let text = texts.text(
        "report.page_counter",
        &[("page", &PAGE.to_string()), ("pages", &PAGES.to_string())],
    );
    let mut parts = Vec::new();
    let mut words = String::new();
    for c in text.chars() {
        let counter = match c {
            PAGE => "counter(page)",
            PAGES => "counter(pages)",
            c => {
                words.push(c);
                continue;
            }
        };
        if !words.is_empty() {
            parts.push(format!("\"{}\"", css_string(&std::mem::take(&mut words))));
        }
        parts.push(counter.to_owned());
    }
    if !words.is_empty() || parts.is_empty() {
        parts.push(format!("\"{}\"", css_string(&words)));
    }
    parts.join(" ")
}

#[derive(Clone, Debug, Serialize)]
pub struct Student {
    pub name: String,
    pub cid: u64,
    pub rating_code: Option<String>,
    pub rating_name: Option<String>,
    pub facility: Option<String>,
    pub facility_joined: Option<String>,
    pub visiting: Vec<String>,
    /// Only with `include_contact`.
    pub contact: Option<Contact>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Contact {
    pub email: Option<String>,
    pub email_preferences: Option<i64>,
    pub integrations: Vec<LinkedAccount>,
}

/// An account the student linked (Discord, ...).
#[derive(Clone, Debug, Serialize)]
pub struct LinkedAccount {
    /// The API's type number; what each means is not documented.
    pub kind: Option<i64>,
    pub value: String,
}

/// Sessions counted under one name: a session type, or a position.
#[derive(Clone, Debug, Serialize)]
pub struct Tally {
    pub name: String,
    pub sessions: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct NoteView {
    pub id: u64,
    pub date: Option<String>,
    pub instructor: String,
    pub position: Option<String>,
    pub session_type: String,
    /// `pass` or `fail` for an OTS, `not applicable` for any other session.
    pub ots_result: &'static str,
    /// `ots_result` in the report's language.
    pub ots_label: String,
    pub marking_sheet: Option<String>,
    pub note_html: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub sessions: usize,
    /// Sessions per type, in a fixed order, types with none left out.
    pub per_type: Vec<Tally>,
    /// Positions trained and how often, most first.
    pub positions: Vec<Tally>,
    pub first: Option<String>,
    pub last: Option<String>,
    pub ots_passes: usize,
    pub ots_fails: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct TrainingReport {
    pub student: Student,
    pub summary: Summary,
    pub notes: Vec<NoteView>,
    /// How the notes are ordered, said on the page.
    pub order: String,
    pub generated_at: String,
    /// Header text for every printed page, escaped for a CSS string.
    pub css_header: String,
}

pub fn training(user: &User, notes: &[TrainingNote], settings: &ReportSettings) -> TrainingReport {
    let texts = &*settings.texts;
    let student = student(user, settings);
    let facility = user.fir.as_ref().and_then(|f| f.display_name());
    let generated_at = settings.generated_at.format("%Y-%m-%d %H:%MZ").to_string();
    let header = format!(
        "{}{}",
        facility.map(|f| format!("{f} · ")).unwrap_or_default(),
        texts.text(
            "report.training_header",
            &[
                ("name", &student.name),
                ("cid", &student.cid.to_string()),
                ("at", &generated_at)
            ]
        )
    );
    TrainingReport {
        student,
        summary: summary(notes, texts),
        notes: note_views(notes, settings),
        order: texts.text("report.order", &[]),
        generated_at,
        css_header: css_string(&header),
    }
}

/// Who the report is about; their contact details only with `include_contact`.
fn student(user: &User, settings: &ReportSettings) -> Student {
    let rating = user.rating.map(|r| view::rating_names(r, &settings.texts));
    Student {
        name: user.display_name(),
        cid: user.cid,
        rating_code: rating.as_ref().map(|(code, _)| code.clone()),
        rating_name: rating.map(|(_, name)| name),
        facility: user.fir.as_ref().and_then(|f| f.display_name()),
        facility_joined: user.facility_join.map(|t| t.format("%Y-%m-%d").to_string()),
        visiting: user
            .visiting_facilities
            .iter()
            .filter_map(|f| f.display_name())
            .collect(),
        contact: settings.include_contact.then(|| Contact {
            email: user.email.clone(),
            email_preferences: user.email_preferences,
            integrations: user
                .integrations
                .iter()
                .map(|i| LinkedAccount {
                    kind: i.kind,
                    value: i.value.clone(),
                })
                .collect(),
        }),
    }
}

/// A session type's name in the report's language.
fn session_type_name(kind: SessionType, texts: &Texts) -> String {
    match kind {
        SessionType::Sweatbox => texts.text("report.sweatbox", &[]),
        SessionType::LiveNetwork => texts.text("report.live_network", &[]),
        SessionType::Ots => texts.text("report.ots", &[]),
        SessionType::Classroom => texts.text("report.classroom", &[]),
        SessionType::Unknown(n) => {
            texts.text("report.unknown_session_type", &[("number", &n.to_string())])
        }
    }
}

fn date(day: Option<NaiveDate>) -> Option<String> {
    day.map(|d| d.format("%Y-%m-%d").to_string())
}

/// Each note as the report shows it: oldest first, by the session's date; undated notes
/// last; then by creation and id, so that the order never depends on the API's.
fn note_views(notes: &[TrainingNote], settings: &ReportSettings) -> Vec<NoteView> {
    // A report is opened and printed offline: it loads nothing, images included.
    let sanitizer = Sanitizer::self_contained(&settings.base_url);
    let texts = &*settings.texts;
    let mut sorted: Vec<&TrainingNote> = notes.iter().collect();
    sorted.sort_by_key(|n| (n.date.is_none(), n.date, n.created_at, n.id));
    sorted
        .iter()
        .map(|note| NoteView {
            id: note.id,
            date: date(note.date),
            instructor: match (&note.instructor_name, note.instructor_cid) {
                (Some(name), _) => name.clone(),
                (None, Some(cid)) => format!("CID {cid}"),
                (None, None) => texts.text("report.unknown_instructor", &[]),
            },
            position: note.position_trained.clone(),
            session_type: note.session_type.map_or_else(
                || texts.text("report.session_type_not_given", &[]),
                |kind| session_type_name(kind, texts),
            ),
            ots_result: ots_result(note),
            ots_label: texts.text(
                match ots_result(note) {
                    "pass" => "report.ots_pass",
                    "fail" => "report.ots_fail",
                    _ => "report.ots_not_applicable",
                },
                &[],
            ),
            marking_sheet: note.marking_sheet.clone(),
            note_html: sanitizer.render(&note.note),
        })
        .collect()
}

/// The counts above the notes.
fn summary(notes: &[TrainingNote], texts: &Texts) -> Summary {
    let dates: Vec<NaiveDate> = notes.iter().filter_map(|n| n.date).collect();
    let is_ots = |n: &&TrainingNote| n.session_type == Some(SessionType::Ots);
    Summary {
        sessions: notes.len(),
        per_type: per_type(notes, texts),
        positions: positions(notes),
        first: date(dates.iter().min().copied()),
        last: date(dates.iter().max().copied()),
        ots_passes: notes.iter().filter(is_ots).filter(|n| n.ots_pass).count(),
        ots_fails: notes.iter().filter(is_ots).filter(|n| !n.ots_pass).count(),
    }
}

/// Sessions per type, in a fixed order, types with none left out, the rest as one.
fn per_type(notes: &[TrainingNote], texts: &Texts) -> Vec<Tally> {
    use SessionType::{Classroom, LiveNetwork, Ots, Sweatbox};
    let count = |is: &dyn Fn(Option<SessionType>) -> bool| {
        notes.iter().filter(|n| is(n.session_type)).count()
    };
    let named = [Sweatbox, LiveNetwork, Ots, Classroom];
    let others = count(&|kind| !kind.is_some_and(|kind| named.contains(&kind)));
    (named.into_iter())
        .map(|kind| (session_type_name(kind, texts), count(&|t| t == Some(kind))))
        .chain([(texts.text("report.other_session_types", &[]), others)])
        .filter(|(_, sessions)| *sessions > 0)
        .map(|(name, sessions)| Tally { name, sessions })
        .collect()
}

/// Positions trained and how often, most first.
fn positions(notes: &[TrainingNote]) -> Vec<Tally> {
    let mut positions: BTreeMap<String, usize> = BTreeMap::new();
    for note in notes {
        if let Some(position) = &note.position_trained {
            *positions.entry(position.clone()).or_default() += 1;
        }
    }
    let mut positions: Vec<Tally> = positions
        .into_iter()
        .map(|(name, sessions)| Tally { name, sessions })
        .collect();
    // Stable: positions trained as often stay in the map's order, by name.
    positions.sort_by_key(|tally| std::cmp::Reverse(tally.sessions));
    positions
}

/// `pass` or `fail` for an OTS, `not applicable` for any other session.
fn ots_result(note: &TrainingNote) -> &'static str {
    match (note.session_type, note.ots_pass) {
        (Some(SessionType::Ots), true) => "pass",
        (Some(SessionType::Ots), false) => "fail",
        _ => "not applicable",
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct RosterReport {
    pub facility: String,
    pub roster: RosterPage,
    pub generated_at: String,
    pub css_header: String,
}

pub fn roster(roster: &Roster, settings: &ReportSettings) -> RosterReport {
    // The page's own title, so that the running header names the roster as the menu does.
    let title = settings.texts.text("page.roster", &[]);
    let (facility, generated_at, css_header) = roster_header(roster, &title, settings);
    RosterReport {
        css_header,
        facility,
        roster: view::roster_page(roster, &settings.texts),
        generated_at,
    }
}

/// What a report of the roster titled `title` is headed with: the facility's name, the
/// report's time (`YYYY-MM-DD HH:MMZ`), and the header of every printed page, escaped for a
/// CSS string.
pub(super) fn roster_header(
    roster: &Roster,
    title: &str,
    settings: &ReportSettings,
) -> (String, String, String) {
    let facility = (roster.facility.as_ref())
        .and_then(|f| f.display_name())
        .unwrap_or_else(|| "VATCAR facility".into());
    let generated_at = settings.generated_at.format("%Y-%m-%d %H:%MZ").to_string();
    let header = settings.texts.text(
        "report.roster_header",
        &[
            ("facility", &facility),
            ("title", title),
            ("at", &generated_at),
        ],
    );
    (facility, generated_at, css_string(&header))
}

/// One student of a training run, a line of the reports folder's index.
#[derive(Clone, Debug, Serialize)]
pub struct IndexEntry {
    pub cid: u64,
    pub name: Option<String>,
    pub file: Option<String>,
    pub sessions: Option<usize>,
    /// Why there is no report.
    pub error: Option<String>,
}

/// `text` as the inside of a CSS string, safe inside a `<style>` element too.
pub fn css_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '<' => out.push_str("\\3C "),
            '>' => out.push_str("\\3E "),
            '&' => out.push_str("\\26 "),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// English, with a theme's `report.page_counter` over it.
    fn texts_with_counter(counter: &str) -> Texts {
        let theme = tempfile::tempdir().unwrap();
        std::fs::create_dir(theme.path().join("i18n")).unwrap();
        let catalogue = format!("[report]\npage_counter = {counter:?}\n");
        std::fs::write(theme.path().join("i18n/en.toml"), catalogue).unwrap();
        Texts::load("en", Some(theme.path())).unwrap()
    }

    #[test]
    fn the_page_counter_is_the_catalogues_words_around_the_counters() {
        assert_eq!(
            page_counter(&texts_with_counter("Página {page} de {pages}")),
            "\"Página \" counter(page) \" de \" counter(pages)"
        );
        assert_eq!(
            page_counter(&texts_with_counter("{page}/{pages}")),
            "counter(page) \"/\" counter(pages)"
        );
        assert_eq!(
            page_counter(&texts_with_counter("p. \"{page}\\")),
            "\"p. \\\"\" counter(page) \"\\\\\""
        );
    }

    #[test]
    fn css_strings_cannot_close_the_string_or_the_style_element() {
        assert_eq!(
            css_string("a\"b\\c</style><x>&\n"),
            "a\\\"b\\\\c\\3C /style\\3E \\3C x\\3E \\26  "
        );
    }
}
