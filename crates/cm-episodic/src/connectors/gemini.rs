//! Gemini CLI chats: `$GEMINI_CLI_HOME/.gemini` (else `~/.gemini`) `tmp/<project>/chats/session-*.json`, one
//! JSON document per session (`sessionId, projectHash, startTime, lastUpdated, messages[]`), plus
//! `session-*.jsonl` logs written one record per line by newer versions.
//!
//! A message is `{type: user|gemini|model|info|warning|error, content, timestamp}`; model
//! messages may carry `thoughts` (kept as thinking) and `toolCalls` (each a call and a result,
//! failed when its status says so). The project directory is a hash of the workspace path; when
//! the directory holds a `.project_root` file, that names the workspace.

use super::Places;
use super::common::{self, Context, Str, opt_str};
use super::document::{Document, LineCursor};
use super::lines::LineReader;
use super::{Connector, Discovery, ParseOutput, ResumePoint, SessionInfo, SourceFile, SourceKind};
use crate::model::{Message, MessageKind, Role};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::path::{Path, PathBuf};

pub const SLUG: &str = cm_base::agent::Agent::Gemini.slug();

pub struct Gemini;

/// The `tmp` directory holding per-project chats: `$GEMINI_CLI_HOME/.gemini/tmp` (Gemini CLI's
/// home is `$GEMINI_CLI_HOME`, else the user's), else cm's older `$GEMINI_HOME/tmp` (or
/// `$GEMINI_HOME/.gemini/tmp` when it points at a home directory), else `~/.gemini/tmp`.
pub fn tmp_root(at: &Places) -> PathBuf {
    if let Some(home) = at.var("GEMINI_CLI_HOME") {
        return home.join(".gemini/tmp");
    }
    match at.var("GEMINI_HOME") {
        Some(h) if !h.join("tmp").is_dir() && h.join(".gemini/tmp").is_dir() => {
            h.join(".gemini/tmp")
        }
        Some(h) => h.join("tmp"),
        None => at.home.join(".gemini/tmp"),
    }
}

impl Connector for Gemini {
    fn slug(&self) -> &'static str {
        SLUG
    }

    fn discover(&self, at: &Places) -> Discovery {
        discover_in(&tmp_root(at))
    }

    fn parse_limited(
        &self,
        file: &SourceFile,
        from: &ResumePoint,
        _max_bytes: u64,
    ) -> std::io::Result<ParseOutput> {
        match file.kind {
            SourceKind::Document => parse_document(file),
            SourceKind::Lines => parse_lines(file, from),
        }
    }
}

pub fn discover_in(root: &Path) -> Discovery {
    let walk = super::walk::files(root, 2, &|n| {
        n.starts_with("session-") && (n.ends_with(".json") || n.ends_with(".jsonl"))
    });
    let files = walk
        .files
        .into_iter()
        .filter(|p| p.parent().and_then(Path::file_name) == Some("chats".as_ref()))
        .map(|path| SourceFile {
            agent: SLUG,
            kind: if path.extension() == Some("jsonl".as_ref()) {
                SourceKind::Lines
            } else {
                SourceKind::Document
            },
            path,
            parent_session_id: None,
        })
        .collect();
    Discovery {
        looked_in: vec![root.to_path_buf()],
        files,
        errors: walk.errors,
    }
}

#[derive(Deserialize)]
struct Chat<'a> {
    #[serde(rename = "sessionId", borrow)]
    session_id: Option<Str<'a>>,
    #[serde(rename = "startTime", borrow)]
    start_time: Option<Str<'a>>,
    #[serde(rename = "lastUpdated", borrow)]
    last_updated: Option<Str<'a>>,
    #[serde(borrow)]
    summary: Option<Str<'a>>,
    #[serde(borrow, default)]
    messages: Vec<&'a RawValue>,
}

