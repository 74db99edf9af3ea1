//! Protected paths: files the user does not want an agent to write (`guard.protectedPaths`).
//!
//! Globs are matched against the absolute path of the file and its path relative to the
//! working directory; a relative glob also matches at any depth (`.env` protects every
//! `.env`), and `~/` expands to the home directory.
//!
//! The path an agent names is not taken at its word: `$HOME//.ssh/x`, `~/.ssh/./x`,
//! `~/a/../.ssh/x` and `../home/.ssh/x` from a sibling directory all name `~/.ssh/x`, and a
//! symlink named `notes` may point at `.env`. So each path is matched in two forms: lexically
//! normalised (`.` and empty components dropped, `..` applied), and physically resolved (the
//! longest existing prefix through `canonicalize`, symlinks on the way and a dangling final
//! link followed, the rest appended). Globs under `~/` are tried with the home directory as
//! given and as resolved. Either form matching protects the file.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use std::path::{Component, Path, PathBuf};

/// The first glob of `globs` protecting `file` (relative to `cwd` when not absolute).
pub fn matching_glob(file: &str, cwd: &Path, home: &Path, globs: &[String]) -> Option<String> {
    if globs.is_empty() || file.is_empty() {
        return None;
    }
    let raw = absolute(file, cwd, home);
    let lexical = normalise(&raw);
    let mut paths = vec![lexical.clone()];
    if let Some(physical) = resolve(&raw).filter(|p| *p != lexical) {
        paths.push(physical);
    }
    let mut cwds = vec![normalise(cwd)];
    cwds.extend(std::fs::canonicalize(cwd).ok().filter(|c| *c != cwds[0]));
    let mut homes = vec![home.to_path_buf()];
    homes.extend(std::fs::canonicalize(home).ok().filter(|h| h != home));
    let rels: Vec<PathBuf> = paths
        .iter()
        .flat_map(|p| cwds.iter().filter_map(|c| p.strip_prefix(c).ok()))
        .map(Path::to_path_buf)
        .collect();
    for g in globs {
        for h in &homes {
            let expanded = match g.strip_prefix("~/") {
                Some(rest) => h.join(rest).to_string_lossy().into_owned(),
                None => g.clone(),
            };
            if matches(&expanded, &paths, &rels) {
                return Some(g.clone());
            }
        }
    }
    None
}

fn matches(glob: &str, paths: &[PathBuf], rels: &[PathBuf]) -> bool {
    if let Some(set) = glob_set(glob)
        && (paths.iter().any(|p| set.is_match(p)) || rels.iter().any(|r| set.is_match(r)))
    {
        return true;
    }
    // A directory glob protects what is inside it.
    let dir = glob.strip_suffix('/').unwrap_or(glob);
    !dir.contains('*')
        && (paths.iter().any(|p| p.starts_with(dir)) || rels.iter().any(|r| r.starts_with(dir)))
}

fn glob_set(glob: &str) -> Option<GlobSet> {
    let mut set = GlobSetBuilder::new();
    for candidate in [glob.to_string(), format!("**/{glob}")] {
        if candidate.starts_with("**//") {
            continue;
        }
        if let Ok(g) = GlobBuilder::new(&candidate).literal_separator(true).build() {
            set.add(g);
        }
    }
    set.build().ok()
}

/// `file` as an absolute path: `~/`, `$HOME/` and `${HOME}/` expand to `home`, a relative path
/// is joined to `cwd`. Not normalised.
pub fn absolute(file: &str, cwd: &Path, home: &Path) -> PathBuf {
    for prefix in ["~/", "$HOME/", "${HOME}/"] {
        if let Some(rest) = file.strip_prefix(prefix) {
            return home.join(rest.trim_start_matches('/'));
        }
    }
    if matches!(file, "~" | "$HOME" | "${HOME}") {
        return home.to_path_buf();
    }
    cwd.join(file)
}

