//! Indexing agents' sessions: discover every connector's files (or take the one file the
//! post-session job names), index what is new, then the upkeep only a writer can do: merge
//! full-text segments, refresh planner statistics after growth, bring the rules' term index up
//! to date and scan new messages for recall reinforcement. The read-only hooks rely on that
//! upkeep, and the post-session job runs it, so no cron is needed.
//!
//! A full run holds one lock in the data directory so two never work at once; a single file
//! takes a lock of its own, so two sessions ending together never index one transcript twice
//! at once (the indexer's per-file check would catch it anyway).

use crate::episodic::connectors::{Connector, Discovery, Places, SourceFile, SourceKind};
use crate::episodic::index::{self, IndexReport, Options, Progress, prepare::Limits};
use crate::error::{CmError, Result};
use crate::fsutil::FileLock;
use crate::store::Store;
use std::path::Path;

/// What to index.
pub struct IndexRequest<'a> {
    pub connectors: &'a [&'a dyn Connector],
    /// Where the connectors look (the home directory and their overrides).
    pub places: &'a Places,
    /// Just this session file (the post-session job), else everything discovered.
    pub file: Option<&'a Path>,
    /// The agent `file` belongs to, when the caller knows.
    pub agent: Option<&'a str>,
    /// Re-read every file from the start.
    pub full: bool,
    /// Parser threads (0: cores - 1).
    pub threads: usize,
    pub limits: Limits,
    pub progress: Option<&'a mut dyn FnMut(&Progress)>,
}

/// What indexing did, with where each connector looked (empty for a single file).
pub struct Indexed {
    pub report: IndexReport,
    pub discovery: Vec<(&'static str, Discovery)>,
}

/// Index what `req` names into the store `open` gives (opened once the lock is held).
pub fn run<'s>(req: IndexRequest<'_>, open: impl FnOnce() -> Result<&'s Store>) -> Result<Indexed> {
    let locks = crate::paths::data_dir().join("locks");
    let (sources, discovery, _lock) = match req.file {
        Some(file) => {
            let source = source_for(file, req.connectors, req.places, req.agent)?;
            crate::episodic::recognise::refuse_non_transcript(&source, req.connectors)?;
            let lock = FileLock::acquire(&locks.join(format!(
                "index-{:016x}.lock",
                index::files::fnv1a(source.path.to_string_lossy().as_bytes())
            )))?;
            (vec![source], Vec::new(), lock)
        }
        None => {
            let lock = FileLock::acquire(&locks.join("history-index.lock"))?;
            let discovery: Vec<(&'static str, Discovery)> = req
                .connectors
                .iter()
                .map(|c| (c.slug(), c.discover(req.places)))
                .collect();
            let sources = discovery
                .iter()
                .flat_map(|(_, d)| d.files.iter().cloned())
                .collect();
            (sources, discovery, lock)
        }
    };
    let store = open()?;
    let associations = req.limits.associations;
    let opts = Options {
        limits: req.limits,
        full: req.full,
        threads: req.threads,
        progress: req.progress,
        chunk_bytes: 0,
    };
    let report = index::run(store, req.connectors, sources, opts)?;
    upkeep(store, report.messages_added > 0, associations);
    Ok(Indexed { report, discovery })
}

/// Upkeep after indexing, best effort (the index itself is committed); each failure is a
/// warning on stderr.
fn upkeep(store: &Store, grew: bool, associations: bool) {
    // Fewer full-text segments for every later query: also when nothing was added, so an index
    // left in many segments (a bulk import) is merged down by the runs that follow it (one
    // bounded step each; nothing when it holds few).
    if let Err(e) = index::merge::maintain(store) {
        eprintln!("cm: warning: full-text index not merged: {e}");
    }
    if grew {
        // Planner statistics that match the tables.
        if let Err(e) = crate::store::statistics::refresh(store) {
            eprintln!(
                "cm: warning: planner statistics not refreshed: {}",
                e.message
            );
        }
    }
    if let Err(e) = crate::context::index::mark_stale_evidence(store) {
        eprintln!(
            "cm: warning: rules citing new sessions not marked: {}",
            e.message
        );
    }
    if let Err(e) = crate::context::index::refresh(store) {
        eprintln!(
            "cm: warning: context term index not refreshed: {}",
            e.message
        );
    }
    // Not only when this run grew the index: a store older than the layer learns what it holds.
    if associations && let Err(e) = crate::episodic::assoc::learn::catch_up(store) {
        eprintln!("cm: warning: term associations not updated: {}", e.message);
    }
    if grew && let Err(e) = crate::context::reinforce::scan(store, &crate::clock::now_rfc3339()) {
        eprintln!(
            "cm: warning: recall reinforcement not updated: {}",
            e.message
        );
    }
}

/// The source for a single file: as a connector discovered it (to keep subagent links), else
/// as a line file of `agent` (default: the agent whose discovery root holds it, else claude).
fn source_for(
    file: &Path,
    connectors: &[&dyn Connector],
    places: &Places,
    agent: Option<&str>,
) -> Result<SourceFile> {
    let path = std::fs::canonicalize(file).map_err(|e| {
        CmError::io(file, "read session file", &e)
            .hint("pass the transcript path the agent reported")
    })?;
    for c in connectors {
        if let Some(f) = c
            .discover(places)
            .files
            .into_iter()
            .find(|f| f.path == path || std::fs::canonicalize(&f.path).is_ok_and(|p| p == path))
        {
            return Ok(f);
        }
    }
    let claude = crate::agent::Agent::Claude.slug();
    let slug = match agent {
        Some(a) => connectors.iter().find(|c| c.slug() == a).map(|c| c.slug()),
        None => connectors
            .iter()
            .find(|c| {
                c.discover(places)
                    .looked_in
                    .iter()
                    .any(|root| path.starts_with(root))
            })
            .or_else(|| connectors.iter().find(|c| c.slug() == claude))
            .map(|c| c.slug()),
    }
    .ok_or_else(|| {
        CmError::usage("UNKNOWN_AGENT", "cannot tell which agent wrote this file")
            .hint("pass --agent")
    })?;
    Ok(SourceFile {
        agent: slug,
        path,
        kind: SourceKind::Lines,
        parent_session_id: None,
    })
}

/// The `history` config section for indexing; `redact` comes from the global config only, so a
/// repository cannot turn redaction off for the user.
pub fn limits(loaded: &crate::config::Loaded) -> Result<crate::episodic::index::prepare::Limits> {
    let mut limits: crate::episodic::index::prepare::Limits = loaded.section("history")?;
    limits.redact = redaction_on(loaded);
    Ok(limits)
}

/// Whether session text is redacted as it is indexed (the global config's `history.redact`,
/// on unless the user turned it off).
pub fn redaction_on(loaded: &crate::config::Loaded) -> bool {
    crate::config::read_json_file(&loaded.global_path)
        .ok()
        .flatten()
        .and_then(|v| v.get("history")?.get("redact")?.as_bool())
        .unwrap_or(true)
}
