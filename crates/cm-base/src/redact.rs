//! Secret detection and redaction, shared by everything that stores or shows text taken from
//! sessions: the index, the playbook, the diary, context output and the pre-commit scan.
//!
//! Patterns ([`patterns`], sixty kinds) cover private key blocks; cloud keys and tokens
//! (AWS keys and session tokens, Azure storage keys and SAS signatures, Google, DigitalOcean,
//! Alibaba, Terraform Cloud, Pulumi, Vault, Doppler); VCS and registry tokens (GitHub, GitLab,
//! npm, PyPI, Docker Hub, Hugging Face); payment keys (Stripe keys and webhook secrets, Square,
//! Braintree); messaging and SaaS keys (Slack, Discord, Telegram, SendGrid, Mailgun, Mailchimp,
//! Twilio, Shopify, Linear, Atlassian, New Relic, Postman, Grafana, Databricks); AI keys
//! (Anthropic, OpenAI); bearer and basic auth headers, JWTs, URLs with passwords (database URLs
//! included, `redis://:pw@` too), `age` keys, and password-like assignments (`.env` lines,
//! YAML/JSON keys, quoted passphrases), secrets given to clients as flag values, credential
//! files (`.netrc`, `.pgpass`, kubeconfig key data) and passphrases said in prose; runs of base64
//! that decode to text holding a secret are redacted whole ([`wrapped`]). Each match is
//! replaced by `[REDACTED:<kind>]`, and counted. Hashes, commit ids, UUIDs, lockfile integrity strings and base64 images carry no
//! such context and are left alone (the tests hold a corpus of both).

mod patterns;
mod wrapped;

use once_cell::sync::{Lazy, OnceCell};
use patterns::{Hint, SOURCES, Then};
use regex::Regex;

/// One kind of secret: a name for reports and the regex that finds it.
pub struct SecretPattern {
    /// The kind's name in reports (`aws-access-key`, ...).
    pub kind: &'static str,
    /// What finds it.
    pub regex: Regex,
}

/// Each pattern compiled on first need, independently: the pre-commit scan of ordinary code
/// usually needs two or three of them, not all.
static COMPILED: Lazy<Vec<OnceCell<Regex>>> =
    Lazy::new(|| SOURCES.iter().map(|_| OnceCell::new()).collect());

fn compiled(i: usize) -> &'static Regex {
    COMPILED[i].get_or_init(|| Regex::new(SOURCES[i].regex).expect("secret pattern compiles"))
}

/// Every pattern compiled (for callers that want the whole table).
pub static PATTERNS: Lazy<Vec<SecretPattern>> = Lazy::new(|| {
    SOURCES
        .iter()
        .enumerate()
        .map(|(i, s)| SecretPattern {
            kind: s.kind,
            regex: compiled(i).clone(),
        })
        .collect()
});

