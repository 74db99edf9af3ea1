//! Reading an append-only log line by line from a resume point.
//!
//! Agents write their logs while we read them, so the last line may be half written: only lines
//! that end in a newline are handed out, and the resume position stays at the start of the
//! incomplete one. Physical lines are counted exactly (blank lines count) so a line number always
//! points at the same bytes. A line longer than [`MAX_LINE`] (binary garbage without newlines, a
//! runaway record) is scanned past without being held in memory and reported as too long.

use super::{ResumePoint, Skipped};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Seek, SeekFrom};
use std::path::Path;

/// The longest line kept in memory. Real records with big tool outputs reach a few MiB.
pub const MAX_LINE: usize = 64 * 1024 * 1024;

/// One complete line, without its newline (and without a trailing `\r`).
pub enum Line<'a> {
    Complete {
        number: u64,
        bytes: &'a [u8],
    },
    /// A complete line longer than [`MAX_LINE`]; its bytes were not kept.
    TooLong {
        number: u64,
    },
}

pub struct LineReader {
    reader: BufReader<File>,
    buf: Vec<u8>,
    /// Byte offset just past the last complete line handed out.
    offset: u64,
    /// Number of the next line to hand out (1-based).
    line: u64,
    max_line: usize,
}

impl LineReader {
    /// Open `path` positioned at `from` (offset 0 / line 0 means a fresh read).
    pub fn open(path: &Path, from: &ResumePoint) -> io::Result<Self> {
        let mut file = File::open(path)?;
        if from.offset > 0 {
            file.seek(SeekFrom::Start(from.offset))?;
        }
        Ok(LineReader {
            reader: BufReader::with_capacity(256 * 1024, file),
            buf: Vec::with_capacity(64 * 1024),
            offset: from.offset,
            line: from.line.max(1),
            max_line: MAX_LINE,
        })
    }

    #[cfg(test)]
    fn with_max_line(mut self, max: usize) -> Self {
        self.max_line = max;
        self
    }

    /// Where the next run should start: just past the last complete line.
    pub fn resume_point(&self) -> ResumePoint {
        ResumePoint {
            offset: self.offset,
            line: self.line,
            state: None,
        }
    }

    /// Bytes consumed since `from` (complete lines only).
    pub fn consumed_since(&self, from: &ResumePoint) -> u64 {
        self.offset.saturating_sub(from.offset)
    }

    /// The next complete line, or `None` at end of file or before an unterminated last line.
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        self.buf.clear();
        let mut consumed: u64 = 0;
        let mut too_long = false;
        loop {
            let chunk = match self.reader.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                // End of file inside a line: leave it for the next run. Rewind the reader so a
                // caller that keeps reading after more data arrives starts at the line's start.
                if consumed > 0 {
                    self.reader.seek(SeekFrom::Start(self.offset))?;
                }
                return Ok(None);
            }
            let (take, done) = match memchr::memchr(b'\n', chunk) {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            };
            if !too_long {
                if self.buf.len() + take > self.max_line + 1 {
                    too_long = true;
                    self.buf.clear();
                } else {
                    self.buf.extend_from_slice(&chunk[..take]);
                }
            }
            self.reader.consume(take);
            consumed += take as u64;
            if done {
                break;
            }
        }
        let number = self.line;
        self.line += 1;
        self.offset += consumed;
        if too_long {
            return Ok(Some(Line::TooLong { number }));
        }
        Ok(Some(Line::Complete {
            number,
            bytes: self.current(),
        }))
    }

    /// The complete line last read, without its newline (and without a trailing `\r`).
    fn current(&self) -> &[u8] {
        let mut end = self.buf.len().saturating_sub(1); // drop '\n'
        if end > 0 && self.buf[end - 1] == b'\r' {
            end -= 1;
        }
        &self.buf[..end]
    }

    /// The next line of a JSON Lines source worth parsing, with its number: complete, not blank,
    /// read while fewer than `max_bytes` were consumed since `from`. A line too long to keep is
    /// recorded in `skipped` and passed over, as every connector does.
    pub fn next_record(
        &mut self,
        from: &ResumePoint,
        max_bytes: u64,
        skipped: &mut Vec<Skipped>,
    ) -> io::Result<Option<(u64, &[u8])>> {
        loop {
            if self.consumed_since(from) >= max_bytes {
                return Ok(None);
            }
            // Only the number leaves the match, so the line's borrow ends before `current()`.
            let number = match self.next_line()? {
                None => return Ok(None),
                Some(Line::TooLong { number }) => {
                    skipped.push(too_long(number));
                    continue;
                }
                Some(Line::Complete { number, bytes }) if !is_blank(bytes) => number,
                Some(Line::Complete { .. }) => continue,
            };
            return Ok(Some((number, self.current())));
        }
    }
}

