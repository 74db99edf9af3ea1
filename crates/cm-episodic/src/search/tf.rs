//! `cm_tf(episodic_fts)`: an FTS5 auxiliary function that reports, for the current row, what
//! BM25 needs and nothing more: how often each phrase of the query occurs in each column, the
//! row's length in tokens, and the table's row and token totals.
//!
//! Why not FTS5's own `bm25()`: it computes each phrase's document frequency by walking that
//! phrase's whole posting list once per statement. For a word found in a fifth of 250,000
//! messages that walk alone costs milliseconds, and it is paid again by every statement that
//! names the word; the search needs several statements. With the raw counts, the search computes
//! the same formula itself ([`super::bm25`]) from document frequencies it has already measured
//! (exactly for rare terms, by sampling for common ones; see [`super::probe`]).
//!
//! The function is registered per connection, lazily: [`ensure`] is called before the search
//! prepares its first statement. The FTS5 API is reached the documented way (`SELECT fts5(?1)`
//! with a bound pointer of type "fts5_api_ptr").

use rusqlite::Connection;
use rusqlite::ffi;
use std::ffi::{c_int, c_void};
use std::ptr;

pub const NAME: &str = "cm_tf";

/// One row's counts, decoded from the function's blob.
#[derive(Debug, Clone, PartialEq)]
pub struct RowCounts {
    /// Tokens in the row, all columns.
    pub len: u32,
    /// Rows in the table, and tokens over all rows and columns (for the average length).
    pub rows: u64,
    pub tokens: u64,
    pub columns: usize,
    /// `counts[phrase * columns + column]`.
    pub counts: Vec<u32>,
}

impl RowCounts {
    pub fn phrases(&self) -> usize {
        self.counts.len().checked_div(self.columns).unwrap_or(0)
    }

    /// Occurrences of `phrase` in `column`.
    pub fn count(&self, phrase: usize, column: usize) -> u32 {
        self.counts
            .get(phrase * self.columns + column)
            .copied()
            .unwrap_or(0)
    }

    /// Decode the blob written by the function: u32 phrases, u32 columns, u32 row length,
    /// u64 table rows, u64 table tokens, then phrases x columns u32 counts (all little-endian).
    pub fn decode(blob: &[u8]) -> Option<RowCounts> {
        let u32_at = |at: usize| -> Option<u32> {
            Some(u32::from_le_bytes(blob.get(at..at + 4)?.try_into().ok()?))
        };
        let u64_at = |at: usize| -> Option<u64> {
            Some(u64::from_le_bytes(blob.get(at..at + 8)?.try_into().ok()?))
        };
        let phrases = u32_at(0)? as usize;
        let columns = u32_at(4)? as usize;
        let len = u32_at(8)?;
        let rows = u64_at(12)?;
        let tokens = u64_at(20)?;
        let n = phrases.checked_mul(columns)?;
        if blob.len() != HEADER + n * 4 {
            return None;
        }
        let counts = (0..n)
            .map(|i| u32_at(HEADER + i * 4))
            .collect::<Option<_>>()?;
        Some(RowCounts {
            len,
            rows,
            tokens,
            columns,
            counts,
        })
    }
}

const HEADER: usize = 28;

/// Register `cm_tf` on `conn` unless it is already there.
pub fn ensure(conn: &Connection) -> rusqlite::Result<()> {
    let known = conn
        .prepare_cached("SELECT cm_tf(episodic_fts) FROM episodic_fts WHERE 0")
        .is_ok();
    if known {
        return Ok(());
    }
    register(conn)
}

fn register(conn: &Connection) -> rusqlite::Result<()> {
    // SAFETY: `conn.handle()` is a live connection for the duration of this call; the statement
    // is finalized before returning; the API pointer FTS5 hands back lives as long as the
    // connection, and the function registered carries no user data to free.
    unsafe {
        let db = conn.handle();
        let api = fts5_api(db)?;
        let create = (*api)
            .xCreateFunction
            .ok_or_else(|| failure("FTS5 offers no xCreateFunction"))?;
        let rc = create(api, c"cm_tf".as_ptr(), ptr::null_mut(), Some(cm_tf), None);
        if rc != ffi::SQLITE_OK {
            return Err(failure(&format!(
                "registering {NAME} failed with code {rc}"
            )));
        }
    }
    Ok(())
}

