//! Catching a corrupt database that no query happens to touch.
//!
//! SQLite reports corruption only on the pages a statement reads, so a store with damaged pages
//! in the middle answers `cm history index` (which, with nothing new, reads only the file table)
//! with success. A full `PRAGMA quick_check` reads every page: about 30 ms for a 23 MB store,
//! far too much for every run. So the bulk writer checks when the database file is not as cm
//! last left it: its device, inode, size and mtime are recorded after each run
//! (`.cm.db.verified` beside it), and a check runs when they differ (something rewrote
//! the file: a crash mid-checkpoint, another program, a restore) or the last check is a week
//! old. In WAL mode cm's own commits go to the `-wal` file, so the main file changes only at
//! checkpoints, and the check is rare. `cm doctor` always checks.

use super::Store;
use cm_base::error::{CmError, ExitCode, Result};
use cm_base::untrusted::Stamp;
use std::path::PathBuf;

/// Re-check at least this often even when the file looks untouched.
const MAX_AGE_SECS: i64 = 7 * 24 * 3600;

/// Beside the database (`.cm.db.verified`): it belongs to that file, wherever it lives.
fn record_path(store: &Store) -> PathBuf {
    let name = store
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "cm.db".into());
    store.path.with_file_name(format!(".{name}.verified"))
}

/// The identity and version of the database file now, when it can be read.
pub fn stamp(store: &Store) -> Option<Stamp> {
    std::fs::metadata(&store.path).ok().map(|m| Stamp::of(&m))
}

fn encode(s: Stamp, at: &str) -> String {
    format!("{} {} {} {} {at}\n", s.dev, s.ino, s.size, s.mtime_ns)
}

/// Run [`check`] unless the file is as cm last left it, checked within a week.
pub fn verify_if_changed(store: &Store) -> Result<()> {
    let Some(now_stamp) = stamp(store) else {
        return Ok(());
    };
    let recorded = std::fs::read_to_string(record_path(store)).unwrap_or_default();
    let mut fields = recorded.split_whitespace();
    let same = [
        now_stamp.dev.to_string(),
        now_stamp.ino.to_string(),
        now_stamp.size.to_string(),
        now_stamp.mtime_ns.to_string(),
    ]
    .iter()
    .all(|want| fields.next() == Some(want.as_str()));
    let fresh = fields
        .next()
        .and_then(cm_base::clock::parse)
        .is_some_and(|at| (cm_base::clock::now() - at).num_seconds() < MAX_AGE_SECS);
    if same && fresh {
        return Ok(());
    }
    check(store)?;
    record(store, true);
    Ok(())
}

/// Remember the file as this run leaves it. `checked`: a check ran now; otherwise the date of
/// the last one is kept. Best effort.
pub fn record(store: &Store, checked: bool) {
    let Some(s) = stamp(store) else { return };
    let at = if checked {
        cm_base::clock::now_rfc3339()
    } else {
        match std::fs::read_to_string(record_path(store))
            .ok()
            .and_then(|t| t.split_whitespace().nth(4).map(str::to_string))
        {
            Some(at) => at,
            None => return,
        }
    };
    cm_base::fsutil::write_cache(&record_path(store), encode(s, &at).as_bytes());
}

/// After cm's own checkpoint changed the file from `before`: carry a record that matched
/// `before` over to the file as it is now (cm wrote those pages itself).
pub fn follow(store: &Store, before: Option<Stamp>) {
    let Some(before) = before else { return };
    let recorded = std::fs::read_to_string(record_path(store)).unwrap_or_default();
    let matches = recorded
        .strip_suffix('\n')
        .and_then(|r| r.rsplit_once(' '))
        .is_some_and(|(head, _)| format!("{head} x\n") == encode(before, "x"));
    if matches && stamp(store) != Some(before) {
        record(store, false);
    }
}

/// `PRAGMA quick_check`: every page of the store read and its structure checked.
pub fn check(store: &Store) -> Result<()> {
    let corrupt = |detail: String| {
        CmError::new(
            "STORE_CORRUPT",
            ExitCode::Filesystem,
            format!("{} is corrupt: {detail}", store.path.display()),
        )
        .hint("restore it from a backup, or move it aside and run `cm init` (cm never rewrites it); nothing was changed")
    };
    let mut stmt = store
        .conn
        .prepare("PRAGMA quick_check(5)")
        .map_err(|e| store.map_err(e))?;
    let lines: Vec<String> = stmt
        .query_map([], |r| r.get::<_, String>(0))
        .map_err(|e| store.map_err(e))?
        .collect::<rusqlite::Result<_>>()
        .map_err(|e| match store.map_err(e) {
            err if err.code == "STORE_CORRUPT" => err,
            err => corrupt(err.message),
        })?;
    if !(lines.len() == 1 && lines[0] == "ok") {
        return Err(corrupt(lines.join("; ").replace('\n', "; ")));
    }
    documents_readable(store)
}

/// The JSON documents every whole-playbook read parses: a flipped bit inside a row leaves the
/// page structure sound (so `quick_check` passes) but the row unreadable, and a writer that
/// touched only other rows would go on writing into a store `cm playbook list` cannot read.
/// One scan; a few milliseconds for thousands of rules.
const DOCUMENTS: &[(&str, &str, &str)] = &[("bullets", "id", "doc")];

fn documents_readable(store: &Store) -> Result<()> {
    for (table, key, column) in DOCUMENTS {
        let mut stmt = store
            .conn
            .prepare(&format!(
                "SELECT CAST({key} AS BLOB), CAST({column} AS BLOB) FROM {table}"
            ))
            .map_err(|e| store.map_err(e))?;
        let mut rows = stmt.query([]).map_err(|e| store.map_err(e))?;
        while let Some(row) = rows.next().map_err(|e| store.map_err(e))? {
            let key: Vec<u8> = row.get(0).map_err(|e| store.map_err(e))?;
            let doc: Vec<u8> = row.get(1).map_err(|e| store.map_err(e))?;
            // serde skips the strings it ignores without decoding them: check UTF-8 first.
            let readable = std::str::from_utf8(&key).is_ok()
                && std::str::from_utf8(&doc).is_ok()
                && serde_json::from_slice::<serde::de::IgnoredAny>(&doc).is_ok();
            if !readable {
                return Err(super::corrupt_row(
                    &store.path,
                    &format!(
                        "{table} row {} does not decode",
                        String::from_utf8_lossy(&key)
                    ),
                ));
            }
        }
    }
    Ok(())
}

impl Store {
    /// A full structural check ([`check`]); when it passes, the store is stamped as checked so
    /// later opens skip the check until the file changes.
    pub fn check_integrity(&self) -> Result<()> {
        check(self)?;
        record(self, true);
        Ok(())
    }

    /// The schema version this build migrates stores to.
    pub fn schema_version(&self) -> i64 {
        super::migrations::latest_version()
    }
}
