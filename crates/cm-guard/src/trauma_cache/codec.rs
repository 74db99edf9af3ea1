//! The cached index's text form: a header naming the file (path, device, inode, size, mtime)
//! and the limits it was built with, then one line per trauma and per note. Any difference in
//! the header is a cache miss. Fields are space-separated and percent-escaped.

use super::{Entry, Healed, Limits};
use cm_base::untrusted::Stamp;
use std::path::Path;

/// Version 3: an entry says whether its pattern failed to compile on an earlier call (version 2
/// left out patterns whose parse shows they cannot compile; version 1 listed them).
const MAGIC: &str = "cm-trauma-index 3";

fn header(path: &Path, stamp: Stamp, limits: Limits) -> String {
    format!(
        "{MAGIC}\n{} {} {} {} {} {}\n{}\n",
        stamp.dev,
        stamp.ino,
        stamp.size,
        stamp.mtime_ns,
        limits.cap,
        limits
            .keywordless_max
            .map_or("-".to_string(), |m| m.to_string()),
        escape(&path.to_string_lossy())
    )
}

pub fn encode(
    path: &Path,
    stamp: Stamp,
    limits: Limits,
    entries: &[Entry],
    notes: &[String],
) -> String {
    let mut s = header(path, stamp, limits);
    for e in entries {
        let healed = match &e.healed {
            Healed::No => "-".to_string(),
            Healed::Forever => "*".to_string(),
            Healed::Until(u) => escape(u),
        };
        let broken = if e.broken { "x" } else { "-" };
        s.push_str(&format!(
            "E {} {} {} {healed} {broken}",
            e.offset, e.len, e.line
        ));
        match &e.keywords {
            None => s.push_str(" ?"),
            Some(kws) => {
                for k in kws {
                    s.push(' ');
                    s.push_str(&escape(k));
                }
            }
        }
        s.push('\n');
    }
    for n in notes {
        s.push_str("N ");
        s.push_str(&escape(n));
        s.push('\n');
    }
    s
}

pub fn decode(
    text: &str,
    path: &Path,
    stamp: Stamp,
    limits: Limits,
) -> Option<(Vec<Entry>, Vec<String>)> {
    let head = header(path, stamp, limits);
    let body = text.strip_prefix(head.as_str())?;
    let mut entries = Vec::new();
    let mut notes = Vec::new();
    for line in body.lines() {
        let mut f = line.split(' ');
        match f.next()? {
            "E" => {
                let offset = f.next()?.parse().ok()?;
                let len = f.next()?.parse().ok()?;
                let line_no = f.next()?.parse().ok()?;
                let healed = match f.next()? {
                    "-" => Healed::No,
                    "*" => Healed::Forever,
                    u => Healed::Until(unescape(u)?),
                };
                let broken = match f.next()? {
                    "x" => true,
                    "-" => false,
                    _ => return None,
                };
                let rest: Vec<&str> = f.collect();
                let keywords = if rest == ["?"] {
                    None
                } else {
                    Some(
                        rest.iter()
                            .map(|k| unescape(k))
                            .collect::<Option<Vec<_>>>()?,
                    )
                };
                entries.push(Entry {
                    offset,
                    len,
                    line: line_no,
                    healed,
                    broken,
                    keywords,
                });
            }
            "N" => notes.push(unescape(line.get(2..)?)?),
            _ => return None,
        }
    }
    Some((entries, notes))
}

/// Percent-encode whitespace, `%`, `?` alone and control characters, so each field is one
/// space-free token.
fn escape(s: &str) -> String {
    if s == "?" || s == "-" || s == "*" {
        return format!("%{:02X}", s.as_bytes()[0]);
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c == '%' || c.is_whitespace() || c.is_control() {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn unescape(s: &str) -> Option<String> {
    if !s.contains('%') {
        return Some(s.to_string());
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}
