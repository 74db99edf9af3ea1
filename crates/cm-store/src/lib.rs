//! cm-store: the embedded SQLite store, the only crate that opens the database.
//!
//! One file, `<data dir>/cm.db`, in WAL mode with a busy timeout so many hook processes and CLI
//! commands can read and write at once. Writers take `BEGIN IMMEDIATE` (see [`Store::write`]),
//! which serialises read-modify-write cycles without lost updates. The schema is versioned with
//! `PRAGMA user_version`; [`Store::open`] (CLI only) applies pending migrations, while hooks use
//! [`Store::open_readonly`], which never migrates and never creates anything.
//!
//! A file that is not a database, or a database that is not ours (its `application_id` differs),
//! is refused with an error and left untouched.

#![deny(missing_docs)]

pub mod deadline;
pub mod disk;
mod files;
pub mod integrity;
pub mod migrations;
mod resident;
mod tune;

pub use resident::MMAP_BYTES;
pub use tune::STATEMENT_CACHE;
use tune::tune;
pub mod statistics;

use cm_base::error::{CmError, ExitCode, Result};
use rusqlite::{Connection, OpenFlags, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// "cm01": marks a database as ours, so a foreign SQLite file is never migrated.
pub const APPLICATION_ID: i64 = 0x636d_3031;
const BUSY_TIMEOUT: Duration = Duration::from_secs(15);
/// WAL size past which a writer folds it back into the database (see
/// [`Store::truncate_wal_if_large`]).
pub const WAL_TRUNCATE_BYTES: u64 = 1 << 20;
/// An open connection to the store and the file it is on. Domain crates run their own statements on `conn`; nothing else opens the database.
pub struct Store {
    /// The SQLite connection (WAL, busy timeout, tuned statement cache).
    pub conn: Connection,
    /// The database file.
    pub path: PathBuf,
}

impl Store {
    /// Open (creating if needed) the database at the default location and migrate it.
    pub fn open_default() -> Result<Store> {
        Self::open(&cm_base::paths::db_path())
    }

    /// Open (creating if needed) the database at `path` and apply pending migrations.
    pub fn open(path: &Path) -> Result<Store> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            cm_base::private::create_dir(dir)
                .map_err(|e| CmError::io(dir, "create data directory", &e))?;
        }
        files::prepare(path)?;
        let conn = Connection::open(path).map_err(|e| map_err(e, path))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| map_err(e, path))?;
        tune(&conn, path)?;
        // Identity first: switching to WAL rewrites the file header, and a file that is not
        // ours must be left byte-for-byte untouched.
        check_identity(&conn, path)?;
        configure(&conn, path)?;
        let store = Store {
            conn,
            path: path.to_path_buf(),
        };
        let fresh = migrations::migrate(&store)?;
        files::tighten(path);
        if fresh {
            // A new store is trivially sound; the record also marks that a store lived here,
            // so a later empty file is known for a truncated store ([`files::prepare`]).
            integrity::record(&store, true);
        } else {
            integrity::verify_if_changed(&store)?;
        }
        Ok(store)
    }

    /// Open an existing, fully migrated database read-only (hooks). `Ok(None)` when there is no
    /// database yet or its schema is not the one this binary knows.
    pub fn open_readonly(path: &Path) -> Result<Option<Store>> {
        Self::open_readonly_with(path, BUSY_TIMEOUT)
    }

    /// [`Store::open_readonly`] for work due at `at`: opening waits on a lock for no longer than
    /// the time left, and every statement run later is stopped at the deadline ([`deadline`]).
    pub fn open_readonly_until(path: &Path, at: std::time::Instant) -> Result<Option<Store>> {
        let left = at.saturating_duration_since(std::time::Instant::now());
        let Some(mut store) = Self::open_readonly_with(path, left.max(Duration::from_millis(1)))?
        else {
            return Ok(None);
        };
        deadline::install(&mut store.conn, at).map_err(|e| map_err(e, path))?;
        Ok(Some(store))
    }

    fn open_readonly_with(path: &Path, busy: Duration) -> Result<Option<Store>> {
        if !path.is_file() {
            return Ok(None);
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(|e| map_err(e, path))?;
        conn.busy_timeout(busy).map_err(|e| map_err(e, path))?;
        tune(&conn, path)?;
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
    /// A write that fails for lack of space is rolled back and its frames are cleared from the
    /// WAL ([`Store::reclaim_wal`]), so the disk is left as the last commit left it.
    pub fn write<T>(&self, f: impl FnOnce(&rusqlite::Transaction) -> Result<T>) -> Result<T> {
        let tx = begin_immediate(&self.conn, &self.path)?;
        let result = match f(&tx) {
            Ok(value) => tx
                .commit()
                .map(|_| value)
                .map_err(|e| map_err(e, &self.path)),
            Err(e) => {
                drop(tx); // rolls back before the WAL is reclaimed below
                Err(e)
            }
        };
        match result {
            Ok(value) => {
                self.truncate_wal_if_large();
                Ok(value)
            }
            Err(e) => {
                if matches!(e.code, "DISK_FULL" | "FILE_TOO_LARGE" | "IO_ERROR") {
                    self.reclaim_wal();
                }
                Err(e)
            }
        }
    }

    /// The size of the write-ahead log beside the store (0 when there is none).
    pub fn wal_bytes(&self) -> u64 {
        let mut wal = self.path.clone().into_os_string();
        wal.push("-wal");
        std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0)
    }

    /// Fold the WAL back into the database once it passes [`WAL_TRUNCATE_BYTES`].
    ///
    /// Each CLI command is a short-lived process, and the first connection to open a WAL
    /// database rebuilds its index from the whole WAL file; a WAL that only ever grows would make
    /// every command slower and make each automatic checkpoint copy it all again. A TRUNCATE
    /// checkpoint empties it. It gives up quickly when other processes are reading (the next
    /// writer tries again): nothing waits on it.
    pub fn truncate_wal_if_large(&self) {
        if self.conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(true) {
            return;
        }
        let mut wal = self.path.clone().into_os_string();
        wal.push("-wal");
        let large = std::fs::metadata(&wal).is_ok_and(|m| m.len() > WAL_TRUNCATE_BYTES);
        if !large {
            return;
        }
        let before = integrity::stamp(self);
        let _ = self.conn.busy_timeout(Duration::from_millis(100));
        let _ = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        let _ = self.conn.busy_timeout(BUSY_TIMEOUT);
        integrity::follow(self, before);
    }

    /// A SQLite failure on this store as a user-facing error (busy, full disk, corrupt file get their own codes).
    pub fn map_err(&self, e: rusqlite::Error) -> CmError {
        map_err(e, &self.path)
    }
}

