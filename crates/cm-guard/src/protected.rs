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

use cm_base::paths::PATH_MAX;
use globset::{GlobBuilder, GlobMatcher};
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

/// The first glob of `globs` protecting `file` (relative to `cwd` when not absolute).
pub fn matching_glob(file: &str, cwd: &Path, home: &Path, globs: &[String]) -> Option<String> {
    if globs.is_empty() || file.is_empty() {
        return None;
    }
    match Protected::new(globs, home).matching(file, cwd)? {
        Found::Glob(g) => Some(g),
        Found::Unchecked { .. } => None,
    }
}

/// Globs with a wildcard the guard looks at per call; past them a write no earlier glob
/// protects is refused ([`Found::Unchecked`]). Each one that could match the written path costs
/// a regex compile (about 0.1 ms): 25,000 of them from a cloned repository took 5.8 s, past the
/// agents' hook timeout. Literal paths (no wildcard) have no such bound: they cost a hash each.
pub const MAX_WILDCARD_GLOBS: usize = 128;

/// What protects a written path.
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    /// This glob of the list.
    Glob(String),
    /// No glob the guard looked at, but the list holds `wildcards` globs with a wildcard, more
    /// than [`MAX_WILDCARD_GLOBS`] (or one longer than [`PATH_MAX`]): the rest were not checked.
    /// Too many wildcard globs to check them all.
    Unchecked {
        /// How many wildcard globs the list holds.
        wildcards: usize,
    },
}

/// A glob with a wildcard, ready to be compiled when a path could match it.
struct Wild {
    /// Index in the list.
    glob: usize,
    /// The glob as matched (`~/` expanded, `**/` in front of a relative one).
    pattern: String,
    /// Literal runs every path it matches contains (outside classes and alternatives).
    runs: Vec<Vec<u8>>,
}

/// Every protected glob, read once per hook call and looked up per written path. Literal
/// paths go in a hash map keyed by their normalised bytes (25,000 of them from a repository's
/// config cost a few milliseconds); a glob with a wildcard is compiled only once a written path
/// holds all its literal runs, and only the first [`MAX_WILDCARD_GLOBS`] are looked at.
pub struct Protected<'g> {
    globs: &'g [String],
    homes: Vec<PathBuf>,
    /// Globs without a wildcard, expanded and normalised, looked up by each ancestor (a
    /// directory protects what is inside it) and each tail (`.env` protects every `.env`) of a
    /// path: no glob compiled, however many there are.
    literals: HashMap<Cow<'g, [u8]>, usize>,
    /// The most components a literal has (only that many trailing components can match one).
    literal_depth: usize,
    wild: Vec<Wild>,
    /// Globs with a wildcard in the list, and how many of them are not in `wild`.
    wild_total: usize,
    skipped: usize,
    /// Compiled on first use: `wild` index -> matcher (`None`: not a valid glob).
    compiled: RefCell<HashMap<usize, Option<GlobMatcher>>>,
}

fn is_literal(glob: &str) -> bool {
    !glob
        .bytes()
        .any(|b| matches!(b, b'*' | b'?' | b'[' | b']' | b'{' | b'}' | b'\\'))
}

/// Does a literal path need [`normalise`] to compare as bytes with normalised paths (an empty,
/// `.` or `..` component, or a trailing `/`)? One pass over the bytes.
fn needs_normalising(p: &str) -> bool {
    p.split('/')
        .enumerate()
        .any(|(i, c)| matches!(c, "." | "..") || (c.is_empty() && i > 0))
}

/// The literal runs of a glob outside `[...]` and `{...}`: every path it matches holds each.
/// Where the glob is hard to read (a class opening with `]`), none: the glob is then compiled
/// whenever it is looked at.
fn literal_runs(glob: &str) -> Vec<Vec<u8>> {
    if ["[]", "[!]", "[^]"].iter().any(|c| glob.contains(c)) {
        return Vec::new();
    }
    let mut runs = Vec::new();
    let mut run = Vec::new();
    let (mut brackets, mut braces) = (false, 0usize);
    let b = glob.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let literal = match b[i] {
            b'[' if !brackets => {
                brackets = true;
                false
            }
            b']' if brackets => {
                brackets = false;
                false
            }
            b'{' if !brackets => {
                braces += 1;
                false
            }
            b'}' if !brackets && braces > 0 => {
                braces -= 1;
                false
            }
            b'\\' => {
                i += 1;
                false
            }
            b'*' | b'?' => false,
            // `**/` matches no directory too: its `/` is not required.
            b'/' if i >= 2 && &b[i - 2..i] == b"**" => false,
            _ => !brackets && braces == 0,
        };
        if literal {
            run.push(b[i]);
        } else if !run.is_empty() {
            runs.push(std::mem::take(&mut run));
        }
        i += 1;
    }
    if !run.is_empty() {
        runs.push(run);
    }
    runs
}

