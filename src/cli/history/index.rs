//! `cm history index`: discover every agent's session files and index what is new.
//!
//! Runs under a lock in the data directory so two full runs never work at once; `--file`
//! (the post-session hook's detached job) takes a lock per file instead, so two sessions ending
//! together never index the same transcript at once. Even without the locks, the indexer's
//! per-file check keeps a file from being indexed twice.

use super::{IndexArgs, selected};
use crate::cli::Ctx;
use crate::episodic::connectors::{Connector, Discovery, SourceFile, SourceKind};
use crate::episodic::index::{self, IndexReport, Options, Progress, prepare::Limits};
use crate::error::{CmError, Result};
use crate::fsutil::FileLock;
use crate::output::Report;
use serde_json::json;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::{Duration, Instant};

pub fn run(args: &IndexArgs, ctx: &Ctx) -> Result<Report> {
    let connectors = selected(args.agent.as_deref())?;
    let refs: Vec<&dyn Connector> = connectors.iter().map(|c| c.as_ref()).collect();
    let limits = limits(ctx)?;
    let locks = crate::paths::data_dir().join("locks");
    let (sources, discovery, _lock) = match &args.file {
        Some(file) => {
            let source = source_for(file, &refs, args.agent.as_deref())?;
            let lock = FileLock::acquire(&locks.join(format!(
                "index-{:016x}.lock",
                index::files::fnv1a(source.path.to_string_lossy().as_bytes())
            )))?;
            (vec![source], Vec::new(), lock)
        }
        None => {
            let lock = FileLock::acquire(&locks.join("history-index.lock"))?;
            let discovery: Vec<(&str, Discovery)> =
                refs.iter().map(|c| (c.slug(), c.discover())).collect();
            let sources = discovery
                .iter()
                .flat_map(|(_, d)| d.files.iter().cloned())
                .collect();
            (sources, discovery, lock)
        }
    };
    let store = ctx.store()?;
    let show_progress =
        !ctx.json() && ctx.mode != crate::output::Mode::Quiet && std::io::stderr().is_terminal();
    let mut meter = Meter::new();
    let mut cb = |p: &Progress| meter.show(p);
    let opts = Options {
        limits,
        full: args.full,
        threads: args.threads,
        progress: if show_progress { Some(&mut cb) } else { None },
        chunk_bytes: 0,
    };
    let report = index::run(store, &refs, sources, opts)?;
    if show_progress {
        eprint!("\r\x1b[2K");
    }
    if report.messages_added > 0 {
        // Upkeep after growth, best effort (the index itself is committed): fewer full-text
        // segments for every later query, and planner statistics that match the tables.
        if let Err(e) = index::merge::maintain(store) {
            eprintln!("cm: warning: full-text index not merged: {e}");
        }
        if let Err(e) = crate::store::statistics::refresh(store) {
            eprintln!(
                "cm: warning: planner statistics not refreshed: {}",
                e.message
            );
        }
    }
    // The read-only hooks rely on what only a writer can keep current: the rules' term index
    // (stale after a bulk import) and recall reinforcement from newly indexed messages that
    // cite rule ids. The post-session job runs this command, so both stay fresh without a
    // `cm context` run. Best effort: the index itself is already committed.
    if let Err(e) = crate::context::index::refresh(store) {
        eprintln!(
            "cm: warning: context term index not refreshed: {}",
            e.message
        );
    }
    if report.messages_added > 0
        && let Err(e) = crate::context::reinforce::scan(store, &crate::clock::now_rfc3339())
    {
        eprintln!(
            "cm: warning: recall reinforcement not updated: {}",
            e.message
        );
    }
    let sources_json: Vec<_> = discovery
        .iter()
        .map(|(slug, d)| {
            json!({
                "agent": slug,
                "lookedIn": d.looked_in.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
                "files": d.files.len(),
                "errors": d.errors.iter().map(|(p, e)| json!({"path": p.display().to_string(), "error": e})).collect::<Vec<_>>(),
            })
        })
        .collect();
    let human = human(&report, &discovery);
    let mut data = serde_json::to_value(&report).unwrap_or_default();
    data["sources"] = json!(sources_json);
    data["redaction"] = json!(if limits_redact(ctx) { "on" } else { "off" });
    Ok(Report::new(data)
        .human(human)
        .quiet(report.messages_added.to_string()))
}

