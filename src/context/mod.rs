//! Retrieval for a task: which rules apply, which pitfalls to avoid, what past sessions did.
//!
//! Lexical relevance is BM25 over stemmed terms ([`tokenize`], [`stem`], [`bm25`]) served from a
//! stored term index ([`index`]); it is weighed by each rule's feedback, scope and proven use
//! ([`rank`], [`reinforce`]) and optionally fused with embeddings ([`semantic`]). History comes
//! from the episodic index, re-ranked by significance ([`arousal`]) and recency ([`history`]).
//! The hooks reuse all of it behind a query gate ([`gate`]) and a sanitiser ([`sanitize`]).
//! See docs/context.md for the formulas and the measured latency.

pub mod arousal;
pub mod associate;
pub mod bm25;
pub mod candidates;
pub mod concepts;
pub mod contrast;
pub mod degraded;
pub mod engine;
pub mod evidence;
pub mod explain;
pub mod gaps;
pub mod gate;
pub mod history;
pub mod house;
pub mod index;
pub mod inject;
pub mod kept;
pub mod neighbours;
pub mod place;
pub mod queries;
pub mod rank;
pub mod reinforce;
pub mod render;
pub mod sanitize;
pub mod semantic;
pub mod signals;
/// The stemmer and tokenizer live in [`crate::text`] (every layer uses them); these names stay
/// for the ranking code that grew up beside them.
pub use crate::text::{stem, tokenize};
