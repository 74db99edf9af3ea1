//! Codex CLI rollouts: `$CODEX_HOME` (else `~/.codex`) `sessions/YYYY/MM/DD/rollout-*.jsonl` and
//! the flat `archived_sessions/`.
//!
//! Every line is `{timestamp, type, payload}`. The model-visible log (`response_item`) and the
//! display log (`event_msg`) both carry the user's prompts, the assistant's replies and the
//! reasoning summaries, so each is kept once: whichever stream shows a text first emits it, and
//! the other stream's copy is dropped when it arrives (matched by a hash of the text, pair by
//! pair, so a prompt the user really sent twice is kept twice). Injected scaffolding (environment
//! context, user instructions, AGENTS.md text, developer messages) is kept as
//! [`MessageKind::Scaffolding`]: stored, not searched. `turn_context` may move the cwd mid-session.
//! What a later run needs to continue a file (session id, cwd, branch, model, unmatched prompt
//! hashes, tool calls awaiting output) travels in the resume state; it never holds message text.

use super::Places;
use super::codex_items::{self, Item};
use super::common::{self, Context, Str, opt_str};
use super::lines::LineReader;
use super::{Connector, Discovery, ParseOutput, ResumePoint, SessionInfo, SourceFile, SourceKind};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};

pub const SLUG: &str = cm_base::agent::Agent::Codex.slug();

/// Unmatched texts remembered for dedupe; the twin copy arrives within a few lines.
const DEDUPE_WINDOW: usize = 32;
/// How many lines after a text its twin may appear; older texts are not paired any more (a text
/// the other log never repeated must not swallow a later, unrelated copy).
const TWIN_DISTANCE: u64 = 64;
/// Tool calls awaiting their output, remembered across runs (to name outputs).
const PENDING_TOOLS: usize = 256;

pub struct Codex;

/// `$CODEX_HOME`, else `~/.codex`.
pub fn home(at: &Places) -> PathBuf {
    at.var("CODEX_HOME")
        .unwrap_or_else(|| at.home.join(".codex"))
}

impl Connector for Codex {
    fn slug(&self) -> &'static str {
        SLUG
    }

    fn discover(&self, at: &Places) -> Discovery {
        discover_in(&home(at))
    }

    fn parse_limited(
        &self,
        file: &SourceFile,
        from: &ResumePoint,
        max_bytes: u64,
    ) -> std::io::Result<ParseOutput> {
        parse_file(file, from, max_bytes)
    }
}

/// Live and archived rollouts under a Codex home directory.
pub fn discover_in(home: &Path) -> Discovery {
    let is_rollout = |n: &str| n.starts_with("rollout-") && n.ends_with(".jsonl");
    let mut d = Discovery::default();
    for (dir, depth) in [
        (home.join("sessions"), 3),
        (home.join("archived_sessions"), 0),
    ] {
        let walk = super::walk::files(&dir, depth, &is_rollout);
        d.files
            .extend(walk.files.into_iter().map(|path| SourceFile {
                agent: SLUG,
                path,
                kind: SourceKind::Lines,
                parent_session_id: None,
            }));
        d.errors.extend(walk.errors);
        d.looked_in.push(dir);
    }
    d
}

#[derive(Deserialize)]
struct Record<'a> {
    #[serde(borrow)]
    timestamp: Option<Str<'a>>,
    #[serde(rename = "type", borrow)]
    kind: Option<Str<'a>>,
    #[serde(borrow)]
    payload: Option<&'a RawValue>,
    /// Rollouts from before the `{timestamp, type, payload}` envelope: `{"record_type":"state"}`.
    #[serde(borrow)]
    record_type: Option<Str<'a>>,
    /// ... and a first line `{"id", "timestamp", "instructions", "git"}` with no type.
    #[serde(borrow)]
    id: Option<Str<'a>>,
}

/// Response item types that old rollouts wrote bare, one per line, without the envelope.
const BARE_ITEMS: &[&str] = &[
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "web_search_call",
];

#[derive(Deserialize)]
struct Meta<'a> {
    #[serde(borrow)]
    id: Option<Str<'a>>,
    #[serde(borrow)]
    timestamp: Option<Str<'a>>,
    #[serde(borrow)]
    cwd: Option<Str<'a>>,
    #[serde(borrow)]
    source: Option<&'a RawValue>,
    #[serde(borrow)]
    git: Option<Git<'a>>,
    #[serde(borrow)]
    model: Option<Str<'a>>,
}

