//! Holding a hook's stderr back from an agent that would show it to the user.
//!
//! Gemini CLI reads a hook's answer from `stdout || stderr`: with an empty stdout, a warning on
//! stderr after exit 0 becomes a message in the user's conversation. So when the installer
//! marked the command as Gemini's (`--agent=gemini`, see [`crate::install::gemini`]), the hook
//! writes its stderr into an unlinked temporary file instead, and at exit: on success appends
//! what was written to `<data dir>/logs/hooks.log` (or `$CM_HOOK_LOG`), on failure (exit 2 is a
//! block whose reason Gemini reads from stderr) copies it to the real stderr. Nothing is held for
//! other agents, which keep stderr out of the conversation themselves.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::fd::{AsRawFd, FromRawFd};
use std::path::PathBuf;

/// The argument the installer adds to a Gemini CLI hook command.
pub use crate::install::gemini::AGENT_ARG as GEMINI_ARG;

/// Stderr redirected into a temporary file until [`Held::release`].
pub struct Held {
    file: File,
    saved: File,
}

/// Whether the hook's arguments say it runs under Gemini CLI; the argument is removed.
pub fn wants_hold(args: &mut Vec<String>) -> bool {
    let before = args.len();
    args.retain(|a| a != GEMINI_ARG);
    args.len() != before
}

/// Redirect stderr into a temporary file; `None` (stderr untouched) when that fails.
pub fn hold() -> Option<Held> {
    let dir = std::env::temp_dir();
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let path = dir.join(format!("cm-hook-stderr-{}-{stamp}", std::process::id()));
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)
        .ok()?;
    let _ = std::fs::remove_file(&path);
    // SAFETY: dup and dup2 on descriptors this process owns; the saved copy is owned by the
    // returned File and closed with it.
    unsafe {
        let saved = libc::dup(2);
        if saved < 0 {
            return None;
        }
        if libc::dup2(file.as_raw_fd(), 2) < 0 {
            libc::close(saved);
            return None;
        }
        Some(Held {
            file,
            saved: File::from_raw_fd(saved),
        })
    }
}

impl Held {
    /// Put stderr back; what was held goes to the log (exit 0) or to the real stderr.
    pub fn release(mut self, hook: &str, code: i32) {
        let _ = std::io::stderr().flush();
        // SAFETY: restores the descriptor saved by `hold`.
        unsafe {
            libc::dup2(self.saved.as_raw_fd(), 2);
        }
        let mut held = Vec::new();
        if self.file.seek(SeekFrom::Start(0)).is_err()
            || self.file.read_to_end(&mut held).is_err()
            || held.is_empty()
        {
            return;
        }
        if code != 0 {
            let _ = self.saved.write_all(&held);
            return;
        }
        let logged = log_path().and_then(|path| {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).ok()?;
            }
            let mut log = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .ok()?;
            let mut text = format!("{} cm hook {hook} (gemini):\n", crate::clock::now_rfc3339());
            text.push_str(&String::from_utf8_lossy(&held));
            if !text.ends_with('\n') {
                text.push('\n');
            }
            log.write_all(text.as_bytes()).ok()
        });
        // A log that cannot be written loses the lines; they must not reach the user's screen.
        let _ = logged;
    }
}

/// `$CM_HOOK_LOG`, else `<data dir>/logs/hooks.log`.
pub fn log_path() -> Option<PathBuf> {
    match std::env::var_os("CM_HOOK_LOG").filter(|v| !v.is_empty()) {
        Some(p) => Some(PathBuf::from(p)),
        None => Some(crate::paths::data_dir().join("logs").join("hooks.log")),
    }
}
