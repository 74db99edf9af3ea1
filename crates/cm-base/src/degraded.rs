//! What is missing from an answer, and how to fix it. Every command that can answer with less
//! than it was asked for says so the same way: `data.degraded` is `null` when everything worked,
//! else an object with one entry per missing part, each `{code, message, fix}`:
//!
//! - `history`: the session index (none yet, stale, unreadable);
//! - `semantic`: semantic search (endpoint down, no embeddings);
//! - `associations`: the offline association layer (not built yet, or behind the index);
//! - `remote`: remote hosts that did not answer (all named in one message);
//! - `playbook`: the playbook itself (empty);
//! - `repoPlaybook`: the repository's `.cass/playbook.yaml` did not parse (its rules are left
//!   out; the personal ones and history are still served).

use serde::Serialize;

/// One missing or failing part: what it is and how to fix it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Issue {
    /// A stable machine code (`NO_SESSIONS`, `LLM_UNAVAILABLE`, ...).
    pub code: &'static str,
    /// What is missing, for a human.
    pub message: String,
    /// What to do about it.
    pub fix: String,
}

impl Issue {
    /// An issue with its code, message and fix.
    pub fn new(code: &'static str, message: &str, fix: &str) -> Issue {
        Issue {
            code,
            message: message.to_string(),
            fix: fix.to_string(),
        }
    }
}

/// The `degraded` field of an answer: each part that was missing, by part. Empty when nothing was.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Degraded {
    /// Session history (no index, no sessions).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<Issue>,
    /// Semantic ranking (no embedding endpoint).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub semantic: Option<Issue>,
    /// Associations between sessions and rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub associations: Option<Issue>,
    /// Remote history sources.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remote: Option<Issue>,
    /// The global playbook.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub playbook: Option<Issue>,
    /// The repository's `.cass/playbook.yaml`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repo_playbook: Option<Issue>,
}

impl Degraded {
    /// Whether nothing was missing.
    pub fn is_empty(&self) -> bool {
        self.history.is_none()
            && self.semantic.is_none()
            && self.associations.is_none()
            && self.remote.is_none()
            && self.playbook.is_none()
            && self.repo_playbook.is_none()
    }

    /// Each issue as one human line: "message (fix: ...)".
    pub fn lines(&self) -> Vec<String> {
        [
            &self.repo_playbook,
            &self.playbook,
            &self.history,
            &self.semantic,
            &self.associations,
            &self.remote,
        ]
        .into_iter()
        .flatten()
        .map(|i| format!("{} (fix: {})", i.message, i.fix))
        .collect()
    }

    /// `null` when nothing is missing.
    pub fn to_json(&self) -> serde_json::Value {
        if self.is_empty() {
            serde_json::Value::Null
        } else {
            serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
        }
    }
}
