//! Codex `response_item` / `event_msg` payloads into messages: one flat typed view of every
//! payload variant (unknown fields ignored), scaffolding recognition, tool output decoding.

use super::codex::{Channel, State, Stream};
use super::common::{self, Context, Str, opt_str};
use crate::model::{Message, MessageKind, Role};
use serde::Deserialize;
use serde_json::value::RawValue;

/// Every field any handled payload variant uses.
#[derive(Deserialize)]
pub struct Item<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Str<'a>>,
    #[serde(borrow)]
    role: Option<Str<'a>>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    #[serde(borrow)]
    name: Option<Str<'a>>,
    #[serde(borrow)]
    arguments: Option<&'a RawValue>,
    #[serde(borrow)]
    call_id: Option<Str<'a>>,
    #[serde(borrow)]
    output: Option<&'a RawValue>,
    #[serde(borrow)]
    input: Option<&'a RawValue>,
    #[serde(borrow)]
    summary: Option<&'a RawValue>,
    #[serde(borrow)]
    message: Option<&'a RawValue>,
    #[serde(borrow)]
    text: Option<Str<'a>>,
    #[serde(borrow)]
    action: Option<&'a RawValue>,
    #[serde(borrow)]
    thread_name: Option<Str<'a>>,
}

#[derive(Deserialize)]
struct Part<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Str<'a>>,
    #[serde(borrow)]
    text: Option<Str<'a>>,
}

/// Openings of text Codex injects into the conversation on the user's behalf.
const SCAFFOLDING: &[&str] = &[
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<permissions instructions>",
    "<INSTRUCTIONS>",
    "<turn_aborted>",
    "<user_shell_command>",
];

pub fn is_scaffolding(text: &str) -> bool {
    let t = text.trim_start();
    SCAFFOLDING.iter().any(|p| t.starts_with(p))
}

/// Handle one `response_item`/`event_msg` payload. Returns a session title when the payload
/// names the thread.
pub fn item(
    ctx: &Context,
    number: u64,
    ts: Option<String>,
    stream: Stream,
    it: &Item,
    state: &mut State,
    out: &mut Vec<Message>,
) -> Option<String> {
    let kind = opt_str(&it.kind).unwrap_or("");
    match (stream, kind) {
        (Stream::Response, "message") => message(ctx, number, ts, it, state, out),
        (Stream::Response, "reasoning") => {
            for part in parts(it.summary) {
                if let Some(t) = opt_str(&part.text) {
                    push_once(ctx, number, &ts, Channel::Reasoning, stream, t, state, out);
                }
            }
        }
        (Stream::Response, "function_call") => {
            let args = it.arguments.map(decoded_string).unwrap_or_default();
            let text = common::flatten_args(&args);
            tool_call(
                ctx,
                number,
                ts,
                it,
                opt_str(&it.name).unwrap_or(""),
                args,
                text,
                state,
                out,
            );
        }
        (Stream::Response, "custom_tool_call") => {
            let raw = it.input.map(|r| r.get().to_owned());
            let text = it.input.map(decoded_string).unwrap_or_default();
            let args = raw.unwrap_or_default();
            tool_call(
                ctx,
                number,
                ts,
                it,
                opt_str(&it.name).unwrap_or(""),
                args,
                text,
                state,
                out,
            );
        }
        (Stream::Response, "local_shell_call" | "web_search_call") => {
            let args = it.action.map(|r| r.get().to_owned()).unwrap_or_default();
            let text = common::flatten_args(&args);
            let name = if kind == "web_search_call" {
                "web_search"
            } else {
                "local_shell"
            };
            tool_call(ctx, number, ts, it, name, args, text, state, out);
        }
        (Stream::Response, "function_call_output" | "custom_tool_call_output") => {
            let (text, is_error) = tool_output(it.output);
            let name = opt_str(&it.call_id).and_then(|id| state.pending_tools.remove(id));
            let mut m = ctx.message(number, Role::Tool, MessageKind::ToolResult, ts, text);
            m.tool_name = name;
            m.is_error = is_error;
            out.push(m);
        }
        (Stream::Event, "user_message") => {
            if let Some(t) = it
                .message
                .map(decoded_string)
                .filter(|t| !t.trim().is_empty())
            {
                user_prompt(ctx, number, &ts, stream, &t, state, out);
            }
        }
        (Stream::Event, "agent_message") => {
            if let Some(t) = it
                .message
                .map(decoded_string)
                .filter(|t| !t.trim().is_empty())
            {
                push_once(ctx, number, &ts, Channel::Assistant, stream, &t, state, out);
            }
        }
        (Stream::Event, "agent_reasoning") => {
            if let Some(t) = opt_str(&it.text) {
                push_once(ctx, number, &ts, Channel::Reasoning, stream, t, state, out);
            }
        }
        (Stream::Event, "error") => {
            if let Some(t) = it.message.map(decoded_string).filter(|t| !t.is_empty()) {
                let mut m = ctx.message(number, Role::System, MessageKind::Text, ts, t);
                m.is_error = true;
                out.push(m);
            }
        }
        (Stream::Event, "thread_name_updated") => {
            return opt_str(&it.thread_name)
                .or(opt_str(&it.name))
                .map(str::to_owned);
        }
        _ => {}
    }
    None
}

