//! The built-in templates and static files, embedded in the program.

/// Built-in templates, by name.
macro_rules! embedded {
    ($macro:ident, $folder:literal, $($name:literal),* $(,)?) => {
        &[$(($name, $macro!(concat!(env!("CARGO_MANIFEST_DIR"), "/", $folder, "/", $name)))),*]
    };
}

pub const TEMPLATES: &[(&str, &str)] = embedded!(
    include_str,
    "templates",
    "base.html",
    "layout.html",
    "macros.html",
    "index.html",
    "roster.html",
    "event_lists.html",
    "event_list_page.html",
    "events.html",
    "division.html",
    "event.html",
    "person.html",
    "documents.html",
    "page.html",
    "section.html",
    "404.html",
    "sitemap.xml",
    "feed.xml",
    "whats-new.html",
    "whats-new-home.html",
    "activity-home.html",
    "whats-new.xml",
    "live.html",
    "live-home.html",
    "report.css",
    "report-layout.html",
    "report-training.html",
    "report-roster.html",
    "report-activity.html",
    "report-index.html",
);

/// Built-in static files, by path below `static/`.
pub const STATIC_FILES: &[(&str, &[u8])] = embedded!(
    include_bytes,
    "static",
    "style.css",
    "local-time.js",
    "menu.js",
    "live.js",
    "sort.js",
    "icon.svg",
);
