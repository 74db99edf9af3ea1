//! Helpers for tests/guard.rs: corpus files, temp homes, running the binary.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/guard")
}

/// Commands of a corpus file: one per line, or a block between `<<<` and `>>>` lines;
/// `#` lines are comments.
pub fn corpus(name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(fixtures().join(name)).expect("corpus file");
    let mut out = Vec::new();
    let mut block: Option<Vec<&str>> = None;
    for line in text.lines() {
        match (&mut block, line) {
            (None, "<<<") => block = Some(Vec::new()),
            (Some(b), ">>>") => {
                out.push(b.join("\n"));
                block = None;
            }
            (Some(b), l) => b.push(l),
            (None, l) if l.trim().is_empty() || l.starts_with('#') => {}
            (None, l) => out.push(l.to_string()),
        }
    }
    out
}

pub fn join(items: &[&String]) -> String {
    items
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}
