//! The offline association layer: which words go together in the user's own sessions, learned
//! from the session index, with no model to download and no service to call.
//!
//! A question rarely uses the words of the message that answers it ("sunrise" for a painting
//! of a sunset, "destress" for "de-stress"). Words that keep appearing in the same messages
//! are, for this user, about the same things; that statistic is cheap to keep and to read.
//! [`learn`] folds every newly indexed conversation message into a bounded table of per-term
//! associates (normalised PMI, [`links`]); this module reads it.
//!
//! API (terms are stems, as [`cm_base::text::tokenize::query_terms`] gives them; use
//! [`terms::of_query_word`] for a raw word):
//!
//! ```no_run
//! # fn f(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
//! use cm_episodic::assoc;
//! let task = vec!["nightli".to_string(), "export".into(), "slow".into()];
//! // Query expansion: associated terms, weight in (0, 1], strongest first.
//! for e in assoc::expand(conn, &task, 4)? {
//!     println!("{} (search as {:?}) {:.2} from {:?}", e.term, e.word, e.weight, e.from);
//! }
//! // Comparing two texts by what their words go with.
//! let rule = vec!["jdbc".to_string(), "fetch".into(), "size".into()];
//! if let (Some(a), Some(b)) = (assoc::text_vector(conn, &task)?, assoc::text_vector(conn, &rule)?) {
//!     let similarity: f64 = assoc::cosine(&a, &b); // 0..1
//! #   let _ = similarity;
//! }
//! // With embeddings configured: fuse the rankings by reciprocal rank (item ids, best first).
//! let fused = assoc::rrf(&[&["b-1", "b-2"][..], &["b-2", "b-3"][..]]); // b-2 first
//! let status = assoc::status(conn)?; // learned through which message; behind the index?
//! # let _ = status; Ok(()) }
//! ```
//!
//! Cost: one lookup by unique key and one by primary key per term (plus one per expansion
//! returned), whatever the index holds: tens of microseconds for a task. Both are bounded by
//! their input (at most [`MAX_INPUT`] terms are looked at), so no deadline is needed.
//! A term vector is the term itself (weight 1) plus its associates weighted by strength; the
//! cosine of two texts' vectors (sums of their terms' vectors) is high when their words go with
//! the same words, even if they share none.

pub mod fuse;
pub mod learn;
pub mod links;
pub mod terms;

pub use fuse::rrf;
pub use links::{Vector, cosine};

use rusqlite::{Connection, OptionalExtension};
use std::collections::HashMap;

/// Terms of one input looked at, at most.
pub const MAX_INPUT: usize = 32;
/// Associates weaker than this are not expansions.
pub const MIN_WEIGHT: f64 = 0.15;
/// A term in more than this share of the learned messages is too common to widen a query
/// with (a name said in every turn, a word of every task): it would match everything.
pub const MAX_EXPANSION_SHARE: f64 = 0.05;

/// A term by its stem: id, form seen, messages holding it.
pub const TERM_SQL: &str = "SELECT id, word, df FROM assoc_terms WHERE term = ?1";
/// A term by id.
pub const TERM_BY_ID_SQL: &str = "SELECT term, word, df FROM assoc_terms WHERE id = ?1";
/// A term's associates.
pub const LINKS_SQL: &str = "SELECT links FROM assoc_links WHERE id = ?1";

/// A term a query is widened with.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Expansion {
    /// The stem.
    pub term: String,
    /// A form seen in the sessions: what to search the full-text index with.
    pub word: String,
    /// In (0, 1]: the mean strength of its association with the input's known terms (1 for
    /// another spelling of an input term, such as `de-stress` for `destress`).
    pub weight: f64,
    /// The input terms it is associated with.
    pub from: Vec<String>,
}

/// Whether the layer has learned everything indexed.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    /// Messages learned from.
    pub messages: u64,
    /// The newest message rowid learned (0: never built).
    pub learned_through: i64,
    /// The newest message rowid indexed.
    pub newest: i64,
}

impl Status {
    pub fn built(&self) -> bool {
        self.learned_through > 0
    }

    pub fn behind(&self) -> bool {
        self.newest > self.learned_through
    }
}

