//! Reading Cursor's `state.vscdb` databases (see `cursor.rs` for the layout).

use super::common::{self, Context};
use super::cursor::{time_of, uri_to_path, workspace_folder};
use super::foreign_db::{self, text, to_io};
use super::{ParseOutput, SessionInfo, SourceFile};
use crate::model::{MessageKind, Role};
use rusqlite::{Connection, OptionalExtension};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

const CHAT_KEY: &str = "workbench.panel.aichat.view.aichat.chatdata";
const COMPOSERS_KEY: &str = "composer.composerData";

fn has_table(conn: &Connection, table: &str) -> bool {
    !foreign_db::columns(conn, table).is_empty()
}

fn item(conn: &Connection, key: &str) -> Option<Value> {
    let raw: Option<String> = conn
        .query_row("SELECT value FROM ItemTable WHERE key = ?1", [key], |r| {
            Ok(text(r, 0))
        })
        .optional()
        .ok()
        .flatten()
        .flatten();
    serde_json::from_str(&raw?).ok()
}

fn document_end(file: &SourceFile) -> ParseOutput {
    let mut out = ParseOutput::default();
    out.next.offset = std::fs::metadata(&file.path).map(|m| m.len()).unwrap_or(0);
    out
}

/// Composers in the global database's `cursorDiskKV`, their bubbles looked up by key.
pub fn parse_global(file: &SourceFile) -> std::io::Result<ParseOutput> {
    let conn = foreign_db::open_readonly(&file.path)?;
    let mut out = document_end(file);
    if !has_table(&conn, "cursorDiskKV") {
        return Ok(out);
    }
    let user_dir = file
        .path
        .parent()
        .and_then(Path::parent)
        .unwrap_or(Path::new("."));
    let owners = composer_workspaces(&user_dir.join("workspaceStorage"));
    let mut stmt = conn
        .prepare("SELECT key, value FROM cursorDiskKV WHERE key LIKE 'composerData:%' ORDER BY key")
        .map_err(to_io)?;
    let mut rows = stmt.query([]).map_err(to_io)?;
    let mut row_number = 0u64;
    while let Some(r) = rows.next().map_err(to_io)? {
        row_number += 1;
        let (Some(key), Some(value)) = (text(r, 0), text(r, 1)) else {
            continue;
        };
        let id = key.trim_start_matches("composerData:").to_owned();
        match serde_json::from_str::<Value>(&value) {
            Ok(v) => composer(&conn, file, &id, &v, owners.get(&id).cloned(), &mut out),
            Err(e) => out.skipped.push(common::malformed(row_number, &e)),
        }
    }
    Ok(out)
}

/// The older chat panel's tabs and any composers kept inline in a workspace database.
pub fn parse_workspace(file: &SourceFile) -> std::io::Result<ParseOutput> {
    let conn = foreign_db::open_readonly(&file.path)?;
    let mut out = document_end(file);
    if !has_table(&conn, "ItemTable") {
        return Ok(out);
    }
    let folder = file.path.parent().and_then(workspace_folder);
    if let Some(chat) = item(&conn, CHAT_KEY) {
        for tab in chat
            .get("tabs")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            chat_tab(file, tab, folder.clone(), &mut out);
        }
    }
    if let Some(all) = item(&conn, COMPOSERS_KEY) {
        for c in all
            .get("allComposers")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let inline = c
                .get("conversation")
                .and_then(Value::as_array)
                .is_some_and(|a| !a.is_empty());
            if inline && let Some(id) = c.get("composerId").and_then(Value::as_str) {
                composer(&conn, file, id, c, folder.clone(), &mut out);
            }
        }
    }
    Ok(out)
}

/// composerId -> workspace folder, from every workspace's `composer.composerData`.
fn composer_workspaces(workspace_storage: &Path) -> HashMap<String, String> {
    let mut map = HashMap::new();
    let mut errors = Vec::new();
    for ws in super::walk::subdirs(workspace_storage, &mut errors) {
        let Some(folder) = workspace_folder(&ws) else {
            continue;
        };
        let Ok(conn) = foreign_db::open_readonly(&ws.join(super::cursor::DB_FILE)) else {
            continue;
        };
        if !has_table(&conn, "ItemTable") {
            continue;
        }
        let Some(all) = item(&conn, COMPOSERS_KEY) else {
            continue;
        };
        for c in all
            .get("allComposers")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(id) = c.get("composerId").and_then(Value::as_str) {
                map.insert(id.to_owned(), folder.clone());
            }
        }
    }
    map
}

