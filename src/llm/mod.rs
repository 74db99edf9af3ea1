//! The optional LLM path: one structured call to Anthropic, OpenAI, Gemini, Ollama or any
//! OpenAI-compatible server, used by reflection to refine what the deterministic pipeline found.
//!
//! Why it looks like this:
//! - **Optional and off by default.** Nothing here runs unless the *global* config names a
//!   provider; `CASS_MEMORY_LLM=none` turns it off. Every way a call cannot happen is a typed
//!   [`LlmUnavailable`] the caller reports in its `degraded` field while the deterministic
//!   result stands.
//! - **Never trusted.** The caller passes a JSON Schema; the provider's structured-output mode
//!   is asked to follow it, and the answer is validated against it here anyway
//!   ([`validate`]). An answer that is not JSON or breaks the schema is retried once with the
//!   problems appended, then given up. A valid answer is still only data: the caller's
//!   validator and curator decide what becomes a rule; nothing an LLM says is executed.
//! - **Bounded spend.** Each call's worst-case cost (its input estimated, its output at the
//!   requested maximum) must fit the daily and monthly budget before anything is sent; the
//!   check and a reservation are one transaction ([`ledger`]), every attempt is a row that
//!   `cm usage` sums.
//! - **Secrets stay home.** The key comes only from the environment variable the config
//!   names and is never logged or printed; the texts sent are run through
//!   [`crate::redact::redact`] first, as is any error text a provider returns.
//! - **No loops.** [`MARKER`] opens every prompt cm sends, so a session log that records one
//!   of cm's own calls is recognised ([`is_own_call`]) and never reflected on.

mod budget;
mod client;
mod kind;
pub mod ledger;
pub mod prices;
mod providers;
mod report;
pub mod settings;
mod unavailable;
pub mod validate;

pub use budget::Spent;
pub use providers::Tokens;
pub use report::usage;
pub use settings::{ApiKey, Budget, LlmSettings, ProviderKind};
pub use unavailable::{LlmUnavailable, Period};

use crate::store::Store;
use serde::Serialize;
use serde_json::Value;

/// Opens the system prompt and the user prompt of every call cm makes.
pub const MARKER: &str = "[cm-reflection-call]";

/// Whether `text` (a session's first user message, or its system prompt) comes from one of
/// cm's own calls: the marker within its first few hundred characters, where cm puts it. Text
/// that merely mentions the marker further in (a conversation about cm) does not count.
pub fn is_own_call(text: &str) -> bool {
    let head: String = text.trim_start().chars().take(256).collect();
    head.contains(MARKER)
}

/// One structured request.
#[derive(Debug, Clone)]
pub struct LlmRequest<'a> {
    /// What the call is for (`reflect`, `diary`): a column of `cm usage`.
    pub purpose: &'a str,
    pub system: &'a str,
    pub prompt: &'a str,
    /// The JSON Schema the answer must match (the subset [`validate`] checks).
    pub schema: &'a Value,
    pub max_output_tokens: u32,
    /// The session the call is about, recorded with its usage.
    pub session: Option<&'a str>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: f64,
}

/// A validated answer: data for the caller to check further, never instructions.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmAnswer {
    /// The JSON value, matching the request's schema.
    pub value: Value,
    /// Every attempt's tokens and cost (a retry included).
    pub usage: Usage,
    pub provider: String,
    pub model: String,
    /// The day's or month's spend past `llm.budget.warningThreshold`, in words.
    pub budget_warnings: Vec<String>,
}

/// Whether a call could go out with these settings, budget aside (no request is made): the
/// provider, or the reason a caller can put in `degraded` up front.
pub fn ready(settings: &LlmSettings) -> Result<ProviderKind, LlmUnavailable> {
    client::ready(settings)
}

/// Ask the configured LLM for JSON matching `req.schema`, now.
pub fn complete_json(
    settings: &LlmSettings,
    store: &Store,
    req: &LlmRequest,
) -> Result<LlmAnswer, LlmUnavailable> {
    client::complete_json_at(settings, store, req, crate::clock::now())
}

/// [`complete_json`] at a given time (the budget's day and month, the ledger's timestamps).
pub fn complete_json_at(
    settings: &LlmSettings,
    store: &Store,
    req: &LlmRequest,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<LlmAnswer, LlmUnavailable> {
    client::complete_json_at(settings, store, req, now)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod own_call_tests {
    use super::*;

    #[test]
    fn own_calls_are_recognised_by_their_opening() {
        assert!(is_own_call(&format!(
            "{MARKER} You turn session diaries into rules."
        )));
        assert!(is_own_call(&format!(
            "\n  {MARKER}\nSession transcript: ..."
        )));
        assert!(!is_own_call("Please fix the login bug"));
        let talk = format!("{}then grep for {MARKER} in the logs", "x".repeat(400));
        assert!(
            !is_own_call(&talk),
            "a mention deep in a message is not a call"
        );
    }
}