#[derive(Deserialize)]
struct Git<'a> {
    #[serde(borrow)]
    branch: Option<Str<'a>>,
}

#[derive(Deserialize)]
struct TurnContext<'a> {
    #[serde(borrow)]
    cwd: Option<Str<'a>>,
    #[serde(borrow)]
    model: Option<Str<'a>>,
}

/// Which copy of a text this is, for pairing the two logs.
#[derive(Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Debug)]
pub(super) enum Channel {
    User,
    Assistant,
    Reasoning,
}

#[derive(Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Debug)]
pub(super) enum Stream {
    Response,
    Event,
}

#[derive(Default, Serialize, Deserialize)]
pub(super) struct State {
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default)]
    parent: Option<String>,
    #[serde(default)]
    workspace: Option<String>,
    #[serde(default)]
    git_branch: Option<String>,
    #[serde(default)]
    model: Option<String>,
    /// The latest record time, for old rollouts whose items carry none.
    #[serde(default)]
    last_time: Option<String>,
    /// Texts shown by one stream whose twin from the other stream has not arrived yet.
    #[serde(default)]
    unmatched: VecDeque<(Channel, Stream, String, u64)>,
    /// call_id -> tool name for calls whose output has not been seen.
    #[serde(default)]
    pub(super) pending_tools: BTreeMap<String, String>,
}

impl State {
    /// True when `text` is the twin of a text the other stream already showed (and consumes it);
    /// otherwise remembers it and returns false.
    pub(super) fn is_duplicate(
        &mut self,
        channel: Channel,
        stream: Stream,
        text: &str,
        line: u64,
    ) -> bool {
        self.unmatched
            .retain(|(_, _, _, at)| at.saturating_add(TWIN_DISTANCE) >= line);
        let hash = common::text_hash(text);
        if let Some(i) = self
            .unmatched
            .iter()
            .position(|(c, s, h, _)| *c == channel && *s != stream && *h == hash)
        {
            self.unmatched.remove(i);
            return true;
        }
        self.unmatched.push_back((channel, stream, hash, line));
        while self.unmatched.len() > DEDUPE_WINDOW {
            self.unmatched.pop_front();
        }
        false
    }
}

