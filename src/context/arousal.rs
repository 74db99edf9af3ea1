//! Arousal: how significant a past moment was, in [0, 1], from signals in its text.
//!
//! Significant moments should fade more slowly than routine ones: a history entry's recency
//! half-life is `base x (1 + arousal)`, so an entry with arousal 1 stays relevant twice as long.
//! Each signal below contributes its weight once (errors scale with how many there were, up to
//! three), and the signals combine as a noisy-or, `1 - prod(1 - w_i)`, so several weak signals add
//! up without ever exceeding 1:
//!
//! | signal | weight | recognised by (whole words, case-insensitive) |
//! |---|---|---|
//! | errors | 0.10 per error, up to 0.30 | failed tool results; "error", "failed", "exception", "panic", "traceback" |
//! | reverted work | 0.25 | "revert", "reverted", "rollback", "rolled back", "undo", "git reset" |
//! | user correction | 0.30 | user text: "no,", "wrong", "that's not", "actually", "stop", "instead", "don't" |
//! | breakthrough | 0.25 | "finally", "it works", "works now", "fixed it", "root cause", "turns out" |
//! | milestone | 0.20 | "released", "shipped", "merged", "deployed", "milestone", "complete", "completed" |
//! | direction change | 0.20 | "wait", "assumption", "pivot", "rethink", "changed approach" |

/// Text of one message plus what is known about it.
pub struct Signal<'a> {
    pub text: &'a str,
    pub from_user: bool,
    pub is_error: bool,
}

const ERROR_WORDS: &[&str] = &[
    "error",
    "errors",
    "failed",
    "failure",
    "exception",
    "panic",
    "traceback",
];
const REVERT: &[&str] = &[
    "revert",
    "reverted",
    "reverting",
    "rollback",
    "rolled back",
    "undo",
    "git reset",
];
const CORRECTION: &[&str] = &[
    "no,",
    "wrong",
    "that's not",
    "actually",
    "stop",
    "instead",
    "don't",
];
const BREAKTHROUGH: &[&str] = &[
    "finally",
    "it works",
    "works now",
    "fixed it",
    "root cause",
    "turns out",
];
const MILESTONE: &[&str] = &[
    "released",
    "shipped",
    "merged",
    "deployed",
    "milestone",
    "complete",
    "completed",
];
const DIRECTION: &[&str] = &["wait", "assumption", "pivot", "rethink", "changed approach"];

pub const REVERT_W: f64 = 0.25;
pub const CORRECTION_W: f64 = 0.30;
pub const BREAKTHROUGH_W: f64 = 0.25;
pub const MILESTONE_W: f64 = 0.20;
pub const DIRECTION_W: f64 = 0.20;
pub const ERROR_W: f64 = 0.10;
pub const ERROR_MAX: usize = 3;

/// The signal families, each with its words.
const FAMILIES: [&[&str]; 6] = [
    ERROR_WORDS,
    REVERT,
    CORRECTION,
    BREAKTHROUGH,
    MILESTONE,
    DIRECTION,
];
/// Indices into [`FAMILIES`].
const ERRORS: usize = 0;
const CORRECTIONS: usize = 2;

/// One automaton over every family's words (ASCII case-insensitive), built once per process on
/// first use: a session's messages are each scanned once, instead of once per word.
fn matcher() -> &'static (aho_corasick::AhoCorasick, Vec<usize>) {
    static M: std::sync::OnceLock<(aho_corasick::AhoCorasick, Vec<usize>)> =
        std::sync::OnceLock::new();
    M.get_or_init(|| {
        let (words, family): (Vec<&str>, Vec<usize>) = FAMILIES
            .iter()
            .enumerate()
            .flat_map(|(f, words)| words.iter().map(move |w| (*w, f)))
            .unzip();
        // A contiguous NFA: a few microseconds to build, where a DFA costs tens.
        let ac = aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
            .build(words)
            .expect("the signal words form a valid automaton");
        (ac, family)
    })
}

/// Which families occur in `text` as whole words (bounded by non-alphanumerics).
fn families_in(text: &str) -> [bool; 6] {
    let (ac, family) = matcher();
    let mut found = [false; 6];
    for m in ac.find_overlapping_iter(text) {
        let before = text[..m.start()].chars().next_back();
        let after = text[m.end()..].chars().next();
        if !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric) {
            found[family[m.pattern().as_usize()]] = true;
        }
    }
    found
}

/// Arousal of a set of messages (a session, an entry, a snippet).
pub fn arousal<'a>(messages: impl IntoIterator<Item = Signal<'a>>) -> f64 {
    let mut errors = 0usize;
    let mut seen = [false; 6];
    for m in messages {
        let found = families_in(m.text);
        if m.is_error || found[ERRORS] {
            errors += 1;
        }
        for (f, hit) in found.iter().enumerate().skip(1) {
            // A correction counts only when the user makes it.
            if *hit && (f != CORRECTIONS || m.from_user) {
                seen[f] = true;
            }
        }
    }
    let mut keep = 1.0 - ERROR_W * errors.min(ERROR_MAX) as f64;
    for (on, w) in [
        (seen[1], REVERT_W),
        (seen[2], CORRECTION_W),
        (seen[3], BREAKTHROUGH_W),
        (seen[4], MILESTONE_W),
        (seen[5], DIRECTION_W),
    ] {
        if on {
            keep *= 1.0 - w;
        }
    }
    ((1.0 - keep) * 1000.0).round() / 1000.0
}

/// Half-life of a memory with this arousal.
pub fn half_life_days(base_days: f64, arousal: f64) -> f64 {
    base_days * (1.0 + arousal.clamp(0.0, 1.0))
}

/// Recency weight of a memory `age_days` old.
pub fn recency(age_days: f64, base_days: f64, arousal: f64) -> f64 {
    crate::memory::scoring::decay_factor(age_days, half_life_days(base_days, arousal))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(t: &str, user: bool) -> Signal<'_> {
        Signal {
            text: t,
            from_user: user,
            is_error: false,
        }
    }

    #[test]
    fn routine_work_is_calm() {
        assert_eq!(
            arousal([text("Added a field to the config struct", false)]),
            0.0
        );
    }

    #[test]
    fn signals_add_up_without_exceeding_one() {
        let one = arousal([text("Finally it works", false)]);
        assert!((one - BREAKTHROUGH_W).abs() < 1e-9);
        let many = arousal([
            text("No, that's wrong, revert it", true),
            text("error: build failed", false),
            Signal {
                text: "",
                from_user: false,
                is_error: true,
            },
            Signal {
                text: "",
                from_user: false,
                is_error: true,
            },
            text("finally fixed it, merged and released", false),
            text("wait, the assumption was wrong", false),
        ]);
        assert!(many > 0.8 && many <= 1.0, "{many}");
    }

    #[test]
    fn corrections_count_only_from_the_user_and_words_are_whole() {
        assert_eq!(arousal([text("Actually, instead use X", false)]), 0.0);
        assert!(arousal([text("Actually, instead use X", true)]) > 0.0);
        assert_eq!(arousal([text("errorless completeness awaits", false)]), 0.0);
    }

    #[test]
    fn significant_memories_fade_slower() {
        assert_eq!(half_life_days(30.0, 0.0), 30.0);
        assert_eq!(half_life_days(30.0, 1.0), 60.0);
        assert!(recency(30.0, 30.0, 0.9) > recency(30.0, 30.0, 0.1));
        assert!((recency(30.0, 30.0, 0.0) - 0.5).abs() < 1e-12);
    }
}
