//! Protected paths: files the user does not want an agent to write (`guard.protectedPaths`).
//!
//! Globs are matched against the absolute path of the file and its path relative to the
//! working directory; a relative glob also matches at any depth (`.env` protects every
//! `.env`), and `~/` expands to the home directory.

use globset::{GlobBuilder, GlobSetBuilder};
use std::path::{Path, PathBuf};

/// The first glob of `globs` protecting `file` (relative to `cwd` when not absolute).
pub fn matching_glob(file: &str, cwd: &Path, home: &Path, globs: &[String]) -> Option<String> {
    if globs.is_empty() || file.is_empty() {
        return None;
    }
    let abs: PathBuf = if let Some(rest) = file.strip_prefix("~/") {
        home.join(rest)
    } else {
        cwd.join(file)
    };
    let rel = abs.strip_prefix(cwd).ok().map(Path::to_path_buf);
    for g in globs {
        let expanded = match g.strip_prefix("~/") {
            Some(rest) => home.join(rest).to_string_lossy().into_owned(),
            None => g.clone(),
        };
        let mut set = GlobSetBuilder::new();
        for candidate in [expanded.clone(), format!("**/{expanded}")] {
            if candidate.starts_with("**//") {
                continue;
            }
            if let Ok(glob) = GlobBuilder::new(&candidate).literal_separator(true).build() {
                set.add(glob);
            }
        }
        let Ok(set) = set.build() else { continue };
        if set.is_match(&abs) || rel.as_ref().is_some_and(|r| set.is_match(r)) {
            return Some(g.clone());
        }
        // A directory glob protects what is inside it.
        if let Some(dir) = expanded.strip_suffix('/').or(Some(expanded.as_str()))
            && !dir.contains('*')
            && (abs.starts_with(dir) || rel.as_ref().is_some_and(|r| r.starts_with(dir)))
        {
            return Some(g.clone());
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
        assert_eq!(
            matching_glob(".env", cwd, home, &globs).as_deref(),
            Some(".env")
        );
        assert_eq!(
            matching_glob("/work/app/api/.env", cwd, home, &globs).as_deref(),
            Some(".env")
        );
        assert_eq!(
            matching_glob("secrets/prod.key", cwd, home, &globs).as_deref(),
            Some("secrets/**")
        );
        assert_eq!(
            matching_glob("/home/u/.ssh/id_rsa", cwd, home, &globs).as_deref(),
            Some("~/.ssh/*")
        );
        assert_eq!(
            matching_glob("/etc/hosts", cwd, home, &globs).as_deref(),
            Some("/etc/hosts")
        );
        assert_eq!(matching_glob("src/main.rs", cwd, home, &globs), None);
        assert_eq!(matching_glob(".envrc", cwd, home, &globs), None);
    }
}