#[derive(Deserialize)]
struct Msg<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Str<'a>>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    #[serde(borrow)]
    timestamp: Option<Str<'a>>,
    #[serde(borrow)]
    model: Option<Str<'a>>,
    #[serde(borrow, default)]
    thoughts: Vec<Thought<'a>>,
    #[serde(rename = "toolCalls", borrow, default)]
    tool_calls: Vec<ToolCall<'a>>,
    /// A message record's id: Gemini CLI writes a record again, whole, when it changes (a reply
    /// gains its tool calls), so the last record of an id is the message.
    #[serde(borrow)]
    id: Option<Str<'a>>,
    /// A metadata update of a JSONL log (`lastUpdated`, `summary`, or `messages` replacing the
    /// history so far).
    #[serde(rename = "$set", borrow)]
    set: Option<&'a RawValue>,
    /// A rewind of a JSONL log to an earlier message (the records after it stay indexed).
    #[serde(rename = "$rewindTo", borrow)]
    rewind_to: Option<Str<'a>>,
    /// A header line of a JSONL log.
    #[serde(rename = "sessionId", borrow)]
    session_id: Option<Str<'a>>,
    #[serde(rename = "startTime", borrow)]
    start_time: Option<Str<'a>>,
}

#[derive(Deserialize)]
struct Thought<'a> {
    #[serde(borrow)]
    subject: Option<Str<'a>>,
    #[serde(borrow)]
    description: Option<Str<'a>>,
}

#[derive(Deserialize)]
struct ToolCall<'a> {
    #[serde(borrow)]
    name: Option<Str<'a>>,
    #[serde(borrow)]
    args: Option<&'a RawValue>,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
    #[serde(rename = "resultDisplay", borrow)]
    result_display: Option<&'a RawValue>,
    #[serde(borrow)]
    status: Option<Str<'a>>,
    #[serde(borrow)]
    timestamp: Option<Str<'a>>,
}

fn context(file: &SourceFile) -> Context {
    let mut ctx = Context::for_file(file, String::new());
    // tmp/<project>/chats/<file>: the project dir may name its root.
    ctx.workspace = file
        .path
        .parent()
        .and_then(Path::parent)
        .and_then(|p| std::fs::read_to_string(p.join(".project_root")).ok())
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty());
    ctx
}

fn parse_document(file: &SourceFile) -> std::io::Result<ParseOutput> {
    let doc = Document::read(&file.path)?;
    let mut out = ParseOutput {
        next: doc.end(),
        ..ParseOutput::default()
    };
    let chat: Chat = match serde_json::from_str(&doc.text) {
        Ok(c) => c,
        Err(e) => {
            out.skipped.push(common::malformed(e.line() as u64, &e));
            return Ok(out);
        }
    };
    let mut ctx = context(file);
    ctx.session_id = opt_str(&chat.session_id)
        .map(str::to_owned)
        .unwrap_or_else(|| common::file_stem(&file.path));
    let mut cursor = LineCursor::new(&doc.text);
    for raw in &chat.messages {
        let number = cursor.line_of(raw);
        match serde_json::from_str::<Msg>(raw.get()) {
            Ok(m) => message(&mut ctx, number, &m, &mut out),
            Err(e) => out.skipped.push(common::malformed(number, &e)),
        }
    }
    out.sessions.push(SessionInfo {
        agent: SLUG.into(),
        session_id: ctx.session_id.clone(),
        source_path: ctx.source_path.clone(),
        workspace: ctx.workspace.clone(),
        title: opt_str(&chat.summary).map(str::to_owned),
        started_at: opt_str(&chat.start_time).and_then(common::normalise_time),
        ended_at: opt_str(&chat.last_updated).and_then(common::normalise_time),
        model: ctx.model.clone(),
        ..SessionInfo::default()
    });
    Ok(out)
}

/// A `$set` record of a JSONL log.
#[derive(Deserialize)]
struct Set<'a> {
    #[serde(borrow, default)]
    messages: Vec<&'a RawValue>,
    #[serde(rename = "lastUpdated", borrow)]
    last_updated: Option<Str<'a>>,
    #[serde(borrow)]
    summary: Option<Str<'a>>,
}

