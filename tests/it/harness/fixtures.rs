//! Fixtures (`tests/fixtures/<area>/...`, real files as each tool writes them) and golden files:
//! an expected output kept in the repository. `UPDATE_GOLDEN=1` rewrites golden files after a
//! deliberate change; review the diff before committing it.

use std::path::{Path, PathBuf};

/// `REL` in the repository (a doc, a template, `install.sh`).
pub fn repo_path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// `tests/fixtures/REL`.
pub fn fixture_path(rel: &str) -> PathBuf {
    repo_path("tests/fixtures").join(rel)
}

/// The bytes of `tests/fixtures/REL`.
pub fn fixture(rel: &str) -> Vec<u8> {
    bytes(&fixture_path(rel))
}

/// The text of `tests/fixtures/REL`.
pub fn fixture_text(rel: &str) -> String {
    let path = fixture_path(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// Copy `tests/fixtures/REL` (a file or a directory tree) to `to`.
pub fn copy_fixture(rel: &str, to: &Path) {
    copy_tree(&fixture_path(rel), to);
}

/// Copy a file, or a directory with everything in it, to `to` (parents created).
pub fn copy_tree(from: &Path, to: &Path) {
    if !from.is_dir() {
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(from, to).unwrap_or_else(|e| panic!("copy {}: {e}", from.display()));
        return;
    }
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        copy_tree(&entry.path(), &to.join(entry.file_name()));
    }
}

/// A file's bytes (to show a file was left untouched, compare them before and after).
pub fn bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// Compare `actual` with the golden file at `path`; `UPDATE_GOLDEN=1` rewrites it first.
pub fn golden(path: &Path, actual: &str) {
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(path, actual).unwrap();
    }
    let want = std::fs::read_to_string(path).unwrap_or_else(|e| {
        panic!(
            "golden file {}: {e} (UPDATE_GOLDEN=1 writes it)",
            path.display()
        )
    });
    if want != actual {
        let at = want
            .lines()
            .zip(actual.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(want.lines().count().min(actual.lines().count()));
        panic!(
            "output differs from golden file {} from line {} on (UPDATE_GOLDEN=1 rewrites it; review the diff):\n  golden: {:?}\n  actual: {:?}",
            path.display(),
            at + 1,
            want.lines().nth(at),
            actual.lines().nth(at)
        );
    }
}

/// The commands of a guard corpus file (`tests/fixtures/guard/NAME`): one per line, or a block
/// between `<<<` and `>>>` lines; `#` lines are comments.
pub fn corpus(name: &str) -> Vec<String> {
    let text = fixture_text(&format!("guard/{name}"));
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
