//! What the index remembers about each source file, and the one-stat decision of what to do
//! with it on the next run.
//!
//! A file is identified by device + inode. Unchanged (same identity, size and mtime) costs one
//! `stat`. A line-oriented file that grew is resumed from the stored offset; one that shrank below
//! that offset, or whose identity changed, is re-read from the start after its old rows are
//! deleted. A whole-document source is re-read whenever its size or mtime changes.

use crate::connectors::{ResumePoint, SourceFile, SourceKind};
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

/// How many leading bytes are fingerprinted to notice a file rewritten under the same inode.
pub const HEAD_BYTES: usize = 1024;

/// A file's identity and shape as `stat` sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stat {
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mtime_ns: i64,
}

impl Stat {
    pub fn of(meta: &std::fs::Metadata) -> Stat {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Stat {
                dev: meta.dev(),
                ino: meta.ino(),
                size: meta.len(),
                mtime_ns: meta.mtime() * 1_000_000_000 + meta.mtime_nsec(),
            }
        }
        #[cfg(not(unix))]
        {
            let mtime_ns = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| d.as_nanos() as i64)
                .unwrap_or(0);
            Stat {
                dev: 0,
                ino: 0,
                size: meta.len(),
                mtime_ns,
            }
        }
    }
}

/// The stored row of `episodic_files` (what the last run left).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileRow {
    pub id: i64,
    pub stat: Stat,
    pub head_hash: Option<i64>,
    pub head_len: u64,
    pub offset: u64,
    pub next_line: u64,
    pub state: Option<String>,
}

/// What to do with one discovered source.
#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// Nothing changed since the last run.
    Unchanged,
    /// Read from the stored resume point (appended lines). The head must still match.
    Resume,
    /// Read from the start, replacing every row the file produced before.
    Reread(RereadWhy),
    /// Never seen before.
    New,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RereadWhy {
    /// The file is shorter than where reading stopped.
    Truncated,
    /// Another file now lives at the path (identity changed), or its head was rewritten.
    Replaced,
    /// A whole-document source changed.
    Changed,
    /// `--full` was asked for.
    Full,
}

impl RereadWhy {
    pub fn as_str(self) -> &'static str {
        match self {
            RereadWhy::Truncated => "truncated",
            RereadWhy::Replaced => "replaced",
            RereadWhy::Changed => "changed",
            RereadWhy::Full => "full",
        }
    }
}

/// Decide from the stored row and a fresh `stat` alone (no read).
pub fn plan(kind: SourceKind, row: Option<&FileRow>, now: Stat, full: bool) -> Plan {
    let Some(row) = row else {
        return Plan::New;
    };
    if full {
        return Plan::Reread(RereadWhy::Full);
    }
    let same_identity = row.stat.dev == now.dev && row.stat.ino == now.ino;
    if same_identity && row.stat.size == now.size && row.stat.mtime_ns == now.mtime_ns {
        return Plan::Unchanged;
    }
    match kind {
        SourceKind::Document => Plan::Reread(RereadWhy::Changed),
        SourceKind::Lines if !same_identity => Plan::Reread(RereadWhy::Replaced),
        SourceKind::Lines if now.size < row.offset => Plan::Reread(RereadWhy::Truncated),
        SourceKind::Lines => Plan::Resume,
    }
}

/// The resume point for a plan (`Resume` continues; everything else starts over).
pub fn resume_point(plan: &Plan, row: Option<&FileRow>) -> ResumePoint {
    match (plan, row) {
        (Plan::Resume, Some(row)) => ResumePoint {
            offset: row.offset,
            line: row.next_line.max(1),
            state: row
                .state
                .as_deref()
                .and_then(|s| serde_json::from_str(s).ok()),
        },
        _ => ResumePoint {
            offset: 0,
            line: 1,
            state: None,
        },
    }
}