/// The `history` config section; `redact` comes from the global config only, so a repository
/// cannot turn redaction off for the user.
pub fn limits(ctx: &Ctx) -> Result<Limits> {
    let loaded = ctx.loaded()?;
    let mut limits: Limits = loaded.section("history")?;
    limits.redact = limits_redact(ctx);
    Ok(limits)
}

fn limits_redact(ctx: &Ctx) -> bool {
    let Ok(loaded) = ctx.loaded() else {
        return true;
    };
    crate::config::read_json_file(&loaded.global_path)
        .ok()
        .flatten()
        .and_then(|v| v.get("history")?.get("redact")?.as_bool())
        .unwrap_or(true)
}

/// The source for `--file`: as a connector discovered it (to keep subagent links), else as a
/// line file of `--agent` (default: the agent whose discovery root holds it, else claude).
fn source_for(
    file: &Path,
    connectors: &[&dyn Connector],
    agent: Option<&str>,
) -> Result<SourceFile> {
    let path = std::fs::canonicalize(file).map_err(|e| {
        CmError::io(file, "read session file", &e)
            .hint("pass the transcript path the agent reported")
    })?;
    for c in connectors {
        if let Some(f) = c
            .discover()
            .files
            .into_iter()
            .find(|f| f.path == path || std::fs::canonicalize(&f.path).is_ok_and(|p| p == path))
        {
            return Ok(f);
        }
    }
    let slug = match agent {
        Some(a) => connectors.iter().find(|c| c.slug() == a).map(|c| c.slug()),
        None => connectors
            .iter()
            .find(|c| {
                c.discover()
                    .looked_in
                    .iter()
                    .any(|root| path.starts_with(root))
            })
            .or_else(|| connectors.iter().find(|c| c.slug() == "claude"))
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

/// Progress on stderr, at most ten times a second.
struct Meter {
    last: Option<Instant>,
}

impl Meter {
    fn new() -> Self {
        Meter { last: None }
    }
    fn show(&mut self, p: &Progress) {
        if self
            .last
            .is_some_and(|t| t.elapsed() < Duration::from_millis(100))
        {
            return;
        }
        self.last = Some(Instant::now());
        let secs = p.elapsed.as_secs_f64().max(0.001);
        eprint!(
            "\r\x1b[2Kindexing: {}/{} files, {} messages, {:.1} MB/s",
            p.files_done,
            p.files_total,
            p.messages,
            p.bytes as f64 / 1e6 / secs
        );
        let _ = std::io::stderr().flush();
    }
}

fn human(r: &IndexReport, discovery: &[(&str, Discovery)]) -> String {
    let mut s = String::new();
    let secs = r.elapsed_ms as f64 / 1000.0;
    s.push_str(&format!(
        "Indexed {} messages from {} files in {:.2}s ({} new, {} appended, {} unchanged",
        r.messages_added,
        r.files_new + r.files_resumed + r.files_reread.values().sum::<u64>(),
        secs,
        r.files_new,
        r.files_resumed,
        r.files_unchanged
    ));
    for (why, n) in &r.files_reread {
        s.push_str(&format!(", {n} re-read ({why})"));
    }
    s.push_str(").\n");
    if !r.by_agent.is_empty() {
        let parts: Vec<String> = r
            .by_agent
            .iter()
            .map(|(a, n)| format!("{a}: {n}"))
            .collect();
        s.push_str(&format!("  by agent: {}\n", parts.join(", ")));
    }
    if r.redactions > 0 {
        s.push_str(&format!(
            "  {} secrets redacted before storing\n",
            r.redactions
        ));
    }
    if r.capped_messages > 0 {
        s.push_str(&format!(
            "  {} huge messages capped (head and tail kept)\n",
            r.capped_messages
        ));
    }
    if r.records_skipped > 0 {
        s.push_str(&format!(
            "  {} records skipped in {} files:\n",
            r.records_skipped,
            r.skipped_files.len()
        ));
        for f in r.skipped_files.iter().take(10) {
            let reasons: Vec<String> = f.reasons.iter().map(|(k, v)| format!("{v} {k}")).collect();
            s.push_str(&format!("    {}: {}\n", f.path, reasons.join(", ")));
        }
    }
    if r.files_raced > 0 {
        s.push_str(&format!(
            "  {} files were being indexed by another cm; left to it\n",
            r.files_raced
        ));
    }
    for e in &r.errors {
        s.push_str(&format!("  skipped {}: {}\n", e.path, e.error));
    }
    for (slug, d) in discovery {
        for (p, e) in &d.errors {
            s.push_str(&format!("  {slug}: could not read {}: {e}\n", p.display()));
        }
    }
    s
}
