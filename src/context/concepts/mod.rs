//! Goal-level matching without a model: a task word meets a rule through the concern both name
//! ([`lexicon`]), when neither says the other's words.
//!
//! "bump the ALB idle timeout and get it live today" shares no word with "infrastructure
//! changes go through the PR workflow, never `apply` from a laptop", but "live" and "apply" are
//! both the release concern and "alb" and "infrastructure" both infrastructure. For each task
//! term `t` in some concept, the other words of its concepts are its *concept words* `e`, each
//! weighed `s(t, e) = strength(t) x strength(e)` (1 for a word that names the concern, 0.5 for
//! one that leans towards it). A rule covers `t` through the concept as far as its text, or its
//! sessions' words (its evidence vocabulary), hold the best of them:
//!
//! `concept(rule) = WEIGHT x ( Σ_t c(t) idf(t) max_e s(t,e) sat(e, rule) / Σ_t idf(t)
//!                           + Σ_t c(t) idf_E(t) max_e s(t,e) w(rule, e) / Σ_t idf_E(t) )`
//!
//! over the same denominators as the lexical and evidence coverages (the task's own terms, with
//! their contrast `c`), where `sat` is 1 when the rule's text holds `e` (BM25's term-frequency
//! part is about 1 for a word said once, and it is capped at 1 here) and `w` the word's weight in
//! the rule's vocabulary; capped at 1.
//! So a concept word can cover a task word at most as well as the word itself, at [`WEIGHT`],
//! and only one concept word counts per task word (a rule full of release words does not cover
//! "live" many times over). A rule met through one task word only keeps [`SINGLE_TERM`] of it
//! (one shared concern is a coincidence, two are a topic, as for the evidence field), and a
//! concept word most of the workspace's situations say is its setting and is discounted by the
//! same contrast as the task's own words ([`super::contrast`]). It joins the noisy-or of
//! relevance beside the association layer.
//!
//! Cost: the postings of at most [`MAX_WORDS`] concept words, text and evidence, a word held by
//! more than a tenth of the rules left out as the evidence field leaves it out (a probe of the
//! index says so without reading its postings). A text posting is a document key and a bit per
//! concept word: no rule is looked up while they are read, and of the rules the task's own words
//! did not find, only the [`MAX_RESOLVED`] best by their text part are (on a 5,000-rule store a
//! concept word is in hundreds of texts; looking each one up cost ~40 ms, issue 25). The table of
//! stems is built once per process from the lexicon (a few hundred words).

pub mod lexicon;

use super::associate::Associated;
use super::bm25;
use super::contrast::Contrast;
use super::evidence::score::{COMMON_MIN, COMMON_SHARE, Lookup};
use super::index::{Corpus, Scored};
use super::stem::stem;
use crate::error::Result;
use std::collections::HashMap;
use std::sync::OnceLock;

/// How much a concept word counts beside the task's own word.
pub const WEIGHT: f64 = 0.4;
/// The share of the score a rule keeps when only one task word meets it through a concept.
pub const SINGLE_TERM: f64 = 0.5;
/// Strength of a word that only leans towards a concern.
pub const WEAK: f64 = 0.5;
/// Concept words looked up per task, at most (the strongest first).
pub const MAX_WORDS: usize = 16;

/// The `context` config section: `concepts` turns the lexicon off (`cm context` only; hooks
/// read no config and always use it).
#[derive(Debug, Clone, serde::Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    pub concepts: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { concepts: true }
    }
}

/// Stems of the lexicon: each stem's concepts with its strength there, and each concept's
/// members.
struct Table {
    by_stem: HashMap<String, Vec<(usize, f64)>>,
    members: Vec<Vec<(String, f64)>>,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut by_stem: HashMap<String, Vec<(usize, f64)>> = HashMap::new();
        let mut members = Vec::new();
        for (i, c) in lexicon::CONCEPTS.iter().enumerate() {
            let mut list: Vec<(String, f64)> = Vec::new();
            let words = c.strong.iter().map(|w| (w, 1.0));
            for (word, strength) in words.chain(c.weak.iter().map(|w| (w, WEAK))) {
                let s = stem(word);
                if list.iter().any(|(m, _)| *m == s) {
                    continue;
                }
                list.push((s.clone(), strength));
                by_stem.entry(s).or_default().push((i, strength));
            }
            members.push(list);
        }
        Table { by_stem, members }
    })
}