/// FNV-1a over the first `len` bytes of `path` (fewer if the file is shorter). Stable across
/// builds, unlike the standard hasher.
pub fn head_hash(path: &Path, len: u64) -> std::io::Result<(i64, u64)> {
    let mut buf = Vec::with_capacity(len as usize);
    std::fs::File::open(path)?.take(len).read_to_end(&mut buf)?;
    Ok((fnv1a(&buf) as i64, buf.len() as u64))
}

pub use cm_base::text::hash::fnv1a;

/// Every stored file row, by path.
pub fn load_rows(conn: &rusqlite::Connection) -> rusqlite::Result<HashMap<String, FileRow>> {
    let mut stmt = conn.prepare(
        "SELECT id, path, dev, ino, size, mtime_ns, head_hash, head_len, offset, next_line, state
         FROM episodic_files",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(1)?,
            FileRow {
                id: r.get(0)?,
                stat: Stat {
                    dev: r.get::<_, Option<i64>>(2)?.unwrap_or(0) as u64,
                    ino: r.get::<_, Option<i64>>(3)?.unwrap_or(0) as u64,
                    size: r.get::<_, i64>(4)? as u64,
                    mtime_ns: r.get(5)?,
                },
                head_hash: r.get(6)?,
                head_len: r.get::<_, i64>(7)? as u64,
                offset: r.get::<_, i64>(8)? as u64,
                next_line: r.get::<_, i64>(9)? as u64,
                state: r.get(10)?,
            },
        ))
    })?;
    rows.collect()
}

/// A discovered file together with what the last run stored about it.
#[derive(Debug, Clone)]
pub struct Job {
    pub source: SourceFile,
    pub stat: Stat,
    pub plan: Plan,
    pub row: Option<FileRow>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(size: u64, offset: u64) -> FileRow {
        FileRow {
            id: 1,
            stat: Stat {
                dev: 1,
                ino: 7,
                size,
                mtime_ns: 100,
            },
            head_hash: None,
            head_len: 0,
            offset,
            next_line: 3,
            state: None,
        }
    }

    #[test]
    fn plans_follow_identity_size_and_mtime() {
        let r = row(100, 90);
        let same = r.stat;
        let grown = Stat {
            size: 150,
            mtime_ns: 200,
            ..same
        };
        let shrunk = Stat {
            size: 50,
            mtime_ns: 200,
            ..same
        };
        let other = Stat { ino: 8, ..grown };
        let touched = Stat {
            mtime_ns: 300,
            ..same
        };
        use SourceKind::*;
        let cases = [
            (Lines, None, same, false, Plan::New),
            (Lines, Some(&r), same, false, Plan::Unchanged),
            (Lines, Some(&r), grown, false, Plan::Resume),
            (Lines, Some(&r), touched, false, Plan::Resume),
            (
                Lines,
                Some(&r),
                shrunk,
                false,
                Plan::Reread(RereadWhy::Truncated),
            ),
            (
                Lines,
                Some(&r),
                other,
                false,
                Plan::Reread(RereadWhy::Replaced),
            ),
            (Lines, Some(&r), same, true, Plan::Reread(RereadWhy::Full)),
            (Document, Some(&r), same, false, Plan::Unchanged),
            (
                Document,
                Some(&r),
                touched,
                false,
                Plan::Reread(RereadWhy::Changed),
            ),
        ];
        for (kind, row, stat, full, want) in cases {
            assert_eq!(plan(kind, row, stat, full), want, "{kind:?} {stat:?}");
        }
    }

    #[test]
    fn resume_point_only_for_resume() {
        let r = FileRow {
            state: Some(r#"{"cwd":"/x"}"#.into()),
            ..row(100, 90)
        };
        let p = resume_point(&Plan::Resume, Some(&r));
        assert_eq!((p.offset, p.line), (90, 3));
        assert_eq!(p.state.unwrap()["cwd"], "/x");
        let p = resume_point(&Plan::Reread(RereadWhy::Truncated), Some(&r));
        assert_eq!((p.offset, p.line, p.state), (0, 1, None));
    }

    #[test]
    fn fnv_is_stable() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