unsafe fn fts5_api(db: *mut ffi::sqlite3) -> rusqlite::Result<*mut ffi::fts5_api> {
    let mut stmt: *mut ffi::sqlite3_stmt = ptr::null_mut();
    // SAFETY: caller passes a live handle; every path finalizes the statement.
    unsafe {
        let rc = ffi::sqlite3_prepare_v2(
            db,
            c"SELECT fts5(?1)".as_ptr(),
            -1,
            &mut stmt,
            ptr::null_mut(),
        );
        if rc != ffi::SQLITE_OK {
            return Err(failure("this SQLite has no FTS5"));
        }
        let mut api: *mut ffi::fts5_api = ptr::null_mut();
        ffi::sqlite3_bind_pointer(
            stmt,
            1,
            (&mut api as *mut *mut ffi::fts5_api).cast::<c_void>(),
            c"fts5_api_ptr".as_ptr(),
            None,
        );
        let rc = ffi::sqlite3_step(stmt);
        ffi::sqlite3_finalize(stmt);
        if rc == ffi::SQLITE_INTERRUPT {
            return Err(rusqlite::Error::SqliteFailure(
                ffi::Error::new(ffi::SQLITE_INTERRUPT),
                None,
            ));
        }
        if api.is_null() {
            return Err(failure("FTS5 did not hand out its API"));
        }
        Ok(api)
    }
}

fn failure(msg: &str) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(
        ffi::Error::new(ffi::SQLITE_ERROR),
        Some(format!("{NAME}: {msg}")),
    )
}

/// Rows with more phrases or columns than this are reported with a heap buffer.
const STACK_COUNTS: usize = 64;

unsafe extern "C" fn cm_tf(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    _n: c_int,
    _values: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: FTS5 calls this with a valid API table and context for the current row; every
    // index passed back to it comes from it, and the result blob is copied (SQLITE_TRANSIENT).
    unsafe {
        match row_blob(&*api, fts) {
            Ok(blob) => ffi::sqlite3_result_blob(
                ctx,
                blob.as_ptr().cast::<c_void>(),
                blob.len() as c_int,
                ffi::SQLITE_TRANSIENT(),
            ),
            Err(rc) => ffi::sqlite3_result_error_code(ctx, rc),
        }
    }
}

unsafe fn row_blob(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
) -> Result<Vec<u8>, c_int> {
    let missing = ffi::SQLITE_MISUSE;
    // SAFETY: see `cm_tf`.
    unsafe {
        let phrases = api.xPhraseCount.ok_or(missing)?(fts).max(0) as usize;
        let columns = api.xColumnCount.ok_or(missing)?(fts).max(0) as usize;
        let mut insts: c_int = 0;
        check(api.xInstCount.ok_or(missing)?(fts, &mut insts))?;
        let n = phrases * columns;
        let mut stack = [0u32; STACK_COUNTS];
        let mut heap = Vec::new();
        let counts: &mut [u32] = if n <= STACK_COUNTS {
            &mut stack[..n]
        } else {
            heap.resize(n, 0);
            &mut heap
        };
        let inst = api.xInst.ok_or(missing)?;
        for i in 0..insts {
            let (mut p, mut c, mut off) = (0, 0, 0);
            check(inst(fts, i, &mut p, &mut c, &mut off))?;
            let at = p as usize * columns + c as usize;
            if let Some(slot) = counts.get_mut(at) {
                *slot += 1;
            }
        }
        let mut len: c_int = 0;
        check(api.xColumnSize.ok_or(missing)?(fts, -1, &mut len))?;
        let mut rows: i64 = 0;
        check(api.xRowCount.ok_or(missing)?(fts, &mut rows))?;
        let mut tokens: i64 = 0;
        check(api.xColumnTotalSize.ok_or(missing)?(fts, -1, &mut tokens))?;
        let mut out = Vec::with_capacity(HEADER + n * 4);
        out.extend_from_slice(&(phrases as u32).to_le_bytes());
        out.extend_from_slice(&(columns as u32).to_le_bytes());
        out.extend_from_slice(&(len.max(0) as u32).to_le_bytes());
        out.extend_from_slice(&(rows.max(0) as u64).to_le_bytes());
        out.extend_from_slice(&(tokens.max(0) as u64).to_le_bytes());
        for c in counts.iter() {
            out.extend_from_slice(&c.to_le_bytes());
        }
        Ok(out)
    }
}

fn check(rc: c_int) -> Result<(), c_int> {
    if rc == ffi::SQLITE_OK {
        Ok(())
    } else {
        Err(rc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_rejects_truncated_blobs() {
        let mut blob = Vec::new();
        for v in [2u32, 2, 7] {
            blob.extend_from_slice(&v.to_le_bytes());
        }
        blob.extend_from_slice(&10u64.to_le_bytes());
        blob.extend_from_slice(&70u64.to_le_bytes());
        for v in [1u32, 0, 0, 3] {
            blob.extend_from_slice(&v.to_le_bytes());
        }
        let rc = RowCounts::decode(&blob).unwrap();
        assert_eq!((rc.len, rc.rows, rc.tokens, rc.phrases()), (7, 10, 70, 2));
        assert_eq!((rc.count(0, 0), rc.count(1, 1), rc.count(5, 0)), (1, 3, 0));
        assert!(RowCounts::decode(&blob[..blob.len() - 1]).is_none());
        assert!(RowCounts::decode(&[]).is_none());
    }
}
