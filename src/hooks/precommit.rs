//! `cm-precommit` (also `cm hook precommit`): the git pre-commit scan.
//!
//! Reads the staged diff (`git diff --cached -U0`), looks at added lines only, and reports
//! secrets and file-scoped user traumas as `file:line: why` on stderr, exiting 1 to stop the
//! commit. Clean: silent, exit 0. Runs once per commit, so it may read the traumas files and,
//! only when something was found, the config for the `guard.allowSecrets` escape hatch; findings
//! it allows are still printed. Outside a repository, or when git cannot run, it says so and
//! lets the commit through (exit 0): a broken hook must not make commits impossible.

mod diff;
mod findings;

use crate::guard::user_traumas as ut;
use findings::{AllowList, FileTrauma, Finding};
use std::path::Path;
use std::process::Command;

/// The `guard` config keys this hook reads.
#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct GuardConfig {
    allow_secrets: Vec<String>,
}

pub fn run(_args: &[String]) -> i32 {
    let cwd = crate::paths::cwd();
    let out = Command::new("git")
        .args([
            "-c",
            "core.quotepath=off",
            "diff",
            "--cached",
            // Every file as text: a `.gitattributes` `binary` or `-diff`, a NUL byte or a
            // UTF-16 encoding would otherwise hide the whole file behind "Binary files differ".
            "--text",
            "-U0",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--src-prefix=a/",
            "--dst-prefix=b/",
        ])
        .current_dir(&cwd)
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) => {
            eprintln!("cm-precommit: cannot run git ({e}); nothing scanned, commit allowed");
            return 0;
        }
    };
    if !out.status.success() {
        if !inside_repository(&cwd) {
            eprintln!("cm-precommit: not inside a git repository; nothing to scan");
        } else {
            let err = String::from_utf8_lossy(&out.stderr);
            eprintln!(
                "cm-precommit: `git diff --cached` failed ({}); nothing scanned, commit allowed",
                err.lines().next().unwrap_or("").trim()
            );
        }
        return 0;
    }
    let text = diff::as_text(&out.stdout);
    let lines = diff::added_lines(&text);
    if lines.is_empty() {
        return 0;
    }
    let traumas = file_traumas(&cwd);
    let found = findings::scan(&lines, &traumas);
    if found.is_empty() {
        return 0;
    }
    report(&cwd, &found)
}

/// `guard.allowSecrets` as the user set it, and what a repository may add to it.
///
/// The user's config (the global file) may allow anything. A repository's `.cass/config.json`
/// comes with the code being committed, so it may only name single known values, by
/// fingerprint (a fake key its tests commit): a glob from it (`"*"`, `"**/.env"`) would let the
/// user's own secrets through, and is ignored with a warning.
fn allowed_entries(cwd: &Path) -> crate::error::Result<Vec<String>> {
    let entries = |path: &Path| -> crate::error::Result<Vec<String>> {
        let Some(value) = crate::config::read_json_file(path)? else {
            return Ok(Vec::new());
        };
        let guard = value.get("guard").cloned().unwrap_or_default();
        let g: GuardConfig = serde_json::from_value(guard).map_err(|e| {
            crate::error::CmError::config(
                "CONFIG_INVALID",
                format!("invalid \"guard\" section in {}: {e}", path.display()),
            )
        })?;
        Ok(g.allow_secrets)
    };
    let mut out = entries(&crate::paths::global_config_path())?;
    if let Some(dir) = crate::paths::repo_cass_dir(cwd) {
        let path = dir.join(crate::paths::CONFIG_FILE);
        for e in entries(&path)? {
            if findings::is_fingerprint(&e) {
                out.push(e);
            } else {
                eprintln!(
                    "cm-precommit: {}: ignoring guard.allowSecrets {e:?}: a repository may allow a known value by its fingerprint, never a file pattern (set patterns in {})",
                    path.display(),
                    crate::paths::global_config_path().display()
                );
            }
        }
    }
    Ok(out)
}

/// Asked only after `git diff --cached` failed, so a clean run costs one git process.
fn inside_repository(cwd: &Path) -> bool {
    Command::new("git")
        .args(["rev-parse", "--git-dir"])
        .current_dir(cwd)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Active user traumas that name files, compiled. Bad lines and bad patterns are reported and
/// skipped (the CLI refuses them on the way in; a hand-edited file may still hold one).
fn file_traumas(cwd: &Path) -> Vec<FileTrauma> {
    let mut paths = vec![ut::global_path()];
    if let Some(dir) = crate::paths::repo_cass_dir(cwd) {
        paths.push(ut::project_path(&dir));
    }
    let now = crate::clock::now_rfc3339();
    let mut out = Vec::new();
    for path in paths {
        let Ok((list, bad)) = ut::load(&path) else {
            eprintln!(
                "cm-precommit: cannot read {}; its traumas are not checked",
                path.display()
            );
            continue;
        };
        for b in bad {
            eprintln!(
                "cm-precommit: {}:{}: not a trauma record, skipped",
                b.path.display(),
                b.line
            );
        }
        for t in list {
            let Some(files) = t.files.as_deref() else {
                continue;
            };
            if !t.is_active(&now) {
                continue;
            }
            let glob = globset::Glob::new(files).map(|g| g.compile_matcher());
            let regex = regex::Regex::new(&t.pattern);
            match (glob, regex) {
                (Ok(glob), Ok(regex)) => out.push(FileTrauma {
                    id: t.id,
                    glob,
                    regex,
                    message: t.message,
                }),
                _ => eprintln!(
                    "cm-precommit: trauma {} has an invalid pattern or glob, skipped",
                    t.id
                ),
            }
        }
    }
    out
}

/// Print every finding; exit 1 when any is not allowed by config.
fn report(cwd: &Path, found: &[Finding]) -> i32 {
    let config_note = crate::paths::global_config_path().display().to_string();
    let allow = match allowed_entries(cwd) {
        Ok(entries) => {
            let (list, warnings) = AllowList::new(&entries);
            for w in warnings {
                eprintln!("cm-precommit: {w}");
            }
            list
        }
        Err(e) => {
            eprintln!("cm-precommit: {}; no finding is allowed", e.message);
            AllowList::new(&[]).0
        }
    };
    let mut blocked = 0;
    let mut secrets = 0;
    let mut traumas = 0;
    for f in found {
        let fp = f
            .fingerprint
            .as_deref()
            .map(|fp| format!(" [fingerprint {fp}]"))
            .unwrap_or_default();
        match allow.allowing(f) {
            Some(entry) => eprintln!(
                "{}:{}: {}{fp} (allowed by config: guard.allowSecrets {entry:?})",
                f.file, f.line, f.why
            ),
            None => {
                blocked += 1;
                if f.what == "secret" {
                    secrets += 1;
                } else {
                    traumas += 1;
                }
                eprintln!("{}:{}: {}{fp}", f.file, f.line, f.why);
            }
        }
    }
    if blocked == 0 {
        return 0;
    }
    eprintln!("cm-precommit: commit blocked: {blocked} finding(s) in staged changes.");
    if secrets > 0 {
        eprintln!(
            "  secrets: remove them and `git add` again; a false positive can be allowed by adding its fingerprint (or a file glob) to \"guard\": {{\"allowSecrets\": [...]}} in {config_note} or .cass/config.json"
        );
    }
    if traumas > 0 {
        eprintln!(
            "  traumas: change the line, or disable the trauma with `cm trauma heal ID --for 1h`"
        );
    }
    1
}
