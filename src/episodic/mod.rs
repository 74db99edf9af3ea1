//! Episodic memory: agents' session logs, read by one connector per agent and indexed in the
//! store with full-text search.

pub mod assoc;
pub mod citing;
pub mod connectors;
pub mod index;
pub mod model;
pub mod query;
pub mod recognise;
pub mod remote;
pub mod replay;
pub mod search;
pub mod sessions;
pub mod snippet;
#[cfg(test)]
pub mod testing;
pub mod transcripts;
pub mod trauma_scan;
