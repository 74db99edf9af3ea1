//! One error type for the whole program.
//!
//! Every failure carries a stable machine code (`RULE_NOT_FOUND`), a message saying what went
//! wrong, a hint saying what to do, and one of the documented exit codes. The CLI turns it into
//! either the JSON error object or a human message in exactly one place (`output`).

use std::fmt;

/// The class of a failure. Each class exits with one of the documented exit codes, the table
/// the original tool's users and scripts already branch on (0 success, 1 error, 2 config,
/// 3 validation, 4 LLM, 5 no data); [`ExitCode::number`] is that mapping, in one place. The
/// classes are finer than the table (a store or filesystem failure is a plain error) so that a
/// code's class still says what kind of thing went wrong. Scripts depend on the numbers; never
/// renumber them. Hooks do not use these: their exit codes are the agents' hook protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitCode {
    /// A bug, or a failure nothing else describes: exit 1.
    Internal,
    /// Bad input: a flag, an argument, a file the user pointed at: exit 3 (validation).
    Usage,
    /// A configuration file cm or the user wrote is wrong: exit 2.
    Config,
    /// The store or the filesystem failed: exit 1.
    Filesystem,
    /// A network failure outside the LLM (`cm serve` cannot listen): exit 1.
    Network,
    /// No session or nothing indexed to answer from: exit 5 (no data).
    SessionIndex,
    /// Nothing to work from (no store of the original tool to import): exit 5 (no data).
    NoData,
    /// The LLM (or the network on the way to it) failed: exit 4.
    Llm,
}

impl ExitCode {
    /// The number the process exits with.
    pub const fn number(self) -> i32 {
        match self {
            ExitCode::Internal | ExitCode::Filesystem | ExitCode::Network => 1,
            ExitCode::Config => 2,
            ExitCode::Usage => 3,
            ExitCode::Llm => 4,
            ExitCode::SessionIndex | ExitCode::NoData => 5,
        }
    }
}

/// A failure as the user sees it: code, message, hint and exit code.
#[derive(Debug, Clone)]
pub struct CmError {
    /// The stable machine code (`RULE_NOT_FOUND`); scripts branch on it.
    pub code: &'static str,
    /// What went wrong.
    pub message: String,
    /// What to do about it, when there is something to do.
    pub hint: Option<String>,
    /// The exit-code class.
    pub exit: ExitCode,
    /// Whether the same call may succeed if retried (a busy store, a full disk freed).
    pub retryable: bool,
}

/// A result whose error is a [`CmError`].
pub type Result<T> = std::result::Result<T, CmError>;

impl CmError {
    /// An error with its code, exit class and message, no hint.
    pub fn new(code: &'static str, exit: ExitCode, message: impl Into<String>) -> Self {
        CmError {
            code,
            message: message.into(),
            hint: None,
            exit,
            retryable: false,
        }
    }

    /// The same error with a hint.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// The same error marked retryable.
    pub fn retryable(mut self) -> Self {
        self.retryable = true;
        self
    }

    /// Bad input from the user: a flag, an argument, a file they pointed at.
    pub fn usage(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(code, ExitCode::Usage, message)
    }

    /// A configuration file is wrong (exit 2).
    pub fn config(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(code, ExitCode::Config, message)
    }

    /// The store or the filesystem failed (exit 1).
    pub fn fs(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(code, ExitCode::Filesystem, message)
    }

    /// A bug or an unclassified failure (`INTERNAL`, exit 1).
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new("INTERNAL", ExitCode::Internal, message)
    }

    /// An I/O failure on `path`, classified so that a read-only directory or a full disk get
    /// their own hint instead of a generic "error".
    pub fn io(path: &std::path::Path, action: &str, err: &std::io::Error) -> Self {
        use std::io::ErrorKind;
        let base = format!("cannot {action} {}: {err}", path.display());
        match err.kind() {
            ErrorKind::PermissionDenied | ErrorKind::ReadOnlyFilesystem => {
                Self::fs("PERMISSION_DENIED", base).hint(
                    "check the permissions of the data directory, or point CASS_MEMORY_HOME at a writable directory",
                )
            }
            ErrorKind::StorageFull | ErrorKind::QuotaExceeded => Self::fs("DISK_FULL", base)
                .hint("free some disk space and retry; nothing already stored was changed")
                .retryable(),
            // A path that is not there is one the user named (a file to read, a session):
            // bad input, like every other argument error.
            ErrorKind::NotFound => Self::usage("FILE_NOT_FOUND", base).hint("check the path"),
            _ => Self::fs("IO_ERROR", base),
        }
    }

    /// The number the process exits with.
    pub fn exit_code(&self) -> i32 {
        self.exit.number()
    }
}

impl fmt::Display for CmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for CmError {}
