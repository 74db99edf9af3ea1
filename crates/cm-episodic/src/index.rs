//! The session indexer: keeps the store's copy of every agent's session logs current.
//!
//! One pass: load what the last run stored about each file, `stat` every discovered source, and
//! plan (unchanged / resume / re-read / new; see [`files`]). Only files with work go through a
//! small pipeline: parser threads read and parse (the connector), redact and cap ([`prepare`]);
//! the calling thread writes. Each file's rows and its new resume point are written in one
//! transaction ([`write`]); several small files may share a transaction, so a crash (even
//! `kill -9`) leaves each file either fully indexed up to its new offset or untouched, and the next
//! run picks up exactly where the last commit stopped. A file changed by another indexer between
//! planning and writing is left to that indexer (counted as `raced`).

pub mod files;
pub mod merge;
pub mod prepare;
pub mod write;

use crate::connectors::{Connector, SourceFile, SourceKind};
use cm_base::error::Result;
use cm_store::Store;
use files::{FileRow, Job, Plan, RereadWhy, Stat};
use prepare::Limits;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use write::FileBatch;

/// A transaction is committed after this many messages or this much time, whichever first.
const BATCH_MESSAGES: u64 = 20_000;
const BATCH_TIME: Duration = Duration::from_millis(300);
/// With little free space (see [`cm_store::disk`]), after this many bytes of sessions.
const TIGHT_BATCH_BYTES: u64 = 256 << 10;

#[derive(Default)]
pub struct Options<'a> {
    pub limits: Limits,
    /// Re-read every file from the start.
    pub full: bool,
    /// Parser threads (0: one less than the available cores, at least one).
    pub threads: usize,
    /// Called after each file is written.
    pub progress: Option<&'a mut dyn FnMut(&Progress)>,
    /// Bytes of a line file parsed and committed at a time (0: [`CHUNK_BYTES`]).
    pub chunk_bytes: u64,
}

#[derive(Debug, Clone, Default)]
pub struct Progress {
    pub files_done: u64,
    pub files_total: u64,
    pub messages: u64,
    pub bytes: u64,
    pub elapsed: Duration,
}

/// A file that had bad records: how many, and why.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FileSkips {
    pub path: String,
    pub agent: String,
    pub skipped: u64,
    pub reasons: BTreeMap<String, u64>,
    /// First few skipped line numbers, to find them.
    pub lines: Vec<u64>,
}

/// A source that could not be read at all this run.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FileError {
    pub path: String,
    pub agent: String,
    pub error: String,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexReport {
    pub files_seen: u64,
    pub files_unchanged: u64,
    pub files_new: u64,
    pub files_resumed: u64,
    /// Re-read from the start, by reason (truncated, replaced, changed, full).
    pub files_reread: BTreeMap<String, u64>,
    /// Changed by another indexer while this one ran; left to it.
    pub files_raced: u64,
    pub messages_added: u64,
    pub records_skipped: u64,
    pub redactions: u64,
    pub capped_messages: u64,
    pub bytes_read: u64,
    pub by_agent: BTreeMap<String, u64>,
    pub skipped_files: Vec<FileSkips>,
    pub errors: Vec<FileError>,
    pub elapsed_ms: u64,
    /// Time spent parsing and preparing (summed over parser threads) and writing.
    pub parse_ms: u64,
    pub write_ms: u64,
}