/// A store is used where a connection is expected: domain functions take `&Connection`, so an
/// adapter passes its `&Store` and a writer its transaction, and neither reaches for the field.
impl std::ops::Deref for Store {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        &self.conn
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        self.truncate_wal_if_large();
    }
}

fn configure(conn: &Connection, path: &Path) -> Result<()> {
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
    // mmap: whole-playbook reads (list, stats) page the file in without a syscall per page.
    conn.execute_batch(&format!(
        "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA mmap_size={MMAP_BYTES};"
    ))
    .map_err(|e| map_err(e, path))?;
    // Every CLI command is a short-lived process. By default the last connection to close
    // checkpoints and deletes the WAL (four fsyncs), which would dominate `cm mark`. Keep the WAL
    // instead; writers fold it back once it passes 1 MiB (`truncate_wal_if_large`), and so
    // does dropping the store, for writers that bypass `Store::write`.
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
        true,
    )
    .map_err(|e| map_err(e, path))?;
    Ok(())
}

/// Refuse databases that are not ours. A brand-new (empty) file gets our application id.
///
/// The id and the table count are read in one statement (one snapshot), and an empty file is
/// claimed inside a write transaction that checks again, so processes opening a fresh store at
/// the same time never mistake each other's freshly created tables for a foreign database.
fn check_identity(conn: &Connection, path: &Path) -> Result<()> {
    let (app, tables) = identity(conn, path)?;
    if app == APPLICATION_ID {
        return Ok(());
    }
    if app != 0 || tables > 0 {
        return Err(foreign(path));
    }
    let tx = begin_immediate(conn, path)?;
    let (app, tables) = identity(&tx, path)?;
    if app == 0 && tables == 0 {
        tx.execute_batch(&format!("PRAGMA application_id={APPLICATION_ID}"))
            .map_err(|e| map_err(e, path))?;
    } else if app != APPLICATION_ID {
        return Err(foreign(path));
    }
    tx.commit().map_err(|e| map_err(e, path))
}

