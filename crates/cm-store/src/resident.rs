//! How much of the store a long-running process keeps in memory.
//!
//! Every connection maps the file in ([`MMAP_BYTES`]): a page read costs no system call and no
//! copy. A command line process lives for one command, so what it mapped is gone when it exits.
//! A server lives for days, and every page it ever touched stays counted in its resident size
//! while the file is mapped; a search touches a different part of a 200 MB index for each task,
//! so a busy server's resident size climbs towards the size of the file (page cache shared with
//! every process, but counted). An idle server unmaps the file and drops its page cache
//! ([`Store::release_memory`]) and maps it again when work comes ([`Store::map_file`]).

use super::Store;
use cm_base::error::Result;

/// How much of the file a connection maps.
pub const MMAP_BYTES: i64 = 256 << 20;

impl Store {
    /// Map the file in (`on`), or unmap it. Unmapping waits for no one: a connection with no
    /// statement running holds no page.
    pub fn map_file(&self, on: bool) -> Result<()> {
        let bytes = if on { MMAP_BYTES } else { 0 };
        self.conn
            .execute_batch(&format!("PRAGMA mmap_size={bytes};"))
            .map_err(|e| self.map_err(e))
    }

    /// Give back what the connection holds and can do without: the file's mapping and every
    /// cached page not in use (`PRAGMA shrink_memory`). Map it again with [`Store::map_file`].
    pub fn release_memory(&self) {
        let _ = self.map_file(false);
        let _ = self.conn.execute_batch("PRAGMA shrink_memory;");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mmap_size(store: &Store) -> i64 {
        store
            .conn
            .query_row("PRAGMA mmap_size", [], |r| r.get(0))
            .unwrap()
    }

    #[test]
    fn a_released_store_unmaps_and_maps_again_and_still_answers() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("cm.db")).unwrap();
        assert_eq!(mmap_size(&store), MMAP_BYTES);
        let tables = |s: &Store| -> i64 {
            s.conn
                .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
                .unwrap()
        };
        let before = tables(&store);
        store.release_memory();
        assert_eq!(mmap_size(&store), 0);
        assert_eq!(tables(&store), before, "read through the page cache");
        store.map_file(true).unwrap();
        assert_eq!(mmap_size(&store), MMAP_BYTES);
        assert_eq!(tables(&store), before);
    }
}
