//! Gemini CLI: `$GEMINI_CLI_HOME/.gemini/settings.json` (Gemini's home is `$GEMINI_CLI_HOME`,
//! else the user's) or the project's `.gemini/settings.json`, events `SessionStart`,
//! `BeforeAgent` (the prompt), `BeforeTool` (shell commands arrive as `run_shell_command`,
//! writes as `write_file` and `replace`, MCP tools as `mcp_<server>_<tool>`), `AfterAgent` (the
//! end of a turn) and `SessionEnd`. Handlers carry a `name`; timeouts are milliseconds.
//!
//! Gemini compares a lifecycle event's matcher with the event's source as an exact string, so
//! `startup|resume` never matches anything: the session-start handler has no matcher. Tool
//! matchers are unanchored regular expressions, so cm's is anchored. Every command gets
//! `--agent=gemini`: Gemini shows a hook's stderr to the user when stdout is empty, so the hook
//! then holds its stderr back ([`crate::hooks::capture`]).

use super::Scope;
use super::command::HookKind;
use super::settings::Entry;
use std::path::{Path, PathBuf};

pub const PRETOOL_MATCHER: &str = "^(run_shell_command|write_file|replace|mcp_.*)$";

/// The argument that tells a hook it runs under Gemini CLI.
pub const AGENT_ARG: &str = "--agent=gemini";

/// Gemini's home: `$GEMINI_CLI_HOME`, else the user's home.
pub fn home() -> PathBuf {
    std::env::var_os("GEMINI_CLI_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(crate::paths::home_dir)
}

pub fn path(scope: Scope, project_root: &Path) -> PathBuf {
    match scope {
        Scope::User => home().join(".gemini").join("settings.json"),
        Scope::Project => project_root.join(".gemini").join("settings.json"),
    }
}

/// The settings entry for `kind` (`None` for the pre-commit hook, which is git's).
pub fn entry(kind: HookKind) -> Option<Entry> {
    let (event, matcher, timeout, name) = match kind {
        HookKind::SessionStart => ("SessionStart", None, 10_000, "cm-session-start"),
        HookKind::Prompt => ("BeforeAgent", None, 5_000, "cm-prompt"),
        HookKind::Pretool => ("BeforeTool", Some(PRETOOL_MATCHER), 5_000, "cm-guard"),
        HookKind::Postsession => ("SessionEnd", None, 10_000, "cm-postsession"),
        HookKind::Stop => ("AfterAgent", None, 5_000, "cm-stop"),
        HookKind::Precommit => return None,
    };
    Some(Entry {
        name: Some(name),
        arg: Some(AGENT_ARG),
        ..Entry::new(kind, event, matcher, timeout)
    })
}
