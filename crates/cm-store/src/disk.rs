//! When the disk (or the file-size limit) runs out under the store.
//!
//! SQLite rolls a failed transaction back, but in WAL mode the frames it had already written
//! stay in the `-wal` file: a long write that fills the disk leaves megabytes of dead frames
//! that keep the disk full. A TRUNCATE checkpoint empties the WAL, but only once every committed
//! frame in it has been copied into the database, which itself needs room. So:
//!
//! - [`Store::reclaim_wal`] runs after a failed write: with no committed frames waiting, the
//!   checkpoint has nothing to copy and the WAL shrinks to nothing, leaving the disk as the last
//!   commit left it.
//! - [`Store::checkpoint_if_tight`] runs before each of a bulk writer's transactions: when free
//!   space is short (or a file-size limit is set) it folds the WAL back first, so that a failure
//!   finds no committed frames waiting, and the writer keeps its transactions small, so a failed
//!   one has written little. If that checkpoint itself finds no room, the writer stops there,
//!   before writing frames it could not commit. With room to spare it costs one `statvfs`.
//!
//! A file-size limit (`ulimit -f`) is reported as such: SIGXFSZ is ignored at start (see
//! `main.rs`), so the write fails with EFBIG instead of killing the process.

use super::Store;
use std::path::Path;
use std::time::Duration;

/// Below this much free space a bulk writer checkpoints before each transaction.
const TIGHT_BYTES: u64 = 256 << 20;

impl Store {
    /// Empty the WAL after a failed write (best effort; never waits long on readers).
    pub fn reclaim_wal(&self) {
        let _ = self.checkpoint_truncate();
    }

    fn checkpoint_truncate(&self) -> rusqlite::Result<()> {
        if self.conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(true) {
            return Ok(());
        }
        let before = super::integrity::stamp(self);
        let _ = self.conn.busy_timeout(Duration::from_millis(200));
        let result = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        let _ = self.conn.busy_timeout(super::BUSY_TIMEOUT);
        super::integrity::follow(self, before);
        result
    }

    /// When space is short, fold the WAL back into the database before a bulk writer's next
    /// transaction, so that a failure of that transaction finds nothing committed in the WAL to
    /// keep it from being emptied. Returns whether space is short (the caller then keeps its
    /// transactions small). A checkpoint that fails for lack of room is the error: the caller
    /// stops before writing more.
    pub fn checkpoint_if_tight(&self) -> cm_base::error::Result<bool> {
        if !is_tight(&self.path) {
            return Ok(false);
        }
        if wal_len(&self.path) > 0 {
            self.checkpoint_truncate().map_err(|e| self.map_err(e))?;
        }
        Ok(true)
    }
}

fn wal_len(db: &Path) -> u64 {
    let mut wal = db.as_os_str().to_owned();
    wal.push("-wal");
    std::fs::metadata(wal).map(|m| m.len()).unwrap_or(0)
}

/// Free space under [`TIGHT_BYTES`] where `db` lives, or a file-size limit in force.
pub fn is_tight(db: &Path) -> bool {
    if file_size_limit().is_some() {
        return true;
    }
    free_bytes(db).is_some_and(|free| free < TIGHT_BYTES)
}

/// Bytes available to this user on the file system holding `path`.
pub fn free_bytes(path: &Path) -> Option<u64> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty())?;
    let c = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()).ok()?;
    // SAFETY: a valid NUL-terminated path and a zeroed out-parameter of the right type.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    Some(st.f_bavail as u64 * st.f_frsize as u64)
}

/// The soft file-size limit (`ulimit -f`), when one is set.
pub fn file_size_limit() -> Option<u64> {
    // SAFETY: a zeroed out-parameter of the right type.
    let mut lim: libc::rlimit = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrlimit(libc::RLIMIT_FSIZE, &mut lim) } != 0 {
        return None;
    }
    (lim.rlim_cur != libc::RLIM_INFINITY).then_some(lim.rlim_cur as u64)
}

/// Whether a write to the store at `db` failed for the file-size limit: one of its files is
/// within a page of it.
pub fn at_file_size_limit(db: &Path) -> Option<u64> {
    let limit = file_size_limit()?;
    let near = |suffix: &str| {
        let mut p = db.as_os_str().to_owned();
        p.push(suffix);
        std::fs::metadata(p).is_ok_and(|m| m.len() + (64 << 10) >= limit)
    };
    (near("") || near("-wal") || near("-journal")).then_some(limit)
}
