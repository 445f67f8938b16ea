//! `vatcar-site report`: private printable reports (a student's training record, the
//! roster, the members' activity against the rule), rendered whole and written to their own
//! folder, never into the site.

use super::args::{ReportKind, TrainingArgs};
use super::options::{ReportOptions, api_base};
use super::progress::{Progress, count};
use super::settings::report_options;
use crate::fetch::endpoint::Endpoint;
use crate::fetch::load;
use crate::i18n::Texts;
use crate::model;
use crate::model::activity::Activity;
use crate::model::previous::Origin;
use crate::output::OutputFile;
use crate::publish;
use crate::render::Theme;
use crate::render::reports::{index_context, report_context};
use crate::secret::ApiKey;
use crate::settings::Settings;
use crate::usage::UsageError;
use crate::view::{activity_report, report};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The `report` commands: a training record per CID, the roster, or the members' activity.
pub(crate) fn run(
    kind: &ReportKind,
    config: &Settings,
    progress: &Arc<Progress>,
    key: Option<ApiKey>,
) -> Result<()> {
    let options = |args, include_contact| {
        report_options(args, config, include_contact, progress.clone(), key.clone())
    };
    let path = match kind {
        ReportKind::Training(args) => {
            let cids = training_cids(args)?;
            return run_training(
                &options(&args.common, args.include_contact)?,
                &cids,
                progress,
            );
        }
        ReportKind::Roster(args) => roster_report(&options(args, false)?)?,
        ReportKind::Activity(args) => {
            let site = args.site.clone().unwrap_or_else(|| config.output_folder());
            activity_report(&options(&args.common, false)?, &site)?
        }
    };
    progress.done(&format!("wrote {}", path.display()));
    Ok(())
}

/// Requests in flight at once for a report run: enough to hide latency, few enough to be
/// polite to a volunteer-run API.
pub const REPORT_CONCURRENCY: usize = 4;

/// The `report training` command: one `training-<cid>.html` per student, and an
/// `index.html` when there are several. A CID that fails does not stop the others, but the
/// run exits 1.
fn run_training(options: &ReportOptions, cids: &[u64], progress: &Progress) -> Result<()> {
    check_reports_folder(options)?;
    let endpoints: Vec<Endpoint> = cids
        .iter()
        .flat_map(|&cid| [Endpoint::User(cid), Endpoint::UserNotes(cid)])
        .collect();
    let mut bodies = load::raw_each(&options.source, &endpoints, REPORT_CONCURRENCY)?.into_iter();
    let reports = Reports::new(options)?;
    let (mut files, mut index, mut failures) = (Vec::new(), Vec::new(), Vec::new());
    for &cid in cids {
        let (user, notes) = (
            bodies.next().expect("two per CID"),
            bodies.next().expect("two per CID"),
        );
        match student_report(cid, (user, notes), &reports) {
            Ok((view, html)) => {
                let file = format!("training-{cid}.html");
                index.push(report::IndexEntry {
                    cid,
                    name: Some(view.student.name.clone()),
                    file: Some(file.clone()),
                    sessions: Some(view.summary.sessions),
                    error: None,
                });
                files.push(OutputFile::new(file, html));
            }
            Err(error) => {
                index.push(report::IndexEntry {
                    cid,
                    name: None,
                    file: None,
                    sessions: None,
                    // The error may quote the server, and the server may echo the key.
                    error: Some(reports.secrets.redact(&format!("{error:#}"))),
                });
                failures.push((cid, error));
            }
        }
    }
    let written: Vec<PathBuf> = (files.iter())
        .map(|file| options.output.join(&file.path))
        .collect();
    if !files.is_empty() {
        reports.publish(files, &index, "reports")?;
    }
    for path in &written {
        progress.step(&format!("wrote {}", path.display()));
    }
    match failures.len() {
        0 => {
            progress.done(&format!(
                "wrote {} into {}",
                count(written.len(), "training report"),
                options.output.display()
            ));
            Ok(())
        }
        1 if cids.len() == 1 => Err(failures.remove(0).1),
        failed => {
            for (cid, error) in &failures {
                log::error!("CID {cid}: {error:#}");
            }
            bail!("{failed} of {} reports could not be made", cids.len());
        }
    }
}

