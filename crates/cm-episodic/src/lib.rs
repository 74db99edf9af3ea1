//! cm-episodic, episodic memory: agents' session logs, read by one connector per agent and
//! indexed in the store with full-text search; search, associations, replay for the trauma
//! scan, and the read API the layers above use (`sessions`, `transcripts`). The index's tables
//! and their SQL live here.

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
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod transcripts;
pub mod trauma_scan;
