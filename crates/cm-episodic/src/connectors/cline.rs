//! Cline (and its fork Roo Code) tasks, stored by the editor extension under
//! `<editor User dir>/globalStorage/<extension id>/tasks/<task id>/`:
//! `api_conversation_history.json` (the Anthropic-shaped conversation sent to the model),
//! `ui_messages.json` (what the panel showed, with `ts` epoch-millisecond times) and
//! `task_metadata.json` (models used).
//!
//! The conversation file is written as one compact JSON line, so a message's "line" is its
//! position in the conversation (1-based). Text blocks, tool calls and tool results become
//! messages; the `<environment_details>` block Cline appends to user turns is scaffolding, and it
//! names the workspace (`Current Working Directory (<path>)`). Older versions call tools in XML
//! inside the text and answer with `[tool] Result:` user text; those answers are tool results.
//! Times: a message's own `ts` when present, else the task's start (the task id is its epoch
//! milliseconds, and the first panel message carries it too).

use super::Places;
use super::common::{self, Context};
use super::{Connector, Discovery, ParseOutput, ResumePoint, SessionInfo, SourceFile, SourceKind};
use crate::model::{MessageKind, Role};
use serde_json::Value;
use std::path::{Path, PathBuf};

pub const SLUG: &str = cm_base::agent::Agent::Cline.slug();
pub const EXTENSIONS: &[&str] = &["saoudrizwan.claude-dev", "rooveterinaryinc.roo-cline"];
const CONVERSATION: &str = "api_conversation_history.json";

pub struct Cline;

impl Connector for Cline {
    fn slug(&self) -> &'static str {
        SLUG
    }

    fn discover(&self, at: &Places) -> Discovery {
        let roots: Vec<PathBuf> = super::editors::user_dirs(at, super::editors::VSCODE_FAMILY)
            .into_iter()
            .flat_map(|u| {
                EXTENSIONS
                    .iter()
                    .map(move |e| u.join("globalStorage").join(e))
            })
            .collect();
        discover_in(&roots)
    }

    fn parse_limited(
        &self,
        file: &SourceFile,
        _from: &ResumePoint,
        _max_bytes: u64,
    ) -> std::io::Result<ParseOutput> {
        parse_task(file)
    }
}

/// Task conversations under extension storage directories.
pub fn discover_in(roots: &[PathBuf]) -> Discovery {
    let mut d = Discovery::default();
    for root in roots {
        let tasks = root.join("tasks");
        for task in super::walk::subdirs(&tasks, &mut d.errors) {
            let path = task.join(CONVERSATION);
            if path.is_file() {
                d.files.push(SourceFile {
                    agent: SLUG,
                    path,
                    kind: SourceKind::Document,
                    parent_session_id: None,
                });
            }
        }
        d.looked_in.push(tasks);
    }
    d
}

fn read_json(path: &Path) -> Option<Value> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

