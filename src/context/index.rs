//! The stored term index over personal bullets (migration 003), and the corpus a query runs on.
//!
//! Tokenizing and stemming 5,000 rules, or parsing their JSON documents, on every call would cost
//! more than the whole latency budget, so the postings live in `context_terms` and a query reads
//! only the rows of its own terms; per-document facts ranking needs first (length, live,
//! anti-pattern, a bound on the feedback weight) live in `context_docs` and are read in one scan.
//! Triggers on `bullets` list changed rules in `context_dirty`; the CLI drains that list
//! ([`refresh`]) before it queries. Hooks open the store read-only, so they cannot drain it: they
//! tokenize the few dirty rules in memory and leave their stale stored rows out
//! ([`Corpus::load`]). Repository rules (`.cass/playbook.yaml`) are always tokenized in memory.

use super::bm25::{self, DocTerms, Stats};
use crate::error::Result;
use crate::memory::bullet::{Bullet, FeedbackType};
use crate::store::Store;
use rusqlite::{Connection, OptionalExtension, params};
use std::collections::{HashMap, HashSet};

use crate::store::sql_error as sql;

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

/// Helpful marks, undecayed, each at its weight (at least 1): `effectiveScore` can never exceed
/// this.
pub fn helpful_bound(b: &Bullet) -> f64 {
    let (events, weighed) = b
        .feedback_events
        .iter()
        .filter(|e| e.kind == FeedbackType::Helpful)
        .fold((0u32, 0.0), |(n, w), e| (n + 1, w + e.weight().max(1.0)));
    weighed + b.helpful_count.saturating_sub(events) as f64
}

/// Recompute the terms of every bullet listed as dirty. Returns how many were processed. After
/// a bulk change the planner statistics are refreshed too ([`crate::store::statistics`]).
pub fn refresh(store: &Store) -> Result<usize> {
    let n = refresh_terms(store)?;
    if n >= 100
        && let Err(e) = crate::store::statistics::refresh(store)
    {
        eprintln!(
            "cm: warning: planner statistics not refreshed: {}",
            e.message
        );
    }
    Ok(n)
}

/// List the rules whose cited sessions were indexed, or grew, since their evidence was built,
/// so the next [`refresh`] rebuilds them. Run after indexing (the only time a session changes).
pub fn mark_stale_evidence(store: &Store) -> Result<usize> {
    if !has_stale_evidence(&store.conn)? {
        return Ok(0);
    }
    store.write(|tx| crate::context::evidence::tables::mark_stale(tx))
}

fn refresh_terms(store: &Store) -> Result<usize> {
    let pending: i64 = store
        .conn
        .prepare_cached("SELECT count(*) FROM context_dirty")
        .and_then(|mut s| s.query_row([], |r| r.get(0)))
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
        let mut evidence = crate::context::evidence::Builder::default();
        for id in &ids {
            let old: Option<i64> = tx
                .query_row("SELECT doc FROM context_docs WHERE bullet_id = ?1", [id], |r| {
                    r.get(0)
                })
                .ok();
            if let Some(doc) = old {
                tx.execute(DELETE_TERMS_SQL, [doc]).map_err(sql)?;
                tx.execute("DELETE FROM context_docs WHERE doc = ?1", [doc])
                    .map_err(sql)?;
            }
            let bullet = load_bullet(tx, id)?;
            let built = evidence.rebuild(tx, id, bullet.as_ref())?;
            if let Some(b) = bullet {
                let d = bullet_terms(&b);
                tx.prepare_cached(
                    "INSERT INTO context_docs (bullet_id, content_hash, len, live, anti, helpful, scoped, placed, evidenced)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                )
                .and_then(|mut s| {
                    s.execute(params![
                        id,
                        content_hash(&b),
                        d.len,
                        b.is_live(),
                        b.is_anti_pattern(),
                        helpful_bound(&b),
                        b.scope == crate::memory::bullet::Scope::Workspace,
                        built.placed,
                        built.evidenced
                    ])
                })
                .map_err(sql)?;
                let doc = tx.last_insert_rowid();
                let mut ins = tx
                    .prepare_cached("INSERT INTO context_terms (term, doc, tf) VALUES (?1, ?2, ?3)")
                    .map_err(sql)?;
                for (term, tf) in &d.tf {
                    ins.execute(params![term, doc, tf]).map_err(sql)?;
                }
            }
            tx.execute("DELETE FROM context_dirty WHERE bullet_id = ?1", [id])
                .map_err(sql)?;
        }
        Ok(ids.len())
    })
}

