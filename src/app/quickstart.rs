//! What `cm quickstart` reports about this machine: whether cm is set up, how much it knows, and
//! which parts run (hooks, the LLM pass), read from the real store, settings files and config.
//!
//! Nothing is created or migrated: a new user's first `cm quickstart` must not leave a data
//! directory behind, so the store is opened read-only and a missing one is reported as such.

use crate::config::{Config, Loaded};
use crate::install::{self, Scope};
use crate::llm::settings::LlmSettings;
use crate::paths;
use crate::store::Store;
use serde::Serialize;
use serde_json::{Map, Value};
use std::path::Path;

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct State {
    pub data_dir: String,
    pub initialised: bool,
    /// Rules in the personal store (None when there is no store yet).
    pub rule_count: Option<i64>,
    pub index: IndexState,
    pub hooks: HooksState,
    pub llm: LlmState,
    /// Config keys whose value differs from the default: `{key: {default, current}}`.
    pub config_changes: Map<String, Value>,
    pub config_path: String,
    pub repo_config: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexState {
    pub sessions: u64,
    pub messages: u64,
    pub last_indexed_at: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HooksState {
    /// `agent (user|project): hook, hook` for every agent settings file holding cm's hooks.
    pub installed: Vec<String>,
    /// Whether some agent runs the post-session hook (sessions are learned from automatically).
    pub post_session: bool,
    /// Whether some agent runs the guard before its tool calls.
    pub guard: bool,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LlmState {
    pub configured: bool,
    pub provider: Option<String>,
    pub model: Option<String>,
    /// Why no LLM pass runs, when it does not.
    pub reason: Option<String>,
}

pub fn state(cwd: &Path, loaded: &Loaded) -> State {
    let db = paths::db_path();
    let store = Store::open_readonly(&db).ok().flatten();
    let rule_count = store
        .as_ref()
        .and_then(|s| crate::memory::tables::bullets::count(&s.conn).ok());
    let index = match &store {
        Some(s) => {
            let st = crate::episodic::sessions::status(&s.conn);
            IndexState {
                sessions: st.sessions,
                messages: st.messages,
                last_indexed_at: st.last_indexed_at,
            }
        }
        None => IndexState {
            sessions: 0,
            messages: 0,
            last_indexed_at: None,
        },
    };
    State {
        data_dir: paths::data_dir().display().to_string(),
        initialised: db.is_file(),
        rule_count,
        index,
        hooks: hooks(cwd),
        llm: llm(loaded),
        config_changes: config_changes(&loaded.config),
        config_path: loaded.global_path.display().to_string(),
        repo_config: loaded.repo_path.as_ref().map(|p| p.display().to_string()),
    }
}

fn hooks(cwd: &Path) -> HooksState {
    let root = install::project_root(cwd);
    let mut out = HooksState {
        installed: Vec::new(),
        post_session: false,
        guard: false,
    };
    for agent in install::AGENTS {
        for scope in [Scope::User, Scope::Project] {
            let st = install::status(agent, scope, &root);
            if st.handlers.is_empty() {
                continue;
            }
            let mut kinds: Vec<&str> = st.handlers.iter().map(|h| h.found.hook.name()).collect();
            kinds.dedup();
            out.post_session |= st
                .handlers
                .iter()
                .any(|h| h.found.hook == crate::hook_kind::HookKind::Postsession);
            out.guard |= st
                .handlers
                .iter()
                .any(|h| h.found.hook == crate::hook_kind::HookKind::Pretool);
            let where_ = if scope == Scope::User {
                "user"
            } else {
                "project"
            };
            out.installed
                .push(format!("{} ({where_}): {}", agent.slug(), kinds.join(", ")));
        }
    }
    out
}

fn llm(loaded: &Loaded) -> LlmState {
    let settings = LlmSettings::from_loaded(loaded);
    match crate::llm::ready(&settings) {
        Ok(kind) => LlmState {
            configured: true,
            provider: Some(kind.name().to_string()),
            model: Some(settings.model.clone()),
            reason: None,
        },
        Err(why) => LlmState {
            configured: false,
            provider: settings.provider.map(|k| k.name().to_string()),
            model: None,
            reason: Some(why.to_string()),
        },
    }
}

/// Every leaf of the config that differs from the default, by dotted key.
fn config_changes(current: &Config) -> Map<String, Value> {
    let defaults = serde_json::to_value(Config::default()).unwrap_or_default();
    let current = serde_json::to_value(current).unwrap_or_default();
    let mut out = Map::new();
    diff("", &defaults, &current, &mut out);
    out
}

fn diff(prefix: &str, default: &Value, current: &Value, out: &mut Map<String, Value>) {
    match (default, current) {
        (Value::Object(d), Value::Object(c)) => {
            for (k, cv) in c {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                diff(&key, d.get(k).unwrap_or(&Value::Null), cv, out);
            }
        }
        (d, c) if d != c => {
            out.insert(
                prefix.to_string(),
                serde_json::json!({"default": d, "current": c}),
            );
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_changed_leaves_are_reported() {
        let mut cfg = Config::default();
        assert!(config_changes(&cfg).is_empty());
        cfg.scoring.decay_half_life_days = 30.0;
        let changes = config_changes(&cfg);
        assert_eq!(changes.len(), 1, "{changes:?}");
        assert_eq!(changes["scoring.decayHalfLifeDays"]["current"], 30.0);
    }
}
