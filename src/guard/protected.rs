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
    Protected::new(globs, home).matching(file, cwd)
}

/// Every protected glob compiled into one set, built once per hook call: 25,000 globs from a
/// repository's config cost one build, not one per glob and per path.
pub struct Protected<'g> {
    globs: &'g [String],
    homes: Vec<PathBuf>,
    set: GlobSet,
    /// Set index -> glob index.
    owner: Vec<usize>,
    /// Globs without a wildcard, expanded, looked up by each ancestor (a directory protects
    /// what is inside it) and each tail (`.env` protects every `.env`) of a path: no glob
    /// compiled, however many there are.
    literals: std::collections::HashMap<PathBuf, usize>,
    /// The most components a literal has (only that many trailing components can match one).
    literal_depth: usize,
}

/// Longest path the kernel resolves.
const PATH_MAX: usize = 4096;

fn is_literal(glob: &str) -> bool {
    !glob.contains(['*', '?', '[', ']', '{', '}', '\\'])
}

impl<'g> Protected<'g> {
    pub fn new(globs: &'g [String], home: &Path) -> Protected<'g> {
        let mut homes = vec![home.to_path_buf()];
        homes.extend(std::fs::canonicalize(home).ok().filter(|h| h != home));
        let mut builder = GlobSetBuilder::new();
        let mut owner = Vec::new();
        let mut literals = std::collections::HashMap::new();
        for (i, g) in globs.iter().enumerate() {
            for h in &homes {
                let expanded = match g.strip_prefix("~/") {
                    Some(rest) => h.join(rest).to_string_lossy().into_owned(),
                    None => g.clone(),
                };
                if is_literal(&expanded) {
                    let dir = expanded.strip_suffix('/').unwrap_or(&expanded);
                    if !dir.is_empty() {
                        literals.entry(normalise(Path::new(dir))).or_insert(i);
                    }
                    if !g.starts_with("~/") {
                        break;
                    }
                    continue;
                }
                for candidate in [expanded.clone(), format!("**/{expanded}")] {
                    if candidate.starts_with("**//") {
                        continue;
                    }
                    if let Ok(glob) = GlobBuilder::new(&candidate).literal_separator(true).build() {
                        builder.add(glob);
                        owner.push(i);
                    }
                }
                if !g.starts_with("~/") {
                    break;
                }
            }
        }
        Protected {
            globs,
            homes,
            set: builder.build().unwrap_or_else(|_| GlobSet::empty()),
            owner,
            literal_depth: literals
                .keys()
                .map(|k| k.components().count())
                .max()
                .unwrap_or(0),
            literals,
        }
    }

    /// The first glob protecting `file` (relative to `cwd` when not absolute).
    pub fn matching(&self, file: &str, cwd: &Path) -> Option<String> {
        if file.is_empty() || self.globs.is_empty() {
            return None;
        }
        let raw = absolute(file, cwd, &self.homes[0]);
        let lexical = normalise(&raw);
        let mut paths = vec![lexical.clone()];
        if let Some(physical) = resolve(&raw).filter(|p| *p != lexical) {
            paths.push(physical);
        }
        let mut cwds = vec![normalise(cwd)];
        cwds.extend(std::fs::canonicalize(cwd).ok().filter(|c| *c != cwds[0]));
        let rels: Vec<PathBuf> = paths
            .iter()
            .flat_map(|p| cwds.iter().filter_map(|c| p.strip_prefix(c).ok()))
            .map(Path::to_path_buf)
            .collect();
        let mut best: Option<usize> = None;
        for p in paths.iter().chain(&rels) {
            for m in self.set.matches(p) {
                let g = self.owner[m];
                best = Some(best.map_or(g, |b| b.min(g)));
            }
            if p.as_os_str().len() > PATH_MAX {
                // No file has such a path (the kernel refuses it); looking it up level by
                // level would cost the square of its length.
                continue;
            }
            let n = p.components().count();
            let tails = (n.saturating_sub(self.literal_depth)..n)
                .map(|k| p.components().skip(k).collect::<PathBuf>());
            for q in p.ancestors().map(Path::to_path_buf).chain(tails) {
                if let Some(&g) = self.literals.get(&q) {
                    best = Some(best.map_or(g, |b| b.min(g)));
                }
            }
        }
        best.map(|g| self.globs[g].clone())
    }
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
