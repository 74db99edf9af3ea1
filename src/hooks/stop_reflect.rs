//! The Claude Code `Stop` hook's opt-in reflector mode: the running agent as the reflector,
//! where no LLM key is configured.
//!
//! The agent that just did the work has the whole session in mind, which the deterministic
//! reflector does not; with `CM_STOP_REFLECT=1` in the hook's environment (or `--reflect` on
//! the hook's command line), once per session, when the session held a correction by the user
//! or a run of failures of one step, the hook blocks the stop once with
//! `{"decision":"block","reason":...}`: the reason asks the agent to record 0-3 rules with
//! `cm playbook add --session PATH` (whose safety check and curation still apply) and then stop.
//!
//! Cheap on every turn: off by default (one environment lookup); when on, the payload's
//! `stop_hook_active` (the agent is already continuing because of a Stop hook: never block
//! twice, or it loops) and a marker file for the session come first; then the last
//! [`TAIL`] bytes of the transcript are read through [`crate::untrusted`] and scanned, and only
//! when they show a correction or a streak is the configuration read, to leave the work to the
//! LLM pass where a key is configured. No database is opened.

use crate::reflect::tail::{self, Worth};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// The environment variable that turns the mode on (`1`, `true`, `on`, `yes`).
pub const ENV: &str = "CM_STOP_REFLECT";

/// How much of the transcript's end is read: the last turns, not the whole session.
const TAIL: u64 = 256 * 1024;

/// Whether the mode is on for this run.
pub fn enabled(args: &[String]) -> bool {
    args.iter().any(|a| a == "--reflect")
        || std::env::var(ENV).is_ok_and(|v| {
            matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "1" | "true" | "on" | "yes"
            )
        })
}

#[derive(serde::Deserialize, Default)]
struct Payload {
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default)]
    stop_hook_active: bool,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(default)]
    hook_event_name: Option<String>,
}

/// Claude Code's `Stop` (the block protocol is its own): not Gemini's `AfterAgent`, nor a Codex
/// rollout, whose strict output parser takes no top-level `decision`.
fn claude_stop(p: &Payload, transcript: &Path) -> bool {
    p.hook_event_name.as_deref().is_none_or(|e| e == "Stop")
        && !transcript
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("rollout-"))
}

/// The answer to print for this Stop (`None`: let the agent stop).
pub fn answer(payload: &[u8], transcript: &Path) -> Option<String> {
    let p: Payload = serde_json::from_slice(payload).unwrap_or_default();
    if p.stop_hook_active || !claude_stop(&p, transcript) {
        return None;
    }
    let marker = marker(p.session_id.as_deref(), transcript)?;
    if marker.exists() {
        return None;
    }
    let worth = tail::worth(&read_tail(transcript)?)?;
    if llm_configured(p.cwd.as_deref()) {
        return None;
    }
    // Once per session: a marker that cannot be written means no block (never a loop).
    crate::private::create_dir(marker.parent()?).ok()?;
    crate::private::open_options(&marker)
        .write(true)
        .create_new(true)
        .open(&marker)
        .ok()?;
    Some(serde_json::json!({"decision": "block", "reason": reason(&worth, transcript)}).to_string())
}

/// The marker file that says this session's stop was already blocked once.
fn marker(session: Option<&str>, transcript: &Path) -> Option<PathBuf> {
    let data = crate::paths::data_dir();
    if !data.is_dir() {
        return None;
    }
    let id = session
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .or_else(|| Some(transcript.file_stem()?.to_string_lossy().into_owned()))?;
    let id: String = id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .take(128)
        .collect();
    (!id.is_empty()).then(|| data.join("stop-reflect").join(id))
}

fn read_tail(path: &Path) -> Option<crate::reflect::transcript::Transcript> {
    let (mut file, meta) = crate::untrusted::open(path).ok()??;
    let start = meta.len().saturating_sub(TAIL);
    file.seek(SeekFrom::Start(start)).ok()?;
    let mut bytes = Vec::with_capacity((meta.len() - start) as usize);
    file.take(TAIL).read_to_end(&mut bytes).ok()?;
    Some(tail::transcript(&bytes, start > 0))
}

/// An LLM provider with its key: the post-session LLM pass reflects, the agent need not.
fn llm_configured(cwd: Option<&str>) -> bool {
    let cwd = cwd
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default();
    crate::config::load_quiet(&cwd).is_ok_and(|loaded| {
        let s = crate::llm::LlmSettings::from_loaded(&loaded);
        s.provider.is_some() && s.api_key.is_some() && !s.disabled
    })
}

fn reason(worth: &Worth, transcript: &Path) -> String {
    let what = match worth {
        Worth::Correction(text) => {
            let (text, _) = crate::redact::redact(text);
            format!("the user corrected you (\"{text}\")")
        }
        Worth::FailureStreak(step, n) => format!("`{step}` failed {n} times in a row"),
    };
    let path = transcript.display().to_string();
    let path = if path.contains(|c: char| c.is_whitespace() || c == '\'' || c == '"') {
        format!("'{}'", path.replace('\'', "'\\''"))
    } else {
        path
    };
    format!(
        "cm reflector: before you stop, note that {what}. If this session taught something that \
         holds beyond this task (how this project does things, a step that must come first, a \
         tool to use instead), record it as at most 3 rules, each with `cm playbook add \
         --session {path} \"<rule>\"`: one imperative sentence, self-contained (name the tool, \
         file or command), no one-off details, no moods. Record nothing if nothing generalizes. \
         Then stop."
    )
}
