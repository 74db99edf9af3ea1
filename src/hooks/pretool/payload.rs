//! The PreToolUse payloads of each agent, which agent sent one, and the deny object each
//! expects. Shapes are in docs/HOOKS.md; unknown fields are ignored, never rejected.
//!
//! The payload is deserialized into borrowed fields (no JSON tree): a large `tool_input.content`
//! of a Write call is skipped by the parser, not copied.

use serde::Deserialize;
use serde::de::IgnoredAny;
use std::borrow::Cow;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    Claude,
    Codex,
    Gemini,
    Cursor,
}

impl Agent {
    pub fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Cursor => "cursor",
        }
    }
}

#[derive(Deserialize, Default)]
pub struct ToolInput<'a> {
    #[serde(borrow, default)]
    pub command: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub file_path: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub notebook_path: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub path: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
pub struct Payload<'a> {
    #[serde(borrow, default)]
    pub hook_event_name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub tool_name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub tool_input: Option<ToolInput<'a>>,
    #[serde(borrow, default)]
    pub cwd: Option<Cow<'a, str>>,
    /// Cursor's beforeShellExecution.
    #[serde(borrow, default)]
    pub command: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub workspace_roots: Option<Vec<Cow<'a, str>>>,
    #[serde(default)]
    pub turn_id: Option<IgnoredAny>,
    #[serde(default)]
    pub model: Option<IgnoredAny>,
    #[serde(default)]
    pub conversation_id: Option<IgnoredAny>,
}

/// What the hook was asked about.
#[derive(Debug, PartialEq, Eq)]
pub enum Request<'p> {
    Shell {
        command: &'p str,
    },
    Write {
        path: &'p str,
    },
    /// Another tool, or an event that is not a pre-tool event: allowed without a look.
    Other,
}

pub fn parse(bytes: &[u8]) -> Result<Payload<'_>, String> {
    serde_json::from_slice::<Payload>(bytes).map_err(|e| format!("malformed payload: {e}"))
}

impl<'a> Payload<'a> {
    /// Which agent sent this, from the payload's shape; `None` when it is no known shape.
    pub fn agent(&self) -> Option<Agent> {
        let event = self.hook_event_name.as_deref();
        match event {
            Some("beforeShellExecution") => return Some(Agent::Cursor),
            Some("BeforeTool") => return Some(Agent::Gemini),
            Some("PreToolUse") => {
                return Some(if self.turn_id.is_some() || self.model.is_some() {
                    Agent::Codex
                } else {
                    Agent::Claude
                });
            }
            _ => {}
        }
        if self.command.is_some()
            && self.tool_name.is_none()
            && (self.conversation_id.is_some() || self.workspace_roots.is_some() || event.is_some())
        {
            return Some(Agent::Cursor);
        }
        match self.tool_name.as_deref() {
            Some("run_shell_command" | "write_file" | "replace") => Some(Agent::Gemini),
            Some(_) if self.turn_id.is_some() => Some(Agent::Codex),
            Some(_) if event.is_none() => Some(Agent::Claude),
            _ => None,
        }
    }

    /// The request, for a payload whose agent is known.
    pub fn request(&self, agent: Agent) -> Request<'_> {
        if agent == Agent::Cursor {
            return match (self.hook_event_name.as_deref(), self.command.as_deref()) {
                (Some("beforeShellExecution") | None, Some(c)) => Request::Shell { command: c },
                _ => Request::Other,
            };
        }
        let input = self.tool_input.as_ref();
        match self.tool_name.as_deref() {
            Some("Bash" | "run_shell_command" | "shell" | "exec_command" | "local_shell") => {
                match input.and_then(|i| i.command.as_deref()) {
                    Some(c) => Request::Shell { command: c },
                    None => Request::Other,
                }
            }
            Some("Write" | "Edit" | "MultiEdit" | "NotebookEdit" | "write_file" | "replace") => {
                let path = input.and_then(|i| {
                    i.file_path
                        .as_deref()
                        .or(i.notebook_path.as_deref())
                        .or(i.path.as_deref())
                });
                match path {
                    Some(p) => Request::Write { path: p },
                    None => Request::Other,
                }
            }
            _ => Request::Other,
        }
    }

    /// The directory the command runs in.
    pub fn cwd(&self) -> Option<&str> {
        self.cwd.as_deref().or_else(|| {
            self.workspace_roots
                .as_ref()
                .and_then(|r| r.first())
                .map(|c| c.as_ref())
        })
    }
}

/// The exact deny object `agent` expects on stdout (exit 0).
pub fn deny_json(agent: Agent, reason: &str, user_message: &str) -> String {
    let reason = json_string(reason);
    match agent {
        Agent::Claude | Agent::Codex => format!(
            r#"{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":{reason}}}}}"#
        ),
        Agent::Gemini => format!(r#"{{"decision":"deny","reason":{reason}}}"#),
        Agent::Cursor => format!(
            r#"{{"permission":"deny","user_message":{},"agent_message":{reason}}}"#,
            json_string(user_message)
        ),
    }
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_each_agent_from_its_documented_payload() {
        let claude = br#"{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":"/home/u/app","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"npm test","description":"Run tests","timeout":120000,"run_in_background":false},"tool_use_id":"toolu_01ABC"}"#;
        let p = parse(claude).unwrap();
        assert_eq!(p.agent(), Some(Agent::Claude));
        assert_eq!(
            p.request(Agent::Claude),
            Request::Shell {
                command: "npm test"
            }
        );
        let codex = br#"{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","turn_id":"t1","model":"m","tool_name":"Bash","tool_input":{"command":"ls"}}"#;
        assert_eq!(parse(codex).unwrap().agent(), Some(Agent::Codex));
        let gemini = br#"{"session_id":"s","transcript_path":"/t","cwd":"/w","hook_event_name":"BeforeTool","timestamp":"2026-01-01T00:00:00Z","tool_name":"run_shell_command","tool_input":{"command":"ls"}}"#;
        assert_eq!(parse(gemini).unwrap().agent(), Some(Agent::Gemini));
        let cursor = br#"{"hook_event_name":"beforeShellExecution","conversation_id":"c","workspace_roots":["/w"],"command":"ls","cwd":"/w"}"#;
        let p = parse(cursor).unwrap();
        assert_eq!(p.agent(), Some(Agent::Cursor));
        assert_eq!(p.request(Agent::Cursor), Request::Shell { command: "ls" });
    }

    #[test]
    fn write_tools_report_their_path() {
        let w = br#"{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/w/.env","content":"A=1"}}"#;
        let p = parse(w).unwrap();
        assert_eq!(p.request(Agent::Claude), Request::Write { path: "/w/.env" });
    }
}
