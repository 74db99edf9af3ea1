//! The PreToolUse payloads of each agent, which agent sent one, what it asks, and the deny object
//! each expects. Shapes are in docs/HOOKS.md; unknown fields are ignored, never rejected.
//!
//! The payload is deserialized into borrowed fields (no JSON tree, see [`super::fields`]): a large
//! `tool_input.content` of a Write call is skipped by the parser, not copied.

use super::fields::Fields;
use super::repair;
use std::borrow::Cow;

/// The agents whose PreToolUse payloads the guard reads: Claude Code, Codex, Gemini CLI, Cursor.
pub use crate::agent::Agent;

/// What the hook was asked about: every command and every written path the payload holds
/// (deduplicated), however many times its keys repeat.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Asked<'p> {
    pub commands: Vec<Cow<'p, str>>,
    pub paths: Vec<&'p str>,
    /// A shell tool call with no command that could be read.
    pub shell_without_command: bool,
}

/// Tool names (lowercase, trimmed) that run a shell command. Any other tool whose input carries
/// a `command` or `cmd` is judged the same way (`mcp__shell__run_command`,
/// `mcp__desktop-commander__start_process`): the guard goes by what the input holds, not by
/// what the tool is called.
const SHELL_TOOLS: &[&str] = &[
    "bash",
    "run_shell_command",
    "shell",
    "exec_command",
    "local_shell",
    "container.exec",
];
/// Tool names (lowercase, trimmed) that write the file at `file_path`/`path`.
const WRITE_TOOLS: &[&str] = &[
    "write",
    "edit",
    "multiedit",
    "notebookedit",
    "write_file",
    "replace",
];
/// Codex's file edits: a patch in `command` or `input`, every file it names is written.
const PATCH_TOOL: &str = "apply_patch";

/// The payload's fields: the documented shape through the derived reader, duplicated keys and
/// odd types through the lenient one, and anything that is not valid JSON repaired and salvaged
/// ([`repair`]), with the JSON parser's complaint returned to be reported.
pub fn parse(bytes: &[u8]) -> (Fields<'_>, Option<String>) {
    if let Ok(strict) = serde_json::from_slice::<super::fields::Strict>(bytes)
        && strict.is_complete()
    {
        return (strict.into_fields(), None);
    }
    match serde_json::from_slice::<Fields>(bytes) {
        Ok(f) => (f, None),
        Err(e) => (
            repair::recover(bytes),
            Some(format!("malformed payload: {e}")),
        ),
    }
}

impl<'a> Fields<'a> {
    /// Which agent sent this, from the payload's shape; `None` when it is no known shape.
    pub fn agent(&self) -> Option<Agent> {
        for event in &self.hook_event_name {
            match event.as_ref() {
                "beforeShellExecution" => return Some(Agent::Cursor),
                "BeforeTool" => return Some(Agent::Gemini),
                "PreToolUse" if self.turn_id || self.model => return Some(Agent::Codex),
                "PreToolUse" => return Some(Agent::Claude),
                _ => {}
            }
        }
        let event = self.hook_event_name.first();
        if !self.command.is_empty()
            && self.tool_name.is_empty()
            && (self.conversation_id || !self.workspace_roots.is_empty() || event.is_some())
        {
            return Some(Agent::Cursor);
        }
        for tool in &self.tool_name {
            match tool.as_ref() {
                "run_shell_command" | "write_file" | "replace" => return Some(Agent::Gemini),
                _ if self.turn_id => return Some(Agent::Codex),
                _ if event.is_none() => return Some(Agent::Claude),
                _ => {}
            }
        }
        None
    }