/// The concepts a stem belongs to, by name (for explanations and tests).
pub fn concepts_of(term: &str) -> Vec<&'static str> {
    table()
        .by_stem
        .get(term)
        .map(|v| v.iter().map(|(i, _)| lexicon::CONCEPTS[*i].name).collect())
        .unwrap_or_default()
}

/// For each task term in some concept, its concept words (stems other than the task's own
/// terms) with `s(t, e)`, the strongest first. Pure.
pub fn expand(terms: &[String]) -> Vec<(String, Vec<(String, f64)>)> {
    let t = table();
    let mut out = Vec::new();
    for term in terms {
        let Some(concepts) = t.by_stem.get(term) else {
            continue;
        };
        let mut words: HashMap<&str, f64> = HashMap::new();
        for &(c, strength) in concepts {
            for (m, s) in &t.members[c] {
                if terms.contains(m) {
                    continue;
                }
                let w = strength * s;
                let e = words.entry(m.as_str()).or_insert(0.0);
                *e = e.max(w);
            }
        }
        let mut list: Vec<(String, f64)> =
            words.into_iter().map(|(m, w)| (m.to_string(), w)).collect();
        list.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        if !list.is_empty() {
            out.push((term.clone(), list));
        }
    }
    out
}

/// The concept words to look up: the strongest [`MAX_WORDS`] over all task terms.
fn words_to_read(expanded: &[(String, Vec<(String, f64)>)]) -> Vec<String> {
    let mut best: HashMap<&str, f64> = HashMap::new();
    for (_, list) in expanded {
        for (m, w) in list {
            let e = best.entry(m.as_str()).or_insert(0.0);
            *e = e.max(*w);
        }
    }
    let mut all: Vec<(&str, f64)> = best.into_iter().collect();
    all.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    all.truncate(MAX_WORDS);
    all.into_iter().map(|(m, _)| m.to_string()).collect()
}

/// What a rule holds of the concept words read (at most [`MAX_WORDS`], by their place in that
/// list): those its text holds, as a bitmask, and each one's weight in its sessions' vocabulary
/// (0 when they do not say it). Plain data, no allocation: thousands of rules may hold one.
#[derive(Clone, Copy, Default)]
struct Held {
    text: u32,
    sessions: [f64; MAX_WORDS],
}

/// A task term in some concept: its idf as the lexical and evidence coverages weigh it, and its
/// concept words among those read, as (place in that list, `s(t, e)`).
struct TaskTerm {
    text_idf: f64,
    evidence_idf: Option<f64>,
    words: Vec<(usize, f64)>,
}

