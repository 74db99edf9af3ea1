//! Secret detection and redaction, shared by everything that stores or shows text taken from
//! sessions: the index, the playbook, the diary, context output and the pre-commit scan.
//!
//! Patterns cover private key blocks, cloud and API tokens (AWS, GitHub, Anthropic, OpenAI,
//! Slack, Google, Stripe), bearer and basic auth headers, JWTs, URLs with passwords, and
//! password-like assignments. Each match is replaced by `[REDACTED:<kind>]`, and counted.

use once_cell::sync::{Lazy, OnceCell};
use regex::Regex;

/// One kind of secret: a name for reports and the regex that finds it. When the regex has a
/// group named `secret`, only that group is replaced (so `password = "x"` keeps its name).
pub struct SecretPattern {
    pub kind: &'static str,
    pub regex: Regex,
}

/// Literal text a pattern cannot match without: checked before the pattern is compiled or run,
/// so text without any hint costs a few substring searches and compiles nothing.
enum Hint {
    /// Case-sensitive substrings.
    Exact(&'static [&'static str]),
    /// Substrings of the lower-cased text (for case-insensitive patterns).
    Lower(&'static [&'static str]),
}

struct Source {
    kind: &'static str,
    regex: &'static str,
    hint: Hint,
}

/// The patterns, in priority order (an earlier kind wins an overlap).
const SOURCES: &[Source] = &[
    Source {
        kind: "private-key",
        regex: r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\z)",
        hint: Hint::Exact(&["PRIVATE KEY"]),
    },
    Source {
        kind: "aws-access-key",
        regex: r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b",
        hint: Hint::Exact(&[
            "AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA",
        ]),
    },
    Source {
        kind: "aws-secret-key",
        regex: r#"(?i)aws_?secret_?access_?key["']?\s*[:=]\s*["']?(?P<secret>[A-Za-z0-9/+=]{40})"#,
        hint: Hint::Lower(&["secret"]),
    },
    Source {
        kind: "github-token",
        regex: r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b",
        hint: Hint::Exact(&["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"]),
    },
    Source {
        kind: "anthropic-key",
        regex: r"\bsk-ant-[A-Za-z0-9_\-]{20,}",
        hint: Hint::Exact(&["sk-ant-"]),
    },
    Source {
        kind: "openai-key",
        regex: r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}",
        hint: Hint::Exact(&["sk-"]),
    },
    Source {
        kind: "slack-token",
        regex: r"\bxox[abposr]-[A-Za-z0-9\-]{10,}",
        hint: Hint::Exact(&["xox"]),
    },
    Source {
        kind: "slack-webhook",
        regex: r"https://hooks\.slack\.com/services/[A-Za-z0-9/_\-]+",
        hint: Hint::Exact(&["hooks.slack.com"]),
    },
    Source {
        kind: "google-api-key",
        regex: r"\bAIza[0-9A-Za-z_\-]{35}\b",
        hint: Hint::Exact(&["AIza"]),
    },
    Source {
        kind: "stripe-key",
        regex: r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b",
        hint: Hint::Exact(&["_live_", "_test_"]),
    },
    Source {
        kind: "jwt",
        regex: r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
        hint: Hint::Exact(&["eyJ"]),
    },
    Source {
        kind: "bearer-token",
        regex: r"(?i)\b(?:bearer|token)\s+(?P<secret>[A-Za-z0-9_\-\.=/+]{16,})",
        hint: Hint::Lower(&["bearer", "token"]),
    },
    Source {
        kind: "basic-auth",
        regex: r"(?i)\bauthorization:\s*basic\s+(?P<secret>[A-Za-z0-9+/=]{8,})",
        hint: Hint::Lower(&["authorization"]),
    },
    Source {
        kind: "url-password",
        regex: r"(?i)\b[a-z][a-z0-9+.\-]*://[^\s:/@]+:(?P<secret>[^\s@/]{3,})@",
        hint: Hint::Exact(&["://"]),
    },
    Source {
        kind: "password-assignment",
        regex: r#"(?i)\b[A-Za-z0-9_\-]*(?:password|passwd|pwd|secret|token|api_?key|apikey|access_?key|private_?key|client_?secret|auth)[A-Za-z0-9_\-]*["']?\s*(?:=|:|=>)\s*(?P<q>["']?)(?P<secret>[^\s"',;}{]{8,})"#,
        hint: Hint::Lower(&[
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
            "privatekey",
            "auth",
        ]),
    },
];

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

/// Every secret in `text`, non-overlapping, in order.
pub fn find(text: &str) -> Vec<Finding> {
    let mut lower: Option<String> = None;
    let mut out: Vec<Finding> = Vec::new();
    for (i, src) in SOURCES.iter().enumerate() {
        let hinted = match src.hint {
            Hint::Exact(words) => words.iter().any(|w| text.contains(w)),
            Hint::Lower(words) => {
                let lower = lower.get_or_insert_with(|| text.to_ascii_lowercase());
                words.iter().any(|w| lower.contains(w))
            }
        };
        if !hinted {
            continue;
        }
        let kind = src.kind;
        for caps in compiled(i).captures_iter(text) {
            let m = caps
                .name("secret")
                .unwrap_or_else(|| caps.get(0).expect("match"));
            if kind == "password-assignment" || kind == "bearer-token" {
                let v = m.as_str();
                if is_placeholder(v) || (kind == "password-assignment" && entropy(v) < 2.5) {
                    continue;
                }
                // `token = getToken()` and similar code are not secrets.
                if v.contains('(') || v.ends_with(')') {
                    continue;
                }
                // Nor is an unquoted variable reference: `'token': token_value`, `this.authToken`.
                let quoted = caps.name("q").is_some_and(|q| !q.as_str().is_empty());
                if kind == "password-assignment" && !quoted && is_code_identifier(v) {
                    continue;
                }
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