pub fn status(conn: &Connection) -> rusqlite::Result<Status> {
    let (learned_through, messages) = learn::state(conn)?;
    let newest: i64 = conn.query_row(crate::citing::NEWEST_MESSAGE_SQL, [], |r| r.get(0))?;
    Ok(Status {
        messages,
        learned_through,
        newest,
    })
}

struct Known {
    id: u32,
    word: String,
    links: Vec<links::Link>,
}

fn lookup(conn: &Connection, stem: &str) -> rusqlite::Result<Option<Known>> {
    let row = conn
        .prepare_cached(TERM_SQL)?
        .query_row([stem], |r| {
            Ok((r.get::<_, i64>(0)? as u32, r.get::<_, String>(1)?))
        })
        .optional()?;
    let Some((id, word)) = row else {
        return Ok(None);
    };
    let links = conn
        .prepare_cached(LINKS_SQL)?
        .query_row([id as i64], |r| r.get::<_, Vec<u8>>(0))
        .optional()?
        .map(|b| links::decode(&b))
        .unwrap_or_default();
    Ok(Some(Known { id, word, links }))
}

/// Up to `max` terms associated with `stems` (taken together), strongest first.
pub fn expand(conn: &Connection, stems: &[String], max: usize) -> rusqlite::Result<Vec<Expansion>> {
    let mut out: Vec<Expansion> = Vec::new();
    let mut input: Vec<u32> = Vec::new();
    let mut found = 0usize;
    // id -> (summed strength, from)
    let mut acc: HashMap<u32, (f64, Vec<String>)> = HashMap::new();
    for stem in stems.iter().take(MAX_INPUT) {
        let Some(k) = lookup(conn, stem)? else {
            continue;
        };
        found += 1;
        input.push(k.id);
        if k.word.contains('-') {
            // The sessions write this term hyphenated: search that spelling too.
            out.push(Expansion {
                term: stem.clone(),
                word: k.word.clone(),
                weight: 1.0,
                from: vec![stem.clone()],
            });
        }
        for l in &k.links {
            if (l.strength as f64) < MIN_WEIGHT / 2.0 {
                continue;
            }
            let e = acc.entry(l.id).or_insert((0.0, Vec::new()));
            e.0 += l.strength as f64;
            e.1.push(stem.clone());
        }
    }
    if found == 0 {
        return Ok(out);
    }
    let mut ranked: Vec<(u32, f64, Vec<String>)> = acc
        .into_iter()
        .filter(|(id, _)| !input.contains(id))
        .map(|(id, (s, from))| (id, s / found as f64, from))
        .filter(|(_, w, _)| *w >= MIN_WEIGHT)
        .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let (_, learned) = learn::state(conn)?;
    let too_common = (learned as f64 * MAX_EXPANSION_SHARE).max(1.0);
    let mut by_id = conn.prepare_cached(TERM_BY_ID_SQL)?;
    // Bounded: each candidate is one primary-key lookup, and common ones are passed over.
    for (id, weight, from) in ranked.into_iter().take(MAX_INPUT) {
        if out.len() >= max {
            break;
        }
        // None: pruned since the list was written.
        if let Some((term, word, df)) = by_id
            .query_row([id as i64], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, i64>(2)?,
                ))
            })
            .optional()?
            && df as f64 <= too_common
        {
            out.push(Expansion {
                term,
                word,
                weight,
                from,
            });
        }
    }
    out.truncate(max);
    Ok(out)
}

/// The association vector of a text's terms: each known term (weight 1) and its associates
/// (weight = strength), summed. `None` when no term is known.
pub fn text_vector(conn: &Connection, stems: &[String]) -> rusqlite::Result<Option<Vector>> {
    let mut entries: Vec<(u32, f32)> = Vec::new();
    let mut any = false;
    for stem in stems.iter().take(MAX_INPUT) {
        let Some(k) = lookup(conn, stem)? else {
            continue;
        };
        any = true;
        entries.push((k.id, 1.0));
        entries.extend(
            k.links
                .iter()
                .filter(|l| l.strength > 0.0)
                .map(|l| (l.id, l.strength)),
        );
    }
    Ok(any.then(|| Vector::from_entries(entries)))
}