/// What every report is rendered and written with: the theme in the reports' words, the
/// reports' settings and style, and the secrets no report may hold.
struct Reports<'a> {
    options: &'a ReportOptions,
    theme: Theme,
    settings: report::ReportSettings,
    style: report::ReportStyle,
    /// The config file's `[extra]`, for the templates as `extra`, as the site's get it.
    extra: serde_json::Value,
    secrets: crate::secret::Secrets,
}

impl<'a> Reports<'a> {
    /// The reports' words are the catalogue's, with the built-in pages renamed as the site's
    /// menu renames them (`view::menu_renames`), so that a report is called what the site
    /// calls its page.
    fn new(options: &'a ReportOptions) -> Result<Self> {
        let config = &options.settings;
        let templates = config.templates.as_deref();
        let mut texts = Texts::load(&options.language, templates)?;
        for (key, text) in crate::view::menu_renames(&config.menu, &config.sections) {
            texts.rename(&key, &text);
        }
        let texts = Arc::new(texts);
        let theme = Theme::load(templates, Arc::clone(&texts))?;
        let settings = report::ReportSettings {
            texts,
            include_contact: options.include_contact,
            generated_at: options.generated_at,
            base_url: api_base(&options.source)?,
            // Checked when the config was read; as for the site.
            accent: (config.accent.as_ref()).and_then(|c| crate::view::accent(&c.0).ok()),
        };
        Ok(Self {
            options,
            theme,
            style: report::style(&settings),
            settings,
            extra: serde_json::Value::Object(config.extra.clone()),
            secrets: super::guarded(options.key.as_ref()),
        })
    }

    /// A report's page: `template` with the report's view.
    fn render(&self, template: &str, view: &impl serde::Serialize) -> Result<String> {
        let context = report_context(view, &self.style, &self.extra);
        self.theme.render(template, &context)
    }

    /// `files` written into the reports folder with the index, which lists them (`entries`,
    /// this run's students, in its table); `what` they are, for the error.
    fn publish(
        &self,
        mut files: Vec<OutputFile>,
        entries: &[report::IndexEntry],
        what: &str,
    ) -> Result<()> {
        let written: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        let index = self.index_file(entries, &written)?;
        files.extend(index);
        let options = self.options;
        let publishing = publish::PublishOptions {
            prune: false,
            ..publish::PublishOptions::new(publish::FolderKind::Reports, options.force)
                .guarding(&self.secrets)
                .waiting(options.wait)
        };
        publish::publish(&options.output, &files, publishing).with_context(|| {
            format!("could not write the {what} to {}", options.output.display())
        })?;
        Ok(())
    }

    /// `index.html`, whenever the folder will hold more than one report or the run tried
    /// several students: this run's students (`entries`) in a table, and by file name every
    /// other report the folder will hold, this run's (`written`, the roster) and the ones
    /// earlier runs left there. Every report command writes it, so that no order of runs
    /// leaves a report out.
    fn index_file(
        &self,
        entries: &[report::IndexEntry],
        written: &[&str],
    ) -> Result<Option<OutputFile>> {
        let tabled: Vec<&str> = entries.iter().filter_map(|e| e.file.as_deref()).collect();
        let mut others = reports_in(&self.options.output);
        others.extend(written.iter().map(|file| (*file).to_owned()));
        others.sort();
        others.dedup();
        others.retain(|file| !tabled.contains(&file.as_str()));
        if entries.len() < 2 && tabled.len() + others.len() < 2 {
            return Ok(None);
        }
        let context = index_context(
            entries,
            &others,
            self.options.generated_at,
            &self.style,
            &self.extra,
        );
        let html = self.theme.render("report-index.html", &context)?;
        Ok(Some(OutputFile::new("index.html", html)))
    }
}

