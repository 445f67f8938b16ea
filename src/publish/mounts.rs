//! Mount points inside a tree this tool reads or removes. A publication replaces the output
//! folder's tree as a whole, and a mounted volume cannot come along: a bind mount moves with
//! its folder into the old tree, which is then removed, and everything on the volume with it.
//! So a mount inside the output folder is refused before anything is staged (by the place,
//! from the table, and by the scan of the old tree, by device), and no removal ever descends
//! into one ([`remove_tree`]).
//!
//! A mount point is found two ways: in the kernel's mount table (`/proc/self/mountinfo` on
//! Linux), which also lists a bind mount of a folder of the same file system (same device
//! number), and by a device number that differs from the tree's top, where there is no table.

use anyhow::{Context, Result};
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

/// Every mount point the kernel lists for this process; empty where there is no table.
pub(super) struct MountTable(Vec<PathBuf>);

impl MountTable {
    pub fn read() -> MountTable {
        let Ok(table) = fs::read_to_string("/proc/self/mountinfo") else {
            return MountTable(Vec::new());
        };
        // The fifth field is the mount point, as seen from this process's root.
        let points = table
            .lines()
            .filter_map(|line| line.split(' ').nth(4))
            .filter_map(|point| path_from_bytes(unescape_mount_path(point)))
            .collect();
        MountTable(points)
    }

    pub fn contains(&self, path: &Path) -> bool {
        self.0.iter().any(|point| point == path)
    }

    /// The mount points strictly below `dir`, each once, outermost first.
    pub fn below(&self, dir: &Path) -> Vec<PathBuf> {
        let mut below: Vec<PathBuf> = self
            .0
            .iter()
            .filter(|point| point.starts_with(dir) && *point != dir)
            .cloned()
            .collect();
        below.sort();
        below.dedup();
        below
    }
}

#[cfg(unix)]
fn path_from_bytes(bytes: Vec<u8>) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

#[cfg(not(unix))]
fn path_from_bytes(_: Vec<u8>) -> Option<PathBuf> {
    None
}

