//! What guards the agent is not the agent's to change: cm's data directory (its config, its
//! traumas, its store), a repository's `.cass/config.json` and `.cass/traumas.jsonl`, the agents'
//! hook settings (`.claude/settings*.json`, `.gemini/settings.json`, `.codex/config.toml` and
//! `hooks.json`, `.cursor/hooks.json`), git hooks, cm's own binaries; and the cm commands that
//! loosen the guard (`cm guard allow`, `cm guard --uninstall`, `cm hooks uninstall`, `cm trauma
//! heal`/`remove`). Also the files a shell reads at start-up and `~/.ssh/authorized_keys`, which
//! run or admit code later, outside any hook.
//!
//! Pure: the caller gives the places ([`Places`]) and absolute paths. The hook asks the user
//! (where the agent can ask) or refuses, with a reason addressed to the user.

use super::normalize::Segment;
use std::path::{Path, PathBuf};

/// Where the guard's own files are, for one hook call.
#[derive(Debug, Clone)]
pub struct Places {
    pub home: PathBuf,
    pub data_dir: PathBuf,
    /// The directory holding the running cm binary.
    pub exe_dir: Option<PathBuf>,
    /// Extra agent homes from the environment (`CODEX_HOME`, `GEMINI_CLI_HOME/.gemini`).
    pub agent_dirs: Vec<PathBuf>,
}

impl Places {
    /// The places as the hook's environment names them.
    pub fn from_env() -> Places {
        let mut agent_dirs = Vec::new();
        if let Some(c) = std::env::var_os("CODEX_HOME").filter(|v| !v.is_empty()) {
            agent_dirs.push(PathBuf::from(c));
        }
        if let Some(g) = std::env::var_os("GEMINI_CLI_HOME").filter(|v| !v.is_empty()) {
            agent_dirs.push(PathBuf::from(g).join(".gemini"));
        }
        Places {
            home: crate::paths::home_dir(),
            data_dir: crate::paths::data_dir(),
            exe_dir: std::env::current_exe()
                .ok()
                .and_then(|e| e.parent().map(Path::to_path_buf)),
            agent_dirs,
        }
    }
}

/// Files, by their last components, that configure a guard wherever they are.
const SETTINGS: &[(&[&str], &str)] = &[
    (
        &[".claude", "settings.json"],
        "Claude Code's settings, which install cm's hooks",
    ),
    (
        &[".claude", "settings.local.json"],
        "Claude Code's settings, which install cm's hooks",
    ),
    (
        &[".gemini", "settings.json"],
        "Gemini CLI's settings, which install cm's hooks",
    ),
    (
        &[".codex", "config.toml"],
        "Codex's config, which holds its hook approvals",
    ),
    (
        &[".codex", "hooks.json"],
        "Codex's hooks, which run cm's guard",
    ),
    (
        &[".cursor", "hooks.json"],
        "Cursor's hooks, which run cm's guard",
    ),
    (
        &[".cass", "config.json"],
        "the repository's cm guard settings",
    ),
    (
        &[".cass", "config.yaml"],
        "the repository's cm guard settings",
    ),
    (
        &[".cass", "config.yml"],
        "the repository's cm guard settings",
    ),
    (&[".cass", "traumas.jsonl"], "the repository's cm traumas"),
];

/// Shell start-up files and SSH access, under the home directory.
const STARTUP: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".kshrc",
    ".config/fish/config.fish",
    ".ssh/authorized_keys",
    ".ssh/config",
];

/// What `path` (absolute, normalised) is, when it is one of the guard's own files.
pub fn guard_file(path: &Path, places: &Places) -> Option<&'static str> {
    if path.starts_with(&places.data_dir) {
        return Some("cm's data directory (its config, traumas and store)");
    }
    for dir in &places.agent_dirs {
        if path.starts_with(dir)
            && path
                .file_name()
                .is_some_and(|n| n == "config.toml" || n == "hooks.json" || n == "settings.json")
        {
            return Some("an agent's settings, which install cm's hooks");
        }
    }
    let parts: Vec<&std::ffi::OsStr> = path.iter().collect();
    for (tail, what) in SETTINGS {
        if parts.len() >= tail.len()
            && parts[parts.len() - tail.len()..]
                .iter()
                .zip(tail.iter())
                .all(|(a, b)| *a == std::ffi::OsStr::new(b))
        {
            return Some(what);
        }
    }
    if parts.windows(2).any(|w| w[0] == ".git" && w[1] == "hooks") {
        return Some("the repository's git hooks, where cm's pre-commit check runs");
    }
    if let Some(dir) = &places.exe_dir
        && path.parent() == Some(dir.as_path())
        && path.file_name().is_some_and(|n| {
            matches!(
                n.to_str(),
                Some("cm" | "cm-pretool" | "cm-postsession" | "cm-precommit")
            )
        })
    {
        return Some("cm's own program");
    }
    None
}

