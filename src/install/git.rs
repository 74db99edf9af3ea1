//! The git pre-commit hook: a small shell script in the repository's hooks directory (as git
//! resolves it, so `core.hooksPath` and worktrees are honoured) that runs `cm-precommit`.
//!
//! A hook that was already there is never replaced silently: it is backed up, moved aside to
//! `pre-commit.cm-chained` and run first by cm's script (a failure there still aborts the
//! commit). Uninstall puts it back exactly as it was.

use super::command;
use crate::error::{CmError, Result};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The line that marks a pre-commit script as cm's.
pub const MARKER: &str = "# cm-managed pre-commit hook";
/// Where a pre-existing hook is kept while cm's script chains to it.
pub const CHAINED: &str = "pre-commit.cm-chained";

/// The hooks directory git uses for the repository at `cwd`.
pub fn hooks_dir(cwd: &Path) -> Result<PathBuf> {
    let out = Command::new("git")
        .args(["rev-parse", "--git-path", "hooks"])
        .current_dir(cwd)
        .output()
        .map_err(|e| {
            CmError::usage("GIT_UNAVAILABLE", format!("cannot run git: {e}"))
                .hint("install git, or run this inside a git repository")
        })?;
    if !out.status.success() {
        return Err(CmError::usage(
            "NOT_A_GIT_REPOSITORY",
            format!("{} is not inside a git repository", cwd.display()),
        )
        .hint("run `cm guard --git` from the repository whose commits should be scanned"));
    }
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let p = PathBuf::from(text);
    Ok(if p.is_absolute() { p } else { cwd.join(p) })
}

/// The script cm installs. When the cm binary has gone (uninstalled, moved), the script says so
/// and lets the commit through rather than making every commit fail.
pub fn script(program: &Path, args: &[&str]) -> String {
    let prog = command::shell_quote(&program.to_string_lossy());
    let args: String = args.iter().map(|a| format!(" {a}")).collect();
    format!(
        "#!/bin/sh\n\
         {MARKER}: installed by `cm guard --git`, removed by `cm guard --uninstall --git`.\n\
         # A hook that was here before was moved to {CHAINED} and runs first.\n\
         hook_dir=$(dirname \"$0\")\n\
         if [ -x \"$hook_dir/{CHAINED}\" ]; then\n\
         \x20   \"$hook_dir/{CHAINED}\" \"$@\" || exit $?\n\
         fi\n\
         cm_bin={prog}\n\
         if [ ! -x \"$cm_bin\" ]; then\n\
         \x20   echo \"cm pre-commit hook: $cm_bin is missing; staged changes NOT scanned. Run \\`cm guard --git\\` to repair or \\`cm guard --uninstall --git\\`.\" >&2\n\
         \x20   exit 0\n\
         fi\n\
         exec \"$cm_bin\"{args}\n"
    )
}

fn is_ours(path: &Path) -> bool {
    std::fs::read(path)
        .map(|b| String::from_utf8_lossy(&b).contains(MARKER))
        .unwrap_or(false)
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GitReport {
    pub path: PathBuf,
    /// added | updated | present | removed | absent
    pub action: &'static str,
    pub command: Option<String>,
    /// The pre-existing hook cm chains to (install) or put back (uninstall).
    pub chained: Option<PathBuf>,
    pub backup: Option<PathBuf>,
}

fn write_script(path: &Path, text: &str) -> Result<()> {
    crate::fsutil::write_atomic(path, text.as_bytes())?;
    make_executable(path)
}

#[cfg(unix)]
fn make_executable(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| CmError::io(path, "make executable", &e))
}

#[cfg(not(unix))]
fn make_executable(_path: &Path) -> Result<()> {
    Ok(())
}

pub fn install(cwd: &Path, binary: &Path) -> Result<GitReport> {
    let dir = hooks_dir(cwd)?;
    let path = dir.join("pre-commit");
    let chained_path = dir.join(CHAINED);
    let (program, args) = command::precommit_program(binary);
    let wanted = script(&program, args);
    let cmd = std::iter::once(command::shell_quote(&program.to_string_lossy()))
        .chain(args.iter().map(|a| a.to_string()))
        .collect::<Vec<_>>()
        .join(" ");
    let mut report = GitReport {
        path: path.clone(),
        action: "added",
        command: Some(cmd),
        chained: None,
        backup: None,
    };
    let exists = path.symlink_metadata().is_ok();
    if exists && is_ours(&path) {
        report.chained = chained_path.exists().then_some(chained_path);
        if std::fs::read_to_string(&path).ok().as_deref() == Some(wanted.as_str()) {
            report.action = "present";
            return Ok(report);
        }
        report.action = "updated";
        write_script(&path, &wanted)?;
        return Ok(report);
    }
    if exists {
        if chained_path.symlink_metadata().is_ok() {
            return Err(CmError::fs(
                "HOOK_CONFLICT",
                format!(
                    "{} exists and so does {}; cm will not overwrite either",
                    path.display(),
                    chained_path.display()
                ),
            )
            .hint("merge or remove one of them by hand, then run `cm guard --git` again"));
        }
        let bytes = std::fs::read(&path).map_err(|e| CmError::io(&path, "read", &e))?;
        report.backup = Some(super::footprint::backup(&path, &bytes)?);
        std::fs::rename(&path, &chained_path)
            .map_err(|e| CmError::io(&chained_path, "move the existing hook to", &e))?;
        report.chained = Some(chained_path);
    }
    write_script(&path, &wanted)?;
    Ok(report)
}

pub fn uninstall(cwd: &Path) -> Result<GitReport> {
    let dir = hooks_dir(cwd)?;
    let path = dir.join("pre-commit");
    let chained_path = dir.join(CHAINED);
    let mut report = GitReport {
        path: path.clone(),
        action: "absent",
        command: None,
        chained: None,
        backup: None,
    };
    if !is_ours(&path) {
        return Ok(report);
    }
    report.action = "removed";
    if chained_path.symlink_metadata().is_ok() {
        std::fs::rename(&chained_path, &path)
            .map_err(|e| CmError::io(&path, "restore the chained hook to", &e))?;
        report.chained = Some(chained_path);
    } else {
        std::fs::remove_file(&path).map_err(|e| CmError::io(&path, "remove", &e))?;
    }
    Ok(report)
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GitStatus {
    pub path: PathBuf,
    pub installed: bool,
    pub command: Option<String>,
    pub chained: Option<PathBuf>,
    /// A pre-commit hook that is not cm's.
    pub other_hook: bool,
}

pub fn status(cwd: &Path) -> Result<GitStatus> {
    let dir = hooks_dir(cwd)?;
    let path = dir.join("pre-commit");
    let chained = dir.join(CHAINED);
    let installed = is_ours(&path);
    let command = installed
        .then(|| std::fs::read_to_string(&path).ok())
        .flatten()
        .and_then(|t| {
            let program = t
                .lines()
                .find_map(|l| l.strip_prefix("cm_bin="))?
                .to_string();
            let args = t
                .lines()
                .find_map(|l| l.strip_prefix("exec \"$cm_bin\""))
                .unwrap_or("");
            Some(format!("{program}{args}"))
        });
    Ok(GitStatus {
        installed,
        command,
        chained: (installed && chained.exists()).then_some(chained),
        other_hook: !installed && path.exists(),
        path,
    })
}
