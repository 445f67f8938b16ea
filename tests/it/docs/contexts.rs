//! Every context the templates receive on the demo data, as the program really renders it:
//! a theme whose every template prints its own name and the whole context (Tera's
//! `__tera_context`) renders the demo site and the reports, and each file made is read back.
//! So the documentation follows the code with nothing in the program kept for it.

use anyhow::{Context as _, Result};
use serde_json::Value;
use std::sync::Mutex;
use vatcar_site::fetch::banners::{BannerCopy, Banners, LocalBanner};
use vatcar_site::fetch::endpoint::Endpoint;
use vatcar_site::fetch::site_files::{self, ContentFile};
use vatcar_site::fetch::snapshot::Snapshot;
use vatcar_site::i18n::Texts;
use vatcar_site::model::{self, SiteData};
use vatcar_site::render::reports::{index_context, report_context};
use vatcar_site::render::{TEMPLATES, Theme, site};
use vatcar_site::settings::Settings;
use vatcar_site::view::report::{self, IndexEntry, ReportSettings};
use vatcar_site::view::{self, SiteView};

/// What each template of the dumping theme begins with, before its name.
const MARK: &str = "template context of ";

/// Each context rendered, by template name, in a fixed order: pages render on several
/// threads, and the order picks the examples.
pub fn rendered() -> Result<Vec<(String, Value)>> {
    let folder = tempfile::tempdir()?;
    for (name, _) in TEMPLATES {
        std::fs::write(
            folder.path().join(name),
            format!("{MARK}{name}\n{{{{ __tera_context }}}}"),
        )?;
    }
    let theme = Theme::load(Some(folder.path()), Texts::english())?;
    let demo = Snapshot::demo();
    let data = demo_data(&demo)?;
    let files = Mutex::new(Vec::new());
    site::render(site_view(&data, &demo, &theme)?, &theme, &|rendered| {
        files.lock().unwrap().push(rendered.file.contents);
        Ok(())
    })?;
    let mut files = files.into_inner().unwrap();
    files.extend(reports(&data, &demo, &theme)?);
    let mut contexts = files
        .iter()
        .filter_map(|file| file.strip_prefix(MARK.as_bytes()))
        .map(read_dump)
        .collect::<Result<Vec<_>>>()?;
    contexts.sort_by_cached_key(|(template, context)| (template.clone(), context.to_string()));
    Ok(contexts)
}

/// A template's name and its context, from what the dumping theme rendered.
fn read_dump(dump: &[u8]) -> Result<(String, Value)> {
    let text = std::str::from_utf8(dump)?;
    let (template, json) = text.split_once('\n').context("a name, then the context")?;
    Ok((template.to_owned(), serde_json::from_str(json)?))
}

/// The demo's data, its roster's facility a full FIR object: the demo names it by a bare
/// string, and the object shows every field a template may use.
fn demo_data(demo: &Snapshot) -> Result<SiteData> {
    let mut data = model::decode_site(demo)?;
    data.roster.facility = Some(model::Facility {
        id: Some(7),
        short_name: Some("TJZS".into()),
        long_name: Some("San Juan CERAP".into()),
        website_url: Some("https://tjzs.example.org".into()),
        description: Some("San Juan Combined Enroute Radar Approach Control".into()),
    });
    Ok(data)
}

/// Settings that give every variable a value, as a webmaster writes them.
fn example_settings() -> Result<Settings> {
    let demo = |codes: &[&str]| format!("{codes:?}");
    let text = format!(
        r##"site_url = "https://tjzs.example.org/"
display_zone = "America/Puerto_Rico"
tagline = "Caribbean skies"
logo = "logo.png"
accent = "#0b5d7a"

[staff_emails]
atm = "atm@tjzs.example.org"

[facilities]
"1" = "San Juan CERAP"

[live]
callsigns = {}
airports = {}

[people]
enabled = true
names = "full"
index = true

[extra]
banner_text = "Controllers wanted for the Friday event"
social = {{ discord = "https://discord.gg/your-invite" }}
"##,
        demo(&vatcar_site::fetch::snapshot::DEMO_CALLSIGNS),
        demo(&vatcar_site::fetch::snapshot::DEMO_AIRPORTS),
    );
    Settings::parse(&text, std::path::Path::new("vatcar-site.toml"))
}

/// Every banner of the demo as a build from the API serves it (`banners = "local"`), a PNG
/// 1,200 × 400 px, for its variables' shape.
fn served_banners(data: &SiteData, base_url: &url::Url) -> Banners {
    let copy = |width: u32, extension: &str| BannerCopy {
        path: format!("banners/0123456789abcdef-{width}.{extension}"),
        width,
    };
    let banner = LocalBanner {
        width: 1200,
        height: 400,
        src: copy(1200, "jpg").path,
        fallback_type: "image/jpeg",
        fallback: vec![copy(480, "jpg"), copy(960, "jpg"), copy(1200, "jpg")],
        webp: vec![copy(480, "webp"), copy(960, "webp"), copy(1200, "webp")],
    };
    let mut banners = Banners::default();
    let events = data.facility_events.iter().chain(&data.division_events);
    for image_url in events.filter_map(|event| event.image_url.as_deref()) {
        if let Some(address) = view::banner_address(image_url, base_url) {
            banners.insert(address, banner.clone());
        }
    }
    banners
}

