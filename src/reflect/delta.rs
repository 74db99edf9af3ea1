//! What the reflector proposes: a new rule, or feedback on a rule that exists. The curator (and
//! nothing else) decides what becomes of each.

use serde::Serialize;

/// Which kind of lesson a proposed rule comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LessonKind {
    /// The user corrected the agent ("no, don't ...").
    Correction,
    /// A convention or preference the user stated ("we always ...", "I prefer ...").
    Convention,
    /// A command or test failed and a specific change made it pass.
    Fix,
    /// The same error came up in several sessions of the workspace.
    Recurring,
    /// Proposed by the optional LLM pass (validated and curated like the others).
    Model,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Delta {
    /// A new rule.
    #[serde(rename_all = "camelCase")]
    Add {
        content: String,
        category: String,
        lesson: LessonKind,
        /// Why, in the session's words, when it gives a reason.
        reason: Option<String>,
        /// The line of the session the lesson was read from.
        line: i64,
        /// Searchable words of the situation (the command, tool or file), for validation.
        situation: Vec<String>,
    },
    /// The session found a rule helpful (an inline `[cass: helpful b-...]`, or the agent said
    /// it followed the rule in a session that went well).
    #[serde(rename_all = "camelCase")]
    Helpful {
        rule: String,
        reason: Option<String>,
        line: i64,
        /// `inline` or `followed`.
        via: &'static str,
    },
    /// An inline `[cass: harmful b-...] - reason`.
    #[serde(rename_all = "camelCase")]
    Harmful {
        rule: String,
        reason: Option<String>,
        line: i64,
    },
}