/// `/proc/self/mountinfo` writes space, tab, newline and backslash as `\040`-style octal.
fn unescape_mount_path(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\'
            && i + 3 < bytes.len()
            && bytes[i + 1..i + 4]
                .iter()
                .all(|b| (b'0'..=b'7').contains(b))
        {
            let value = u32::from(bytes[i + 1] - b'0') * 64
                + u32::from(bytes[i + 2] - b'0') * 8
                + u32::from(bytes[i + 3] - b'0');
            out.push(u8::try_from(value).unwrap_or(b'?'));
            i += 4;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    out
}

/// A mount point's device differs from its parent's, or (a bind mount of a folder of the
/// same file system) the kernel lists it as mounted.
pub(super) fn is_mount_point(dir: &Path, parent: &Path) -> bool {
    device(dir) != device(parent) || MountTable::read().contains(dir)
}

/// What to do about mount points inside the output folder, or inside a staging folder.
pub(super) fn mount_advice(mounts: &[PathBuf]) -> String {
    let listed: Vec<String> = mounts.iter().map(|m| m.display().to_string()).collect();
    let (them, a_volume, a_link) = match mounts.len() {
        1 => ("it", "the volume", "a link to it in its place"),
        _ => ("them", "the volumes", "links to them in their places"),
    };
    format!(
        "unmount {them} (`umount {}`), mount {a_volume} outside the output folder and, to serve \
         the files, put {a_link} (links of yours are carried into each new site as they are)",
        listed.join(" ")
    )
}

/// Removes `top` and everything below it, as `fs::remove_dir_all` does, but never descends
/// into a mount point (by the mount table or by device number): what is below one stays, and
/// so do the folders that hold it, and the error names it and says what to do. Links are
/// removed, never followed.
#[cfg(unix)]
pub(super) fn remove_tree(top: &Path) -> Result<()> {
    remove_tree_seeing(top, MountTable::read())
}

/// [`remove_tree`], with the mount points of `table`.
#[cfg(unix)]
fn remove_tree_seeing(top: &Path, table: MountTable) -> Result<()> {
    let meta = match fs::symlink_metadata(top) {
        Err(error) if error.kind() == ErrorKind::NotFound => return Ok(()),
        other => other.with_context(|| format!("could not read {}", top.display()))?,
    };
    if !meta.is_dir() {
        return fs::remove_file(top).with_context(|| format!("could not remove {}", top.display()));
    }
    let guard = Guard {
        table,
        device: device(top),
    };
    let mut mounts = Vec::new();
    if guard.is_mount(top) {
        mounts.push(top.to_path_buf());
    } else {
        remove_below(top, &guard, &mut mounts)?;
    }
    if mounts.is_empty() {
        return fs::remove_dir(top).with_context(|| format!("could not remove {}", top.display()));
    }
    let listed: Vec<String> = mounts.iter().map(|m| m.display().to_string()).collect();
    Err(anyhow::anyhow!(
        "{} {}, and vatcar-site never deletes across a mount (the files on the volume are \
         untouched); {}, then run again",
        listed.join(", "),
        if mounts.len() == 1 {
            "is a mount point"
        } else {
            "are mount points"
        },
        mount_advice(&mounts)
    ))
}

/// Windows lists no mounts: a volume mounted in a folder is a reparse point, which
/// `remove_dir_all` removes without following, like a link.
#[cfg(not(unix))]
pub(super) fn remove_tree(top: &Path) -> Result<()> {
    match fs::remove_dir_all(top) {
        Err(error) if error.kind() == ErrorKind::NotFound => Ok(()),
        other => other.with_context(|| format!("could not remove {}", top.display())),
    }
}

#[cfg(unix)]
struct Guard {
    table: MountTable,
    device: Option<u64>,
}

#[cfg(unix)]
impl Guard {
    fn is_mount(&self, path: &Path) -> bool {
        self.table.contains(path) || device(path) != self.device
    }
}

/// Empties `dir`, leaving the mount points below it (added to `mounts`) and their ancestors.
#[cfg(unix)]
fn remove_below(dir: &Path, guard: &Guard, mounts: &mut Vec<PathBuf>) -> Result<()> {
    let entries = fs::read_dir(dir).with_context(|| format!("could not read {}", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("could not read {}", dir.display()))?;
        let path = entry.path();
        let is_dir = entry
            .file_type()
            .with_context(|| format!("could not read {}", path.display()))?
            .is_dir();
        if (is_dir && guard.is_mount(&path)) || guard.table.contains(&path) {
            // A file can be bind-mounted too; it could not be removed, but it is not tried.
            mounts.push(path);
            continue;
        }
        if is_dir {
            let before = mounts.len();
            remove_below(&path, guard, mounts)?;
            if mounts.len() == before {
                fs::remove_dir(&path)
                    .with_context(|| format!("could not remove {}", path.display()))?;
            }
        } else {
            fs::remove_file(&path)
                .with_context(|| format!("could not remove {}", path.display()))?;
        }
    }
    Ok(())
}

/// The device of `path` itself (a link is not followed).
pub(super) fn device(path: &Path) -> Option<u64> {
    fs::symlink_metadata(path).ok().and_then(|m| device_of(&m))
}

#[cfg(unix)]
pub(super) fn device_of(meta: &fs::Metadata) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    Some(meta.dev())
}