/// Index `sources` (found by `connectors`) into `store`.
pub fn run(
    store: &Store,
    connectors: &[&dyn Connector],
    sources: Vec<SourceFile>,
    mut opts: Options,
) -> Result<IndexReport> {
    let started = Instant::now();
    // A store damaged where nothing below reads must not report success.
    cm_store::integrity::verify_if_changed(store)?;
    let conn = &store.conn;
    // Bulk-friendly settings for this connection: a larger page cache, and checkpoints every
    // 64 MiB of WAL instead of 4 MiB (each checkpoint syncs), with the WAL file cut back to
    // 16 MiB afterwards.
    conn.execute_batch(
        "PRAGMA cache_size=-32768; PRAGMA temp_store=MEMORY;
         PRAGMA wal_autocheckpoint=16384; PRAGMA journal_size_limit=16777216;",
    )
    .map_err(|e| store.map_err(e))?;
    let rows = files::load_rows(conn).map_err(|e| store.map_err(e))?;
    let mut report = IndexReport::default();
    let mut jobs = Vec::new();
    let mut unreadable = Vec::new();
    for source in sources {
        report.files_seen += 1;
        let key = source.path.to_string_lossy().into_owned();
        let row = rows.get(&key);
        let stat = match std::fs::metadata(&source.path) {
            Ok(m) => Stat::of(&m),
            Err(e) => {
                let error = if e.kind() == std::io::ErrorKind::NotFound {
                    "vanished before it could be read".to_string()
                } else {
                    format!("cannot stat: {e}")
                };
                unreadable.push((source, error));
                continue;
            }
        };
        let plan = files::plan(source.kind, row, stat, opts.full);
        if plan == Plan::Unchanged {
            report.files_unchanged += 1;
            continue;
        }
        jobs.push(Job {
            source,
            stat,
            plan,
            row: row.cloned(),
        });
    }
    drop(rows);
    let now = cm_base::clock::now_rfc3339();
    if !unreadable.is_empty() {
        store.write(|tx| {
            for (source, error) in &unreadable {
                write::record_error(tx, source, error, &now).map_err(|e| store.map_err(e))?;
            }
            Ok(())
        })?;
        for (source, error) in unreadable {
            report.errors.push(FileError {
                path: source.path.display().to_string(),
                agent: source.agent.to_string(),
                error,
            });
        }
    }
    if !jobs.is_empty() {
        pipeline(
            store,
            connectors,
            jobs,
            &mut opts,
            &mut report,
            &now,
            started,
        )?;
    }
    cm_store::integrity::record(store, false);
    report.elapsed_ms = started.elapsed().as_millis() as u64;
    Ok(report)
}

type Parsed = std::result::Result<FileBatch, (SourceFile, String)>;

