//! cm-base: what every layer of cm uses and no layer owns.
//!
//! Paths of the data directory, the clock (pinnable for tests), atomic and private file writes,
//! bounded reading of untrusted files, the one error type with its stable codes and exit codes,
//! the output envelope, configuration files, secret redaction, workspace containment, the agents
//! and hook kinds cm knows by name, and text helpers (stemming, tokenizing, hashing, clipping).
//!
//! It sits at the bottom of the workspace: it links no database, no HTTP client and no async
//! runtime, so the guard and the hooks' fast path can depend on it without paying for them. A
//! crate above imports it; it imports none of them (Cargo refuses the cycle).

#![deny(missing_docs)]

pub mod agent;
pub mod clock;
pub mod config;
pub mod degraded;
pub mod due;
pub mod emoji;
pub mod error;
pub mod fsutil;
pub mod hook_kind;
pub mod output;
pub mod paths;
pub mod private;
pub mod redact;
pub mod text;
pub mod untrusted;
pub mod workspace;
