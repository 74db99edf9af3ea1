//! `cm history index`: discover every agent's session files and index what is new
//! ([`crate::app::index_sessions`] does the work, locks and upkeep included); this adapter reads
//! the options, shows progress on a terminal and renders the report.

use super::{IndexArgs, selected};
use crate::app::index_sessions::{self, IndexRequest, Indexed};
use crate::cli::Ctx;
use crate::episodic::connectors::{Connector, Discovery};
use crate::episodic::index::{IndexReport, Progress, prepare::Limits};
use crate::error::Result;
use crate::output::Report;
use serde_json::json;
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

pub fn run(args: &IndexArgs, ctx: &Ctx) -> Result<Report> {
    let connectors = selected(args.agent.as_deref())?;
    let refs: Vec<&dyn Connector> = connectors.iter().map(|c| c.as_ref()).collect();
    let show_progress =
        !ctx.json() && ctx.mode != crate::output::Mode::Quiet && std::io::stderr().is_terminal();
    let mut meter = Meter::new();
    let mut cb = |p: &Progress| meter.show(p);
    let request = IndexRequest {
        connectors: &refs,
        places: &crate::episodic::connectors::Places::of_process(),
        file: args.file.as_deref(),
        agent: args.agent.as_deref(),
        full: args.full,
        threads: args.threads,
        limits: limits(ctx)?,
        progress: if show_progress { Some(&mut cb) } else { None },
    };
    let Indexed { report, discovery } = index_sessions::run(request, || ctx.store())?;
    if show_progress {
        eprint!("\r\x1b[2K");
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

/// The `history` config section ([`crate::app::index_sessions::limits`]).
pub fn limits(ctx: &Ctx) -> Result<Limits> {
    crate::app::index_sessions::limits(ctx.loaded()?)
}

fn limits_redact(ctx: &Ctx) -> bool {
    ctx.loaded()
        .map(crate::app::index_sessions::redaction_on)
        .unwrap_or(true)
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
