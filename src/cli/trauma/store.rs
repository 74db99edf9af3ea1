//! Reading and editing the traumas files for the CLI.
//!
//! Edits happen under a lock, on the file's lines kept verbatim: the line being changed is
//! rewritten, every other line (including ones that do not parse) stays byte for byte, and the
//! result replaces the file atomically. A malformed line is reported with its path and line
//! number and never dropped.

use crate::cli::Ctx;
use crate::error::{CmError, Result};
use crate::fsutil::{FileLock, write_atomic};
use crate::guard::user_traumas::{self as ut, BadLine, Trauma, TraumaScope};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// A trauma and the file it lives in.
pub struct Located {
    pub trauma: Trauma,
    pub scope: TraumaScope,
    pub path: PathBuf,
}

/// The file for `scope`: the global one, or the repository's `.cass/traumas.jsonl`.
pub fn path_for(scope: TraumaScope, ctx: &Ctx, for_write: bool) -> Option<PathBuf> {
    match scope {
        TraumaScope::Global => Some(ut::global_path()),
        TraumaScope::Project if for_write => Some(ut::project_path(
            &crate::paths::repo_cass_dir_for_write(&ctx.cwd),
        )),
        TraumaScope::Project => crate::paths::repo_cass_dir(&ctx.cwd).map(|d| ut::project_path(&d)),
    }
}

/// Every trauma from the global and the project file, and the lines that did not parse.
pub fn load_all(ctx: &Ctx) -> Result<(Vec<Located>, Vec<BadLine>)> {
    let mut all = Vec::new();
    let mut bad = Vec::new();
    for scope in [TraumaScope::Global, TraumaScope::Project] {
        let Some(path) = path_for(scope, ctx, false) else {
            continue;
        };
        let (good, b) = ut::load(&path).map_err(|e| CmError::io(&path, "read", &e))?;
        bad.extend(b);
        all.extend(good.into_iter().map(|trauma| Located {
            trauma,
            scope,
            path: path.clone(),
        }));
    }
    Ok((all, bad))
}

/// Say on stderr which lines were skipped, and return them for the JSON output.
pub fn report_bad(bad: &[BadLine]) -> Value {
    for b in bad {
        eprintln!(
            "cm: warning: {}:{}: not a trauma record ({}); the line is kept as it is",
            b.path.display(),
            b.line,
            tidy(&b.error)
        );
    }
    Value::Array(
        bad.iter()
            .map(|b| json!({"path": b.path, "line": b.line, "error": tidy(&b.error)}))
            .collect(),
    )
}

/// A JSON error about one line says "at line 1 column N"; only the column means anything here.
fn tidy(error: &str) -> String {
    error.replace(" at line 1 column ", " at column ")
}

/// Find one trauma by id (exactly) in either file.
pub fn find(ctx: &Ctx, id: &str) -> Result<Located> {
    let (all, _) = load_all(ctx)?;
    all.into_iter().find(|l| l.trauma.id == id).ok_or_else(|| {
        CmError::usage("TRAUMA_NOT_FOUND", format!("no trauma with id {id}"))
            .hint("`cm trauma list` shows the ids")
    })
}

/// Run `edit` on the lines of the file at `path` under its lock and write the result back
/// when `edit` returns true.
pub fn edit(path: &Path, edit: impl FnOnce(&mut Vec<String>) -> Result<bool>) -> Result<()> {
    let _lock = FileLock::acquire(&ut::lock_path(path))?;
    let text = match crate::untrusted::read_text(path, crate::guard::trauma_cache::GLOBAL_CAP) {
        Ok(Some(t)) => t,
        Ok(None) => String::new(),
        Err(e) => return Err(CmError::io(path, "read", &e)),
    };
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if !edit(&mut lines)? {
        return Ok(());
    }
    let mut out = lines.join("\n");
    if !out.is_empty() {
        out.push('\n');
    }
    write_atomic(path, out.as_bytes())
}

/// The index of the line holding trauma `id`.
pub fn line_of(lines: &[String], id: &str) -> Option<usize> {
    lines
        .iter()
        .position(|l| serde_json::from_str::<Trauma>(l.trim()).is_ok_and(|t| t.id == id))
}

/// Replace trauma `t` (found by id) in its file, or remove it when `replacement` is `None`.
pub fn rewrite(path: &Path, id: &str, replacement: Option<&Trauma>) -> Result<()> {
    edit(path, |lines| {
        let Some(i) = line_of(lines, id) else {
            return Err(CmError::usage(
                "TRAUMA_NOT_FOUND",
                format!("trauma {id} is no longer in {}", path.display()),
            )
            .hint("another process changed the file; run `cm trauma list`"));
        };
        match replacement {
            Some(t) => lines[i] = ut::to_line(t),
            None => {
                lines.remove(i);
            }
        }
        Ok(true)
    })
}

/// Check a pattern compiles, as the guard will compile it.
pub fn check_pattern(pattern: &str) -> Result<()> {
    if pattern.trim().is_empty() {
        return Err(CmError::usage("INVALID_PATTERN", "the pattern is empty")
            .hint("give a regular expression, e.g. 'rm\\s+-rf\\s+data'"));
    }
    regex::Regex::new(pattern).map(|_| ()).map_err(|e| {
        CmError::usage(
            "INVALID_PATTERN",
            format!("invalid regular expression {pattern:?}: {e}"),
        )
        .hint("patterns use Rust regex syntax; escape literal characters like . ( ) [ with a backslash")
    })
}

/// Check a `--files` glob.
pub fn check_glob(glob: &str) -> Result<()> {
    globset::Glob::new(glob).map(|_| ()).map_err(|e| {
        CmError::usage("INVALID_GLOB", format!("invalid file glob {glob:?}: {e}"))
            .hint("use globs like '*.sql' or 'migrations/**'")
    })
}
