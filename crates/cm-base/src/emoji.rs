//! `CASS_MEMORY_NO_EMOJI`: human output without pictographs, for terminals and logs that show
//! them as boxes. cm writes none itself, but rules, diary entries and session text it prints may
//! hold them. JSON output is data and is never changed.

use std::borrow::Cow;

/// Whether the user asked for no emoji (`CASS_MEMORY_NO_EMOJI` set to anything but empty or 0).
pub fn disabled() -> bool {
    std::env::var("CASS_MEMORY_NO_EMOJI").is_ok_and(|v| !v.is_empty() && v != "0")
}

fn is_emoji(c: char) -> bool {
    matches!(c as u32,
        0x1F000..=0x1FAFF // pictographs, emoticons, transport, flags, symbols
        | 0x2600..=0x27BF // miscellaneous symbols, dingbats
        | 0x2B50..=0x2B55 // stars and circles
        | 0xFE0F          // emoji presentation selector
        | 0x200D          // zero-width joiner inside emoji sequences
    )
}

/// `text` with its emoji removed (and the space after one that began a word).
pub fn strip(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_emoji) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut dropped = false;
    for c in text.chars() {
        if is_emoji(c) {
            dropped = true;
            continue;
        }
        if dropped && c == ' ' && (out.is_empty() || out.ends_with([' ', '\n'])) {
            dropped = false;
            continue;
        }
        dropped = false;
        out.push(c);
    }
    Cow::Owned(out)
}

/// Human output as the user asked for it.
pub(crate) fn for_human(text: &str) -> Cow<'_, str> {
    if disabled() {
        strip(text)
    } else {
        Cow::Borrowed(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emoji_go_and_the_text_reads_on() {
        assert_eq!(strip("🚀 Ship small changes"), "Ship small changes");
        assert_eq!(strip("done ✅\nnext 👍🏽 step"), "done \nnext step");
        assert_eq!(
            strip("plain text, 100% ascii → arrows stay"),
            "plain text, 100% ascii → arrows stay"
        );
    }
}
