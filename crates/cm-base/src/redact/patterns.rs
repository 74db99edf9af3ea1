//! The secret patterns, in priority order (an earlier kind wins an overlap). A table, not logic.
//!
//! Each pattern names the literal text it cannot match without (its hints): the scanner looks
//! for every hint of every pattern in one pass and runs only the patterns whose hints appeared.
//! A pattern with a group named `secret` (or `dq`/`sq`, quoted values) has only that part
//! replaced, so `password = "x"` keeps its name. Quotes may be backslash-escaped: tool-call
//! arguments are often stored as JSON inside JSON (`{\"password\": \"x\"}`).

/// Literal text a pattern cannot match without.
pub enum Hint {
    /// Case-sensitive substrings.
    Exact(&'static [&'static str]),
    /// Case-insensitive substrings (for `(?i)` patterns); given in lowercase.
    Lower(&'static [&'static str]),
    /// Case-insensitive substrings that the pattern also needs followed by something: for the
    /// two patterns whose words are everyday words ("token", "auth"), whose regexes cost
    /// milliseconds to compile. Checking what follows keeps a hook from compiling them for
    /// text like "the token refresh timeout".
    LowerThen(&'static [&'static str], Then),
}

/// What must follow a [`Hint::LowerThen`] word for its pattern to be able to match.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Then {
    /// More key characters (`[A-Za-z0-9_-]`), an optional backslash and quote, spaces, then
    /// `=` or `:` (an assignment).
    Assignment,
    /// Whitespace, then at least this many token characters (`[A-Za-z0-9_.=/+-]`).
    SpaceThenToken(usize),
}

pub struct Source {
    pub kind: &'static str,
    pub regex: &'static str,
    pub hint: Hint,
}

const fn exact(kind: &'static str, regex: &'static str, hints: &'static [&'static str]) -> Source {
    Source {
        kind,
        regex,
        hint: Hint::Exact(hints),
    }
}

const fn lower(kind: &'static str, regex: &'static str, hints: &'static [&'static str]) -> Source {
    Source {
        kind,
        regex,
        hint: Hint::Lower(hints),
    }
}

const fn lower_then(
    kind: &'static str,
    regex: &'static str,
    hints: &'static [&'static str],
    then: Then,
) -> Source {
    Source {
        kind,
        regex,
        hint: Hint::LowerThen(hints, then),
    }
}

