//! Claude Code transcripts: `$CLAUDE_CONFIG_DIR/projects` (else `~/.claude/projects`), one
//! `<project>/<session-uuid>.jsonl` per session, subagent transcripts in
//! `<project>/<session-uuid>/subagents/agent-<id>.jsonl` (older versions: `agent-<id>.jsonl`
//! beside the sessions).
//!
//! Each line is one record. `user` and `assistant` records carry an Anthropic Messages-shaped
//! `message` whose content is a string or a list of blocks; every block worth searching becomes
//! one message (text, thinking, tool call, tool result), all with the record's line number.
//! `summary`/`custom-title`/`ai-title` records name the session; bookkeeping records are
//! ignored; record types this module does not know are skipped and counted.
//!
//! A subagent's lines carry the parent's `sessionId`, so the subagent's own session id is
//! `<parent>:<file stem>`, linked to the parent through `parent_session_id`.

use super::Places;
use super::claude_content::{assistant_messages, string_content, user_messages};
use super::common::{self, Context, Str, opt_str};
use super::lines::LineReader;
use super::{Connector, Discovery, ParseOutput, ResumePoint, SessionInfo, SourceFile, SourceKind};
use crate::model::{MessageKind, Role};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub const SLUG: &str = cm_base::agent::Agent::Claude.slug();

/// How many tool calls awaiting their result are remembered across runs (to name results).
const PENDING_TOOLS: usize = 256;

pub struct Claude;

/// `$CLAUDE_CONFIG_DIR/projects`; else `~/.claude/projects` and, where some versions put it,
/// `$XDG_CONFIG_HOME/claude/projects` (`~/.config/claude/projects`).
pub fn projects_roots(at: &Places) -> Vec<PathBuf> {
    if let Some(dir) = at.var("CLAUDE_CONFIG_DIR") {
        return vec![dir.join("projects")];
    }
    let home = &at.home;
    let xdg = at
        .var("XDG_CONFIG_HOME")
        .unwrap_or_else(|| home.join(".config"));
    vec![home.join(".claude/projects"), xdg.join("claude/projects")]
}

impl Connector for Claude {
    fn slug(&self) -> &'static str {
        SLUG
    }

    fn discover(&self, at: &Places) -> Discovery {
        let mut d = Discovery::default();
        for root in projects_roots(at) {
            let found = discover_in(&root);
            d.looked_in.extend(found.looked_in);
            d.files.extend(found.files);
            d.errors.extend(found.errors);
        }
        d
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

/// Sessions and subagent transcripts under a `projects` directory.
pub fn discover_in(root: &Path) -> Discovery {
    let walk = super::walk::files(root, 3, &|n| n.ends_with(".jsonl"));
    let mut files = Vec::new();
    for path in walk.files {
        let depth = path
            .strip_prefix(root)
            .map(|r| r.components().count())
            .unwrap_or(0);
        let parent_session_id = match depth {
            // <project>/<session>.jsonl (or a legacy agent-*.jsonl; its parent is read from it)
            2 => None,
            // <project>/<session>/subagents/agent-*.jsonl
            4 if path.parent().and_then(Path::file_name) == Some("subagents".as_ref()) => path
                .parent()
                .and_then(Path::parent)
                .and_then(Path::file_name)
                .map(|s| s.to_string_lossy().into_owned()),
            _ => continue,
        };
        files.push(SourceFile {
            agent: SLUG,
            path,
            kind: SourceKind::Lines,
            parent_session_id,
        });
    }
    Discovery {
        looked_in: vec![root.to_path_buf()],
        files,
        errors: walk.errors,
    }
}

#[derive(Deserialize)]
struct Record<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Str<'a>>,
    #[serde(borrow)]
    cwd: Option<Str<'a>>,
    #[serde(rename = "gitBranch", borrow)]
    git_branch: Option<Str<'a>>,
    #[serde(borrow)]
    timestamp: Option<Str<'a>>,
    #[serde(rename = "sessionId", borrow)]
    session_id: Option<Str<'a>>,
    #[serde(rename = "isMeta")]
    is_meta: Option<bool>,
    #[serde(rename = "isCompactSummary")]
    is_compact_summary: Option<bool>,
    #[serde(borrow)]
    message: Option<ApiMessage<'a>>,
    #[serde(borrow)]
    summary: Option<Str<'a>>,
    #[serde(rename = "customTitle", borrow)]
    custom_title: Option<Str<'a>>,
    #[serde(rename = "aiTitle", borrow)]
    ai_title: Option<Str<'a>>,
    #[serde(borrow)]
    title: Option<Str<'a>>,
    /// `system` records: a string (other record types may put anything here).
    #[serde(borrow)]
    content: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct ApiMessage<'a> {
    #[serde(borrow)]
    model: Option<Str<'a>>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
}

/// What survives between incremental runs of one transcript.
#[derive(Default, serde::Serialize, Deserialize)]
pub(super) struct State {
    /// Tool calls whose result has not been seen yet: id -> tool name.
    #[serde(default)]
    pub(super) pending_tools: BTreeMap<String, String>,
    #[serde(default)]
    parent: Option<String>,
    #[serde(default)]
    workspace: Option<String>,
    #[serde(default)]
    git_branch: Option<String>,
    #[serde(default)]
    model: Option<String>,
}

