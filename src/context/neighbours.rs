//! The rules whose text is closest to a given text, from the context term index: the candidates
//! a new rule is compared with before it is added ([`crate::memory::curate`]).
//!
//! A near-duplicate shares most of its topic terms with the new text, so it ranks near the top
//! of a BM25 search for that text; the few best are enough, and the index makes that a read of
//! the text's own postings instead of a pass over every rule. Read-only: rules changed since the
//! index was last refreshed are scored in memory ([`Corpus::load`]).

use super::engine;
use super::index::Corpus;
use crate::error::Result;
use crate::memory::bullet::Bullet;
use rusqlite::Connection;

/// How many of the best-matching rules are returned.
pub const NEIGHBOURS: usize = 20;

/// Up to [`NEIGHBOURS`] rules (personal from `conn`, plus `repo`) most like `text`, best first,
/// each with whether it comes from the repository file.
pub fn of(conn: &Connection, repo: &[Bullet], text: &str) -> Result<Vec<(Bullet, bool)>> {
    let corpus = Corpus::load(Some(conn), repo.to_vec())?;
    let mut out = Vec::new();
    for (_, _, scored) in engine::candidates(&corpus, text, engine::Coverage::Known, None, 0.0)?
        .into_iter()
        .take(NEIGHBOURS)
    {
        if let Some(found) = corpus.bullet(&scored.info)? {
            out.push(found);
        }
    }
    Ok(out)
}
