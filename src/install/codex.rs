//! Codex CLI: Claude-compatible `hooks.json` in `$CODEX_HOME` (default `~/.codex`) or the
//! project's `.codex/`. Codex has no SessionEnd event; its `Stop` (end of a turn) runs the
//! post-session hook, which is cheap when nothing new happened. Timeouts in seconds.

use super::Scope;
use super::command::HookKind;
use super::settings::Entry;
use std::path::{Path, PathBuf};

pub fn path(scope: Scope, project_root: &Path) -> PathBuf {
    match scope {
        Scope::User => std::env::var_os("CODEX_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| crate::paths::home_dir().join(".codex"))
            .join("hooks.json"),
        Scope::Project => project_root.join(".codex").join("hooks.json"),
    }
}

/// The settings entry for `kind` (`None` for the pre-commit hook, which is git's).
pub fn entry(kind: HookKind) -> Option<Entry> {
    let (event, matcher, timeout) = match kind {
        HookKind::SessionStart => ("SessionStart", Some("startup|resume|clear|compact"), 10),
        HookKind::Prompt => ("UserPromptSubmit", None, 5),
        HookKind::Pretool => ("PreToolUse", Some("Bash"), 5),
        HookKind::Postsession => ("Stop", None, 10),
        HookKind::Precommit => return None,
    };
    Some(Entry {
        kind,
        event,
        matcher,
        timeout,
        name: None,
    })
}
