//! Whole-document sources (JSON files rewritten as a whole): read once, give each record the
//! physical line it starts on, and report a resume point that only says "read up to here" (the
//! index re-reads the document when its size or modification time changes).

use super::ResumePoint;
use serde_json::value::RawValue;
use std::path::Path;

/// A document's text.
pub struct Document {
    pub text: String,
    /// The file's length in bytes (the text is longer when invalid bytes were replaced).
    len: u64,
}

impl Document {
    /// Read the whole file (invalid UTF-8 is replaced, so one bad byte cannot hide a session).
    pub fn read(path: &Path) -> std::io::Result<Document> {
        let bytes = std::fs::read(path)?;
        let len = bytes.len() as u64;
        let text = match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        };
        Ok(Document { text, len })
    }

    /// "Everything read": the offset is the file's length (never past its end, even when
    /// invalid bytes were replaced by longer characters), the line one past its last.
    pub fn end(&self) -> ResumePoint {
        ResumePoint {
            offset: self.len,
            line: memchr::memchr_iter(b'\n', self.text.as_bytes()).count() as u64 + 1,
            state: None,
        }
    }
}

/// Gives records borrowed from a document's text the 1-based line they start on. Records must be
/// asked for in document order.
pub struct LineCursor<'a> {
    text: &'a str,
    offset: usize,
    line: u64,
}

impl<'a> LineCursor<'a> {
    pub fn new(text: &'a str) -> Self {
        LineCursor {
            text,
            offset: 0,
            line: 1,
        }
    }

    pub fn line_of(&mut self, raw: &RawValue) -> u64 {
        super::common::line_of(self.text, raw.get(), &mut self.offset, &mut self.line)
    }
}
