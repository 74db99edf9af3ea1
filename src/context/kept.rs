//! Derived data a long-running process (the MCP server) keeps between calls: the arousal of the
//! sessions history hits fall in. A session's arousal depends on its first messages alone, so it
//! is the same for every task; reading them (a hundred rows) and scanning them for signal words
//! was about 6% of a warm server's `cm_context`.
//!
//! Each value is kept with the key of its session's indexed state
//! ([`crate::episodic::sessions::head_state`]), read in the caller's own snapshot: a session the
//! indexer changed since (another process indexing while the server serves) has another key, so
//! its kept value is never used. A one-shot command keeps nothing (it would only pay for the
//! key).

use std::collections::HashMap;
use std::sync::Mutex;

/// Sessions kept at most; past it the map starts again (a few hundred kilobytes).
pub const MAX_SESSIONS: usize = 4096;

type Arousals = HashMap<(String, String), (String, f64)>;

static AROUSAL: Mutex<Option<Arousals>> = Mutex::new(None);

/// The arousal kept for session `agent`/`session_id` in state `key`, if any.
pub fn arousal(agent: &str, session_id: &str, key: &str) -> Option<f64> {
    let kept = AROUSAL.lock().ok()?;
    let (k, a) = kept
        .as_ref()?
        .get(&(agent.to_string(), session_id.to_string()))?;
    (k == key).then_some(*a)
}

/// Keep `a` as the arousal of the session in state `key`.
pub fn keep_arousal(agent: &str, session_id: &str, key: String, a: f64) {
    let Ok(mut kept) = AROUSAL.lock() else { return };
    let map = kept.get_or_insert_with(HashMap::new);
    if map.len() >= MAX_SESSIONS {
        map.clear();
    }
    map.insert((agent.to_string(), session_id.to_string()), (key, a));
}

/// Forget everything kept (a server idle for a while gives its memory back).
pub fn forget() {
    if let Ok(mut kept) = AROUSAL.lock() {
        *kept = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_used_only_in_the_state_it_was_kept_in() {
        keep_arousal("a", "kept-test", "1/10".into(), 0.25);
        assert_eq!(arousal("a", "kept-test", "1/10"), Some(0.25));
        assert_eq!(arousal("a", "kept-test", "1/11"), None);
        assert_eq!(arousal("b", "kept-test", "1/10"), None);
        keep_arousal("a", "kept-test", "1/11".into(), 0.5);
        assert_eq!(arousal("a", "kept-test", "1/10"), None);
        assert_eq!(arousal("a", "kept-test", "1/11"), Some(0.5));
    }
}
