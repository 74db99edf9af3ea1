//! Claude Code message content: a string or Anthropic content blocks, turned into messages
//! (text, thinking, tool calls, tool results).

use super::ParseOutput;
use super::claude::State;
use super::common::{self, Context, Str, opt_str};
use crate::model::{MessageKind, Role};
use serde::Deserialize;
use serde_json::value::RawValue;

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Str<'a>>,
    #[serde(borrow)]
    text: Option<Str<'a>>,
    #[serde(borrow)]
    thinking: Option<Str<'a>>,
    #[serde(borrow)]
    id: Option<Str<'a>>,
    #[serde(borrow)]
    name: Option<Str<'a>>,
    #[serde(borrow)]
    input: Option<&'a RawValue>,
    #[serde(borrow)]
    tool_use_id: Option<Str<'a>>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    is_error: Option<bool>,
}

impl Block<'_> {
    /// A block whose fields do not have the expected types: counted, not read.
    const UNREADABLE: Block<'static> = Block {
        kind: Some(Str(std::borrow::Cow::Borrowed(UNREADABLE_KIND))),
        text: None,
        thinking: None,
        id: None,
        name: None,
        input: None,
        tool_use_id: None,
        content: None,
        is_error: None,
    };
}

const UNREADABLE_KIND: &str = "\u{0}unreadable";

/// A content value that is a JSON string.
pub(super) fn string_content(raw: &RawValue) -> Option<String> {
    let s = raw.get();
    if !s.starts_with('"') {
        return None;
    }
    serde_json::from_str::<Str>(s)
        .ok()
        .map(|s| s.0.into_owned())
}

/// The blocks of a content value that is a list (`None` for a string or anything else).
fn blocks(raw: &RawValue) -> Option<Vec<Block<'_>>> {
    if !raw.get().starts_with('[') {
        return None;
    }
    let items: Vec<&RawValue> = serde_json::from_str(raw.get()).ok()?;
    Some(
        items
            .into_iter()
            .map(|b| serde_json::from_str(b.get()).unwrap_or(Block::UNREADABLE))
            .collect(),
    )
}

/// Tool result content: a string, or text blocks (images and other blocks are left out).
fn result_text(raw: Option<&RawValue>) -> String {
    let Some(raw) = raw else {
        return String::new();
    };
    if let Some(s) = string_content(raw) {
        return s;
    }
    let mut out = String::new();
    for b in blocks(raw).unwrap_or_default() {
        if let Some(t) = opt_str(&b.text) {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(t);
        }
    }
    out
}

pub(super) fn user_messages(
    ctx: &Context,
    number: u64,
    ts: Option<String>,
    meta: bool,
    content: Option<&RawValue>,
    state: &mut State,
    out: &mut ParseOutput,
) {
    let Some(content) = content else { return };
    let text_kind = if meta {
        MessageKind::Scaffolding
    } else {
        MessageKind::Text
    };
    if let Some(text) = string_content(content) {
        if !text.is_empty() {
            out.messages
                .push(ctx.message(number, Role::User, text_kind, ts, text));
        }
        return;
    }
    let mut text = String::new();
    for b in blocks(content).unwrap_or_default() {
        match opt_str(&b.kind) {
            Some("text") => {
                if let Some(t) = opt_str(&b.text).filter(|t| !t.is_empty()) {
                    if !text.is_empty() {
                        text.push('\n');
                    }
                    text.push_str(t);
                }
            }
            Some("tool_result") => {
                let tool_name =
                    opt_str(&b.tool_use_id).and_then(|id| state.pending_tools.remove(id));
                let mut m = ctx.message(
                    number,
                    Role::Tool,
                    MessageKind::ToolResult,
                    ts.clone(),
                    result_text(b.content),
                );
                m.tool_name = tool_name;
                m.is_error = b.is_error == Some(true);
                out.messages.push(m);
            }
            Some(UNREADABLE_KIND) => out.skipped.push(common::skipped(
                number,
                "content block with unexpected field types",
            )),
            _ => {}
        }
    }
    if !text.is_empty() {
        out.messages
            .push(ctx.message(number, Role::User, text_kind, ts, text));
    }
}

pub(super) fn assistant_messages(
    ctx: &Context,
    number: u64,
    ts: Option<String>,
    content: Option<&RawValue>,
    state: &mut State,
    out: &mut ParseOutput,
) {
    let Some(content) = content else { return };
    if let Some(text) = string_content(content) {
        if !text.is_empty() {
            out.messages
                .push(ctx.message(number, Role::Assistant, MessageKind::Text, ts, text));
        }
        return;
    }
    for b in blocks(content).unwrap_or_default() {
        match opt_str(&b.kind) {
            Some("text") => {
                // Moved, not copied: escaped text was already decoded into its own buffer.
                if let Some(Str(t)) = b.text
                    && !t.is_empty()
                {
                    let m = ctx.message(
                        number,
                        Role::Assistant,
                        MessageKind::Text,
                        ts.clone(),
                        t.into_owned(),
                    );
                    out.messages.push(m);
                }
            }
            Some("thinking") => {
                // Moved, not copied: escaped text was already decoded into its own buffer.
                if let Some(Str(t)) = b.thinking
                    && !t.is_empty()
                {
                    let m = ctx.message(
                        number,
                        Role::Assistant,
                        MessageKind::Thinking,
                        ts.clone(),
                        t.into_owned(),
                    );
                    out.messages.push(m);
                }
            }
            Some("tool_use") | Some("server_tool_use") => {
                let name = opt_str(&b.name).unwrap_or("").to_owned();
                let args = b.input.map(|r| r.get().to_owned());
                let text = args
                    .as_deref()
                    .map(common::flatten_args)
                    .unwrap_or_default();
                if let Some(id) = opt_str(&b.id) {
                    state.pending_tools.insert(id.to_owned(), name.clone());
                }
                let mut m = ctx.message(
                    number,
                    Role::Assistant,
                    MessageKind::ToolCall,
                    ts.clone(),
                    text,
                );
                m.tool_name = Some(name);
                m.tool_args = args;
                out.messages.push(m);
            }
            Some(UNREADABLE_KIND) => out.skipped.push(common::skipped(
                number,
                "content block with unexpected field types",
            )),
            _ => {}
        }
    }
}
