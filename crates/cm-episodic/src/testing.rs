//! Test support for the episodic index: a minimal line connector (one JSON object per line:
//! `{"s": session, "r": role, "k": kind?, "t": text, "ts": time?}`) and helpers that index
//! such files through the real indexer into a real store.

use crate::connectors::{
    Connector, Discovery, ParseOutput, ResumePoint, Skipped, SourceFile, SourceKind,
};
use crate::index::{IndexReport, Options, run};
use crate::model::{Message, MessageKind, Role};
use cm_store::Store;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

pub struct Tiny;

impl Connector for Tiny {
    fn slug(&self) -> &'static str {
        "tiny"
    }
    fn discover(&self, _at: &super::connectors::Places) -> Discovery {
        Discovery::default()
    }
    fn parse(&self, file: &SourceFile, from: &ResumePoint) -> std::io::Result<ParseOutput> {
        self.parse_limited(file, from, u64::MAX)
    }
    fn parse_limited(
        &self,
        file: &SourceFile,
        from: &ResumePoint,
        max_bytes: u64,
    ) -> std::io::Result<ParseOutput> {
        let mut f = std::fs::File::open(&file.path)?;
        f.seek(SeekFrom::Start(from.offset))?;
        let mut buf = Vec::new();
        f.read_to_end(&mut buf)?;
        let mut out = ParseOutput::default();
        let (mut offset, mut line) = (from.offset, from.line.max(1));
        let mut rest = &buf[..];
        while let Some(nl) = rest.iter().position(|&b| b == b'\n') {
            let raw = &rest[..nl];
            match serde_json::from_slice::<serde_json::Value>(raw) {
                Ok(v) => out.messages.push(Message {
                    agent: "tiny".into(),
                    session_id: v["s"].as_str().unwrap_or("s").into(),
                    parent_session_id: None,
                    source_path: file.path.display().to_string(),
                    line_number: line,
                    workspace: Some("/home/u/proj".into()),
                    git_branch: None,
                    role: Role::parse(v["r"].as_str().unwrap_or("user")).unwrap_or(Role::User),
                    kind: match v["k"].as_str() {
                        Some("scaffolding") => MessageKind::Scaffolding,
                        Some("tool_result") => MessageKind::ToolResult,
                        _ => MessageKind::Text,
                    },
                    timestamp: v["ts"].as_str().map(String::from),
                    model: None,
                    text: v["t"].as_str().unwrap_or("").into(),
                    tool_name: None,
                    tool_args: None,
                    is_error: false,
                }),
                Err(_) => out.skipped.push(Skipped {
                    line,
                    reason: "malformed JSON".into(),
                }),
            }
            offset += nl as u64 + 1;
            line += 1;
            rest = &rest[nl + 1..];
            if offset - from.offset >= max_bytes {
                break;
            }
        }
        out.next = ResumePoint {
            offset,
            line,
            state: None,
        };
        Ok(out)
    }
}

pub fn store(dir: &Path) -> Store {
    Store::open(&dir.join("cm.db")).unwrap()
}

pub fn source(path: &Path) -> SourceFile {
    SourceFile {
        agent: "tiny",
        path: path.to_path_buf(),
        kind: SourceKind::Lines,
        parent_session_id: None,
    }
}

pub fn index(store: &Store, path: &Path) -> IndexReport {
    run(store, &[&Tiny], vec![source(path)], Options::default()).unwrap()
}

pub fn line(s: &str, r: &str, t: &str) -> String {
    serde_json::json!({"s": s, "r": r, "t": t}).to_string() + "\n"
}

/// The message count the planner statistics hold (`None`: never analysed).
pub fn analysed_messages(conn: &rusqlite::Connection) -> Option<i64> {
    conn.query_row(
        "SELECT stat FROM sqlite_stat1 WHERE tbl = 'episodic_messages'",
        [],
        |r| r.get::<_, String>(0),
    )
    .ok()?
    .split_whitespace()
    .next()?
    .parse()
    .ok()
}
