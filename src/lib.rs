//! cm: procedural memory and a destructive-command guard for AI coding agents.
//!
//! The binary is glue over these modules: `hooks` (hot path entry points), `guard` (pattern
//! matching), `memory` (playbook and scoring), `episodic` (session logs and their index),
//! `context` (retrieval for a task), `store` (the only module that opens SQLite), `cli`.

// The base layer is its own crate (crates/cm-base); its modules keep their paths here so the
// layers above still name them `crate::paths`, `crate::error`, ... until they move to crates too.
pub use cm_base::{
    agent, clock, config, degraded, due, emoji, error, fsutil, hook_kind, output, paths, private,
    redact, text, untrusted, workspace,
};
// The SQLite plumbing is the second (crates/cm-store), named `crate::store` here likewise.
pub use cm_store as store;
// The guard is the third (crates/cm-guard): it links no SQLite, HTTP client or async runtime.
pub use cm_guard as guard;
// Procedural memory is the fourth (crates/cm-memory): the playbook and its tables.
pub use cm_memory as memory;
// Episodic memory is the fifth (crates/cm-episodic): session logs and their index.
pub use cm_episodic as episodic;

pub mod app;
pub mod cli;
pub mod context;
pub mod hooks;
pub mod http;
pub mod install;
pub mod llm;
pub mod mcp;
pub mod onboard;
pub mod reflect;

#[cfg(test)]
mod error_codes_tests;
#[cfg(test)]
mod layers_tests;
#[cfg(test)]
mod plans_tests;
#[cfg(test)]
mod workspace_tests;

/// Decide from argv[0] (then argv[1] for `cm hook NAME`) what runs. Returns the exit code.
///
/// Arguments are OS strings: any byte sequence the shell passed. Hooks get them as lossy text
/// (they take no text argument that matters: the payload comes on stdin); the CLI parses them
/// itself and turns a text argument that is not UTF-8 into a usage error.
pub fn dispatch(args: &[std::ffi::OsString]) -> i32 {
    let prog = args
        .first()
        .and_then(|a| std::path::Path::new(a).file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let prog = prog.strip_suffix(".exe").unwrap_or(&prog);
    let rest = args.get(1..).unwrap_or(&[]);
    let lossy = |from: usize| -> Vec<String> {
        rest.get(from..)
            .unwrap_or(&[])
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    };
    match hooks::HookKind::from_link(prog) {
        Some(kind) => hooks::run_kind(kind, &lossy(0)),
        None => {
            // `cm hook NAME`, also after the global flags (`cm --json hook pretool`).
            let at = rest
                .iter()
                .take_while(|a| matches!(a.to_str(), Some("--json" | "--quiet" | "-q")))
                .count();
            if rest.get(at).is_some_and(|a| a == "hook")
                && let Some(name) = rest
                    .get(at + 1)
                    .map(|n| n.to_string_lossy())
                    .filter(|n| !n.starts_with('-'))
            {
                return hooks::run(&name, &lossy(at + 2));
            }
            cli::run(args)
        }
    }
}