pub const SOURCES: &[Source] = &[
    exact(
        "private-key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\z)",
        &["PRIVATE KEY"],
    ),
    exact(
        "aws-access-key",
        r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b",
        &[
            "AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA",
        ],
    ),
    lower(
        "aws-secret-key",
        r#"(?i)(?:aws_?secret_?(?:access_?)?key|secret_?access_?key|secretaccesskey|secret-access-key)\\?["']?(?:\s*[:=]\s*|\s+)\\?["']?(?P<secret>[A-Za-z0-9/+=]{40})(?:[^A-Za-z0-9/+=]|$)"#,
        &["secret"],
    ),
    lower(
        "aws-session-token",
        r#"(?i)(?:aws_?session_?token|sessiontoken|security_?token)\\?["']?\s*[:=]\s*\\?["']?(?P<secret>[A-Za-z0-9/+=]{60,})"#,
        &["token"],
    ),
    // An AWS secret key said with no label, beside its key id: any 40-character run of the
    // key alphabet in a text that holds an id (mixed case checked in `redact::find`).
    exact(
        "aws-secret-key-nearby",
        r"(?:^|[^A-Za-z0-9/+=])(?P<secret>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)",
        &[
            "AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA",
        ],
    ),
    exact(
        "azure-storage-key",
        r"(?:AccountKey|SharedAccessKey|AccessKey)=(?P<secret>[A-Za-z0-9+/]{40,}={0,2})",
        &["AccountKey=", "SharedAccessKey=", "AccessKey="],
    ),
    exact(
        "azure-sas",
        r"[?&]sig=(?P<secret>[A-Za-z0-9%+/=]{30,})",
        &["sig="],
    ),
    exact(
        "github-token",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b",
        &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
    ),
    exact(
        "gitlab-token",
        r"\bgl(?:pat|dt|rt|ptt|ft|imt|agent|oas|cbt|soat)-[A-Za-z0-9_\-]{20,}",
        &[
            "glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glimt-", "glagent-", "gloas-",
            "glcbt-", "glsoat-",
        ],
    ),
    exact(
        "anthropic-key",
        r"\bsk-ant-[A-Za-z0-9_\-]{20,}",
        &["sk-ant-"],
    ),
    exact(
        "openai-key",
        r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}",
        &["sk-"],
    ),
    exact(
        "slack-token",
        r"\b(?:xox[abposr]-[A-Za-z0-9\-]{10,}|xapp-[0-9]-[A-Za-z0-9\-]{10,})",
        &["xox", "xapp-"],
    ),
    exact(
        "slack-webhook",
        r"https://hooks\.slack\.com/services/[A-Za-z0-9/_\-]+",
        &["hooks.slack.com"],
    ),
    exact(
        "discord-webhook",
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]+/[A-Za-z0-9_\-]+",
        &["discord"],
    ),
    exact(
        "telegram-bot-token",
        r"\b[0-9]{8,10}:AA[A-Za-z0-9_\-]{33}\b",
        &[":AA"],
    ),
    exact("google-api-key", r"\bAIza[0-9A-Za-z_\-]{35}\b", &["AIza"]),
    exact(
        "google-oauth-secret",
        r"\bGOCSPX-[A-Za-z0-9_\-]{28}\b",
        &["GOCSPX-"],
    ),
    exact(
        "stripe-key",
        r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}\b",
        &["_live_", "_test_"],
    ),
    exact(
        "stripe-webhook-secret",
        r"\bwhsec_[A-Za-z0-9]{24,}\b",
        &["whsec_"],
    ),
    exact(
        "sendgrid-key",
        r"\bSG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{16,64}\b",
        &["SG."],
    ),
    exact("huggingface-token", r"\bhf_[A-Za-z0-9]{30,}\b", &["hf_"]),
    exact("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b", &["npm_"]),
    exact(
        "pypi-token",
        r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{40,}",
        &["pypi-"],
    ),
    exact(
        "docker-hub-token",
        r"\bdckr_pat_[A-Za-z0-9_\-]{20,}",
        &["dckr_pat_"],
    ),
    exact(
        "digitalocean-token",
        r"\bdo[por]_v1_[a-f0-9]{64}\b",
        &["_v1_"],
    ),
    exact(
        "shopify-token",
        r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b",
        &["shp"],
    ),
    exact("twilio-api-key", r"\bSK[0-9a-f]{32}\b", &["SK"]),
    exact("mailgun-key", r"\bkey-[0-9a-f]{32}\b", &["key-"]),
    exact("mailchimp-key", r"\b[0-9a-f]{32}-us[0-9]{1,2}\b", &["-us"]),
    exact(
        "square-token",
        r"\b(?:sq0(?:atp|csp)-[A-Za-z0-9_\-]{22,43}|EAAA[A-Za-z0-9_\-]{60})",
        &["sq0", "EAAA"],
    ),
    exact(
        "braintree-token",
        r"access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}",
        &["access_token$"],
    ),
    exact(
        "vault-token",
        r"\bhv[sbr]\.[A-Za-z0-9_\-]{24,}",
        &["hvs.", "hvb.", "hvr."],
    ),
    exact(
        "databricks-token",
        r"\bdapi[a-f0-9]{32}(?:-[0-9])?\b",
        &["dapi"],
    ),
    exact("linear-key", r"\blin_api_[A-Za-z0-9]{40}\b", &["lin_api_"]),
    exact(
        "atlassian-token",
        r"\bATATT3[A-Za-z0-9_\-=]{50,}",
        &["ATATT3"],
    ),
    exact("newrelic-key", r"\bNRAK-[A-Z0-9]{27}\b", &["NRAK-"]),
    exact(
        "postman-key",
        r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b",
        &["PMAK-"],
    ),
    exact(
        "grafana-token",
        r"\b(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/=]{32,})",
        &["glsa_", "glc_"],
    ),
    exact(
        "doppler-token",
        r"\bdp\.(?:st|ct|pt|sa|scim|audit)\.[A-Za-z0-9_.\-]{40,}",
        &["dp."],
    ),
    exact("pulumi-token", r"\bpul-[a-f0-9]{40}\b", &["pul-"]),
    exact(
        "terraform-cloud-token",
        r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-=]{60,}",
        &[".atlasv1."],
    ),
    exact(
        "age-secret-key",
        r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b",
        &["AGE-SECRET-KEY-"],
    ),
    exact("alibaba-key", r"\bLTAI[A-Za-z0-9]{12,20}\b", &["LTAI"]),
    exact(
        "jwt",
        r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
        &["eyJ"],
    ),
    lower_then(
        "bearer-token",
        r"(?i)\b(?:bearer|token)\s+(?P<secret>[A-Za-z0-9_\-\.=/+]{16,})",
        &["bearer", "token"],
        Then::SpaceThenToken(16),
    ),
    lower(
        "basic-auth",
        r"(?i)\bauthorization:\s*basic\s+(?P<secret>[A-Za-z0-9+/=]{8,})",
        &["authorization"],
    ),
    exact(
        "url-password",
        r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@]*:(?P<secret>[^\s@/]{3,})@",
        &["://"],
    ),
    // Secrets handed to a command-line client as a flag's value.
    exact(
        "sshpass-password",
        r#"\bsshpass\b[^\n]*?\s-p\s*(?P<secret>"[^"\n]+"|'[^'\n]+'|[^\s"']+)"#,
        &["sshpass"],
    ),
    exact(
        "curl-user-password",
        r#"\b(?:curl|wget)\b[^\n]*?\s(?:-u|--user|--proxy-user)(?:\s+|=)?["']?[^\s:"']*:(?P<secret>[^\s"']+)"#,
        &["curl", "wget"],
    ),
    exact(
        "registry-login-password",
        r#"\b(?:docker|podman|nerdctl|buildah|skopeo|helm|oras)\s+(?:registry\s+)?login\b[^\n]*?\s(?:-p|--password)(?:\s+|=)(?P<secret>"[^"\n]+"|'[^'\n]+'|[^\s"']+)"#,
        &["login"],
    ),
    exact(
        "redis-password",
        r#"\b(?:redis-cli|valkey-cli|keydb-cli)\b[^\n]*?\s(?:-a|--pass|--user\s+\S+\s+--pass)\s+(?P<secret>"[^"\n]+"|'[^'\n]+'|[^\s"']+)"#,
        &["-cli"],
    ),
    lower(
        "cli-secret-flag",
        r#"(?i)(?:^|\s)--(?:[a-z]+-)?(?:password|passwd|pass|token|api-key|secret|client-secret)\s+(?P<secret>"[^"\n]{6,}"|'[^'\n]{6,}'|[^\s"'-][^\s"']{5,})"#,
        &[
            "-password",
            "-passwd",
            "-pass ",
            "-token",
            "-api-key",
            "-secret",
        ],
    ),
    lower(
        "api-key-header",
        r#"(?i)\b(?:[a-z0-9]+-)*(?:api-key|api-token|auth-token|access-token|secret-key|session-token)\\?["']?\s*[:=]\s*\\?["']?(?P<secret>[A-Za-z0-9_\-.=/+]{8,})"#,
        &[
            "api-key",
            "api-token",
            "auth-token",
            "access-token",
            "secret-key",
            "session-token",
        ],
    ),
    // Credential files: `.netrc` (`machine h login u password p`) and `.pgpass`
    // (`host:port:db:user:password`), kubeconfig key and certificate data.
    lower(
        "netrc-password",
        r"(?i)\b(?:machine\s+\S+|default)(?:\s+(?:login|account|port)\s+\S+)*\s+password\s+(?P<secret>\S+)",
        &["machine", "default"],
    ),
    exact(
        "pgpass-line",
        r#"(?:^|[\s"'])[A-Za-z0-9_.\-*\[\]]+:(?:[0-9]{1,5}|\*):[A-Za-z0-9_.\-*]+:[A-Za-z0-9_.\-*@]+:(?P<secret>[^:\s"']{3,})(?:[\s"']|$)"#,
        &[":5432:", ":5433:", ":6432:", ":*:", "pgpass"],
    ),
    exact(
        "kubeconfig-key-data",
        r#"\b(?:client-key-data|client-certificate-data)\\?["']?\s*:\s*\\?["']?(?P<secret>[A-Za-z0-9+/=]{16,})"#,
        &["-data"],
    ),
    // A secret named in prose: "with Hunter2Hunter2xyz as the passphrase".
    lower(
        "secret-stated-as",
        r#"(?i)\b(?:with|use|using|set|give|gave|type|enter)\s+["'`]?(?P<secret>[^\s"'`,;]{2,100}[0-9!@#$%^&*+=][^\s"'`,;]{0,100})["'`]?\s+as\s+(?:the\s+|my\s+|our\s+|an?\s+|its\s+|your\s+)?(?:[a-z]+\s+)?(?:password|passphrase|passwd|pass|secret|token|api\s+key|pin)\b"#,
        &["pass", "secret", "token", "api", "pin"],
    ),
    exact(
        "password-stated",
        r#"(?i)\b(?:password|passwd|passphrase)\s+is\s+(?P<secret>[^\s"',;]{2,100}[0-9!@#$%^&*+=][^\s"',;]{0,100})"#,
        &[
            "password is",
            "Password is",
            "PASSWORD is",
            "passwd is",
            "passphrase is",
        ],
    ),
    exact(
        "mysql-password-flag",
        r#"\b(?:mysql|mysqladmin|mysqldump|mariadb)\b[^\n]*?\s-p(?P<secret>[^\s"']{4,200})"#,
        &["mysql", "mariadb"],
    ),
    lower_then(
        "password-assignment",
        r#"(?i)\b(?P<key>[A-Za-z0-9_\-]*(?:password|passwd|pwd|secret|token|api_?key|apikey|access_?key|private_?key|client_?secret|auth|credential)[A-Za-z0-9_\-]*)\\?["']?(?P<op>\s*(?:=|:|=>)\s*)(?:\\?"(?P<dq>[^"\\\n]{6,200})\\?"|'(?P<sq>[^'\n]{6,200})'|(?P<secret>[^\s"',;}{]{8,}))"#,
        &[
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
            "credential",
        ],
        Then::Assignment,
    ),
    // A name ending in a `Key` or `PASS` part given a value: `imgproxyKey: "..."`,
    // `signing_key=...`, `SMTP_PASS=...`, `db-pass: ...` (the names above miss these; a bare
    // `key:` or `monkey` is not one, and the value must still look like a secret).
    lower_then(
        "named-key-assignment",
        r#"\b(?P<key>[A-Za-z0-9]+(?:[A-Za-z0-9_\-]*[a-z0-9]Key|[A-Za-z0-9_\-]*[_\-](?:key|KEY|Key|pass|PASS|Pass)))\\?["']?(?P<op>\s*(?:=|:|=>)\s*)(?:\\?"(?P<dq>[^"\\\n]{6,200})\\?"|'(?P<sq>[^'\n]{6,200})'|(?P<secret>[^\s"',;}{]{8,}))"#,
        &["key", "pass"],
        Then::Assignment,
    ),
    // A keyword given a secret in EDN and Clojure maps: `:password "..."`, `:api-key "..."`.
    lower(
        "keyword-secret",
        r#"(?i)(?P<key>:[a-z0-9\-]*(?:password|passwd|secret|token|key|pass))\s+"(?P<dq>[^"\\\n]{6,200})""#,
        &[
            "password \"",
            "passwd \"",
            "secret \"",
            "token \"",
            "key \"",
            "pass \"",
        ],
    ),
    // A key pasted in prose: a secret word, then within a few words a long run of letters and
    // digits ("the key is in my clipboard: Xk3...": no name, no `=`). Kept only when the run is
    // mixed case with digits, which words, hex digests and identifiers in lower case are not.
    lower(
        "secret-in-prose",
        r"\b(?i:key|token|secret|password|passphrase|credential)s?\b[ -~]{0,40}?[^A-Za-z0-9/+=_.\-](?P<secret>[A-Za-z0-9]{20,})(?:[^A-Za-z0-9/+=_.\-]|$)",
        &[
            "key",
            "token",
            "secret",
            "password",
            "passphrase",
            "credential",
        ],
    ),
];