/// The site's view of the demo, with the demo's pages and a section to show section.html's
/// variables.
fn site_view(data: &SiteData, demo: &Snapshot, theme: &Theme) -> Result<SiteView> {
    let base_url = url::Url::parse(vatcar_site::fetch::client::DEFAULT_BASE_URL)?;
    let inputs = view::BuildInputs {
        banners: std::sync::Arc::new(served_banners(data, &base_url)),
        base_url,
        build_time: demo.fetched_at.context("the demo has a capture time")?,
        texts: view::Texts::english(),
        previous: None,
        activity: None,
        origin: model::previous::Origin::of(&data.roster, true),
        bookings: Some(std::sync::Arc::new(model::bookings::decode_bookings(
            demo.file(vatcar_site::fetch::bookings::FILE)
                .context("the demo has bookings")?,
        ))),
        // The demo's logo, an SVG of 64 by 64.
        logo: Some(view::LogoFile {
            size: Some((64, 64)),
            opaque: false,
        }),
    };
    let mut site_view = view::build(data.clone(), &example_settings()?, &inputs);
    // What a build reads from the logo's file (`logo.png` here, 64 pixels square).
    let mut content = site_files::demo_content();
    content.push(ContentFile {
        path: "guides/_index.md".into(),
        origin: "guides/_index.md".into(),
        text: "+++\ntitle = \"Guides\"\ndescription = \"For pilots and controllers\"\n[extra]\nicon = \"book\"\n+++\nStart here.\n".into(),
    });
    let pages: Vec<_> = content
        .iter()
        .map(model::content::parse)
        .collect::<Result<_, _>>()?;
    let mut problems = Vec::new();
    view::add_content(
        &mut site_view,
        &pages,
        (
            &std::collections::HashSet::from(["logo.png"]),
            &std::collections::HashMap::new(),
        ),
        &theme.static_paths(),
        &[],
        false,
        &mut problems,
    )?;
    vatcar_site::problems::Problems::check(problems)?;
    Ok(site_view)
}

/// The demo roster's activity report: its first controller at the rule, its second below
/// it, its first visitor tried and never read whole, the others never read.
fn activity_report(
    data: &SiteData,
    settings: &ReportSettings,
) -> vatcar_site::view::activity_report::ActivityReport {
    use vatcar_site::model::activity::{Activity, Session};
    use vatcar_site::view::activity_report::{Rule, activity_report};
    let now = settings.generated_at;
    let hours_ago = |hours: i64| now - chrono::TimeDelta::hours(hours);
    let session = |id: u64, ended: i64, hours: i64| Session {
        id,
        callsign: "TJSJ_TWR".into(),
        start: hours_ago(ended + hours),
        end: hours_ago(ended),
    };
    let mut known = Activity::default();
    let (first, second) = (
        data.roster.controllers[0].cid,
        data.roster.controllers[1].cid,
    );
    known.record(first, vec![session(1, 30, 4)], hours_ago(6));
    known.record(second, vec![session(2, 300, 1)], hours_ago(30));
    known.tried(data.roster.visitors[0].cid, hours_ago(6));
    let prefixes = ["TJSJ".to_owned()];
    let rule = Rule {
        prefixes: &prefixes,
        window_days: 90,
        rule_hours: 3.0,
    };
    activity_report(&data.roster, &known, &rule, settings)
}

/// The four reports, rendered: a student's training record, the roster, the activity, and
/// the index of a run over two students, one of whom failed.
fn reports(data: &SiteData, demo: &Snapshot, theme: &Theme) -> Result<Vec<Vec<u8>>> {
    let time = demo.fetched_at.context("the demo has a capture time")?;
    let settings = ReportSettings {
        include_contact: true,
        generated_at: time,
        base_url: url::Url::parse(vatcar_site::fetch::client::DEFAULT_BASE_URL)?,
        texts: theme.texts(),
        accent: Some(vatcar_site::view::accent("#0b5d7a").map_err(anyhow::Error::msg)?),
    };
    let style = report::style(&settings);
    let cid = 1590318;
    let user = model::decode_user(cid, demo.body(Endpoint::User(cid))?)?;
    let notes = model::decode_notes(cid, demo.body(Endpoint::UserNotes(cid))?)?;
    let training = report::training(&user, &notes, &settings);
    let entries = vec![
        IndexEntry {
            cid,
            name: Some(training.student.name.clone()),
            file: Some("training-1590318.html".into()),
            sessions: Some(9),
            error: None,
        },
        IndexEntry {
            cid: 1547761,
            name: None,
            file: None,
            sessions: None,
            error: Some("no permission".into()),
        },
    ];
    let roster = report::roster(&data.roster, &settings);
    let activity = activity_report(data, &settings);
    let extra = serde_json::Value::Object(example_settings()?.extra);
    Ok(vec![
        theme.render(
            "report-training.html",
            &report_context(&training, &style, &extra),
        )?,
        theme.render(
            "report-roster.html",
            &report_context(&roster, &style, &extra),
        )?,
        theme.render(
            "report-activity.html",
            &report_context(&activity, &style, &extra),
        )?,
        theme.render(
            "report-index.html",
            &index_context(&entries, &["roster.html".into()], time, &style, &extra),
        )?,
    ]
    .into_iter()
    .map(String::into_bytes)
    .collect())
}
