//! Pseudo-relevance feedback: the best first-pass hits lend the query their words.
//!
//! The message that answers a question often shares no word with it, but it shares words with
//! the messages the question does find: the turns around it, the other turns of the episode.
//! So the search runs twice. The words of the first pass's best [`FROM_HITS`] messages are
//! weighed as a relevance model (each message's share of their summed score times the word's
//! share of the message, summed: `w(t) = sum_d s_d / S x tf(t, d) / len(d)`), the best
//! [`CANDIDATES`] are weighed again by their rarity in the index (`x idf(t)`; a word found in
//! [`PROBE`] messages or more is passed over), and the best [`TERMS`] (found together in at most
//! [`MATCHES`] messages) join the query at up to
//! [`WEIGHT`] of an asked term's weight (the strongest at `WEIGHT`, the others in proportion).
//! The second pass scores the messages holding them and adds their counts to the messages the
//! first pass scored.
//!
//! Words the query already holds, function words, numbers and fragments are never added. A
//! message's text is read (a tool call's or result's when it has none), at most [`READ_BYTES`]
//! of it. Cost: [`FROM_HITS`] primary-key reads, at most [`CANDIDATES`] short counts (a word
//! the association layer already knows to be common costs one lookup by key instead), and one
//! statement over at most [`MATCHES`] matches.

use super::Ranked;
use super::plan::{self, TermStat};
use super::statements::{COUNT_SQL, HIT_SQL, quote};
use crate::assoc::TERM_SQL;
use crate::assoc::terms::learnable;
use cm_base::text::stem::stem;
use rusqlite::{Connection, OptionalExtension};
use std::collections::HashMap;

/// First-pass hits read.
pub const FROM_HITS: usize = 5;
/// Words weighed by rarity (the strongest by the relevance model alone).
pub const CANDIDATES: usize = 24;
/// Words added to the query, at most.
pub const TERMS: usize = 5;
/// The strongest added word's weight, relative to an asked term's.
pub const WEIGHT: f64 = 0.3;
/// Bytes of a message's text read, at most.
pub const READ_BYTES: usize = 4096;

/// Matches a candidate's probe reads: a word found this often or more is passed over.
pub const PROBE: u64 = 256;
/// Messages holding the added words, together, at most: what the second pass reads (each a
/// few microseconds on a large index, its row length looked up).
pub const MATCHES: u64 = 512;

/// The words to add to a query of `terms` (the first `asked` the user's) whose first pass
/// ranked `ranked` (best first), at most `room`, each with its probe (every one exact: a word
/// found in [`PROBE`] messages or more is passed over; it would weigh little and cost most).
pub fn words(
    conn: &Connection,
    ranked: &[Ranked],
    terms: &[String],
    asked: usize,
    room: usize,
) -> rusqlite::Result<(Vec<Added>, Vec<TermStat>)> {
    if room == 0 {
        return Ok((Vec::new(), Vec::new()));
    }
    // The first pass's order as the hits would show it: more of the query's terms first.
    let n = asked.max(1) as f64;
    let mut best: Vec<(i64, f64)> = ranked
        .iter()
        .take(super::hits::candidates_wanted(FROM_HITS))
        .map(|r| (r.id, r.score * (1.0 + r.matched as f64 / n)))
        .collect();
    best.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
    let mut read = conn.prepare_cached(HIT_SQL)?;
    let mut texts: Vec<(String, f64)> = Vec::with_capacity(FROM_HITS);
    for &(id, score) in best.iter().take(FROM_HITS) {
        if let Some(text) = read
            .query_row([id], |r| r.get::<_, Option<String>>(7))
            .optional()?
            .flatten()
        {
            texts.push((text, score));
        }
    }
    let known: Vec<String> = terms.iter().flat_map(|t| t.split(' ')).map(stem).collect();
    let hits: Vec<(&str, f64)> = texts.iter().map(|(t, s)| (t.as_str(), *s)).collect();
    let cands = candidates(&hits, &known);
    if cands.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let (min_id, max_id) = super::probe::span(conn)?;
    let rows = (max_id - min_id + 1).max(1) as f64;
    let stats = rarity(conn, &cands)?;
    let idf: Vec<f64> = stats
        .iter()
        .map(|s| match s.exact && s.seen > 0 {
            true => super::bm25::idf(plan::document_frequency(s, max_id, min_id, rows), rows),
            false => 0.0,
        })
        .collect();
    let seen: Vec<u64> = stats.iter().map(|s| s.seen).collect();
    let added = choose(&cands, &idf, &seen, room);
    let stats = added
        .iter()
        .filter_map(|a| stats.iter().find(|s| s.term == a.word).cloned())
        .collect();
    Ok((added, stats))
}