#[cfg(not(unix))]
pub(super) fn device_of(_: &fs::Metadata) -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mount_table_paths_are_unescaped() {
        assert_eq!(unescape_mount_path(r"/mnt/my\040disk"), b"/mnt/my disk");
        assert_eq!(unescape_mount_path(r"/a\134b\011c"), b"/a\\b\tc");
        // Not an escape: left as it is.
        assert_eq!(unescape_mount_path(r"/a\9b\04"), br"/a\9b\04");
    }

    #[test]
    fn the_mount_points_below_a_folder_leave_out_the_folder_and_its_neighbours() {
        let table = MountTable(
            [
                "/",
                "/srv/site",
                "/srv/site/b",
                "/srv/site/a/x",
                "/srv/sites",
                "/srv/site/b",
            ]
            .into_iter()
            .map(PathBuf::from)
            .collect(),
        );
        assert_eq!(
            table.below(Path::new("/srv/site")),
            [PathBuf::from("/srv/site/a/x"), PathBuf::from("/srv/site/b")]
        );
        assert!(table.contains(Path::new("/srv/site/b")));
        assert!(!table.contains(Path::new("/srv/site/a")));
    }

    #[cfg(unix)]
    #[test]
    fn a_removed_tree_is_gone_and_what_its_links_point_to_stays() {
        let root = tempfile::tempdir().unwrap();
        let top = root.path().join("old");
        let outside = root.path().join("outside");
        fs::create_dir_all(top.join("a/b")).unwrap();
        fs::create_dir(&outside).unwrap();
        fs::write(outside.join("keep.txt"), "kept").unwrap();
        fs::write(top.join("a/b/page.html"), "x").unwrap();
        std::os::unix::fs::symlink(&outside, top.join("a/linked")).unwrap();
        remove_tree(&top).unwrap();
        assert!(!top.exists());
        assert_eq!(
            fs::read_to_string(outside.join("keep.txt")).unwrap(),
            "kept"
        );
        // Nothing there is no error.
        remove_tree(&top).unwrap();
    }

    /// A tmpfs mounted by a test, unmounted when dropped; `None`, having said why, where
    /// mounting is not permitted.
    #[cfg(target_os = "linux")]
    struct Tmpfs(PathBuf);

    #[cfg(target_os = "linux")]
    impl Tmpfs {
        fn mount(at: &Path) -> Option<Tmpfs> {
            let ran = std::process::Command::new("mount")
                .args(["-t", "tmpfs", "tmpfs"])
                .arg(at)
                .output();
            match ran {
                Ok(out) if out.status.success() => Some(Tmpfs(at.to_path_buf())),
                other => {
                    eprintln!("skipped: mount is not permitted here: {other:?}");
                    None
                }
            }
        }
    }

    #[cfg(target_os = "linux")]
    impl Drop for Tmpfs {
        fn drop(&mut self) {
            let _ = std::process::Command::new("umount").arg(&self.0).status();
        }
    }

    /// Where there is no mount table (macOS, the BSDs), the device number alone stops the
    /// scan of an output folder and a removal at a mounted volume.
    #[cfg(target_os = "linux")]
    #[test]
    fn without_a_mount_table_a_volume_is_told_by_its_device() {
        let root = tempfile::tempdir().unwrap();
        let top = root.path().join("old");
        let volume = top.join("a").join("volume");
        fs::create_dir_all(&volume).unwrap();
        fs::write(top.join("a").join("page.html"), "x").unwrap();
        let Some(_mounted) = Tmpfs::mount(&volume) else {
            return;
        };
        fs::write(volume.join("precious.txt"), "kept").unwrap();

        let error =
            super::super::tree::OldTree::scan(&top, super::super::FolderKind::Site, None, false, 0)
                .unwrap_err();
        assert!(
            error.to_string().contains(&format!(
                "{} is on another device than the output folder",
                volume.display()
            )),
            "{error:#}"
        );

        let error = remove_tree_seeing(&top, MountTable(Vec::new())).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with(&format!("{} is a mount point", volume.display())),
            "{error:#}"
        );
        assert_eq!(
            fs::read_to_string(volume.join("precious.txt")).unwrap(),
            "kept"
        );
        assert!(
            !top.join("a").join("page.html").exists(),
            "the rest is removed"
        );
        assert!(volume.is_dir());
    }
}
