//! Learning associations from messages indexed since the last run, the way recall
//! reinforcement scans them: by rowid, past a watermark (`assoc_state.learned_through`).
//!
//! Only conversation text is learned from (user and assistant text; tool calls, output and
//! thinking are noise for this). Each message contributes its distinct terms
//! ([`super::terms::of_text`], at most [`super::terms::MAX_TERMS`]) and every pair of them. The
//! counts of one run are gathered in memory, then folded into the store in one transaction:
//! document frequencies added, each touched term's associate list merged
//! ([`super::links::merge`]) and its strengths recomputed against the new totals.
//!
//! **Bounds.** The vocabulary holds at most [`MAX_VOCABULARY`] terms; when a run leaves more,
//! the terms seen in the fewest messages are pruned (with their lists) until at most
//! [`PRUNE_TO`] remain. A list holds at most [`super::links::MAX_LINKS`] associates (12 bytes
//! each), so the layer never exceeds about `MAX_VOCABULARY x (40 + 32 x 12)` bytes (about 26 MB)
//! whatever the index holds. A new term arriving while the vocabulary is full waits for the
//! next pruning. An associate that was pruned is dropped from lists as they are rewritten, and
//! skipped when read.
//!
//! **Stores older than the layer** learn everything on the next `cm history index` (the
//! watermark starts at 0), which is what the post-session job runs too. Messages deleted by a
//! re-read file stay counted (the statistics drift slightly; re-reads are rare), and their new
//! copies are learned again.

use super::links::{self, Link};
use super::terms::{self, Term};
use cm_base::error::Result;
use cm_store::Store;
use rusqlite::{Connection, OptionalExtension, params};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Pairs counted in memory before they are folded into the store: bounds a run's memory
/// (about 20 bytes a pair) whatever it learns from; a big run folds several times.
pub const PAIRS_PER_FOLD: usize = 1_000_000;

/// Terms the vocabulary holds at most.
pub const MAX_VOCABULARY: usize = 60_000;
/// What pruning leaves.
pub const PRUNE_TO: usize = 50_000;

/// The learning watermark and the number of messages learned from.
pub const STATE_SQL: &str = "SELECT learned_through, messages FROM assoc_state WHERE id = 1";
/// One message's conversation text, by rowid. Messages are read one primary-key lookup at a
/// time: a rowid range over the table is planned from statistics, and with statistics taken at
/// one message SQLite scans the whole table for it (every session's end would pay for the
/// whole index).
pub const MESSAGES_SQL: &str = "SELECT text, kind, role FROM episodic_messages WHERE id = ?1";

/// What a run learned.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Learned {
    pub messages: u64,
    pub terms: usize,
    pub pruned: usize,
}

use cm_store::sql_error as sql;

/// (learned_through, messages learned); (0, 0) before the first run.
pub fn state(conn: &Connection) -> rusqlite::Result<(i64, u64)> {
    Ok(conn
        .query_row(STATE_SQL, [], |r| {
            Ok((r.get(0)?, r.get::<_, i64>(1)? as u64))
        })
        .optional()?
        .unwrap_or((0, 0)))
}

