//! Mount points. An output folder that is one is published in place ([`super::swap::in_place`]).
//! One inside the output folder is refused before anything is staged (by the place, from the
//! table, and by the scan of the old tree, by device): a publication replaces the folder's tree
//! as a whole, and a mounted volume cannot come along. No removal descends into one.
//!
//! A mount point is found two ways: in the kernel's mount table (`/proc/self/mountinfo` on
//! Linux), which also lists a bind mount of a folder of the same file system (same device
//! number), and by a device number that differs from the tree's top, where there is no table.

use std::fs;
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
    let (them, a_volume, what) = match mounts.len() {
        1 => ("it", "the volume", "its files"),
        _ => ("them", "the volumes", "their files"),
    };
    format!(
        "unmount {them} (`umount {}`) and mount {a_volume} outside the output folder; to publish \
         {what}, copy {them} into the site folder's static/",
        listed.join(" ")
    )
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
                    // CI runs as root and asks for this test with VATCAR_REQUIRE_MOUNTS.
                    assert!(
                        std::env::var_os("VATCAR_REQUIRE_MOUNTS").is_none(),
                        "VATCAR_REQUIRE_MOUNTS is set, and mount failed: {other:?}"
                    );
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
        let Some(mut _mounted) = Tmpfs::mount(&volume) else {
            return;
        };
        fs::write(volume.join("precious.txt"), "kept").unwrap();

        let listed = ["a/page.html".to_owned()].into();
        let error =
            super::super::tree::OldTree::scan(&top, super::super::FolderKind::Site, None, &listed)
                .unwrap_err();
        assert!(
            error.to_string().contains(&format!(
                "{} is on another device than the output folder",
                volume.display()
            )),
            "{error:#}"
        );

        // An old tree being discarded: what is listed goes, the volume stays, kept aside.
        fs::write(
            top.join(super::super::MARKER),
            br#"{"generator": "x", "files": ["a/page.html", "a/volume/precious.txt"]}"#,
        )
        .unwrap();
        let kept_at = root.path().join("kept");
        let kept =
            super::super::swap::discard_seeing(&top, &kept_at, false, &MountTable(Vec::new()))
                .unwrap();
        assert_eq!(kept, ["a/volume/"]);
        assert!(!top.exists());
        assert!(
            !kept_at.join("a").join("page.html").exists(),
            "the rest is removed"
        );
        assert_eq!(
            fs::read_to_string(kept_at.join("a").join("volume").join("precious.txt")).unwrap(),
            "kept"
        );
        _mounted.0 = kept_at.join("a").join("volume");
    }
}
