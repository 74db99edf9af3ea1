//! What made a rule relevant, signal by signal: shown by `cm context --explain` beside each
//! rule (docs/context.md, "Ranking" gives the formula).

use serde::Serialize;

/// Every signal behind one rule's score. Scores are in 0..1 unless said otherwise.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Signals {
    /// BM25 coverage of the task by the rule's own text.
    pub lexical: f64,
    /// The task terms its text holds.
    pub matched: Vec<String>,
    /// Coverage of the task by the words of the rule's sessions.
    pub evidence: f64,
    /// The task terms its sessions hold.
    pub evidence_matched: Vec<String>,
    /// What the task's associated words add (the offline association layer).
    pub association: f64,
    /// The associated words the rule holds.
    pub association_terms: Vec<String>,
    /// What the task's concepts add (the concept lexicon): its words' concerns named in the
    /// rule's text or sessions in other words.
    pub concept: f64,
    /// The concept words the rule (or its sessions) holds.
    pub concept_terms: Vec<String>,
    /// Task words discounted as the workspace's setting, with their weight.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub setting: Vec<(String, f64)>,
    /// The embedding cosine, when semantic search ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedding: Option<f64>,
    /// The rule's rank by embedding cosine among the candidates (1 = closest).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedding_rank: Option<usize>,
    /// Its rank by lexical and evidence relevance, and by association, when ranks were fused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lexical_rank: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub association_rank: Option<usize>,
    /// Its reciprocal-rank-fusion score and rank, when ranks were fused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rrf: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fused_rank: Option<usize>,
    /// The relevance all of the above give.
    pub relevance: f64,
    /// Where it was learned against where the task runs.
    pub place: f64,
    /// Feedback weight: `max(0.1, 1 + ln(1 + effectiveScore))`.
    pub weight: f64,
    /// Recall reinforcement: `1 + 0.05 x min(uses, 4)`.
    pub reinforcement: f64,
    /// `relevance x weight x place x reinforcement`.
    pub final_score: f64,
}

impl Signals {
    /// Rounded for output.
    pub fn rounded(mut self) -> Signals {
        let r = super::rank::round3;
        self.lexical = r(self.lexical);
        self.evidence = r(self.evidence);
        self.association = r(self.association);
        self.concept = r(self.concept);
        self.embedding = self.embedding.map(r);
        self.rrf = self.rrf.map(|x| (x * 1e5).round() / 1e5);
        self.relevance = r(self.relevance);
        self.place = r(self.place);
        self.weight = r(self.weight);
        self.reinforcement = r(self.reinforcement);
        self.final_score = r(self.final_score);
        for s in self.setting.iter_mut() {
            s.1 = r(s.1);
        }
        self
    }
}