/// Learn from every message indexed since the last run.
pub fn catch_up(store: &Store) -> Result<Learned> {
    let (through, _) = state(&store.conn).map_err(sql)?;
    let newest = crate::citing::newest_message(&store.conn)?;
    if newest <= through {
        return Ok(Learned::default());
    }
    let mut learned = Learned::default();
    let mut from = through;
    let mut run = Run::default();
    let mut stmt = store.conn.prepare_cached(MESSAGES_SQL).map_err(sql)?;
    // One read transaction per chunk: without it every lookup takes and drops the file's
    // shared lock (two system calls a message).
    let mut reading = Some(store.conn.unchecked_transaction().map_err(sql)?);
    for id in through + 1..=newest {
        if reading.is_none() {
            reading = Some(store.conn.unchecked_transaction().map_err(sql)?);
        }
        {
            let mut rows = stmt.query([id]).map_err(sql)?;
            if let Some(r) = rows.next().map_err(sql)? {
                let conversation = r.get_ref(1).map_err(sql)?.as_str().ok() == Some("text")
                    && matches!(
                        r.get_ref(2).map_err(sql)?.as_str().ok(),
                        Some("user" | "assistant")
                    );
                if let Some(text) = r.get_ref(0).map_err(sql)?.as_str().ok()
                    && conversation
                {
                    run.add(&terms::of_text(text));
                }
            }
        }
        if run.pairs.len() >= PAIRS_PER_FOLD || id == newest {
            // Read-only: ending it changes nothing.
            drop(reading.take());
            let Some(done) = fold(store, &run, from, id)? else {
                // Another process learned meanwhile: its counts stand, ours would double them.
                return Ok(learned);
            };
            learned.messages += done.messages;
            learned.terms += done.terms;
            learned.pruned += done.pruned;
            from = id;
            run = Run::default();
        }
    }
    Ok(learned)
}

/// Fold `run` (messages in `(from, through]`) into the store, unless another process moved
/// the watermark since `from`.
fn fold(store: &Store, run: &Run, from: i64, through: i64) -> Result<Option<Learned>> {
    store.write(|tx| {
        if state(tx).map_err(sql)?.0 != from {
            return Ok(None);
        }
        run.fold(tx, through).map(Some).map_err(sql)
    })
}

/// A fast hash for the run's maps (keys are our own term ids and stems; a run is bounded, so
/// there is no flood of collisions worth a keyed hash).
#[derive(Default, Clone, Copy)]
struct Mix(u64);

impl Hasher for Mix {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn write_u32(&mut self, x: u32) {
        self.write_u64(x as u64);
    }
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 29)
    }
}

type Fast = BuildHasherDefault<Mix>;

/// One run's counts, by run-local term number.
#[derive(Default)]
struct Run {
    ids: HashMap<String, u32, Fast>,
    terms: Vec<Term>,
    df: Vec<u32>,
    pairs: HashMap<u64, u32, Fast>,
    messages: u64,
}

impl Run {
    fn add(&mut self, found: &[Term]) {
        self.messages += 1;
        let mut local: Vec<u32> = Vec::with_capacity(found.len());
        for t in found {
            let id = match self.ids.get(t.stem.as_str()) {
                Some(&id) => {
                    if t.word.contains('-') {
                        self.terms[id as usize].word = t.word.clone();
                    }
                    id
                }
                None => {
                    let id = self.terms.len() as u32;
                    self.ids.insert(t.stem.clone(), id);
                    self.terms.push(t.clone());
                    self.df.push(0);
                    id
                }
            };
            self.df[id as usize] += 1;
            local.push(id);
        }
        for (i, &a) in local.iter().enumerate() {
            for &b in &local[i + 1..] {
                let key = ((a.min(b) as u64) << 32) | a.max(b) as u64;
                *self.pairs.entry(key).or_insert(0) += 1;
            }
        }
    }