fn parse_lines(file: &SourceFile, from: &ResumePoint) -> std::io::Result<ParseOutput> {
    let mut reader = LineReader::open(&file.path, from)?;
    let mut ctx = context(file);
    ctx.session_id = from
        .state
        .as_ref()
        .and_then(|s| s.get("session_id"))
        .and_then(|s| s.as_str())
        .map(str::to_owned)
        .unwrap_or_else(|| common::file_stem(&file.path));
    let mut out = ParseOutput::default();
    let mut started_at = None;
    let mut ended_at = None;
    let mut title = None;
    // The latest record of the message being written, held until a record of another message
    // shows it is final: (line, id, bytes).
    let mut pending: Option<(u64, String, Vec<u8>)> = None;
    let flush =
        |pending: &mut Option<(u64, String, Vec<u8>)>, ctx: &mut Context, out: &mut ParseOutput| {
            if let Some((number, _, bytes)) = pending.take()
                && let Ok(m) = serde_json::from_slice::<Msg>(&bytes)
            {
                message(ctx, number, &m, out);
            }
        };
    while let Some((number, bytes)) = reader.next_record(from, u64::MAX, &mut out.skipped)? {
        match serde_json::from_slice::<Msg>(bytes) {
            Ok(m) if m.set.is_some() => {
                let Ok(set) = serde_json::from_str::<Set>(m.set.map(RawValue::get).unwrap_or("{}"))
                else {
                    continue;
                };
                if let Some(t) = opt_str(&set.last_updated).and_then(common::normalise_time) {
                    ended_at = Some(t);
                }
                if let Some(t) = opt_str(&set.summary).filter(|t| !t.trim().is_empty()) {
                    title = Some(t.to_owned());
                }
                if !set.messages.is_empty() {
                    flush(&mut pending, &mut ctx, &mut out);
                }
                for raw in &set.messages {
                    match serde_json::from_str::<Msg>(raw.get()) {
                        Ok(m) => message(&mut ctx, number, &m, &mut out),
                        Err(e) => out.skipped.push(common::malformed(number, &e)),
                    }
                }
            }
            Ok(m) if m.rewind_to.is_some() => {}
            Ok(m) if m.kind.is_none() && m.session_id.is_some() => {
                ctx.session_id = opt_str(&m.session_id).unwrap_or_default().to_owned();
                started_at = opt_str(&m.start_time).and_then(common::normalise_time);
            }
            Ok(m) => match opt_str(&m.id) {
                Some(id) => {
                    if pending.as_ref().is_some_and(|(_, p, _)| p != id) {
                        flush(&mut pending, &mut ctx, &mut out);
                    }
                    pending = Some((number, id.to_owned(), bytes.to_vec()));
                }
                None => {
                    flush(&mut pending, &mut ctx, &mut out);
                    message(&mut ctx, number, &m, &mut out);
                }
            },
            Err(e) => out.skipped.push(common::malformed(number, &e)),
        }
    }
    flush(&mut pending, &mut ctx, &mut out);
    out.next = reader.resume_point();
    out.next.state = Some(serde_json::json!({ "session_id": ctx.session_id }));
    out.sessions.push(SessionInfo {
        agent: SLUG.into(),
        session_id: ctx.session_id.clone(),
        source_path: ctx.source_path.clone(),
        workspace: ctx.workspace.clone(),
        started_at,
        ended_at,
        title,
        model: ctx.model.clone(),
        ..SessionInfo::default()
    });
    Ok(out)
}

fn message(ctx: &mut Context, number: u64, m: &Msg, out: &mut ParseOutput) {
    if let Some(model) = opt_str(&m.model).filter(|s| !s.is_empty()) {
        ctx.model = Some(model.to_owned());
    }
    let ts = opt_str(&m.timestamp).and_then(common::normalise_time);
    let text = m.content.map(content_text).unwrap_or_default();
    let (role, kind, is_error) = match opt_str(&m.kind).unwrap_or("") {
        "user" => (Role::User, MessageKind::Text, false),
        "gemini" | "model" | "assistant" => (Role::Assistant, MessageKind::Text, false),
        "info" | "warning" => (Role::System, MessageKind::Scaffolding, false),
        "error" => (Role::System, MessageKind::Text, true),
        other => {
            out.skipped.push(common::skipped(
                number,
                format!("unknown message type {other:?}"),
            ));
            return;
        }
    };
    for t in &m.thoughts {
        let text = [opt_str(&t.subject), opt_str(&t.description)]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(": ");
        if !text.is_empty() {
            let msg = ctx.message(
                number,
                Role::Assistant,
                MessageKind::Thinking,
                ts.clone(),
                text,
            );
            out.messages.push(msg);
        }
    }
    if !text.trim().is_empty() {
        let mut msg = ctx.message(number, role, kind, ts.clone(), text);
        msg.is_error = is_error;
        out.messages.push(msg);
    }
    for call in &m.tool_calls {
        tool_call(ctx, number, ts.clone(), call, &mut out.messages);
    }
}

