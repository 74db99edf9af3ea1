//! Codex CLI: Claude-compatible `hooks.json` in `$CODEX_HOME` (default `~/.codex`) or the
//! project's `.codex/`. Timeouts in seconds.
//!
//! Codex runs a hook only once the user has trusted it (see [`super::codex_trust`]); a changed
//! handler (command, matcher or timeout) needs trusting again. The post-session job hangs on
//! `SessionEnd` with a short timeout (it only starts a detached job); `Stop` ends every turn and
//! runs the per-turn indexer. Shell commands arrive as `Bash`, `exec_command`, `shell` or
//! `local_shell`, file edits as `apply_patch`.

use super::Scope;
use super::command::HookKind;
use super::settings::Entry;
use std::path::{Path, PathBuf};

/// Tools the guard sees under Codex, anchored (Codex matchers are regular expressions).
pub const PRETOOL_MATCHER: &str = "^(Bash|exec_command|shell|local_shell|apply_patch|mcp__.*)$";

/// `$CODEX_HOME`, else `~/.codex`.
pub fn home() -> PathBuf {
    std::env::var_os("CODEX_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::paths::home_dir().join(".codex"))
}

pub fn path(scope: Scope, project_root: &Path) -> PathBuf {
    match scope {
        Scope::User => home().join("hooks.json"),
        Scope::Project => project_root.join(".codex").join("hooks.json"),
    }
}

/// The settings entry for `kind` (`None` for the pre-commit hook, which is git's).
pub fn entry(kind: HookKind) -> Option<Entry> {
    let (event, matcher, timeout) = match kind {
        HookKind::SessionStart => (
            "SessionStart",
            Some("startup|resume|clear|compact|fork"),
            10,
        ),
        HookKind::Prompt => ("UserPromptSubmit", None, 5),
        HookKind::Pretool => ("PreToolUse", Some(PRETOOL_MATCHER), 5),
        HookKind::Postsession => ("SessionEnd", None, 3),
        HookKind::Stop => ("Stop", None, 5),
        HookKind::Precommit => return None,
    };
    Some(Entry::new(kind, event, matcher, timeout))
}
