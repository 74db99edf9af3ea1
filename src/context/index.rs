//! The stored term index over personal bullets (migration 003), and the corpus a query runs on.
//!
//! Tokenizing and stemming 5,000 rules on every call would cost more than the whole latency
//! budget, so the postings live in `context_terms` and a query reads only the rows of its own
//! terms. Triggers on `bullets` list changed rules in `context_dirty`; the CLI drains that list
//! ([`refresh`]) before it queries. Hooks open the store read-only, so they cannot drain it:
//! they tokenize the few dirty rules in memory and leave their stale stored rows out
//! ([`Corpus::load`]). Repository rules (`.cass/playbook.yaml`) are always tokenized in memory.

use super::bm25::{self, DocTerms, Stats};
use crate::error::Result;
use crate::memory::bullet::Bullet;
use crate::store::bullets as rows;
use crate::store::{Store, map_err};
use rusqlite::{Connection, params};
use std::collections::{HashMap, HashSet};

fn sql(e: rusqlite::Error) -> crate::error::CmError {
    map_err(e, &crate::paths::db_path())
}

/// A stable hash of the text a bullet is indexed (and embedded) by.
pub fn content_hash(b: &Bullet) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |s: &str| {
        for byte in s.bytes().chain(std::iter::once(0)) {
            h ^= byte as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    feed(&b.content);
    feed(&b.category);
    for t in &b.tags {
        feed(t);
    }
    format!("{h:016x}")
}

pub fn bullet_terms(b: &Bullet) -> DocTerms {
    bm25::doc_terms(&b.content, &b.category, &b.tags)
}

/// Recompute the terms of every bullet listed as dirty. Returns how many were processed.
pub fn refresh(store: &Store) -> Result<usize> {
    let pending: i64 = store
        .conn
        .query_row("SELECT count(*) FROM context_dirty", [], |r| r.get(0))
        .map_err(sql)?;
    if pending == 0 {
        return Ok(0);
    }
    store.write(|tx| {
        let ids: Vec<String> = {
            let mut stmt = tx
                .prepare("SELECT bullet_id FROM context_dirty")
                .map_err(sql)?;
            stmt.query_map([], |r| r.get(0))
                .map_err(sql)?
                .collect::<rusqlite::Result<_>>()
                .map_err(sql)?
        };
        for id in &ids {
            tx.execute("DELETE FROM context_terms WHERE bullet_id = ?1", [id])
                .map_err(sql)?;
            tx.execute("DELETE FROM context_docs WHERE bullet_id = ?1", [id])
                .map_err(sql)?;
            if let Some(b) = rows::get(tx, id)? {
                let d = bullet_terms(&b);
                tx.prepare_cached(
                    "INSERT INTO context_docs (bullet_id, content_hash, len) VALUES (?1, ?2, ?3)",
                )
                .and_then(|mut s| s.execute(params![id, content_hash(&b), d.len]))
                .map_err(sql)?;
                let mut ins = tx
                    .prepare_cached(
                        "INSERT INTO context_terms (term, bullet_id, tf) VALUES (?1, ?2, ?3)",
                    )
                    .map_err(sql)?;
                for (term, tf) in &d.tf {
                    ins.execute(params![term, id, tf]).map_err(sql)?;
                }
            }
            tx.execute("DELETE FROM context_dirty WHERE bullet_id = ?1", [id])
                .map_err(sql)?;
        }
        Ok(ids.len())
    })
}

/// A document held in memory: a repository rule, or a personal one whose stored terms are stale.
pub struct MemoryDoc {
    pub bullet: Bullet,
    pub terms: DocTerms,
    pub from_repo: bool,
}

/// What a query scores against: the stored postings (minus stale ones) plus in-memory documents.
pub struct Corpus<'c> {
    conn: Option<&'c Connection>,
    excluded: HashSet<String>,
    pub memory: Vec<MemoryDoc>,
    pub stats: Stats,
}

/// A scored document: its id, raw BM25 score, and where its bullet is (memory index or stored).
#[derive(Debug, Clone)]
pub struct Scored {
    pub id: String,
    pub raw: f64,
    pub memory_index: Option<usize>,
    /// The query terms this document holds.
    pub matched: Vec<String>,
}