/// Concept scores of the rules holding a concept word of the task's terms, by rule id.
/// `idf_sum` and `task` are the lexical and evidence denominators of the task's own terms;
/// `known` are the rules the task's own words found (their documents are already looked up).
///
/// A concept word's postings are read without looking any document up; of the rules whose text
/// holds one and that the task's words did not find, only the [`MAX_RESOLVED`] best by that
/// text part are looked up (a rule found only through concept words joins the candidates only
/// among the best few anyway).
pub fn widen(
    corpus: &Corpus,
    terms: &[String],
    task: &Lookup,
    idf_sum: f64,
    contrast: &Contrast,
    situations: Option<&HashMap<String, i64>>,
    known: &[Scored],
) -> Result<HashMap<String, Associated>> {
    let expanded = expand(terms);
    if expanded.is_empty() {
        return Ok(HashMap::new());
    }
    let words = words_to_read(&expanded);
    // A concept word in a large share of the rules' texts says little and would cost a read of
    // thousands of postings (as for the evidence field, [`COMMON_SHARE`]).
    let common = ((COMMON_SHARE * corpus.stats.docs) as usize).max(COMMON_MIN);
    let mut text: HashMap<i64, u32> = HashMap::new();
    for (i, w) in words.iter().enumerate() {
        for (key, tf) in corpus.postings(w, common)?.unwrap_or_default() {
            if tf > 0.0 {
                *text.entry(key).or_default() |= 1 << i;
            }
        }
    }
    let lookup = corpus.evidence(&words)?;
    if text.is_empty() && lookup.postings.iter().all(|(_, list)| list.is_empty()) {
        return Ok(HashMap::new());
    }
    let place_of = |w: &str| words.iter().position(|x| x == w);
    // A concept word the workspace's situations all say is its setting (a UI project says
    // "component" in every session), as for the task's own words.
    let setting = match situations {
        Some(of) => {
            let n = of.values().collect::<std::collections::HashSet<_>>().len();
            Contrast::of(&lookup.postings, of, n)
        }
        None => Contrast::none(),
    };
    let discount: Vec<f64> = words.iter().map(|w| setting.weight(w)).collect();
    // The task terms' idf, as the lexical and evidence coverages weigh them.
    let mut task_terms = Vec::with_capacity(expanded.len());
    for (t, list) in &expanded {
        let words: Vec<(usize, f64)> = list
            .iter()
            .filter_map(|(e, s)| place_of(e).map(|i| (i, *s)))
            .collect();
        if words.is_empty() {
            continue;
        }
        let df = corpus.df(t)?.max(1.0);
        let evidence_idf = task.postings.iter().find(|(x, _)| x == t).map(|(_, list)| {
            contrast.weight(t) * bm25::idf((list.len() as f64).max(1.0), task.docs)
        });
        task_terms.push(TaskTerm {
            text_idf: contrast.weight(t) * bm25::idf(df, corpus.stats.docs.max(1.0)),
            evidence_idf,
            words,
        });
    }
    let scoring = Scoring {
        terms: &task_terms,
        discount: &discount,
        idf_sum,
        evidence_denominator: task.denominator(contrast),
    };
    // The rules whose text holds a concept word: those the task's words found, and the best few
    // of the others by what their text covers.
    let mut held: HashMap<&str, Held> = HashMap::new();
    for s in known {
        if let Some(mask) = text.remove(&s.info.key) {
            held.entry(s.info.id.as_str()).or_default().text |= mask;
        }
    }
    let mut others: Vec<(i64, f64)> = text
        .iter()
        .map(|(key, mask)| {
            let held = Held {
                text: *mask,
                ..Held::default()
            };
            (*key, scoring.text_part(&held))
        })
        .collect();
    others.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    others.truncate(MAX_RESOLVED);
    let keys: Vec<i64> = others.iter().map(|(key, _)| *key).collect();
    let resolved = corpus.infos_by_key(&keys)?;
    for info in &resolved {
        held.entry(info.id.as_str()).or_default().text |= text[&info.key];
    }
    for (w, list) in &lookup.postings {
        let Some(i) = place_of(w) else { continue };
        for (rule, weight) in list {
            held.entry(rule.as_str()).or_default().sessions[i] = *weight;
        }
    }
    Ok(held
        .into_iter()
        .filter_map(|(rule, h)| {
            let (score, held_words) = scoring.score(&h);
            (score > 0.0).then(|| {
                let terms = held_words.map(|i| words[i].clone()).collect();
                (rule.to_string(), Associated { score, terms })
            })
        })
        .collect())
}

/// Rules whose text holds a concept word and that the task's own words did not find, looked up
/// at most (the best by what their text covers).
pub const MAX_RESOLVED: usize = super::engine::MAX_EVIDENCE_ONLY;

/// The formula of the module docs, for one task.
struct Scoring<'a> {
    terms: &'a [TaskTerm],
    /// The setting weight of each concept word read.
    discount: &'a [f64],
    idf_sum: f64,
    evidence_denominator: f64,
}