impl<'g> Protected<'g> {
    /// The protected places of `globs`, `~` being `home`.
    pub fn new(globs: &'g [String], home: &Path) -> Protected<'g> {
        let mut homes = vec![home.to_path_buf()];
        homes.extend(std::fs::canonicalize(home).ok().filter(|h| h != home));
        let mut literals: HashMap<Cow<'g, [u8]>, usize> = HashMap::new();
        let mut literal_depth = 0;
        let mut wild = Vec::new();
        let (mut wild_total, mut skipped) = (0, 0);
        for (i, g) in globs.iter().enumerate() {
            if !is_literal(g) {
                wild_total += 1;
                if wild_total > MAX_WILDCARD_GLOBS || g.len() > PATH_MAX {
                    // Counted, not kept: a path no kept glob protects is refused.
                    skipped += 1;
                    continue;
                }
            }
            for h in &homes {
                let expanded: Cow<'g, str> = match g.strip_prefix("~/") {
                    Some(rest) => Cow::Owned(h.join(rest).to_string_lossy().into_owned()),
                    None => Cow::Borrowed(g.as_str()),
                };
                if is_literal(&expanded) {
                    let key: Cow<'g, [u8]> = if needs_normalising(&expanded) {
                        let dir = expanded.strip_suffix('/').unwrap_or(&expanded);
                        let n = normalise(Path::new(dir));
                        Cow::Owned(n.as_os_str().as_bytes().to_vec())
                    } else {
                        match expanded {
                            Cow::Borrowed(b) => Cow::Borrowed(b.as_bytes()),
                            Cow::Owned(o) => Cow::Owned(o.into_bytes()),
                        }
                    };
                    if !key.is_empty() {
                        let depth = key.split(|&b| b == b'/').filter(|c| !c.is_empty()).count()
                            + usize::from(key.first() == Some(&b'/'));
                        literal_depth = literal_depth.max(depth);
                        literals.entry(key).or_insert(i);
                    }
                } else {
                    let pattern = if expanded.starts_with('/') || expanded.starts_with("**") {
                        expanded.into_owned()
                    } else {
                        format!("**/{expanded}")
                    };
                    wild.push(Wild {
                        glob: i,
                        runs: literal_runs(&pattern),
                        pattern,
                    });
                }
                if !g.starts_with("~/") {
                    break;
                }
            }
        }
        Protected {
            globs,
            homes,
            literals,
            literal_depth,
            wild,
            wild_total,
            skipped,
            compiled: RefCell::new(HashMap::new()),
        }
    }

    /// What protects `file` (relative to `cwd` when not absolute): the first glob of the list
    /// that matches it, else [`Found::Unchecked`] when globs were left unchecked.
    pub fn matching(&self, file: &str, cwd: &Path) -> Option<Found> {
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
        let forms: Vec<&Path> = paths.iter().chain(&rels).map(PathBuf::as_path).collect();
        let mut best: Option<usize> = None;
        for p in &forms {
            if p.as_os_str().len() > PATH_MAX {
                // No file has such a path (the kernel refuses it); looking it up level by
                // level would cost the square of its length.
                continue;
            }
            let n = p.components().count();
            let tails = (n.saturating_sub(self.literal_depth)..n)
                .map(|k| p.components().skip(k).collect::<PathBuf>());
            for q in p.ancestors().map(Path::to_path_buf).chain(tails) {
                if let Some(&g) = self.literals.get(q.as_os_str().as_bytes()) {
                    best = Some(best.map_or(g, |b| b.min(g)));
                }
            }
        }
        let mut compiled = self.compiled.borrow_mut();
        for (k, w) in self.wild.iter().enumerate() {
            if best.is_some_and(|b| b <= w.glob) {
                break;
            }
            let holds_runs = |p: &&Path| {
                let bytes = p.as_os_str().as_bytes();
                w.runs
                    .iter()
                    .all(|r| memchr::memmem::find(bytes, r).is_some())
            };
            if !forms.iter().any(holds_runs) {
                continue;
            }
            let matcher = compiled.entry(k).or_insert_with(|| {
                GlobBuilder::new(&w.pattern)
                    .literal_separator(true)
                    .build()
                    .ok()
                    .map(|g| g.compile_matcher())
            });
            if matcher
                .as_ref()
                .is_some_and(|m| forms.iter().any(|p| m.is_match(p)))
            {
                best = Some(w.glob);
                break;
            }
        }
        match best {
            Some(g) => Some(Found::Glob(self.globs[g].clone())),
            None if self.skipped > 0 => Some(Found::Unchecked {
                wildcards: self.wild_total,
            }),
            None => None,
        }
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
    // The longest existing prefix, found by dropping one component at a time (never copying
    // the path once per level: a long path would cost the square of its length); prefixes
    // longer than the kernel resolves are dropped without a lookup.
    let parts: Vec<Component> = current.components().collect();
    let mut prefix = current.clone();
    for keep in (1..parts.len()).rev() {
        prefix.pop();
        if prefix.as_os_str().len() > PATH_MAX {
            continue;
        }
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

#[cfg(test)]
mod bound_tests {
    use super::*;

    #[test]
    fn literal_runs_are_only_what_every_match_holds() {
        let runs = |g: &str| -> Vec<String> {
            literal_runs(g)
                .into_iter()
                .map(|r| String::from_utf8(r).unwrap())
                .collect()
        };
        assert_eq!(runs("**/*.pem"), [".pem"]);
        assert_eq!(runs("**/secrets/**"), ["secrets/"]);
        assert_eq!(runs("/w/{a,b}/x?.txt"), ["/w/", "/x", ".txt"]);
        assert_eq!(runs("**/[ab]c\\*d"), ["c", "d"]);
        assert!(runs("**/[]x]y").is_empty());
    }

    #[test]
    fn only_paths_that_need_it_are_normalised() {
        for p in ["a//b", "a/", "./x", "x/./y", "../x", "x/..", "/"] {
            assert!(needs_normalising(p), "{p}");
        }
        for p in ["/etc/hosts", ".env", "a/b.c", "..x/y."] {
            assert!(!needs_normalising(p), "{p}");
        }
    }

    #[test]
    fn wildcard_globs_match_at_any_depth_and_past_the_bound_refuse() {
        let cwd = Path::new("/w/app");
        let home = Path::new("/home/u");
        let mut globs: Vec<String> = (0..MAX_WILDCARD_GLOBS)
            .map(|i| format!("dir{i}/*.txt"))
            .collect();
        globs.push("*.pem".into());
        globs.push("**/keys/**".into());
        let set = Protected::new(&globs, home);
        assert_eq!(
            set.matching("dir7/a.txt", cwd),
            Some(Found::Glob("dir7/*.txt".into()))
        );
        assert_eq!(
            set.matching("/w/app/x/dir3/b.txt", cwd),
            Some(Found::Glob("dir3/*.txt".into()))
        );
        // Past the bound: not checked, so refused rather than allowed.
        for f in ["a.pem", "src/main.rs", "keys/k"] {
            assert_eq!(
                set.matching(f, cwd),
                Some(Found::Unchecked {
                    wildcards: MAX_WILDCARD_GLOBS + 2
                }),
                "{f}"
            );
        }
        let few = vec!["*.pem".to_string(), "**/keys/**".into(), ".env".into()];
        let set = Protected::new(&few, home);
        assert_eq!(
            set.matching("a.pem", cwd),
            Some(Found::Glob("*.pem".into()))
        );
        assert_eq!(
            set.matching("x/keys/k", cwd),
            Some(Found::Glob("**/keys/**".into()))
        );
        assert_eq!(set.matching("src/main.rs", cwd), None);
        assert_eq!(set.matching("a.pem.bak", cwd), None);
    }

    #[test]
    fn many_literal_paths_are_looked_up_not_compiled() {
        let globs: Vec<String> = (0..25_000).map(|i| format!("dir{i}/file{i}.txt")).collect();
        let set = Protected::new(&globs, Path::new("/home/u"));
        let cwd = Path::new("/w/app");
        assert_eq!(set.matching("src/main.rs", cwd), None);
        assert_eq!(
            set.matching("dir24999/file24999.txt", cwd),
            Some(Found::Glob("dir24999/file24999.txt".into()))
        );
        assert!(set.compiled.borrow().is_empty());
    }
}