    fn fold(&self, tx: &Connection, newest: i64) -> rusqlite::Result<Learned> {
        let mut known: HashMap<String, (u32, u64)> = HashMap::new();
        {
            let mut all = tx.prepare("SELECT id, term, df FROM assoc_terms")?;
            let mut rows = all.query([])?;
            while let Some(r) = rows.next()? {
                known.insert(
                    r.get(1)?,
                    (r.get::<_, i64>(0)? as u32, r.get::<_, i64>(2)? as u64),
                );
            }
        }
        // Run-local number -> stored id (None: not in the vocabulary, which was full).
        let mut room = MAX_VOCABULARY.saturating_sub(known.len());
        let mut order: Vec<usize> = (0..self.terms.len()).collect();
        order.sort_by(|&a, &b| self.df[b].cmp(&self.df[a]).then(a.cmp(&b)));
        let mut stored: Vec<Option<u32>> = vec![None; self.terms.len()];
        {
            let mut insert =
                tx.prepare_cached("INSERT INTO assoc_terms(term, word, df) VALUES (?1, ?2, ?3)")?;
            // A term once seen hyphenated keeps that form: it is the spelling a query may lack.
            let mut bump = tx.prepare_cached(
                "UPDATE assoc_terms SET df = df + ?2,
                   word = CASE WHEN instr(?3, '-') > 0 THEN ?3 ELSE word END WHERE id = ?1",
            )?;
            for i in order {
                let t = &self.terms[i];
                let df = self.df[i] as u64;
                if let Some((id, old)) = known.get_mut(&t.stem) {
                    bump.execute(params![*id as i64, df as i64, t.word])?;
                    *old += df;
                    stored[i] = Some(*id);
                } else if room > 0 {
                    room -= 1;
                    insert.execute(params![t.stem, t.word, df as i64])?;
                    let id = tx.last_insert_rowid() as u32;
                    known.insert(t.stem.clone(), (id, df));
                    stored[i] = Some(id);
                }
            }
        }
        let df: HashMap<u32, u64> = known.values().copied().collect();
        let (_, before) = state(tx)?;
        let total = before + self.messages;
        let mut added: HashMap<u32, Vec<(u32, u32)>, Fast> = HashMap::default();
        for (&key, &n) in &self.pairs {
            let (a, b) = ((key >> 32) as usize, (key & 0xffff_ffff) as usize);
            if let (Some(a), Some(b)) = (stored[a], stored[b]) {
                added.entry(a).or_default().push((b, n));
                added.entry(b).or_default().push((a, n));
            }
        }
        let touched = added.len();
        {
            let mut read = tx.prepare_cached("SELECT links FROM assoc_links WHERE id = ?1")?;
            let mut write = tx.prepare_cached(
                "INSERT INTO assoc_links(id, links) VALUES (?1, ?2)
                 ON CONFLICT(id) DO UPDATE SET links = excluded.links",
            )?;
            for (a, new) in added {
                let mut list: Vec<Link> = read
                    .query_row([a as i64], |r| r.get::<_, Vec<u8>>(0))
                    .optional()?
                    .map(|b| links::decode(&b))
                    .unwrap_or_default();
                list.retain(|l| df.contains_key(&l.id));
                links::merge(&mut list, &new);
                let df_a = df.get(&a).copied().unwrap_or(1);
                for l in &mut list {
                    let df_b = df.get(&l.id).copied().unwrap_or(1);
                    l.strength = links::strength(l.n as u64, df_a, df_b, total) as f32;
                }
                write.execute(params![a as i64, links::encode(&list)])?;
            }
        }
        let pruned = if known.len() > MAX_VOCABULARY {
            prune(tx)?
        } else {
            0
        };
        tx.execute(
            "INSERT INTO assoc_state(id, learned_through, messages, pruned) VALUES (1, ?1, ?2, ?3)
             ON CONFLICT(id) DO UPDATE SET learned_through = excluded.learned_through,
               messages = excluded.messages, pruned = pruned + excluded.pruned",
            params![newest, total as i64, pruned as i64],
        )?;
        Ok(Learned {
            messages: self.messages,
            terms: touched,
            pruned,
        })
    }
}

/// Drop the terms seen in the fewest messages until at most [`PRUNE_TO`] remain.
fn prune(tx: &Connection) -> rusqlite::Result<usize> {
    let mut by_df: Vec<(i64, i64)> = tx
        .prepare("SELECT df, count(*) FROM assoc_terms GROUP BY df ORDER BY df")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let total: i64 = by_df.iter().map(|(_, n)| n).sum();
    let mut remove = total - PRUNE_TO as i64;
    let mut threshold = 0;
    by_df.reverse();
    while remove > 0
        && let Some((df, n)) = by_df.pop()
    {
        threshold = df;
        remove -= n;
    }
    tx.execute(
        "DELETE FROM assoc_links WHERE id IN (SELECT id FROM assoc_terms WHERE df <= ?1)",
        [threshold],
    )?;
    tx.execute("DELETE FROM assoc_terms WHERE df <= ?1", [threshold])
}
