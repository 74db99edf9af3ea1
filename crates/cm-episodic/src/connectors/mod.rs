//! Connectors: one module per agent, each turning that agent's session files into messages.
//!
//! A connector says where it looks ([`Connector::discover`]) and parses one source from a resume
//! point ([`Connector::parse`]). Line-oriented sources (JSONL, Markdown) resume from a byte
//! offset and stop at the last complete line; whole-document sources (JSON, SQLite) are re-read
//! when their size or modification time changes. Per-file state a connector needs across
//! incremental runs (a Codex session id, the current cwd, prompts already seen) travels in
//! [`ResumePoint::state`], which the index stores with the file.

use super::model::Message;
use std::path::PathBuf;

pub use places::Places;

pub mod aider;
pub mod claude;
mod claude_content;
pub mod cline;
pub mod codex;
mod codex_items;
pub mod common;
pub mod cursor;
mod cursor_db;
pub mod document;
pub mod editors;
pub mod foreign_db;
pub mod gemini;
pub mod injected;
pub mod lines;
pub mod opencode;
mod opencode_db;
mod places;
pub mod walk;

/// Every connector, in the order sources are listed and indexed.
pub fn all() -> Vec<Box<dyn Connector>> {
    vec![
        Box::new(claude::Claude),
        Box::new(codex::Codex),
        Box::new(gemini::Gemini),
        Box::new(aider::Aider),
        Box::new(opencode::OpenCode),
        Box::new(cline::Cline),
        Box::new(cursor::Cursor),
    ]
}

/// The connector for an agent slug (`claude`, `codex`, ...), if there is one.
pub fn by_slug(slug: &str) -> Option<Box<dyn Connector>> {
    all().into_iter().find(|c| c.slug() == slug)
}

/// How a source is read incrementally.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    /// Appended line by line; resumable from a byte offset.
    Lines,
    /// Rewritten as a whole (JSON document, SQLite database): re-read when changed.
    Document,
}

/// One file (or database) a connector found.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceFile {
    pub agent: &'static str,
    pub path: PathBuf,
    pub kind: SourceKind,
    /// For a subagent transcript: the parent session's id.
    pub parent_session_id: Option<String>,
}

/// What a connector reports about its search.
#[derive(Debug, Clone, Default)]
pub struct Discovery {
    /// Directories (or files) it looked in, whether or not they existed.
    pub looked_in: Vec<PathBuf>,
    pub files: Vec<SourceFile>,
    /// Places it could not read (permission denied, ...), with the reason.
    pub errors: Vec<(PathBuf, String)>,
}

/// Where to resume parsing a source.
#[derive(Debug, Clone, Default)]
pub struct ResumePoint {
    /// Byte offset of the first unread byte (Lines sources); 0 for a fresh read.
    pub offset: u64,
    /// 1-based number of the line starting at `offset`.
    pub line: u64,
    /// Connector-private state saved by the previous run for this file.
    pub state: Option<serde_json::Value>,
}

/// Session-level facts a connector learned (title, workspace, times, parent).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionInfo {
    pub agent: String,
    pub session_id: String,
    pub parent_session_id: Option<String>,
    pub source_path: String,
    pub workspace: Option<String>,
    pub git_branch: Option<String>,
    pub title: Option<String>,
    pub started_at: Option<String>,
    pub ended_at: Option<String>,
    pub model: Option<String>,
}

/// A record that was skipped, and why (counted per file; never fatal).
#[derive(Debug, Clone, PartialEq)]
pub struct Skipped {
    pub line: u64,
    pub reason: String,
}

#[derive(Debug, Clone, Default)]
pub struct ParseOutput {
    pub messages: Vec<Message>,
    pub sessions: Vec<SessionInfo>,
    /// Resume point for the next run: just past the last complete line consumed.
    pub next: ResumePoint,
    pub skipped: Vec<Skipped>,
}

pub trait Connector: Sync {
    /// Short agent name stored with every message: claude, codex, gemini, aider, opencode, cline, cursor.
    fn slug(&self) -> &'static str;
    /// Find this agent's sources under `at` (its home directory and the environment
    /// overrides that move an agent's files).
    fn discover(&self, at: &Places) -> Discovery;
    /// Parse `file` from `from`. I/O errors on the file itself are returned; bad records are
    /// counted in `skipped`.
    fn parse(&self, file: &SourceFile, from: &ResumePoint) -> std::io::Result<ParseOutput> {
        self.parse_limited(file, from, u64::MAX)
    }
    /// Like [`Connector::parse`], but a Lines source stops after the first complete line that
    /// takes it `max_bytes` past `from.offset`, so a huge file can be indexed in bounded memory
    /// by calling again from `next` (while `next.offset` keeps growing). Document sources ignore
    /// the limit.
    fn parse_limited(
        &self,
        file: &SourceFile,
        from: &ResumePoint,
        max_bytes: u64,
    ) -> std::io::Result<ParseOutput>;
}
