//! Turning parsed messages into rows: secrets redacted, huge bodies capped, the body placed in
//! the column that decides how it is searched. Pure; runs on the parser threads.
//!
//! Redaction runs on the whole body before capping, so a secret cut in half by the cap can never
//! survive as a fragment the patterns no longer recognise.

use crate::connectors::SessionInfo;
use crate::model::{Message, MessageKind, Role};
use serde::Deserialize;

/// The `history` config section (indexing part).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", default)]
pub struct Limits {
    /// Redact secrets before storing. Only the global config may turn this off.
    pub redact: bool,
    /// Tool calls and results longer than head + tail keep only their head and tail (the
    /// source file keeps the whole output; `source_path` and `line_number` point at it). Small
    /// by default: tool output is most of what agents log, and every byte kept is indexed.
    pub tool_output_head_bytes: usize,
    pub tool_output_tail_bytes: usize,
    /// Conversation text longer than this keeps its first and last halves.
    pub text_max_bytes: usize,
    /// Learn term associations from indexed conversations and widen searches with them
    /// (`history.associations`; [`crate::assoc`]).
    pub associations: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            redact: true,
            tool_output_head_bytes: 1024,
            tool_output_tail_bytes: 1024,
            text_max_bytes: 64 * 1024,
            associations: true,
        }
    }
}

/// Which column a message body lives in, which decides its search weight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    /// What the user and the assistant said (and thinking): full weight.
    Text,
    /// Tool calls and results: searchable at a lower weight.
    Tool,
    /// Injected scaffolding: stored, never searched.
    Hidden,
}

pub fn column_for(msg: &Message) -> Column {
    match msg.kind {
        MessageKind::Scaffolding => Column::Hidden,
        MessageKind::ToolCall | MessageKind::ToolResult => Column::Tool,
        _ if msg.role == Role::Tool => Column::Tool,
        _ => Column::Text,
    }
}

/// One message ready to insert.
#[derive(Debug, Clone)]
pub struct Row {
    pub msg: Message,
    pub column: Column,
    /// Timestamp in Unix milliseconds.
    pub ts: Option<i64>,
    pub capped_bytes: u64,
}

/// Session facts ready to upsert: the connector's info merged with what the messages say.
#[derive(Debug, Clone, Default)]
pub struct SessionRow {
    pub info: SessionInfo,
    /// The first user message, shortened: the title when the agent wrote none.
    pub fallback_title: Option<String>,
    pub message_count: u64,
}

#[derive(Debug, Default)]
pub struct Prepared {
    pub rows: Vec<Row>,
    pub sessions: Vec<SessionRow>,
    pub redactions: u64,
    pub capped: u64,
    /// Messages that held nothing but injected context, left out.
    pub injected: u64,
}

pub fn prepare(messages: Vec<Message>, sessions: Vec<SessionInfo>, limits: &Limits) -> Prepared {
    let mut out = Prepared {
        rows: Vec::with_capacity(messages.len()),
        ..Prepared::default()
    };
    let mut fields = Fields::default();
    for mut msg in messages {
        // Context hooks injected (cm's own included) is not the user's words.
        if matches!(msg.role, Role::User | Role::System)
            && let Some(text) = crate::connectors::injected::strip(&msg.text)
        {
            if text.is_empty() && msg.tool_name.is_none() {
                out.injected += 1;
                continue;
            }
            msg.text = text;
        }
        let column = column_for(&msg);
        if limits.redact {
            out.redactions += redact_in_place(&mut msg.text);
            if let Some(args) = msg.tool_args.as_mut() {
                out.redactions += redact_in_place(args);
            }
            for field in [
                &mut msg.workspace,
                &mut msg.git_branch,
                &mut msg.tool_name,
                &mut msg.model,
            ] {
                out.redactions += fields.redact(field);
            }
        }
        let (head, tail) = match column {
            Column::Tool => (limits.tool_output_head_bytes, limits.tool_output_tail_bytes),
            _ => (limits.text_max_bytes / 2, limits.text_max_bytes / 2),
        };
        let mut capped_bytes = cap_in_place(&mut msg.text, head, tail);
        if let Some(args) = msg.tool_args.as_mut() {
            capped_bytes += cap_in_place(args, head, tail);
        }
        if capped_bytes > 0 {
            out.capped += 1;
        }
        // A call whose connector rendered no text is found by its arguments.
        if column == Column::Tool
            && msg.text.trim().is_empty()
            && let Some(args) = &msg.tool_args
        {
            msg.text = args.clone();
        }
        let ts = msg.timestamp.as_deref().and_then(parse_ms);
        out.rows.push(Row {
            msg,
            column,
            ts,
            capped_bytes,
        });
    }
    out.sessions = merge_sessions(&out.rows, sessions, limits, &mut out.redactions);
    out
}

