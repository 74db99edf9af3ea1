//! Claude Code: `~/.claude/settings.json` (or `$CLAUDE_CONFIG_DIR/settings.json`) for the user,
//! `.claude/settings.json` in the project. Timeouts in seconds.
//!
//! The guard's handler asks for `"onFailure": "block"` (a guard that crashed or timed out then
//! blocks the call instead of letting it run) only when the installed Claude Code is 2.1.332 or
//! later: older versions do not know the key.

use super::Scope;
use super::command::HookKind;
use super::settings::Entry;
use std::path::{Path, PathBuf};

/// Tools the guard sees: shell commands, file writes (for `guard.protectedPaths`) and MCP tools
/// (whose arguments may hold a command). Anchored: Claude Code reads a matcher with anything
/// but names and `|` as an unanchored regular expression.
pub const PRETOOL_MATCHER: &str = "^(Bash|Edit|Write|MultiEdit|NotebookEdit|mcp__.*)$";

/// The first Claude Code version that honours `onFailure` on a command hook.
pub const ON_FAILURE_SINCE: (u32, u32, u32) = (2, 1, 332);

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
    let (event, matcher, timeout) = match kind {
        HookKind::Precommit => return None,
        HookKind::SessionStart => (
            "SessionStart",
            Some("startup|resume|clear|compact|fork"),
            10,
        ),
        HookKind::Prompt => ("UserPromptSubmit", None, 5),
        HookKind::Pretool => ("PreToolUse", Some(PRETOOL_MATCHER), 5),
        HookKind::Postsession => ("SessionEnd", None, 10),
        HookKind::Stop => ("Stop", None, 5),
    };
    Some(Entry {
        on_failure: (kind == HookKind::Pretool && installed_supports_on_failure())
            .then_some("block"),
        ..Entry::new(kind, event, matcher, timeout)
    })
}

/// Whether `claude --version` (the Claude Code on PATH) reports a version that honours
/// `onFailure`. No Claude Code on PATH, no answer within 10 s, or an answer that is not a
/// version: no.
pub fn installed_supports_on_failure() -> bool {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let Ok(mut child) = Command::new("claude")
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    else {
        return false;
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return false;
            }
        }
    };
    let mut out = String::new();
    if let Some(mut stdout) = child.stdout.take() {
        let _ = stdout.read_to_string(&mut out);
    }
    status.success() && parse_version(&out).is_some_and(|v| v >= ON_FAILURE_SINCE)
}

/// `2.1.332 (Claude Code)` -> (2, 1, 332).
pub fn parse_version(text: &str) -> Option<(u32, u32, u32)> {
    let word = text.split_whitespace().next()?;
    let mut parts = word.split('.').map(|p| p.parse::<u32>().ok());
    Some((parts.next()??, parts.next()??, parts.next()??))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_claude_versions() {
        assert_eq!(parse_version("2.1.332 (Claude Code)\n"), Some((2, 1, 332)));
        assert!(parse_version("2.1.197 (Claude Code)").unwrap() < ON_FAILURE_SINCE);
        assert!(parse_version("2.10.0").unwrap() > ON_FAILURE_SINCE);
        assert_eq!(parse_version("command not found"), None);
        assert_eq!(parse_version(""), None);
    }
}
