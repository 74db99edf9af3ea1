//! The last pass over a diary entry, whoever wrote its lines (the deterministic reflector, the
//! LLM pass or both): each line once in the entry, and the user's request never listed as
//! something the session accomplished.
//!
//! - Lines are compared by their words (case, spacing and a closing period aside), so "`npm
//!   test` failed: X" seen three times, or a convention the user stated twice, is one line.
//! - A line is listed in one section: a preference (a convention or a correction the user
//!   stated) is not repeated among the key learnings; a challenge is not also a learning.
//! - A failed command appears once per command and error, keeping the fix when one run found it.
//! - An accomplishment that is what the user asked for (a session's fallback title is its first
//!   request, cut to 80 characters) says nothing about what was done: it is dropped.

use super::diary::DiaryEntry;
use super::transcript::Transcript;

/// A line's comparable form.
pub fn key(line: &str) -> String {
    line.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .trim_end_matches(['.', '…', '!', ';', ':'])
        .trim_end()
        .to_lowercase()
}

/// Whether `line` is (the start of) something the user said.
fn is_a_request(line: &str, t: &Transcript) -> bool {
    let k = key(line);
    k.len() >= 8 && t.user_texts().any(|(_, u)| key(u).starts_with(&k))
}

pub fn tidy(entry: &mut DiaryEntry, t: &Transcript) {
    entry.accomplishments.retain(|l| !is_a_request(l, t));
    let mut seen: Vec<String> = Vec::new();
    // Earlier sections keep a line that a later one repeats.
    for lines in [
        &mut entry.accomplishments,
        &mut entry.preferences,
        &mut entry.key_learnings,
        &mut entry.decisions,
        &mut entry.challenges,
    ] {
        lines.retain(|l| {
            let k = key(l);
            if k.is_empty() || seen.contains(&k) {
                return false;
            }
            seen.push(k);
            true
        });
    }
    let mut commands: Vec<super::diary::FailedCommand> = Vec::new();
    for c in std::mem::take(&mut entry.failed_commands) {
        match commands
            .iter_mut()
            .find(|k| key(&k.command) == key(&c.command) && key(&k.error) == key(&c.error))
        {
            Some(kept) => {
                if kept.fixed_by.is_none() {
                    kept.fixed_by = c.fixed_by;
                }
            }
            None => commands.push(c),
        }
    }
    entry.failed_commands = commands;
}