fn str_at<'v>(v: &'v Value, keys: &[&str]) -> Option<&'v str> {
    keys.iter()
        .find_map(|k| v.get(*k).and_then(Value::as_str))
        .filter(|s| !s.is_empty())
}

fn composer(
    conn: &Connection,
    file: &SourceFile,
    id: &str,
    v: &Value,
    owner: Option<String>,
    out: &mut ParseOutput,
) {
    let mut ctx = Context::for_file(file, id.to_owned());
    ctx.workspace = str_at(v, &["workspaceProjectDir"])
        .map(uri_to_path)
        .or_else(|| {
            v.get("workspaceUris")
                .and_then(Value::as_array)
                .and_then(|u| u.first())
                .and_then(Value::as_str)
                .map(uri_to_path)
        })
        .or(owner);
    let started = time_of(v.get("createdAt"));
    let before = out.messages.len();
    if let Some(conv) = v
        .get("conversation")
        .and_then(Value::as_array)
        .filter(|c| !c.is_empty())
    {
        for (i, b) in conv.iter().enumerate() {
            bubble(&mut ctx, i as u64 + 1, b, &started, out);
        }
    } else {
        let headers = v
            .get("fullConversationHeadersOnly")
            .and_then(Value::as_array);
        for (i, h) in headers.into_iter().flatten().enumerate() {
            let position = i as u64 + 1;
            let Some(bubble_id) = h.get("bubbleId").and_then(Value::as_str) else {
                continue;
            };
            let key = format!("bubbleId:{id}:{bubble_id}");
            let raw: Option<String> = conn
                .query_row(
                    "SELECT value FROM cursorDiskKV WHERE key = ?1",
                    [&key],
                    |r| Ok(text(r, 0)),
                )
                .optional()
                .ok()
                .flatten()
                .flatten();
            match raw.map(|r| serde_json::from_str::<Value>(&r)) {
                Some(Ok(b)) => bubble(&mut ctx, position, &b, &started, out),
                Some(Err(e)) => out.skipped.push(common::malformed(position, &e)),
                None => out.skipped.push(common::skipped(
                    position,
                    "bubble missing from cursorDiskKV",
                )),
            }
        }
    }
    if out.messages.len() == before && str_at(v, &["name"]).is_none() {
        return; // an empty composer the user never typed into
    }
    out.sessions.push(SessionInfo {
        agent: super::cursor::SLUG.into(),
        session_id: id.to_owned(),
        source_path: ctx.source_path.clone(),
        workspace: ctx.workspace.clone(),
        title: str_at(v, &["name"]).map(str::to_owned),
        started_at: started,
        ended_at: time_of(v.get("lastUpdatedAt")),
        model: ctx.model.clone(),
        ..SessionInfo::default()
    });
}

fn chat_tab(file: &SourceFile, tab: &Value, folder: Option<String>, out: &mut ParseOutput) {
    let Some(id) = str_at(tab, &["tabId"]) else {
        return;
    };
    let mut ctx = Context::for_file(file, id.to_owned());
    ctx.workspace = folder;
    let when = time_of(tab.get("lastSendTime"));
    let bubbles = tab.get("bubbles").and_then(Value::as_array);
    for (i, b) in bubbles.into_iter().flatten().enumerate() {
        bubble(&mut ctx, i as u64 + 1, b, &when, out);
    }
    out.sessions.push(SessionInfo {
        agent: super::cursor::SLUG.into(),
        session_id: id.to_owned(),
        source_path: ctx.source_path.clone(),
        workspace: ctx.workspace.clone(),
        title: str_at(tab, &["chatTitle"]).map(str::to_owned),
        ended_at: when,
        model: ctx.model.clone(),
        ..SessionInfo::default()
    });
}

