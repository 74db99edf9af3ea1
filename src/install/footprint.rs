//! What installing hooks leaves on disk besides the handlers themselves, so uninstall can take
//! it away again: backups and the files and directories cm created.
//!
//! Backups of a settings file (or git hook) go under `<data dir>/backups/`, never beside the
//! file: a project's `.claude/settings.json` sits in a working tree, where a backup would show
//! up in `git status` and could be committed. Files and directories an install created (a
//! settings file where there was none, its `.claude`/`.codex`/`.gemini` directory) are listed
//! in `<data dir>/hook-created.txt`; uninstall deletes such a file once cm's removal leaves it
//! an empty object, and then each listed directory that is empty. Nothing is deleted that is
//! not on that list.

use crate::error::{CmError, Result};
use std::path::{Path, PathBuf};

/// Where backups of agents' settings and git hooks are kept.
pub fn backup_dir() -> PathBuf {
    crate::paths::data_dir().join("backups")
}

/// `path` as one file name: its components joined by `%` (`home%u%.claude%settings.json`).
fn flat(path: &Path) -> String {
    path.components()
        .filter_map(|c| match c {
            std::path::Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("%")
}

/// Copy `bytes` (the file's current content) to `<backup dir>/<flat path>.cm-backup-<timestamp>`.
pub fn backup(path: &Path, bytes: &[u8]) -> Result<PathBuf> {
    backup_in(&backup_dir(), path, bytes)
}

/// [`backup`] into `dir`.
pub fn backup_in(dir: &Path, path: &Path, bytes: &[u8]) -> Result<PathBuf> {
    let stamp = crate::clock::now().format("%Y%m%dT%H%M%SZ").to_string();
    let base = format!("{}.cm-backup-{stamp}", flat(path));
    let mut candidate = dir.join(&base);
    let mut n = 1;
    while candidate.exists() {
        candidate = dir.join(format!("{base}-{n}"));
        n += 1;
    }
    crate::fsutil::write_atomic(&candidate, bytes)?;
    Ok(candidate)
}

/// Move the backups an older cm wrote beside `path` (`<name>.cm-backup-*`) into the backup
/// directory; returns where each went.
pub fn adopt_old_backups(path: &Path) -> Result<Vec<PathBuf>> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Ok(Vec::new());
    };
    let prefix = format!("{}.cm-backup-", name.to_string_lossy());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut moved = Vec::new();
    for e in entries.flatten() {
        let file_name = e.file_name().to_string_lossy().into_owned();
        let Some(stamp) = file_name.strip_prefix(&prefix) else {
            continue;
        };
        if !e.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let from = e.path();
        let mut to = backup_dir().join(format!("{}.cm-backup-{stamp}", flat(path)));
        let mut n = 1;
        while to.exists() {
            to = backup_dir().join(format!("{}.cm-backup-{stamp}-{n}", flat(path)));
            n += 1;
        }
        let bytes = std::fs::read(&from).map_err(|e| CmError::io(&from, "read", &e))?;
        crate::fsutil::write_atomic(&to, &bytes)?;
        std::fs::remove_file(&from).map_err(|e| CmError::io(&from, "remove", &e))?;
        moved.push(to);
    }
    Ok(moved)
}

fn list_file() -> PathBuf {
    crate::paths::data_dir().join("hook-created.txt")
}

fn created() -> Vec<PathBuf> {
    std::fs::read_to_string(list_file())
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(PathBuf::from)
        .collect()
}

fn write_list(all: &[PathBuf]) -> Result<()> {
    let path = list_file();
    if all.is_empty() && !path.exists() {
        return Ok(());
    }
    let text: String = all.iter().map(|p| format!("{}\n", p.display())).collect();
    crate::fsutil::write_atomic(&path, text.as_bytes())
}

/// The directories above `path` that do not exist yet, deepest last.
pub fn missing_dirs(path: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut at = path.parent();
    while let Some(dir) = at.filter(|d| !d.as_os_str().is_empty() && !d.exists()) {
        out.insert(0, dir.to_path_buf());
        at = dir.parent();
    }
    out
}

/// Remember that cm created `file` and the directories `dirs` (once each).
pub fn record_created(file: &Path, dirs: &[PathBuf]) -> Result<()> {
    let mut all = created();
    for p in dirs.iter().map(PathBuf::as_path).chain([file]) {
        if !all.iter().any(|q| q == p) {
            all.push(p.to_path_buf());
        }
    }
    write_list(&all)
}

/// After cm's handlers left `file` (parsed as `doc`): when cm created it and nothing else is in
/// it, delete it, and the directories cm created for it that are now empty. Returns what went.
pub fn remove_if_ours_and_empty(file: &Path, doc: &serde_json::Value) -> Result<Vec<PathBuf>> {
    let mut all = created();
    let empty = doc.as_object().is_some_and(|o| o.is_empty());
    if !empty || !all.iter().any(|p| p == file) {
        return Ok(Vec::new());
    }
    std::fs::remove_file(file).map_err(|e| CmError::io(file, "remove", &e))?;
    let mut gone = vec![file.to_path_buf()];
    all.retain(|p| p != file);
    let mut at = file.parent();
    while let Some(dir) = at {
        if !all.iter().any(|p| p == dir) || std::fs::remove_dir(dir).is_err() {
            break; // not ours, or something else is in it
        }
        all.retain(|p| p != dir);
        gone.push(dir.to_path_buf());
        at = dir.parent();
    }
    write_list(&all)?;
    Ok(gone)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_names_keep_every_component() {
        assert_eq!(
            flat(Path::new("/home/u/.claude/settings.json")),
            "home%u%.claude%settings.json"
        );
    }

    #[test]
    fn missing_dirs_lists_only_what_does_not_exist() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a/b/settings.json");
        assert_eq!(
            missing_dirs(&file),
            vec![dir.path().join("a"), dir.path().join("a/b")]
        );
        assert!(missing_dirs(&dir.path().join("settings.json")).is_empty());
    }
}
