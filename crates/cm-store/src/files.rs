//! The store's files on disk: created private, and an empty one is not taken for a new store.
//!
//! `cm.db` and the `-wal`/`-shm` files SQLite keeps beside it hold every indexed transcript, so
//! they are 0600 (SQLite gives the `-wal` and `-shm` files the mode of the database file); an
//! older store with wider modes is tightened on open when it is ours ([`cm_base::private`]).
//!
//! SQLite takes an empty file for a new database and would build a fresh, empty store in it.
//! An empty `cm.db` with cm's own files beside it (the `-wal`/`-shm` files, which cm keeps after
//! every run, or the `.cm.db.verified` record written when the store was created) is a store
//! that was truncated (a failed copy, a full disk, `> cm.db`): building a new one there would
//! hide the loss, so it is refused. An empty file with nothing beside it is one cm (or another
//! process creating the store at the same moment) has just created, and becomes the store.

use cm_base::error::{CmError, ExitCode, Result};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// A file beside the database: `cm.db-wal` for `"-wal"`.
fn beside(db: &Path, suffix: &str) -> PathBuf {
    let mut p = db.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

/// The record the integrity check keeps beside the database (`.cm.db.verified`).
fn record(db: &Path) -> PathBuf {
    let name = db
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "cm.db".into());
    db.with_file_name(format!(".{name}.verified"))
}

/// Before SQLite opens `db`: create it 0600 when missing, refuse it when it is a truncated store.
pub fn prepare(db: &Path) -> Result<()> {
    match std::fs::metadata(db) {
        Ok(meta) if meta.len() == 0 && meta.is_file() => {
            let traces: Vec<PathBuf> = [beside(db, "-wal"), beside(db, "-shm"), record(db)]
                .into_iter()
                .filter(|p| p.exists())
                .collect();
            if let Some(trace) = traces.first() {
                return Err(truncated(db, trace));
            }
            Ok(())
        }
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let created = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(cm_base::private::FILE_MODE)
                .open(db);
            match created {
                Ok(_) => Ok(()),
                // Another process created it first: that one is the store.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
                Err(e) => Err(CmError::io(db, "create the store", &e)),
            }
        }
        Err(e) => Err(CmError::io(db, "read", &e)),
    }
}

/// After opening: the database and its WAL files lose group and other permissions.
pub fn tighten(db: &Path) {
    for p in [db.to_path_buf(), beside(db, "-wal"), beside(db, "-shm")] {
        cm_base::private::tighten(&p);
    }
}

fn truncated(db: &Path, trace: &Path) -> CmError {
    CmError::new(
        "STORE_CORRUPT",
        ExitCode::Filesystem,
        format!(
            "{} is empty, but a cm store lived there ({} is beside it): the file was truncated",
            db.display(),
            trace.display()
        ),
    )
    .hint(format!(
        "restore {} from a backup; to start an empty store instead, remove it and the files beside it ({}-wal, {}-shm, {}) and run `cm init`",
        db.display(),
        db.display(),
        db.display(),
        record(db).display()
    ))
}
