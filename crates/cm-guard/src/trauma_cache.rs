//! A compiled index of a traumas file, so the hook's cost does not grow with what the file holds.
//!
//! Reading a traumas file means parsing every JSON line and extracting each pattern's keywords
//! (a regex parse per pattern): about 50 ms per call for 5,000 traumas, paid on every shell
//! command. Instead the first reader after a change builds an index (per trauma: where its line
//! is, whether it is healed, its keywords) and keeps it in `<data dir>/cache/`, keyed by the
//! file's device, inode, size and mtime. A hook call then reads the index, scans the command for
//! the keywords, and parses only the lines of traumas whose keyword appeared (or that have none),
//! read by offset from the file it opened.
//!
//! Bounds: the file is opened only if it is a regular file (never a FIFO or device, see
//! [`cm_base::untrusted`]) and read up to a cap; lines past the cap are reported and not used. A
//! repository's file (untrusted) also gets a limit on traumas without keywords, which would
//! otherwise each compile a regex on every call. A pattern whose parse shows it cannot compile
//! within the size limit ([`super::pattern_size`]) is left out of the index with a note, so no
//! call ever spends time compiling it.

mod codec;

use super::literals;
use super::pattern_size;
use super::policy::TRAUMA_SIZE_LIMIT;
use super::quick::Scanner;
use super::user_traumas::Trauma;
use cm_base::untrusted::{self, Stamp};
use codec::{decode, encode};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// The user's own traumas file is read up to this size.
pub const GLOBAL_CAP: u64 = 4 << 20;
/// A repository's traumas file is read up to this size (about 1,700 traumas: a hook call with
/// that many costs about 1.5 ms more, so a committed file cannot slow every shell call much).
pub const PROJECT_CAP: u64 = 256 << 10;
/// At most this many traumas without keywords are used from a repository's file.
pub const PROJECT_KEYWORDLESS_MAX: usize = 16;

/// What the file is, and how much of it to trust.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most bytes read of the file.
    pub cap: u64,
    /// The most keywordless traumas kept (a repository's file may not slow every call).
    pub keywordless_max: Option<usize>,
}

impl Limits {
    /// The user's own trauma file.
    pub const GLOBAL: Limits = Limits {
        cap: GLOBAL_CAP,
        keywordless_max: None,
    };
    /// A repository's trauma file (untrusted: bounded harder).
    pub const PROJECT: Limits = Limits {
        cap: PROJECT_CAP,
        keywordless_max: Some(PROJECT_KEYWORDLESS_MAX),
    };
}

/// Whether a trauma is healed.
#[derive(Debug, Clone, PartialEq)]
pub enum Healed {
    /// Active.
    No,
    /// Healed for good.
    Forever,
    /// RFC 3339: active again from then on.
    Until(String),
}

/// One trauma line of the file: where it is and whether it is healed.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Its byte offset.
    pub offset: u64,
    /// Its length in bytes.
    pub len: u32,
    /// Its line number (1-based).
    pub line: u32,
    /// Whether it is healed.
    pub healed: Healed,
    /// Its pattern failed to compile on an earlier call (too large, or invalid): never a
    /// candidate again while the file is unchanged ([`remember_broken`]).
    pub broken: bool,
    /// `None`: no keyword, checked on every command.
    pub keywords: Option<Vec<String>>,
}

impl Entry {
    /// Whether the trauma is active at `now` (RFC 3339).
    pub fn is_active(&self, now: &str) -> bool {
        match &self.healed {
            Healed::No => true,
            Healed::Forever => false,
            Healed::Until(u) => u.as_str() <= now,
        }
    }
}

/// An open traumas file and its index.
#[derive(Debug)]
pub struct Index {
    file: File,
    /// The file indexed.
    pub path: PathBuf,
    /// Its trauma lines.
    pub entries: Vec<Entry>,
    /// Skipped lines, the cap, the keyword-less limit: said once per decision.
    pub notes: Vec<String>,
    /// Whether the index came from the cache (for tests and `cm doctor`).
    pub cached: bool,
    stamp: Stamp,
}

