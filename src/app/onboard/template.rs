//! What `cm onboard read` suggests: a focus from the session's topics against the gaps, and
//! (with `--template`) the rules.json schema `cm playbook add --file` accepts, with an example
//! rule per category.

use crate::context::gaps::Gaps;
use crate::memory::bullet::GAP_CATEGORIES;
use serde_json::{Value, json};

/// What to look for first: the session's topics the playbook lacks most.
pub fn suggested_focus(topics: &[&'static str], gaps: &Gaps) -> String {
    let status = super::sample::status_in(gaps);
    let critical: Vec<&str> = topics
        .iter()
        .copied()
        .filter(|t| status(t) == "critical")
        .collect();
    let thin: Vec<&str> = topics
        .iter()
        .copied()
        .filter(|t| status(t) == "underrepresented")
        .collect();
    if !critical.is_empty() {
        format!(
            "This session touches {}: the playbook has NO rules there yet. Extract those first.",
            critical.join(", ")
        )
    } else if !thin.is_empty() {
        format!(
            "This session touches {}, where the playbook has only one or two rules.",
            thin.join(", ")
        )
    } else if topics.is_empty() {
        "No category stands out; look for the user's corrections and the fixes of failed commands."
            .to_string()
    } else {
        format!(
            "The playbook already covers {}; add only what is new or more specific.",
            topics.join(", ")
        )
    }
}

/// The JSON array `cm playbook add --file` takes, with an example per category.
/// The session's own topics' examples come first.
pub fn extraction_format(path_arg: &str, topics: &[&str]) -> Value {
    let mut ordered: Vec<&(&str, &str)> = EXAMPLES.iter().collect();
    ordered.sort_by_key(|(c, _)| !topics.contains(c));
    let examples: Vec<Value> = ordered
        .into_iter()
        .map(|(c, content)| json!({"content": content, "category": c}))
        .collect();
    json!({
        "schema": {
            "type": "array",
            "items": {
                "content": "string (required): one imperative, specific rule",
                "category": format!("string: one of {}", GAP_CATEGORIES.join(", ")),
                "tags": "array of strings (optional)",
                "scope": "string (optional): global, workspace, language:NAME, framework:NAME, task:NAME",
                "reasoning": "string (optional): why, from what happened in the session",
            }
        },
        "categories": GAP_CATEGORIES,
        "examples": examples,
        "guidelines": [
            "2-5 rules per session; only what would change how an agent works next time",
            "imperative and specific: name the command, file, flag or symptom",
            "a mistake the session made becomes a rule starting with AVOID:",
            "no secrets, hostnames or personal details",
        ],
        "addCommand": format!("cm playbook add --file rules.json --session {path_arg}"),
        "doneCommand": format!("cm onboard mark-done {path_arg}"),
    })
}

const EXAMPLES: &[(&str, &str)] = &[
    (
        "debugging",
        "Reproduce a failing test alone (`cargo test NAME`) before changing code for it",
    ),
    (
        "testing",
        "Give each integration test its own temp HOME so it never reads the real one",
    ),
    (
        "architecture",
        "Keep SQL in the domain module that owns the table; adapters call its API",
    ),
    (
        "workflow",
        "Run the formatter and linter before committing, not after CI fails",
    ),
    (
        "documentation",
        "Update the README command list in the same commit as a new flag",
    ),
    (
        "integration",
        "Check the HTTP status before parsing a response body as JSON",
    ),
    (
        "collaboration",
        "Describe why in a pull request, not only what changed",
    ),
    (
        "git",
        "AVOID: force-pushing a shared branch; push a new commit instead",
    ),
    (
        "security",
        "Read tokens from the environment; never write them into config files",
    ),
    (
        "performance",
        "Measure with a benchmark before and after an optimisation",
    ),
];
