//! A credential given in the clear. First the secret detectors of [`cm_base::redact`] (a rule
//! that would need redaction is refused, not stored redacted: "use [REDACTED] to log in" teaches
//! nothing and tells who reads it that a secret was there), then what reads as a password in
//! prose, which those detectors leave alone because it has no fixed shape: "the password is
//! X", "token: X", "with X as the passphrase", `-pX`, `sshpass -p X`, `--password X`.

/// Whether `text` (as shown, see [`super::normalise::display`]) carries a credential.
pub fn carried(text: &str) -> bool {
    if text.contains("[REDACTED") {
        return true;
    }
    if cm_base::redact::hinted(text).iter().any(|h| *h) && cm_base::redact::redact(text).1 > 0 {
        return true;
    }
    in_prose(text)
}

const NAMES: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "passcode",
    "pwd",
    "secret",
    "token",
    "api key",
    "apikey",
    "api_key",
    "access key",
    "private key",
    "pin code",
    "credentials",
];

fn in_prose(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let words: Vec<(usize, &str)> = words(text);
    for name in NAMES {
        for (at, _) in lower.match_indices(name) {
            let end = at + name.len();
            // After the name: "is X", "= X", ": X", "was X", "X" after a flag.
            let after = lower[end..].trim_start();
            let offset = text.len() - after.len();
            for sep in ["is ", "was ", "= ", "=", ": ", ":", "of ", "-> ", "to "] {
                if let Some(v) = after.strip_prefix(sep) {
                    let skip = offset + sep.len() + (v.len() - v.trim_start().len());
                    let v = first_word(&text[skip..]);
                    if secret_like(v) {
                        return true;
                    }
                }
            }
            // Before the name: "X as the password", "X is the token".
            let before: Vec<&str> = words
                .iter()
                .filter(|(i, _)| *i < at)
                .map(|(_, w)| *w)
                .collect();
            let n = before.len();
            for gap in [
                &["as", "the"][..],
                &["as"],
                &["as", "our"],
                &["as", "my"],
                &["is", "the"],
            ] {
                if n > gap.len()
                    && before[n - gap.len()..]
                        .iter()
                        .zip(gap.iter())
                        .all(|(w, g)| w.eq_ignore_ascii_case(g))
                    && secret_like(before[n - gap.len() - 1])
                {
                    return true;
                }
            }
        }
    }
    // A long token of mixed case and digits standing alone (a key without its label).
    if words.iter().any(|(_, w)| random_token(w)) {
        return true;
    }
    // Flags that take a password on client command lines.
    for (i, (_, w)) in words.iter().enumerate() {
        let lw = w.to_ascii_lowercase();
        if let Some(p) = lw.strip_prefix("-p").filter(|p| p.len() >= 6)
            && secret_like(&w[2..])
            && p.chars().any(|c| c.is_ascii_digit())
        {
            return true;
        }
        let takes_value =
            matches!(
                lw.as_str(),
                "--password" | "--passwd" | "--token" | "--api-key" | "--secret" | "--pass"
            ) || (lw == "-p" && i > 0 && words[i - 1].1.eq_ignore_ascii_case("sshpass"))
                || (lw == "-a"
                    && words[..i]
                        .iter()
                        .any(|(_, w)| w.eq_ignore_ascii_case("redis-cli")))
                || (lw == "-p"
                    && words[..i]
                        .iter()
                        .any(|(_, w)| w.eq_ignore_ascii_case("login")));
        if takes_value
            && let Some((_, v)) = words.get(i + 1)
            && secret_like(v)
        {
            return true;
        }
        if let Some(v) = lw
            .strip_prefix("--password=")
            .or_else(|| lw.strip_prefix("--token="))
            && secret_like(&w[w.len() - v.len()..])
        {
            return true;
        }
    }
    false
}

/// Words of `text` with their byte offsets (split at whitespace, outer punctuation trimmed).
fn words(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut at = 0;
    for raw in text.split(char::is_whitespace) {
        let start = at;
        at += raw.len() + 1;
        let w = raw.trim_matches(|c: char| matches!(c, ',' | ';' | '"' | '\'' | '`' | '(' | ')'));
        let w = w.trim_end_matches(['.', ':', '!', '?']);
        if !w.is_empty() {
            let lead = raw.find(w).unwrap_or(0);
            out.push((start + lead, w));
        }
    }
    out
}

fn first_word(s: &str) -> &str {
    let w = s
        .split(|c: char| c.is_whitespace() || c == ',')
        .next()
        .unwrap_or("");
    w.trim_matches(|c: char| matches!(c, '"' | '\'' | '`' | ';' | ')' | '('))
        .trim_end_matches(['.', ':', '!', '?'])
}

/// 24 or more letters and digits, both cases and digits among them, nothing else but `+`, `=`:
/// a key pasted without its label. Commit ids and hashes (one case), paths and UUIDs are not.
fn random_token(w: &str) -> bool {
    w.len() >= 24
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '='))
        && w.chars().any(|c| c.is_ascii_uppercase())
        && w.chars().any(|c| c.is_ascii_lowercase())
        && w.chars().filter(|c| c.is_ascii_digit()).count() >= 2
}

/// A word that reads as a secret value rather than a placeholder or an ordinary word: six or
/// more characters with a digit, an inner capital or a symbol.
fn secret_like(w: &str) -> bool {
    if w.chars().count() < 6 || w.starts_with(['$', '<', '[', '{', '%', '*']) {
        return false;
    }
    let lower = w.to_ascii_lowercase();
    const PLACEHOLDERS: &[&str] = &[
        "example",
        "changeme",
        "placeholder",
        "xxxx",
        "your",
        "redacted",
        "env",
        "environ",
        "vault",
        "secret",
        "password",
        "keychain",
        "stdin",
        "prompt",
        "manager",
        "file",
    ];
    if PLACEHOLDERS.iter().any(|p| lower.contains(p)) || w.contains("://") || w.contains('/') {
        return false;
    }
    let digit = w.chars().any(|c| c.is_ascii_digit());
    let inner_capital = w.chars().skip(1).any(|c| c.is_uppercase());
    let symbol = w
        .chars()
        .any(|c| !c.is_alphanumeric() && !matches!(c, '-' | '_' | '.'));
    let numeric = w.chars().all(|c| c.is_ascii_digit() || c == '.');
    !numeric && (digit || inner_capital || symbol)
}