/// Every hint of every pattern as a prebuilt substring searcher (SIMD `memmem`), and the
/// pattern each belongs to. About 90 literals: searching for each in turn measured 2.6x faster
/// than one Aho-Corasick pass that reports them all (`bench/literals.sh`: 4 KiB of session text,
/// 7.4 µs against 19.2 µs; 1 MiB, 1.9 ms against 5.2 ms; `str::contains` per literal, as
/// before, 11.8 µs and 3.1 ms), so the automaton is not used here.
struct Prefilter {
    exact: Vec<(memchr::memmem::Finder<'static>, usize)>,
    /// Searched in the lowercased text.
    lower: Vec<(memchr::memmem::Finder<'static>, usize)>,
    /// Searched in the lowercased text, each occurrence checked for what must follow it.
    lower_then: Vec<(memchr::memmem::Finder<'static>, usize, Then)>,
}

static PREFILTER: Lazy<Prefilter> = Lazy::new(|| {
    let mut p = Prefilter {
        exact: Vec::new(),
        lower: Vec::new(),
        lower_then: Vec::new(),
    };
    for (i, src) in SOURCES.iter().enumerate() {
        let (words, into) = match src.hint {
            Hint::Exact(w) => (w, &mut p.exact),
            Hint::Lower(w) => (w, &mut p.lower),
            Hint::LowerThen(w, then) => {
                p.lower_then.extend(
                    w.iter()
                        .map(|w| (memchr::memmem::Finder::new(w.as_bytes()), i, then)),
                );
                continue;
            }
        };
        into.extend(
            words
                .iter()
                .map(|w| (memchr::memmem::Finder::new(w.as_bytes()), i)),
        );
    }
    p
});

/// Which patterns have a hint in `text` (one flag per pattern, in table order).
pub fn hinted(text: &str) -> Vec<bool> {
    let p = &*PREFILTER;
    let mut on = vec![false; SOURCES.len()];
    for (f, i) in &p.exact {
        if !on[*i] && f.find(text.as_bytes()).is_some() {
            on[*i] = true;
        }
    }
    let lower = text.to_ascii_lowercase();
    for (f, i) in &p.lower {
        if !on[*i] && f.find(lower.as_bytes()).is_some() {
            on[*i] = true;
        }
    }
    for (f, i, then) in &p.lower_then {
        if !on[*i]
            && f.find_iter(lower.as_bytes())
                .any(|at| followed_by(&lower, at + f.needle().len(), *then))
        {
            on[*i] = true;
        }
    }
    on
}

/// Whether `lower[from..]` starts with what `then` asks for (a necessary condition of the
/// pattern's regex: never false where the regex could match).
fn followed_by(lower: &str, from: usize, then: Then) -> bool {
    let Some(rest) = lower.get(from..) else {
        return false;
    };
    match then {
        Then::Assignment => {
            let rest = rest
                .trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            let rest = rest.strip_prefix('\\').unwrap_or(rest);
            let rest = rest.strip_prefix(['"', '\'']).unwrap_or(rest);
            rest.trim_start().starts_with(['=', ':'])
        }
        Then::SpaceThenToken(min) => {
            let token = rest.trim_start();
            token.len() < rest.len()
                && token
                    .chars()
                    .take_while(|c| {
                        c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '=' | '/' | '+')
                    })
                    .count()
                    >= min
        }
    }
}

/// The hint table as (kind, hints, case-insensitive), for benchmarks and tests.
pub fn hint_table() -> Vec<(&'static str, &'static [&'static str], bool)> {
    SOURCES
        .iter()
        .map(|s| match s.hint {
            Hint::Exact(w) => (s.kind, w, false),
            Hint::Lower(w) | Hint::LowerThen(w, _) => (s.kind, w, true),
        })
        .collect()
}

/// Words that look like assignments to secrets but are not (placeholders, env references).
fn is_placeholder(value: &str) -> bool {
    let v = value.trim_matches(|c| c == '"' || c == '\'');
    let lower = v.to_ascii_lowercase();
    v.starts_with('$')
        || v.starts_with("${")
        || v.starts_with('<')
        || v.starts_with("[REDACTED")
        || v.starts_with("process.env")
        || v.starts_with("os.environ")
        || v.starts_with("env.")
        || lower.contains("xxxx")
        || lower.contains("changeme")
        || lower.contains("placeholder")
        || lower.contains("example")
        || lower == "required"
        || lower == "optional"
        || lower == "undefined"
        || lower == "none"
        || lower == "null"
        || lower == "true"
        || lower == "false"
        || matches!(
            lower.as_str(),
            "string"
                | "number"
                | "boolean"
                | "integer"
                | "object"
                | "secret"
                | "password"
                | "redacted"
                | "hidden"
                | "unknown"
                | "missing"
                | "default"
                | "not set"
        )
        || lower.starts_with("your")
        || lower.starts_with("<your")
        || v.chars().all(|c| c == '*' || c == '.')
}

/// A variable or member reference as code writes it: letters, underscores and dots, no digits,
/// with a word boundary inside (`password_field`, `this.authToken`, `cfg.token`). Real secrets
/// nearly always carry digits; an unquoted all-letter word without such a boundary
/// (`supersecretpassword` in a .env file) is still reported.
fn is_code_identifier(v: &str) -> bool {
    let v = v.trim_end_matches([';', ',']);
    let letters_only = !v.is_empty()
        && v.chars()
            .all(|c| c.is_ascii_alphabetic() || c == '_' || c == '.')
        && !v.starts_with('.')
        && !v.ends_with('.');
    let has_boundary = v.contains('_')
        || v.contains('.')
        || v.as_bytes()
            .windows(2)
            .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase());
    letters_only && has_boundary
}

/// `text` with each `\n`, `\r` and `\t` escape (not an escaped backslash followed by the
/// letter) replaced by two spaces: the same length, so offsets carry over.
fn escapes_as_spaces(text: &str) -> String {
    let mut b = text.as_bytes().to_vec();
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i] == b'\\' {
            if matches!(b[i + 1], b'n' | b'r' | b't') {
                b[i] = b' ';
                b[i + 1] = b' ';
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    String::from_utf8(b).expect("ASCII replaced by ASCII")
}

/// `name(...)`, `a.b(...)`, `T::new(...)`: a function call, not a value.
fn looks_like_call(v: &str) -> bool {
    let Some((head, _)) = v.split_once('(') else {
        return false;
    };
    !head.is_empty()
        && head
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '$'))
}

/// Shannon entropy in bits per character, used to tell real secrets from words.
pub(crate) fn entropy(s: &str) -> f64 {
    let mut counts = [0u32; 256];
    let mut n = 0u32;
    for b in s.bytes() {
        counts[b as usize] += 1;
        n += 1;
    }
    if n == 0 {
        return 0.0;
    }
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / n as f64;
            -p * p.log2()
        })
        .sum()
}

