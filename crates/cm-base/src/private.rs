//! The data directory is private to its user.
//!
//! It holds the store (every indexed transcript), the server's token and the config: on a shared
//! machine another user must not read any of it. So the directory is created 0700 and the files
//! cm creates in it 0600, whatever the umask says. A directory or file that already exists with
//! group or other bits (created by an older cm, or by hand) is tightened when cm next opens it,
//! but only when it belongs to the user running cm: a directory someone else set up on purpose
//! (a shared `CASS_MEMORY_HOME`) is left as it is. Each call costs a `stat`, and a `chmod` only
//! the first time.

use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Mode of the data directory and of directories cm creates in it.
pub(crate) const DIR_MODE: u32 = 0o700;
/// Mode of the files cm creates in the data directory.
pub const FILE_MODE: u32 = 0o600;

/// Whether `path` is the data directory or inside it.
pub(crate) fn in_data_dir(path: &Path) -> bool {
    path.starts_with(crate::paths::data_dir())
}

/// Create `dir` (and missing parents) 0700, and tighten it if it already existed.
pub fn create_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(DIR_MODE)
        .create(dir)?;
    tighten(dir);
    Ok(())
}

/// `create_dir_all` that makes the data directory (and anything under it) private; other
/// directories (a repository's `.cass/`) get the usual mode.
pub fn create_dir_all(dir: &Path) -> std::io::Result<()> {
    if in_data_dir(dir) {
        let data = crate::paths::data_dir();
        create_dir(&data)?;
        create_dir(dir)
    } else {
        std::fs::create_dir_all(dir)
    }
}

/// Options for a file created in the data directory: 0600 there, the usual mode elsewhere.
pub fn open_options(path: &Path) -> std::fs::OpenOptions {
    let mut o = std::fs::OpenOptions::new();
    if in_data_dir(path) {
        o.mode(FILE_MODE);
    }
    o
}

/// Take group and other permissions off `path` when it exists, is ours and has any.
/// Best effort: a failure leaves the file as it was.
pub fn tighten(path: &Path) {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return;
    };
    if meta.file_type().is_symlink() || meta.uid() != euid() {
        return;
    }
    let mode = meta.mode() & 0o7777;
    if mode & 0o077 != 0 {
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode & 0o700));
    }
}

/// Refuse `path` as a transcript when it is (or, through a symlink, resolves to) a file in the
/// data directory: the store, the server's token, the config. Reflecting on one would copy it
/// into the index, where a search reads it back.
pub fn refuse_as_transcript(path: &Path) -> crate::error::Result<()> {
    let data = crate::paths::data_dir();
    let data = std::fs::canonicalize(&data).unwrap_or(data);
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    if !real.starts_with(&data) {
        return Ok(());
    }
    Err(crate::error::CmError::usage(
        "PATH_IN_DATA_DIR",
        format!(
            "{} is in cm's data directory ({}), which holds the store, the server's token and the config, never a session log",
            path.display(),
            data.display()
        ),
    )
    .hint("pass the transcript file the agent wrote (under ~/.claude, ~/.codex, ~/.gemini, ...)"))
}

fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_directories_and_files_of_ours_are_tightened() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("data");
        std::fs::create_dir(&sub).unwrap();
        std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o755)).unwrap();
        let file = sub.join("cm.db");
        std::fs::write(&file, b"").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        create_dir(&sub).unwrap();
        tighten(&file);
        let mode = |p: &Path| std::fs::metadata(p).unwrap().mode() & 0o777;
        assert_eq!(mode(&sub), 0o700);
        assert_eq!(mode(&file), 0o600);
        let fresh = dir.path().join("a/b");
        create_dir(&fresh).unwrap();
        assert_eq!(mode(&fresh), 0o700);
        assert_eq!(mode(&dir.path().join("a")), 0o700);
    }
}
