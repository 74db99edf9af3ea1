//! Hook entry points, reached through a link name (`cm-pretool`) or `cm hook <name>`.
//!
//! These run on every tool call of an agent, so they stay cheap: no argument parser, no config
//! file, no database unless the input needs it, no regex unless a keyword matched. Each reads at
//! most [`MAX_STDIN`] bytes of payload, decides, prints the agent's protocol JSON (or nothing)
//! and returns the exit code. On an internal error a hook falls back to its safe policy and says
//! so on stderr, never on stdout.

#[cfg(unix)]
pub mod capture;

pub mod postsession;
pub mod precommit;
pub mod pretool;
pub mod prompt;
pub mod session_start;
pub mod stop;
pub mod stop_reflect;

pub use crate::hook_kind::HookKind;
use std::io::Read;
use std::time::{Duration, Instant};

/// What the context hooks (prompt, session start) may spend on the store before they answer
/// with what is ready, unless `CM_HOOK_BUDGET_MS` says otherwise. The agent waits for them.
pub const DEFAULT_BUDGET_MS: u64 = 50;

/// When a context hook started at `start` must answer: `CM_HOOK_BUDGET_MS` (milliseconds) or
/// [`DEFAULT_BUDGET_MS`] after it. An environment variable, not the config file: hooks parse no
/// config.
pub fn deadline(start: Instant) -> Instant {
    let ms = std::env::var("CM_HOOK_BUDGET_MS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(DEFAULT_BUDGET_MS);
    start + Duration::from_millis(ms)
}

/// Print a context hook's answer: the protocol JSON on stdout, what the deadline cut on stderr;
/// an error is one line on stderr and nothing on stdout.
pub fn print_answer(
    hook: &str,
    start: Instant,
    answer: crate::error::Result<crate::app::inject::HookAnswer>,
) {
    match answer {
        Ok(answer) => {
            if let Some(out) = answer.stdout {
                println!("{out}");
            }
            if let Some(note) = cut_note(hook, start, &answer.cut) {
                eprintln!("{note}");
            }
        }
        Err(e) => eprintln!("cm hook {hook}: {}; nothing injected", e.message),
    }
}

/// The stderr line of a hook whose answer the deadline cut short.
pub fn cut_note(hook: &str, start: Instant, cut: &[&str]) -> Option<String> {
    if cut.is_empty() {
        return None;
    }
    Some(format!(
        "cm hook {hook}: answered after {} ms with what was ready; the deadline cut: {} (CM_HOOK_BUDGET_MS raises it)",
        start.elapsed().as_millis(),
        cut.join(", ")
    ))
}

/// Payloads larger than this are not read further (and are treated as malformed); the guard
/// has its own, larger limit ([`pretool::MAX_PAYLOAD`]).
pub const MAX_STDIN: usize = 1 << 20;

/// Run the hook `name` (a name or alias of [`HookKind`]) with the remaining command-line
/// arguments. Returns the exit code.
pub fn run(name: &str, args: &[String]) -> i32 {
    match HookKind::from_name(name) {
        Some(kind) => run_kind(kind, args),
        None => {
            let names: Vec<&str> = HookKind::ALL.iter().map(|k| k.name()).collect();
            eprintln!(
                "cm: unknown hook \"{name}\"; expected one of: {}",
                names.join(", ")
            );
            2
        }
    }
}

/// Run hook `kind` with the remaining command-line arguments. Returns the exit code.
pub fn run_kind(kind: HookKind, args: &[String]) -> i32 {
    #[cfg(unix)]
    {
        let mut args = args.to_vec();
        if capture::wants_hold(&mut args) {
            let held = capture::hold();
            let code = run_unheld(kind, &args);
            if let Some(held) = held {
                held.release(kind.name(), code);
            }
            return code;
        }
        run_unheld(kind, &args)
    }
    #[cfg(not(unix))]
    run_unheld(kind, args)
}

fn run_unheld(kind: HookKind, args: &[String]) -> i32 {
    match kind {
        HookKind::Pretool => pretool::run(args),
        HookKind::Postsession => postsession::run(args),
        HookKind::Stop => stop::run(args),
        HookKind::Precommit => precommit::run(args),
        HookKind::SessionStart => session_start::run(args),
        HookKind::Prompt => prompt::run(args),
    }
}

/// Stdin as read by a hook: at most the hook's limit, and whether it was cut short.
pub struct Payload {
    pub bytes: Vec<u8>,
    pub truncated: bool,
}

/// Read stdin up to [`MAX_STDIN`]. A terminal or closed stdin yields an empty payload.
pub fn read_stdin() -> Payload {
    read_stdin_up_to(MAX_STDIN)
}

/// Read stdin up to `limit` bytes (the guard reads far more than the other hooks).
pub fn read_stdin_up_to(limit: usize) -> Payload {
    let mut bytes = Vec::with_capacity(4096);
    let stdin = std::io::stdin();
    let mut handle = stdin.lock().take(limit as u64 + 1);
    let _ = handle.read_to_end(&mut bytes);
    let truncated = bytes.len() > limit;
    if truncated {
        bytes.truncate(limit);
    }
    Payload { bytes, truncated }
}