    /// The commands and paths to decide on. For an unknown agent, every command found.
    pub fn asked(&self, agent: Option<Agent>) -> Asked<'_> {
        let mut asked = Asked::default();
        let any_tool = |names: &[&str]| {
            self.tool_name
                .iter()
                .any(|t| names.contains(&t.trim().to_ascii_lowercase().as_str()))
        };
        let patch = any_tool(&[PATCH_TOOL]);
        if patch {
            // Every file of the patch is written; the patch itself is no command.
            for text in self.input_command.iter().chain(&self.input_patch) {
                asked.paths.extend(patch_paths(text));
            }
            asked.paths = unique(std::mem::take(&mut asked.paths));
            return asked;
        }
        let (shell, write) = match agent {
            Some(Agent::Cursor) => {
                let shell_event = self.hook_event_name.is_empty()
                    || self
                        .hook_event_name
                        .iter()
                        .any(|e| e == "beforeShellExecution");
                (shell_event, false)
            }
            Some(_) => (
                any_tool(SHELL_TOOLS) || !self.input_command.is_empty(),
                any_tool(WRITE_TOOLS),
            ),
            None => (true, any_tool(WRITE_TOOLS)),
        };
        if shell {
            let sources: Vec<&Cow<'_, str>> = match agent {
                Some(Agent::Cursor) | None => {
                    self.command.iter().chain(&self.input_command).collect()
                }
                Some(_) => self.input_command.iter().collect(),
            };
            asked.commands = unique(sources.into_iter().flat_map(|c| variants(c)).collect());
            asked.shell_without_command = asked.commands.is_empty() && agent.is_some();
            // `apply_patch <<'EOF' *** Begin Patch ...` run as a shell command.
            for c in self.command.iter().chain(&self.input_command) {
                if !c.contains(PATCH_BEGIN) {
                    continue;
                }
                asked.paths.extend(patch_paths(c));
            }
        }
        if write {
            asked
                .paths
                .extend(self.input_path.iter().map(|p| p.as_ref()));
        }
        asked.paths = unique(asked.paths);
        asked
    }

    /// The directory the command runs in.
    pub fn cwd(&self) -> Option<&str> {
        self.cwd
            .first()
            .or_else(|| self.workspace_roots.first())
            .map(|c| c.as_ref())
    }
}

/// `items` without repeats, in order (a hash set: a patch can name tens of thousands of files).
fn unique<T: Eq + std::hash::Hash + Clone>(mut items: Vec<T>) -> Vec<T> {
    let mut seen = std::collections::HashSet::with_capacity(items.len());
    items.retain(|i| seen.insert(i.clone()));
    items
}

const PATCH_BEGIN: &str = "*** Begin Patch";

/// The files a Codex patch adds, updates, deletes or moves to.
fn patch_paths(patch: &str) -> Vec<&str> {
    patch
        .lines()
        .filter_map(|l| {
            let l = l.trim_start();
            [
                "*** Add File:",
                "*** Update File:",
                "*** Delete File:",
                "*** Move to:",
            ]
            .iter()
            .find_map(|h| l.strip_prefix(h))
            .map(str::trim)
        })
        .filter(|p| !p.is_empty())
        .collect()
}

/// A command as the agent may run it. With a NUL inside, what a C string would keep (the part
/// before it), and the whole with the NUL as a space and without it; with U+FFFD (a lone surrogate, an invalid
/// byte), also without it, as a runtime that drops what it cannot encode would run it. One of
/// them is what runs.
fn variants(command: &str) -> Vec<Cow<'_, str>> {
    let mut out = vec![Cow::Borrowed(command)];
    if let Some(at) = command.find('\0') {
        out[0] = Cow::Borrowed(&command[..at]);
        out.push(Cow::Owned(command.replace('\0', " ")));
        out.push(Cow::Owned(command.replace('\0', "")));
    }
    if command.contains('\u{fffd}') {
        let dropped: Vec<Cow<'_, str>> = out
            .iter()
            .map(|c| Cow::Owned(c.replace('\u{fffd}', "")))
            .collect();
        out.extend(dropped);
    }
    out
}