/// Each candidate's matches in the index, exact below [`PROBE`]. A word the association layer
/// has already counted in [`PROBE`] messages or more is common for certain and is not probed:
/// the layer counts a subset of what the full-text index holds (conversation text only, a
/// message's first terms only), under the same stems, so its count is at most the index's.
/// (It may run over it only by a few messages, after re-read files left their old copies
/// counted.) The rest are counted from their oldest match: for a word with fewer than
/// [`PROBE`] matches that gives the newest-first probe's exact answer, at less cost.
fn rarity(conn: &Connection, cands: &[Candidate]) -> rusqlite::Result<Vec<TermStat>> {
    let mut known = conn.prepare_cached(TERM_SQL).ok();
    let mut count = conn.prepare_cached(COUNT_SQL)?;
    let limit = PROBE as i64;
    let mut out = Vec::with_capacity(cands.len());
    for c in cands {
        // A store without the layer's tables probes every word.
        let learned: Option<i64> = match known.as_mut() {
            Some(stmt) => stmt
                .query_row([&c.stem], |r| r.get(2))
                .optional()
                .unwrap_or(None),
            None => None,
        };
        if learned.is_some_and(|df| df >= limit) {
            out.push(TermStat {
                term: c.word.clone(),
                seen: PROBE,
                oldest_seen: None,
                exact: false,
            });
            continue;
        }
        let (seen, oldest): (i64, Option<i64>) = count
            .query_row(rusqlite::params![quote(&c.word), limit], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?;
        let seen = seen.max(0) as u64;
        out.push(TermStat {
            term: c.word.clone(),
            seen,
            oldest_seen: oldest,
            exact: seen < PROBE,
        });
    }
    Ok(out)
}

/// A word the feedback proposes: its stem and a form seen (what the index is searched with).
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub stem: String,
    pub word: String,
    pub weight: f64,
}

/// A word added to the query, with its weight.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Added {
    pub word: String,
    pub weight: f64,
}

/// Pure: the best [`CANDIDATES`] words of `hits` (text, score; best first), weighed by the
/// relevance model, strongest first. `known` holds the stems never proposed (the query's).
pub fn candidates(hits: &[(&str, f64)], known: &[String]) -> Vec<Candidate> {
    let total: f64 = hits.iter().map(|(_, s)| s.max(0.0)).sum();
    if total <= 0.0 {
        return Vec::new();
    }
    // stem -> (weight, first form seen, order first seen)
    let mut acc: HashMap<String, (f64, String, usize)> = HashMap::new();
    for (text, score) in hits {
        let text = head(text, READ_BYTES);
        let words: Vec<String> = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        if words.is_empty() {
            continue;
        }
        let share = score.max(0.0) / total / words.len() as f64;
        for w in words {
            if !learnable(&w) {
                continue;
            }
            let s = stem(&w);
            if known.contains(&s) {
                continue;
            }
            let order = acc.len();
            acc.entry(s).or_insert((0.0, w, order)).0 += share;
        }
    }
    let mut out: Vec<(Candidate, usize)> = acc
        .into_iter()
        .map(|(stem, (weight, word, order))| (Candidate { stem, word, weight }, order))
        .collect();
    out.sort_by(|a, b| b.0.weight.total_cmp(&a.0.weight).then(a.1.cmp(&b.1)));
    out.truncate(CANDIDATES);
    out.into_iter().map(|(c, _)| c).collect()
}