/// One row per session seen in this batch: the connector's facts, or those the messages imply.
fn merge_sessions(
    rows: &[Row],
    infos: Vec<SessionInfo>,
    limits: &Limits,
    redactions: &mut u64,
) -> Vec<SessionRow> {
    let mut out: Vec<SessionRow> = Vec::new();
    let find = |out: &Vec<SessionRow>, agent: &str, id: &str| {
        out.iter()
            .position(|s| s.info.session_id == id && s.info.agent == agent)
    };
    let mut fields = Fields::default();
    for mut info in infos {
        if limits.redact {
            for field in [
                &mut info.title,
                &mut info.workspace,
                &mut info.git_branch,
                &mut info.model,
            ] {
                *redactions += fields.redact(field);
            }
        }
        match find(&out, &info.agent, &info.session_id) {
            Some(i) => merge_info(&mut out[i].info, info),
            None => out.push(SessionRow {
                info,
                ..SessionRow::default()
            }),
        }
    }
    for row in rows {
        let m = &row.msg;
        let i = match find(&out, &m.agent, &m.session_id) {
            Some(i) => i,
            None => {
                out.push(SessionRow {
                    info: SessionInfo {
                        agent: m.agent.clone(),
                        session_id: m.session_id.clone(),
                        parent_session_id: m.parent_session_id.clone(),
                        source_path: m.source_path.clone(),
                        ..SessionInfo::default()
                    },
                    ..SessionRow::default()
                });
                out.len() - 1
            }
        };
        let s = &mut out[i];
        s.message_count += 1;
        let info = &mut s.info;
        if info.workspace.is_none() {
            info.workspace = m.workspace.clone();
        }
        if info.git_branch.is_none() {
            info.git_branch = m.git_branch.clone();
        }
        if info.model.is_none() {
            info.model = m.model.clone();
        }
        if let Some(t) = &m.timestamp {
            if info.started_at.as_ref().is_none_or(|s| t < s) {
                info.started_at = Some(t.clone());
            }
            if info.ended_at.as_ref().is_none_or(|e| t > e) {
                info.ended_at = Some(t.clone());
            }
        }
        if s.fallback_title.is_none()
            && m.role == Role::User
            && row.column == Column::Text
            && !m.text.trim().is_empty()
        {
            s.fallback_title = Some(cm_base::output::truncate(&m.text, 80));
        }
    }
    out
}

fn merge_info(into: &mut SessionInfo, from: SessionInfo) {
    macro_rules! newer {
        ($f:ident) => {
            if from.$f.is_some() {
                into.$f = from.$f;
            }
        };
    }
    newer!(parent_session_id);
    newer!(workspace);
    newer!(git_branch);
    newer!(title);
    newer!(model);
    if let Some(s) = from.started_at
        && into.started_at.as_ref().is_none_or(|x| &s < x)
    {
        into.started_at = Some(s);
    }
    if let Some(e) = from.ended_at
        && into.ended_at.as_ref().is_none_or(|x| &e > x)
    {
        into.ended_at = Some(e);
    }
}

/// Redaction of the short fields every message repeats (workspace, branch, tool, model): each
/// distinct value is scanned once per batch.
#[derive(Default)]
struct Fields {
    seen: std::collections::HashMap<String, (String, u64)>,
}

impl Fields {
    fn redact(&mut self, field: &mut Option<String>) -> u64 {
        let Some(value) = field.as_mut() else {
            return 0;
        };
        let (clean, n) = self
            .seen
            .entry(value.clone())
            .or_insert_with_key(|v| {
                let (out, n) = cm_base::redact::redact(v);
                (out, n as u64)
            })
            .clone();
        if n > 0 {
            *value = clean;
        }
        n
    }
}

fn redact_in_place(text: &mut String) -> u64 {
    let (out, n) = cm_base::redact::redact(text);
    if n > 0 {
        *text = out;
    }
    n as u64
}