fn tool_call(
    ctx: &Context,
    number: u64,
    ts: Option<String>,
    call: &ToolCall,
    out: &mut Vec<Message>,
) {
    let ts = opt_str(&call.timestamp)
        .and_then(common::normalise_time)
        .or(ts);
    let name = opt_str(&call.name).unwrap_or("").to_owned();
    let args = call.args.map(|a| a.get().to_owned());
    let text = args
        .as_deref()
        .map(common::flatten_args)
        .unwrap_or_default();
    let mut m = ctx.message(
        number,
        Role::Assistant,
        MessageKind::ToolCall,
        ts.clone(),
        text,
    );
    m.tool_name = Some(name.clone());
    m.tool_args = args;
    out.push(m);
    let result = call
        .result
        .map(result_text)
        .filter(|t| !t.is_empty())
        .or_else(|| call.result_display.map(content_text))
        .unwrap_or_default();
    let failed = matches!(opt_str(&call.status), Some("error" | "cancelled"));
    if !result.is_empty() || failed {
        let mut r = ctx.message(number, Role::Tool, MessageKind::ToolResult, ts, result);
        r.tool_name = Some(name);
        r.is_error = failed;
        out.push(r);
    }
}

/// Message content: a string, or parts with `text`.
fn content_text(raw: &RawValue) -> String {
    match serde_json::from_str::<serde_json::Value>(raw.get()) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(serde_json::Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(|t| t.as_str()))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// A tool result: `[{functionResponse: {response: {output | error}}}]` or plain text.
fn result_text(raw: &RawValue) -> String {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(raw.get()) else {
        return String::new();
    };
    let mut out = Vec::new();
    let items = match &v {
        serde_json::Value::Array(a) => a.iter().collect(),
        other => vec![other],
    };
    for item in items {
        let resp = item
            .get("functionResponse")
            .and_then(|f| f.get("response"))
            .unwrap_or(item);
        for key in ["output", "error", "text"] {
            if let Some(s) = resp.get(key).and_then(|s| s.as_str()) {
                out.push(s.to_owned());
            }
        }
        if let Some(s) = resp.as_str() {
            out.push(s.to_owned());
        }
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_from_function_responses() {
        let raw: Box<RawValue> = serde_json::from_str(
            r#"[{"functionResponse":{"id":"x","name":"run_shell_command","response":{"output":"ok"}}}]"#,
        )
        .unwrap();
        assert_eq!(result_text(&raw), "ok");
        let raw: Box<RawValue> = serde_json::from_str(r#""plain""#).unwrap();
        assert_eq!(result_text(&raw), "plain");
    }

    #[test]
    fn jsonl_chats_are_read_line_by_line_and_resume() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("session-2026-08-12T10-00-abc.jsonl");
        let header =
            r#"{"sessionId":"abc-1","projectHash":"h","startTime":"2026-08-12T10:00:00.000Z"}"#;
        let user =
            r#"{"id":"m1","timestamp":"2026-08-12T10:00:01.000Z","type":"user","content":"hi"}"#;
        let reply = r#"{"id":"m2","timestamp":"2026-08-12T10:00:02.000Z","type":"gemini","content":"hello","model":"gemini-2.5-flash"}"#;
        std::fs::write(&path, format!("{header}\n{user}\n{{oops\n{}", &reply[..20])).unwrap();
        let file = SourceFile {
            agent: SLUG,
            path: path.clone(),
            kind: SourceKind::Lines,
            parent_session_id: None,
        };
        let first = Gemini.parse(&file, &ResumePoint::default()).unwrap();
        assert_eq!(first.messages.len(), 1);
        assert_eq!(first.messages[0].session_id, "abc-1");
        assert_eq!(first.messages[0].line_number, 2);
        assert_eq!(first.skipped.len(), 1);
        assert_eq!(
            first.sessions[0].started_at.as_deref(),
            Some("2026-08-12T10:00:00.000Z")
        );
        std::fs::write(&path, format!("{header}\n{user}\n{{oops\n{reply}\n")).unwrap();
        let second = Gemini.parse(&file, &first.next).unwrap();
        assert_eq!(second.messages.len(), 1);
        let m = &second.messages[0];
        assert_eq!(
            (m.line_number, m.session_id.as_str(), m.text.as_str()),
            (4, "abc-1", "hello")
        );
        assert_eq!(m.model.as_deref(), Some("gemini-2.5-flash"));
    }

    #[test]
    fn a_record_written_again_counts_once_and_set_records_are_read() {
        // The shape Gemini CLI 0.61 writes (`$set` metadata, a reply written again once it has
        // its tool calls, a rewind marker).
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("session-2026-12-03T07-22-44236e38.jsonl");
        let lines = [
            r#"{"sessionId":"s-061","projectHash":"h","startTime":"2026-12-03T07:22:14.396Z","lastUpdated":"2026-12-03T07:22:14.396Z","kind":"main"}"#,
            r#"{"$set":{"messages":[{"id":"c0","timestamp":"2026-12-03T07:22:14.401Z","type":"user","content":[{"text":"<session_context>OS: linux</session_context>"}]}]}}"#,
            r#"{"id":"u1","timestamp":"2026-12-03T07:22:14.758Z","type":"user","content":[{"text":"clean up"}]}"#,
            r#"{"$set":{"lastUpdated":"2026-12-03T07:22:14.759Z"}}"#,
            r#"{"id":"g1","timestamp":"2026-12-03T07:22:15.426Z","type":"gemini","content":"","model":"gemini-3.8-flash"}"#,
            r#"{"$set":{"lastUpdated":"2026-12-03T07:22:15.426Z"}}"#,
            r#"{"id":"g1","timestamp":"2026-12-03T07:22:15.426Z","type":"gemini","content":"","model":"gemini-3.8-flash","toolCalls":[{"id":"t1","name":"run_shell_command","args":{"command":"ls"},"status":"success","result":[{"functionResponse":{"id":"t1","name":"run_shell_command","response":{"output":"a.txt"}}}]}]}"#,
            r#"{"$rewindTo":"u1"}"#,
            r#"{"id":"g2","timestamp":"2026-12-03T07:22:15.543Z","type":"gemini","content":"done.","model":"gemini-3.8-flash"}"#,
            r#"{"$set":{"lastUpdated":"2026-12-03T07:22:15.543Z","summary":"Clean up"}}"#,
        ];
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let file = SourceFile {
            agent: SLUG,
            path,
            kind: SourceKind::Lines,
            parent_session_id: None,
        };
        let out = Gemini.parse(&file, &ResumePoint::default()).unwrap();
        let got: Vec<(u64, &str, Option<&str>)> = out
            .messages
            .iter()
            .map(|m| (m.line_number, m.text.as_str(), m.tool_name.as_deref()))
            .collect();
        assert_eq!(
            got,
            vec![
                (2, "<session_context>OS: linux</session_context>", None),
                (3, "clean up", None),
                (7, "ls", Some("run_shell_command")),
                (7, "a.txt", Some("run_shell_command")),
                (9, "done.", None),
            ]
        );
        assert!(out.skipped.is_empty(), "{:?}", out.skipped);
        let s = &out.sessions[0];
        assert_eq!(s.session_id, "s-061");
        assert_eq!(s.ended_at.as_deref(), Some("2026-12-03T07:22:15.543Z"));
        assert_eq!(s.title.as_deref(), Some("Clean up"));
    }

    #[test]
    fn content_is_a_string_or_parts() {
        let raw: Box<RawValue> = serde_json::from_str(r#"[{"text":"a"},{"text":"b"}]"#).unwrap();
        assert_eq!(content_text(&raw), "a\nb");
    }
}