impl Scoring<'_> {
    /// The best of a task term's concept words in a field: (place, `s(t, e)` x value x setting).
    fn best(&self, t: &TaskTerm, value: impl Fn(usize) -> f64) -> Option<(usize, f64)> {
        t.words
            .iter()
            .map(|&(i, s)| (i, s * value(i) * self.discount[i]))
            .filter(|(_, v)| *v > 0.0)
            .max_by(|a, b| a.1.total_cmp(&b.1).then_with(|| b.0.cmp(&a.0)))
    }

    fn in_text(h: &Held) -> impl Fn(usize) -> f64 + '_ {
        move |i| f64::from(u8::from(h.text & (1 << i) != 0))
    }

    /// What the rule's text covers, before the single-term share and the weight (to pick which
    /// rules to look up).
    fn text_part(&self, h: &Held) -> f64 {
        if self.idf_sum <= 0.0 {
            return 0.0;
        }
        self.terms
            .iter()
            .filter_map(|t| Some(t.text_idf * self.best(t, Self::in_text(h))?.1))
            .sum::<f64>()
            / self.idf_sum
    }

    /// A rule's concept score and the concept words behind it (places in the list read, each
    /// once).
    fn score(&self, h: &Held) -> (f64, impl Iterator<Item = usize> + use<>) {
        let mut score = 0.0;
        let mut covered = 0;
        let mut used: u32 = 0;
        for t in self.terms {
            let before = score;
            if self.idf_sum > 0.0
                && let Some((i, v)) = self.best(t, Self::in_text(h))
            {
                score += t.text_idf * v / self.idf_sum;
                used |= 1 << i;
            }
            if self.evidence_denominator > 0.0
                && let Some(idf) = t.evidence_idf
                && let Some((i, v)) = self.best(t, |i| h.sessions[i])
            {
                score += idf * v / self.evidence_denominator;
                used |= 1 << i;
            }
            covered += usize::from(score > before);
        }
        // One task word met through a concern is a coincidence; two are a topic.
        if covered < 2 {
            score *= SINGLE_TERM;
        }
        let score = if score > 0.0 {
            (WEIGHT * score).clamp(0.0, 1.0)
        } else {
            0.0
        };
        (score, (0..MAX_WORDS).filter(move |i| used & (1 << i) != 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stems(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| stem(w)).collect()
    }

    #[test]
    fn a_goal_word_reaches_the_words_of_its_concern() {
        let got = expand(&stems(&["live", "alb", "timeout"]));
        let live = &got.iter().find(|(t, _)| t == "live").unwrap().1;
        assert!(live.iter().any(|(e, w)| e == &stem("apply") && *w == 1.0));
        assert!(live.iter().any(|(e, _)| e == &stem("deploy")));
        let alb = &got.iter().find(|(t, _)| t == "alb").unwrap().1;
        assert!(alb.iter().any(|(e, _)| e == &stem("infrastructure")));
        assert!(concepts_of(&stem("install")).contains(&"dependency"));
        // Words of no concern expand to nothing.
        assert!(expand(&stems(&["tooltip_color", "zanzibar"])).is_empty());
    }

    #[test]
    fn weak_words_lean_at_half_weight() {
        let got = expand(&stems(&["add"]));
        let add = &got[0].1;
        let pnpm = add.iter().find(|(e, _)| e == "pnpm").unwrap().1;
        assert_eq!(pnpm, WEAK);
        let strong = expand(&stems(&["install"]));
        assert_eq!(
            strong[0].1.iter().find(|(e, _)| e == "pnpm").unwrap().1,
            1.0
        );
    }

    #[test]
    fn every_concept_word_is_one_stem_and_the_lexicon_is_not_tiny() {
        let t = table();
        assert!(lexicon::CONCEPTS.len() >= 20);
        assert!(t.by_stem.len() >= 400, "{}", t.by_stem.len());
        for (s, _) in t.by_stem.iter() {
            assert!(!s.contains(' '), "{s}");
        }
    }

    #[test]
    fn one_concept_word_per_task_word_counts_at_most_as_the_word_itself() {
        // "live" meets "apply" and "deploy" (words 0 and 1), both in the rule's text.
        let terms = [TaskTerm {
            text_idf: 2.0,
            evidence_idf: None,
            words: vec![(0, 1.0), (1, 1.0)],
        }];
        let scoring = Scoring {
            terms: &terms,
            discount: &[1.0, 1.0],
            idf_sum: 4.0,
            evidence_denominator: 0.0,
        };
        let h = Held {
            text: 0b11,
            ..Held::default()
        };
        let (score, words) = scoring.score(&h);
        // One task word met: a coincidence, at half; one concept word counts, the first best.
        assert!(
            (score - WEIGHT * SINGLE_TERM * 0.5).abs() < 1e-12,
            "{score}"
        );
        assert_eq!(words.collect::<Vec<_>>(), [0]);
        // Two task words met, one in the text and one in the sessions: a topic, in full.
        let terms = [
            TaskTerm {
                text_idf: 2.0,
                evidence_idf: None,
                words: vec![(0, 1.0)],
            },
            TaskTerm {
                text_idf: 2.0,
                evidence_idf: Some(1.0),
                words: vec![(1, 0.5)],
            },
        ];
        let scoring = Scoring {
            terms: &terms,
            discount: &[1.0, 0.5],
            idf_sum: 4.0,
            evidence_denominator: 2.0,
        };
        let mut h = Held {
            text: 0b01,
            ..Held::default()
        };
        h.sessions[1] = 1.0;
        let (score, _) = scoring.score(&h);
        let want = WEIGHT * (2.0 / 4.0 + 0.5 * 0.5 / 2.0);
        assert!((score - want).abs() < 1e-12, "{score}");
        assert!((scoring.text_part(&h) - 0.5).abs() < 1e-12);
    }
}
