//! Where a request may make cm read or write: the data directory and the workspaces the server
//! was started for (its roots). Every path a tool takes (a workspace, a guard check's working
//! directory, a session file to reflect on) is resolved here: made absolute against the first
//! root, every symlink followed (`canonicalize`), and refused unless what it resolves to lies
//! inside a root (or, for files, the data directory). A symlink inside a root pointing out of it
//! is therefore refused too, and `..` cannot climb out.

use crate::error::{CmError, Result};
use std::path::{Path, PathBuf};

/// The workspaces a server serves, canonical, the first one the default.
#[derive(Debug, Clone)]
pub struct Roots {
    dirs: Vec<PathBuf>,
}

impl Roots {
    /// Canonicalize each directory; one that does not exist or is not a directory is an error.
    pub fn new(dirs: &[PathBuf]) -> Result<Roots> {
        let mut out = Vec::new();
        for d in dirs {
            let c = std::fs::canonicalize(d).map_err(|e| CmError::io(d, "open workspace", &e))?;
            if !c.is_dir() {
                return Err(CmError::usage(
                    "INVALID_ARGUMENT",
                    format!("--root {} is not a directory", d.display()),
                ));
            }
            if !out.contains(&c) {
                out.push(c);
            }
        }
        if out.is_empty() {
            return Err(CmError::usage("INVALID_ARGUMENT", "no workspace to serve"));
        }
        Ok(Roots { dirs: out })
    }

    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// The workspace a request names (a directory inside a root), or the first root.
    pub fn workspace(&self, arg: Option<&str>) -> Result<PathBuf> {
        let Some(arg) = arg else {
            return Ok(self.dirs[0].clone());
        };
        let path = self.resolve(arg, "workspace")?;
        if !path.is_dir() {
            return Err(CmError::usage(
                "INVALID_ARGUMENT",
                format!("workspace {arg} is not a directory"),
            ));
        }
        self.inside(&path, &[], arg)
    }

    /// A regular file a request names (a transcript), inside a root and never in the data
    /// directory `data` (the store, the token, the config), even when a root holds it or a
    /// symlink leads there.
    pub fn file(&self, arg: &str, data: &Path) -> Result<PathBuf> {
        let path = self.resolve(arg, "file")?;
        if !path.is_file() {
            return Err(CmError::usage(
                "INVALID_ARGUMENT",
                format!("{arg} is not a regular file"),
            ));
        }
        let data = std::fs::canonicalize(data).unwrap_or_else(|_| data.to_path_buf());
        if path.starts_with(&data) {
            return Err(CmError::usage(
                "PATH_IN_DATA_DIR",
                format!("{arg} is in cm's data directory, which holds no session log"),
            )
            .hint("pass a transcript file inside the workspace the server serves"));
        }
        self.inside(&path, &[], arg)
    }

    fn resolve(&self, arg: &str, what: &str) -> Result<PathBuf> {
        if arg.trim().is_empty() || arg.contains('\0') {
            return Err(CmError::usage(
                "INVALID_ARGUMENT",
                format!("the {what} path is empty or holds a NUL byte"),
            ));
        }
        let given = Path::new(arg);
        let joined = if given.is_absolute() {
            given.to_path_buf()
        } else {
            self.dirs[0].join(given)
        };
        std::fs::canonicalize(&joined).map_err(|e| {
            CmError::usage("PATH_NOT_FOUND", format!("cannot resolve {arg}: {e}"))
                .hint("give a path that exists, inside the workspace the server was started for")
        })
    }

    fn inside(&self, path: &Path, extra: &[PathBuf], arg: &str) -> Result<PathBuf> {
        if within(path, self.dirs.iter().chain(extra)) {
            return Ok(path.to_path_buf());
        }
        Err(CmError::usage(
            "PATH_OUTSIDE_WORKSPACE",
            format!(
                "{arg} resolves to {}, outside the workspaces this server serves",
                path.display()
            ),
        )
        .hint(format!(
            "the server reads and writes only inside {} and its data directory; start it with --root DIR to serve another",
            self.dirs
                .iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )))
    }
}

/// `path` lies in (or is) one of `roots`: compared by whole components, both canonical.
pub fn within<'a>(path: &Path, mut roots: impl Iterator<Item = &'a PathBuf>) -> bool {
    roots.any(|r| path.starts_with(r))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_inside_by_components_not_by_prefix() {
        let roots = [PathBuf::from("/w/app")];
        assert!(within(Path::new("/w/app"), roots.iter()));
        assert!(within(Path::new("/w/app/src"), roots.iter()));
        assert!(!within(Path::new("/w/app2"), roots.iter()));
        assert!(!within(Path::new("/w"), roots.iter()));
    }

    #[test]
    fn symlinks_and_dotdot_out_of_a_root_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::create_dir_all(dir.path().join("outside")).unwrap();
        std::fs::write(dir.path().join("outside/secret.jsonl"), "x").unwrap();
        std::os::unix::fs::symlink(dir.path().join("outside"), root.join("link")).unwrap();
        let roots = Roots::new(std::slice::from_ref(&root)).unwrap();
        assert!(roots.workspace(Some("sub")).is_ok());
        assert!(roots.workspace(None).is_ok());
        for bad in ["..", "../outside", "link", "sub/../../outside"] {
            let e = roots.workspace(Some(bad)).unwrap_err();
            assert_eq!(e.code, "PATH_OUTSIDE_WORKSPACE", "{bad}");
        }
        let data = dir.path().join("data");
        std::fs::create_dir_all(&data).unwrap();
        let e = roots.file("link/secret.jsonl", &data).unwrap_err();
        assert_eq!(e.code, "PATH_OUTSIDE_WORKSPACE");
        std::fs::write(data.join("mcp-token"), "x").unwrap();
        let e = roots
            .file(data.join("mcp-token").to_str().unwrap(), &data)
            .unwrap_err();
        assert_eq!(e.code, "PATH_IN_DATA_DIR");
        std::os::unix::fs::symlink(data.join("mcp-token"), root.join("t.jsonl")).unwrap();
        let e = roots.file("t.jsonl", &data).unwrap_err();
        assert_eq!(e.code, "PATH_IN_DATA_DIR");
        std::fs::write(root.join("s.jsonl"), "x").unwrap();
        assert!(roots.file("s.jsonl", &data).is_ok());
        assert_eq!(
            roots.file("missing", &data).unwrap_err().code,
            "PATH_NOT_FOUND"
        );
    }
}
