//! Checks beyond the rule packs, for commands the packs let through and for written paths: the
//! agent may not change what guards it (cm's config, traumas and data dir, the agents' hook
//! settings, git hooks, cm's binaries, or run `cm guard allow`, `cm hooks uninstall`, ...), may
//! not write shell start-up files or `~/.ssh/authorized_keys` unasked (appending plain text that
//! the guard reads as harmless, `echo 'alias gs="git status"' >> ~/.bashrc`, is not asked about,
//! [`self_protect::plain_append`]), and Bash writes meet
//! `guard.protectedPaths` as Write/Edit calls do. Under Codex, an interactive shell or REPL is
//! refused (what is typed into it later reaches no hook).
//!
//! Cost: byte tests first ([`writes::may_write`], [`self_protect::may_touch`]); only a command
//! that passes one is normalised, and the config is read only when the command writes a file.

use super::payload::Agent;
use crate::guard::expand::Context;
use crate::guard::self_protect::{self, Places};
use crate::guard::{self, interactive, normalize, policy_file, protected, writes};
use std::path::{Path, PathBuf};

/// The hook's answer when a check here objects.
pub struct Refusal {
    /// Shown to the agent (and, where the agent asks, to the user).
    pub reason: String,
    /// One line for the user.
    pub user: String,
    /// Ask the user where the agent supports it; refuse otherwise.
    pub ask: bool,
}

fn own_file(path: &str, what: &str, agent: Option<Agent>) -> Refusal {
    Refusal {
        reason: format!(
            "cm guard stopped this: it changes `{path}`, {what}. An agent may not change what guards it, so this needs the user. For the user: {}",
            for_user(agent)
        ),
        user: format!("cm guard: an agent wants to change {path} ({what})"),
        ask: true,
    }
}

fn for_user(agent: Option<Agent>) -> &'static str {
    if asks(agent) {
        "if you want this change, approve it here; otherwise deny it."
    } else {
        "if you want this change, make it yourself in your own terminal; the agent cannot."
    }
}

/// Can the agent ask its user (`permissionDecision: "ask"` and its equivalents)?
pub fn asks(agent: Option<Agent>) -> bool {
    matches!(agent, Some(Agent::Claude | Agent::Gemini | Agent::Cursor))
}

/// The most files one tool call may name and still be checked within the hook's budget (each
/// is resolved on disk: ~10 µs apiece in a release build, so 1,024 stay near 10 ms).
pub const MAX_PATHS: usize = 1024;

/// A working directory or a written path longer than PATH_MAX: no process works in such a
/// directory or opens such a path by its name (the kernel refuses it), so a payload naming one
/// is not what an agent sends, and the guard cannot look up the repository's protection there.
/// Refused, naming the bound, before anything else walks it.
///
/// Also a call that names more files than the guard can check within its time budget (each
/// one is resolved on disk): past [`MAX_PATHS`] the user is asked (agents that cannot ask are
/// refused), naming the count, rather than letting the hook run past its deadline.
pub fn overlong(cwd: &Path, paths: &[&str]) -> Option<Refusal> {
    if paths.len() > MAX_PATHS {
        let n = paths.len();
        return Some(Refusal {
            reason: format!(
                "cm guard stopped this tool call: it names {n} files, more than the {MAX_PATHS} the guard checks in one call within its time budget, so it cannot tell whether one of them is protected. Instead: make the change in parts of at most {MAX_PATHS} files."
            ),
            user: format!("cm guard: a tool call names {n} files to write"),
            ask: true,
        });
    }
    let max = crate::paths::PATH_MAX;
    let (what, len) = if cwd.as_os_str().len() > max {
        ("its working directory (cwd)", cwd.as_os_str().len())
    } else {
        let p = paths.iter().find(|p| p.len() > max)?;
        ("the path it writes", p.len())
    };
    Some(Refusal {
        reason: format!(
            "cm guard blocked this tool call: {what} is {len} bytes long, more than the {max} bytes the kernel resolves, so the guard cannot tell which files or repository it concerns. Instead: use a shorter path, relative to a working directory that exists."
        ),
        user: format!("cm guard blocked a tool call naming a path of {len} bytes"),
        ask: false,
    })
}