fn pipeline(
    store: &Store,
    connectors: &[&dyn Connector],
    jobs: Vec<Job>,
    opts: &mut Options,
    report: &mut IndexReport,
    now: &str,
    started: Instant,
) -> Result<()> {
    let total = jobs.len() as u64;
    let threads = match opts.threads {
        0 => std::thread::available_parallelism()
            .map(|n| n.get().saturating_sub(1))
            .unwrap_or(1)
            .clamp(1, 4),
        n => n,
    }
    .min(jobs.len());
    let queue = Mutex::new(jobs.into_iter());
    let parse_nanos = AtomicU64::new(0);
    let mut write_time = Duration::ZERO;
    let limits = opts.limits.clone();
    let chunk_bytes = match opts.chunk_bytes {
        // Short of space: small chunks, so each transaction (and a failed one) stays small.
        0 if cm_store::disk::is_tight(&store.path) => TIGHT_BATCH_BYTES,
        0 => CHUNK_BYTES,
        n => n,
    };
    let (tx, rx) = mpsc::sync_channel::<Parsed>(threads * 4);
    let mut progress = Progress {
        files_total: total,
        ..Progress::default()
    };
    std::thread::scope(|scope| -> Result<()> {
        // Owned here, so a write error returning early drops it before the scope joins the
        // parsers: their sends then fail and they stop, instead of blocking on a full channel.
        let rx = rx;
        for _ in 0..threads {
            let tx = tx.clone();
            let (queue, limits, parse_nanos) = (&queue, &limits, &parse_nanos);
            scope.spawn(move || {
                loop {
                    let job = queue.lock().ok().and_then(|mut q| q.next());
                    let Some(job) = job else { break };
                    let connector = connectors.iter().find(|c| c.slug() == job.source.agent);
                    let mut t = Instant::now();
                    let mut send = |parsed: Parsed| {
                        parse_nanos.fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
                        let ok = tx.send(parsed).is_ok();
                        t = Instant::now();
                        ok
                    };
                    let go_on = match connector {
                        Some(c) => parse_job(*c, job, limits, chunk_bytes, &mut send),
                        None => send(Err((job.source, "no connector for this agent".into()))),
                    };
                    if !go_on {
                        break; // the writer stopped (an error); stop parsing.
                    }
                }
            });
        }
        drop(tx);
        let mut next = rx.recv().ok();
        while let Some(first) = next.take() {
            let batch_started = Instant::now();
            let mut waited = Duration::ZERO;
            let mut done: Vec<Parsed> = Vec::new();
            let mut outcomes: Vec<write::Written> = Vec::new();
            // Short of space, fold the WAL back first and keep the transaction small: a batch
            // that then fails for lack of room leaves only its own few frames in the WAL, and
            // nothing committed keeps them from being cleared.
            let tight = store.checkpoint_if_tight()?;
            let byte_cap = if tight { TIGHT_BATCH_BYTES } else { u64::MAX };
            store.write(|txn| {
                let mut item = Some(first);
                let mut messages = 0;
                let mut bytes = 0;
                while let Some(parsed) = item.take() {
                    match &parsed {
                        Ok(batch) => {
                            let w =
                                write::write_file(txn, batch, now).map_err(|e| store.map_err(e))?;
                            messages += w.messages;
                            bytes += batch.bytes_read;
                            outcomes.push(w);
                        }
                        Err((source, error)) => {
                            write::record_error(txn, source, error, now)
                                .map_err(|e| store.map_err(e))?;
                            outcomes.push(write::Written::default());
                        }
                    }
                    done.push(parsed);
                    let left = BATCH_TIME.saturating_sub(batch_started.elapsed());
                    if messages >= BATCH_MESSAGES || left.is_zero() || bytes >= byte_cap {
                        break;
                    }
                    let t = Instant::now();
                    item = rx.recv_timeout(left).ok();
                    waited += t.elapsed();
                }
                Ok(())
            })?;
            // Commit time counts as writing; waiting for the parsers does not.
            write_time += batch_started.elapsed().saturating_sub(waited);
            for (parsed, written) in done.into_iter().zip(outcomes) {
                account(report, parsed, written, &mut progress);
            }
            if let Some(cb) = opts.progress.as_mut() {
                progress.elapsed = started.elapsed();
                cb(&progress);
            }
            next = rx.recv().ok();
        }
        Ok(())
    })?;
    report.parse_ms = parse_nanos.load(Ordering::Relaxed) / 1_000_000;
    report.write_ms = write_time.as_millis() as u64;
    Ok(())
}

fn account(report: &mut IndexReport, parsed: Parsed, written: write::Written, p: &mut Progress) {
    if let Ok(b) = &parsed
        && b.chunk > 0
    {
        if !written.raced {
            report.messages_added += written.messages;
            *report
                .by_agent
                .entry(b.source.agent.to_string())
                .or_default() += written.messages;
            report.records_skipped += b.skipped.len() as u64;
            report.redactions += b.prepared.redactions;
            report.capped_messages += b.prepared.capped;
            report.bytes_read += b.bytes_read;
            p.messages += written.messages;
            p.bytes += b.bytes_read;
        }
        return;
    }
    p.files_done += 1;
    let batch = match parsed {
        Ok(b) => b,
        Err((source, error)) => {
            report.errors.push(FileError {
                path: source.path.display().to_string(),
                agent: source.agent.to_string(),
                error,
            });
            return;
        }
    };
    if written.raced {
        report.files_raced += 1;
        return;
    }
    match (&batch.basis, batch.reread) {
        (None, _) => report.files_new += 1,
        (Some(_), Some(why)) => *report.files_reread.entry(why.as_str().into()).or_default() += 1,
        (Some(_), None) => report.files_resumed += 1,
    }
    report.messages_added += written.messages;
    *report
        .by_agent
        .entry(batch.source.agent.to_string())
        .or_default() += written.messages;
    report.records_skipped += batch.skipped.len() as u64;
    report.redactions += batch.prepared.redactions;
    report.capped_messages += batch.prepared.capped;
    report.bytes_read += batch.bytes_read;
    p.messages += written.messages;
    p.bytes += batch.bytes_read;
    if !batch.skipped.is_empty() {
        let mut reasons = BTreeMap::new();
        for s in &batch.skipped {
            *reasons.entry(s.reason.clone()).or_insert(0) += 1;
        }
        report.skipped_files.push(FileSkips {
            path: batch.source.path.display().to_string(),
            agent: batch.source.agent.to_string(),
            skipped: batch.skipped.len() as u64,
            reasons,
            lines: batch.skipped.iter().take(10).map(|s| s.line).collect(),
        });
    }
}

