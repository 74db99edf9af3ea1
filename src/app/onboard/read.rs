//! `cm onboard read PATH [--template]`: one indexed session prepared for rule extraction: its
//! metadata, the categories it touches, the rules already close to it, the playbook's gaps, a
//! suggested focus and (with `--template`) the JSON `cm playbook add --file` accepts.
//!
//! The transcript is bounded: the first and last [`EDGE`] messages, and between them up to
//! [`MIDDLE`] failed tool calls and user corrections; each message's text is cut at
//! [`MESSAGE_CAP`] bytes (tool output at [`TOOL_CAP`]). What was left out is counted in `cut`.
//! The index redacted secrets when it stored the text; it is redacted again on the way out.

use super::Progress;
use super::sample::{shell_word, signals_of};
use super::template::{extraction_format, suggested_focus};
use crate::context::engine;
use crate::context::index::{self, Corpus};
use crate::context::rank::round3;
use crate::degraded::Degraded;
use crate::episodic::sessions::{self, Message, Session};
use crate::error::Result;
use crate::memory::playbook::Playbook;
use crate::onboard::signals;
use crate::redact::redact;
use crate::store::Store;
use serde::Serialize;
use serde_json::{Value, json};
use std::path::Path;

pub const EDGE: usize = 15;
pub const MIDDLE: usize = 30;
pub const MESSAGE_CAP: usize = 2000;
pub const TOOL_CAP: usize = 800;
/// Rules listed as related at most.
pub const RELATED: usize = 5;

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Metadata {
    pub path: Option<String>,
    pub agent: String,
    pub session_id: String,
    pub title: Option<String>,
    pub workspace: Option<String>,
    pub git_branch: Option<String>,
    pub started_at: Option<String>,
    pub ended_at: Option<String>,
    pub message_count: i64,
    pub errors: usize,
    pub corrections: usize,
    pub topic_hints: Vec<&'static str>,
    pub processed: bool,
    pub rules_citing: usize,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Shown {
    pub line_number: i64,
    pub role: String,
    pub kind: String,
    pub tool_name: Option<String>,
    pub is_error: bool,
    pub correction: bool,
    pub text: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Cut {
    pub messages_total: usize,
    pub messages_shown: usize,
    pub messages_omitted: usize,
    pub scaffolding_skipped: usize,
    pub texts_trimmed: usize,
    pub note: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Read {
    pub metadata: Metadata,
    pub context: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extraction_format: Option<Value>,
    pub messages: Vec<Shown>,
    pub session_content: String,
    pub cut: Cut,
    pub degraded: Degraded,
}

pub fn read(store: &Store, cwd: &Path, key: &str, template: bool) -> Result<Read> {
    let s = super::find_session(store, key)?;
    let (gaps, degraded) = super::gaps(store, cwd)?;
    let progress = Progress::load(store)?;
    let (sig, text) = signals_of(store, &s)?;
    let all = sessions::messages(store, &s.agent, &s.session_id, 0, i64::MAX)?;
    let (messages, cut) = bound(all);
    let session_content = render(&messages, &cut);
    let related = related_rules(store, cwd, &s, &text)?;
    let focus = suggested_focus(&sig.topics, &gaps);
    let path_arg = shell_word(s.source_path.as_deref().unwrap_or(&s.session_id));
    let context = json!({
        "relatedRules": related,
        "playbookGaps": {"critical": gaps.critical, "underrepresented": gaps.underrepresented},
        "suggestedFocus": focus,
    });
    let metadata = Metadata {
        processed: progress.is_done(&s),
        rules_citing: progress.rules_citing(&s),
        path: s.source_path,
        agent: s.agent,
        session_id: s.session_id,
        title: crate::context::sanitize::title(s.title),
        workspace: s.workspace,
        git_branch: s.git_branch,
        started_at: s.started_at,
        ended_at: s.ended_at,
        message_count: s.message_count,
        errors: sig.errors,
        corrections: sig.corrections,
        topic_hints: sig.topics,
    };
    Ok(Read {
        extraction_format: template.then(|| extraction_format(&path_arg, &metadata.topic_hints)),
        metadata,
        context,
        messages,
        session_content,
        cut,
        degraded,
    })
}

fn trimmed(text: &str, cap: usize) -> (String, bool) {
    let (text, _) = redact(text);
    if text.len() <= cap {
        return (text, false);
    }
    let mut end = cap;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (
        format!("{} [... {} more bytes]", &text[..end], text.len() - end),
        true,
    )
}

/// The messages shown, and what was cut.
pub fn bound(all: Vec<Message>) -> (Vec<Shown>, Cut) {
    let total = all.len();
    let kept: Vec<Message> = all
        .into_iter()
        .filter(|m| m.kind != "scaffolding")
        .collect();
    let scaffolding = total - kept.len();
    let n = kept.len();
    let flagged = |m: &Message| m.is_error || (m.role == "user" && signals::is_correction(&m.text));
    let mut middle_left = MIDDLE;
    let mut shown = Vec::new();
    let mut trimmed_count = 0;
    for (i, m) in kept.into_iter().enumerate() {
        let edge = i < EDGE || i + EDGE >= n;
        let keep = edge
            || (flagged(&m) && middle_left > 0 && {
                middle_left -= 1;
                true
            });
        if !keep {
            continue;
        }
        let body = if m.text.is_empty() {
            m.tool_args.clone().unwrap_or_default()
        } else {
            m.text.clone()
        };
        let cap = if m.kind == "tool_result" || m.kind == "tool_call" {
            TOOL_CAP
        } else {
            MESSAGE_CAP
        };
        let (text, was_cut) = trimmed(&body, cap);
        trimmed_count += usize::from(was_cut);
        shown.push(Shown {
            correction: m.role == "user" && signals::is_correction(&m.text),
            line_number: m.line_number,
            role: m.role,
            kind: m.kind,
            tool_name: m.tool_name,
            is_error: m.is_error,
            text,
        });
    }
    let omitted = n - shown.len();
    let note = (omitted > 0 || trimmed_count > 0).then(|| {
        format!(
            "showing the first and last {EDGE} messages and up to {MIDDLE} failed tool calls or \
             user corrections between them: {omitted} message(s) left out, {trimmed_count} text(s) \
             cut; `cm history show SESSION` prints every message"
        )
    });
    let cut = Cut {
        messages_total: total,
        messages_shown: shown.len(),
        messages_omitted: omitted,
        scaffolding_skipped: scaffolding,
        texts_trimmed: trimmed_count,
        note,
    };
    (shown, cut)
}

/// The shown messages as one transcript, with a marker where messages were left out.
fn render(messages: &[Shown], cut: &Cut) -> String {
    let mut out = String::new();
    for (i, m) in messages.iter().enumerate() {
        if i > 0 && i == EDGE && cut.messages_omitted > 0 {
            out.push_str(&format!(
                "[... {} message(s) left out ...]\n",
                cut.messages_omitted
            ));
        }
        let mut tags = String::new();
        if let Some(t) = &m.tool_name {
            tags.push_str(&format!(" [{t}]"));
        }
        if m.is_error {
            tags.push_str(" [error]");
        }
        if m.correction {
            tags.push_str(" [correction]");
        }
        out.push_str(&format!(
            "#{} {}{}: {}\n",
            m.line_number, m.role, tags, m.text
        ));
    }
    out
}

/// Existing rules nearest the session's text, by the rules' term index (as `cm context` ranks).
fn related_rules(store: &Store, cwd: &Path, s: &Session, text: &str) -> Result<Vec<Value>> {
    index::refresh(store)?;
    let playbook = Playbook::open(store, cwd);
    let corpus = Corpus::load(Some(store), playbook.readable_repo_rules())?;
    let mut query = s.title.clone().unwrap_or_default();
    query.push(' ');
    let mut end = text.len().min(4000);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    query.push_str(&text[..end]);
    let mut out = Vec::new();
    for (relevance, _, scored) in
        engine::candidates(&corpus, &query, engine::Coverage::Known, None, 0.0)?
    {
        if out.len() >= RELATED {
            break;
        }
        let Some((b, from_repo)) = corpus.bullet(&scored.info)? else {
            continue;
        };
        if !b.is_live() {
            continue;
        }
        out.push(json!({
            "id": b.id, "content": crate::context::rank::shown_text(&b, from_repo),
            "category": b.category, "relevance": round3(relevance),
            "location": if from_repo { "repo" } else { "personal" },
        }));
    }
    Ok(out)
}
