//! The `postsession` hook (SessionEnd / Stop): index the session that just ended and reflect on
//! it, without making the agent wait.
//!
//! The hook only reads `transcript_path` from its payload (or its first argument), starts
//! `cm reflect --session PATH` as a detached process (own session, stdin and stdout null,
//! stderr appended to `<data dir>/logs/postsession.log`) and exits 0 at once, silently. The
//! detached job indexes the file (a lock per file) and reflects on its sessions (a lock per
//! session, and each session reflected once per message count), so several hooks firing for one
//! session never index or reflect it twice. No argument parser, config file or database on this
//! path.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub fn run(args: &[String]) -> i32 {
    let payload = super::read_stdin();
    let path = args
        .iter()
        .find(|a| !a.starts_with('-'))
        .map(PathBuf::from)
        .or_else(|| transcript_path(&payload.bytes));
    let Some(path) = path.filter(|p| p.is_file()) else {
        return 0; // nothing to index: not an error for the agent
    };
    if let Err(e) = spawn_job(
        &["reflect", "--quiet", "--session"],
        &path,
        "postsession.log",
    ) {
        eprintln!(
            "cm-postsession: could not start reflection on {}: {e}",
            path.display()
        );
    }
    0
}

/// `transcript_path` from a SessionEnd / Stop payload.
pub fn transcript_path(payload: &[u8]) -> Option<PathBuf> {
    #[derive(serde::Deserialize)]
    struct Payload {
        transcript_path: Option<String>,
    }
    let p: Payload = serde_json::from_slice(payload).ok()?;
    p.transcript_path
        .filter(|s| !s.trim().is_empty())
        .map(|s| crate::paths::expand_tilde(&s))
}

/// Start `cm ARGS PATH` detached, its stderr appended to `<data dir>/logs/LOG`.
pub(super) fn spawn_job(args: &[&str], path: &Path, log: &str) -> std::io::Result<()> {
    let exe = std::env::current_exe()?;
    let log = log_file(log);
    let mut cmd = Command::new(exe);
    cmd.args(args)
        .arg(path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log.map(Stdio::from).unwrap_or_else(Stdio::null));
    detach(&mut cmd);
    // Not waited for: the child outlives this process and is reparented to init.
    cmd.spawn().map(drop)
}

/// Append-only log for the detached job's diagnostics, when the data directory exists.
fn log_file(name: &str) -> Option<std::fs::File> {
    let dir = crate::paths::data_dir();
    if !dir.is_dir() {
        return None;
    }
    let logs = dir.join("logs");
    crate::private::create_dir(&logs).ok()?;
    crate::private::open_options(&logs)
        .create(true)
        .append(true)
        .open(logs.join(name))
        .ok()
}

#[cfg(unix)]
fn detach(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    // Run as `cm` whatever link name started the hook, so dispatch reaches the CLI.
    cmd.arg0("cm");
    unsafe extern "C" {
        fn setsid() -> i32;
    }
    // SAFETY: setsid is async-signal-safe and touches no memory of the parent; it runs in the
    // forked child before exec, making it a session leader with no controlling terminal, so the
    // agent's terminal closing (SIGHUP) or its process-group kill does not stop the indexer.
    unsafe {
        cmd.pre_exec(|| {
            setsid();
            Ok(())
        });
    }
}

#[cfg(not(unix))]
fn detach(_cmd: &mut Command) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_transcript_path() {
        let p = br#"{"session_id":"abc","transcript_path":"/tmp/x.jsonl","hook_event_name":"SessionEnd","reason":"exit"}"#;
        assert_eq!(transcript_path(p), Some(PathBuf::from("/tmp/x.jsonl")));
        assert_eq!(transcript_path(b"{}"), None);
        assert_eq!(transcript_path(b"not json"), None);
        assert_eq!(transcript_path(br#"{"transcript_path":""}"#), None);
    }
}
