//! What the pre-commit scan reports: secrets (from the shared detector in `redact`) and
//! file-scoped user traumas, in added lines; and the config allow-list that can wave a secret
//! finding through (still printed, never silent). Pure: no I/O.

use super::diff::Added;
use globset::{Glob, GlobMatcher};
use regex::Regex;

/// A user trauma with a `files` glob, compiled.
pub struct FileTrauma {
    pub id: String,
    pub glob: GlobMatcher,
    pub regex: Regex,
    pub message: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub file: String,
    pub line: u32,
    /// `secret` or `trauma`.
    pub what: &'static str,
    pub why: String,
    /// For secrets: `<kind>:<16 hex>`, a hash of the secret, usable in `guard.allowSecrets`.
    pub fingerprint: Option<String>,
}

/// FNV-1a, 64 bits: stable across builds and platforms (unlike std's hasher), so a fingerprint
/// written into config keeps matching.
fn fnv64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

pub fn fingerprint(kind: &str, secret: &str) -> String {
    format!("{kind}:{:016x}", fnv64(secret.as_bytes()))
}

/// Whether `entry` is a fingerprint (`<kind>:<16 hex>`) rather than a file glob.
pub fn is_fingerprint(entry: &str) -> bool {
    entry.rsplit_once(':').is_some_and(|(kind, hex)| {
        !kind.is_empty()
            && kind
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && hex.len() == 16
            && hex.bytes().all(|b| b.is_ascii_hexdigit())
    })
}

/// The traumas file itself holds the patterns as text; scanning it would flag every trauma.
fn is_trauma_file(path: &str) -> bool {
    path == ".cass/traumas.jsonl" || path.ends_with("/.cass/traumas.jsonl")
}

/// Every finding in `lines`: secrets first, then traumas, each in diff order.
pub fn scan(lines: &[Added], traumas: &[FileTrauma]) -> Vec<Finding> {
    let mut out = secrets(lines);
    if !traumas.is_empty() {
        out.extend(trauma_hits(lines, traumas));
    }
    out
}

/// Secrets in added lines, found line by line (a match never joins two lines), but cheaply: the
/// detector first runs once over all added lines joined, so each pattern scans the text a single
/// time, and only the lines that pass take the per-line look. Joined with newlines, a match can
/// cross a line only through a `\s`, and the line holding its secret is always among those
/// looked at again, so the result is exactly the per-line result.
fn secrets(lines: &[Added]) -> Vec<Finding> {
    let mut text = String::with_capacity(lines.iter().map(|a| a.text.len() + 1).sum());
    let mut starts = Vec::with_capacity(lines.len());
    for a in lines {
        starts.push(text.len());
        text.push_str(a.text);
        text.push('\n');
    }
    let line_of = |offset: usize| starts.partition_point(|&start| start <= offset) - 1;
    let mut candidates: Vec<usize> = Vec::new();
    for s in crate::redact::find(&text) {
        let last = line_of(s.end.saturating_sub(1).max(s.start));
        candidates.extend(line_of(s.start)..=last);
    }
    candidates.sort_unstable();
    candidates.dedup();
    let mut out = Vec::new();
    for i in candidates {
        let own = lines[i].text;
        for f in crate::redact::find(own) {
            out.push(Finding {
                file: lines[i].file.clone(),
                line: lines[i].line,
                what: "secret",
                why: format!("possible secret ({})", f.kind),
                fingerprint: Some(fingerprint(f.kind, &own[f.start..f.end])),
            });
        }
    }
    out
}

fn trauma_hits(lines: &[Added], traumas: &[FileTrauma]) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut current: Option<(&str, Vec<&FileTrauma>)> = None;
    for a in lines {
        if is_trauma_file(&a.file) {
            continue;
        }
        if current.as_ref().is_none_or(|(f, _)| *f != a.file) {
            let applies = traumas
                .iter()
                .filter(|t| t.glob.is_match(&a.file))
                .collect();
            current = Some((a.file.as_str(), applies));
        }
        for t in current.as_ref().map(|(_, v)| v.as_slice()).unwrap_or(&[]) {
            if t.regex.is_match(a.text) {
                out.push(Finding {
                    file: a.file.clone(),
                    line: a.line,
                    what: "trauma",
                    why: format!(
                        "trauma {} (/{}/){}",
                        t.id,
                        t.regex.as_str(),
                        t.message
                            .as_deref()
                            .map(|m| format!(": {m}"))
                            .unwrap_or_default()
                    ),
                    fingerprint: None,
                });
            }
        }
    }
    out
}

