//! The rules relevant to a text, with every signal behind each one's relevance
//! ([`super::signals::Signals`]): lexical coverage of the rule's text, coverage by its
//! sessions' words (evidence), both contrasted with the workspace's setting
//! ([`super::contrast`]), the association layer's widening ([`super::associate`]), and the
//! optional embedding cosine.
//!
//! Without embeddings, `relevance = 1 - (1 - lexical)(1 - evidence)(1 - association)`. With
//! them, three rankings of the candidates (by that relevance without the association, by
//! association, by cosine) are fused by reciprocal rank ([`crate::episodic::assoc::rrf`]): the
//! fused order decides which rule comes first, and the relevance values handed out in that
//! order are those of the linear fusion `(1 - w) x relevance + w x max(0, cosine)` sorted from
//! the best: the order is the fusion's, the scale (and so every threshold) stays the one the
//! documented scores have.

use super::associate::{self, Widening};
use super::bm25;
use super::concepts;
use super::contrast::Contrast;
use super::engine::{Coverage, MAX_EVIDENCE_ONLY, SEMANTIC_ONLY_MIN};
use super::index::{Corpus, Scored};
use super::semantic;
use super::tokenize;
use crate::error::Result;
use std::collections::{HashMap, HashSet};

/// A candidate: its relevance, its embedding cosine (when semantic search ran), and what is
/// known about it.
pub type Cand = (f64, Option<f64>, Scored);

/// Where the text is asked: what it is contrasted with and whether it may be widened.
#[derive(Default)]
pub struct Background<'a> {
    /// The situation (first indexed session) of each of a sample of the workspace's rules
    /// ([`super::evidence::tables::situations_of`]); `None` when the workspace is unknown.
    pub situations: Option<&'a HashMap<String, i64>>,
    /// Whether the association layer may widen the text.
    pub associations: bool,
    /// Whether the concept lexicon may widen the text ([`super::concepts`]).
    pub concepts: bool,
}

/// Documents relevant to `text` (lexical, fused with semantic cosines when given), best first,
/// each at least `min_relevance`, with no workspace background and no widening.
pub fn candidates(
    corpus: &Corpus,
    text: &str,
    coverage: Coverage,
    semantic: Option<(&semantic::Outcome, f64)>,
    min_relevance: f64,
) -> Result<Vec<Cand>> {
    candidates_in(
        corpus,
        text,
        coverage,
        semantic,
        min_relevance,
        &Background::default(),
    )
}

/// [`candidates`] against a workspace's background, widened when it allows.
pub fn candidates_in(
    corpus: &Corpus,
    text: &str,
    coverage: Coverage,
    semantic: Option<(&semantic::Outcome, f64)>,
    min_relevance: f64,
    background: &Background,
) -> Result<Vec<Cand>> {
    let terms = tokenize::query_terms(text);
    let lookup = corpus.evidence(&terms)?;
    // A word is the workspace's setting as far as the sampled rules' situations share it; the
    // postings read for the evidence field are complete for every word kept, so no statement
    // is run here.
    let sampled = background.situations.cloned().unwrap_or_default();
    let situations: HashSet<i64> = sampled.values().copied().collect();
    let contrast = if situations.len() >= super::contrast::MIN_SITUATIONS {
        let counts: Vec<(String, usize)> = lookup
            .postings
            .iter()
            .filter(|(_, list)| !list.is_empty())
            .map(|(term, list)| {
                let holding: HashSet<i64> = list
                    .iter()
                    .filter_map(|(id, _)| sampled.get(id).copied())
                    .collect();
                (term.clone(), holding.len())
            })
            .collect();
        Contrast::from_counts(&counts, situations.len())
    } else {
        Contrast::none()
    };
    let setting: Vec<(String, f64)> = contrast.discounted();
    let (scored, idf_sum) = corpus.score(&terms, coverage == Coverage::Task, &contrast)?;
    let mut evidence = lookup.scores(&contrast);
    let mut widening = if background.associations {
        associate::widen(corpus, &terms, &lookup, idf_sum, &contrast)?
    } else {
        Widening::default()
    };
    let mut concept = if background.concepts {
        concepts::widen(
            corpus,
            &terms,
            &lookup,
            idf_sum,
            &contrast,
            background.situations,
            &scored,
        )?
    } else {
        HashMap::new()
    };
    let mut cands: Vec<Cand> = Vec::new();
    for mut s in scored {
        s.evidence = evidence.remove(&s.info.id);
        let lexical = bm25::normalize(s.raw, idf_sum);
        let assoc = widening.by_rule.remove(&s.info.id).unwrap_or_default();
        let c = concept.remove(&s.info.id).unwrap_or_default();
        cands.push(signalled(s, lexical, assoc, c, &setting));
    }
    // Rules found only through their sessions' words, the task's associations or its concepts:
    // the best few (a common word may be in the vocabulary of thousands).
    let mut only: Vec<(String, f64)> = evidence
        .keys()
        .chain(widening.by_rule.keys())
        .chain(concept.keys())
        .collect::<HashSet<_>>()
        .into_iter()
        .map(|id| {
            let ev = evidence.get(id).map_or(0.0, |h| h.score);
            let a = widening.by_rule.get(id).map_or(0.0, |a| a.score);
            let c = concept.get(id).map_or(0.0, |a| a.score);
            (
                id.clone(),
                associate::fuse(0.0, ev, associate::fuse(a, c, 0.0)),
            )
        })
        .collect();
    only.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    only.truncate(MAX_EVIDENCE_ONLY);
    let ids: Vec<&str> = only.iter().map(|(id, _)| id.as_str()).collect();
    for info in corpus.infos(&ids)? {
        let hit = evidence.get(&info.id).cloned();
        let assoc = widening.by_rule.remove(&info.id).unwrap_or_default();
        let c = concept.remove(&info.id).unwrap_or_default();
        let s = Scored {
            info,
            raw: 0.0,
            matched: Vec::new(),
            evidence: hit,
            signals: Default::default(),
        };
        cands.push(signalled(s, 0.0, assoc, c, &setting));
    }
    if let Some((sem, w)) = semantic {
        add_semantic(corpus, &mut cands, sem, w, &setting)?;
    }
    cands.retain(|c| c.0 >= min_relevance && c.0 > 0.0);
    cands.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then_with(|| a.2.info.id.cmp(&b.2.info.id))
    });
    Ok(cands)
}

