//! What is missing from an answer, and how to fix it: `data.degraded` is `null` when everything
//! worked, else an object with one entry per missing part (`history`, `semantic`, `remote`,
//! `playbook`), each `{code, message, fix}`.

use serde::Serialize;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Issue {
    pub code: &'static str,
    pub message: String,
    pub fix: String,
}

impl Issue {
    pub fn new(code: &'static str, message: &str, fix: &str) -> Issue {
        Issue {
            code,
            message: message.to_string(),
            fix: fix.to_string(),
        }
    }
}

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Degraded {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<Issue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub semantic: Option<Issue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remote: Option<Issue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub playbook: Option<Issue>,
}

impl Degraded {
    pub fn is_empty(&self) -> bool {
        self.history.is_none()
            && self.semantic.is_none()
            && self.remote.is_none()
            && self.playbook.is_none()
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
