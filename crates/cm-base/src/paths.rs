//! Where things live on disk.
//!
//! The data directory is `$CASS_MEMORY_HOME`, else `~/.cass-memory`. A repository's shared files
//! live in `<repo>/.cass/`, where `<repo>` is found by walking up from the working directory to
//! the nearest directory holding `.cass/` or `.git`, never past the git root.

use std::path::{Path, PathBuf};

/// The environment variable that moves the data directory.
pub(crate) const DATA_DIR_ENV: &str = "CASS_MEMORY_HOME";
/// The SQLite store's file name in the data directory.
pub const DB_FILE: &str = "cm.db";
/// The global configuration's file name in the data directory.
pub const CONFIG_FILE: &str = "config.json";

/// The data directory (not created here).
pub fn data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os(DATA_DIR_ENV).filter(|v| !v.is_empty()) {
        return PathBuf::from(dir);
    }
    home_dir().join(".cass-memory")
}

/// `$HOME`, falling back to the platform's idea of it. Tests set `HOME`, so read it first.
pub fn home_dir() -> PathBuf {
    std::env::var_os("HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(dirs::home_dir)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The SQLite store.
pub fn db_path() -> PathBuf {
    data_dir().join(DB_FILE)
}

/// The global configuration file.
pub fn global_config_path() -> PathBuf {
    data_dir().join(CONFIG_FILE)
}

/// The repository root for `start`: the nearest ancestor holding `.git` (a directory or a
/// worktree file). Returns `None` outside a repository.
pub fn git_root(start: &Path) -> Option<PathBuf> {
    ancestors(start)
        .find(|dir| dir.join(".git").exists())
        .map(Path::to_path_buf)
}

/// Longest path the kernel resolves: a longer directory cannot exist.
pub const PATH_MAX: usize = 4096;

/// `start` and its parents that could exist. A hook's `cwd` comes from the payload: a 400 KB
/// one walked level by level costs the square of its length (each level is found from the one
/// below), so the walk starts at the longest parent no longer than [`PATH_MAX`], cut from the
/// bytes at once.
fn ancestors(start: &Path) -> impl Iterator<Item = &Path> {
    use std::os::unix::ffi::OsStrExt;
    let bytes = start.as_os_str().as_bytes();
    let fits = if bytes.len() <= PATH_MAX {
        Some(start)
    } else {
        bytes[..=PATH_MAX]
            .iter()
            .rposition(|&b| b == b'/')
            .map(|i| Path::new(std::ffi::OsStr::from_bytes(&bytes[..i.max(1)])))
    };
    fits.into_iter().flat_map(Path::ancestors)
}

/// The `.cass` directory that applies to `start`: the nearest `.cass/` between `start` and the
/// git root (inclusive). Outside a repository only `start` itself is considered, so a stray
/// `~/.cass` is never picked up by accident.
pub fn repo_cass_dir(start: &Path) -> Option<PathBuf> {
    let root = git_root(start);
    for dir in ancestors(start) {
        let candidate = dir.join(".cass");
        if candidate.is_dir() && candidate != data_dir() {
            return Some(candidate);
        }
        match &root {
            Some(r) if dir == r.as_path() => break,
            None => break,
            _ => {}
        }
    }
    None
}

/// Where `.cass/` should be created for writes (`--repo`): the git root, else the working dir.
pub fn repo_cass_dir_for_write(start: &Path) -> PathBuf {
    repo_cass_dir(start).unwrap_or_else(|| {
        git_root(start)
            .unwrap_or_else(|| start.to_path_buf())
            .join(".cass")
    })
}

/// The current directory, or `.` when it cannot be read (deleted under us).
pub fn cwd() -> PathBuf {
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
}

/// A `--session` argument as it is recorded: a relative path that exists is made absolute, so
/// the record still points at the file from any directory; anything else (an absolute path, a
/// session id) is kept as given.
pub fn session_ref(arg: &str, cwd: &Path) -> String {
    let expanded = expand_tilde(arg);
    if expanded.is_absolute() {
        return expanded.display().to_string();
    }
    let joined = cwd.join(&expanded);
    if joined.exists() {
        joined.display().to_string()
    } else {
        arg.to_string()
    }
}

/// Replace a leading `~` with the home directory.
pub fn expand_tilde(p: &str) -> PathBuf {
    if p == "~" {
        return home_dir();
    }
    if let Some(rest) = p.strip_prefix("~/") {
        return home_dir().join(rest);
    }
    PathBuf::from(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ancestors_of_an_overlong_path_start_below_path_max() {
        let long = PathBuf::from(format!("/{}", "a/".repeat(200_000)));
        let first = ancestors(&long).next().unwrap();
        assert!(first.as_os_str().len() <= PATH_MAX);
        assert!(long.starts_with(first));
        assert_eq!(ancestors(&long).count(), PATH_MAX / 2 + 1);
        let short = Path::new("/x/y");
        let all: Vec<&Path> = ancestors(short).collect();
        assert_eq!(all, [Path::new("/x/y"), Path::new("/x"), Path::new("/")]);
    }
}
