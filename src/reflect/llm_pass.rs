//! The optional LLM pass of reflection: the session (condensed, redacted) and what the
//! deterministic reflector found go to the configured model, which answers with a refined diary
//! and at most three rules as JSON matching [`schema`]. Nothing it says is trusted as is: its
//! diary lines are merged into the deterministic ones, and its rules go through the validator
//! (which rejects a rule whose words do not occur in the session) and the curator like any other.

use super::delta::{Delta, LessonKind};
use super::diary::DiaryEntry;
use super::transcript::{Step, Transcript};
use crate::memory::bullet::CATEGORIES;
use serde_json::{Value, json};

/// How much of the transcript the prompt carries.
const PROMPT_CHARS: usize = 12_000;

pub fn system() -> String {
    format!(
        "{} You review one finished session of an AI coding agent and extract what a senior engineer \
         would want the next agent to know in this project. Answer only with JSON matching the schema. \
         Propose a rule only when the session teaches one (the user corrected the agent or stated a \
         convention, a command failed and a specific change fixed it, an error keeps recurring); \
         routine work, typos and retries teach nothing: then propose no rule. Each rule is one \
         imperative sentence naming the tool, file or command, with the reason when the session gives one.",
        crate::llm::MARKER
    )
}

pub fn schema() -> Value {
    let lines = |n: usize| json!({"type": "array", "maxItems": n, "items": {"type": "string", "maxLength": 240}});
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["status", "accomplishments", "decisions", "challenges", "keyLearnings", "preferences", "rules"],
        "properties": {
            "status": {"type": "string", "enum": ["success", "failure", "mixed"]},
            "accomplishments": lines(6),
            "decisions": lines(6),
            "challenges": lines(6),
            "keyLearnings": lines(6),
            "preferences": lines(6),
            "rules": {
                "type": "array",
                "maxItems": 3,
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["content", "category", "reason"],
                    "properties": {
                        "content": {"type": "string", "maxLength": 300},
                        "category": {"type": "string", "enum": CATEGORIES},
                        "reason": {"type": "string", "maxLength": 300}
                    }
                }
            }
        }
    })
}

/// The prompt: the deterministic findings, then the session, newest part kept when it is long.
pub fn prompt(t: &Transcript, entry: &DiaryEntry, deltas: &[Delta]) -> String {
    let mut lines: Vec<String> = Vec::new();
    for step in &t.steps {
        match step {
            Step::User { text, .. } => {
                lines.push(format!("USER: {}", super::fixes::clip(text, 600)))
            }
            Step::Agent { text, .. } => {
                lines.push(format!("AGENT: {}", super::fixes::clip(text, 400)))
            }
            Step::Tool(r) => match (&r.command, &r.file) {
                (Some(c), _) => lines.push(format!(
                    "RAN{} `{}`{}",
                    if r.failed { " (failed)" } else { "" },
                    super::fixes::clip(c, 200),
                    if r.failed {
                        format!(": {}", super::fixes::error_line(&r.output))
                    } else {
                        String::new()
                    }
                )),
                (None, Some(f)) => lines.push(format!(
                    "EDITED {f}: {}",
                    super::fixes::clip(r.added.trim(), 200)
                )),
                _ => {}
            },
        }
    }
    let mut body = String::new();
    for l in lines.iter().rev() {
        if body.len() + l.len() > PROMPT_CHARS {
            body.insert_str(0, "[earlier part of the session left out]\n");
            break;
        }
        body.insert_str(0, &format!("{l}\n"));
    }
    let found: Vec<&str> = deltas
        .iter()
        .filter_map(|d| match d {
            Delta::Add { content, .. } => Some(content.as_str()),
            _ => None,
        })
        .collect();
    format!(
        "{}\nWorkspace: {}\nStatus as the tool read it: {}\nRules the deterministic reflector found: {}\n\nSession:\n{body}",
        crate::llm::MARKER,
        entry.workspace.as_deref().unwrap_or("unknown"),
        entry.status.as_str(),
        if found.is_empty() {
            "none".to_string()
        } else {
            found.join(" | ")
        }
    )
}

/// Merge the model's diary lines into `entry` (deduplicated, redacted, capped) and return its
/// rules as deltas.
pub fn apply(answer: &Value, entry: &mut DiaryEntry) -> Vec<Delta> {
    let texts = |key: &str| -> Vec<String> {
        answer[key]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str())
                    .map(|s| crate::redact::redact(s.trim()).0)
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    };
    for (key, into) in [
        ("accomplishments", &mut entry.accomplishments),
        ("decisions", &mut entry.decisions),
        ("challenges", &mut entry.challenges),
        ("keyLearnings", &mut entry.key_learnings),
        ("preferences", &mut entry.preferences),
    ] {
        for line in texts(key) {
            if into.len() < 10 && !into.iter().any(|l| l.eq_ignore_ascii_case(&line)) {
                into.push(line);
            }
        }
    }
    answer["rules"]
        .as_array()
        .map(|rules| {
            rules
                .iter()
                .filter_map(|r| {
                    let content = crate::redact::redact(r["content"].as_str()?.trim()).0;
                    let category = r["category"].as_str().unwrap_or("general").to_string();
                    let reason = r["reason"]
                        .as_str()
                        .map(|s| crate::redact::redact(s.trim()).0)
                        .filter(|s| !s.is_empty());
                    let situation = super::lessons::situation_words(&content);
                    Some(Delta::Add {
                        content,
                        category,
                        lesson: LessonKind::Model,
                        reason,
                        line: 0,
                        situation,
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Whether a model's rule is grounded in the session: most of its distinctive words occur in
/// what was said or run.
pub fn grounded(situation: &[String], t: &Transcript) -> bool {
    if situation.is_empty() {
        return false;
    }
    let mut text = String::new();
    for step in &t.steps {
        match step {
            Step::User { text: s, .. } | Step::Agent { text: s, .. } => text.push_str(s),
            Step::Tool(r) => {
                text.push_str(r.command.as_deref().unwrap_or(""));
                text.push_str(r.file.as_deref().unwrap_or(""));
                text.push_str(&r.added);
                text.push_str(&r.output);
            }
        }
        text.push('\n');
    }
    let lower = text.to_lowercase();
    let found = situation
        .iter()
        .filter(|w| lower.contains(&w.to_lowercase()))
        .count();
    found * 3 >= situation.len() * 2
}
