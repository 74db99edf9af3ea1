//! The last guard settings that parsed, so a broken global config does not switch the guard's
//! protection off.
//!
//! A typo in `<data dir>/config.json` used to make the hook drop the whole `guard` section
//! (protected paths, fail-closed, the allow-list) without a word. Now each time the hook or
//! the CLI reads the global guard section successfully it keeps a copy in
//! `<data dir>/cache/guard-config-*.json`, keyed by the file's identity, size and mtime (rewritten
//! only when those change). When the file is broken the copy is used instead, and stderr
//! (the hook) or `cm doctor` says which file is broken and since when the copy dates.

use super::policy_file::GuardSection;
use cm_base::untrusted::Stamp;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Cached {
    source: String,
    stamp: Stamp,
    saved_at: String,
    guard: GuardSection,
}

fn dir() -> PathBuf {
    cm_base::paths::data_dir().join("cache")
}

/// The copy of `source` as it is at `stamp`: its name carries both, so checking that the copy
/// is current costs one `stat`.
fn path_for(source: &str, stamp: Stamp) -> PathBuf {
    let key = format!(
        "{source}\0{}\0{}\0{}\0{}",
        stamp.dev, stamp.ino, stamp.size, stamp.mtime_ns
    );
    let hash = cm_base::text::hash::fnv1a(key.as_bytes());
    dir().join(format!("{PREFIX}{hash:016x}.json"))
}

const PREFIX: &str = "guard-config-";

/// Every kept copy (normally one).
fn copies() -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir()) else {
        return Vec::new();
    };
    entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(PREFIX) && n.ends_with(".json"))
        })
        .collect()
}

/// Keep `section`, read from `source` as it is at `stamp`. One `stat` when the copy is current;
/// otherwise written (temp file and rename, no fsync) and older copies removed. Best effort,
/// and only inside an existing data dir.
pub fn remember(source: &Path, stamp: Stamp, section: &GuardSection) {
    let source = source.display().to_string();
    let file = path_for(&source, stamp);
    if file.exists() || !cm_base::paths::data_dir().is_dir() {
        return;
    }
    let cached = Cached {
        source,
        stamp,
        saved_at: cm_base::clock::now_rfc3339(),
        guard: section.clone(),
    };
    let Ok(text) = serde_json::to_string(&cached) else {
        return;
    };
    if !cm_base::fsutil::write_cache(&file, text.as_bytes()) {
        return;
    }
    for old in copies().into_iter().filter(|p| *p != file) {
        let _ = std::fs::remove_file(old);
    }
}

/// The newest kept section that parsed from `source`, when it was kept, and the copy's path.
pub fn recall(source: &Path) -> Option<(GuardSection, String, PathBuf)> {
    let source = source.display().to_string();
    copies()
        .into_iter()
        .filter_map(|p| {
            let text = cm_base::untrusted::read_text(&p, 1 << 20).ok()??;
            let c: Cached = serde_json::from_str(&text).ok()?;
            (c.source == source).then_some((c.guard, c.saved_at, p))
        })
        .max_by(|a, b| a.1.cmp(&b.1))
}
