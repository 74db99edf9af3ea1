//! Secret detection and redaction, shared by everything that stores or shows text taken from
//! sessions: the index, the playbook, the diary, context output and the pre-commit scan.
//!
//! Patterns cover private key blocks, cloud and API tokens (AWS, GitHub, Anthropic, OpenAI,
//! Slack, Google, Stripe), bearer and basic auth headers, JWTs, URLs with passwords, and
//! password-like assignments. Each match is replaced by `[REDACTED:<kind>]`, and counted.

use once_cell::sync::Lazy;
use regex::Regex;

/// One kind of secret: a name for reports and the regex that finds it. When the regex has a
/// group named `secret`, only that group is replaced (so `password = "x"` keeps its name).
pub struct SecretPattern {
    pub kind: &'static str,
    pub regex: Regex,
}

fn p(kind: &'static str, re: &str) -> SecretPattern {
    SecretPattern {
        kind,
        regex: Regex::new(re).expect("secret pattern compiles"),
    }
}

pub static PATTERNS: Lazy<Vec<SecretPattern>> = Lazy::new(|| {
    vec![
        p(
            "private-key",
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\z)",
        ),
        p(
            "aws-access-key",
            r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b",
        ),
        p(
            "aws-secret-key",
            r#"(?i)aws_?secret_?access_?key["']?\s*[:=]\s*["']?(?P<secret>[A-Za-z0-9/+=]{40})"#,
        ),
        p(
            "github-token",
            r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b",
        ),
        p("anthropic-key", r"\bsk-ant-[A-Za-z0-9_\-]{20,}"),
        p(
            "openai-key",
            r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}",
        ),
        p("slack-token", r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"),
        p(
            "slack-webhook",
            r"https://hooks\.slack\.com/services/[A-Za-z0-9/_\-]+",
        ),
        p("google-api-key", r"\bAIza[0-9A-Za-z_\-]{35}\b"),
        p(
            "stripe-key",
            r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b",
        ),
        p(
            "jwt",
            r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
        ),
        p(
            "bearer-token",
            r"(?i)\b(?:bearer|token)\s+(?P<secret>[A-Za-z0-9_\-\.=/+]{16,})",
        ),
        p(
            "basic-auth",
            r"(?i)\bauthorization:\s*basic\s+(?P<secret>[A-Za-z0-9+/=]{8,})",
        ),
        p(
            "url-password",
            r"(?i)\b[a-z][a-z0-9+.\-]*://[^\s:/@]+:(?P<secret>[^\s@/]{3,})@",
        ),
        p(
            "password-assignment",
            r#"(?i)\b[A-Za-z0-9_\-]*(?:password|passwd|pwd|secret|token|api_?key|apikey|access_?key|private_?key|client_?secret|auth)[A-Za-z0-9_\-]*["']?\s*(?:=|:|=>)\s*(?P<q>["']?)(?P<secret>[^\s"',;}{]{8,})"#,
        ),
    ]
});

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

/// Shannon entropy in bits per character, used to tell real secrets from words.
pub fn entropy(s: &str) -> f64 {
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
    pub kind: &'static str,
    pub start: usize,
    pub end: usize,
}

/// Cheap pre-check: text without any of these cannot hold a secret we detect.
fn might_contain_secret(text: &str) -> bool {
    const HINTS: &[&str] = &[
        "PRIVATE KEY",
        "AKIA",
        "ASIA",
        "AGPA",
        "AIDA",
        "AROA",
        "ANPA",
        "ANVA",
        "AIPA",
        "ghp_",
        "gho_",
        "ghu_",
        "ghs_",
        "ghr_",
        "github_pat_",
        "sk-",
        "xox",
        "hooks.slack",
        "AIza",
        "_live_",
        "_test_",
        "eyJ",
        "://",
    ];
    if HINTS.iter().any(|h| text.contains(h)) {
        return true;
    }
    let lower = text.to_ascii_lowercase();
    [
        "password",
        "passwd",
        "pwd",
        "secret",
        "token",
        "api_key",
        "apikey",
        "access_key",
        "accesskey",
        "private_key",
        "bearer",
        "authorization",
        "auth",
    ]
    .iter()
    .any(|h| lower.contains(h))
}

/// Every secret in `text`, non-overlapping, in order.
pub fn find(text: &str) -> Vec<Finding> {
    if !might_contain_secret(text) {
        return Vec::new();
    }
    let mut out: Vec<Finding> = Vec::new();
    for pat in PATTERNS.iter() {
        for caps in pat.regex.captures_iter(text) {
            let m = caps
                .name("secret")
                .unwrap_or_else(|| caps.get(0).expect("match"));
            if pat.kind == "password-assignment" || pat.kind == "bearer-token" {
                let v = m.as_str();
                if is_placeholder(v) || (pat.kind == "password-assignment" && entropy(v) < 2.5) {
                    continue;
                }
                // `token = getToken()` and similar code are not secrets.
                if v.contains('(') || v.ends_with(')') {
                    continue;
                }
                // Nor is an unquoted variable reference: `'token': token_value`, `this.authToken`.
                let quoted = caps.name("q").is_some_and(|q| !q.as_str().is_empty());
                if pat.kind == "password-assignment" && !quoted && is_code_identifier(v) {
                    continue;
                }
            }
            if out.iter().any(|f| m.start() < f.end && f.start < m.end()) {
                continue;
            }
            out.push(Finding {
                kind: pat.kind,
                start: m.start(),
                end: m.end(),
            });
        }
    }
    out.sort_by_key(|f| f.start);
    out
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