/// The record for a line longer than [`MAX_LINE`].
pub fn too_long(number: u64) -> Skipped {
    super::common::skipped(number, "line longer than the 64 MiB limit")
}

/// True when a line holds nothing but whitespace (counted, never reported as malformed).
pub fn is_blank(bytes: &[u8]) -> bool {
    bytes.iter().all(u8::is_ascii_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn collect(path: &Path, from: &ResumePoint, max: usize) -> (Vec<(u64, String)>, ResumePoint) {
        let mut r = LineReader::open(path, from).unwrap().with_max_line(max);
        let mut out = Vec::new();
        while let Some(line) = r.next_line().unwrap() {
            match line {
                Line::Complete { number, bytes } => {
                    out.push((number, String::from_utf8_lossy(bytes).into_owned()))
                }
                Line::TooLong { number } => out.push((number, "<too long>".into())),
            }
        }
        (out, r.resume_point())
    }

    #[test]
    fn stops_before_an_unterminated_line_and_resumes_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        std::fs::write(&path, b"one\n\nthree\r\nfour-part").unwrap();
        let (lines, next) = collect(&path, &ResumePoint::default(), MAX_LINE);
        assert_eq!(
            lines,
            vec![(1, "one".into()), (2, "".into()), (3, "three".into())]
        );
        assert_eq!((next.offset, next.line), (12, 4));

        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(b"-done\nfive\n").unwrap();
        let (lines, next) = collect(&path, &next, MAX_LINE);
        assert_eq!(
            lines,
            vec![(4, "four-part-done".into()), (5, "five".into())]
        );
        assert_eq!(next.offset, std::fs::metadata(&path).unwrap().len());
        assert_eq!(next.line, 6);
    }

    #[test]
    fn overlong_lines_are_reported_without_being_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        let mut data = b"short\n".to_vec();
        data.extend(std::iter::repeat_n(b'x', 5000));
        data.extend(b"\nafter\n");
        std::fs::write(&path, &data).unwrap();
        let (lines, next) = collect(&path, &ResumePoint::default(), 100);
        assert_eq!(
            lines,
            vec![
                (1, "short".into()),
                (2, "<too long>".into()),
                (3, "after".into())
            ]
        );
        assert_eq!(next.offset, data.len() as u64);
    }

    #[test]
    fn an_offset_past_the_end_reads_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        std::fs::write(&path, b"a\n").unwrap();
        let from = ResumePoint {
            offset: 100,
            line: 9,
            state: None,
        };
        let (lines, next) = collect(&path, &from, MAX_LINE);
        assert!(lines.is_empty());
        assert_eq!((next.offset, next.line), (100, 9));
    }

    /// Random bytes appended in random pieces, read after every append: every complete line is
    /// seen exactly once, with its exact number, and the resume point is always just past it.
    #[test]
    fn random_appends_yield_every_line_once() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let dir = tempfile::tempdir().unwrap();
        for case in 0..300 {
            let len = (rnd() % 600) as usize;
            let data: Vec<u8> = (0..len)
                .map(|_| match rnd() % 8 {
                    0 => b'\n',
                    1 => b'\r',
                    2 => 0xff,
                    _ => b'a' + (rnd() % 26) as u8,
                })
                .collect();
            let complete = data.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
            let expected: Vec<(u64, String)> = data[..complete]
                .split(|b| *b == b'\n')
                .take(data[..complete].iter().filter(|b| **b == b'\n').count())
                .enumerate()
                .map(|(i, l)| {
                    let l = l.strip_suffix(b"\r").unwrap_or(l);
                    (i as u64 + 1, String::from_utf8_lossy(l).into_owned())
                })
                .collect();
            let path = dir.path().join(format!("case-{case}.jsonl"));
            std::fs::write(&path, b"").unwrap();
            let mut from = ResumePoint::default();
            let mut got = Vec::new();
            let mut written = 0;
            while written < len {
                let end = (written + 1 + (rnd() % 80) as usize).min(len);
                let mut f = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .unwrap();
                f.write_all(&data[written..end]).unwrap();
                written = end;
                let (lines, next) = collect(&path, &from, MAX_LINE);
                got.extend(lines);
                from = next;
            }
            assert_eq!(got, expected, "case {case}");
            assert_eq!(from.offset, complete as u64, "case {case}");
            assert_eq!(from.line, expected.len() as u64 + 1, "case {case}");
        }
    }
}
