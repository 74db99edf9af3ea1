//! The shapes every connector produces and every search returns.
//!
//! A connector turns one agent's files into [`Message`]s; the index stores them; a search returns
//! [`Hit`]s in the established session-search robot format (snake_case field names).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
    Tool,
    System,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            Role::System => "system",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        match s.to_ascii_lowercase().as_str() {
            "user" => Some(Role::User),
            "assistant" => Some(Role::Assistant),
            "tool" => Some(Role::Tool),
            "system" => Some(Role::System),
            _ => None,
        }
    }
}

/// What kind of content a message holds; search weights and filters use it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash, Default)]
#[serde(rename_all = "snake_case")]
pub enum MessageKind {
    #[default]
    Text,
    Thinking,
    ToolCall,
    ToolResult,
    /// Injected instructions or environment context: stored, not searched.
    Scaffolding,
}

/// One message of one session, as a connector read it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Connector slug: claude, codex, gemini, aider, opencode, cline, cursor.
    pub agent: String,
    pub session_id: String,
    /// For subagent transcripts: the parent session's id.
    pub parent_session_id: Option<String>,
    pub source_path: String,
    /// 1-based physical line in the source file, or the record's position for SQLite sources.
    pub line_number: u64,
    pub workspace: Option<String>,
    pub git_branch: Option<String>,
    pub role: Role,
    pub kind: MessageKind,
    /// RFC 3339.
    pub timestamp: Option<String>,
    pub model: Option<String>,
    pub text: String,
    pub tool_name: Option<String>,
    /// Tool call arguments as JSON text.
    pub tool_args: Option<String>,
    /// A tool result that reported failure.
    pub is_error: bool,
}

/// Where a hit came from: this machine or a remote host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Origin {
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
}

impl Origin {
    pub fn local() -> Self {
        Origin {
            kind: "local".into(),
            host: None,
        }
    }
}

/// A search result, in the session-search robot format.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    pub agent: String,
    pub session_id: String,
    pub source_path: String,
    pub line_number: u64,
    pub workspace: Option<String>,
    pub role: String,
    pub created_at: Option<String>,
    pub title: Option<String>,
    pub snippet: String,
    pub score: f64,
    pub origin: Origin,
    /// Terms the query was widened with (the offline association layer) that this message
    /// holds; absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expanded: Vec<String>,
    /// The line of the neighbouring message (same session) whose match lent this one part of
    /// its score; absent when the message matched on its own words alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub neighbour_of: Option<u64>,
}

/// What to search for and how to filter.
#[derive(Debug, Clone, Default)]
pub struct SearchQuery {
    pub query: String,
    pub limit: usize,
    pub days: Option<u32>,
    pub agent: Option<String>,
    pub workspace: Option<String>,
    pub role: Option<Role>,
}
