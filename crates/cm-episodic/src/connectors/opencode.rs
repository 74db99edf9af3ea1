//! OpenCode sessions, in either of its storage layouts:
//! - v1.2+: one SQLite database `~/.local/share/opencode/opencode.db` (`$OPENCODE_SQLITE_DB`)
//!   with `session`, `message` and `part` tables whose `data` columns hold JSON;
//! - earlier: JSON files under `~/.local/share/opencode/storage` (`$OPENCODE_STORAGE_ROOT`):
//!   `session/<project>/<session>.json`, `message/<session>/<message>.json`,
//!   `part/<message>/<part>.json`.
//!
//! Both are read whole. A session migrated into the database is read from the database only.
//! A message is a list of parts: text (synthetic text is scaffolding), reasoning (thinking) and
//! tool parts (a call and its result, failed when the tool's status is `error`); bookkeeping
//! parts (step markers, snapshots, patches, files) are passed over. Each part's "line" is its
//! position among the session's parts (1-based), which stays stable as a session grows.

use super::Places;
use super::common::{self, Context};
use super::{Connector, Discovery, ParseOutput, ResumePoint, SessionInfo, SourceFile, SourceKind};
use crate::model::{Message, MessageKind, Role};
use serde_json::Value;
use std::path::{Path, PathBuf};

pub const SLUG: &str = cm_base::agent::Agent::OpenCode.slug();
pub const DB_FILE: &str = "opencode.db";

pub struct OpenCode;

/// `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode`.
pub fn data_dir(at: &Places) -> PathBuf {
    at.var("XDG_DATA_HOME")
        .unwrap_or_else(|| at.home.join(".local/share"))
        .join("opencode")
}

/// The legacy JSON storage directory.
pub fn storage_root(at: &Places) -> PathBuf {
    match at.var("OPENCODE_STORAGE_ROOT") {
        Some(r) if !r.join("session").is_dir() && r.join("storage").is_dir() => r.join("storage"),
        Some(r) => r,
        None => data_dir(at).join("storage"),
    }
}

pub fn db_path(at: &Places) -> PathBuf {
    at.var("OPENCODE_SQLITE_DB")
        .unwrap_or_else(|| data_dir(at).join(DB_FILE))
}

impl Connector for OpenCode {
    fn slug(&self) -> &'static str {
        SLUG
    }

    fn discover(&self, at: &Places) -> Discovery {
        discover_in(&storage_root(at), &db_path(at))
    }

    fn parse_limited(
        &self,
        file: &SourceFile,
        _from: &ResumePoint,
        _max_bytes: u64,
    ) -> std::io::Result<ParseOutput> {
        if file.path.extension() == Some("db".as_ref()) {
            super::opencode_db::parse(file)
        } else {
            parse_legacy(file)
        }
    }
}

pub fn discover_in(storage: &Path, db: &Path) -> Discovery {
    let mut d = Discovery {
        looked_in: vec![db.to_path_buf(), storage.join("session")],
        ..Discovery::default()
    };
    let mut in_db = Vec::new();
    if db.is_file() {
        d.files.push(SourceFile {
            agent: SLUG,
            path: db.to_path_buf(),
            kind: SourceKind::Document,
            parent_session_id: None,
        });
        match super::opencode_db::session_ids(db) {
            Ok(ids) => in_db = ids,
            Err(e) => d.errors.push((db.to_path_buf(), e.to_string())),
        }
    }
    let walk = super::walk::files(&storage.join("session"), 1, &|n| n.ends_with(".json"));
    d.files.extend(
        walk.files
            .into_iter()
            .filter(|p| !in_db.contains(&common::file_stem(p)))
            .map(|path| SourceFile {
                agent: SLUG,
                path,
                kind: SourceKind::Document,
                parent_session_id: None,
            }),
    );
    d.errors.extend(walk.errors);
    d
}

/// One message with its parts, in order.
pub struct Record {
    pub data: Value,
    pub parts: Vec<Value>,
}

/// Session-level facts from a session row or file (`title`, `directory`, `parentID`, times).
pub fn session_info(file: &SourceFile, session: &Value, id: &str) -> SessionInfo {
    let time = |k: &str| {
        session
            .get("time")
            .and_then(|t| t.get(k))
            .and_then(common::json_time)
    };
    SessionInfo {
        agent: SLUG.into(),
        session_id: id.to_owned(),
        parent_session_id: str_field(session, &["parentID", "parent_id"]),
        source_path: file.path.to_string_lossy().into_owned(),
        workspace: str_field(session, &["directory"]),
        title: str_field(session, &["title"]),
        started_at: time("created"),
        ended_at: time("updated"),
        ..SessionInfo::default()
    }
}