/// One bubble: user or assistant text, thinking, and a tool call with its result.
fn bubble(
    ctx: &mut Context,
    position: u64,
    b: &Value,
    fallback_ts: &Option<String>,
    out: &mut ParseOutput,
) {
    let role = match b.get("type") {
        Some(Value::Number(n)) if n.as_i64() == Some(1) => Role::User,
        Some(Value::Number(n)) if n.as_i64() == Some(2) => Role::Assistant,
        Some(Value::String(s)) if s == "user" => Role::User,
        Some(Value::String(s)) if s == "ai" || s == "assistant" => Role::Assistant,
        _ => {
            out.skipped
                .push(common::skipped(position, "bubble of unknown type"));
            return;
        }
    };
    if let Some(model) = b
        .get("modelInfo")
        .and_then(|m| str_at(m, &["modelName"]))
        .or_else(|| str_at(b, &["modelType"]))
    {
        ctx.model = Some(model.to_owned());
    }
    let ts = time_of(b.get("createdAt"))
        .or_else(|| time_of(b.get("timingInfo").and_then(|t| t.get("clientStartTime"))))
        .or_else(|| fallback_ts.clone());
    if let Some(t) = b.get("thinking").and_then(|t| str_at(t, &["text"])) {
        out.messages.push(ctx.message(
            position,
            Role::Assistant,
            MessageKind::Thinking,
            ts.clone(),
            t.to_owned(),
        ));
    }
    let text = str_at(b, &["text", "rawText"])
        .map(str::to_owned)
        .or_else(|| str_at(b, &["richText"]).map(rich_text))
        .unwrap_or_default();
    if !text.trim().is_empty() {
        out.messages
            .push(ctx.message(position, role, MessageKind::Text, ts.clone(), text));
    }
    if let Some(tool) = b.get("toolFormerData").filter(|t| t.is_object()) {
        let name = str_at(tool, &["name", "tool"]).map(str::to_owned);
        let args = str_at(tool, &["rawArgs"]).map(str::to_owned).or_else(|| {
            tool.get("params").map(|p| {
                p.as_str()
                    .map(str::to_owned)
                    .unwrap_or_else(|| p.to_string())
            })
        });
        let flat = args
            .as_deref()
            .map(common::flatten_args)
            .unwrap_or_default();
        let mut call = ctx.message(
            position,
            Role::Assistant,
            MessageKind::ToolCall,
            ts.clone(),
            flat,
        );
        call.tool_name = name.clone();
        call.tool_args = args;
        out.messages.push(call);
        let status = str_at(tool, &["status"]).unwrap_or("");
        let failed = status == "error" || tool.get("error").is_some_and(|e| !e.is_null());
        let result = tool
            .get("result")
            .map(|r| {
                r.as_str()
                    .map(str::to_owned)
                    .unwrap_or_else(|| r.to_string())
            })
            .unwrap_or_default();
        if !result.is_empty() || failed {
            let mut r = ctx.message(position, Role::Tool, MessageKind::ToolResult, ts, result);
            r.tool_name = name;
            r.is_error = failed;
            out.messages.push(r);
        }
    }
}

/// The text nodes of a rich-text (Lexical) editor state, paragraphs on their own lines.
fn rich_text(raw: &str) -> String {
    fn walk(v: &Value, out: &mut String) {
        if let Some(t) = v.get("text").and_then(Value::as_str) {
            out.push_str(t);
        }
        if let Some(children) = v.get("children").and_then(Value::as_array) {
            for c in children {
                walk(c, out);
            }
            if v.get("type").and_then(Value::as_str) == Some("paragraph") {
                out.push('\n');
            }
        }
    }
    let mut out = String::new();
    if let Ok(v) = serde_json::from_str::<Value>(raw) {
        walk(v.get("root").unwrap_or(&v), &mut out);
    }
    out.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    #[test]
    fn rich_text_keeps_paragraphs() {
        let raw = r#"{"root":{"children":[{"children":[{"text":"fix the "},{"text":"bug"}],"type":"paragraph"},{"children":[{"text":"now"}],"type":"paragraph"}],"type":"root"}}"#;
        assert_eq!(super::rich_text(raw), "fix the bug\nnow");
    }
}
