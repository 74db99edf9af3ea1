//! The projects cm installed hooks into (project-scoped agent settings, git pre-commit hooks),
//! one directory per line in `<data dir>/hook-projects.txt`, so `cm hooks uninstall
//! --everywhere` (and `install.sh --uninstall`) can take them all out again: project settings
//! live in repositories nothing else lists.

use crate::error::{CmError, Result};
use std::path::{Path, PathBuf};

fn file() -> PathBuf {
    crate::paths::data_dir().join("hook-projects.txt")
}

/// Every recorded project directory, in the order they were first recorded.
pub fn projects() -> Vec<PathBuf> {
    std::fs::read_to_string(file())
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(PathBuf::from)
        .collect()
}

/// Remember that hooks were installed under `root` (once).
pub fn record(root: &Path) -> Result<()> {
    let mut all = projects();
    if all.iter().any(|p| p == root) {
        return Ok(());
    }
    all.push(root.to_path_buf());
    write(&all)
}

/// Forget `roots` (their hooks are gone).
pub fn forget(roots: &[PathBuf]) -> Result<()> {
    let all: Vec<PathBuf> = projects()
        .into_iter()
        .filter(|p| !roots.contains(p))
        .collect();
    write(&all)
}

fn write(all: &[PathBuf]) -> Result<()> {
    let text: String = all.iter().map(|p| format!("{}\n", p.display())).collect();
    let path = file();
    if text.is_empty() && !path.exists() {
        return Ok(());
    }
    crate::fsutil::write_atomic(&path, text.as_bytes()).map_err(|e| {
        CmError::fs(
            e.code,
            format!("{} (the list of projects with cm hooks)", e.message),
        )
    })
}