fn str_field(v: &Value, keys: &[&str]) -> Option<String> {
    keys.iter()
        .find_map(|k| v.get(*k).and_then(Value::as_str))
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// The messages of one session, its parts numbered 1.. in order.
pub fn session_messages(
    file: &SourceFile,
    info: &mut SessionInfo,
    records: &[Record],
    out: &mut ParseOutput,
) {
    let mut ctx = Context::for_file(file, info.session_id.clone());
    ctx.parent_session_id = info.parent_session_id.clone();
    ctx.workspace = info.workspace.clone();
    let mut position = 0u64;
    for rec in records {
        let d = &rec.data;
        let role = match d.get("role").and_then(Value::as_str) {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            Some("system") => Role::System,
            _ => Role::Assistant,
        };
        if let Some(cwd) = d
            .get("path")
            .and_then(|p| p.get("cwd"))
            .and_then(Value::as_str)
        {
            ctx.workspace = Some(cwd.to_owned());
        }
        if let Some(model) = str_field(d, &["modelID"])
            .or_else(|| d.get("model").and_then(|m| str_field(m, &["modelID"])))
        {
            ctx.model = Some(model);
        }
        let ts = d
            .get("time")
            .and_then(|t| t.get("created"))
            .and_then(common::json_time);
        for part in &rec.parts {
            position += 1;
            part_messages(&ctx, position, role, ts.clone(), part, out);
        }
    }
    info.model = ctx.model.clone();
    if info.workspace.is_none() {
        info.workspace = ctx.workspace.clone();
    }
}

/// Part types that hold no conversation text.
const BOOKKEEPING: &[&str] = &[
    "step-start",
    "step-finish",
    "snapshot",
    "patch",
    "file",
    "agent",
    "compaction",
    "retry",
    "subtask",
];

fn part_messages(
    ctx: &Context,
    position: u64,
    role: Role,
    ts: Option<String>,
    part: &Value,
    out: &mut ParseOutput,
) {
    let text = |k: &str| part.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    let started = |v: Option<&Value>| v.and_then(|t| t.get("start")).and_then(common::json_time);
    let ts = started(part.get("time"))
        .or_else(|| started(part.get("state").and_then(|s| s.get("time"))))
        .or(ts);
    let push = |m: Message, out: &mut ParseOutput| out.messages.push(m);
    match part.get("type").and_then(Value::as_str).unwrap_or("") {
        "text" => {
            let t = text("text");
            if t.trim().is_empty() {
                return;
            }
            let synthetic = part.get("synthetic").and_then(Value::as_bool) == Some(true);
            let kind = if synthetic {
                MessageKind::Scaffolding
            } else {
                MessageKind::Text
            };
            push(ctx.message(position, role, kind, ts, t), out);
        }
        "reasoning" => {
            let t = text("text");
            if !t.trim().is_empty() {
                push(
                    ctx.message(position, Role::Assistant, MessageKind::Thinking, ts, t),
                    out,
                );
            }
        }
        "tool" => {
            let name = text("tool");
            let state = part.get("state").cloned().unwrap_or(Value::Null);
            let args = state.get("input").map(Value::to_string);
            let mut call = ctx.message(
                position,
                Role::Assistant,
                MessageKind::ToolCall,
                ts.clone(),
                args.as_deref()
                    .map(common::flatten_args)
                    .unwrap_or_default(),
            );
            call.tool_name = Some(name.clone());
            call.tool_args = args;
            push(call, out);
            let failed = state.get("status").and_then(Value::as_str) == Some("error");
            let result = state
                .get(if failed { "error" } else { "output" })
                .map(|v| {
                    v.as_str()
                        .map(str::to_owned)
                        .unwrap_or_else(|| v.to_string())
                })
                .unwrap_or_default();
            if !result.is_empty() || failed {
                let mut r = ctx.message(position, Role::Tool, MessageKind::ToolResult, ts, result);
                r.tool_name = Some(name);
                r.is_error = failed;
                push(r, out);
            }
        }
        k if BOOKKEEPING.contains(&k) => {}
        k => out.skipped.push(common::skipped(
            position,
            format!("unknown part type {k:?}"),
        )),
    }
}

/// A legacy session file and the message and part files beside it in the storage tree.
fn parse_legacy(file: &SourceFile) -> std::io::Result<ParseOutput> {
    let text = std::fs::read_to_string(&file.path)?;
    let mut out = ParseOutput::default();
    out.next.offset = text.len() as u64;
    let session: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            out.skipped.push(common::malformed(e.line() as u64, &e));
            return Ok(out);
        }
    };
    let id = str_field(&session, &["id"]).unwrap_or_else(|| common::file_stem(&file.path));
    // <storage>/session/<project>/<id>.json
    let storage = file.path.ancestors().nth(3).unwrap_or(Path::new("."));
    let mut records = Vec::new();
    for msg_path in json_files(&storage.join("message").join(&id)) {
        let Some(data) = read_json(&msg_path, &mut out) else {
            continue;
        };
        let msg_id = str_field(&data, &["id"]).unwrap_or_else(|| common::file_stem(&msg_path));
        let mut parts: Vec<Value> = json_files(&storage.join("part").join(&msg_id))
            .iter()
            .filter_map(|p| read_json(p, &mut out))
            .collect();
        // Older versions kept the parts inside the message.
        if parts.is_empty()
            && let Some(Value::Array(inline)) = data.get("parts")
        {
            parts = inline.clone();
        }
        records.push((sort_key(&data, &msg_id), Record { data, parts }));
    }
    records.sort_by(|a, b| a.0.cmp(&b.0));
    let records: Vec<Record> = records.into_iter().map(|(_, r)| r).collect();
    let mut info = session_info(file, &session, &id);
    session_messages(file, &mut info, &records, &mut out);
    out.sessions.push(info);
    Ok(out)
}

/// Messages in creation order; ids (time-ordered in OpenCode) break ties.
fn sort_key(data: &Value, id: &str) -> (i64, String) {
    let created = data
        .get("time")
        .and_then(|t| t.get("created"))
        .and_then(Value::as_i64)
        .unwrap_or(0);
    (created, id.to_owned())
}

fn json_files(dir: &Path) -> Vec<PathBuf> {
    super::walk::files(dir, 0, &|n| n.ends_with(".json")).files
}

fn read_json(path: &Path, out: &mut ParseOutput) -> Option<Value> {
    let text = std::fs::read_to_string(path).ok()?;
    match serde_json::from_str(&text) {
        Ok(v) => Some(v),
        Err(e) => {
            let mut s = common::malformed(e.line() as u64, &e);
            s.reason = format!("{}: {}", path.display(), s.reason);
            out.skipped.push(s);
            None
        }
    }
}
