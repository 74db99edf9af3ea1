//! `cm context --gaps`'s starter suggestions: for each thin category, starter rules the
//! playbook does not hold yet, with the command that adds each. The starters are the command
//! line's ([`super::starters`]), so the suggestions are made here, after the answer.

use super::starters::all;

/// Per thin category (critical or underrepresented) of `gaps`, at most this many starter rules.
const SUGGESTED_PER_CATEGORY: usize = 2;

/// Offer starter rules for the thin categories of `gaps` (`cm context --gaps`): from the
/// `general` starter, the built-in starters of the repository's `stack` (its languages and
/// frameworks) and the user's own, in that order, those in a thin category whose text the
/// playbook does not hold yet (`held`, compared without case).
pub fn suggest(gaps: &mut crate::context::gaps::Gaps, held: &[String], stack: &[&str]) {
    let held: std::collections::HashSet<String> =
        held.iter().map(|c| c.trim().to_lowercase()).collect();
    let thin: Vec<&str> = gaps
        .critical
        .iter()
        .chain(&gaps.underrepresented)
        .copied()
        .collect();
    let mut out: Vec<crate::context::gaps::Suggestion> = Vec::new();
    for starter in all() {
        let fits = starter.path.is_some()
            || starter.name == "general"
            || stack.iter().any(|s| s.eq_ignore_ascii_case(&starter.name));
        let (true, Ok(rules)) = (fits, starter.rules) else {
            continue;
        };
        for b in rules {
            let key = b.content.trim().to_lowercase();
            let room =
                out.iter().filter(|s| s.category == b.category).count() < SUGGESTED_PER_CATEGORY;
            if !thin.contains(&b.category.as_str())
                || !room
                || held.contains(&key)
                || out.iter().any(|s| s.content.to_lowercase() == key)
            {
                continue;
            }
            out.push(crate::context::gaps::Suggestion {
                command: format!(
                    "cm playbook add {} --category {}",
                    shell_quote(&b.content),
                    b.category
                ),
                category: b.category,
                content: b.content,
                starter: starter.name.clone(),
            });
        }
    }
    // In the order of the gap list (critical first).
    out.sort_by_key(|s| thin.iter().position(|c| *c == s.category));
    gaps.suggestions = out;
}

/// `text` as one shell word.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}
