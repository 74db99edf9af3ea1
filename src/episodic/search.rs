//! Full-text search over the session index.
//!
//! INTERIM: the episodic-memory work replaces this body with the FTS5 query. Until then the
//! index does not exist and a search finds nothing; callers must report that as degraded.

use super::model::{Hit, SearchQuery};
use crate::error::Result;
use rusqlite::Connection;

pub fn search(_conn: &Connection, _query: &SearchQuery) -> Result<Vec<Hit>> {
    Ok(Vec::new())
}
