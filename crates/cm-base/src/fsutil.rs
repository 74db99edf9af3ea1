//! Small filesystem helpers shared by every writer: atomic replace and advisory locks.
//!
//! Files other tools or people read (`.cass/playbook.yaml`, settings files, exports) are written
//! to a temporary file in the same directory, synced, then renamed over the target, so a reader
//! never sees half a file and a crash never leaves one behind.

use crate::error::{CmError, Result};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Replace `path` with `bytes` atomically. The parent directory is created if missing.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    crate::private::create_dir_all(dir).map_err(|e| CmError::io(dir, "create directory", &e))?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let tmp = dir.join(format!(
        ".{name}.tmp-{}-{}",
        std::process::id(),
        unique_suffix()
    ));
    let result = (|| {
        let mut f = crate::private::open_options(path)
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| CmError::io(&tmp, "create", &e))?;
        f.write_all(bytes)
            .map_err(|e| CmError::io(&tmp, "write", &e))?;
        f.sync_all().map_err(|e| CmError::io(&tmp, "sync", &e))?;
        // Keep the permissions of the file we replace (a settings file may be private).
        if let Ok(meta) = std::fs::metadata(path) {
            let _ = std::fs::set_permissions(&tmp, meta.permissions());
        }
        std::fs::rename(&tmp, path).map_err(|e| CmError::io(path, "replace", &e))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Replace `path` with `bytes` atomically but without waiting on the disk (no fsync): for
/// caches a hook keeps, which a crash may lose but never leaves half-written. Best effort:
/// returns whether it was written.
pub fn write_cache(path: &Path, bytes: &[u8]) -> bool {
    let Some(dir) = path.parent() else {
        return false;
    };
    if crate::private::create_dir_all(dir).is_err() {
        return false;
    }
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("cache");
    let tmp = dir.join(format!(".{name}.tmp-{}", unique_suffix()));
    let written = crate::private::open_options(path)
        .write(true)
        .create_new(true)
        .open(&tmp)
        .and_then(|mut f| f.write_all(bytes));
    if written.is_ok() && std::fs::rename(&tmp, path).is_ok() {
        return true;
    }
    let _ = std::fs::remove_file(&tmp);
    false
}

/// An exclusive advisory lock held for the guard's lifetime. Used to serialise read-modify-write
/// cycles on plain files (repo playbook, trauma lists) across processes.
pub struct FileLock {
    file: File,
    /// The lock file.
    pub path: PathBuf,
}

impl FileLock {
    /// Take the lock at `path` (created, with its directory, if missing), waiting for another holder.
    pub fn acquire(path: &Path) -> Result<FileLock> {
        if let Some(dir) = path.parent() {
            crate::private::create_dir_all(dir)
                .map_err(|e| CmError::io(dir, "create directory", &e))?;
            ignore_lock_files_in_repo(dir);
        }
        let file = crate::private::open_options(path)
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(|e| CmError::io(path, "open lock file", &e))?;
        file.lock().map_err(|e| CmError::io(path, "lock", &e))?;
        Ok(FileLock {
            file,
            path: path.to_path_buf(),
        })
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

/// A repository's `.cass/` is committed, but the lock and temporary files cm keeps beside its
/// files there are not: give it a `.gitignore` for them the first time cm locks anything in it.
fn ignore_lock_files_in_repo(dir: &Path) {
    if dir.file_name().and_then(|n| n.to_str()) != Some(".cass") {
        return;
    }
    let ignore = dir.join(".gitignore");
    if !ignore.exists() {
        let _ = std::fs::write(
            &ignore,
            "# cm's lock and temporary files\n.*.lock\n.*.tmp-*\n",
        );
    }
}

/// A short random-enough suffix: process-seeded SipHash of time, pid and a counter.
pub fn unique_suffix() -> String {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    h.write_u32(std::process::id());
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    format!("{:016x}", h.finish())
}

/// Read a whole file to a string with a path-bearing error.
pub fn read_to_string(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| CmError::io(path, "read", &e))
}
