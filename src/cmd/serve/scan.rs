//! What the watched folders hold, looked at without the system's events (the polling and the
//! check that events come): which files are the site's, leaving out an editor's own, and what
//! each looks like now, by its modification time and length.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The files an editor keeps beside the one it saves, and version control's folders, which
/// the build does not read: Vim's swap files (`.name.swp`, `.swo`, … and `.swx`) and its
/// probe that a folder takes new files (`4913`), backups (`name~`), Emacs's auto-save
/// (`#name#`) and lock (`.#name`) files, JetBrains' and GNOME's temporary files.
pub(super) fn is_editors_own(path: &Path) -> bool {
    if path.components().any(|part| part.as_os_str() == ".git") {
        return true;
    }
    let Some(name) = path.file_name().and_then(|name| name.to_str()) else {
        return false;
    };
    let vim_swap = name.starts_with('.')
        && name.len() > 4
        && matches!(&name.as_bytes()[name.len() - 4..], [b'.', b's', b'w', c] if c.is_ascii_lowercase());
    // Vim tries 4913 first, then adds 123 until it finds a free name.
    let vim_probe = name.len() <= 6
        && name.bytes().all(|b| b.is_ascii_digit())
        && name
            .parse::<u32>()
            .is_ok_and(|n| n >= 4913 && (n - 4913) % 123 == 0);
    vim_swap
        || vim_probe
        || name.ends_with('~')
        || (name.len() > 1 && name.starts_with('#') && name.ends_with('#'))
        || name.starts_with(".#")
        || name.ends_with("___jb_tmp___")
        || name.ends_with("___jb_old___")
        || name.starts_with(".goutputstream-")
}

/// A file's modification time and length. An edit that keeps both is not seen; every file
/// system this runs on keeps at least millisecond times, far finer than a person's saves.
pub(super) type TimeAndLength = (Option<SystemTime>, u64);

pub(super) fn stamp(path: &Path) -> Option<TimeAndLength> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok(), meta.len()))
}

/// Every file under `folders`, sorted, leaving out the paths in `ignored` (and what is under
/// them) and an editor's own files. Links are not followed, as the build does not follow
/// them.
pub(super) fn fingerprint(
    folders: &[PathBuf],
    ignored: &[PathBuf],
) -> Vec<(PathBuf, TimeAndLength)> {
    let mut out = Vec::new();
    let mut stack = folders.to_vec();
    while let Some(folder) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if ignored.contains(&path) || is_editors_own(&path) {
                continue;
            }
            match entry.metadata() {
                Ok(meta) if meta.is_dir() => stack.push(path),
                Ok(meta) => out.push((path, (meta.modified().ok(), meta.len()))),
                Err(_) => {}
            }
        }
    }
    out.sort();
    // A folder named twice (`static` beside the config and as configured) is listed once.
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::is_editors_own;
    use std::path::Path;

    #[test]
    fn an_editors_own_files_are_known_by_name() {
        for name in [
            "content/.about.md.swp",
            "content/.about.md.swo",
            "content/.about.md.swx",
            "content/4913",
            "content/5036",
            "content/about.md~",
            "content/#about.md#",
            "content/.#about.md",
            "content/about.md___jb_tmp___",
            "static/.goutputstream-X1Y2Z3",
            "static/.git/index",
        ] {
            assert!(is_editors_own(Path::new(name)), "{name}");
        }
        for name in [
            "content/about.md",
            "content/.well-known.md",
            "static/.well-known/security.txt",
            "static/.htaccess",
            "static/4914",
            "static/49130",
            "static/#",
            "static/.sw",
            "static/.SWP",
        ] {
            assert!(!is_editors_own(Path::new(name)), "{name}");
        }
    }
}