/// Lexical normalisation: `.` and repeated separators dropped, `..` removes the component
/// before it (never above the root).
pub fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() && !path.is_absolute() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The path with the symlinks of its existing part resolved (as the kernel would on open), or
/// `None` when nothing of it exists.
pub fn resolve(path: &Path) -> Option<PathBuf> {
    let mut current = path.to_path_buf();
    // A dangling final symlink (`notes` -> `.env`, not created yet) is followed by hand.
    for _ in 0..40 {
        if let Ok(c) = std::fs::canonicalize(&current) {
            return Some(c);
        }
        match std::fs::read_link(&current) {
            Ok(target) => {
                let parent = current.parent().map(Path::to_path_buf).unwrap_or_default();
                current = parent.join(target);
            }
            Err(_) => break,
        }
    }
    let parts: Vec<Component> = current.components().collect();
    for keep in (1..parts.len()).rev() {
        let prefix: PathBuf = parts[..keep].iter().collect();
        if let Ok(base) = std::fs::canonicalize(&prefix) {
            let rest: PathBuf = parts[keep..].iter().collect();
            return Some(normalise(&base.join(rest)));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_relative_absolute_and_home() {
        let cwd = Path::new("/work/app");
        let home = Path::new("/home/u");
        let globs = vec![
            ".env".to_string(),
            "secrets/**".into(),
            "~/.ssh/*".into(),
            "/etc/hosts".into(),
        ];
        let m = |f: &str| matching_glob(f, cwd, home, &globs);
        assert_eq!(m(".env").as_deref(), Some(".env"));
        assert_eq!(m("/work/app/api/.env").as_deref(), Some(".env"));
        assert_eq!(m("secrets/prod.key").as_deref(), Some("secrets/**"));
        assert_eq!(m("/home/u/.ssh/id_rsa").as_deref(), Some("~/.ssh/*"));
        assert_eq!(m("/etc/hosts").as_deref(), Some("/etc/hosts"));
        assert_eq!(m("src/main.rs"), None);
        assert_eq!(m(".envrc"), None);
    }

    #[test]
    fn spelled_differently_the_same_path_is_still_protected() {
        let cwd = Path::new("/home/u/app");
        let home = Path::new("/home/u");
        let globs = vec!["~/.ssh/*".to_string(), ".env".into()];
        for f in [
            "/home/u//.ssh/authorized_keys",
            "/home/u/.ssh/./authorized_keys",
            "/home/u/x/../.ssh/authorized_keys",
            "$HOME/.ssh/authorized_keys",
            "${HOME}//.ssh/authorized_keys",
            "~/./.ssh/authorized_keys",
            "../.ssh/authorized_keys",
            "./sub/../.env",
        ] {
            assert!(matching_glob(f, cwd, home, &globs).is_some(), "{f}");
        }
        assert_eq!(
            matching_glob("/home/u/.ssh/keys/../../notes.txt", cwd, home, &globs),
            None
        );
    }

    #[test]
    fn symlinks_are_followed_to_what_they_name() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let app = root.join("app");
        std::fs::create_dir_all(&app).unwrap();
        std::fs::write(app.join(".env"), "A=1").unwrap();
        std::os::unix::fs::symlink(".env", app.join("notes")).unwrap();
        std::os::unix::fs::symlink(".env.local", app.join("dangling")).unwrap();
        std::os::unix::fs::symlink(&app, root.join("alias")).unwrap();
        let globs = vec![
            ".env".to_string(),
            ".env.local".into(),
            "/x/app/secret".into(),
        ];
        let home = Path::new("/nonexistent");
        for f in ["notes", "dangling"] {
            assert!(matching_glob(f, &app, home, &globs).is_some(), "{f}");
        }
        let via_alias = root.join("alias/notes").display().to_string();
        assert!(matching_glob(&via_alias, &root, home, &globs).is_some());
        assert_eq!(matching_glob("README.md", &app, home, &globs), None);
    }
}
