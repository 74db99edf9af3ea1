//! The embedded SQLite store: the only module that opens the database.
//!
//! One file, `<data dir>/cm.db`, in WAL mode with a busy timeout so many hook processes and CLI
//! commands can read and write at once. Writers take `BEGIN IMMEDIATE` (see [`Store::write`]),
//! which serialises read-modify-write cycles without lost updates. The schema is versioned with
//! `PRAGMA user_version`; [`Store::open`] (CLI only) applies pending migrations, while hooks use
//! [`Store::open_readonly`], which never migrates and never creates anything.
//!
//! A file that is not a database, or a database that is not ours (its `application_id` differs),
//! is refused with an error and left untouched.

pub mod bullets;
pub mod migrations;
pub mod outcomes;

use crate::error::{CmError, ExitCode, Result};
use rusqlite::{Connection, OpenFlags, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// "cm01": marks a database as ours, so a foreign SQLite file is never migrated.
pub const APPLICATION_ID: i64 = 0x636d_3031;
const BUSY_TIMEOUT: Duration = Duration::from_secs(15);

pub struct Store {
    pub conn: Connection,
    pub path: PathBuf,
}

impl Store {
    /// Open (creating if needed) the database at the default location and migrate it.
    pub fn open_default() -> Result<Store> {
        Self::open(&crate::paths::db_path())
    }

    /// Open (creating if needed) the database at `path` and apply pending migrations.
    pub fn open(path: &Path) -> Result<Store> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| CmError::io(dir, "create data directory", &e))?;
        }
        let conn = Connection::open(path).map_err(|e| map_err(e, path))?;
        configure(&conn, path)?;
        check_identity(&conn, path)?;
        let store = Store {
            conn,
            path: path.to_path_buf(),
        };
        migrations::migrate(&store)?;
        Ok(store)
    }

    /// Open an existing, fully migrated database read-only (hooks). `Ok(None)` when there is no
    /// database yet or its schema is not the one this binary knows.
    pub fn open_readonly(path: &Path) -> Result<Option<Store>> {
        if !path.is_file() {
            return Ok(None);
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(|e| map_err(e, path))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| map_err(e, path))?;
        let app: i64 = conn
            .query_row("PRAGMA application_id", [], |r| r.get(0))
            .map_err(|e| map_err(e, path))?;
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| map_err(e, path))?;
        if app != APPLICATION_ID || version != migrations::latest_version() {
            return Ok(None);
        }
        Ok(Some(Store {
            conn,
            path: path.to_path_buf(),
        }))
    }

    /// Run `f` inside a `BEGIN IMMEDIATE` transaction: the write lock is taken up front, so two
    /// processes doing read-modify-write never interleave. Busy errors are retried.
    pub fn write<T>(&self, f: impl FnOnce(&rusqlite::Transaction) -> Result<T>) -> Result<T> {
        let mut attempts = 0;
        let tx = loop {
            match rusqlite::Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate) {
                Ok(tx) => break tx,
                Err(e) if is_busy(&e) && attempts < 20 => {
                    attempts += 1;
                    std::thread::sleep(Duration::from_millis(5 * attempts));
                }
                Err(e) => return Err(map_err(e, &self.path)),
            }
        };
        let value = f(&tx)?;
        tx.commit().map_err(|e| map_err(e, &self.path))?;
        Ok(value)
    }

    pub fn map_err(&self, e: rusqlite::Error) -> CmError {
        map_err(e, &self.path)
    }
}

fn configure(conn: &Connection, path: &Path) -> Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)
        .map_err(|e| map_err(e, path))?;
    // journal_mode returns a row; query it rather than execute.
    let mode: String = conn
        .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
        .map_err(|e| map_err(e, path))?;
    if !mode.eq_ignore_ascii_case("wal") {
        eprintln!(
            "cm: warning: {} is not in WAL mode ({mode}); concurrent writers will wait longer",
            path.display()
        );
    }
    conn.execute_batch("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;")
        .map_err(|e| map_err(e, path))?;
    Ok(())
}

/// Refuse databases that are not ours. A brand-new file gets our application id.
fn check_identity(conn: &Connection, path: &Path) -> Result<()> {
    let app: i64 = conn
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .map_err(|e| map_err(e, path))?;
    if app == APPLICATION_ID {
        return Ok(());
    }
    let tables: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
        .map_err(|e| map_err(e, path))?;
    if app != 0 || tables > 0 {
        return Err(CmError::new(
            "STORE_FOREIGN",
            ExitCode::Filesystem,
            format!(
                "{} is a SQLite database that does not belong to cm",
                path.display()
            ),
        )
        .hint(
            "move it aside or set CASS_MEMORY_HOME to another directory; cm will not modify it",
        ));
    }
    conn.execute_batch(&format!("PRAGMA application_id={APPLICATION_ID}"))
        .map_err(|e| map_err(e, path))
}

fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy) | Some(rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// Turn a SQLite error into one with a code, the path and a hint.
pub fn map_err(e: rusqlite::Error, path: &Path) -> CmError {
    use rusqlite::ErrorCode as C;
    let p = path.display();
    match e.sqlite_error_code() {
        Some(C::NotADatabase) => CmError::new(
            "STORE_CORRUPT",
            ExitCode::Filesystem,
            format!("{p} is not a cm database (or it is corrupt): {e}"),
        )
        .hint(
            "move the file aside (cm never overwrites it) and run `cm init` to start a new store",
        ),
        Some(C::DatabaseCorrupt) => CmError::new(
            "STORE_CORRUPT",
            ExitCode::Filesystem,
            format!("{p} is corrupt: {e}"),
        )
        .hint("restore it from a backup or move it aside and run `cm init`"),
        Some(C::DiskFull) => CmError::new(
            "DISK_FULL",
            ExitCode::Filesystem,
            format!("disk full while writing {p}"),
        )
        .hint(
            "free some disk space and retry; the write was rolled back and nothing stored was lost",
        )
        .retryable(),
        Some(C::ReadOnly) | Some(C::CannotOpen) | Some(C::PermissionDenied) => CmError::new(
            "PERMISSION_DENIED",
            ExitCode::Filesystem,
            format!("cannot write the store {p}: {e}"),
        )
        .hint("make the data directory writable, or set CASS_MEMORY_HOME to a writable directory"),
        Some(C::DatabaseBusy) | Some(C::DatabaseLocked) => CmError::new(
            "STORE_BUSY",
            ExitCode::Filesystem,
            format!("the store {p} stayed locked: {e}"),
        )
        .hint("another cm process holds a long write; retry in a moment")
        .retryable(),
        _ => CmError::internal(format!("store error on {p}: {e}")),
    }
}