/// Whether some rule's cited sessions were indexed, or grew, since its evidence was built.
fn has_stale_evidence(conn: &Connection) -> Result<bool> {
    conn.prepare_cached(&format!(
        "SELECT EXISTS ({})",
        crate::context::evidence::tables::STALE_SQL
    ))
    .and_then(|mut s| s.query_row([], |r| r.get(0)))
    .map_err(sql)
}

/// Rules whose stored terms are stale (changed since the index was last refreshed).
pub fn pending(conn: &Connection) -> Result<usize> {
    conn.query_row("SELECT count(*) FROM context_dirty", [], |r| {
        r.get::<_, i64>(0)
    })
    .map(|n| n.max(0) as usize)
    .map_err(sql)
}

/// Above this many changed rules, read-only callers (hooks) use the stored index as it is rather
/// than tokenizing the changes in memory.
pub const MAX_DIRTY_IN_MEMORY: usize = 200;

/// What ranking knows about a document before loading its bullet.
#[derive(Debug, Clone)]
pub struct DocInfo {
    pub id: String,
    /// Its key among the corpus's documents: the stored rowid, or `-(index + 1)` for a document
    /// held in memory ([`Corpus::postings`]).
    pub key: i64,
    pub len: f64,
    pub live: bool,
    pub anti: bool,
    pub helpful: f64,
    /// Workspace-scoped (may earn the scope boost).
    pub scoped: bool,
    /// Learned or helped in a known workspace (may earn the place boost).
    pub placed: bool,
    /// Index into [`Corpus::memory`] for in-memory documents.
    pub memory: Option<usize>,
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
    /// Rules with an evidence vocabulary (for its idf).
    pub evidenced: f64,
}

/// A scored document: what is known about it, its raw BM25 score and the query terms it holds.
#[derive(Debug, Clone)]
pub struct Scored {
    pub info: DocInfo,
    pub raw: f64,
    pub matched: Vec<String>,
    /// The evidence field's score, when the rule's sessions hold task terms.
    pub evidence: Option<crate::context::evidence::score::Hit>,
    /// Every signal behind its relevance (filled in by the candidate search).
    pub signals: crate::context::signals::Signals,
}

const DOC_COLS: &str = "d.bullet_id, d.len, d.live, d.anti, d.helpful, d.scoped, d.placed";
/// The number of indexed rules and their summed length (for BM25's average length), and how
/// many have an evidence vocabulary.
pub const TOTALS_SQL: &str =
    "SELECT count(*), coalesce(sum(len), 0), coalesce(sum(evidenced), 0) FROM context_docs";
/// A term's postings (primary-key prefix of the postings table).
pub const POSTINGS_SQL: &str = "SELECT doc, tf FROM context_terms WHERE term = ?1";
/// Whether more than `?2` documents hold a term: a probe of the postings' primary key that
/// materialises no row.
pub const HELD_BY_MORE_SQL: &str = "SELECT 1 FROM context_terms WHERE term = ?1 LIMIT 1 OFFSET ?2";
/// What ranking knows about one document, by rowid.
pub const DOC_SQL: &str = "SELECT d.bullet_id, d.len, d.live, d.anti, d.helpful, d.scoped, d.placed FROM context_docs d WHERE d.doc = ?1";
/// Forget one document's postings, through the index on `doc` named outright.
pub const DELETE_TERMS_SQL: &str =
    "DELETE FROM context_terms INDEXED BY context_terms_doc WHERE doc = ?1";
/// Rules whose stored terms are stale.
pub const DIRTY_SQL: &str = "SELECT bullet_id FROM context_dirty";
/// A document's stored length, by its unique bullet id.
pub const DOC_LEN_SQL: &str = "SELECT len FROM context_docs WHERE bullet_id = ?1";

