//! One error type for the whole program.
//!
//! Every failure carries a stable machine code (`RULE_NOT_FOUND`), a message saying what went
//! wrong, a hint saying what to do, and one of the documented exit codes. The CLI turns it into
//! either the JSON error object or a human message in exactly one place (`output`).

use std::fmt;

/// The documented exit codes. Scripts depend on these numbers; never renumber them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitCode {
    Internal = 1,
    Usage = 2,
    Config = 3,
    Filesystem = 4,
    Network = 5,
    SessionIndex = 6,
    Llm = 7,
}

#[derive(Debug, Clone)]
pub struct CmError {
    pub code: &'static str,
    pub message: String,
    pub hint: Option<String>,
    pub exit: ExitCode,
    pub retryable: bool,
}

pub type Result<T> = std::result::Result<T, CmError>;

impl CmError {
    pub fn new(code: &'static str, exit: ExitCode, message: impl Into<String>) -> Self {
        CmError {
            code,
            message: message.into(),
            hint: None,
            exit,
            retryable: false,
        }
    }

    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    pub fn retryable(mut self) -> Self {
        self.retryable = true;
        self
    }

    /// Bad input from the user: a flag, an argument, a file they pointed at.
    pub fn usage(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(code, ExitCode::Usage, message)
    }

    pub fn config(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(code, ExitCode::Config, message)
    }

    pub fn fs(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(code, ExitCode::Filesystem, message)
    }

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

    pub fn exit_code(&self) -> i32 {
        self.exit as i32
    }
}

impl fmt::Display for CmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for CmError {}