/// Keep the first `head` and last `tail` bytes of `text` (on character boundaries) with a marker
/// saying how much was dropped. Returns the number of bytes dropped.
pub fn cap_in_place(text: &mut String, head: usize, tail: usize) -> u64 {
    if text.len() <= head + tail {
        return 0;
    }
    let mut h = head;
    while !text.is_char_boundary(h) {
        h -= 1;
    }
    let mut t = text.len() - tail;
    while !text.is_char_boundary(t) {
        t += 1;
    }
    let dropped = (t - h) as u64;
    let mut out = String::with_capacity(h + (text.len() - t) + 48);
    out.push_str(&text[..h]);
    out.push_str(&format!("\n[... {dropped} bytes omitted ...]\n"));
    out.push_str(&text[t..]);
    *text = out;
    dropped
}

/// RFC 3339 to Unix milliseconds.
pub fn parse_ms(s: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|t| t.timestamp_millis())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(role: Role, kind: MessageKind, text: &str) -> Message {
        Message {
            agent: "claude".into(),
            session_id: "s1".into(),
            parent_session_id: None,
            source_path: "/x.jsonl".into(),
            line_number: 1,
            workspace: Some("/w".into()),
            git_branch: None,
            role,
            kind,
            timestamp: Some("2026-08-10T12:00:00.000Z".into()),
            model: None,
            text: text.into(),
            tool_name: None,
            tool_args: None,
            is_error: false,
        }
    }

    #[test]
    fn columns_follow_kind() {
        use MessageKind::*;
        let cases = [
            (Role::User, Text, Column::Text),
            (Role::Assistant, Thinking, Column::Text),
            (Role::Assistant, ToolCall, Column::Tool),
            (Role::User, ToolResult, Column::Tool),
            (Role::Tool, Text, Column::Tool),
            (Role::User, Scaffolding, Column::Hidden),
        ];
        for (role, kind, want) in cases {
            assert_eq!(column_for(&msg(role, kind, "x")), want, "{role:?} {kind:?}");
        }
    }

    #[test]
    fn caps_keep_head_and_tail_on_char_boundaries() {
        let mut s = "é".repeat(100);
        let dropped = cap_in_place(&mut s, 11, 11);
        assert!(dropped > 0);
        assert!(s.starts_with("ééééé"));
        assert!(s.ends_with("ééééé"));
        assert!(s.contains("bytes omitted"));
        let mut short = "short".to_string();
        assert_eq!(cap_in_place(&mut short, 3, 3), 0);
        assert_eq!(short, "short");
    }

    #[test]
    fn redacts_before_capping_and_counts() {
        let secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
        let body = format!("{} {secret} {}", "a".repeat(1010), "b".repeat(20_000));
        let mut m = msg(Role::User, MessageKind::ToolResult, &body);
        m.tool_args = Some(format!("{{\"token\":\"{secret}\"}}"));
        let p = prepare(vec![m], vec![], &Limits::default());
        assert_eq!(p.redactions, 2);
        assert_eq!(p.capped, 1);
        let row = &p.rows[0];
        assert!(!row.msg.text.contains("ghp_"), "fragment survived the cap");
        assert!(!row.msg.tool_args.as_ref().unwrap().contains(secret));
        assert!(row.capped_bytes > 0);
    }

    #[test]
    fn redaction_can_be_turned_off() {
        let m = msg(Role::User, MessageKind::Text, "AKIAIOSFODNN7EXAMPLE");
        let limits = Limits {
            redact: false,
            ..Limits::default()
        };
        let p = prepare(vec![m], vec![], &limits);
        assert_eq!(p.redactions, 0);
        assert!(p.rows[0].msg.text.contains("AKIA"));
    }

    #[test]
    fn sessions_take_times_counts_and_fallback_title() {
        let mut a = msg(Role::User, MessageKind::Text, "Fix the failing test");
        a.timestamp = Some("2026-08-10T12:00:05.000Z".into());
        let mut b = msg(Role::Assistant, MessageKind::Text, "Done");
        b.timestamp = Some("2026-08-10T12:00:01.000Z".into());
        let p = prepare(vec![a, b], vec![], &Limits::default());
        assert_eq!(p.sessions.len(), 1);
        let s = &p.sessions[0];
        assert_eq!(s.message_count, 2);
        assert_eq!(
            s.info.started_at.as_deref(),
            Some("2026-08-10T12:00:01.000Z")
        );
        assert_eq!(s.info.ended_at.as_deref(), Some("2026-08-10T12:00:05.000Z"));
        assert_eq!(s.fallback_title.as_deref(), Some("Fix the failing test"));
        assert_eq!(p.rows[0].ts, Some(1_786_363_205_000));
    }
}
