//! Context that hooks injected into a conversation is not what the user said: strip it before a
//! message is indexed.
//!
//! Gemini CLI stores a hook's `additionalContext` inside the user's own message, wrapped in
//! `<hook_context>…</hook_context>`; other agents store it as a message of its own. Indexed as the
//! user's words, cm's own injections became session titles ("please clean up <hook_context>Related
//! past records (cm)…"), search hits on cm's output, and the next session start's "recent
//! sessions" quoted them back. So every `<hook_context>` block goes, and so does any block that
//! starts with one of the headers cm's context hooks write (the prompt hook's "Related past records
//! (cm):", the session-start hook's "cm memory for …:") up to the next blank line. A message left
//! with no text is not indexed.

/// The first lines of cm's injected blocks (`src/app/prompt_flashback.rs`,
/// `src/app/session_start.rs`).
const CM_HEADERS: &[&str] = &["Related past records (cm):", "cm memory for "];

/// Blocks an agent wraps injected text in: hooks' context, and Gemini CLI's own description of
/// the environment (`<session_context>`, which Gemini itself never treats as the user's words).
const WRAPPERS: &[(&str, &str)] = &[
    ("<hook_context>", "</hook_context>"),
    ("<session_context>", "</session_context>"),
];

/// `text` without injected context, or `None` when it holds none (the common case, no copy).
pub fn strip(text: &str) -> Option<String> {
    if !WRAPPERS.iter().any(|(open, _)| text.contains(open))
        && !CM_HEADERS.iter().any(|h| text.contains(h))
    {
        return None;
    }
    let mut out = text.to_string();
    for (open, close) in WRAPPERS {
        out = without_blocks(&out, open, close);
    }
    let out = strip_cm_blocks(&out);
    (out != text).then(|| out.trim().to_string())
}

/// `text` without its `open`…`close` blocks (an unclosed one runs to the end).
fn without_blocks(text: &str, open: &str, close: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(open) {
        out.push_str(&rest[..at]);
        rest = match rest[at..].find(close) {
            Some(end) => &rest[at + end + close.len()..],
            None => "",
        };
    }
    out.push_str(rest);
    out
}

/// Remove each block that starts with a line opening with one of cm's headers, through the last
/// non-blank line after it.
fn strip_cm_blocks(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut skipping = false;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_start();
        if CM_HEADERS.iter().any(|h| bare.starts_with(h)) && is_cm_header(bare) {
            skipping = true;
            continue;
        }
        if skipping && !line.trim().is_empty() {
            continue;
        }
        skipping = false;
        out.push_str(line);
    }
    out
}

/// "cm memory for " only counts as cm's header when the line ends the way cm writes it (a colon):
/// a user who writes "cm memory for this repo is slow" keeps their words.
fn is_cm_header(line: &str) -> bool {
    line.starts_with(CM_HEADERS[0]) || line.trim_end().ends_with(':')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gemini_hook_context_leaves_only_the_users_words() {
        let text = "please clean up the build dir\n\n<hook_context>Related past records (cm):\n- rule [b-1] never rm -rf build</hook_context>";
        assert_eq!(
            strip(text).as_deref(),
            Some("please clean up the build dir")
        );
        // Several blocks, and one left open by a cut-off record.
        let text =
            "<hook_context>a</hook_context>fix it<hook_context>b</hook_context> now<hook_context>c";
        assert_eq!(strip(text).as_deref(), Some("fix it now"));
        let text = "<session_context>\nThis is the Gemini CLI. OS: linux\n</session_context>";
        assert_eq!(strip(text).as_deref(), Some(""));
    }

    #[test]
    fn cm_blocks_on_their_own_leave_nothing() {
        let text = "cm memory for /home/u/app (branch main):\nRules that applied to similar work:\n- [b-2] run the tests first\nRule ids cited in replies count as uses.";
        assert_eq!(strip(text).as_deref(), Some(""));
        let text = "Related past records (cm):\n- 2026-08-01 claude session s1 (arousal 2.0): deleted the db\n\nand this was typed after";
        assert_eq!(strip(text).as_deref(), Some("and this was typed after"));
    }

    #[test]
    fn the_users_own_text_is_untouched() {
        assert_eq!(strip("please clean up the build dir"), None);
        assert_eq!(strip("the cm memory for this repo is slow"), None);
        assert_eq!(strip("cm memory for this repo is slow\nwhy?"), None);
    }
}