/// A `compacted` record: the summary that replaced earlier history. Stored, not searched.
pub fn compacted(
    ctx: &Context,
    number: u64,
    ts: Option<String>,
    it: &Item,
    out: &mut Vec<Message>,
) {
    if let Some(t) = it.message.map(decoded_string).filter(|t| !t.is_empty()) {
        out.push(ctx.message(number, Role::System, MessageKind::Scaffolding, ts, t));
    }
}

fn message(
    ctx: &Context,
    number: u64,
    ts: Option<String>,
    it: &Item,
    state: &mut State,
    out: &mut Vec<Message>,
) {
    let role = opt_str(&it.role).unwrap_or("");
    let parts = parts(it.content);
    let texts = parts
        .iter()
        .filter(|p| {
            matches!(
                opt_str(&p.kind),
                Some("input_text" | "output_text" | "text")
            )
        })
        .filter_map(|p| opt_str(&p.text));
    match role {
        "user" => {
            let mut prompt = String::new();
            for t in texts {
                if is_scaffolding(t) {
                    let m = ctx.message(
                        number,
                        Role::User,
                        MessageKind::Scaffolding,
                        ts.clone(),
                        t.to_owned(),
                    );
                    out.push(m);
                } else if !t.trim().is_empty() {
                    if !prompt.is_empty() {
                        prompt.push('\n');
                    }
                    prompt.push_str(t);
                }
            }
            if !prompt.is_empty() {
                user_prompt(ctx, number, &ts, Stream::Response, &prompt, state, out);
            }
        }
        "assistant" => {
            let text: String = texts.collect();
            if !text.trim().is_empty() {
                push_once(
                    ctx,
                    number,
                    &ts,
                    Channel::Assistant,
                    Stream::Response,
                    &text,
                    state,
                    out,
                );
            }
        }
        // developer and system messages are instructions the harness injected
        _ => {
            let text: Vec<&str> = texts.collect();
            if !text.is_empty() {
                let m = ctx.message(
                    number,
                    Role::System,
                    MessageKind::Scaffolding,
                    ts,
                    text.join("\n"),
                );
                out.push(m);
            }
        }
    }
}

/// The heading editor integrations put before the user's own words, after the editor context.
const IDE_REQUEST: &str = "## My request for Codex:";

/// A user prompt. Editor context sent with it (`# Context from my IDE setup: ... ## My request
/// for Codex:`) is scaffolding, kept once from the model-visible log; the request is the prompt,
/// and the two logs' copies are paired on the request alone.
fn user_prompt(
    ctx: &Context,
    number: u64,
    ts: &Option<String>,
    stream: Stream,
    text: &str,
    state: &mut State,
    out: &mut Vec<Message>,
) {
    let (context, request) = match text.find(IDE_REQUEST) {
        Some(i) if i == 0 || text[..i].ends_with('\n') => {
            (Some(text[..i].trim()), text[i + IDE_REQUEST.len()..].trim())
        }
        _ => (None, text),
    };
    if let Some(c) = context.filter(|c| !c.is_empty() && stream == Stream::Response) {
        let m = ctx.message(
            number,
            Role::User,
            MessageKind::Scaffolding,
            ts.clone(),
            c.to_owned(),
        );
        out.push(m);
    }
    if !request.is_empty() {
        push_once(ctx, number, ts, Channel::User, stream, request, state, out);
    }
}

