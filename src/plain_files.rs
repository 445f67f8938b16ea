//! Files of the user's folders read without following links: a link could reach any file on
//! the machine and publish it, or quote it in an error. Used by the theme and the catalogues,
//! by the build for its previous state and by `announce` for the build's changes file. And
//! the one way the caches beside the output write a file ([`write_whole`]).

use anyhow::{Context, Result};
use std::io::Read;
use std::path::{Path, PathBuf};

/// `bytes` written as `folder/name` whole: first under a name no other writer uses, made new
/// (so never through a link), then renamed over `name`. A stopped build leaves the whole file
/// or none, and a link at `name` is replaced, never written through. The names of the partial
/// files start `.tmp-` and end `.partial`, for a cache to know its own leftovers.
pub fn write_whole(folder: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static WRITTEN: AtomicU64 = AtomicU64::new(0);
    let partial = folder.join(format!(
        ".tmp-{}-{}.partial",
        std::process::id(),
        WRITTEN.fetch_add(1, Ordering::Relaxed)
    ));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&partial)
        .and_then(|mut file| std::io::Write::write_all(&mut file, bytes))
        .and_then(|()| std::fs::rename(&partial, folder.join(name)));
    if written.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    written
}

/// What [`read_plain_at_most`] found.
#[derive(Debug, PartialEq)]
pub enum Plain {
    /// A plain file reached through plain folders: its bytes.
    File(Vec<u8>),
    /// A plain file larger than the limit asked for; the rest of it was not read.
    TooLarge,
    /// Nothing there, or a folder on the way missing.
    Missing,
    /// `path` (the file, or a folder on the way) is `is` ([`kind_of`]), where a plain
    /// `expected` ("file" or "folder") was looked for; nothing was read.
    NotPlain {
        path: PathBuf,
        is: &'static str,
        expected: &'static str,
    },
}

/// The file at `relative` (`/`-separated) below `root`, if it is a plain file reached through
/// plain folders: `None` if it is missing, or if it or a folder on the way is a link or a
/// special file. A theme's files are read so, on the terms of `fetch::site_files::read_static`: a link could
/// reach any file on the machine (`/proc/self/environ`) and publish it, or quote it in an
/// error. `root` itself may be a link, as the folder the user named.
///
/// Saying so is the caller's: it knows which of its files are links without reading them.
pub fn read_plain(root: &Path, relative: &str) -> Result<Option<Vec<u8>>> {
    Ok(match read_plain_at_most(root, relative, u64::MAX)? {
        Plain::File(bytes) => Some(bytes),
        Plain::Missing | Plain::NotPlain { .. } | Plain::TooLarge => None,
    })
}

/// [`read_plain`], saying what was there instead of a plain file, and refusing a file of more
/// than `limit` bytes (of which one more than `limit` are read). A named pipe is never waited
/// on, nor a device read: the file is opened without waiting and looked at again once open, so
/// that one put in its place after the first look is refused too.
pub fn read_plain_at_most(root: &Path, relative: &str, limit: u64) -> Result<Plain> {
    let mut path = root.to_path_buf();
    let parts: Vec<&str> = relative.split('/').collect();
    for (i, part) in parts.iter().enumerate() {
        path.push(part);
        let meta = match std::fs::symlink_metadata(&path) {
            Ok(meta) => meta,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Plain::Missing);
            }
            Err(error) => {
                return Err(error).with_context(|| format!("could not read {}", path.display()));
            }
        };
        let last = i + 1 == parts.len();
        if (last && !meta.is_file()) || (!last && !meta.is_dir()) {
            return Ok(Plain::NotPlain {
                path,
                is: kind_of(&meta.file_type()),
                expected: if last { "file" } else { "folder" },
            });
        }
    }
    let file = open_no_follow(&path, std::fs::OpenOptions::new().read(true))
        .with_context(|| format!("could not read {}", path.display()))?;
    let meta = file
        .metadata()
        .with_context(|| format!("could not read {}", path.display()))?;
    if !meta.is_file() {
        return Ok(Plain::NotPlain {
            path,
            is: kind_of(&meta.file_type()),
            expected: "file",
        });
    }
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .with_context(|| format!("could not read {}", path.display()))?;
    if bytes.len() as u64 > limit {
        return Ok(Plain::TooLarge);
    }
    Ok(Plain::File(bytes))
}

