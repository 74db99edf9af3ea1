//! Secrets wrapped in base64: a token encoded into a config value, a Kubernetes secret's
//! `data:`, an `echo ... | base64` in a shell session. The patterns cannot see through the
//! encoding, so each run of the base64 alphabet long enough to hold a token is decoded and the
//! decoded text scanned; a run that hides a secret is redacted whole.
//!
//! Cheap by construction: one pass over the bytes finds the runs; a run is decoded only when
//! it is at least [`MIN_RUN`] long, and given up as soon as it decodes to bytes that are not
//! text (hashes, images and ordinary words decode to binary within a few bytes).

/// Shortest run worth decoding: 24 characters decode to 18 bytes, the shortest tokens.
pub(crate) const MIN_RUN: usize = 24;
/// Longest run decoded: a larger blob is an image or an archive, not a wrapped token.
const MAX_RUN: usize = 64 * 1024;

fn is_alphabet(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'-' | b'_')
}

/// Byte ranges of base64-looking runs (padding included) of at least [`MIN_RUN`] characters.
pub fn runs(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !is_alphabet(b[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && is_alphabet(b[i]) {
            i += 1;
        }
        let mut end = i;
        while end < b.len() && end - i < 2 && b[end] == b'=' {
            end += 1;
        }
        if (MIN_RUN..=MAX_RUN).contains(&(i - start)) {
            out.push((start, end));
        }
        i = end.max(i);
    }
    out
}

fn value(c: u8) -> Option<u32> {
    Some(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' | b'-' => 62,
        b'/' | b'_' => 63,
        _ => return None,
    } as u32)
}

/// `run` decoded, when it decodes to printable text (standard or URL-safe alphabet).
pub(crate) fn decode_text(run: &str) -> Option<String> {
    let body = run.trim_end_matches('=').as_bytes();
    if body.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(body.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for &c in body {
        acc = (acc << 6) | value(c)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            let byte = (acc >> bits) as u8;
            acc &= (1 << bits) - 1;
            // Text or nothing: stop at the first byte no text holds.
            if !(byte.is_ascii_graphic() || matches!(byte, b' ' | b'\n' | b'\r' | b'\t')) {
                return None;
            }
            out.push(byte);
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_found_and_decoded_only_when_they_are_text() {
        let text = "token: Z2hwX2FiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6MDEyMzQ1Njc4OQ== and a35b9c0e8f2a4d6b8c0e2f4a6b8c0d2e4f6a8b0c";
        let found = runs(text);
        assert_eq!(found.len(), 2, "{found:?}");
        let (s, e) = found[0];
        assert_eq!(
            decode_text(&text[s..e]).as_deref(),
            Some("ghp_abcdefghijklmnopqrstuvwxyz0123456789")
        );
        let (s, e) = found[1];
        assert_eq!(decode_text(&text[s..e]), None, "a hex hash is not text");
        assert_eq!(decode_text("abcdefghijklmnopqrstuvwxyz"), None);
    }
}
