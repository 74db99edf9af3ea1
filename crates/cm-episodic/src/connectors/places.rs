//! Where the connectors look: a home directory and the environment variables that move an
//! agent's files (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `XDG_DATA_HOME`, ...). The CLI takes them
//! from the process ([`Places::of_process`]); a test builds its own ([`Places::at`],
//! [`Places::with`]) instead of changing the process environment, which every thread shares.

use std::path::PathBuf;

/// The variables the connectors honour.
pub const OVERRIDES: &[&str] = &[
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "GEMINI_CLI_HOME",
    "GEMINI_HOME",
    "OPENCODE_STORAGE_ROOT",
    "OPENCODE_SQLITE_DB",
    "XDG_DATA_HOME",
    "XDG_CONFIG_HOME",
    "APPDATA",
    "CASS_AIDER_DATA_ROOT",
];

#[derive(Debug, Clone, PartialEq)]
pub struct Places {
    pub home: PathBuf,
    /// Overrides that are set (non-empty), by name.
    vars: Vec<(&'static str, PathBuf)>,
}

impl Places {
    /// This process's home directory and overrides.
    pub fn of_process() -> Places {
        Places {
            home: cm_base::paths::home_dir(),
            vars: OVERRIDES
                .iter()
                .filter_map(|n| super::common::env_path(n).map(|p| (*n, p)))
                .collect(),
        }
    }

    /// `home`, with no override set.
    pub fn at(home: impl Into<PathBuf>) -> Places {
        Places {
            home: home.into(),
            vars: Vec::new(),
        }
    }

    /// The same, with override `name` (one of [`OVERRIDES`]) set to `value`.
    pub fn with(mut self, name: &'static str, value: impl Into<PathBuf>) -> Places {
        assert!(
            OVERRIDES.contains(&name),
            "{name} is not a connector override"
        );
        self.vars.retain(|(n, _)| *n != name);
        self.vars.push((name, value.into()));
        self
    }

    /// An override's value, when set.
    pub fn var(&self, name: &str) -> Option<PathBuf> {
        self.vars
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, p)| p.clone())
    }
}
