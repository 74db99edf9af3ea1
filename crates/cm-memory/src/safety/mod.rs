//! The one safety check every rule passes before it can reach an agent, wherever it comes from:
//! reflection over a session, `cm playbook add` and `import`, a starter playbook, a cloned
//! repository's `.cass/playbook.yaml`. Each of those is text someone else may have written to
//! plant a rule (a session's user lines, a pasted file, a committed file), and a rule is read by
//! the next session as advice. So a rule is refused when it
//!
//! - reads like instructions to a model ([`injection`]),
//! - carries a credential ([`credential`]),
//! - would switch cm's guard or hooks off, or run code fetched from the network ([`commands`]),
//! - recommends a command the guard blocks, or gives a container the host (risky: `cm playbook
//!   add --allow-risky` can still add it; nothing else does).
//!
//! Every test runs on the text as a reader sees it ([`normalise`]): zero-width characters,
//! look-alike letters, entities and full-width forms do not hide a phrase. Titles and snippets
//! shown to agents pass [`injection`] through the sanitizer (`context::sanitize`) the same way.

pub mod commands;
pub mod credential;
pub mod injection;
pub mod normalise;

use serde::Serialize;

/// How firmly a rule is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Never stored, whoever asks.
    Refused,
    /// Stored only when the user adds it by hand with `--allow-risky`.
    Risky,
}

/// Why a rule must not be stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refusal {
    pub severity: Severity,
    pub reason: String,
}

impl Refusal {
    /// The error code `cm playbook add` answers with.
    pub fn code(&self) -> &'static str {
        match self.severity {
            Severity::Refused => "RULE_REFUSED",
            Severity::Risky => "RULE_RISKY",
        }
    }

    fn refused(reason: &str) -> Refusal {
        Refusal {
            severity: Severity::Refused,
            reason: reason.to_string(),
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

impl From<Refusal> for String {
    fn from(r: Refusal) -> String {
        r.reason
    }
}

/// Why `rule` must not be stored or shown as advice, when it must not. Refusals come before
/// risks, so the firmest reason is the one given.
pub fn refusal(rule: &str) -> Option<Refusal> {
    let shown = normalise::display(rule);
    let folded = normalise::fold(rule);
    if let Some(why) = injection::find(&folded) {
        return Some(Refusal::refused(why));
    }
    if credential::carried(&shown) {
        return Some(Refusal::refused("it would carry a credential"));
    }
    let pattern = commands::pattern_refusal(&folded);
    if let Some(r) = pattern.as_ref().filter(|r| r.severity == Severity::Refused) {
        return Some(r.clone());
    }
    commands::guard_refusal(&shown).or(pattern)
}

/// `lines` without those that carry a credential or read like instructions to a model (for the
/// diary, whose lines come from the same untrusted session).
pub fn scrub(lines: &mut Vec<String>) {
    lines.retain(|l| {
        let folded = normalise::fold(l);
        injection::find(&folded).is_none() && !credential::carried(&normalise::display(l))
    });
}

#[cfg(test)]
mod tests;