fn parse_task(file: &SourceFile) -> std::io::Result<ParseOutput> {
    let bytes = std::fs::read(&file.path)?;
    let mut out = ParseOutput::default();
    out.next.offset = bytes.len() as u64;
    let conversation: Vec<Value> = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => {
            out.skipped.push(common::malformed(1, &e));
            return Ok(out);
        }
    };
    let dir = file.path.parent().unwrap_or(Path::new("."));
    let task_id = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let ui: Vec<Value> = read_json(&dir.join("ui_messages.json"))
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default();
    let meta = read_json(&dir.join("task_metadata.json")).unwrap_or(Value::Null);

    let ui_time = |i: usize| {
        ui.get(i)
            .and_then(|m| m.get("ts"))
            .and_then(common::json_time)
    };
    let started = ui_time(0).or_else(|| {
        task_id
            .parse::<f64>()
            .ok()
            .and_then(common::epoch_to_rfc3339)
    });
    let ended = ui
        .len()
        .checked_sub(1)
        .and_then(ui_time)
        .or(started.clone());
    let title = ui
        .iter()
        .find(|m| m.get("say").and_then(Value::as_str) == Some("task"))
        .and_then(|m| m.get("text").and_then(Value::as_str))
        .and_then(|t| t.lines().next())
        .map(|t| t.chars().take(120).collect::<String>());

    let mut ctx = Context::for_file(file, task_id);
    ctx.model = meta
        .get("model_usage")
        .and_then(Value::as_array)
        .and_then(|u| u.last())
        .and_then(|u| u.get("model_id"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    ctx.workspace = conversation.iter().find_map(workspace_of);
    let mut tool_names = std::collections::HashMap::new();
    for (i, msg) in conversation.iter().enumerate() {
        let position = i as u64 + 1;
        let role = match msg.get("role").and_then(Value::as_str) {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            _ => {
                out.skipped
                    .push(common::skipped(position, "message without a known role"));
                continue;
            }
        };
        let ts = msg
            .get("ts")
            .and_then(common::json_time)
            .or(started.clone());
        let blocks = match msg.get("content") {
            Some(Value::String(s)) => vec![serde_json::json!({"type": "text", "text": s})],
            Some(Value::Array(a)) => a.clone(),
            _ => Vec::new(),
        };
        for b in &blocks {
            let text = |k: &str| b.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
            let m = match b.get("type").and_then(Value::as_str) {
                Some("text") => {
                    let t = text("text");
                    if t.trim().is_empty() {
                        continue;
                    }
                    text_message(&ctx, position, role, ts.clone(), t)
                }
                Some("tool_use") => {
                    let args = b.get("input").map(Value::to_string);
                    let flat = args
                        .as_deref()
                        .map(common::flatten_args)
                        .unwrap_or_default();
                    let mut m = ctx.message(
                        position,
                        Role::Assistant,
                        MessageKind::ToolCall,
                        ts.clone(),
                        flat,
                    );
                    m.tool_name = Some(text("name"));
                    m.tool_args = args;
                    tool_names.insert(text("id"), text("name"));
                    m
                }
                Some("tool_result") => {
                    let body = match b.get("content") {
                        Some(Value::String(s)) => s.clone(),
                        Some(Value::Array(parts)) => parts
                            .iter()
                            .filter_map(|p| p.get("text").and_then(Value::as_str))
                            .collect::<Vec<_>>()
                            .join("\n"),
                        _ => String::new(),
                    };
                    let mut m = ctx.message(
                        position,
                        Role::Tool,
                        MessageKind::ToolResult,
                        ts.clone(),
                        body,
                    );
                    m.tool_name = tool_names.get(&text("tool_use_id")).cloned();
                    m.is_error = b.get("is_error").and_then(Value::as_bool) == Some(true);
                    m
                }
                _ => continue,
            };
            out.messages.push(m);
        }
    }
    out.sessions.push(SessionInfo {
        agent: SLUG.into(),
        session_id: ctx.session_id.clone(),
        source_path: ctx.source_path.clone(),
        workspace: ctx.workspace.clone(),
        title,
        started_at: started,
        ended_at: ended,
        model: ctx.model.clone(),
        ..SessionInfo::default()
    });
    Ok(out)
}

/// A text block: environment details are scaffolding, `[tool] Result:` answers are tool results.
fn text_message(
    ctx: &Context,
    position: u64,
    role: Role,
    ts: Option<String>,
    text: String,
) -> crate::model::Message {
    let trimmed = text.trim_start();
    if trimmed.starts_with("<environment_details>") {
        return ctx.message(position, role, MessageKind::Scaffolding, ts, text);
    }
    if role == Role::User
        && let Some(rest) = trimmed.strip_prefix('[')
        && let Some(close) = rest.find(']')
        && rest[close..].starts_with("] Result:")
    {
        let name = rest[..close].split_whitespace().next().map(str::to_owned);
        let failed = trimmed.contains("<error>") || trimmed.contains("[ERROR]");
        let mut m = ctx.message(position, Role::Tool, MessageKind::ToolResult, ts, text);
        m.tool_name = name;
        m.is_error = failed;
        return m;
    }
    ctx.message(position, role, MessageKind::Text, ts, text)
}

/// `# Current Working Directory (/path) Files` in a user turn's environment details.
fn workspace_of(msg: &Value) -> Option<String> {
    let texts: Vec<&str> = match msg.get("content")? {
        Value::String(s) => vec![s.as_str()],
        Value::Array(a) => a
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect(),
        _ => return None,
    };
    texts.iter().find_map(|t| {
        let i = t
            .find("Current Working Directory (")
            .map(|i| i + "Current Working Directory (".len())
            .or_else(|| {
                t.find("Current Workspace Directory (")
                    .map(|i| i + "Current Workspace Directory (".len())
            })?;
        let end = t[i..].find(')')?;
        Some(t[i..i + end].to_owned()).filter(|p| !p.is_empty())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workspace_comes_from_environment_details() {
        let msg = serde_json::json!({"role":"user","content":[{"type":"text","text":"<task>x</task>"},
            {"type":"text","text":"<environment_details>\n# Current Working Directory (/home/u/site) Files\nindex.html\n</environment_details>"}]});
        assert_eq!(workspace_of(&msg).as_deref(), Some("/home/u/site"));
    }
}