impl<'c> Corpus<'c> {
    /// Build the corpus over `conn` (personal store, if any) and `repo` bullets.
    pub fn load(conn: Option<&'c Connection>, repo: Vec<Bullet>) -> Result<Corpus<'c>> {
        let mut memory: Vec<MemoryDoc> = repo
            .into_iter()
            .map(|b| MemoryDoc {
                terms: bullet_terms(&b),
                bullet: b,
                from_repo: true,
            })
            .collect();
        let mut excluded = HashSet::new();
        let (mut docs, mut total_len) = (0.0, 0.0);
        if let Some(conn) = conn {
            let (n, len): (i64, f64) = conn
                .query_row(
                    "SELECT count(*), coalesce(sum(len), 0) FROM context_docs",
                    [],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .map_err(sql)?;
            docs = n as f64;
            total_len = len;
            let mut stmt = conn
                .prepare_cached(
                    "SELECT d.bullet_id, c.len FROM context_dirty d
                     LEFT JOIN context_docs c ON c.bullet_id = d.bullet_id",
                )
                .map_err(sql)?;
            let dirty: Vec<(String, Option<f64>)> = stmt
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .map_err(sql)?
                .collect::<rusqlite::Result<_>>()
                .map_err(sql)?;
            for (id, stored_len) in dirty {
                if let Some(l) = stored_len {
                    docs -= 1.0;
                    total_len -= l;
                }
                if let Some(b) = rows::get(conn, &id)? {
                    memory.push(MemoryDoc {
                        terms: bullet_terms(&b),
                        bullet: b,
                        from_repo: false,
                    });
                }
                excluded.insert(id);
            }
        }
        for m in &memory {
            docs += 1.0;
            total_len += m.terms.len;
        }
        let stats = Stats {
            docs,
            avg_len: if docs > 0.0 { total_len / docs } else { 0.0 },
        };
        Ok(Corpus {
            conn,
            excluded,
            memory,
            stats,
        })
    }

    pub fn conn(&self) -> Option<&'c Connection> {
        self.conn
    }

    pub fn is_empty(&self) -> bool {
        self.stats.docs == 0.0
    }

    /// Score every document holding at least one of `query` (distinct terms). Returns the scored
    /// documents (unsorted) and the query's idf sum for normalisation.
    pub fn score(&self, query: &[String]) -> Result<(Vec<Scored>, f64)> {
        let mut acc: HashMap<String, Scored> = HashMap::new();
        let mut idf_sum = 0.0;
        for term in query {
            let mut postings: Vec<(String, f64, f64, Option<usize>)> = Vec::new();
            if let Some(conn) = self.conn {
                let mut stmt = conn
                    .prepare_cached(
                        "SELECT t.bullet_id, t.tf, d.len FROM context_terms t
                         JOIN context_docs d ON d.bullet_id = t.bullet_id WHERE t.term = ?1",
                    )
                    .map_err(sql)?;
                let rows = stmt
                    .query_map([term], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                    .map_err(sql)?;
                for row in rows {
                    let (id, tf, len): (String, f64, f64) = row.map_err(sql)?;
                    if !self.excluded.contains(&id) {
                        postings.push((id, tf, len, None));
                    }
                }
            }
            for (i, m) in self.memory.iter().enumerate() {
                if let Some(tf) = m.terms.tf.get(term) {
                    postings.push((m.bullet.id.clone(), *tf, m.terms.len, Some(i)));
                }
            }
            if postings.is_empty() {
                continue;
            }
            let idf = bm25::idf(postings.len() as f64, self.stats.docs);
            idf_sum += idf;
            for (id, tf, len, mi) in postings {
                let s = bm25::term_score(tf, len, idf, self.stats);
                let e = acc.entry(id.clone()).or_insert(Scored {
                    id,
                    raw: 0.0,
                    memory_index: mi,
                    matched: Vec::new(),
                });
                e.raw += s;
                e.matched.push(term.clone());
            }
        }
        Ok((acc.into_values().collect(), idf_sum))
    }

    /// The bullet behind a scored document.
    pub fn bullet(&self, s: &Scored) -> Result<Option<(Bullet, bool)>> {
        if let Some(i) = s.memory_index {
            let m = &self.memory[i];
            return Ok(Some((m.bullet.clone(), m.from_repo)));
        }
        match self.conn {
            Some(conn) => Ok(rows::get(conn, &s.id)?.map(|b| (b, false))),
            None => Ok(None),
        }
    }
}
