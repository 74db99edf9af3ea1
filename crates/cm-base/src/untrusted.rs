//! Reading files someone else may control: a cloned repository's `.cass/` files (config,
//! traumas, playbook) and the user's own files when a hook reads them.
//!
//! A repository can hold anything under those names: a symlink to `/dev/zero` or
//! `/dev/urandom` (endless), a FIFO (blocks forever on open or read), a directory, a file of
//! many megabytes. [`read`] opens without blocking (`O_NONBLOCK`, so a FIFO with no writer does
//! not hang the open), checks on the open descriptor that it is a regular file (no race with a
//! swap after a `stat`), and reads at most `cap` bytes. Symlinks to regular files are followed.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;

/// Identity and version of a file as read: a cache keyed by it is invalidated by any rewrite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Stamp {
    /// The device.
    pub dev: u64,
    /// The inode.
    pub ino: u64,
    /// The length in bytes.
    pub size: u64,
    /// The modification time, in nanoseconds since the epoch.
    pub mtime_ns: i128,
}

impl Stamp {
    /// The stamp of a file's metadata.
    pub fn of(meta: &std::fs::Metadata) -> Stamp {
        Stamp {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.len(),
            mtime_ns: meta.mtime() as i128 * 1_000_000_000 + meta.mtime_nsec() as i128,
        }
    }
}

/// What [`read`] got.
#[derive(Debug)]
pub struct Capped {
    /// At most `cap` bytes.
    pub bytes: Vec<u8>,
    /// The file is longer than `cap`; the rest was not read.
    pub truncated: bool,
    /// The stamp of the file as it was read.
    pub stamp: Stamp,
}

/// Open `path` for reading without blocking, and only if it is a regular file. `Ok(None)` when
/// it does not exist (a dangling symlink included).
pub fn open(path: &Path) -> std::io::Result<Option<(File, std::fs::Metadata)>> {
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("not a regular file ({}); refused", kind(&meta)),
        ));
    }
    Ok(Some((file, meta)))
}

/// Read at most `cap` bytes of the regular file at `path`; see [`open`].
pub fn read(path: &Path, cap: u64) -> std::io::Result<Option<Capped>> {
    let Some((file, meta)) = open(path)? else {
        return Ok(None);
    };
    let mut bytes = Vec::with_capacity(meta.len().min(cap) as usize);
    file.take(cap + 1).read_to_end(&mut bytes)?;
    let truncated = bytes.len() as u64 > cap;
    bytes.truncate(cap as usize);
    Ok(Some(Capped {
        bytes,
        truncated,
        stamp: Stamp::of(&meta),
    }))
}

/// [`read`] as text: invalid UTF-8 is an error, and so is a file over `cap` (callers that can
/// use a prefix call [`read`]).
pub fn read_text(path: &Path, cap: u64) -> std::io::Result<Option<String>> {
    let Some(c) = read(path, cap)? else {
        return Ok(None);
    };
    if c.truncated {
        return Err(std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!("larger than {}; refused", human_size(cap)),
        ));
    }
    String::from_utf8(c.bytes)
        .map(Some)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

/// The longest prefix of `bytes` that ends a line (all of it when it ends with a newline).
pub fn whole_lines(bytes: &[u8]) -> &[u8] {
    match memchr::memrchr(b'\n', bytes) {
        Some(i) => &bytes[..=i],
        None => &[],
    }
}

fn kind(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a plain file"
    }
}

/// `1 MiB`, `512 KiB`.
pub fn human_size(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_fifos_and_directories_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path and a mode.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let link = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        for p in [fifo.as_path(), link.as_path(), dir.path()] {
            let e = read(p, 1024).unwrap_err();
            assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput, "{p:?}");
            assert!(e.to_string().contains("not a regular file"), "{e}");
        }
        assert!(read(&dir.path().join("missing"), 10).unwrap().is_none());
    }

    #[test]
    fn reads_are_capped_and_report_truncation() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, "one\ntwo\nthree").unwrap();
        let c = read(&p, 9).unwrap().unwrap();
        assert_eq!(
            (c.bytes.as_slice(), c.truncated),
            (&b"one\ntwo\nt"[..], true)
        );
        assert_eq!(whole_lines(&c.bytes), b"one\ntwo\n");
        let c = read(&p, 100).unwrap().unwrap();
        assert!(!c.truncated);
        assert_eq!(c.stamp.size, 13);
        assert!(read_text(&p, 4).is_err());
    }
}