/// A secret found in text: its kind and byte range.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// The kind's name in reports (`aws-access-key`, ...).
    pub kind: &'static str,
    /// Where the secret starts (byte offset).
    pub start: usize,
    /// Where it ends (byte offset, exclusive).
    pub end: usize,
}

/// Every secret in `text`, non-overlapping, in order: what the patterns see, and runs of base64
/// that decode to text holding a secret ([`wrapped`]).
pub fn find(text: &str) -> Vec<Finding> {
    let mut out = find_plain(text);
    for (start, end) in wrapped::runs(text) {
        if out.iter().any(|f| start < f.end && f.start < end) {
            continue;
        }
        let hides = wrapped::decode_text(&text[start..end])
            .is_some_and(|decoded| !find_plain(&decoded).is_empty());
        if hides {
            out.push(Finding {
                kind: "base64-wrapped-secret",
                start,
                end,
            });
        }
    }
    out.sort_by_key(|f| f.start);
    out
}

/// What the patterns find in `text` as it is.
fn find_plain(text: &str) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    // JSON-escaped text (`...\nAGE-SECRET-KEY-1...`) is scanned with its `\n`, `\r`, `\t`
    // escapes as spaces, same length, so word boundaries hold where the newline was.
    let spaced = text.contains('\\').then(|| escapes_as_spaces(text));
    let text = spaced.as_deref().unwrap_or(text);
    for (i, on) in hinted(text).into_iter().enumerate() {
        if !on {
            continue;
        }
        let kind = SOURCES[i].kind;
        for caps in compiled(i).captures_iter(text) {
            let quoted = caps.name("dq").or_else(|| caps.name("sq"));
            let m = quoted
                .or_else(|| caps.name("secret"))
                .unwrap_or_else(|| caps.get(0).expect("match"));
            // `DB_PASSWORD=x` (an environment line) is never code referring to a variable.
            let env_line = caps.name("op").is_some_and(|o| o.as_str() == "=")
                && caps
                    .name("key")
                    .is_some_and(|k| !k.as_str().bytes().any(|b| b.is_ascii_lowercase()));
            if (is_assignment(kind) || kind == "bearer-token" || kind == "keyword-secret")
                && !plausible_value(kind, m.as_str(), quoted.is_some() || env_line)
            {
                continue;
            }
            if FLAG_VALUES.contains(&kind) && is_placeholder(m.as_str()) {
                continue;
            }
            if kind == "secret-in-prose"
                && !(mixed_case(m.as_str()) && m.as_str().bytes().any(|b| b.is_ascii_digit()))
            {
                continue;
            }
            if kind == "aws-secret-key-nearby" && !mixed_case(m.as_str()) {
                continue;
            }
            if out.iter().any(|f| m.start() < f.end && f.start < m.end()) {
                continue;
            }
            out.push(Finding {
                kind,
                start: m.start(),
                end: m.end(),
            });
        }
    }
    out.sort_by_key(|f| f.start);
    out
}

/// Whether the value of a password-like assignment (or a bearer token) looks like a secret
/// rather than a placeholder, a word or code.
/// `literal`: quoted, or the value of an environment line, so not code.
fn plausible_value(kind: &str, v: &str, literal: bool) -> bool {
    if is_placeholder(v) || (is_assignment(kind) && entropy(v) < 2.5) {
        return false;
    }
    // A name merely ending in `key` or `pass` (`cache_key: user_profile_v2`) is given a secret
    // only when the value reads as one: a quoted or environment value, or mixed case with digits.
    if kind == "named-key-assignment" && !literal && !mixed_case(v) {
        return false;
    }
    if literal {
        // A quoted sentence is prose ("see the docs for how to rotate it"), not a passphrase.
        return v.split_whitespace().count() <= 5;
    }
    // `token = getToken()`, `key: os.getenv("KEY")` and similar code are not secrets.
    if looks_like_call(v) {
        return false;
    }
    // Nor is an unquoted variable reference: `'token': token_value`, `this.authToken`.
    !(is_assignment(kind) && is_code_identifier(v))
}

