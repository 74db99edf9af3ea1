//! Which messages a search scores, decided from what the probes measured. Pure.
//!
//! Scoring a message costs about a microsecond; a word found in a fifth of 250,000 messages
//! would cost 50 ms to score everywhere. So the work is bounded by what can matter most:
//! - **Rare terms** (found fewer than [`PROBE`] times, together at most [`RARE_BUDGET`] times)
//!   are scored wherever they occur, with every other term of the query counted in the same rows:
//!   a message holding a rare term is always a candidate, scored on the whole query.
//! - **Common terms** are scored in the newest messages that hold them ([`RECENT_ROWS`]), and
//!   in the newest holding all of them ([`ALL_ROWS`], unless the recent ones already gave
//!   enough such messages), within the span the probes covered.
//!
//! - **Expansion terms** (words the association layer added to the query) are scored only where
//!   they are specific: found fewer than [`EXPANSION_PROBE`] times, together at most
//!   [`EXPANSION_RARE`] times; otherwise they are left out. An association is a guess, and the
//!   layer favours words that are rarer than the query's own, so scoring a common one would
//!   spend the query's budget on its guesses (on a store grown for months the four expansions of
//!   a four-word query had tripled the messages scored).
//!
//! When every term is rare, every match is scored: the answer is exactly BM25 over all matches.
//! Otherwise it is BM25 over a bounded candidate set chosen by rarity and recency; the common
//! terms' document frequencies are estimated from their density among the newest messages.

/// How much work a search may do.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// Newest matches each term's probe reads. A term with fewer is rare, its count exact.
    pub probe: u64,
    /// Matches of the rare terms scored everywhere, at most.
    pub rare: u64,
    /// Terms a query is scored on, at most: the rarest.
    pub terms: usize,
    /// Newest matches an expansion term's probe reads; with more it is left out.
    pub expansion_probe: u64,
    /// Matches of the expansion terms scored, at most.
    pub expansion_rare: u64,
}

/// The default budget: about 10 ms of work on 250,000 messages.
pub const BOUNDED: Budget = Budget {
    probe: PROBE,
    rare: 6_000,
    terms: 12,
    expansion_probe: EXPANSION_PROBE,
    expansion_rare: EXPANSION_RARE,
};

/// No bound: every match of every term is scored (`--exhaustive`, the reference).
pub const EXHAUSTIVE: Budget = Budget {
    probe: u64::MAX,
    rare: u64::MAX,
    terms: usize::MAX,
    expansion_probe: u64::MAX,
    expansion_rare: u64::MAX,
};

pub const PROBE: u64 = 2_048;
/// An expansion term found this often or more is too common to be worth its cost.
pub const EXPANSION_PROBE: u64 = 256;
/// Matches of all expansion terms together that are scored.
pub const EXPANSION_RARE: u64 = 512;
/// Newest messages holding any common term that are scored.
pub const RECENT_ROWS: usize = 600;
/// Newest messages holding every common term (when there are several) that are scored, at
/// most (and no more than the hits need candidates).
pub const ALL_ROWS: usize = 300;

/// What a probe measured about one term.
#[derive(Debug, Clone, PartialEq)]
pub struct TermStat {
    pub term: String,
    /// Matches counted, at most the probe's budget.
    pub seen: u64,
    /// Rowid of the oldest match the probe read (when it read any).
    pub oldest_seen: Option<i64>,
    /// The probe saw every match.
    pub exact: bool,
}

/// The terms a search scores, split by how they are searched.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Plan {
    /// Indices into the probed terms, rarest first.
    pub rare: Vec<usize>,
    /// Indices into the probed terms, least common first.
    pub common: Vec<usize>,
    /// Common-term candidates come from rowids at or above this (the span every common term's
    /// probe covered, so the newest matches there are known to be the newest overall).
    pub recent_floor: i64,
    /// Messages holding every common term are looked for at or above this (the widest span any
    /// common term's probe covered; the conjunction is walked by seeking, so a wide span is cheap).
    pub all_floor: i64,
    /// Terms left out because the query had more than the budget's terms present, or because
    /// an expansion term was too common.
    pub dropped: Vec<usize>,
}

impl Plan {
    /// Every match is scored: the ranking is exact BM25.
    pub fn exhaustive(&self) -> bool {
        self.common.is_empty()
    }

    pub fn is_empty(&self) -> bool {
        self.rare.is_empty() && self.common.is_empty()
    }
}

/// The plan for terms `stats`, of which the first `asked` are the query's own and the rest
/// expansions.
pub fn plan(stats: &[TermStat], asked: usize, limits: Budget) -> Plan {
    let mut present: Vec<usize> = (0..stats.len()).filter(|&i| stats[i].seen > 0).collect();
    present.sort_by_key(|&i| (stats[i].seen, i));
    let dropped = present.split_off(present.len().min(limits.terms));
    let mut plan = Plan {
        dropped,
        ..Plan::default()
    };
    let mut budget = limits.rare;
    let mut expansion_budget = limits.expansion_rare;
    for i in present {
        let s = &stats[i];
        if i >= asked {
            if s.exact && s.seen <= expansion_budget {
                expansion_budget -= s.seen;
                plan.rare.push(i);
            } else {
                plan.dropped.push(i);
            }
            continue;
        }
        if s.exact && s.seen <= budget {
            budget -= s.seen;
            plan.rare.push(i);
        } else {
            plan.common.push(i);
        }
    }
    let floors: Vec<i64> = plan
        .common
        .iter()
        .filter_map(|&i| stats[i].oldest_seen.filter(|_| !stats[i].exact))
        .collect();
    plan.recent_floor = floors.iter().copied().max().unwrap_or(0);
    plan.all_floor = floors.iter().copied().min().unwrap_or(0);
    plan
}