/// Open the traumas file at `path` and its index (from the cache in `cache_dir` when it is
/// current there; `None`: no cache, the index is built). `Ok(None)` when there is no file.
pub fn open(
    path: &Path,
    limits: Limits,
    cache_dir: Option<&Path>,
) -> std::io::Result<Option<Index>> {
    let Some((file, meta)) = untrusted::open(path)? else {
        return Ok(None);
    };
    let stamp = Stamp::of(&meta);
    let cache = cache_dir.map(|dir| cache_path(dir, path));
    if let Some((entries, notes)) = cache
        .as_deref()
        .and_then(|c| std::fs::read_to_string(c).ok())
        .and_then(|text| decode(&text, path, stamp, limits))
    {
        return Ok(Some(Index {
            file,
            path: path.to_path_buf(),
            entries,
            notes,
            cached: true,
            stamp,
        }));
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::Read::take(&file, limits.cap + 1), &mut bytes)?;
    let truncated = bytes.len() as u64 > limits.cap;
    bytes.truncate(limits.cap as usize);
    let (entries, notes) = build(path, &bytes, truncated, limits);
    if let Some(c) = &cache {
        cm_base::fsutil::write_cache(c, encode(path, stamp, limits, &entries, &notes).as_bytes());
    }
    Ok(Some(Index {
        file,
        path: path.to_path_buf(),
        entries,
        notes,
        cached: false,
        stamp,
    }))
}

/// Remember in the cached index of `path` that `patterns` failed to compile on this call, so
/// later calls never compile them again (a pattern just under the size floor of
/// [`super::pattern_size`] can still fail, after about 3 ms of compiling: 300 of them spent the
/// whole trauma budget on every call). Best effort; only where an index is kept (`cache_dir`).
pub fn remember_broken(path: &Path, limits: Limits, cache_dir: &Path, patterns: &[&str]) {
    let Ok(Some(index)) = open(path, limits, Some(cache_dir)) else {
        return;
    };
    let mut entries = index.entries.clone();
    let mut notes = index.notes.clone();
    let mut buf = Vec::new();
    for e in entries.iter_mut().filter(|e| !e.broken) {
        buf.resize(e.len as usize, 0);
        if index.file.read_exact_at(&mut buf, e.offset).is_err() {
            return;
        }
        let Ok(t) = serde_json::from_slice::<Trauma>(&buf) else {
            continue;
        };
        if patterns.contains(&t.pattern.as_str()) {
            e.broken = true;
            notes.push(format!(
                "{}:{}: trauma {} ignored: its pattern does not compile within {} (or is not a valid regex)",
                path.display(),
                e.line,
                t.id,
                untrusted::human_size(TRAUMA_SIZE_LIMIT as u64)
            ));
        }
    }
    if notes.len() > index.notes.len() {
        cm_base::fsutil::write_cache(
            &cache_path(cache_dir, path),
            encode(path, index.stamp, limits, &entries, &notes).as_bytes(),
        );
    }
}

