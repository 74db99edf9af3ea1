//! Gap analysis: which of the ten tracked categories the playbook covers thinly.
//! Thresholds (live rules per category): critical 0, underrepresented 1-2, adequate 3-10,
//! well-covered 11 or more.

use crate::memory::bullet::GAP_CATEGORIES;
use serde::Serialize;
use std::collections::HashMap;

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CategoryGap {
    pub category: &'static str,
    pub rules: usize,
    pub status: &'static str,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Gaps {
    pub critical: Vec<&'static str>,
    pub underrepresented: Vec<&'static str>,
    pub adequate: Vec<&'static str>,
    pub well_covered: Vec<&'static str>,
    pub categories: Vec<CategoryGap>,
    /// Starter rules for the thin (critical and underrepresented) categories that the playbook
    /// does not hold yet; filled by `cm context --gaps`, which knows the starters (left out
    /// when there are none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suggestions: Vec<Suggestion>,
}

/// A starter rule offered for a thin category, with the command that adds it.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Suggestion {
    pub category: String,
    pub content: String,
    pub starter: String,
    pub command: String,
}

pub fn status(rules: usize) -> &'static str {
    match rules {
        0 => "critical",
        1..=2 => "underrepresented",
        3..=10 => "adequate",
        _ => "well-covered",
    }
}

/// Gaps from live-rule counts per category.
pub fn analyse(counts: &HashMap<String, usize>) -> Gaps {
    let mut g = Gaps {
        critical: vec![],
        underrepresented: vec![],
        adequate: vec![],
        well_covered: vec![],
        categories: vec![],
        suggestions: vec![],
    };
    for &cat in GAP_CATEGORIES {
        let n = counts.get(cat).copied().unwrap_or(0);
        let s = status(n);
        match s {
            "critical" => g.critical.push(cat),
            "underrepresented" => g.underrepresented.push(cat),
            "adequate" => g.adequate.push(cat),
            _ => g.well_covered.push(cat),
        }
        g.categories.push(CategoryGap {
            category: cat,
            rules: n,
            status: s,
        });
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds() {
        assert_eq!(
            [0, 1, 2, 3, 10, 11].map(status),
            [
                "critical",
                "underrepresented",
                "underrepresented",
                "adequate",
                "adequate",
                "well-covered"
            ]
        );
    }

    #[test]
    fn covers_the_ten_categories() {
        let mut c = HashMap::new();
        c.insert("testing".to_string(), 12);
        c.insert("git".to_string(), 1);
        c.insert("general".to_string(), 40);
        let g = analyse(&c);
        assert_eq!(g.categories.len(), 10);
        assert_eq!(g.well_covered, ["testing"]);
        assert_eq!(g.underrepresented, ["git"]);
        assert_eq!(g.critical.len(), 8);
    }
}
