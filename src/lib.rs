//! cm: procedural memory and a destructive-command guard for AI coding agents.
//!
//! The binary is glue over these modules: `hooks` (hot path entry points), `guard` (pattern
//! matching), `memory` (playbook and scoring), `episodic` (session logs and their index),
//! `context` (retrieval for a task), `store` (the only module that opens SQLite), `cli`.

pub mod cli;
pub mod clock;
pub mod config;
pub mod context;
pub mod episodic;
pub mod error;
pub mod fsutil;
pub mod guard;
pub mod hooks;
pub mod install;
pub mod memory;
pub mod output;
pub mod paths;
pub mod redact;
pub mod store;
pub mod untrusted;

/// Decide from argv[0] (then argv[1] for `cm hook NAME`) what runs. Returns the exit code.
pub fn dispatch(args: &[String]) -> i32 {
    let prog = args
        .first()
        .map(|a| {
            std::path::Path::new(a)
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or(a)
                .to_string()
        })
        .unwrap_or_default();
    let prog = prog.strip_suffix(".exe").unwrap_or(&prog);
    let rest = args.get(1..).unwrap_or(&[]);
    match prog {
        "cm-pretool" => hooks::run("pretool", rest),
        "cm-postsession" => hooks::run("postsession", rest),
        "cm-precommit" => hooks::run("precommit", rest),
        _ => {
            // `cm hook NAME`, also after the global flags (`cm --json hook pretool`).
            let at = rest
                .iter()
                .take_while(|a| matches!(a.as_str(), "--json" | "--quiet" | "-q"))
                .count();
            if rest.get(at).map(String::as_str) == Some("hook")
                && let Some(name) = rest.get(at + 1).filter(|n| !n.starts_with('-'))
            {
                return hooks::run(name, &rest[at + 2..]);
            }
            cli::run(args)
        }
    }
}
