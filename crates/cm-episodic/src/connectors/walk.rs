//! Bounded directory listing for discovery: never the whole disk, never a crash on an
//! unreadable directory (it is reported instead), results in a stable order.

use std::path::{Path, PathBuf};

/// What a walk found and where it could not look.
#[derive(Debug, Default)]
pub struct Walk {
    pub files: Vec<PathBuf>,
    pub errors: Vec<(PathBuf, String)>,
}

/// Files under `root` (at most `max_depth` directory levels below it) whose name satisfies
/// `keep`. A missing root is not an error; an unreadable directory is.
pub fn files(root: &Path, max_depth: usize, keep: &dyn Fn(&str) -> bool) -> Walk {
    let mut walk = Walk::default();
    visit(root, 0, max_depth, keep, &mut walk);
    walk.files.sort();
    walk
}

fn visit(dir: &Path, depth: usize, max_depth: usize, keep: &dyn Fn(&str) -> bool, w: &mut Walk) {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
        Err(e) => {
            w.errors.push((dir.to_path_buf(), e.to_string()));
            return;
        }
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        // Follow symlinks for the type so linked session dirs are found; a dangling link is skipped.
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            if depth < max_depth {
                visit(&path, depth + 1, max_depth, keep, w);
            }
        } else if meta.is_file() && keep(&name) {
            w.files.push(path);
        }
    }
}

/// Immediate subdirectories of `dir` (sorted); missing means none, unreadable is reported.
pub fn subdirs(dir: &Path, errors: &mut Vec<(PathBuf, String)>) -> Vec<PathBuf> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(e) => {
            errors.push((dir.to_path_buf(), e.to_string()));
            return Vec::new();
        }
    };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_is_bounded_and_missing_roots_are_quiet() {
        let dir = tempfile::tempdir().unwrap();
        let deep = dir.path().join("a/b/c");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(dir.path().join("a/x.jsonl"), "").unwrap();
        std::fs::write(deep.join("y.jsonl"), "").unwrap();
        std::fs::write(dir.path().join("a/z.txt"), "").unwrap();
        let w = files(dir.path(), 1, &|n| n.ends_with(".jsonl"));
        assert_eq!(w.files, vec![dir.path().join("a/x.jsonl")]);
        let w = files(dir.path(), 3, &|n| n.ends_with(".jsonl"));
        assert_eq!(w.files.len(), 2);
        let w = files(&dir.path().join("missing"), 3, &|_| true);
        assert!(w.files.is_empty() && w.errors.is_empty());
    }
}