fn identity(conn: &Connection, path: &Path) -> Result<(i64, i64)> {
    conn.query_row(
        "SELECT (SELECT application_id FROM pragma_application_id()), \
                (SELECT count(*) FROM sqlite_master)",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .map_err(|e| map_err(e, path))
}

fn foreign(path: &Path) -> CmError {
    CmError::new(
        "STORE_FOREIGN",
        ExitCode::Filesystem,
        format!(
            "{} is a SQLite database that does not belong to cm",
            path.display()
        ),
    )
    .hint("move it aside or set CASS_MEMORY_HOME to another directory; cm will not modify it")
}

/// `BEGIN IMMEDIATE`, retrying while another process holds the write lock.
fn begin_immediate<'c>(conn: &'c Connection, path: &Path) -> Result<rusqlite::Transaction<'c>> {
    let mut attempts = 0;
    loop {
        match rusqlite::Transaction::new_unchecked(conn, TransactionBehavior::Immediate) {
            Ok(tx) => return Ok(tx),
            Err(e) if is_busy(&e) && attempts < 20 => {
                attempts += 1;
                std::thread::sleep(Duration::from_millis(5 * attempts));
            }
            Err(e) => return Err(map_err(e, path)),
        }
    }
}

fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy) | Some(rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// The error code of a statement stopped at its deadline ([`deadline`]).
pub const INTERRUPTED: &str = "INTERRUPTED";

/// [`map_err`] for the store at its usual place: what a domain's table module uses on every
/// statement (one definition, not a copy per module).
pub fn sql_error(e: rusqlite::Error) -> CmError {
    map_err(e, &cm_base::paths::db_path())
}

/// Turn a SQLite error into one with a code, the path and a hint.
pub fn map_err(e: rusqlite::Error, path: &Path) -> CmError {
    use rusqlite::ErrorCode as C;
    let p = path.display();
    if matches!(
        e.sqlite_error_code(),
        Some(C::DiskFull) | Some(C::SystemIoFailure)
    ) && let Some(limit) = disk::at_file_size_limit(path)
    {
        return CmError::new(
            "FILE_TOO_LARGE",
            ExitCode::Filesystem,
            format!(
                "the file-size limit ({} bytes, `ulimit -f`) stopped cm writing {p}: {e}",
                limit
            ),
        )
        .hint("raise the limit (`ulimit -f unlimited`) and retry; the write was rolled back and nothing stored was lost");
    }
    // A stored text that is not UTF-8, or a column of the wrong type: the bytes on disk were
    // changed under SQLite's feet (a flipped bit in a row), not a bug in cm.
    if matches!(
        e,
        rusqlite::Error::Utf8Error(..)
            | rusqlite::Error::FromSqlConversionFailure(..)
            | rusqlite::Error::InvalidColumnType(..)
    ) {
        return corrupt_row(path, &e.to_string());
    }
    match e.sqlite_error_code() {
        Some(C::OperationInterrupted) => CmError::new(
            INTERRUPTED,
            ExitCode::Internal,
            format!("a statement on {p} was stopped at its deadline"),
        )
        .retryable(),
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
        // SQLite reports a full disk as a plain I/O error when it cannot grow its shared-memory
        // or WAL file; probe the directory so the user gets the real cause.
        Some(C::SystemIoFailure) if disk_full_at(path) => CmError::new(
            "DISK_FULL",
            ExitCode::Filesystem,
            format!("disk full while using {p}: {e}"),
        )
        .hint(
            "free some disk space and retry; the write was rolled back and nothing stored was lost",
        )
        .retryable(),
        Some(C::SystemIoFailure) => CmError::new(
            "IO_ERROR",
            ExitCode::Filesystem,
            format!("I/O error on the store {p}: {e}"),
        )
        .hint("check the disk and the data directory; nothing stored was changed by this command"),
        _ => CmError::internal(format!("store error on {p}: {e}")),
    }
}

/// A row of the store at `path` that cannot be read back as it was written.
pub fn corrupt_row(path: &Path, detail: &str) -> CmError {
    CmError::new(
        "STORE_CORRUPT",
        ExitCode::Filesystem,
        format!("{} is corrupt: a stored row cannot be read ({detail})", path.display()),
    )
    .hint("restore it from a backup, or move it aside and run `cm init` (cm never rewrites it); `cm doctor` checks the whole store")
}

/// Whether the file system holding `path` has no room left: try to write and sync a small probe
/// file beside it.
fn disk_full_at(path: &Path) -> bool {
    use std::io::Write;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let probe = dir.join(format!(".cm-space-probe-{}", std::process::id()));
    let full = match std::fs::File::create(&probe) {
        Ok(mut f) => f
            .write_all(&[0u8; 64 * 1024])
            .and_then(|_| f.sync_all())
            .is_err_and(|e| e.kind() == std::io::ErrorKind::StorageFull),
        Err(e) => e.kind() == std::io::ErrorKind::StorageFull,
    };
    let _ = std::fs::remove_file(&probe);
    full
}
