//! One file at a time: a path checked to be a plain relative one, a staged file written, an
//! old file compared with new bytes.

use anyhow::{Context, Result, bail};
use std::fs;
use std::path::{Component, Path};

pub(super) fn check_relative(path: &str) -> Result<()> {
    let p = Path::new(path);
    let ok = !path.is_empty()
        && p.components().all(|c| matches!(c, Component::Normal(_)))
        && !path.contains('\\');
    if !ok {
        bail!("internal error: output path {path:?} is not a plain relative path");
    }
    Ok(())
}

/// Whether the file at `path` holds exactly `contents`: its length is checked before its
/// bytes are read, and they are read and compared a block at a time, into a buffer each thread
/// keeps (a rebuild compares every file it would otherwise write).
pub(super) fn same_bytes(path: &Path, contents: &[u8]) -> bool {
    use std::io::Read;
    const BLOCK: usize = 64 * 1024;
    thread_local! {
        static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let Ok(mut file) = fs::File::open(path) else {
        return false;
    };
    if file.metadata().ok().map(|meta| meta.len()) != Some(contents.len() as u64) {
        return false;
    }
    BUFFER.with_borrow_mut(|buffer| {
        buffer.resize(BLOCK, 0);
        let mut rest = contents;
        loop {
            let want = rest.len().min(BLOCK) + 1;
            // One byte more than is left, to see a file that grew since its length was read.
            let read = match file.read(&mut buffer[..want.min(BLOCK)]) {
                Ok(read) => read,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => return false,
            };
            if read == 0 {
                return rest.is_empty();
            }
            if read > rest.len() || buffer[..read] != rest[..read] {
                return false;
            }
            rest = &rest[read..];
        }
    })
}

pub(super) fn write_file(path: &Path, contents: &[u8]) -> Result<()> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)
            .with_context(|| format!("could not create {}", parent.display()))?;
    }
    fs::write(path, contents).with_context(|| format!("could not write {}", path.display()))
}