/// Emit `text` unless it is the other stream's copy of something already emitted.
#[allow(clippy::too_many_arguments)]
fn push_once(
    ctx: &Context,
    number: u64,
    ts: &Option<String>,
    channel: Channel,
    stream: Stream,
    text: &str,
    state: &mut State,
    out: &mut Vec<Message>,
) {
    if state.is_duplicate(channel, stream, text, number) {
        return;
    }
    let (role, kind) = match channel {
        Channel::User => (Role::User, MessageKind::Text),
        Channel::Assistant => (Role::Assistant, MessageKind::Text),
        Channel::Reasoning => (Role::Assistant, MessageKind::Thinking),
    };
    out.push(ctx.message(number, role, kind, ts.clone(), text.to_owned()));
}

#[allow(clippy::too_many_arguments)]
fn tool_call(
    ctx: &Context,
    number: u64,
    ts: Option<String>,
    it: &Item,
    name: &str,
    args: String,
    text: String,
    state: &mut State,
    out: &mut Vec<Message>,
) {
    if let Some(id) = opt_str(&it.call_id) {
        state.pending_tools.insert(id.to_owned(), name.to_owned());
    }
    let mut m = ctx.message(number, Role::Assistant, MessageKind::ToolCall, ts, text);
    m.tool_name = Some(name.to_owned());
    m.tool_args = Some(args);
    out.push(m);
}

/// Content parts (`[{type, text}]`); anything else yields none.
fn parts(raw: Option<&RawValue>) -> Vec<Part<'_>> {
    match raw {
        Some(r) if r.get().starts_with('[') => serde_json::from_str(r.get()).unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// A JSON string's value; any other JSON value as its text.
fn decoded_string(raw: &RawValue) -> String {
    let s = raw.get();
    if s.starts_with('"') {
        serde_json::from_str::<String>(s).unwrap_or_default()
    } else {
        s.to_owned()
    }
}

#[derive(Deserialize)]
struct Wrapped<'a> {
    #[serde(borrow)]
    output: Option<&'a RawValue>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    success: Option<bool>,
    metadata: Option<OutputMeta>,
}

#[derive(Deserialize)]
struct OutputMeta {
    exit_code: Option<i64>,
}

/// A tool output's text and error flag. The output is a plain string, a JSON string holding
/// `{"output":..., "metadata":{"exit_code":...}}`, or an object with `content` (a string or
/// text parts) and `success`.
pub fn tool_output(raw: Option<&RawValue>) -> (String, bool) {
    let Some(raw) = raw else {
        return (String::new(), false);
    };
    let s = raw.get();
    if s.starts_with('"') {
        let text: String = serde_json::from_str(s).unwrap_or_default();
        if text.starts_with('{')
            && let Ok(w) = serde_json::from_str::<Wrapped>(&text)
            && (w.output.is_some() || w.content.is_some())
        {
            return unwrap_output(&w);
        }
        let failed = exit_code_in(&text).is_some_and(|c| c != 0);
        return (text, failed);
    }
    if s.starts_with('{')
        && let Ok(w) = serde_json::from_str::<Wrapped>(s)
    {
        return unwrap_output(&w);
    }
    if s.starts_with('[') {
        let text: Vec<String> = parts(Some(raw))
            .iter()
            .filter_map(|p| opt_str(&p.text).map(str::to_owned))
            .collect();
        return (text.join("\n"), false);
    }
    (s.to_owned(), false)
}

fn unwrap_output(w: &Wrapped) -> (String, bool) {
    let body = w.output.or(w.content);
    let text = match body {
        Some(b) if b.get().starts_with('[') => parts(Some(b))
            .iter()
            .filter_map(|p| opt_str(&p.text).map(str::to_owned))
            .collect::<Vec<_>>()
            .join("\n"),
        Some(b) => decoded_string(b),
        None => String::new(),
    };
    let code = w.metadata.as_ref().and_then(|m| m.exit_code);
    let failed = w.success == Some(false)
        || code.is_some_and(|c| c != 0)
        || (code.is_none() && exit_code_in(&text).is_some_and(|c| c != 0));
    (text, failed)
}

/// An exit code reported in the first lines of a shell tool's output
/// (`Exit code: 1`, `Process exited with code 1`).
fn exit_code_in(text: &str) -> Option<i64> {
    text.lines().take(6).find_map(|l| {
        let l = l.trim();
        let rest = l
            .strip_prefix("Exit code:")
            .or_else(|| l.strip_prefix("Process exited with code"))?;
        rest.trim().parse().ok()
    })
}
