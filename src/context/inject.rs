//! What the hooks inject: payload fields, the git branch, and the JSON envelope.
//!
//! Injected text is written as facts about the past ("rule X applied to similar work"), never as
//! instructions, passes through [`super::sanitize::clean`] (injection-like text and secrets
//! removed) and is cut to its budget line by line, so it never exceeds it.

use super::sanitize;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// Fields the hooks read from any agent's payload (Claude Code, Codex, Gemini CLI).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Payload {
    pub cwd: Option<PathBuf>,
    pub source: Option<String>,
    pub prompt: Option<String>,
    pub session_id: Option<String>,
    /// The event as the agent named it (`UserPromptSubmit`, Gemini CLI's `BeforeAgent`, ...):
    /// the answer must name the same event or the agent drops it.
    pub event: Option<String>,
}

pub fn parse_payload(bytes: &[u8]) -> crate::error::Result<Payload> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Payload::default());
    }
    let v: Value = serde_json::from_slice(bytes).map_err(|e| {
        crate::error::CmError::usage("INVALID_PAYLOAD", format!("payload is not JSON: {e}"))
    })?;
    let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let cwd = s("cwd")
        .or_else(|| {
            v.get("workspace_roots")
                .and_then(Value::as_array)
                .and_then(|a| a.first())
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .filter(|c| !c.is_empty())
        .map(PathBuf::from);
    Ok(Payload {
        cwd,
        source: s("source").or_else(|| s("matcher")),
        prompt: s("prompt").or_else(|| s("user_prompt")),
        session_id: s("session_id").or_else(|| s("sessionId")),
        event: s("hook_event_name"),
    })
}

/// The current branch from `.git/HEAD` (worktrees' `gitdir:` files followed), without running git.
pub fn git_branch(repo_root: &Path) -> Option<String> {
    let dot_git = repo_root.join(".git");
    let git_dir = if dot_git.is_file() {
        let text = std::fs::read_to_string(&dot_git).ok()?;
        let dir = text.trim().strip_prefix("gitdir:")?.trim().to_string();
        let p = PathBuf::from(dir);
        if p.is_absolute() {
            p
        } else {
            repo_root.join(p)
        }
    } else {
        dot_git
    };
    let head = std::fs::read_to_string(git_dir.join("HEAD")).ok()?;
    head.trim()
        .strip_prefix("ref: refs/heads/")
        .map(str::to_string)
}

/// Lines joined under `max` characters; lines that do not fit are left out (never cut mid-way
/// except a single line longer than the whole budget).
pub fn within(lines: &[String], max: usize) -> String {
    let mut out = String::new();
    for l in lines {
        let need = l.chars().count() + usize::from(!out.is_empty());
        if out.chars().count() + need > max {
            if out.is_empty() {
                out = sanitize::clip(l, max);
            }
            break;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(l);
    }
    out
}

/// One injected item: cleaned and clipped.
pub fn item(prefix: &str, text: &str, max: usize) -> String {
    format!("- {prefix}{}", sanitize::clip(&sanitize::clean(text), max))
}

/// A rule as an injected item: its text was already redacted by ranking where needed
/// ([`super::rank::shown_text`]); injection-like content is stripped here.
pub fn rule_item(prefix: &str, r: &super::rank::RankedBullet, max: usize) -> String {
    let conflict = if r.contradicts.is_empty() {
        String::new()
    } else {
        format!(" (contradicts {})", r.contradicts.join(", "))
    };
    format!(
        "- {prefix}{}{conflict}",
        sanitize::clip(&sanitize::strip_instructions(&r.content), max)
    )
}

/// The hook output that adds context for `event`.
pub fn envelope(event: &str, text: &str) -> String {
    json!({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_of_each_agent() {
        let claude = br#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"/w/app","hook_event_name":"SessionStart","source":"startup"}"#;
        let p = parse_payload(claude).unwrap();
        assert_eq!(p.cwd.as_deref(), Some(Path::new("/w/app")));
        assert_eq!(p.source.as_deref(), Some("startup"));
        let gemini = br#"{"session_id":"g","transcript_path":"/t","cwd":"/w/g","hook_event_name":"SessionStart","timestamp":"2026-01-01T00:00:00Z","source":"resume"}"#;
        assert_eq!(
            parse_payload(gemini).unwrap().source.as_deref(),
            Some("resume")
        );
        let codex = br#"{"session_id":"c","cwd":"/w/c","hook_event_name":"SessionStart","model":"gpt","source":"startup","turn_id":"t"}"#;
        assert_eq!(
            parse_payload(codex).unwrap().cwd.as_deref(),
            Some(Path::new("/w/c"))
        );
        assert!(parse_payload(b"not json").is_err());
        assert_eq!(parse_payload(b"").unwrap(), Payload::default());
    }

    #[test]
    fn budget_is_never_exceeded() {
        let lines: Vec<String> = (0..100)
            .map(|i| format!("- line {i} {}", "x".repeat(50)))
            .collect();
        let t = within(&lines, 400);
        assert!(t.chars().count() <= 400);
        assert!(t.lines().count() >= 6);
        assert!(within(&["y".repeat(1000)], 100).chars().count() <= 100);
    }

    #[test]
    fn branch_from_head() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join(".git")).unwrap();
        std::fs::write(
            d.path().join(".git/HEAD"),
            "ref: refs/heads/fix/auth-timeout\n",
        )
        .unwrap();
        assert_eq!(git_branch(d.path()).as_deref(), Some("fix/auth-timeout"));
        std::fs::write(d.path().join(".git/HEAD"), "0123abcd\n").unwrap();
        assert_eq!(git_branch(d.path()), None);
    }
}