/// Check every command; the first objection.
pub fn commands(agent: Option<Agent>, commands: &[&str], cwd: &Path) -> Option<Refusal> {
    let mut places: Option<Places> = None;
    let mut written: Vec<String> = Vec::new();
    // Start-up files a command only appends plain, harmless text to.
    let mut plain: Vec<String> = Vec::new();
    for c in commands {
        if agent == Some(Agent::Codex)
            && let Some(prog) = interactive::bare_interactive(c)
        {
            return Some(Refusal {
                reason: format!(
                    "cm guard blocked this command: it opens an interactive `{prog}`, and what is typed into it later (write_stdin) reaches no hook, so the guard could not check it. Instead: run each command on its own (`bash -lc 'CMD'`, `python3 script.py`, `psql -c 'SQL'`)."
                ),
                user: format!("cm guard blocked an interactive {prog} session (Codex)"),
                ask: false,
            });
        }
        let write = writes::may_write(c);
        let p = places.get_or_insert_with(Places::from_env);
        let touch = self_protect::may_touch(c, p);
        if !write && !touch {
            continue;
        }
        let ctx = Context::from_env(Some(cwd));
        let segments = normalize::segments_at(c, &ctx);
        if touch && let Some(run) = self_protect::loosening_command(&segments) {
            return Some(Refusal {
                reason: format!(
                    "cm guard stopped `{run}`: it loosens or removes the guard that checks this agent's commands, and an agent may not change what guards it. For the user: {}",
                    for_user(agent)
                ),
                user: format!("cm guard: an agent wants to run `{run}`"),
                ask: true,
            });
        }
        if write {
            written.extend(writes::targets(&segments));
            plain.extend(self_protect::plain_append(c));
        }
    }
    if written.is_empty() {
        return None;
    }
    let places = places.unwrap_or_else(Places::from_env);
    let paths: Vec<&str> = written.iter().map(String::as_str).collect();
    if let Some(r) = overlong(cwd, &paths) {
        return Some(r);
    }
    paths_of(agent, &paths, cwd, &places, true, &plain)
}

/// Check written paths (Write/Edit, a Codex patch, or a command's targets).
pub fn paths(agent: Option<Agent>, paths: &[&str], cwd: &Path) -> Option<Refusal> {
    paths_of(agent, paths, cwd, &Places::from_env(), false, &[])
}

fn paths_of(
    agent: Option<Agent>,
    paths: &[&str],
    cwd: &Path,
    places: &Places,
    by_command: bool,
    plain: &[String],
) -> Option<Refusal> {
    let home = &places.home;
    if by_command {
        // The user's protected paths hold for shell writes as for the Write tool, and answer
        // first.
        let mut policy = guard::Policy::default();
        let mut sources = policy_file::Sources::default();
        policy_file::apply_config(&mut policy, cwd, &mut sources);
        super::warn(&sources);
        let set = protected::Protected::new(&policy.protected_paths, home);
        let user = paths.iter().find_map(|path| {
            let found = set.matching(path, cwd)?;
            Some(super::protected_refusal(path, &found, &sources))
        });
        if user.is_some() {
            return user;
        }
    }
    for p in paths {
        for abs in forms(p, cwd, home) {
            if let Some(what) = self_protect::guard_file(&abs, places) {
                return Some(own_file(p, what, agent));
            }
            // Plain text appended to a shell start-up file passes; SSH access never does,
            // whatever name leads to it.
            let plain_rc = plain.iter().any(|q| q.as_str() == *p)
                && !abs.components().any(|c| c.as_os_str() == ".ssh");
            if let Some(what) = self_protect::startup_file(&abs, places)
                && !plain_rc
            {
                return Some(Refusal {
                    reason: format!(
                        "cm guard stopped this: it writes `{p}`, {what}; code put there runs later, outside any hook. For the user: {}",
                        for_user(agent)
                    ),
                    user: format!("cm guard: an agent wants to write {p}"),
                    ask: true,
                });
            }
        }
    }
    None
}

/// The path as written (made absolute and normalised) and as the file system resolves it.
fn forms(file: &str, cwd: &Path, home: &Path) -> Vec<PathBuf> {
    let raw = protected::absolute(file, cwd, home);
    let lexical = protected::normalise(&raw);
    let mut out = vec![lexical.clone()];
    if let Some(physical) = protected::resolve(&raw).filter(|p| *p != lexical) {
        out.push(physical);
    }
    out
}