impl Index {
    /// Indexes of the traumas active at `now` that any of `commands` could match: a keyword of
    /// theirs appears, or they have none. A pattern known not to compile is never one.
    pub fn candidates(&self, commands: &[&str], now: &str) -> Vec<usize> {
        let active: Vec<usize> = (0..self.entries.len())
            .filter(|&i| !self.entries[i].broken && self.entries[i].is_active(now))
            .collect();
        let keyworded: Vec<usize> = active
            .iter()
            .copied()
            .filter(|&i| self.entries[i].keywords.is_some())
            .collect();
        let mut out: Vec<usize> = active
            .iter()
            .copied()
            .filter(|&i| self.entries[i].keywords.is_none())
            .collect();
        if !keyworded.is_empty() {
            let kws: Vec<&[String]> = keyworded
                .iter()
                .map(|&i| self.entries[i].keywords.as_deref().unwrap_or_default())
                .collect();
            let scanner = Scanner::with_traumas(&kws);
            for c in commands {
                out.extend(scanner.scan(c).traumas.into_iter().map(|k| keyworded[k]));
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Parse the traumas `which` from the file. A line that no longer parses (the file changed
    /// under us) is reported in the returned notes.
    pub fn load(&self, which: &[usize]) -> (Vec<Trauma>, Vec<String>) {
        let mut traumas = Vec::with_capacity(which.len());
        let mut notes = Vec::new();
        for &i in which {
            let e = &self.entries[i];
            let mut buf = vec![0u8; e.len as usize];
            let parsed = self
                .file
                .read_exact_at(&mut buf, e.offset)
                .map_err(|err| err.to_string())
                .and_then(|_| {
                    serde_json::from_slice::<Trauma>(&buf).map_err(|err| err.to_string())
                });
            match parsed {
                Ok(t) => traumas.push(t),
                Err(err) => notes.push(format!(
                    "{}:{}: skipped trauma line: {err}",
                    self.path.display(),
                    e.line
                )),
            }
        }
        (traumas, notes)
    }
}

/// Parse the file's lines into index entries.
fn build(path: &Path, bytes: &[u8], truncated: bool, limits: Limits) -> (Vec<Entry>, Vec<String>) {
    let mut entries = Vec::new();
    let mut notes = Vec::new();
    let usable = if truncated {
        untrusted::whole_lines(bytes)
    } else {
        bytes
    };
    let mut keywordless = 0usize;
    let mut offset = 0usize;
    for (n, raw) in usable.split_inclusive(|&b| b == b'\n').enumerate() {
        let start = offset;
        offset += raw.len();
        let line = raw.trim_ascii();
        if line.is_empty() || line[0] == b'#' {
            continue;
        }
        let lead = raw.len() - raw.trim_ascii_start().len();
        let t = match serde_json::from_slice::<Trauma>(line) {
            Ok(t) => t,
            Err(e) => {
                notes.push(format!(
                    "{}:{}: skipped trauma line: {e}",
                    path.display(),
                    n + 1
                ));
                continue;
            }
        };
        let parsed = regex_syntax::parse(&t.pattern).ok();
        if parsed
            .as_ref()
            .is_some_and(|h| pattern_size::surely_over(h, TRAUMA_SIZE_LIMIT))
        {
            notes.push(format!(
                "{}:{}: trauma {} ignored: its pattern compiles to more than {} (repetitions of large classes such as `\\w{{1000}}`), the limit a trauma pattern may reach",
                path.display(),
                n + 1,
                t.id,
                untrusted::human_size(TRAUMA_SIZE_LIMIT as u64)
            ));
            continue;
        }
        let keywords = parsed.as_ref().and_then(literals::required_in);
        if keywords.is_none() {
            keywordless += 1;
            if limits.keywordless_max.is_some_and(|max| keywordless > max) {
                notes.push(format!(
                    "{}:{}: trauma {} ignored: a repository's traumas file may hold at most {} patterns without literal text (each costs a regex on every command)",
                    path.display(),
                    n + 1,
                    t.id,
                    limits.keywordless_max.unwrap_or(0)
                ));
                continue;
            }
        }
        let healed = match &t.healed {
            None => Healed::No,
            Some(h) => match &h.until {
                None => Healed::Forever,
                Some(u) => Healed::Until(u.clone()),
            },
        };
        entries.push(Entry {
            offset: (start + lead) as u64,
            len: line.len() as u32,
            line: (n + 1) as u32,
            healed,
            broken: false,
            keywords,
        });
    }
    if truncated {
        notes.push(format!(
            "{}: larger than {}; only its first {} were read",
            path.display(),
            untrusted::human_size(limits.cap),
            untrusted::human_size(limits.cap)
        ));
    }
    (entries, notes)
}

/// `<cache dir>/traumas-<hash of the path>.idx`.
fn cache_path(dir: &Path, file: &Path) -> PathBuf {
    let key = cm_base::text::hash::fnv1a(file.as_os_str().as_encoded_bytes());
    dir.join(format!("traumas-{key:016x}.idx"))
}

/// Where the hook keeps trauma indexes: `<data dir>/cache/`, only when the data dir exists (the
/// hook creates nothing but this cache, and only inside an existing data dir).
pub fn default_cache_dir() -> Option<PathBuf> {
    let data = cm_base::paths::data_dir();
    data.is_dir().then(|| data.join("cache"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(id: &str, pattern: &str, healed: &str) -> String {
        format!(
            r#"{{"id":"{id}","pattern":{},"createdAt":"2026-01-01T00:00:00Z"{healed}}}"#,
            serde_json::to_string(pattern).unwrap()
        )
    }

    #[test]
    fn the_index_round_trips_through_its_text_form() {
        let text = [
            line("t-1", r"deploy\.sh\s+--prod", ""),
            "# a comment".into(),
            "not json".into(),
            line(
                "t-2",
                r"^[a-z]+\s+[0-9]+$",
                r#","healed":{"at":"x","until":"2026-02-01T00:00:00Z"}"#,
            ),
            format!("   {}", line("t-3", "wipe 100%", r#","healed":{"at":"x"}"#)),
        ]
        .join("\n");
        let path = Path::new("/r/.cass/traumas.jsonl");
        let (entries, notes) = build(path, text.as_bytes(), false, Limits::PROJECT);
        assert_eq!(entries.len(), 3);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains(":3: skipped trauma line"), "{notes:?}");
        assert_eq!(entries[1].keywords, None);
        assert_eq!(entries[2].healed, Healed::Forever);
        let at = entries[2].offset as usize;
        assert!(text[at..].starts_with("{\"id\":\"t-3\""));
        let stamp = Stamp {
            dev: 1,
            ino: 2,
            size: 3,
            mtime_ns: 4,
        };
        let enc = encode(path, stamp, Limits::PROJECT, &entries, &notes);
        assert_eq!(
            decode(&enc, path, stamp, Limits::PROJECT),
            Some((entries.clone(), notes.clone()))
        );
        // Any change of identity, size, mtime, path or limits is a miss.
        let other = Stamp { size: 9, ..stamp };
        assert_eq!(decode(&enc, path, other, Limits::PROJECT), None);
        assert_eq!(decode(&enc, path, stamp, Limits::GLOBAL), None);
        assert_eq!(decode(&enc, Path::new("/x"), stamp, Limits::PROJECT), None);
        assert!(!entries[1].is_active("2026-01-15T00:00:00Z"));
        assert!(entries[1].is_active("2026-03-01T00:00:00Z"));
    }

    #[test]
    fn a_repository_file_gets_few_keywordless_traumas_and_a_cap() {
        let lines: Vec<String> = (0..40)
            .map(|i| line(&format!("t-{i}"), &format!("^[a-z]{{{}}}$", i + 1), ""))
            .collect();
        let text = lines.join("\n") + "\n";
        let path = Path::new("/r/.cass/traumas.jsonl");
        let (entries, notes) = build(path, text.as_bytes(), false, Limits::PROJECT);
        assert_eq!(entries.len(), PROJECT_KEYWORDLESS_MAX);
        assert_eq!(notes.len(), 40 - PROJECT_KEYWORDLESS_MAX);
        let (entries, _) = build(path, text.as_bytes(), false, Limits::GLOBAL);
        assert_eq!(entries.len(), 40);
        let cut = &text.as_bytes()[..text.len() - 5];
        let (entries, notes) = build(path, cut, true, Limits::GLOBAL);
        assert_eq!(entries.len(), 39);
        assert!(
            notes.last().unwrap().contains("only its first"),
            "{notes:?}"
        );
    }
}
