//! The `pretool` hook (`cm-pretool`, `cm hook pretool`): the guard, on every tool call.
//!
//! Reads the PreToolUse payload (Claude Code, Codex, Gemini CLI BeforeTool, Cursor
//! beforeShellExecution; see [`payload`]), and for a shell command asks
//! [`crate::guard::evaluate`]. Allow is exit 0 with nothing on stdout; deny is the agent's
//! documented deny object on stdout, exit 0.
//!
//! Cost, in order, stopping as soon as the answer is known:
//! 1. Parse the payload into borrowed fields (no JSON tree, no argument parser).
//! 2. `stat` the two trauma files (global, and the project's `.cass/`, found by walking up from
//!    the payload's `cwd`); read them only if they exist.
//! 3. The quick reject over the command. No keyword (pack or trauma): allow. Nothing compiled.
//! 4. Normalise and run the few gated rules.
//! 5. Only when something would be denied: read the `guard` sections of the config files
//!    (allow-list, disabled packs) and decide again with them.
//!
//! Write/Edit calls read the config for `guard.protectedPaths`; other tools are allowed at once.
//! Malformed or oversized input is allowed with a line on stderr, or denied (exit 2, reason on
//! stderr) when `guard.failClosed` is set.

mod payload;

use crate::guard::{self, policy_file, reason};
use payload::{Agent, Request};
use std::io::Write;
use std::path::{Path, PathBuf};

pub use payload::deny_json;

pub fn run(_args: &[String]) -> i32 {
    let input = super::read_stdin();
    if input.truncated {
        return malformed("payload larger than 1 MiB", None);
    }
    let parsed = match payload::parse(&input.bytes) {
        Ok(p) => p,
        Err(e) => return malformed(&e, None),
    };
    let Some(agent) = parsed.agent() else {
        return malformed(
            "payload of no known agent (expected a PreToolUse, BeforeTool or beforeShellExecution event)",
            parsed.cwd(),
        );
    };
    let cwd = parsed
        .cwd()
        .map(PathBuf::from)
        .unwrap_or_else(crate::paths::cwd);
    match parsed.request(agent) {
        Request::Other => 0,
        Request::Shell { command } => shell(agent, command, &cwd),
        Request::Write { path } => write(agent, path, &cwd),
    }
}

fn shell(agent: Agent, command: &str, cwd: &Path) -> i32 {
    let mut sources = policy_file::Sources::default();
    let mut policy = guard::Policy::default();
    let now = crate::clock::now_rfc3339();
    let traumas = policy_file::load_traumas_for(&[command], &now, cwd, &mut sources);
    if !traumas.is_empty() {
        policy.set_traumas(traumas, &now);
    }
    let first = guard::evaluate(command, &policy);
    if !first.is_deny() {
        warn(&sources);
        return 0;
    }
    // Something would be blocked: now the allow-list and disabled packs matter.
    policy_file::apply_config(&mut policy, cwd, &mut sources);
    let decision = if policy.allow.is_empty() && policy.disabled_packs.is_empty() {
        first
    } else {
        guard::evaluate(command, &policy)
    };
    warn(&sources);
    match &decision.hit {
        Some(hit) if decision.is_deny() => {
            deny(agent, &reason::for_hit(hit), &reason::user_message(hit))
        }
        _ => 0,
    }
}

fn warn(sources: &policy_file::Sources) {
    for w in &sources.warnings {
        eprintln!("cm-pretool: warning: {w}");
    }
}

fn write(agent: Agent, path: &str, cwd: &Path) -> i32 {
    let mut policy = guard::Policy::default();
    let mut sources = policy_file::Sources::default();
    policy_file::apply_config(&mut policy, cwd, &mut sources);
    warn(&sources);
    let home = crate::paths::home_dir();
    match guard::protected::matching_glob(path, cwd, &home, &policy.protected_paths) {
        Some(glob) => deny(
            agent,
            &format!(
                "cm guard blocked writing to `{path}`: the user protects `{glob}` (guard.protectedPaths). Why: they do not want agents to change it. Instead: tell the user what change you need there and let them make it. A human can lift this by removing the glob from \"guard.protectedPaths\" in the cm config."
            ),
            &format!("cm guard blocked a write to {path} (protected: {glob})"),
        ),
        None => 0,
    }
}

fn deny(agent: Agent, reason: &str, user: &str) -> i32 {
    let out = payload::deny_json(agent, reason, user);
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{out}");
    let _ = stdout.flush();
    0
}

/// Unreadable input: allow with a note on stderr, or block (exit 2) under `failClosed`.
fn malformed(why: &str, cwd: Option<&str>) -> i32 {
    let cwd = cwd.map(PathBuf::from).unwrap_or_else(crate::paths::cwd);
    let mut sources = policy_file::Sources::default();
    let closed = policy_file::fail_closed(&cwd, &mut sources);
    warn(&sources);
    if closed {
        eprintln!(
            "cm guard blocked this tool call: {why}; guard.failClosed is set, so input the guard cannot read is refused."
        );
        return 2;
    }
    eprintln!("cm-pretool: {why}; allowing (set guard.failClosed to refuse instead)");
    0
}