/// `guard.allowSecrets`: each entry is a finding fingerprint or a glob of files whose secret
/// findings are accepted.
pub struct AllowList {
    entries: Vec<(String, Option<GlobMatcher>)>,
}

impl AllowList {
    /// Build from config entries; globs that do not compile are reported and ignored.
    pub fn new(entries: &[String]) -> (AllowList, Vec<String>) {
        let mut warnings = Vec::new();
        let entries = entries
            .iter()
            .map(|e| {
                let glob = match Glob::new(e) {
                    Ok(g) => Some(g.compile_matcher()),
                    Err(err) => {
                        warnings.push(format!(
                            "guard.allowSecrets entry {e:?} is not a glob: {err}"
                        ));
                        None
                    }
                };
                (e.clone(), glob)
            })
            .collect();
        (AllowList { entries }, warnings)
    }

    /// The entry that allows `f`, if any. Traumas are never allowed here (heal them instead).
    pub fn allowing(&self, f: &Finding) -> Option<&str> {
        let fp = f.fingerprint.as_deref()?;
        self.entries
            .iter()
            .find(|(e, glob)| e == fp || glob.as_ref().is_some_and(|g| g.is_match(&f.file)))
            .map(|(e, _)| e.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn added(file: &str, line: u32, text: &'static str) -> Added<'static> {
        Added {
            file: file.into(),
            line,
            text,
        }
    }

    #[test]
    fn secrets_and_file_scoped_traumas() {
        let lines = [
            added("config/prod.env", 3, "AWS_KEY=AKIAIOSFODNN7ABCDEFG"),
            added("db/001.sql", 7, "DROP TABLE users;"),
            added("src/notes.md", 1, "we never DROP TABLE users"),
            added(
                ".cass/traumas.jsonl",
                1,
                r#"{"pattern":"DROP TABLE users"}"#,
            ),
        ];
        let traumas = [FileTrauma {
            id: "t-1".into(),
            glob: Glob::new("*.sql").unwrap().compile_matcher(),
            regex: Regex::new("(?i)drop table").unwrap(),
            message: Some("migrations must not drop tables".into()),
        }];
        let f = scan(&lines, &traumas);
        assert_eq!(f.len(), 2, "{f:?}");
        assert_eq!(
            (f[0].file.as_str(), f[0].line, f[0].what),
            ("config/prod.env", 3, "secret")
        );
        assert!(f[0].why.contains("aws-access-key"));
        assert_eq!(
            (f[1].file.as_str(), f[1].line, f[1].what),
            ("db/001.sql", 7, "trauma")
        );
        assert!(f[1].why.contains("migrations must not drop tables"));
    }

    #[test]
    fn matches_do_not_borrow_words_from_the_next_line() {
        let lines = [
            added("a.py", 1, "# refresh the token"),
            added("a.py", 2, "some_function_name_that_is_long()"),
            added("a.py", 3, "password ="),
            added("a.py", 4, "Xk9mQ2vL8pRt7w"),
            added("k", 1, "-----BEGIN RSA PRIVATE KEY-----"),
            added("k", 2, "MIIEowIBAAKCAQEA"),
            added("k", 3, "-----END RSA PRIVATE KEY-----"),
            added("b.env", 9, "TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
            added("c.env", 1, "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7QWERTYU"),
            added("c.env", 2, "DB_PASSWORD=Xk9mQ2vL8pRt7w"),
        ];
        let f = scan(&lines, &[]);
        let got: Vec<(&str, u32)> = f.iter().map(|x| (x.file.as_str(), x.line)).collect();
        assert_eq!(
            got,
            vec![("k", 1), ("b.env", 9), ("c.env", 1), ("c.env", 2)],
            "{f:?}"
        );
    }

    #[test]
    fn allow_list_by_fingerprint_or_glob_never_for_traumas() {
        let f = scan(
            &[added(
                "a/key.txt",
                1,
                "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            )],
            &[],
        );
        let fp = f[0].fingerprint.clone().unwrap();
        assert!(fp.starts_with("github-token:"));
        let (by_fp, _) = AllowList::new(std::slice::from_ref(&fp));
        assert_eq!(by_fp.allowing(&f[0]), Some(fp.as_str()));
        let (by_glob, _) = AllowList::new(&["a/*.txt".to_string()]);
        assert!(by_glob.allowing(&f[0]).is_some());
        let (other, _) = AllowList::new(&["b/**".to_string()]);
        assert!(other.allowing(&f[0]).is_none());
        let trauma = Finding {
            file: "a/key.txt".into(),
            line: 1,
            what: "trauma",
            why: String::new(),
            fingerprint: None,
        };
        assert!(by_glob.allowing(&trauma).is_none());
    }
}