/// One student's report, decoded from its two bodies and rendered: its view (which the index
/// lists) and its HTML.
fn student_report(
    cid: u64,
    (user, notes): (Result<Vec<u8>>, Result<Vec<u8>>),
    reports: &Reports,
) -> Result<(report::TrainingReport, String)> {
    let user = model::decode_user(cid, &user?)?;
    let notes = model::decode_notes(cid, &notes?)?;
    let view = report::training(&user, &notes, &reports.settings);
    let html = reports.render("report-training.html", &view)?;
    Ok((view, html))
}

/// The roster report's file.
const ROSTER_FILE: &str = "roster.html";
/// The activity report's file.
const ACTIVITY_FILE: &str = "activity.html";

/// `roster.html`: the roster on one printed page.
pub fn roster_report(options: &ReportOptions) -> Result<PathBuf> {
    let roster = roster(options)?;
    let reports = Reports::new(options)?;
    let html = reports.render(
        "report-roster.html",
        &report::roster(&roster, &reports.settings),
    )?;
    publish_one(&reports, ROSTER_FILE, html)
}

/// The facility's roster, as `report roster` and `report activity` read it, once the reports
/// folder is checked.
fn roster(options: &ReportOptions) -> Result<model::Roster> {
    check_reports_folder(options)?;
    let snapshot = load::raw(&options.source, &[Endpoint::FacilityRoster])?;
    Ok(model::decode_roster(
        snapshot.body(Endpoint::FacilityRoster)?,
    )?)
}

/// `activity.html`: every member's hours in the window against the rule.
///
/// Where the sessions come from: what the site's builds kept (decided in issue 49's work, and
/// said in docs/activity.md): the copy beside `site` (`.vatcar-site-cache/activity.json`), the
/// site's `data/activity.json`, and the published site's with `previous`, merged as a build
/// merges them. The report reads no session from VATSIM itself: the Core API's throttle makes
/// a read of a roster take minutes, which the scheduled builds spend already, and what a
/// report read would either be lost or have to be written into the build's cache by a
/// command that writes only into the reports folder. Each member's line says when their
/// sessions were read. The roster is read as `report roster` reads it (the API, a snapshot
/// or the demo), so that the report lists today's members. With the demo, whose members were
/// never read, the sessions are its sample (demo/activity.json), as on the demo's site.
pub fn activity_report(options: &ReportOptions, site: &Path) -> Result<PathBuf> {
    let demo = matches!(options.source, load::Source::Demo);
    let settings = &options.settings;
    if !settings.activity.enabled && !demo {
        return Err(UsageError(
            "[activity] is off in the config file: this report counts the hours a build with [activity] on reads from VATSIM; set `enabled = true` under [activity] (docs/activity.md), build the site, then run the report again".into(),
        )
        .into());
    }
    let roster = roster(options)?;
    // The demo's members were never read: its sample stands for what a build keeps, and its
    // facility's positions count, as on the demo's site.
    let mut settings = settings.clone();
    let known = match demo {
        true => {
            super::settings::demo_positions(&mut settings);
            super::activity::demo_sample()
        }
        false => kept_sessions(&settings, site, &Origin::of(&roster, false))?,
    };
    let settings = &settings;
    let members: Vec<u64> = (roster.controllers.iter())
        .chain(&roster.visitors)
        .map(|m| m.cid)
        .collect();
    if !members.iter().any(|cid| known.was_checked(*cid)) {
        bail!(
            "the sessions of none of the roster's {} members have been read yet (the kept sessions are of other members, or their reads did not finish); each build with [activity] on reads up to {} members: build the site again, then run the report",
            members.len(),
            settings.activity.requests.0
        );
    }
    let reports = Reports::new(options)?;
    let prefixes = crate::view::activity::prefixes(settings, &roster);
    let rule = activity_report::Rule {
        prefixes: &prefixes,
        window_days: settings.activity.window_days.0,
        rule_hours: settings.activity.rule_hours.0,
    };
    let view = activity_report::activity_report(&roster, &known, &rule, &reports.settings);
    let html = reports.render("report-activity.html", &view)?;
    publish_one(&reports, ACTIVITY_FILE, html)
}

