//! Claude Code: `~/.claude/settings.json` (or `$CLAUDE_CONFIG_DIR/settings.json`) for the user,
//! `.claude/settings.json` in the project. Timeouts in seconds.

use super::Scope;
use super::command::HookKind;
use super::settings::Entry;
use std::path::{Path, PathBuf};

/// Tools the guard sees: shell commands, and file writes (for `guard.protectedPaths`).
pub const PRETOOL_MATCHER: &str = "Bash|Edit|Write|MultiEdit|NotebookEdit";

pub fn path(scope: Scope, project_root: &Path) -> PathBuf {
    match scope {
        Scope::User => std::env::var_os("CLAUDE_CONFIG_DIR")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| crate::paths::home_dir().join(".claude"))
            .join("settings.json"),
        Scope::Project => project_root.join(".claude").join("settings.json"),
    }
}

/// The settings entry for `kind` (`None` for the pre-commit hook, which is git's).
pub fn entry(kind: HookKind) -> Option<Entry> {
    Some(match kind {
        HookKind::Precommit => return None,
        HookKind::SessionStart => Entry {
            kind,
            event: "SessionStart",
            matcher: Some("startup|resume|clear|compact"),
            timeout: 10,
            name: None,
        },
        HookKind::Prompt => Entry {
            kind,
            event: "UserPromptSubmit",
            matcher: None,
            timeout: 5,
            name: None,
        },
        HookKind::Pretool => Entry {
            kind,
            event: "PreToolUse",
            // Shell commands, and writes so `guard.protectedPaths` is enforced.
            matcher: Some(PRETOOL_MATCHER),
            timeout: 5,
            name: None,
        },
        HookKind::Postsession => Entry {
            kind,
            event: "SessionEnd",
            matcher: None,
            timeout: 10,
            name: None,
        },
    })
}