/// A scored document with its signals filled in and its relevance fused.
fn signalled(
    mut s: Scored,
    lexical: f64,
    assoc: associate::Associated,
    concept: associate::Associated,
    setting: &[(String, f64)],
) -> Cand {
    let ev = s.evidence.as_ref().map_or(0.0, |e| e.score);
    let relevance = associate::fuse(
        lexical,
        ev,
        associate::fuse(assoc.score, concept.score, 0.0),
    );
    s.signals = super::signals::Signals {
        lexical,
        matched: s.matched.clone(),
        evidence: ev,
        evidence_matched: s
            .evidence
            .as_ref()
            .map(|e| e.matched.clone())
            .unwrap_or_default(),
        association: assoc.score,
        association_terms: assoc.terms,
        concept: concept.score,
        concept_terms: concept.terms,
        setting: setting.to_vec(),
        relevance,
        ..Default::default()
    };
    (relevance, None, s)
}

/// Add the embedding cosines: semantic-only candidates (cosine at least [`SEMANTIC_ONLY_MIN`])
/// join, and relevance becomes the rank fusion described in the module docs.
fn add_semantic(
    corpus: &Corpus,
    cands: &mut Vec<Cand>,
    sem: &semantic::Outcome,
    w: f64,
    setting: &[(String, f64)],
) -> Result<()> {
    let seen: HashSet<&str> = cands.iter().map(|c| c.2.info.id.as_str()).collect();
    let extra: Vec<&str> = sem
        .similarity
        .iter()
        .filter(|(id, cos)| **cos >= SEMANTIC_ONLY_MIN && !seen.contains(id.as_str()))
        .map(|(id, _)| id.as_str())
        .collect();
    for info in corpus.infos(&extra)? {
        let s = Scored {
            info,
            raw: 0.0,
            matched: Vec::new(),
            evidence: None,
            signals: Default::default(),
        };
        cands.push(signalled(
            s,
            0.0,
            Default::default(),
            Default::default(),
            setting,
        ));
    }
    let ranked = fuse_ranks(
        &cands
            .iter()
            .map(|c| Ranks {
                id: c.2.info.id.clone(),
                base: associate::fuse(c.2.signals.lexical, c.2.signals.evidence, 0.0),
                association: c.2.signals.association,
                cosine: sem.similarity.get(&c.2.info.id).copied().unwrap_or(0.0),
                linear: semantic::fuse(
                    c.0,
                    sem.similarity.get(&c.2.info.id).copied().unwrap_or(0.0),
                    w,
                ),
            })
            .collect::<Vec<_>>(),
    );
    for c in cands.iter_mut() {
        let f = &ranked[&c.2.info.id];
        let cos = sem.similarity.get(&c.2.info.id).copied().unwrap_or(0.0);
        c.1 = Some(cos);
        c.0 = f.relevance;
        let s = &mut c.2.signals;
        s.embedding = Some(cos);
        s.embedding_rank = Some(f.embedding_rank);
        s.lexical_rank = f.lexical_rank;
        s.association_rank = f.association_rank;
        s.rrf = Some(f.rrf);
        s.fused_rank = Some(f.fused_rank);
        s.relevance = f.relevance;
    }
    Ok(())
}

