//! Driving the hooks the way an agent does: the binary under a hook's link name (or `cm hook
//! NAME`) with a payload on stdin, and the payloads themselves, in the documented shape of each
//! agent (docs/HOOKS.md) with the command and working dir filled in.

use super::env::Env;
use super::json_str;
use super::run::{Out, Run};
use std::path::Path;

/// How long a guard hook may take on any input before the test calls it hung.
const PRETOOL_DEADLINE_SECS: u64 = 120;

impl Env {
    /// `cm hook NAME`, reading `payload` on stdin.
    pub fn hook(&self, name: &str, payload: impl Into<Vec<u8>>) -> Run {
        self.cm(&["hook", name]).stdin(payload)
    }

    /// The guard through its link name, `cm-pretool`.
    pub fn pretool(&self, payload: &str) -> Out {
        self.pretool_raw(payload.as_bytes())
    }

    /// The guard through its link name, failing the test if it takes over `secs` seconds.
    pub fn pretool_within(&self, payload: &str, secs: u64) -> Out {
        self.pretool_run(payload.as_bytes()).within(secs).run()
    }

    /// The guard through its link name, fed any bytes.
    pub fn pretool_raw(&self, payload: &[u8]) -> Out {
        self.pretool_run(payload)
            .within(PRETOOL_DEADLINE_SECS)
            .run()
    }

    fn pretool_run(&self, payload: &[u8]) -> Run {
        self.run_program(self.link("cm-pretool"), &[])
            .stdin(payload.to_vec())
    }
}

/// A Claude Code `PreToolUse` payload for the Bash tool.
pub fn claude_bash(command: &str, cwd: &Path) -> String {
    format!(
        r#"{{"session_id":"abc123","transcript_path":"/home/u/.claude/projects/-home-u-app/abc123.jsonl","cwd":{},"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":{},"description":"Run it","timeout":120000,"run_in_background":false}},"tool_use_id":"toolu_01ABC"}}"#,
        json_str(&cwd.display().to_string()),
        json_str(command)
    )
}

/// A Codex `PreToolUse` payload for its shell tool.
pub fn codex_bash(command: &str, cwd: &Path) -> String {
    format!(
        r#"{{"session_id":"0199a-codex","transcript_path":"/home/u/.codex/sessions/2026/06/01/rollout.jsonl","cwd":{},"hook_event_name":"PreToolUse","turn_id":"turn-7","model":"gpt-5-codex","tool_name":"Bash","tool_input":{{"command":{}}},"tool_use_id":"call_9"}}"#,
        json_str(&cwd.display().to_string()),
        json_str(command)
    )
}

/// A Gemini CLI `BeforeTool` payload for `run_shell_command`.
pub fn gemini_shell(command: &str, cwd: &Path) -> String {
    format!(
        r#"{{"session_id":"g-1","transcript_path":"/home/u/.gemini/tmp/chats/session.json","cwd":{},"hook_event_name":"BeforeTool","timestamp":"2026-06-01T10:00:00Z","tool_name":"run_shell_command","tool_input":{{"command":{},"description":"run"}}}}"#,
        json_str(&cwd.display().to_string()),
        json_str(command)
    )
}

/// A Cursor `beforeShellExecution` payload.
pub fn cursor_shell(command: &str, cwd: &Path) -> String {
    format!(
        r#"{{"hook_event_name":"beforeShellExecution","conversation_id":"c-42","generation_id":"g-1","workspace_roots":[{}],"command":{},"cwd":{}}}"#,
        json_str(&cwd.display().to_string()),
        json_str(command),
        json_str(&cwd.display().to_string())
    )
}

/// A Claude Code `PreToolUse` payload for the Write tool.
pub fn claude_write(path: &str, cwd: &Path) -> String {
    format!(
        r#"{{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":{},"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{{"file_path":{},"content":"SECRET=1\n"}},"tool_use_id":"toolu_02"}}"#,
        json_str(&cwd.display().to_string()),
        json_str(path)
    )
}

impl Env {
    /// The guard's world: a git project (`project`) as the working dir, the clock pinned, and
    /// an empty environment, so nothing on this machine can change a decision.
    pub fn for_guard() -> Env {
        let env = Env::builder()
            .workdir("project")
            .clean_env()
            .now("2026-06-01T00:00:00Z")
            .build();
        env.git_repo();
        env
    }
}
