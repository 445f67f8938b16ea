//! Files of the user's folders read without following links: a link could reach any file on
//! the machine and publish it, or quote it in an error. Used by the theme and the catalogues.

use anyhow::{Context, Result};
use std::path::Path;

/// The file at `relative` (`/`-separated) below `root`, if it is a plain file reached through
/// plain folders: `None` if it is missing, or if it or a folder on the way is a link or a
/// special file. A theme's files are read so, on the terms of `fetch::site_files::read_static`: a link could
/// reach any file on the machine (`/proc/self/environ`) and publish it, or quote it in an
/// error. `root` itself may be a link, as the folder the user named.
///
/// Saying so is the caller's: it knows which of its files are links without reading them.
pub fn read_plain(root: &Path, relative: &str) -> Result<Option<Vec<u8>>> {
    let mut path = root.to_path_buf();
    let parts: Vec<&str> = relative.split('/').collect();
    for (i, part) in parts.iter().enumerate() {
        path.push(part);
        let meta = match std::fs::symlink_metadata(&path) {
            Ok(meta) => meta,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => {
                return Err(error).with_context(|| format!("could not read {}", path.display()));
            }
        };
        let last = i + 1 == parts.len();
        if (last && !meta.is_file()) || (!last && !meta.is_dir()) {
            return Ok(None);
        }
    }
    open_no_follow(&path)
        .and_then(|mut file| {
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut file, &mut bytes)?;
            Ok(bytes)
        })
        .map(Some)
        .with_context(|| format!("could not read {}", path.display()))
}

/// Opens `path` for reading, failing if it is a link (made one since it was looked at).
fn open_no_follow(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NOFOLLOW);
    options.open(path)
}