/// What a file that is not a plain one is, in words: "a symbolic link", "a named pipe", "a
/// folder"...
pub fn kind_of(kind: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_fifo() {
            return "a named pipe";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_dir() {
        "a folder"
    } else if kind.is_file() {
        "a file"
    } else {
        "not a file"
    }
}

/// Opens `path` with `options`, failing if it is a link (made one since it was looked at), and
/// without waiting for a writer if it is a named pipe (made one since): the caller looks at
/// what it opened. Also the banner cache's lock file is opened so.
pub fn open_no_follow(
    path: &Path,
    options: &mut std::fs::OpenOptions,
) -> std::io::Result<std::fs::File> {
    // Regular files ignore O_NONBLOCK: reads of them never wait.
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(
        options,
        (rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK).bits() as i32,
    );
    #[cfg(not(unix))]
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(std::io::Error::other("it is a link"));
    }
    options.open(path)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A named pipe at `path`, made by mkfifo(1): the standard library has no call for it,
    /// and libc's is a raw call into C.
    fn make_fifo(path: &Path) {
        let made = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .expect("mkfifo runs");
        assert!(made.success(), "mkfifo {}", path.display());
    }

    #[test]
    fn links_and_special_files_are_named_not_read() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::create_dir(root.join("data")).unwrap();
        std::fs::write(root.join("data/plain.json"), "{}").unwrap();
        std::os::unix::fs::symlink(root.join("data/plain.json"), root.join("data/link.json"))
            .unwrap();
        std::os::unix::fs::symlink(root.join("data"), root.join("linked")).unwrap();
        make_fifo(&root.join("data/pipe.json"));

        assert_eq!(
            read_plain_at_most(root, "data/plain.json", 2).unwrap(),
            Plain::File(b"{}".to_vec())
        );
        assert_eq!(
            read_plain_at_most(root, "data/plain.json", 1).unwrap(),
            Plain::TooLarge
        );
        assert_eq!(
            read_plain_at_most(root, "data/none.json", 10).unwrap(),
            Plain::Missing
        );
        let not = |relative: &str, path: &str, is: &'static str, expected: &'static str| {
            assert_eq!(
                read_plain_at_most(root, relative, 10).unwrap(),
                Plain::NotPlain {
                    path: root.join(path),
                    is,
                    expected
                },
                "{relative}"
            );
        };
        not(
            "data/link.json",
            "data/link.json",
            "a symbolic link",
            "file",
        );
        not("linked/plain.json", "linked", "a symbolic link", "folder");
        not("data/pipe.json", "data/pipe.json", "a named pipe", "file");
        not("data", "data", "a folder", "file");
    }

    /// A named pipe put where a plain file was looked at is opened without waiting for a
    /// writer, and seen for what it is once open. (Opened on a thread of its own: without
    /// O_NONBLOCK the open would wait for ever, and the test fails instead.)
    #[test]
    fn a_pipe_opened_in_a_files_place_is_not_waited_on() {
        use std::os::unix::fs::FileTypeExt;
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("pipe");
        make_fifo(&path);
        let (sent, opened) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = sent.send(
                open_no_follow(&path, std::fs::OpenOptions::new().read(true))
                    .map(|file| file.metadata()),
            );
        });
        let meta = opened
            .recv_timeout(std::time::Duration::from_secs(30))
            .expect("opening a named pipe waited for a writer")
            .unwrap()
            .unwrap();
        assert!(meta.file_type().is_fifo());
    }
}
