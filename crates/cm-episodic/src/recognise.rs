//! Telling a transcript from any other file before one is indexed on its own (`cm reflect
//! --session PATH`, `cm history index --file PATH`, the post-session job). Every connector
//! skips a record it cannot read and keeps going, which is right for a transcript with a torn
//! line and wrong for `/etc/passwd`: that would be indexed as a session of no messages and
//! "reflected on". So the head of the file is parsed first, with the connector that would index
//! it; when it holds records and not one of them parses as a session record, the file is
//! refused (`NOT_A_TRANSCRIPT`) and nothing is written.
//!
//! An empty file, or one of blank lines, is not refused here: it may be a session just begun,
//! and reflection says that it has no messages yet.

use super::connectors::{Connector, ResumePoint, SourceFile, SourceKind};
use cm_base::error::{CmError, Result};
use std::io::Read;

/// Bytes of the file read to decide (then the rest of the line that crosses the mark).
pub const PROBE_BYTES: u64 = 256 * 1024;

/// Refuse `source` when its head holds records and none parses as one of its agent's.
pub fn refuse_non_transcript(source: &SourceFile, connectors: &[&dyn Connector]) -> Result<()> {
    let Some(connector) = connectors.iter().find(|c| c.slug() == source.agent) else {
        return Ok(());
    };
    let from = ResumePoint {
        offset: 0,
        line: 1,
        state: None,
    };
    let io = |e: std::io::Error| CmError::io(&source.path, "read session file", &e);
    let out = connector
        .parse_limited(source, &from, PROBE_BYTES)
        .map_err(io)?;
    if !out.messages.is_empty() || out.skipped.is_empty() {
        return Ok(());
    }
    let records = match source.kind {
        SourceKind::Document => out.skipped.len() as u64,
        SourceKind::Lines => non_blank_lines(&source.path, out.next.offset).map_err(io)?,
    };
    if (out.skipped.len() as u64) < records {
        return Ok(()); // some record parsed (a title, bookkeeping): a transcript, if a quiet one
    }
    let first = &out.skipped[0];
    Err(CmError::usage(
        "NOT_A_TRANSCRIPT",
        format!(
            "{} is not a session transcript: none of its {} record(s) read is a {} session record (line {}: {})",
            source.path.display(),
            records,
            source.agent,
            first.line,
            first.reason
        ),
    )
    .hint("pass the transcript file the agent wrote (for example ~/.claude/projects/<project>/<session>.jsonl); nothing was indexed"))
}

/// Lines holding more than whitespace in the first `len` bytes of `path`.
fn non_blank_lines(path: &std::path::Path, len: u64) -> std::io::Result<u64> {
    let Some((file, _)) = cm_base::untrusted::open(path)? else {
        return Ok(0);
    };
    let mut reader = file.take(len);
    let mut buf = [0u8; 64 * 1024];
    let (mut count, mut inked) = (0u64, false);
    loop {
        let n = reader.read(&mut buf)?;
        if n == 0 {
            break;
        }
        for &b in &buf[..n] {
            if b == b'\n' {
                count += u64::from(inked);
                inked = false;
            } else if !b.is_ascii_whitespace() {
                inked = true;
            }
        }
    }
    Ok(count + u64::from(inked))
}