/// The sessions the site's builds kept (see [`activity_report`]) from `origin`'s data, or an
/// error saying what to do where no build kept any.
fn kept_sessions(settings: &Settings, site: &Path, origin: &Origin) -> Result<Activity> {
    use crate::fetch::previous::{ACTIVITY, PreviousSource};
    let mut published = vec![PreviousSource::Folder(site.to_path_buf())];
    if let Some(url) = &settings.previous {
        published.push(PreviousSource::Site(url.0.clone()));
    }
    let kept = super::activity::kept_from(site, &published, origin);
    for (what, why) in &kept.left_out {
        log::warn!("Activity: {what} {why}");
    }
    if kept.read.is_empty() {
        let cache = crate::fetch::activity::cache_file(site);
        let mut places = vec![
            cache.display().to_string(),
            site.join(ACTIVITY).display().to_string(),
        ];
        places.extend(
            published
                .iter()
                .skip(1)
                .map(|p| format!("{p}'s {ACTIVITY}")),
        );
        let found = match kept.left_out.is_empty() {
            true => "found none",
            false => "found none that this facility's builds made (see the warnings)",
        };
        bail!(
            "no member's sessions have been read yet: looked for {}, and {found}; build the site with [activity] on first (each build reads up to {} members), or pass --site with the folder it was built into",
            places.join(", "),
            settings.activity.requests.0
        );
    }
    log::info!(
        "activity: the sessions read from {}",
        kept.read.join(" and ")
    );
    Ok(kept.activity)
}

/// One report's file written into the reports folder with the index, which lists it; its
/// path.
fn publish_one(reports: &Reports, name: &str, html: String) -> Result<PathBuf> {
    reports.publish(vec![OutputFile::new(name, html)], &[], "report")?;
    Ok(reports.options.output.join(name))
}

/// The reports already in the folder (the roster, the activity, training records), by file
/// name: the index lists them beside the run's own. A folder that cannot be read has none.
fn reports_in(folder: &Path) -> Vec<String> {
    let is_report = |name: &str| {
        name == ROSTER_FILE
            || name == ACTIVITY_FILE
            || name
                .strip_prefix("training-")
                .and_then(|rest| rest.strip_suffix(".html"))
                .is_some_and(|cid| !cid.is_empty() && cid.bytes().all(|b| b.is_ascii_digit()))
    };
    std::fs::read_dir(folder)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| is_report(name))
        .collect()
}

/// The CIDs of a training run, from `--cid` and `--cids-file`, each once, in the order given.
fn training_cids(args: &TrainingArgs) -> Result<Vec<u64>> {
    let mut cids = args.cids.clone();
    if let Some(path) = &args.cids_file {
        cids.extend(read_cids_file(path)?);
    }
    let mut seen = std::collections::HashSet::new();
    cids.retain(|cid| seen.insert(*cid));
    if cids.is_empty() {
        return Err(UsageError(
            "no CID given: pass --cid N (repeatable) or --cids-file FILE".into(),
        )
        .into());
    }
    Ok(cids)
}

fn read_cids_file(path: &Path) -> Result<Vec<u64>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("could not read the CIDs file {}", path.display()))?;
    // Windows editors start UTF-8 files with a byte-order mark.
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let mut cids = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("");
        for token in line
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|t| !t.is_empty())
        {
            match token.parse::<u64>() {
                Ok(cid) if cid > 0 => cids.push(cid),
                _ => {
                    return Err(UsageError(format!(
                        "{}:{}: {token:?} is not a CID",
                        path.display(),
                        number + 1
                    ))
                    .into());
                }
            }
        }
    }
    Ok(cids)
}

/// The reports folder checked before anything is fetched (see [`publish::check_and_recover`]).
fn check_reports_folder(options: &ReportOptions) -> Result<()> {
    let publishing = publish::PublishOptions::new(publish::FolderKind::Reports, options.force)
        .waiting(options.wait);
    publish::check_and_recover(&options.output, publishing).with_context(|| {
        format!(
            "could not write the reports to {}",
            options.output.display()
        )
    })
}
