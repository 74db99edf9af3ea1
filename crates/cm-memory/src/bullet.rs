//! The playbook's data model: bullets (rules and anti-patterns) and their feedback events.
//!
//! Field names follow the seed data model in camelCase, so our JSON export and the original
//! cass-memory `playbook.yaml` read into the same struct. Every field has a default so partial or
//! older files import instead of failing.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum BulletType {
    #[default]
    Rule,
    #[serde(alias = "anti_pattern", alias = "antipattern")]
    AntiPattern,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    #[default]
    Global,
    Workspace,
    Language,
    Framework,
    Task,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, Hash)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    ProjectConvention,
    StackPattern,
    #[default]
    WorkflowRule,
    AntiPattern,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, Hash)]
#[serde(rename_all = "lowercase")]
pub enum State {
    Draft,
    #[default]
    Active,
    Retired,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, Default, Hash,
)]
#[serde(rename_all = "lowercase")]
pub enum Maturity {
    // The aliases are the state names of an older command reference, so its files import.
    #[default]
    #[serde(alias = "proposed")]
    Candidate,
    #[serde(alias = "validated")]
    Established,
    #[serde(alias = "mature")]
    Proven,
    Deprecated,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash)]
#[serde(rename_all = "lowercase")]
pub enum FeedbackType {
    Helpful,
    Harmful,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, Hash)]
#[serde(rename_all = "lowercase")]
pub enum FeedbackSource {
    Inline,
    #[default]
    Manual,
    Outcome,
    Audit,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FeedbackEvent {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: FeedbackType,
    pub timestamp: String,
    #[serde(default)]
    pub source: FeedbackSource,
    #[serde(default, skip_serializing_if = "Option::is_none", alias = "session")]
    pub session_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// How much this event counts, multiplying its decayed value in the score (an outcome's
    /// implicit signals give 0.1 to 2.0). `None` is 1.0, which every event had before weights
    /// existed; see [`event_weight`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
}

impl FeedbackEvent {
    /// The weight this event counts with (1.0 unless it was given one).
    pub fn weight(&self) -> f64 {
        self.weight.unwrap_or(1.0)
    }
}

/// The stored form of a weight: `None` for 1.0, so an event weighted 1.0 is the same event
/// whether it was read from the table (where 1.0 is the default) or from a rule's document.
pub fn event_weight(w: f64) -> Option<f64> {
    (w != 1.0 && w.is_finite()).then_some(w)
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Bullet {
    pub id: String,
    pub content: String,
    pub category: String,
    pub scope: Scope,
    /// What the scope applies to: a workspace path, a language or framework name, a task tag.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope_key: Option<String>,
    #[serde(rename = "type")]
    pub bullet_type: BulletType,
    pub kind: Kind,
    pub is_negative: bool,
    pub state: State,
    pub maturity: Maturity,
    pub helpful_count: u32,
    pub harmful_count: u32,
    pub feedback_events: Vec<FeedbackEvent>,
    pub source_sessions: Vec<String>,
    pub source_agents: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    pub tags: Vec<String>,
    /// Ids of rules this one contradicts (same topic, opposite advice), recorded on both when
    /// the second was added.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub contradicts: Vec<String>,
    pub pinned: bool,
    pub deprecated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deprecation_reason: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

impl Default for Bullet {
    fn default() -> Self {
        Bullet {
            id: String::new(),
            content: String::new(),
            category: "general".into(),
            scope: Scope::Global,
            scope_key: None,
            bullet_type: BulletType::Rule,
            kind: Kind::WorkflowRule,
            is_negative: false,
            state: State::Active,
            maturity: Maturity::Candidate,
            helpful_count: 0,
            harmful_count: 0,
            feedback_events: Vec::new(),
            source_sessions: Vec::new(),
            source_agents: Vec::new(),
            reasoning: None,
            tags: Vec::new(),
            contradicts: Vec::new(),
            pinned: false,
            deprecated: false,
            deprecation_reason: None,
            created_at: String::new(),
            updated_at: String::new(),
        }
    }
}

impl Bullet {
    pub fn is_anti_pattern(&self) -> bool {
        self.bullet_type == BulletType::AntiPattern
    }

    /// Shown as a rule: not deprecated, not retired.
    pub fn is_live(&self) -> bool {
        !self.deprecated && self.maturity != Maturity::Deprecated && self.state != State::Retired
    }

    /// The timestamp of the most recent feedback, else creation.
    pub fn last_activity(&self) -> &str {
        self.feedback_events
            .iter()
            .map(|e| e.timestamp.as_str())
            .max()
            .unwrap_or(self.created_at.as_str())
    }
}

/// The categories cm knows, after the seed's gap analysis, plus `general`. Users may add their
/// own with the `customCategories` config key.
pub const CATEGORIES: &[&str] = &[
    "debugging",
    "testing",
    "architecture",
    "workflow",
    "documentation",
    "integration",
    "collaboration",
    "git",
    "security",
    "performance",
    "general",
];

/// The ten categories gap analysis reports on (everything but `general`, which comes last).
pub const GAP_CATEGORIES: &[&str] = CATEGORIES.split_at(CATEGORIES.len() - 1).0;

pub fn parse_scope(s: &str) -> Option<(Scope, Option<String>)> {
    let (name, key) = match s.split_once(':') {
        Some((n, k)) if !k.trim().is_empty() => (n, Some(k.trim().to_string())),
        Some(_) => return None,
        None => (s, None),
    };
    let scope = match name.trim().to_ascii_lowercase().as_str() {
        "global" => Scope::Global,
        "workspace" => Scope::Workspace,
        "language" => Scope::Language,
        "framework" => Scope::Framework,
        "task" => Scope::Task,
        _ => return None,
    };
    Some((scope, key))
}

pub fn scope_name(s: Scope) -> &'static str {
    match s {
        Scope::Global => "global",
        Scope::Workspace => "workspace",
        Scope::Language => "language",
        Scope::Framework => "framework",
        Scope::Task => "task",
    }
}

pub fn maturity_name(m: Maturity) -> &'static str {
    match m {
        Maturity::Candidate => "candidate",
        Maturity::Established => "established",
        Maturity::Proven => "proven",
        Maturity::Deprecated => "deprecated",
    }
}

pub fn state_name(s: State) -> &'static str {
    match s {
        State::Draft => "draft",
        State::Active => "active",
        State::Retired => "retired",
    }
}

pub fn feedback_type_name(t: FeedbackType) -> &'static str {
    match t {
        FeedbackType::Helpful => "helpful",
        FeedbackType::Harmful => "harmful",
    }
}

pub fn feedback_source_name(s: FeedbackSource) -> &'static str {
    match s {
        FeedbackSource::Inline => "inline",
        FeedbackSource::Manual => "manual",
        FeedbackSource::Outcome => "outcome",
        FeedbackSource::Audit => "audit",
    }
}

pub fn type_name(t: BulletType) -> &'static str {
    match t {
        BulletType::Rule => "rule",
        BulletType::AntiPattern => "anti-pattern",
    }
}

/// A new id: `b-` followed by 12 hex digits.
pub fn new_bullet_id() -> String {
    format!("b-{}", &cm_base::fsutil::unique_suffix()[..12])
}

pub fn new_event_id() -> String {
    format!("fb-{}", &cm_base::fsutil::unique_suffix()[..12])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gap_analysis_covers_the_ten_seed_categories() {
        assert_eq!(GAP_CATEGORIES.len(), 10);
        assert!(!GAP_CATEGORIES.contains(&"general"));
        assert!(GAP_CATEGORIES.iter().all(|c| CATEGORIES.contains(c)));
    }
}
