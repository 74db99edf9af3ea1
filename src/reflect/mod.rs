//! Reflection: what a finished session teaches, turned into working and procedural memory.
//!
//! The pipeline follows the ACE design. The session's messages (from the episodic index) become
//! a [`transcript::Transcript`]; [`diary`] writes its structured summary (working memory);
//! [`lessons`] is the deterministic reflector, which proposes [`delta::Delta`]s (a new rule,
//! helpful or harmful feedback on an existing one) only where the session states or shows a
//! lesson; [`validate`] weighs each proposed rule against the history; the curator is the
//! existing deterministic curation of new rules and scoring of feedback ([`crate::app::reflect`]
//! applies them). Everything here is free of I/O except [`tables`].

pub mod audit;
mod audit_plain;
pub mod delta;
pub mod diary;
pub mod distinctive;
pub mod fix_rule;
pub mod fixes;
pub mod gist;
pub mod lessons;
pub mod llm_pass;
pub mod phrasing;
pub mod privacy;
pub mod restate;
pub mod rule_text;
pub mod safety;
pub mod said;
pub mod situation;
pub mod speech;
pub mod tables;
pub mod tail;
pub mod tidy;
pub mod transcript;
pub mod user_verdict;
pub mod validate;

/// The tag cm puts in every prompt of its own LLM calls: a session that starts with it is cm
/// talking to a model, never a session to learn from.
pub const OWN_CALL_MARKER: &str = crate::llm::MARKER;
