//! Gemini CLI: `~/.gemini/settings.json` or the project's `.gemini/settings.json`, events
//! `SessionStart`, `BeforeAgent` (the prompt), `BeforeTool` (shell commands arrive as
//! `run_shell_command`) and `SessionEnd`. Handlers carry a `name`; timeouts are milliseconds.

use super::Scope;
use super::command::HookKind;
use super::settings::Entry;
use std::path::{Path, PathBuf};

pub fn path(scope: Scope, project_root: &Path) -> PathBuf {
    match scope {
        Scope::User => crate::paths::home_dir()
            .join(".gemini")
            .join("settings.json"),
        Scope::Project => project_root.join(".gemini").join("settings.json"),
    }
}

/// The settings entry for `kind` (`None` for the pre-commit hook, which is git's).
pub fn entry(kind: HookKind) -> Option<Entry> {
    let (event, matcher, timeout, name) = match kind {
        HookKind::SessionStart => (
            "SessionStart",
            Some("startup|resume|clear"),
            10_000,
            "cm-session-start",
        ),
        HookKind::Prompt => ("BeforeAgent", None, 5_000, "cm-prompt"),
        HookKind::Pretool => (
            "BeforeTool",
            Some("run_shell_command|write_file|replace"),
            5_000,
            "cm-guard",
        ),
        HookKind::Postsession => ("SessionEnd", None, 10_000, "cm-postsession"),
        HookKind::Precommit => return None,
    };
    Some(Entry {
        kind,
        event,
        matcher,
        timeout,
        name: Some(name),
    })
}
