//! The repository's shared playbook, `.cass/playbook.yaml`, committed with the code so a team
//! shares rules through git. Read-modify-write happens under an advisory lock and the file is
//! replaced atomically; a file that does not parse is reported with its path and never rewritten.

use super::bullet::Bullet;
use super::formats::{self, Format, PlaybookDoc};
use crate::error::{CmError, Result};
use crate::fsutil::{self, FileLock};
use std::path::{Path, PathBuf};

pub const FILE_NAME: &str = "playbook.yaml";

pub fn path_in(cass_dir: &Path) -> PathBuf {
    cass_dir.join(FILE_NAME)
}

/// The most of a repository playbook a command reads: a committed file comes from whoever wrote
/// the repository, and parsing YAML costs about 0.25 ms per KiB (4 MiB, some 13,000 rules: about
/// a second).
pub const LOAD_CAP: u64 = 4 << 20;
/// The most a context hook reads: it has [`crate::hooks::DEFAULT_BUDGET_MS`] for everything, and
/// 64 KiB (some 200 rules) parse in about 16 ms. A larger file is left out of the hooks, with a
/// line on stderr; `cm context` still reads it.
pub const HOOK_CAP: u64 = 64 << 10;

/// The bullets in `path`; a missing file is an empty playbook.
pub fn load(path: &Path) -> Result<Vec<Bullet>> {
    load_capped(path, LOAD_CAP)
}

/// [`load`], reading at most `cap` bytes (a larger file is an error naming it).
fn load_capped(path: &Path, cap: u64) -> Result<Vec<Bullet>> {
    // A committed file: only a regular one is read (never a FIFO or device), up to `cap`.
    let text = match crate::untrusted::read_text(path, cap) {
        Ok(Some(t)) => t,
        Ok(None) => return Ok(Vec::new()),
        Err(e) => return Err(CmError::io(path, "read", &e)),
    };
    formats::parse(&text, Format::Yaml).map_err(|msg| {
        CmError::config("REPO_PLAYBOOK_INVALID", format!("{}: {msg}", path.display()))
            .hint("fix the file by hand (cm never rewrites a file it cannot parse), or check it out again from git")
    })
}

/// The rules of the repository playbook that applies in `cwd`, for a reader that must not stop
/// at a broken file and has a deadline (the hooks): none when there is no file, and none, with a
/// line on stderr naming the file, when it cannot be read or parsed or is over [`HOOK_CAP`].
pub fn readable_in(cwd: &Path, who: &str) -> Vec<Bullet> {
    let Some(path) = crate::paths::repo_cass_dir(cwd)
        .map(|d| path_in(&d))
        .filter(|f| f.is_file())
    else {
        return Vec::new();
    };
    load_capped(&path, HOOK_CAP).unwrap_or_else(|e| {
        eprintln!(
            "{who}: {}; its rules are left out (a hook reads at most {} KiB of it; `cm context` reads up to {} MiB)",
            e.message,
            HOOK_CAP >> 10,
            LOAD_CAP >> 20
        );
        Vec::new()
    })
}

/// Load, change and write back `path` while holding its lock.
pub fn modify<T>(path: &Path, f: impl FnOnce(&mut Vec<Bullet>) -> Result<T>) -> Result<T> {
    let lock_path = path.with_file_name(".playbook.lock");
    let _lock = FileLock::acquire(&lock_path)?;
    let mut bullets = load(path)?;
    let value = f(&mut bullets)?;
    let doc = PlaybookDoc {
        schema_version: 2,
        name: Some("repository".into()),
        description: Some("Rules shared through git; managed by `cm playbook add --repo`.".into()),
        bullets,
    };
    let text = serde_norway::to_string(&doc)
        .map_err(|e| CmError::internal(format!("serialize playbook: {e}")))?;
    fsutil::write_atomic(path, text.as_bytes())?;
    Ok(value)
}