/// What `path` (absolute, normalised) is, when it is a shell start-up file or SSH access.
pub fn startup_file(path: &Path, places: &Places) -> Option<&'static str> {
    let rel = path.strip_prefix(&places.home).ok()?;
    STARTUP
        .iter()
        .any(|s| rel == Path::new(s))
        .then_some("a file your shell runs at start-up or that admits SSH logins")
}

/// Could `command` touch the guard's own settings? A byte scan before any parse.
pub fn may_touch(command: &str, places: &Places) -> bool {
    let lower = command.to_ascii_lowercase();
    let data = places
        .data_dir
        .file_name()
        .and_then(|n| n.to_str())
        .map(str::to_ascii_lowercase);
    [
        "cm", ".claude", ".gemini", ".codex", ".cursor", ".cass", "hooks", "settings",
    ]
    .iter()
    .any(|k| lower.contains(k))
        || data.is_some_and(|d| lower.contains(&d))
}

/// The cm command among `segments` that loosens the guard, as run.
pub fn loosening_command(segments: &[Segment]) -> Option<String> {
    segments
        .iter()
        .filter(|s| s.lang == super::normalize::Lang::Shell && s.program == "cm")
        .find(|s| {
            let args: Vec<&str> = s.text.split_whitespace().skip(1).collect();
            let sub = args.iter().find(|a| !a.starts_with('-')).copied();
            let rest: Vec<&str> = args
                .iter()
                .skip_while(|a| Some(**a) != sub)
                .skip(1)
                .copied()
                .collect();
            let first = rest.iter().find(|a| !a.starts_with('-')).copied();
            match sub {
                Some("guard") => {
                    matches!(first, Some("allow"))
                        || rest.contains(&"--uninstall")
                        || (first == Some("packs") && rest.contains(&"disable"))
                }
                Some("hooks") => matches!(first, Some("uninstall" | "install")),
                Some("trauma") => matches!(first, Some("heal" | "remove")),
                _ => false,
            }
        })
        .map(|s| s.text.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::normalize::segments;

    fn places() -> Places {
        Places {
            home: "/home/u".into(),
            data_dir: "/home/u/.cass-memory".into(),
            exe_dir: Some("/home/u/.local/bin".into()),
            agent_dirs: vec![],
        }
    }

    #[test]
    fn the_guards_own_files_are_known() {
        let p = places();
        for f in [
            "/home/u/.cass-memory/config.json",
            "/home/u/.cass-memory/traumas.jsonl",
            "/home/u/.claude/settings.json",
            "/work/app/.claude/settings.local.json",
            "/home/u/.gemini/settings.json",
            "/home/u/.codex/config.toml",
            "/home/u/.codex/hooks.json",
            "/work/app/.cass/traumas.jsonl",
            "/work/app/.git/hooks/pre-commit",
            "/home/u/.local/bin/cm-pretool",
        ] {
            assert!(guard_file(Path::new(f), &p).is_some(), "{f}");
        }
        for f in [
            "/work/app/src/main.rs",
            "/work/app/.cass/playbook.yaml",
            "/home/u/.local/bin/rg",
        ] {
            assert!(guard_file(Path::new(f), &p).is_none(), "{f}");
        }
        assert!(startup_file(Path::new("/home/u/.zshrc"), &p).is_some());
        assert!(startup_file(Path::new("/home/u/app/.zshrc"), &p).is_none());
    }

    #[test]
    fn loosening_commands_are_found_however_wrapped() {
        for cmd in [
            "cm guard allow 'rm -rf ~'",
            "cm hooks uninstall --everywhere",
            "cm guard --uninstall",
            "cm trauma heal t-1",
            "sudo cm --json guard allow git:reset-hard",
            "bash -c 'cm hooks uninstall'",
        ] {
            assert!(loosening_command(&segments(cmd)).is_some(), "{cmd}");
        }
        for cmd in [
            "cm guard check 'rm -rf ~'",
            "cm context 'fix tests'",
            "cm trauma list",
            "cm hooks status",
        ] {
            assert!(loosening_command(&segments(cmd)).is_none(), "{cmd}");
        }
    }
}
