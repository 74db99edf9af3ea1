//! One lesson, one rule: whether a rule just learned says what a live rule of the same
//! workspace already says, in other words ("This is a pnpm workspace; add deps with `pnpm add`"
//! and "Use pnpm here, never npm"). The curator's similarity catches the same sentence; this
//! catches the same lesson, by the things both rules name: the commands they quote and the
//! words that are neither common nor rule boilerplate.

use crate::context::stem::stem;
use std::collections::BTreeSet;

/// What a rule names: its backticked spans whole, and its uncommon words stemmed.
pub fn names(rule: &str) -> BTreeSet<String> {
    let rule = super::situation::strip(rule);
    let mut out = BTreeSet::new();
    for (i, part) in rule.split('`').enumerate() {
        if i % 2 == 1 {
            // A program's name alone (`julia`) is a word like any other, not a command: two
            // lessons about one tool are not one lesson.
            let span = part.trim().to_lowercase();
            if span.len() >= 4 && span.contains(' ') {
                out.insert(format!("`{span}`"));
            }
        }
        for w in part.split(|c: char| c.is_whitespace() || ",;:()'\"!?".contains(c)) {
            let w = w
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase();
            if w.chars().count() < 3
                || super::phrasing::is_common(&w)
                || crate::context::tokenize::is_stop_word(&w)
                || GENERIC.contains(&w.as_str())
            {
                continue;
            }
            out.insert(if w.chars().all(char::is_alphabetic) {
                stem(&w)
            } else {
                w
            });
        }
    }
    out
}

/// Words of the work itself: every lesson may say them.
const GENERIC: &[&str] = &[
    "run", "runs", "running", "before", "after", "without", "fails", "failed", "with", "instead",
    "rather", "than", "add", "test", "tests", "build", "every", "file", "files", "only", "also",
    "when", "whenever", "each", "local", "locally", "repo", "project", "here", "code", "new",
    "don't", "never", "always", "it's", "this", "that", "which", "the", "you", "your",
];

/// Whether `new` restates `old`: they name at least two things in common, and the shared part
/// is at least a third of what the shorter one names (a quoted command counts twice).
pub fn same_lesson(new: &str, old: &str) -> bool {
    let (a, b) = (names(new), names(old));
    let shared: Vec<&String> = a.intersection(&b).collect();
    let weight: usize = shared
        .iter()
        .map(|s| if s.starts_with('`') { 2 } else { 1 })
        .sum();
    let smaller = a.len().min(b.len()).max(1);
    let span = shared.iter().any(|s| s.starts_with('`'));
    let covers = weight * 2 >= smaller;
    (weight >= 3 && (span || covers)) || (weight >= 2 && smaller <= 4 && covers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_lesson_in_other_words_is_one_rule() {
        let rules = [
            "Use pnpm here, never npm.",
            "This is a pnpm workspace, npm doesn't understand our workspace:* deps; add the dep with `pnpm add zod --filter web` from the root.",
            "Don't use npm; this is a pnpm shop.",
            "Package manager, it's pnpm here, not npm.",
        ];
        for r in &rules[1..] {
            assert!(same_lesson(r, rules[0]), "{r}");
        }
        assert!(same_lesson(
            "Every time you touch a .proto you need `make gen` before you build; commit gen/ with it.",
            "Run `make gen` before `go build ./...`."
        ));
        assert!(!same_lesson(
            "Run `ulimit -n 8192` before `cargo test`: without it, it fails with 'Too many open files'.",
            "Re-run `cargo sqlx prepare` whenever a query macro changes; commit the .sqlx diff."
        ));
        assert!(!same_lesson(
            "Run `aws sso login --profile infra-prod` before `terraform -chdir=envs/prod init`: without it, it fails with 'Error: No valid credential sources found'.",
            "Run `terraform -chdir=envs/staging init` before `terraform -chdir=envs/staging plan`: without it, it fails with 'Error: Module not installed'."
        ));
        assert!(!same_lesson(
            "Never edit a migration once it's merged, run makemigrations and make a new one.",
            "Run `pytest` with `--ds=ledgerly.settings.test`."
        ));
    }
}