/// The exact deny object `agent` expects on stdout (exit 0).
pub fn deny_json(agent: Agent, reason: &str, user_message: &str) -> String {
    let reason = json_string(reason);
    match agent {
        // The payload never names the others (they have no PreToolUse hook); Claude Code's
        // shape is the default answer.
        Agent::Claude | Agent::Codex | Agent::Aider | Agent::OpenCode | Agent::Cline => format!(
            r#"{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":{reason}}}}}"#
        ),
        Agent::Gemini => format!(r#"{{"decision":"deny","reason":{reason}}}"#),
        Agent::Cursor => format!(
            r#"{{"permission":"deny","user_message":{},"agent_message":{reason}}}"#,
            json_string(user_message)
        ),
    }
}

/// The object that makes `agent` ask its user (Claude Code and Gemini CLI: `ask`; Cursor:
/// `permission: ask`). Codex accepts only deny: callers deny there.
pub fn ask_json(agent: Agent, reason: &str, user_message: &str) -> String {
    let reason_json = json_string(reason);
    match agent {
        Agent::Gemini => format!(r#"{{"decision":"ask","reason":{reason_json}}}"#),
        Agent::Cursor => format!(
            r#"{{"permission":"ask","user_message":{},"agent_message":{reason_json}}}"#,
            json_string(user_message)
        ),
        Agent::Claude => format!(
            r#"{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":{reason_json}}}}}"#
        ),
        _ => deny_json(agent, reason, user_message),
    }
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asked(payload: &[u8]) -> (Option<Agent>, Vec<String>, Vec<String>) {
        let (f, _) = parse(payload);
        let agent = f.agent();
        let a = f.asked(agent);
        (
            agent,
            a.commands.iter().map(|c| c.to_string()).collect(),
            a.paths.iter().map(|p| p.to_string()).collect(),
        )
    }

    #[test]
    fn detects_each_agent_from_its_documented_payload() {
        let claude = br#"{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":"/home/u/app","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"npm test","description":"Run tests","timeout":120000,"run_in_background":false},"tool_use_id":"toolu_01ABC"}"#;
        assert_eq!(
            asked(claude),
            (Some(Agent::Claude), vec!["npm test".into()], vec![])
        );
        let codex = br#"{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","turn_id":"t1","model":"m","tool_name":"Bash","tool_input":{"command":"ls"}}"#;
        assert_eq!(asked(codex).0, Some(Agent::Codex));
        let gemini = br#"{"session_id":"s","transcript_path":"/t","cwd":"/w","hook_event_name":"BeforeTool","timestamp":"2026-01-01T00:00:00Z","tool_name":"run_shell_command","tool_input":{"command":"ls"}}"#;
        assert_eq!(asked(gemini).0, Some(Agent::Gemini));
        let cursor = br#"{"hook_event_name":"beforeShellExecution","conversation_id":"c","workspace_roots":["/w"],"command":"ls","cwd":"/w"}"#;
        assert_eq!(
            asked(cursor),
            (Some(Agent::Cursor), vec!["ls".into()], vec![])
        );
    }

    #[test]
    fn write_tools_report_their_path() {
        let w = br#"{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/w/.env","content":"A=1"}}"#;
        assert_eq!(asked(w).2, vec!["/w/.env".to_string()]);
    }

    #[test]
    fn every_command_the_payload_could_mean_is_asked() {
        let dup = br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls","command":"rm -rf ~"}}"#;
        assert_eq!(asked(dup).1, ["ls", "rm -rf ~"]);
        let nul = br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~\u0000.bak"}}"#;
        assert_eq!(asked(nul).1, ["rm -rf ~", "rm -rf ~ .bak", "rm -rf ~.bak"]);
        // No agent shape, but a command: it is decided on.
        let bare = br#"{"tool_input":{"command":"rm -rf ~"}}"#;
        assert_eq!(asked(bare), (None, vec!["rm -rf ~".into()], vec![]));
        // Another tool of a known agent: nothing to decide.
        let read = br#"{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/etc/passwd"}}"#;
        assert_eq!(asked(read), (Some(Agent::Claude), vec![], vec![]));
        let (f, _) = parse(
            br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":7}}"#,
        );
        assert!(f.asked(f.agent()).shell_without_command);
    }
}