/// The kinds that find a value given to a name (`password = ...`, `imgproxyKey: ...`).
fn is_assignment(kind: &str) -> bool {
    kind == "password-assignment" || kind == "named-key-assignment"
}

/// Kinds whose value follows a flag or a header name: `$VAR` and `<your-key>` are not secrets.
const FLAG_VALUES: &[&str] = &[
    "sshpass-password",
    "curl-user-password",
    "registry-login-password",
    "redis-password",
    "cli-secret-flag",
    "api-key-header",
    "netrc-password",
    "pgpass-line",
];

/// Random key material has both cases and a digit or symbol; a word, a path or a hex hash does
/// not.
fn mixed_case(v: &str) -> bool {
    v.bytes().any(|b| b.is_ascii_uppercase())
        && v.bytes().any(|b| b.is_ascii_lowercase())
        && v.bytes()
            .any(|b| b.is_ascii_digit() || b == b'/' || b == b'+')
}

/// `text` with every secret replaced by `[REDACTED:<kind>]`, and how many were replaced.
pub fn redact(text: &str) -> (String, usize) {
    let findings = find(text);
    if findings.is_empty() {
        return (text.to_string(), 0);
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for f in &findings {
        out.push_str(&text[last..f.start]);
        out.push_str("[REDACTED:");
        out.push_str(f.kind);
        out.push(']');
        last = f.end;
    }
    out.push_str(&text[last..]);
    (out, findings.len())
}

/// Every string in `value` (object keys left as they are) redacted in place; returns how many
/// secrets were replaced. For documents stored or sent whole (a diary entry, a tool result).
pub fn redact_json(value: &mut serde_json::Value) -> usize {
    use serde_json::Value;
    match value {
        Value::String(s) => {
            let (out, n) = redact(s);
            if n > 0 {
                *s = out;
            }
            n
        }
        Value::Array(items) => items.iter_mut().map(redact_json).sum(),
        Value::Object(map) => map.values_mut().map(redact_json).sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The follow-up checks only ever skip text the patterns cannot match: wherever a regex of a
    /// `LowerThen` pattern matches, its hint is on; everyday text stays off.
    #[test]
    fn words_followed_by_nothing_secret_compile_nothing() {
        let gated: Vec<usize> = SOURCES
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(s.hint, Hint::LowerThen(..)))
            .map(|(i, _)| i)
            .collect();
        assert_eq!(gated.len(), 3);
        for calm in [
            "the key points of this pass are listed below",
            "the oauth token refresh timeout in CI",
            "auth middleware and the token bucket",
            "Token refresh fails; see the Authorization header docs",
        ] {
            let on = hinted(calm);
            assert!(gated.iter().all(|&i| !on[i]), "{calm}");
        }
        let mut seed: u64 = 3;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        let parts = [
            "Key",
            "_key",
            "_PASS",
            "token",
            "Token",
            "TOKEN",
            "bearer",
            "auth",
            "password",
            "api_key",
            "secret",
            "x",
            "=",
            ":",
            " ",
            "  ",
            "\\",
            "\"",
            "'",
            "=>",
            "\u{a0}",
            "abcdefghijklmnop",
            "0123456789abcdef0123",
            "-",
            "_",
            ".",
            "/",
            "+",
            "\n",
            "é",
            "AUTH_TOKEN",
        ];
        for _ in 0..20_000 {
            let text: String = (0..1 + next() % 8)
                .map(|_| parts[next() % parts.len()])
                .collect();
            let on = hinted(&text);
            for &i in &gated {
                if compiled(i).is_match(&text) {
                    assert!(on[i], "{} skipped {text:?}", SOURCES[i].kind);
                }
            }
        }
    }

    #[test]
    fn finds_the_common_secrets() {
        let cases = [
            ("key AKIAIOSFODNN7EXAMPLE here", "aws-access-key"),
            ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "github-token"),
            ("sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "anthropic-key"),
            (
                "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx",
                "openai-key",
            ),
            ("xoxb-1234567890-abcdefghij", "slack-token"),
            ("Authorization: Bearer abcdefghijklmnop1234", "bearer-token"),
            ("password = \"hunter2isnotgood\"", "password-assignment"),
            ("postgres://user:s3cretpw@db/x", "url-password"),
            ("DB_PASSWORD=hunter2isnotgood", "password-assignment"),
            ("password: supersecretpassword", "password-assignment"),
            ("token = 'this_is_quoted_value'", "password-assignment"),
            (
                "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----",
                "private-key",
            ),
            ("MAIL_RELAY_PASS=Qw7rTz2LpX9vKm4NbE", "named-key-assignment"),
            (
                r#""thumborSigningKey": "Ze4Rk8PqW2nXc7LvB9mT3sYd6HjF1uGa""#,
                "named-key-assignment",
            ),
            (
                "signing_key = 'Lp3Xr8Wq2Zt6Nv9Kc4Mb'",
                "named-key-assignment",
            ),
            (r#":password "Tg5Hw9Qe3Rz7Xp2Lm8Vn""#, "keyword-secret"),
            (
                r#"{:db {:api-key "Mc4Zq8Wr2Tx6Lp9Nb3Vk"}}"#,
                "keyword-secret",
            ),
            (
                "the signing key is on my clipboard: Hq7Ws2Nd9Kx4Bt6Lz3Rm8Vc5",
                "secret-in-prose",
            ),
        ];
        for (text, kind) in cases {
            let f = find(text);
            assert!(f.iter().any(|x| x.kind == kind), "{text}: {f:?}");
        }
    }

    #[test]
    fn leaves_ordinary_text_alone() {
        for text in [
            "the password field is required",
            "token = getToken()",
            "password: ${DB_PASSWORD}",
            "run cargo test --release",
            "api_key: <your key here>",
            "return {'password_field': password_field, 'ok': True}",
            "const token = this.authToken;",
            "secret: settings.client_secret",
            "sort_key: created_at",
            "monkey: bananas_and_more",
            "bypass: enabled_for_everyone",
            "partition_key = order_id",
            "cache_key: user_profile_v2",
            r#"{:password-min-length 12}"#,
            "the cache key is 3f9a2c7e1b8d4f6a0c5e2b9d7a1f3c8e4b6d0a2f",
            "rotate the token via RefreshTokenHandlerFactory",
            "the key is stored in KeychainAccessService for now",
        ] {
            assert!(find(text).is_empty(), "{text}: {:?}", find(text));
        }
    }

    #[test]
    fn redaction_keeps_the_name_and_counts() {
        let (out, n) = redact("export GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 ok");
        assert_eq!(n, 1);
        assert!(!out.contains("ghp_abc"));
        assert!(out.contains("GITHUB_TOKEN="));
        let (out, _) = redact("db_password = 'Xk9#mQ2$vL8!'");
        assert!(out.starts_with("db_password = '"), "{out}");
        assert!(!out.contains("Xk9#"));
    }

    /// The corpus the integration tests run through the binary (tests/it/secrets.rs), checked here
    /// against the scanner alone: every secret redacted, every decoy kept.
    #[test]
    fn the_secrets_corpus_is_redacted_and_its_decoys_kept() {
        let corpus: serde_json::Value =
            serde_json::from_str(include_str!("../../../tests/fixtures/secrets/corpus.json"))
                .unwrap();
        let marked = |t: &str| -> (String, String) {
            let (a, rest) = t.split_once("{{").unwrap();
            let (mid, b) = rest.split_once("}}").unwrap();
            (format!("{a}{mid}{b}"), mid.to_string())
        };
        let mut leaks = Vec::new();
        for c in corpus["secrets"].as_array().unwrap() {
            let (text, secret) = marked(c["text"].as_str().unwrap());
            let (out, n) = redact(&text);
            if out.contains(&secret) || n == 0 {
                leaks.push(format!("{}: {out}", c["kind"]));
            }
        }
        assert!(
            leaks.is_empty(),
            "{} leaks:\n{}",
            leaks.len(),
            leaks.join("\n")
        );
        let mut lost = Vec::new();
        for d in corpus["decoys"].as_array().unwrap() {
            let (text, decoy) = marked(d["text"].as_str().unwrap());
            let (out, _) = redact(&text);
            if !out.contains(&decoy) {
                lost.push(out);
            }
        }
        assert!(lost.is_empty(), "decoys redacted:\n{}", lost.join("\n"));
    }
}

#[cfg(test)]
mod stated_password_tests {
    #[test]
    fn passwords_said_in_prose_or_glued_to_a_client_flag_are_redacted() {
        let (out, n) = super::redact(
            "from now on the db password is Tr0ub4dor&3xyz, use it for mysql -u root -pTr0ub4dor&3xyz in tests",
        );
        assert!(!out.contains("Tr0ub4dor"), "{out}");
        assert_eq!(n, 2, "{out}");
        let (same, none) = super::redact(
            "the password is stored in the vault; run mysql -u root -p to be asked for it",
        );
        assert_eq!(none, 0, "{same}");
    }
}