fn parse_file(
    file: &SourceFile,
    from: &ResumePoint,
    max_bytes: u64,
) -> std::io::Result<ParseOutput> {
    let mut reader = LineReader::open(&file.path, from)?;
    let mut state: State = from
        .state
        .as_ref()
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default();
    let session_id = state
        .session_id
        .clone()
        .unwrap_or_else(|| id_from_file_name(&file.path));
    let mut ctx = Context::for_file(file, session_id);
    ctx.parent_session_id = ctx.parent_session_id.take().or(state.parent.take());
    ctx.workspace = state.workspace.take();
    ctx.git_branch = state.git_branch.take();
    ctx.model = state.model.take();

    let mut out = ParseOutput::default();
    let mut session = SessionInfo::default();
    let mut last_time: Option<String> = state.last_time.take();

    while let Some((number, bytes)) = reader.next_record(from, max_bytes, &mut out.skipped)? {
        let rec: Record = match serde_json::from_slice(bytes) {
            Ok(r) => r,
            Err(e) => {
                out.skipped.push(common::malformed(number, &e));
                continue;
            }
        };
        let ts = opt_str(&rec.timestamp).and_then(common::normalise_time);
        if ts.is_some() {
            if session.started_at.is_none() {
                session.started_at = ts.clone();
            }
            last_time = ts.clone();
        }
        // Old rollouts time only their header: their items take the latest time known.
        let ts = ts.or_else(|| last_time.clone().or_else(|| session.started_at.clone()));
        let mut kind = opt_str(&rec.kind).unwrap_or("");
        let mut payload = rec.payload.map(RawValue::get).unwrap_or("null");
        if rec.payload.is_none() {
            // The pre-envelope format: the line itself is the item (or the session's header).
            let whole = std::str::from_utf8(bytes).unwrap_or("null");
            if BARE_ITEMS.contains(&kind) {
                (kind, payload) = ("response_item", whole);
            } else if kind.is_empty() && rec.record_type.is_some() {
                continue;
            } else if kind.is_empty() && rec.id.is_some() {
                (kind, payload) = ("session_meta", whole);
            }
        }
        let parsed = match kind {
            "session_meta" => serde_json::from_str::<Meta>(payload).map(|m| {
                apply_meta(&m, &mut ctx, &mut session);
            }),
            "turn_context" => serde_json::from_str::<TurnContext>(payload).map(|t| {
                if let Some(cwd) = opt_str(&t.cwd).filter(|c| !c.is_empty()) {
                    ctx.workspace = Some(cwd.to_owned());
                }
                if let Some(m) = opt_str(&t.model).filter(|m| !m.is_empty()) {
                    ctx.model = Some(m.to_owned());
                }
            }),
            "response_item" | "event_msg" | "compacted" => serde_json::from_str::<Item>(payload)
                .map(|item| {
                    let stream = match kind {
                        "event_msg" => Stream::Event,
                        _ => Stream::Response,
                    };
                    if kind == "compacted" {
                        codex_items::compacted(&ctx, number, ts, &item, &mut out.messages);
                    } else if let Some(title) = codex_items::item(
                        &ctx,
                        number,
                        ts,
                        stream,
                        &item,
                        &mut state,
                        &mut out.messages,
                    ) {
                        session.title = Some(title);
                    }
                }),
            "ordinal" | "world_state" | "inter_agent_communication" => Ok(()),
            "" => {
                out.skipped
                    .push(common::skipped(number, "record without a type"));
                continue;
            }
            k => {
                out.skipped.push(common::skipped(
                    number,
                    format!("unknown record type {k:?}"),
                ));
                continue;
            }
        };
        if let Err(e) = parsed {
            out.skipped.push(common::malformed(number, &e));
        }
    }

    let mut next = reader.resume_point();
    while state.pending_tools.len() > PENDING_TOOLS {
        state.pending_tools.pop_first();
    }
    state.session_id = Some(ctx.session_id.clone());
    state.parent = ctx.parent_session_id.clone();
    state.workspace = ctx.workspace.clone();
    state.git_branch = ctx.git_branch.clone();
    state.model = ctx.model.clone();
    state.last_time = last_time.clone();
    next.state = serde_json::to_value(&state).ok();
    out.next = next;
    session.agent = SLUG.into();
    session.session_id = ctx.session_id.clone();
    session.parent_session_id = ctx.parent_session_id.clone();
    session.source_path = ctx.source_path.clone();
    session.workspace = ctx.workspace.clone();
    session.git_branch = ctx.git_branch.clone();
    session.model = ctx.model.clone();
    session.ended_at = last_time;
    out.sessions.push(session);
    Ok(out)
}

fn apply_meta(m: &Meta, ctx: &mut Context, session: &mut SessionInfo) {
    if let Some(id) = opt_str(&m.id).filter(|i| !i.is_empty()) {
        ctx.session_id = id.to_owned();
    }
    if let Some(cwd) = opt_str(&m.cwd).filter(|c| !c.is_empty()) {
        ctx.workspace = Some(cwd.to_owned());
    }
    if let Some(b) = m
        .git
        .as_ref()
        .and_then(|g| opt_str(&g.branch))
        .filter(|b| !b.is_empty())
    {
        ctx.git_branch = Some(b.to_owned());
    }
    if let Some(model) = opt_str(&m.model).filter(|m| !m.is_empty()) {
        ctx.model = Some(model.to_owned());
    }
    if let Some(t) = opt_str(&m.timestamp).and_then(common::normalise_time) {
        session.started_at = Some(t);
    }
    if let Some(parent) = m.source.and_then(subagent_parent) {
        ctx.parent_session_id = Some(parent);
    }
}

/// `source: {"subagent": {"thread_spawn": {"parent_thread_id": ...}}}` -> the parent's id.
fn subagent_parent(source: &RawValue) -> Option<String> {
    if !source.get().starts_with('{') {
        return None;
    }
    let v: serde_json::Value = serde_json::from_str(source.get()).ok()?;
    let sub = v.get("subagent")?;
    sub.get("thread_spawn")
        .and_then(|t| t.get("parent_thread_id"))
        .or_else(|| sub.get("parent_thread_id"))
        .and_then(|p| p.as_str())
        .map(str::to_owned)
}

/// The thread UUID at the end of `rollout-YYYY-MM-DDThh-mm-ss-<uuid>.jsonl`, else the stem.
fn id_from_file_name(path: &Path) -> String {
    let stem = common::file_stem(path);
    let tail = stem.len().saturating_sub(36);
    match stem.get(tail..) {
        Some(id) if tail > 0 && id.bytes().filter(|b| *b == b'-').count() == 4 => id.to_owned(),
        _ => stem,
    }
}

#[cfg(test)]
mod tests;
