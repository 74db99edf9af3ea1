//! User-defined traumas: patterns the user taught the guard, on top of the built-in packs.
//!
//! Stored as JSON Lines, one [`Trauma`] per line: global ones in `<data dir>/traumas.jsonl`,
//! project ones in `<repo>/.cass/traumas.jsonl` (committed, so a team shares them). The CLI
//! writes these files (atomically, under a lock); the pre-tool hook only reads them. A line
//! that does not parse is skipped and reported, never rewritten.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The trauma file's name (in the data directory, or a repository's `.cass/`).
pub const FILE_NAME: &str = "traumas.jsonl";

/// How hard a trauma blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Blocked; a human can allow it (allow-list, heal).
    #[default]
    Critical,
    /// Blocked; allow-lists do not apply, only healing or removing the trauma does.
    Fatal,
}

/// Where a trauma applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum TraumaScope {
    /// Everywhere.
    #[default]
    Global,
    /// In its project only.
    Project,
}

/// A temporary disablement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Healed {
    /// When it was healed (RFC 3339).
    pub at: String,
    /// RFC 3339; `None` means until un-healed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
    /// Why it was healed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A command that hurt once, blocked from then on: one line of a trauma file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Trauma {
    /// `t-` followed by hex digits.
    pub id: String,
    /// A regular expression (Rust `regex` syntax) matched against each normalised command segment;
    /// for `files`-scoped traumas, against added lines of the staged diff.
    pub pattern: String,
    /// How hard it blocks.
    #[serde(default)]
    pub severity: Severity,
    /// Where it applies.
    #[serde(default)]
    pub scope: TraumaScope,
    /// What the agent is told when the pattern matches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Glob of files this trauma applies to in the pre-commit scan; `None` = commands only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<String>,
    /// user | scan | import.
    #[serde(default = "default_source")]
    pub source: String,
    /// When it was recorded (RFC 3339).
    pub created_at: String,
    /// Whether, and until when, it is healed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub healed: Option<Healed>,
}

fn default_source() -> String {
    "user".into()
}

impl Trauma {
    /// Active unless healed (and the heal has not expired at `now`, RFC 3339).
    pub fn is_active(&self, now: &str) -> bool {
        match &self.healed {
            None => true,
            Some(h) => h.until.as_deref().is_some_and(|until| until <= now),
        }
    }
}

/// The user's trauma file.
pub fn global_path() -> PathBuf {
    cm_base::paths::data_dir().join(FILE_NAME)
}

/// A repository's trauma file.
pub fn project_path(cass_dir: &Path) -> PathBuf {
    cass_dir.join(FILE_NAME)
}

/// A line that could not be read.
#[derive(Debug, Clone, PartialEq)]
pub struct BadLine {
    /// The file.
    pub path: PathBuf,
    /// Its line number (1-based).
    pub line: usize,
    /// What is wrong with it.
    pub error: String,
}

/// Parse a traumas file's text. Blank lines and `#` comments are ignored.
pub fn parse(path: &Path, text: &str) -> (Vec<Trauma>, Vec<BadLine>) {
    let mut good = Vec::new();
    let mut bad = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        match serde_json::from_str::<Trauma>(t) {
            Ok(tr) => good.push(tr),
            Err(e) => bad.push(BadLine {
                path: path.to_path_buf(),
                line: i + 1,
                error: e.to_string(),
            }),
        }
    }
    (good, bad)
}

/// Read a traumas file; a missing file is empty. Only a regular file is read, and only its
/// first [`super::trauma_cache::GLOBAL_CAP`] bytes (the lines past that are reported as one bad
/// line).
pub fn load(path: &Path) -> std::io::Result<(Vec<Trauma>, Vec<BadLine>)> {
    let cap = super::trauma_cache::GLOBAL_CAP;
    let Some(read) = cm_base::untrusted::read(path, cap)? else {
        return Ok((Vec::new(), Vec::new()));
    };
    let usable = if read.truncated {
        cm_base::untrusted::whole_lines(&read.bytes)
    } else {
        &read.bytes
    };
    let text = std::str::from_utf8(usable)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
    let (good, mut bad) = parse(path, text);
    if read.truncated {
        bad.push(BadLine {
            path: path.to_path_buf(),
            line: text.lines().count() + 1,
            error: format!(
                "the file is larger than {}; this line and the rest were not read",
                cm_base::untrusted::human_size(cap)
            ),
        });
    }
    Ok((good, bad))
}

/// A fresh id: `t-` and eight hex digits, derived from `seed` (the pattern), the clock and a
/// per-process counter, so two adds of the same pattern still differ.
pub fn new_id(seed: &str) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    seed.hash(&mut h);
    cm_base::fsutil::unique_suffix().hash(&mut h);
    format!("t-{:08x}", h.finish() as u32)
}

/// One JSON line for `trauma` (no trailing newline).
pub fn to_line(trauma: &Trauma) -> String {
    serde_json::to_string(trauma).expect("a trauma serializes")
}

/// The lock file that serialises read-modify-write cycles on the traumas file at `path`: a
/// hidden file beside it (`.traumas.jsonl.lock`), like the repository playbook's lock.
pub fn lock_path(path: &Path) -> PathBuf {
    let mut name = std::ffi::OsString::from(".");
    name.push(path.file_name().unwrap_or_default());
    name.push(".lock");
    path.with_file_name(name)
}
