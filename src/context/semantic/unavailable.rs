//! Why the semantic pass has nothing to add this time. It is never an error of the command:
//! the lexical result stands and `degraded.semantic` carries this reason.

use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum Unavailable {
    /// The URL cannot name an endpoint (checked before any connection).
    BadUrl(String),
    /// The endpoint could not be reached, or answered with an error or without embeddings.
    Endpoint(String),
    /// The stored embeddings could not be read or written.
    Store(String),
}

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unavailable::BadUrl(m) | Unavailable::Endpoint(m) | Unavailable::Store(m) => {
                f.write_str(m)
            }
        }
    }
}

impl From<rusqlite::Error> for Unavailable {
    fn from(e: rusqlite::Error) -> Self {
        Unavailable::Store(e.to_string())
    }
}

impl From<crate::error::CmError> for Unavailable {
    fn from(e: crate::error::CmError) -> Self {
        Unavailable::Store(e.message)
    }
}