fn doc_info(r: &rusqlite::Row, at: usize, key: i64) -> rusqlite::Result<DocInfo> {
    Ok(DocInfo {
        key,
        id: r.get(at)?,
        len: r.get(at + 1)?,
        live: r.get(at + 2)?,
        anti: r.get(at + 3)?,
        helpful: r.get(at + 4)?,
        scoped: r.get(at + 5)?,
        placed: r.get(at + 6)?,
        memory: None,
    })
}

fn memory_info(i: usize, m: &MemoryDoc) -> DocInfo {
    DocInfo {
        key: -(i as i64) - 1,
        id: m.bullet.id.clone(),
        len: m.terms.len,
        live: m.bullet.is_live(),
        anti: m.bullet.is_anti_pattern(),
        helpful: helpful_bound(&m.bullet),
        scoped: m.bullet.scope == crate::memory::bullet::Scope::Workspace,
        // A changed personal rule keeps its stored places (an upper bound is enough here).
        placed: !m.from_repo,
        memory: Some(i),
    }
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
        let (mut docs, mut total_len, mut evidenced) = (0.0, 0.0, 0.0);
        if let Some(conn) = conn {
            let (n, len, with_evidence): (i64, f64, i64) = conn
                .prepare_cached(TOTALS_SQL)
                .and_then(|mut s| s.query_row([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))))
                .map_err(sql)?;
            docs = n as f64;
            total_len = len;
            evidenced = with_evidence as f64;
            let ids: Vec<String> = conn
                .prepare_cached(DIRTY_SQL)
                .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
                .map_err(sql)?;
            let mut dirty: Vec<(String, Option<f64>)> = Vec::new();
            if ids.len() > MAX_DIRTY_IN_MEMORY {
                // A bulk import nobody has queried since: tokenizing it all here would cost a
                // hook far more than its budget. Use the stored rows as they are (new rules are
                // missing until the CLI refreshes the index).
                eprintln!(
                    "cm: {} rules changed since the context index was refreshed; run `cm context \"...\"` once to refresh it",
                    ids.len()
                );
            } else {
                let mut len = conn.prepare_cached(DOC_LEN_SQL).map_err(sql)?;
                for id in ids {
                    let l: Option<f64> =
                        len.query_row([&id], |r| r.get(0)).optional().map_err(sql)?;
                    dirty.push((id, l));
                }
            }
            for (id, stored_len) in dirty {
                if let Some(l) = stored_len {
                    docs -= 1.0;
                    total_len -= l;
                }
                if let Some(b) = load_bullet(conn, &id)? {
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
            evidenced,
        })
    }

    pub fn conn(&self) -> Option<&'c Connection> {
        self.conn
    }

    pub fn is_empty(&self) -> bool {
        self.stats.docs == 0.0
    }

    /// Score every document holding at least one of `query` (distinct terms). Returns the scored
    /// documents (unsorted) and the query's idf sum for normalisation: over every term of a task
    /// (`whole_task`), else over the terms some rule holds (a bag of context words).
    ///
    /// Each term's idf is weighed by `contrast` (the workspace's setting counts for little).
    pub fn score(
        &self,
        query: &[String],
        whole_task: bool,
        contrast: &crate::context::contrast::Contrast,
    ) -> Result<(Vec<Scored>, f64)> {
        let weighted: Vec<(&str, f64)> = query
            .iter()
            .map(|t| (t.as_str(), contrast.weight(t)))
            .collect();
        self.score_weighted(&weighted, whole_task, true)
    }

    /// [`Corpus::score`] with a weight per term multiplying its idf; `counted`: whether the
    /// terms count in the returned idf sum (a task's own terms do, its expansions do not).
    pub fn score_weighted(
        &self,
        query: &[(&str, f64)],
        whole_task: bool,
        counted: bool,
    ) -> Result<(Vec<Scored>, f64)> {
        // Stored docs keyed by rowid; in-memory docs by -(index + 1).
        let mut acc: HashMap<i64, Scored> = HashMap::new();
        let mut idf_sum = 0.0;
        let mut postings: Vec<(i64, f64, Option<DocInfo>)> = Vec::new();
        for &(term, weight) in query {
            postings.clear();
            if let Some(conn) = self.conn {
                // One-table statements (a term's postings, then each new document by rowid):
                // a join would be ordered from statistics, which may date from a one-rule store.
                let mut stmt = conn.prepare_cached(POSTINGS_SQL).map_err(sql)?;
                let mut doc_stmt = conn.prepare_cached(DOC_SQL).map_err(sql)?;
                let rows: Vec<(i64, f64)> = stmt
                    .query_map([term], |r| Ok((r.get(0)?, r.get(1)?)))
                    .map_err(sql)?
                    .collect::<rusqlite::Result<_>>()
                    .map_err(sql)?;
                for (doc, tf) in rows {
                    // Only the first sighting of a document needs its info.
                    let info = if acc.contains_key(&doc) {
                        None
                    } else {
                        match doc_stmt
                            .query_row([doc], |r| doc_info(r, 0, doc))
                            .optional()
                        {
                            Ok(Some(i)) => Some(i),
                            Ok(None) => continue,
                            Err(e) => return Err(sql(e)),
                        }
                    };
                    if let Some(i) = &info
                        && self.excluded.contains(&i.id)
                    {
                        continue;
                    }
                    postings.push((doc, tf, info));
                }
            }
            for (i, m) in self.memory.iter().enumerate() {
                if let Some(tf) = m.terms.tf.get(term) {
                    let key = -(i as i64) - 1;
                    let info = (!acc.contains_key(&key)).then(|| memory_info(i, m));
                    postings.push((key, *tf, info));
                }
            }
            if postings.is_empty() {
                // A task word no rule holds is part of the task all the same: a rule covers the
                // task only as far as it covers its specific words. It weighs as the rarest word
                // a rule can hold (df 1), so a playbook of a few rules is not drowned by them.
                if whole_task && counted && self.stats.docs > 0.0 {
                    idf_sum += bm25::idf(1.0, self.stats.docs);
                }
                continue;
            }
            let idf = weight * bm25::idf(postings.len() as f64, self.stats.docs);
            if counted {
                idf_sum += idf;
            }
            for (key, tf, info) in postings.drain(..) {
                let e = acc.entry(key).or_insert_with(|| Scored {
                    info: info.expect("first sighting carries the document info"),
                    raw: 0.0,
                    matched: Vec::new(),
                    evidence: None,
                    signals: Default::default(),
                });
                e.raw += bm25::term_score(tf, e.info.len, idf, self.stats);
                e.matched.push(term.to_string());
            }
        }
        Ok((acc.into_values().collect(), idf_sum))
    }

    /// The idf of `term` over the corpus; a term no document holds gets the idf of a term held
    /// by none (the most specific: text it appears in is about something no rule covers).
    pub fn idf(&self, term: &str) -> Result<f64> {
        Ok(bm25::idf(self.df(term)?, self.stats.docs.max(1.0)))
    }

    /// How many documents hold `term`, stored and in memory.
    pub fn df(&self, term: &str) -> Result<f64> {
        let mut df = 0.0;
        if let Some(conn) = self.conn {
            let stored: i64 = conn
                .prepare_cached("SELECT count(*) FROM context_terms WHERE term = ?1")
                .and_then(|mut s| s.query_row([term], |r| r.get(0)))
                .map_err(sql)?;
            df += stored as f64;
        }
        df += self
            .memory
            .iter()
            .filter(|m| m.terms.tf.contains_key(term))
            .count() as f64;
        Ok(df)
    }

    /// The documents whose text holds `term`, as (key, term frequency), read without looking
    /// any document up (stored rowids, and in-memory documents as `-(index + 1)`); `None` when
    /// more than `limit` stored documents hold it (the read stops there). Stale stored rows are
    /// still listed: [`Corpus::infos_by_key`] leaves them out.
    pub fn postings(&self, term: &str, limit: usize) -> Result<Option<Vec<(i64, f64)>>> {
        let mut out = Vec::new();
        if let Some(conn) = self.conn {
            let common = conn
                .prepare_cached(HELD_BY_MORE_SQL)
                .and_then(|mut s| s.exists(params![term, limit as i64]))
                .map_err(sql)?;
            if common {
                return Ok(None);
            }
            let mut stmt = conn.prepare_cached(POSTINGS_SQL).map_err(sql)?;
            let rows = stmt
                .query_map([term], |r| Ok((r.get(0)?, r.get(1)?)))
                .map_err(sql)?;
            for row in rows {
                if out.len() >= limit {
                    return Ok(None);
                }
                out.push(row.map_err(sql)?);
            }
        }
        for (i, m) in self.memory.iter().enumerate() {
            if let Some(tf) = m.terms.tf.get(term) {
                out.push((-(i as i64) - 1, *tf));
            }
        }
        Ok(Some(out))
    }

    /// What is known about the documents of these keys ([`Corpus::postings`]); unknown and
    /// stale ones are left out.
    pub fn infos_by_key(&self, keys: &[i64]) -> Result<Vec<DocInfo>> {
        let mut out = Vec::with_capacity(keys.len());
        for &key in keys {
            if key < 0 {
                if let Some(m) = self.memory.get((-key - 1) as usize) {
                    out.push(memory_info((-key - 1) as usize, m));
                }
                continue;
            }
            let Some(conn) = self.conn else { continue };
            let mut stmt = conn.prepare_cached(DOC_SQL).map_err(sql)?;
            match stmt.query_row([key], |r| doc_info(r, 0, key)).optional() {
                Ok(Some(info)) if !self.excluded.contains(&info.id) => out.push(info),
                Ok(_) => {}
                Err(e) => return Err(sql(e)),
            }
        }
        Ok(out)
    }

    /// Evidence-field scores of the personal rules whose sessions hold terms of `query`
    /// (distinct terms), by bullet id. Rules changed since the last refresh keep their stored
    /// evidence (it is rebuilt with their terms).
    pub fn evidence(&self, query: &[String]) -> Result<crate::context::evidence::score::Lookup> {
        match self.conn {
            Some(conn) => crate::context::evidence::score::lookup(conn, query, self.evidenced),
            None => Ok(crate::context::evidence::score::Lookup {
                postings: Vec::new(),
                docs: 0.0,
            }),
        }
    }

    /// Where a document's rule was learned or helped (repository rules have no sessions).
    pub fn places(&self, info: &DocInfo) -> Result<crate::context::place::Places> {
        let mut out = crate::context::place::Places::default();
        let from_repo = info.memory.is_some_and(|i| self.memory[i].from_repo);
        if let (Some(conn), false, true) = (self.conn, from_repo, info.placed) {
            for (kind, value) in crate::context::evidence::tables::places_of(conn, &info.id)? {
                match kind.as_str() {
                    "workspace" => out.workspaces.push(value),
                    _ => out.stacks.push(value),
                }
            }
        }
        Ok(out)
    }

    /// What is known about the documents of these bullet ids (for semantic-only candidates).
    pub fn infos(&self, ids: &[&str]) -> Result<Vec<DocInfo>> {
        let mut out = Vec::new();
        for id in ids {
            if let Some(i) = self.memory.iter().position(|m| m.bullet.id == *id) {
                out.push(memory_info(i, &self.memory[i]));
                continue;
            }
            if self.excluded.contains(*id) {
                continue;
            }
            if let Some(conn) = self.conn {
                let mut stmt = conn
                    .prepare_cached(&format!(
                        "SELECT {DOC_COLS}, d.doc FROM context_docs d WHERE d.bullet_id = ?1"
                    ))
                    .map_err(sql)?;
                if let Ok(info) = stmt.query_row([id], |r| doc_info(r, 0, r.get(7)?)) {
                    out.push(info);
                }
            }
        }
        Ok(out)
    }

    /// The bullet a document stands for, and whether it comes from the repository file.
    pub fn bullet(&self, info: &DocInfo) -> Result<Option<(Bullet, bool)>> {
        if let Some(i) = info.memory {
            let m = &self.memory[i];
            return Ok(Some((m.bullet.clone(), m.from_repo)));
        }
        match self.conn {
            Some(conn) => Ok(load_bullet(conn, &info.id)?.map(|b| (b, false))),
            None => Ok(None),
        }
    }
}

/// One stored bullet with its feedback events (the store's own reader: cached statements, and
/// the event table is the record).
pub fn load_bullet(conn: &Connection, id: &str) -> Result<Option<Bullet>> {
    crate::memory::tables::bullets::get(conn, id)
}
