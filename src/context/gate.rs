//! The query gate: should a prompt trigger a memory lookup at all?
//!
//! Acknowledgements and greetings ("ok", "thanks", "yes, continue") and slash commands carry no
//! topic; looking them up only adds noise and latency. The rules work on whole words, never on
//! prefixes: "okhttp timeout", "yesterday's failure" and "CI is red" pass. A prompt that asks to
//! remember ("remember", "last time", "previously", "again", "recall", "earlier") always passes.
//! Pure and allocation-light: it runs on every prompt before anything is opened.

/// What the gate decided and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Look up memory; `recall` when the prompt explicitly refers to the past.
    Retrieve {
        recall: bool,
    },
    Skip(&'static str),
}

impl Decision {
    pub fn retrieve(self) -> bool {
        matches!(self, Decision::Retrieve { .. })
    }
}

/// Words that, on their own, make an acknowledgement, a greeting or a go-ahead.
const ACK_WORDS: &[&str] = &[
    "ack", "ahead", "alright", "all", "awesome", "bye", "carry", "cheers", "continue", "cool",
    "do", "done", "evening", "fine", "go", "going", "good", "got", "great", "hello", "hey", "hi",
    "it", "k", "keep", "kk", "lgtm", "looks", "makes", "morning", "much", "n", "nice", "no",
    "nope", "ok", "okay", "on", "perfect", "please", "proceed", "right", "sense", "so", "sounds",
    "sure", "thank", "thanks", "that", "thx", "ty", "very", "y", "ya", "yeah", "yep", "yes", "you",
];

/// Whole words (or word pairs) that always ask for memory.
const RECALL_WORDS: &[&str] = &["remember", "previously", "again", "recall", "earlier"];
const RECALL_PAIRS: &[(&str, &str)] = &[("last", "time"), ("did", "we"), ("we", "did")];

pub fn decide(prompt: &str) -> Decision {
    let text = prompt.trim();
    if text.is_empty() {
        return Decision::Skip("empty prompt");
    }
    if is_slash_command(text) {
        return Decision::Skip("slash command");
    }
    let words = words(text);
    if words.is_empty() {
        return Decision::Skip("no words");
    }
    let recall = words.iter().any(|w| RECALL_WORDS.contains(&w.as_str()))
        || words
            .windows(2)
            .any(|p| RECALL_PAIRS.contains(&(p[0].as_str(), p[1].as_str())));
    if recall {
        return Decision::Retrieve { recall: true };
    }
    if words.len() <= 8 && words.iter().all(|w| ACK_WORDS.contains(&w.as_str())) {
        return Decision::Skip("acknowledgement or greeting");
    }
    if super::tokenize::terms(text).is_empty() {
        return Decision::Skip("no topic words");
    }
    Decision::Retrieve { recall: false }
}

/// `/compact`, `/review auth`: a first word that is a slash and a name, with no further slash
/// (so `/etc/hosts is wrong` is a path, not a command).
fn is_slash_command(text: &str) -> bool {
    let first = text.split_whitespace().next().unwrap_or("");
    first.len() > 1
        && first.starts_with('/')
        && !first[1..].contains('/')
        && first[1..]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == ':')
}

/// Lower-case words; an apostrophe belongs to its word ("yesterday's" stays one word).
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '\u{2019}'))
        .map(|w| w.trim_matches(|c| c == '\'' || c == '\u{2019}'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_acknowledgements_greetings_and_commands() {
        for p in [
            "ok",
            "OK!",
            "thanks",
            "Thank you very much",
            "yes",
            "yes, continue",
            "continue",
            "go ahead",
            "sounds good",
            "hi",
            "good morning",
            "lgtm",
            "/compact",
            "/clear",
            "/review",
            "  ",
            "👍",
            "...",
        ] {
            assert!(!decide(p).retrieve(), "{p:?} should be skipped");
        }
    }

    #[test]
    fn whole_words_only() {
        for p in [
            "okhttp timeout",
            "yesterday's failure",
            "CI is red",
            "thanksgiving release notes",
            "yes but the migration fails on sqlite",
            "/etc/hosts is being overwritten",
            "continue the refactor of the parser",
        ] {
            assert!(decide(p).retrieve(), "{p:?} should retrieve");
        }
    }

    #[test]
    fn recall_words_always_retrieve() {
        for p in [
            "remember?",
            "like last time",
            "as previously",
            "again",
            "do it again ok",
        ] {
            assert_eq!(decide(p), Decision::Retrieve { recall: true }, "{p:?}");
        }
        assert_eq!(decide("ok again"), Decision::Retrieve { recall: true });
    }
}