/// Record a re-read reason on the report (kept apart so `account` stays about counts).
fn reread_reason(plan: &Plan) -> Option<RereadWhy> {
    match plan {
        Plan::Reread(why) => Some(*why),
        _ => None,
    }
}

/// A Lines file is parsed (and written) in chunks of about this many bytes, so a huge file is
/// indexed in bounded memory, each chunk committed with its own resume point.
const CHUNK_BYTES: u64 = 16 << 20;

/// Parse one file from its resume point and prepare its rows, chunk by chunk, handing each to
/// `send`. Runs on a parser thread. Returns false when the writer has stopped.
fn parse_job(
    connector: &dyn Connector,
    job: Job,
    limits: &Limits,
    chunk_bytes: u64,
    send: &mut dyn FnMut(Parsed) -> bool,
) -> bool {
    let Job {
        source,
        stat,
        mut plan,
        row,
    } = job;
    if plan == Plan::Resume
        && let Some(r) = &row
        && r.head_len > 0
        && !head_matches(&source, r)
    {
        plan = Plan::Reread(RereadWhy::Replaced);
    }
    let mut from = files::resume_point(&plan, row.as_ref());
    let mut basis = row;
    let mut after = None;
    for chunk in 0u32.. {
        let out = match connector.parse_limited(&source, &from, chunk_bytes) {
            Ok(out) => out,
            Err(e) => {
                let error = if e.kind() == std::io::ErrorKind::NotFound {
                    "vanished while being read".to_string()
                } else {
                    format!("cannot read: {e}")
                };
                // A later chunk's failure leaves the earlier chunks committed: still consistent.
                return send(Err((source, error)));
            }
        };
        let head_len = match source.kind {
            SourceKind::Lines => out.next.offset.min(files::HEAD_BYTES as u64),
            SourceKind::Document => 0,
        };
        let head = if head_len > 0 {
            files::head_hash(&source.path, head_len).unwrap_or((0, 0))
        } else {
            (0, 0)
        };
        let read = out.next.offset.saturating_sub(from.offset);
        let more = source.kind == SourceKind::Lines && read >= chunk_bytes;
        let bytes_read = match source.kind {
            SourceKind::Lines => read,
            SourceKind::Document => stat.size,
        };
        let next = out.next.clone();
        let prepared = prepare::prepare(out.messages, out.sessions, limits);
        let batch = FileBatch {
            source: source.clone(),
            // An unfinished file must not look unchanged to the next run if this one stops
            // here: record the size read so far.
            stat: if more {
                Stat {
                    size: next.offset,
                    ..stat
                }
            } else {
                stat
            },
            basis: basis.take(),
            after,
            chunk,
            reset: chunk == 0 && matches!(plan, Plan::Reread(_)),
            reread: reread_reason(&plan),
            prepared,
            next: out.next,
            head,
            skipped: out.skipped,
            bytes_read,
        };
        if !send(Ok(batch)) {
            return false;
        }
        if !more {
            break;
        }
        after = Some((next.offset, next.line, stat.ino));
        from = next;
    }
    true
}

fn head_matches(source: &SourceFile, row: &FileRow) -> bool {
    match files::head_hash(&source.path, row.head_len) {
        Ok((hash, len)) => len == row.head_len && Some(hash) == row.head_hash,
        Err(_) => true, // let the parse report the read error
    }
}

#[cfg(test)]
mod tests;