/// A term's document frequency: exact when the probe saw every match, otherwise estimated from
/// the density of its newest matches over the index's rowid span, within `[seen, rows]`.
pub fn document_frequency(stat: &TermStat, max_id: i64, min_id: i64, rows: f64) -> f64 {
    let seen = stat.seen as f64;
    if stat.exact {
        return seen;
    }
    let span = (max_id - min_id + 1).max(1) as f64;
    let seen_span = (max_id - stat.oldest_seen.unwrap_or(min_id) + 1).max(1) as f64;
    (seen * span / seen_span).clamp(seen, rows.max(seen))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(term: &str, seen: u64, oldest: i64) -> TermStat {
        TermStat {
            term: term.into(),
            seen,
            oldest_seen: (seen > 0).then_some(oldest),
            exact: seen < PROBE,
        }
    }

    #[test]
    fn rare_terms_first_within_budget_then_common() {
        let stats = [
            stat("fix", PROBE, 9_000),
            stat("oauth", 40, 10),
            stat("absent", 0, 0),
            stat("token", PROBE, 7_000),
            stat("refresh", 1_500, 5),
        ];
        let p = plan(&stats, stats.len(), BOUNDED);
        assert_eq!(p.rare, vec![1, 4]);
        assert_eq!(p.common, vec![0, 3]);
        // The newest span both common terms' probes covered.
        assert_eq!((p.recent_floor, p.all_floor), (9_000, 7_000));
        assert!(!p.exhaustive());
    }

    #[test]
    fn rare_terms_over_budget_become_common() {
        let stats = [
            stat("a", 2_000, 1),
            stat("b", 2_000, 1),
            stat("c", 2_000, 1),
            stat("d", 2_000, 1),
        ];
        let p = plan(&stats, stats.len(), BOUNDED);
        assert_eq!(p.rare, vec![0, 1, 2]);
        assert_eq!(p.common, vec![3]);
        // Exact counts carry no recency floor.
        assert_eq!(p.recent_floor, 0);
    }

    #[test]
    fn all_rare_is_exhaustive_and_extra_terms_are_dropped() {
        let n = BOUNDED.terms;
        let stats: Vec<TermStat> = (0..n + 3)
            .map(|i| stat(&format!("t{i}"), 1 + i as u64, 1))
            .collect();
        let p = plan(&stats, stats.len(), BOUNDED);
        assert!(p.exhaustive());
        assert_eq!(p.rare.len(), n);
        assert_eq!(p.dropped, vec![n, n + 1, n + 2]);
        assert!(plan(&[stat("x", 0, 0)], 1, BOUNDED).is_empty());
        // Without a budget nothing is common or dropped.
        let big = [stat("a", 50_000, 1), stat("b", 70_000, 1)].map(|mut s| {
            s.exact = true;
            s
        });
        let p = plan(&big, big.len(), EXHAUSTIVE);
        assert_eq!((p.rare.len(), p.common.len()), (2, 0));
    }

    #[test]
    fn expansions_are_scored_only_where_they_are_specific() {
        let probed = |term: &str, seen: u64| TermStat {
            exact: seen < EXPANSION_PROBE,
            ..stat(term, seen, 1)
        };
        let stats = [
            stat("token", PROBE, 9_000),
            stat("timeout", 900, 1),
            // Expansions: one specific, one common, and two that together pass the budget.
            probed("jwks", 40),
            probed("state", EXPANSION_PROBE),
            probed("rotation", 250),
            probed("keyring", 240),
        ];
        let p = plan(&stats, 2, BOUNDED);
        assert_eq!(p.rare, vec![2, 5, 1]);
        assert_eq!(p.common, vec![0]);
        assert_eq!(p.dropped, vec![4, 3]);
        const { assert!(EXPANSION_RARE < 40 + 240 + 250) };
        // A query's own term is never held to the expansion bound.
        let own = plan(&stats, stats.len(), BOUNDED);
        assert!(own.dropped.is_empty());
    }

    #[test]
    fn frequencies_are_exact_or_estimated_from_density() {
        let rare = stat("r", 10, 500);
        assert_eq!(document_frequency(&rare, 100_000, 1, 90_000.0), 10.0);
        // The newest PROBE matches span a tenth of the index: about 10 x PROBE matches overall.
        let common = stat("c", PROBE, 90_001);
        let df = document_frequency(&common, 100_000, 1, 90_000.0);
        assert!((df - PROBE as f64 * 10.0).abs() < 1.0, "{df}");
        // Never above the row count, never below what was seen.
        let dense = stat("d", PROBE, 99_999);
        assert_eq!(document_frequency(&dense, 100_000, 1, 90_000.0), 90_000.0);
    }
}
