//! The one harness every integration test builds on.
//!
//! Each test gets an [`Env`]: its own HOME, data dir (`CASS_MEMORY_HOME`) and working dir in a
//! temp dir, an optional pinned clock (`CM_NOW`), and a generous context-hook deadline. Through
//! it a test runs the real binary (or a link to it under a hook name, a shell, git) and checks
//! the answer with [`Out`]'s envelope helpers. Fixtures come from `tests/fixtures/`.
//!
//! ```ignore
//! let env = Env::new();
//! let out = env.cm(&["playbook", "add", "Always x"]).json().run().ok();
//! let id = out.data()["bullet"]["id"].as_str().unwrap();
//! ```

mod env;
mod fixtures;
mod hooks;
mod run;

pub use env::Env;
pub use fixtures::{
    bytes, copy_fixture, copy_tree, corpus, fixture, fixture_path, fixture_text, golden, repo_path,
};
pub use hooks::{claude_bash, claude_write, codex_bash, cursor_shell, gemini_shell};
pub use run::Out;

use serde_json::Value;

/// The binary under test.
pub const CM: &str = env!("CARGO_BIN_EXE_cm");

/// The ids of a list's `bullets`, in order.
pub fn ids(list: &Value) -> Vec<String> {
    list["bullets"]
        .as_array()
        .expect("bullets array")
        .iter()
        .map(|b| b["id"].as_str().unwrap().to_string())
        .collect()
}

/// Running as root means file permissions do not bind.
pub fn is_root() -> bool {
    std::process::Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// A JSON string literal for `s` (for payloads written as text).
pub fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}