/// One candidate's scores, for [`fuse_ranks`].
#[derive(Debug, Clone, PartialEq)]
pub struct Ranks {
    pub id: String,
    /// Lexical and evidence relevance (no association).
    pub base: f64,
    pub association: f64,
    pub cosine: f64,
    /// The linear fusion of relevance and cosine: the scale relevance is given on.
    pub linear: f64,
}

/// What [`fuse_ranks`] gives one candidate.
#[derive(Debug, Clone, PartialEq)]
pub struct Fused {
    pub lexical_rank: Option<usize>,
    pub association_rank: Option<usize>,
    pub embedding_rank: usize,
    pub rrf: f64,
    pub fused_rank: usize,
    pub relevance: f64,
}

/// Reciprocal rank fusion of the lexical-and-evidence, association and embedding rankings (a
/// ranking holds the candidates with a positive score in it; ties break on id), with the linear
/// fusion's values handed out in the fused order. Pure.
pub fn fuse_ranks(cands: &[Ranks]) -> HashMap<String, Fused> {
    let order = |key: &dyn Fn(&Ranks) -> f64| -> Vec<String> {
        let mut v: Vec<&Ranks> = cands.iter().filter(|c| key(c) > 0.0).collect();
        v.sort_by(|a, b| key(b).total_cmp(&key(a)).then_with(|| a.id.cmp(&b.id)));
        v.into_iter().map(|c| c.id.clone()).collect()
    };
    let lexical = order(&|c| c.base);
    let association = order(&|c| c.association);
    let embedding = order(&|c| c.cosine.max(0.0) + 1e-9);
    let rankings: Vec<&[String]> = [&lexical, &association, &embedding]
        .into_iter()
        .filter(|r| !r.is_empty())
        .map(|r| r.as_slice())
        .collect();
    let mut fused = crate::episodic::assoc::rrf(&rankings);
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let mut scale: Vec<f64> = cands.iter().map(|c| c.linear).collect();
    scale.sort_by(|a, b| b.total_cmp(a));
    let rank_in = |list: &[String], id: &str| list.iter().position(|x| x == id).map(|p| p + 1);
    fused
        .into_iter()
        .enumerate()
        .map(|(i, (id, rrf))| {
            let f = Fused {
                lexical_rank: rank_in(&lexical, &id),
                association_rank: rank_in(&association, &id),
                embedding_rank: rank_in(&embedding, &id).unwrap_or(embedding.len() + 1),
                rrf,
                fused_rank: i + 1,
                relevance: scale.get(i).copied().unwrap_or(0.0),
            };
            (id, f)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(id: &str, base: f64, association: f64, cosine: f64, linear: f64) -> Ranks {
        Ranks {
            id: id.into(),
            base,
            association,
            cosine,
            linear,
        }
    }

    #[test]
    fn agreement_of_rankings_wins_and_the_scale_is_kept() {
        // "b" is second lexically but first by association and by embedding.
        let got = fuse_ranks(&[
            r("a", 0.6, 0.0, 0.1, 0.30),
            r("b", 0.4, 0.2, 0.9, 0.70),
            r("c", 0.2, 0.1, 0.5, 0.38),
        ]);
        assert_eq!(got["b"].fused_rank, 1);
        assert_eq!(got["b"].relevance, 0.70);
        assert_eq!(got["b"].lexical_rank, Some(2));
        assert_eq!(got["b"].association_rank, Some(1));
        assert_eq!(got["b"].embedding_rank, 1);
        let expect = 1.0 / 62.0 + 1.0 / 61.0 + 1.0 / 61.0;
        assert!((got["b"].rrf - expect).abs() < 1e-12);
        // The values handed out are the linear fusion's, best first.
        let mut by_rank: Vec<&Fused> = got.values().collect();
        by_rank.sort_by_key(|f| f.fused_rank);
        let values: Vec<f64> = by_rank.iter().map(|f| f.relevance).collect();
        assert_eq!(values, [0.70, 0.38, 0.30]);
        assert_eq!(got["a"].association_rank, None);
    }

    #[test]
    fn no_candidates_no_ranks() {
        assert!(fuse_ranks(&[]).is_empty());
    }
}
