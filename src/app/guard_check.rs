//! The guard's decision on one command as the pre-tool hook would make it, with everything that
//! went into it (the policy files read, the packs' state, the segments judged): `cm guard
//! check`, the MCP `cm_guard_check` tool. Same policy files, same matcher as the hook.

use crate::error::{CmError, Result};
use crate::guard::{self, normalize, policy_file, reason};
use serde_json::{Value, json};
use std::path::Path;

/// A decision and how it was reached.
pub struct GuardCheck {
    pub command: String,
    /// Whether the command was not UTF-8 and was checked as its lossy text.
    pub lossy: bool,
    pub decision: guard::Decision,
    /// Why it is denied or asked about (empty when allowed).
    pub deny_reason: String,
    pub segments: Vec<normalize::Segment>,
    /// Each pack with its state (on, off, default...).
    pub packs: Vec<(String, String)>,
    pub active_traumas: usize,
    pub config_files: Vec<std::path::PathBuf>,
    pub trauma_files: Vec<std::path::PathBuf>,
    pub warnings: Vec<String>,
}

impl GuardCheck {
    /// The JSON `cm guard check --json` answers with (its `data`).
    pub fn to_json(&self) -> Value {
        let d = &self.decision;
        json!({
            "command": self.command,
            "lossy": self.lossy,
            "decision": d.verdict,
            "answer": d.answer(),
            "severity": d.hit.as_ref().filter(|_| d.is_deny()).map(|h| h.severity),
            "quickRejected": d.quick_rejected,
            "hit": d.hit,
            "allowedBy": d.allowed_by,
            "reason": if self.deny_reason.is_empty() { None } else { Some(&self.deny_reason) },
            "segments": self.segments.iter().map(|s| json!({"lang": s.lang.name(), "program": s.program, "text": s.text})).collect::<Vec<_>>(),
            "packs": self.packs.iter().map(|(n, state)| json!({"name": n, "enabled": state != "off", "state": state})).collect::<Vec<_>>(),
            "activeTraumas": self.active_traumas,
            "configFiles": self.config_files,
            "traumaFiles": self.trauma_files,
            "warnings": self.warnings,
        })
    }
}

/// The decision the hook would make for `command` run in `cwd`. `not_utf8` is the argument as
/// given (bytes escaped) when it was not UTF-8: `command` is then its lossy text, decided on as
/// such (a destructive command stays destructive with a replacement character in a path), and
/// a warning says so.
pub fn check(command: &str, not_utf8: Option<&str>, cwd: &Path) -> Result<GuardCheck> {
    if command.trim().is_empty() {
        return Err(CmError::usage("INVALID_ARGUMENT", "no command to check")
            .hint("quote the command as one argument: cm guard check \"git reset --hard\""));
    }
    let (policy, mut sources) = policy_file::load(cwd);
    if let Some(raw) = not_utf8 {
        sources.warnings.push(format!(
            "the command \"{raw}\" is not valid UTF-8; it was checked as \"{command}\" (each invalid byte read as U+FFFD)"
        ));
    }
    let at = guard::expand::Context::from_env(Some(cwd));
    let decision = guard::evaluate_at(command, &policy, &at);
    let segments = normalize::segments_at(command, &at);
    let deny_reason = reason::deny_reason(&decision);
    Ok(GuardCheck {
        command: command.to_string(),
        lossy: not_utf8.is_some(),
        deny_reason,
        segments,
        packs: policy
            .packs_state()
            .iter()
            .map(|(n, state)| (n.to_string(), state.to_string()))
            .collect(),
        active_traumas: policy.traumas().len(),
        config_files: sources.config_files,
        trauma_files: sources.trauma_files,
        warnings: sources.warnings,
        decision,
    })
}
