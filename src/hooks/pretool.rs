//! The `pretool` hook (`cm-pretool`, `cm hook pretool`): the guard, on every tool call.
//!
//! Reads the PreToolUse payload (Claude Code, Codex, Gemini CLI BeforeTool, Cursor
//! beforeShellExecution; see [`payload`]), and for each shell command it holds asks
//! [`crate::guard::evaluate`]. Allow is exit 0 with nothing on stdout; deny is the agent's
//! documented deny object on stdout, exit 0 (exit 2 with the reason on stderr when the payload
//! has no known agent's shape, which every agent treats as a block).
//!
//! Cost, in order, stopping as soon as the answer is known:
//! 1. Parse the payload into borrowed fields (no JSON tree, no argument parser), keeping every
//!    value of a repeated key ([`fields`]); a payload that is not valid JSON is repaired and
//!    salvaged ([`repair`]), so a command is decided on whenever one can be recovered.
//! 2. Look for the two trauma files (global, and the project's `.cass/`, found by walking up
//!    from the payload's `cwd`); read their cached index only if they exist.
//! 3. The quick reject over each command. No keyword (pack or trauma): allow. Nothing compiled.
//! 4. Normalise and run the few gated rules.
//! 5. Only when something would be denied: read the `guard` sections of the config files
//!    (allow-list, disabled packs) and decide again with them.
//!
//! Write/Edit calls read the config for `guard.protectedPaths`; other tools are allowed at once.
//! The whole payload is read up to [`MAX_PAYLOAD`]; a larger one is denied (its command cannot
//! be checked). A payload with no command or path at all is allowed with a line on stderr, or
//! denied (exit 2, reason on stderr) when `guard.failClosed` is set.

pub mod fields;
pub mod own;
pub mod payload;
pub mod repair;

use crate::guard::{self, policy_file, reason};
use payload::Agent;
use std::borrow::Cow;
use std::io::Write;
use std::path::{Path, PathBuf};

pub use payload::deny_json;

/// The guard reads payloads up to this size: an agent can send a command this long, so the
/// guard reads all of it (50 MB read in 5-18 ms here). Past it the call is denied.
pub const MAX_PAYLOAD: usize = 64 << 20;

pub fn run(_args: &[String]) -> i32 {
    let input = super::read_stdin_up_to(MAX_PAYLOAD);
    if input.truncated {
        // Only which agent asked matters now: its fields come first in every payload.
        let head = &input.bytes[..input.bytes.len().min(64 << 10)];
        return deny(
            payload::parse(head).0.agent(),
            &format!(
                "cm guard blocked this tool call: its payload is larger than {} MiB, more than the guard reads, so the command in it cannot be checked. Instead: split the work into smaller commands, or write large content to a file in parts.",
                MAX_PAYLOAD >> 20
            ),
            "cm guard blocked a tool call whose payload is too large to check",
        );
    }
    let (fields, malformed_note) = payload::parse(&input.bytes);
    if let Some(note) = &malformed_note {
        eprintln!("cm-pretool: {note}; deciding on what could be read from it");
    }
    for key in &fields.wrong_types {
        eprintln!("cm-pretool: ignored \"{key}\": not of the type the hook protocol gives it");
    }
    let agent = fields.agent();
    let cwd = fields
        .cwd()
        .map(PathBuf::from)
        .unwrap_or_else(crate::paths::cwd);
    let asked = fields.asked(agent);
    if !(asked.commands.is_empty() && asked.paths.is_empty())
        && let Some(r) = own::overlong(&cwd, &asked.paths)
    {
        return refuse(agent, &r);
    }
    if !asked.commands.is_empty()
        && let Some(code) = shell(agent, &asked.commands, &cwd)
    {
        return code;
    }
    if !asked.commands.is_empty() {
        let texts: Vec<&str> = asked.commands.iter().map(|c| c.as_ref()).collect();
        if let Some(r) = own::commands(agent, &texts, &cwd) {
            return refuse(agent, &r);
        }
    }
    if !asked.paths.is_empty()
        && let Some(code) = write(agent, &asked.paths, &cwd)
    {
        return code;
    }
    if asked.commands.is_empty() && asked.paths.is_empty() {
        if agent.is_none() {
            return malformed(
                malformed_note.as_deref().unwrap_or(
                    "payload of no known agent (expected a PreToolUse, BeforeTool or beforeShellExecution event)",
                ),
                &cwd,
            );
        }
        if asked.shell_without_command {
            return malformed("shell tool call without a command the guard can read", &cwd);
        }
    }
    0
}

