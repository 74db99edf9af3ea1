//! Deadlines for read-only work on the store (the context hooks).
//!
//! An agent waits for its prompt and session-start hooks before it can act, so their answer is
//! due within a budget whatever the store holds. SQLite checks a progress handler every
//! [`CHECK_EVERY`] virtual-machine steps (tens of microseconds); once the deadline has passed it
//! stops the running statement with `SQLITE_INTERRUPT`, which the callers turn into "cut"
//! (answer with what is ready, say on stderr what was left out). The busy timeout is held to the
//! same deadline, so a store locked by a crashed writer costs the budget, not 15 seconds.

use rusqlite::Connection;
use std::time::{Duration, Instant};

/// VM steps between two checks of the clock.
pub const CHECK_EVERY: i32 = 1_000;

/// Interrupt any statement on `conn` that is still running at `at`.
pub fn install(conn: &mut Connection, at: Instant) -> rusqlite::Result<()> {
    conn.busy_timeout(
        at.saturating_duration_since(Instant::now())
            .max(Duration::from_millis(1)),
    )?;
    conn.progress_handler(CHECK_EVERY, Some(move || Instant::now() >= at))
}

/// Take a deadline [`install`]ed on `conn` off again (a connection kept for later work).
pub fn clear(conn: &mut Connection) -> rusqlite::Result<()> {
    conn.progress_handler(CHECK_EVERY, None::<fn() -> bool>)?;
    conn.busy_timeout(super::BUSY_TIMEOUT)
}

/// Whether an error is a statement stopped at its deadline.
pub fn interrupted(e: &rusqlite::Error) -> bool {
    e.sqlite_error_code() == Some(rusqlite::ErrorCode::OperationInterrupted)
}
