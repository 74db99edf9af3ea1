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
//! their contrast `c`), where `sat` is BM25's term-frequency part (about 1 for a word the rule
//! says once, at most 1 here) and `w` the word's weight in the rule's vocabulary; capped at 1.
//! So a concept word can cover a task word at most as well as the word itself, at [`WEIGHT`],
//! and only one concept word counts per task word (a rule full of release words does not cover
//! "live" many times over). A rule met through one task word only keeps [`SINGLE_TERM`] of it
//! (one shared concern is a coincidence, two are a topic, as for the evidence field), and a
//! concept word most of the workspace's situations say is its setting and is discounted by the
//! same contrast as the task's own words ([`super::contrast`]). It joins the noisy-or of
//! relevance beside the association layer.
//!
//! Cost: the postings of at most [`MAX_WORDS`] concept words, text and evidence, a word held by
//! more than a tenth of the rules left out as the evidence field leaves it out; the table of
//! stems is built once per process from the lexicon (a few hundred words).

pub mod lexicon;

use super::associate::Associated;
use super::bm25;
use super::contrast::Contrast;
use super::evidence::score::{COMMON_MIN, COMMON_SHARE, Lookup};
use super::index::Corpus;
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

/// What a rule holds of the concept words: (word -> strength in its text, in its sessions).
#[derive(Default)]
struct Held {
    text: HashMap<String, f64>,
    sessions: HashMap<String, f64>,
}

/// Concept scores of the rules holding a concept word of the task's terms, by rule id.
/// `idf_sum` and `task` are the lexical and evidence denominators of the task's own terms.
pub fn widen(
    corpus: &Corpus,
    terms: &[String],
    task: &Lookup,
    idf_sum: f64,
    contrast: &Contrast,
    situations: Option<&HashMap<String, i64>>,
) -> Result<HashMap<String, Associated>> {
    let expanded = expand(terms);
    if expanded.is_empty() {
        return Ok(HashMap::new());
    }
    let words = words_to_read(&expanded);
    let mut held: HashMap<String, Held> = HashMap::new();
    // A concept word in a large share of the rules' texts says little and would cost a read of
    // thousands of postings (as for the evidence field, [`COMMON_SHARE`]).
    let common = ((COMMON_SHARE * corpus.stats.docs) as usize).max(COMMON_MIN) as f64;
    for w in &words {
        if corpus.df(w)? > common {
            continue;
        }
        let (scored, _) = corpus.score_weighted(&[(w.as_str(), 1.0)], false, false)?;
        let idf = bm25::idf(scored.len() as f64, corpus.stats.docs.max(1.0));
        for s in scored {
            let sat = if idf > 0.0 {
                (s.raw / idf).min(1.0)
            } else {
                0.0
            };
            held.entry(s.info.id)
                .or_default()
                .text
                .insert(w.clone(), sat);
        }
    }
    let lookup = corpus.evidence(&words)?;
    for (w, list) in &lookup.postings {
        for (rule, weight) in list {
            held.entry(rule.clone())
                .or_default()
                .sessions
                .insert(w.clone(), *weight);
        }
    }
    if held.is_empty() {
        return Ok(HashMap::new());
    }
    // A concept word the workspace's situations all say is its setting (a UI project says
    // "component" in every session), as for the task's own words.
    let setting = match situations {
        Some(of) => {
            let n = of.values().collect::<std::collections::HashSet<_>>().len();
            Contrast::of(&lookup.postings, of, n)
        }
        None => Contrast::none(),
    };
    for h in held.values_mut() {
        for (w, v) in h.text.iter_mut().chain(h.sessions.iter_mut()) {
            *v *= setting.weight(w);
        }
    }
    // The task terms' idf, as the lexical and evidence coverages weigh them.
    let mut text_idf: HashMap<&str, f64> = HashMap::new();
    for (t, _) in &expanded {
        let df = corpus.df(t)?.max(1.0);
        text_idf.insert(
            t,
            contrast.weight(t) * bm25::idf(df, corpus.stats.docs.max(1.0)),
        );
    }
    let evidence_idf: HashMap<&str, f64> = task
        .postings
        .iter()
        .map(|(t, list)| {
            let df = (list.len() as f64).max(1.0);
            (t.as_str(), contrast.weight(t) * bm25::idf(df, task.docs))
        })
        .collect();
    let evidence_denominator = task.denominator(contrast);
    Ok(score_rules(
        &expanded,
        &held,
        &text_idf,
        idf_sum,
        &evidence_idf,
        evidence_denominator,
    ))
}

/// The formula of the module docs over what each rule holds. Pure.
fn score_rules(
    expanded: &[(String, Vec<(String, f64)>)],
    held: &HashMap<String, Held>,
    text_idf: &HashMap<&str, f64>,
    idf_sum: f64,
    evidence_idf: &HashMap<&str, f64>,
    evidence_denominator: f64,
) -> HashMap<String, Associated> {
    let mut out = HashMap::new();
    for (rule, h) in held {
        let mut score = 0.0;
        let mut covered = 0;
        let mut terms: Vec<String> = Vec::new();
        for (t, words) in expanded {
            let before = score;
            let best = |field: &HashMap<String, f64>| {
                words
                    .iter()
                    .filter_map(|(e, s)| field.get(e).map(|v| (e, s * v)))
                    .max_by(|a, b| a.1.total_cmp(&b.1))
            };
            if idf_sum > 0.0
                && let Some((e, v)) = best(&h.text)
            {
                score += text_idf.get(t.as_str()).copied().unwrap_or(0.0) * v / idf_sum;
                push(&mut terms, e);
            }
            if evidence_denominator > 0.0
                && let Some(idf) = evidence_idf.get(t.as_str())
                && let Some((e, v)) = best(&h.sessions)
            {
                score += idf * v / evidence_denominator;
                push(&mut terms, e);
            }
            covered += usize::from(score > before);
        }
        // One task word met through a concern is a coincidence; two are a topic.
        if covered < 2 {
            score *= SINGLE_TERM;
        }
        if score > 0.0 {
            out.insert(
                rule.clone(),
                Associated {
                    score: (WEIGHT * score).clamp(0.0, 1.0),
                    terms,
                },
            );
        }
    }
    out
}

fn push(terms: &mut Vec<String>, e: &str) {
    if !terms.iter().any(|t| t == e) {
        terms.push(e.to_string());
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
        let expanded = vec![(
            "live".to_string(),
            vec![("appli".to_string(), 1.0), ("deploi".to_string(), 1.0)],
        )];
        let mut held = HashMap::new();
        let mut h = Held::default();
        h.text.insert("appli".into(), 1.0);
        h.text.insert("deploi".into(), 1.0);
        held.insert("r".to_string(), h);
        let idf = HashMap::from([("live", 2.0)]);
        let got = score_rules(&expanded, &held, &idf, 4.0, &HashMap::new(), 0.0);
        // One task word met: a coincidence, at half.
        assert!(
            (got["r"].score - WEIGHT * SINGLE_TERM * 0.5).abs() < 1e-12,
            "{got:?}"
        );
    }
}