/// Decide on every command; `Some(exit code)` when one is refused or asked about.
///
/// The first pass runs every rule of every pack, so no config file is read for a command no
/// rule touches (most of them); only when something would be refused are the config files read
/// (enabled and disabled packs, allow-list) and the command decided again under them.
fn shell(agent: Option<Agent>, commands: &[Cow<'_, str>], cwd: &Path) -> Option<i32> {
    let started = std::time::Instant::now();
    let mut sources = policy_file::Sources::default();
    let mut policy = guard::Policy::default();
    policy.enabled_packs.push("*".into());
    let texts: Vec<&str> = commands.iter().map(|c| c.as_ref()).collect();
    let traumas = policy_file::load_traumas_for(&texts, cwd, &mut sources);
    if !traumas.is_empty() {
        policy.set_traumas(traumas, &crate::clock::now_rfc3339());
        policy.trauma_deadline = Some(started + trauma_budget());
    }
    let ctx = guard::expand::Context::from_env(Some(cwd));
    let first = texts
        .iter()
        .map(|c| (*c, guard::evaluate_at(c, &policy, &ctx)))
        .find(|(_, d)| d.is_deny());
    remember_broken(&policy, cwd);
    let Some(first) = first else {
        warn(&sources);
        return None;
    };
    // Something would be refused: now the packs the user turned on, the disabled packs and the
    // allow-list matter.
    policy.enabled_packs.clear();
    policy_file::apply_config(&mut policy, cwd, &mut sources);
    warn(&sources);
    let relaxable = !policy.allow.is_empty()
        || !policy.disabled_packs.is_empty()
        || first.1.hit.as_ref().is_none_or(|h| !policy.runs(h));
    let denied = if relaxable {
        texts
            .iter()
            .map(|c| guard::evaluate_at(c, &policy, &ctx))
            .find(|d| d.is_deny())
    } else {
        Some(first.1)
    }?;
    let answer = denied.answer();
    let hit = denied.hit?;
    let asked = answer == guard::Answer::Ask && own::asks(agent);
    let refusal = own::Refusal {
        reason: if asked {
            reason::for_ask(&hit)
        } else {
            reason::for_hit(&hit)
        },
        user: reason::user_message(&hit),
        ask: asked,
    };
    Some(refuse(agent, &refusal))
}

/// Trauma patterns that failed to compile on this call are never compiled again (until their
/// file changes): each such compile costs milliseconds before it fails.
fn remember_broken(policy: &guard::Policy, cwd: &Path) {
    let broken: Vec<&str> = policy
        .traumas()
        .iter()
        .filter(|t| t.failed_to_compile())
        .map(|t| t.trauma.pattern.as_str())
        .collect();
    if !broken.is_empty() {
        policy_file::remember_broken(cwd, &broken);
    }
}

/// Time reading and matching trauma patterns may take per call (`CM_GUARD_BUDGET_MS`, default
/// 40 ms, counted from when the traumas files are opened): past it, a command a pack keyword
/// touches is refused (an agent's hook timeout would let it run).
fn trauma_budget() -> std::time::Duration {
    let ms = std::env::var("CM_GUARD_BUDGET_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(40);
    std::time::Duration::from_millis(ms)
}

/// Warnings printed at most, per call: a junk file in a cloned repository can hold thousands of
/// bad lines, and this runs on every tool call.
const MAX_WARNINGS: usize = 5;

fn warn(sources: &policy_file::Sources) {
    for w in sources.warnings.iter().take(MAX_WARNINGS) {
        eprintln!("cm-pretool: warning: {w}");
    }
    let more = sources.warnings.len().saturating_sub(MAX_WARNINGS);
    if more > 0 {
        eprintln!(
            "cm-pretool: warning: {more} more like these (`cm guard check <command>` lists every one)"
        );
    }
}

/// Check every written path against `guard.protectedPaths`; `Some(exit code)` when one is.
fn write(agent: Option<Agent>, paths: &[&str], cwd: &Path) -> Option<i32> {
    let mut policy = guard::Policy::default();
    let mut sources = policy_file::Sources::default();
    policy_file::apply_config(&mut policy, cwd, &mut sources);
    warn(&sources);
    let home = crate::paths::home_dir();
    let protected = guard::protected::Protected::new(&policy.protected_paths, &home);
    let user = paths.iter().find_map(|path| {
        let found = protected.matching(path, cwd)?;
        Some(refuse(agent, &protected_refusal(path, &found, &sources)))
    });
    // The user's own protection answers first; then the guard's files and start-up files.
    user.or_else(|| own::paths(agent, paths, cwd).map(|r| refuse(agent, &r)))
}

/// Why a write to a path under `guard.protectedPaths` is blocked.
fn protected_refusal(
    path: &str,
    found: &guard::protected::Found,
    sources: &policy_file::Sources,
) -> own::Refusal {
    use guard::protected::{Found, MAX_WILDCARD_GLOBS};
    let (reason, user) = match found {
        Found::Glob(glob) => (
            format!(
                "cm guard blocked writing to `{path}`: the user protects `{glob}` (guard.protectedPaths). Why: they do not want agents to change it. Instead: tell the user what change you need there and let them make it. For the user: remove the glob from \"guard.protectedPaths\" in your cm config to lift this."
            ),
            format!("cm guard blocked a write to {path} (protected: {glob})"),
        ),
        Found::Unchecked { wildcards } => {
            let files: Vec<String> = sources
                .config_files
                .iter()
                .map(|f| f.display().to_string())
                .collect();
            (
                format!(
                    "cm guard blocked writing to `{path}`: guard.protectedPaths (in {}) holds {wildcards} globs with wildcards, more than the {MAX_WILDCARD_GLOBS} the guard checks on each call, so it cannot tell whether this path is protected. Instead: tell the user. For the user: keep at most {MAX_WILDCARD_GLOBS} wildcard globs there (`dir/**` covers a whole directory; plain paths have no limit).",
                    files.join(" and ")
                ),
                format!(
                    "cm guard blocked a write to {path}: too many protectedPaths globs to check ({wildcards})"
                ),
            )
        }
    };
    own::Refusal {
        reason,
        user,
        ask: false,
    }
}

/// Ask the user where the agent can and the refusal wants it; deny otherwise.
fn refuse(agent: Option<Agent>, r: &own::Refusal) -> i32 {
    match agent.filter(|_| r.ask && own::asks(agent)) {
        Some(a) => {
            let out = payload::ask_json(a, &r.reason, &r.user);
            let mut stdout = std::io::stdout().lock();
            let _ = writeln!(stdout, "{out}");
            let _ = stdout.flush();
            0
        }
        None => deny(agent, &r.reason, &r.user),
    }
}

/// The agent's deny object on stdout (exit 0); for a payload of no known agent, the reason on
/// stderr and exit 2, which blocks the call in every agent's protocol.
fn deny(agent: Option<Agent>, reason: &str, user: &str) -> i32 {
    let Some(agent) = agent else {
        eprintln!("{reason}");
        return 2;
    };
    let out = payload::deny_json(agent, reason, user);
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{out}");
    let _ = stdout.flush();
    0
}

/// Nothing to decide on: allow with a note on stderr, or block (exit 2) under `failClosed`.
fn malformed(why: &str, cwd: &Path) -> i32 {
    let mut sources = policy_file::Sources::default();
    let closed = policy_file::fail_closed(cwd, &mut sources);
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