/// Pure: the [`TERMS`] best of `candidates` once weighed by `idf` (one per candidate), at most
/// `room`, together found in at most [`MATCHES`] messages (`seen`: each one's matches; a word
/// that would pass the bound is passed over for the next); the strongest at [`WEIGHT`], the
/// others in proportion.
pub fn choose(candidates: &[Candidate], idf: &[f64], seen: &[u64], room: usize) -> Vec<Added> {
    let mut weighed: Vec<(usize, f64)> = candidates
        .iter()
        .zip(idf)
        .enumerate()
        .map(|(i, (c, idf))| (i, c.weight * idf))
        .filter(|(_, w)| *w > 0.0 && w.is_finite())
        .collect();
    weighed.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut budget = MATCHES;
    weighed.retain(|&(i, _)| {
        let n = seen.get(i).copied().unwrap_or(u64::MAX);
        let fits = n <= budget;
        if fits {
            budget -= n;
        }
        fits
    });
    weighed.truncate(TERMS.min(room));
    let Some(&(_, top)) = weighed.first() else {
        return Vec::new();
    };
    weighed
        .into_iter()
        .map(|(i, w)| Added {
            word: candidates[i].word.clone(),
            weight: WEIGHT * w / top,
        })
        .collect()
}

/// The first `max` bytes of `text`, cut at a character boundary.
fn head(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_of_the_best_hits_weigh_by_their_score_and_share() {
        let hits = [
            (
                "Melanie: we went camping by the lake, camping again soon",
                2.0,
            ),
            ("Caroline: the lake was calm", 1.0),
        ];
        let c = candidates(&hits, &[stem("lake")]);
        // "camping" twice in the best hit leads; the query's own word is never proposed.
        assert_eq!(c[0].stem, stem("camping"));
        assert_eq!(c[0].word, "camping");
        assert!(c.iter().all(|c| c.stem != stem("lake")));
        // Function words and short fragments are not words to add.
        assert!(
            c.iter()
                .all(|c| !["the", "by", "we", "was"].contains(&c.word.as_str()))
        );
        let calm = c.iter().find(|c| c.word == "calm").unwrap().weight;
        let went = c.iter().find(|c| c.word == "went").unwrap().weight;
        // "went": 1/10 of a hit holding 2/3 of the score; "calm": 1/5 of one holding 1/3.
        assert!((went - 2.0 / 3.0 / 10.0).abs() < 1e-12, "{went}");
        assert!((calm - 1.0 / 3.0 / 5.0).abs() < 1e-12, "{calm}");
        assert!(candidates(&[("", 1.0)], &[]).is_empty());
        assert!(candidates(&[("words here", 0.0)], &[]).is_empty());
    }

    #[test]
    fn rarity_decides_among_candidates_and_weights_are_relative() {
        let c = |w: &str, weight: f64| Candidate {
            stem: stem(w),
            word: w.into(),
            weight,
        };
        let cands = [
            c("common", 0.5),
            c("rare", 0.2),
            c("middle", 0.3),
            c("gone", 0.1),
        ];
        let seen = [200, 10, 100, 0];
        let added = choose(&cands, &[0.1, 4.0, 1.0, 0.0], &seen, 5);
        let words: Vec<&str> = added.iter().map(|a| a.word.as_str()).collect();
        assert_eq!(words, vec!["rare", "middle", "common"]);
        assert!((added[0].weight - WEIGHT).abs() < 1e-12);
        assert!((added[1].weight - WEIGHT * 0.3 / 0.8).abs() < 1e-12);
        // Room in the query bounds what is added.
        assert_eq!(choose(&cands, &[0.1, 4.0, 1.0, 0.0], &seen, 1).len(), 1);
        assert!(choose(&cands, &[0.1, 4.0, 1.0, 0.0], &seen, 0).is_empty());
        // The added words' matches are bounded: "middle" would pass it, "common" still fits.
        let seen = [200, 10, MATCHES - 5, 0];
        let words: Vec<String> = choose(&cands, &[0.1, 4.0, 1.0, 0.0], &seen, 5)
            .into_iter()
            .map(|a| a.word)
            .collect();
        assert_eq!(words, vec!["rare", "common"]);
        assert!(head("héllo", 2).len() <= 2);
    }
}
