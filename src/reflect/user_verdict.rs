//! What the user's last words say about how the session went. A session whose user ends with
//! "still broken", or with "no no no, stop" and no work after it, did not succeed, whatever the
//! last test run printed: the agent was going somewhere the user did not want, or did not get
//! there. A rejection the agent then acted on ("no, use pnpm; undo that", then the work done
//! again) leaves the verdict to what followed.

/// Words in the user's last messages that say the work is not done.
const STILL_BROKEN: &[&str] = &[
    "still doesn't work",
    "still does not work",
    "still broken",
    "still failing",
    "still fails",
    "this is wrong",
    "that's wrong",
    "doesn't work",
    "give up",
];

/// Word sequences that stop or reject what the agent is doing.
const REJECTS: &[&[&str]] = &[
    &["no", "no"],
    &["no", "stop"],
    &["please", "stop"],
    &["stop", "doing"],
    &["not", "what", "i", "asked"],
    &["not", "what", "i", "wanted"],
    &["undo", "that"],
    &["undo", "this"],
    &["revert", "that"],
    &["revert", "this"],
    &["you", "broke"],
    &["request", "interrupted", "by", "user"],
];

fn words(lower: &str) -> Vec<&str> {
    lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .collect()
}

/// The user says the work is still not done.
pub fn still_broken(text: &str) -> bool {
    let lower = text.to_lowercase();
    STILL_BROKEN.iter().any(|w| lower.contains(w))
}

/// The user stops or rejects what the agent did: a rejecting phrase, or "stop" as the message's
/// last word or as its first followed by punctuation ("Stop! ..."). A bare "no" or "nope" is
/// not one: it mostly answers "anything else?".
pub fn rejects(text: &str) -> bool {
    let lower = text.trim().to_lowercase();
    let w = words(&lower);
    let stop_first = lower
        .strip_prefix("stop")
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_punctuation()));
    REJECTS
        .iter()
        .any(|p| w.windows(p.len()).any(|win| win == *p))
        || w.last() == Some(&"stop")
        || stop_first
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_or_a_refusal_is_a_rejection() {
        for t in [
            "no no no, stop",
            "No, stop.",
            "stop",
            "that's not what I asked for",
            "ok stop",
            "Stop! That deletes the fixtures",
            "please revert that, you broke the build",
            "[Request interrupted by user for tool use]",
        ] {
            assert!(rejects(t), "{t}");
        }
        for t in [
            "no worries, thanks",
            "no notes, ship it",
            "nope",
            "no",
            "Stop the dev server before you run the migration",
            "no, that's all",
            "great, thanks",
            "Don't use moment here, we use date-fns",
        ] {
            assert!(!rejects(t), "{t}");
        }
        assert!(still_broken("It still doesn't work on Safari"));
    }
}
