//! Sessions that hold many of the query's words lift their messages.
//!
//! A question is usually about one episode, and the episode's words are spread over several of
//! its turns: one turn names the place, another the person, a third the outcome. A message
//! whose session, taken together, holds most of the query's terms is more likely the one meant
//! than an equally scored message in a session that touched one of the words in passing.
//!
//! For the best [`POOL`] candidates: `score(m) = own(m) x (1 + LIFT x covered(s) / asked)`, where
//! `covered(s)` is the number of distinct query terms (the query's own, not expansions) held by
//! the pool's messages of `m`'s session `s`. Only the pool is lifted; what lies below it is out
//! of reach of the hits anyway. Cost: one primary-key lookup per pooled candidate.

use super::Ranked;
use super::statements::MESSAGE_SESSION_SQL;
use rusqlite::{Connection, OptionalExtension};
use std::collections::HashMap;

/// Candidates whose sessions are looked at (and lifted).
pub const POOL: usize = 100;
/// How much a session holding every query term lifts its messages (x (1 + LIFT)).
pub const LIFT: f64 = 1.0;

/// Lift `ranked` (best first), each candidate's session looked up by rowid; best first again.
pub fn apply(
    conn: &Connection,
    mut ranked: Vec<Ranked>,
    asked: usize,
) -> rusqlite::Result<Vec<Ranked>> {
    let n = ranked.len().min(POOL);
    if n == 0 || asked == 0 {
        return Ok(ranked);
    }
    let mut stmt = conn.prepare_cached(MESSAGE_SESSION_SQL)?;
    let mut keys: HashMap<(String, String), usize> = HashMap::new();
    let mut sessions = Vec::with_capacity(n);
    for r in &ranked[..n] {
        let key: Option<(String, String)> = stmt
            .query_row([r.id], |m| Ok((m.get(0)?, m.get(1)?)))
            .optional()?;
        sessions.push(key.map(|k| {
            let next = keys.len();
            *keys.entry(k).or_insert(next)
        }));
    }
    lift(&mut ranked[..n], &sessions, asked);
    ranked.sort_by(|a, b| b.score.total_cmp(&a.score).then(b.id.cmp(&a.id)));
    Ok(ranked)
}

/// Pure: lift each of `pool` by its session's coverage of the query's `asked` terms
/// (`sessions[i]`: the session of `pool[i]`, `None` when unknown: left as it is).
pub fn lift(pool: &mut [Ranked], sessions: &[Option<usize>], asked: usize) {
    let own = if asked >= 64 {
        u64::MAX
    } else {
        (1u64 << asked) - 1
    };
    let mut held: HashMap<usize, u64> = HashMap::new();
    for (r, s) in pool.iter().zip(sessions) {
        if let Some(s) = s {
            *held.entry(*s).or_default() |= r.mask & own;
        }
    }
    let asked = asked.min(64) as f64;
    for (r, s) in pool.iter_mut().zip(sessions) {
        if let Some(mask) = s.and_then(|s| held.get(&s)) {
            r.score *= 1.0 + LIFT * mask.count_ones() as f64 / asked;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(id: i64, score: f64, mask: u64) -> Ranked {
        Ranked {
            id,
            score,
            matched: mask.count_ones() as usize,
            mask,
            lent_by: None,
        }
    }

    #[test]
    fn a_session_holding_the_whole_query_lifts_its_messages() {
        // Query of 3 terms. Session 0 holds terms 0 and 1 in two messages, session 1 only term 0.
        let mut pool = vec![
            cand(1, 2.0, 0b001),
            cand(2, 1.0, 0b010),
            cand(3, 2.0, 0b001),
        ];
        lift(&mut pool, &[Some(0), Some(0), Some(1)], 3);
        assert!((pool[0].score - 2.0 * (1.0 + 2.0 / 3.0)).abs() < 1e-12);
        assert!((pool[1].score - 1.0 * (1.0 + 2.0 / 3.0)).abs() < 1e-12);
        assert!((pool[2].score - 2.0 * (1.0 + 1.0 / 3.0)).abs() < 1e-12);
        // The message in the session that covers more now outranks its equal.
        assert!(pool[0].score > pool[2].score);
    }

    #[test]
    fn expansions_and_unknown_sessions_do_not_lift() {
        // Bit 2 is an expansion (asked = 2): it adds nothing to coverage.
        let mut pool = vec![
            cand(1, 1.0, 0b101),
            cand(2, 1.0, 0b100),
            cand(3, 1.0, 0b011),
        ];
        lift(&mut pool, &[Some(0), Some(0), None], 2);
        assert!((pool[0].score - 1.5).abs() < 1e-12);
        assert!((pool[1].score - 1.5).abs() < 1e-12);
        assert_eq!(pool[2].score, 1.0);
        // A lent candidate (no terms of its own) is lifted by its session's other messages.
        let mut pool = vec![cand(1, 1.0, 0b11), cand(2, 0.5, 0)];
        lift(&mut pool, &[Some(7), Some(7)], 2);
        assert!((pool[1].score - 1.0).abs() < 1e-12);
    }
}
