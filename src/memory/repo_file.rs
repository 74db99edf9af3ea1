//! The repository's shared playbook, `.cass/playbook.yaml`, committed with the code so a team
//! shares rules through git. Read-modify-write happens under an advisory lock and the file is
//! replaced atomically; a file that does not parse is reported with its path and never rewritten.
//! Readers get its rules through [`untrusted`]: only those that pass the playbook's safety check.

use super::bullet::Bullet;
use super::formats::{self, Format, PlaybookDoc};
use crate::error::{CmError, Result};
use crate::fsutil::{self, FileLock};
use std::path::{Path, PathBuf};
use std::time::Instant;

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

/// [`load`], reading at most `cap` bytes (a larger file is an error naming it). The file's
/// shape is bounded before it is parsed ([`super::parse_limits`]): a deeply nested or
/// alias-laden file is refused in microseconds instead of parsed for seconds.
fn load_capped(path: &Path, cap: u64) -> Result<Vec<Bullet>> {
    // A committed file: only a regular one is read (never a FIFO or device), up to `cap`.
    let text = match crate::untrusted::read_text(path, cap) {
        Ok(Some(t)) => t,
        Ok(None) => return Ok(Vec::new()),
        Err(e) => return Err(CmError::io(path, "read", &e)),
    };
    super::parse_limits::check(&text)
        .and_then(|()| formats::parse(&text, Format::Yaml))
        .map_err(|msg| {
            CmError::config("REPO_PLAYBOOK_INVALID", format!("{}: {msg}", path.display()))
                .hint("fix the file by hand (cm never rewrites a file it cannot parse), or check it out again from git")
        })
}

/// The rules of a repository file as cm may use them. The file is written by whoever wrote the
/// repository, so each passes the playbook's safety check
/// ([`super::safety`]); a refused rule is left out and named on stderr (the first five, then a
/// count). With a `deadline`, the rules not judged by then are left out too: a hook answers
/// with fewer repository rules rather than late or with an unjudged one.
pub fn untrusted(rules: Vec<Bullet>, who: &str, deadline: Option<Instant>) -> Vec<Bullet> {
    const SHOWN: usize = 5;
    let total = rules.len();
    let mut out = Vec::with_capacity(total);
    let mut refused = 0;
    for (i, b) in rules.into_iter().enumerate() {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            eprintln!(
                "{who}: {} repository rule(s) not checked before the deadline are left out",
                total - i
            );
            break;
        }
        if let Some(why) = super::safety::refusal(&b.content) {
            refused += 1;
            if refused <= SHOWN {
                eprintln!(
                    "{who}: repository rule {} left out: {why}",
                    crate::context::sanitize::clip(&b.id, 40)
                );
            }
            continue;
        }
        out.push(b);
    }
    if refused > SHOWN {
        eprintln!(
            "{who}: {} more repository rule(s) left out by the safety check",
            refused - SHOWN
        );
    }
    out
}

/// The rules of the repository playbook that applies in `cwd`, for a reader that must not stop
/// at a broken file and has a deadline (the hooks): none when there is no file, and none, with a
/// line on stderr naming the file, when it cannot be read or parsed or is over [`HOOK_CAP`].
/// Those it returns are [`untrusted`].
pub fn readable_in(cwd: &Path, who: &str, deadline: Instant) -> Vec<Bullet> {
    let Some(path) = crate::paths::repo_cass_dir(cwd)
        .map(|d| path_in(&d))
        .filter(|f| f.is_file())
    else {
        return Vec::new();
    };
    match load_capped(&path, HOOK_CAP) {
        Ok(rules) => untrusted(rules, who, Some(deadline)),
        Err(e) => {
            eprintln!(
                "{who}: {}; its rules are left out (a hook reads at most {} KiB of it; `cm context` reads up to {} MiB)",
                e.message,
                HOOK_CAP >> 10,
                LOAD_CAP >> 20
            );
            Vec::new()
        }
    }
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