/// Record types that hold no conversation: ignored without being counted as skipped.
const BOOKKEEPING: &[&str] = &[
    "file-history-snapshot",
    "attachment",
    "queue-operation",
    "mode",
    "last-prompt",
    "pr-link",
    "agent-name",
    "progress",
    "tag",
];

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
    let stem = common::file_stem(&file.path);
    let is_agent_file = stem.starts_with("agent-");
    let parent = file.parent_session_id.clone().or(state.parent.clone());
    let mut ctx = Context::for_file(file, String::new());
    ctx.parent_session_id = parent;
    ctx.workspace = state.workspace.take();
    ctx.git_branch = state.git_branch.take();
    ctx.model = state.model.take();
    set_session_id(&mut ctx, &stem, is_agent_file);

    let mut out = ParseOutput::default();
    let mut title: Option<(u8, String)> = None;
    let mut first_time: Option<String> = None;
    let mut last_time: Option<String> = None;

    while let Some((number, bytes)) = reader.next_record(from, max_bytes, &mut out.skipped)? {
        let rec: Record = match serde_json::from_slice(bytes) {
            Ok(r) => r,
            Err(e) => {
                out.skipped.push(common::malformed(number, &e));
                continue;
            }
        };
        let kind = opt_str(&rec.kind).unwrap_or("");
        match kind {
            "user" | "assistant" | "system" => {}
            "summary" => {
                keep_title(&mut title, 1, opt_str(&rec.summary));
                continue;
            }
            "custom-title" => {
                keep_title(
                    &mut title,
                    2,
                    opt_str(&rec.custom_title).or(opt_str(&rec.title)),
                );
                continue;
            }
            "ai-title" => {
                keep_title(
                    &mut title,
                    0,
                    opt_str(&rec.ai_title).or(opt_str(&rec.title)),
                );
                continue;
            }
            k if BOOKKEEPING.contains(&k) => continue,
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
        }
        // A legacy sidechain file names its parent session in every line.
        if is_agent_file
            && ctx.parent_session_id.is_none()
            && let Some(sid) = opt_str(&rec.session_id)
        {
            ctx.parent_session_id = Some(sid.to_owned());
            set_session_id(&mut ctx, &stem, true);
        }
        if let Some(cwd) = opt_str(&rec.cwd).filter(|c| !c.is_empty())
            && ctx.workspace.as_deref() != Some(cwd)
        {
            ctx.workspace = Some(cwd.to_owned());
        }
        if let Some(b) = opt_str(&rec.git_branch).filter(|b| !b.is_empty())
            && ctx.git_branch.as_deref() != Some(b)
        {
            ctx.git_branch = Some(b.to_owned());
        }
        let ts = opt_str(&rec.timestamp).and_then(common::normalise_time);
        if ts.is_some() {
            if first_time.is_none() {
                first_time = ts.clone();
            }
            last_time = ts.clone();
        }
        let meta = rec.is_meta == Some(true) || rec.is_compact_summary == Some(true);
        match kind {
            "system" => {
                if let Some(text) = rec
                    .content
                    .and_then(string_content)
                    .filter(|t| !t.is_empty())
                {
                    out.messages.push(ctx.message(
                        number,
                        Role::System,
                        MessageKind::Scaffolding,
                        ts,
                        text,
                    ));
                }
            }
            "user" => {
                let Some(msg) = rec.message else { continue };
                user_messages(&ctx, number, ts, meta, msg.content, &mut state, &mut out);
            }
            _ => {
                let Some(msg) = rec.message else { continue };
                if let Some(m) = opt_str(&msg.model).filter(|m| !m.is_empty())
                    && ctx.model.as_deref() != Some(m)
                {
                    ctx.model = Some(m.to_owned());
                }
                assistant_messages(&ctx, number, ts, msg.content, &mut state, &mut out);
            }
        }
    }

    let mut next = reader.resume_point();
    while state.pending_tools.len() > PENDING_TOOLS {
        state.pending_tools.pop_first();
    }
    state.parent = ctx.parent_session_id.clone();
    state.workspace = ctx.workspace.clone();
    state.git_branch = ctx.git_branch.clone();
    state.model = ctx.model.clone();
    next.state = serde_json::to_value(&state).ok();
    out.next = next;
    out.sessions.push(SessionInfo {
        agent: SLUG.into(),
        session_id: ctx.session_id.clone(),
        parent_session_id: ctx.parent_session_id.clone(),
        source_path: ctx.source_path.clone(),
        workspace: ctx.workspace.clone(),
        git_branch: ctx.git_branch.clone(),
        title: title.map(|(_, t)| t),
        started_at: first_time,
        ended_at: last_time,
        model: ctx.model.clone(),
    });
    Ok(out)
}

fn set_session_id(ctx: &mut Context, stem: &str, is_agent_file: bool) {
    ctx.session_id = match (&ctx.parent_session_id, is_agent_file) {
        (Some(parent), true) => format!("{parent}:{stem}"),
        _ => stem.to_owned(),
    };
}

/// Keep the title of highest rank (custom > summary > generated); later ones of equal rank win.
fn keep_title(title: &mut Option<(u8, String)>, rank: u8, new: Option<&str>) {
    let Some(new) = new.map(str::trim).filter(|t| !t.is_empty()) else {
        return;
    };
    if title.as_ref().is_none_or(|(r, _)| rank >= *r) {
        *title = Some((rank, new.to_owned()));
    }
}

#[cfg(test)]
mod tests;
