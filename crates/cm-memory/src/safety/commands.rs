//! The commands a rule recommends, judged: switching cm's guard or hooks off (in any spelling:
//! `cm guard --uninstall`, `cm trauma heal`, `git commit -n`, "disable the pre-commit hook",
//! writing cm's or an agent's hook settings), running code fetched from the network (`curl | sh`,
//! `bash <(curl ...)`, `sh -c "$(curl ...)"`, `iex (iwr ...)`), a container given the host, and
//! every command the guard itself blocks (code spans, and prose from a command word to the end
//! of its sentence). A warning is not a recommendation: "never run `rm -rf /`" passes, because
//! what directly precedes the command negates it ([`negated`]).
//!
//! Cost: the weakening and fetch patterns compile only when a hint word occurs in the folded
//! text; the guard runs only on code spans and on prose from a word the guard's own keyword
//! scan knows, and its quick reject ends most of those at once.

use super::{Refusal, Severity};
use cm_guard as guard;
use once_cell::sync::Lazy;
use regex::Regex;

const WEAKEN: &str = "it would weaken cm's guard or the hooks";
const FETCH: &str = "it runs code fetched from the network";
const HOST: &str = "it gives a container the host";

/// Words one of which every pattern of [`PATTERNS`] needs.
const HINTS: &[&str] = &[
    "cm ",
    "git",
    "verify",
    "hook",
    "guard",
    "husky",
    "pre-commit",
    "precommit",
    "cass",
    ".claude",
    ".codex",
    ".gemini",
    "curl",
    "wget",
    "iwr",
    "irm",
    "iex",
    "invoke-",
    "http",
    "webclient",
    "fetch",
    "docker",
    "podman",
    "privileged",
    "safety",
];

static PATTERNS: Lazy<Vec<(Regex, &'static str, Severity)>> = Lazy::new(|| {
    let shells = r"(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+(?:\S+=\S*\s+)*)?(?:\S*/)?(?:ba|z|da|k|c|tc|fi|a|mk|yash|po)?sh|(?:sudo\s+)?(?:\S*/)?(?:python[0-9.]*|perl|ruby|node|nodejs|php|pwsh|powershell|deno|bun|lua|tclsh|iex|invoke-expression|source|\.)";
    let fetchers = r"(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod|fetch|http|https|lwp-request|aria2c|httpie|xh)";
    let list: Vec<(String, &'static str, Severity)> = vec![
        // cm's own off switches.
        (r"\bcm\s+guard\s+(?:--)?(?:uninstall|allow|disable|off|remove|unprotect)\b|\bcm\s+trauma\s+(?:heal|remove|rm|delete|forget|disable|off|clear|prune)\b|\bcm\s+hooks?\s+(?:--)?(?:uninstall|remove|disable|off)\b|\bcm\s+(?:uninstall|privacy\s+disable|init\s+--force)\b|\bcm-pretool\b[^\n]{0,40}(?:/dev/null|\|\|\s*true)".into(), WEAKEN, Severity::Refused),
        // Git hooks skipped.
        (r"--no-verify\b|--no-ver\b|\bcore\.hookspath\b|\bhusky(?:_skip_hooks)?=0\b|\bhusky=false\b|\bpre-?commit\s+uninstall\b|\bgit\b[^\n;&|]*\bcommit\b[^\n;&|]*\s-[a-z]*n[a-z]*\b".into(), WEAKEN, Severity::Refused),
        // Switching a guard or hook off in words.
        (r"\b(?:disable|disabling|turn(?:ing)?\s+off|switch(?:ing)?\s+off|remove|removing|uninstall(?:ing)?|bypass(?:ing)?|skip(?:ping)?|circumvent(?:ing)?|deactivat(?:e|ing)|kill(?:ing)?|silenc(?:e|ing)|mut(?:e|ing)|get\s+around|work\s+around|neuter|delete|deleting|comment(?:ing)?\s+out|rip(?:ping)?\s+out)\s+(?:(?:the|cm'?s?|all|any|every|your|its|their|our|this|these|those|repo'?s?|git)\s+)*(?:cm\s+)?(?:guard|guards|guardrails?|hooks?|pre-?commit(?:\s+(?:hooks?|checks?))?|pre-?tool(?:\s+hooks?)?|safety\s+(?:checks?|hooks?|guard)|command\s+guard|destructive[- ]command\s+guard)\b".into(), WEAKEN, Severity::Refused),
        // Writing cm's config or traumas, or an agent's hook settings.
        (r"(?:\b(?:rm|mv|cp|sed\s+-i|truncate|tee|echo|printf|cat|edit|delete|remove|overwrite|empty|clear|replace|change|modify|write|disable|unset)\b|>)[^\n]{0,80}(?:\.cass-memory|\.cass/(?:traumas|policy|config|guard)|\.claude/settings|\.codex/(?:config|hooks)|\.gemini/settings|\.cursor/hooks)".into(), "settings?", Severity::Refused),
        // Code from the network run at once.
        (format!(r"\b{fetchers}\b[^\n|]*\|\s*(?:{shells})(?:[\s;)\x22'`-]|$)"), FETCH, Severity::Refused),
        (format!(r"<\(\s*(?:\S*/)?{fetchers}\b"), FETCH, Severity::Refused),
        (format!(r"(?:\b(?:sh|bash|zsh|dash|ksh|python[0-9.]*|perl|ruby|node|php)\s+(?:-\S+\s+)*-[a-z]*[ce]\s*|\beval\s*|\bexec\s*|\bsource\s*|\.\s+)[\x22']?\s*(?:\$\(|`)\s*(?:\S*/)?{fetchers}\b"), FETCH, Severity::Refused),
        (format!(r"\b(?:iex|invoke-expression)\b[^\n]{{0,40}}(?:{fetchers}|downloadstring|net\.webclient|downloadfile)|\b(?:downloadstring|net\.webclient)\b[^\n]*\b(?:iex|invoke-expression)\b"), FETCH, Severity::Refused),
        (r"\b(?:curl|wget)\b[^\n;&|]*(?:\s-o\s*\S+|\s-[a-z]*o\b|\s--output\b|\s>\s*\S+)[^\n;&|]*(?:;|&&|\|\|)\s*(?:sudo\s+)?(?:(?:ba|z|da|k)?sh\s|chmod\s+[+0-7a-z]*x|\./|python[0-9.]*\s|source\s|\.\s)".into(), FETCH, Severity::Refused),
        // A container with the host's root or devices.
        (r"\b(?:docker|podman|nerdctl)\b[^\n;&|]*(?:--privileged|\s-v\s*/:|--volume[=\s]+/:|--pid[=\s]+host|--cap-add[=\s]+(?:all|sys_admin))".into(), HOST, Severity::Risky),
    ];
    list.into_iter()
        .map(|(s, why, sev)| (Regex::new(&s).expect("command pattern compiles"), why, sev))
        .collect()
});

/// The first thing `folded` recommends that [`PATTERNS`] refuses (warnings against it pass).
pub fn pattern_refusal(folded: &str) -> Option<Refusal> {
    if !HINTS.iter().any(|h| folded.contains(h)) {
        return None;
    }
    for (re, why, severity) in PATTERNS.iter() {
        for m in re.find_iter(folded) {
            if negated(&folded[..anchor(folded, m.start())]) {
                continue;
            }
            let reason = if *why == "settings?" {
                "it would change cm's or an agent's hook settings".to_string()
            } else {
                (*why).to_string()
            };
            return Some(Refusal {
                severity: *severity,
                reason,
            });
        }
    }
    None
}

/// Where the command holding `at` starts: its code span's opening backtick when `at` is inside
/// one ("never use `git commit --no-verify`" is a warning), else `at`.
fn anchor(text: &str, at: usize) -> usize {
    let ticks: Vec<usize> = text[..at].match_indices('`').map(|(i, _)| i).collect();
    if ticks.len() % 2 == 1 {
        ticks[ticks.len() - 1]
    } else {
        at
    }
}

/// The first command `text` recommends that the guard blocks.
pub fn guard_refusal(text: &str) -> Option<Refusal> {
    let scanner = guard::quick::builtin();
    if scanner.scan(text).packs == 0 {
        return None;
    }
    let policy = guard::Policy::default();
    let at = guard::expand::Context::default();
    for (before, command) in commands(text) {
        if negated(before) || scanner.scan(command).packs == 0 {
            continue;
        }
        if guard::evaluate_at(command, &policy, &at).is_deny() {
            return Some(Refusal {
                severity: Severity::Risky,
                reason: format!(
                    "the guard blocks a command it recommends (`{}`)",
                    cm_base::text::clip::clip(command.trim(), 80)
                ),
            });
        }
    }
    None
}

/// Each command `text` may recommend, with the prose of its sentence before it: every code span,
/// and in prose, the rest of the sentence (to a `;`) from each word the guard's keyword scan
/// knows that stands where a command is recommended ([`commands_follow`]).
fn commands(text: &str) -> Vec<(&str, &str)> {
    let scanner = guard::quick::builtin();
    let mut out = Vec::new();
    let mut prose_before: &str = "";
    for (i, part) in text.split('`').enumerate() {
        if i % 2 == 1 {
            if !part.trim().is_empty() {
                out.push((prose_before, part));
            }
            continue;
        }
        for sentence in sentences(part) {
            let mut at = 0;
            let mut previous = "";
            for word in sentence.split(' ') {
                let w = at;
                at += word.len() + 1;
                let lead = std::mem::replace(&mut previous, word);
                if word.len() < 2 || scanner.scan(word).packs == 0 || !commands_follow(lead) {
                    continue;
                }
                // Up to the next `;`: each command after it starts a candidate of its own when
                // its first word is one the guard knows, and prose after it ("block; a bare
                // rename makes terraform destroy them") is no command at all.
                let rest = &sentence[w..];
                let end = rest.find(';').map_or(rest.len(), |i| i + 1);
                out.push((&sentence[..w], &rest[..end]));
            }
        }
        prose_before = sentences(part).pop().unwrap_or(part);
    }
    out
}

/// Whether a command in prose may follow the word `lead` (empty at a sentence start): the
/// imperative positions ("run X", "with X", "X" opening a sentence), not a description ("a bare
/// rename makes terraform destroy them").
fn commands_follow(lead: &str) -> bool {
    const LEADS: &[&str] = &[
        "", "run", "use", "execute", "call", "type", "try", "do", "always", "then", "and", "first",
        "please", "with", "via", "using", "running", "sudo", "just", "invoke", "enter",
    ];
    if lead.ends_with([':', ';', ',']) || lead.chars().all(|c| !c.is_alphanumeric()) {
        return true;
    }
    let lead = lead
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    LEADS.contains(&lead.as_str())
}

/// `prose` cut at sentence ends (a period, `!` or `?` followed by a space, or a line break).
fn sentences(prose: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = prose.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let end = b == b'\n'
            || (matches!(b, b'.' | b'!' | b'?')
                && bytes.get(i + 1).is_none_or(|n| n.is_ascii_whitespace()));
        if end {
            out.push(&prose[start..i]);
            start = i + 1;
        }
    }
    out.push(&prose[start..]);
    out
}

/// Whether `before` (the text just before a command) ends in a negation: "never", "do not
/// run", "avoid", "instead of", "rather than", optionally followed by a verb such as "run" or
/// "use". "Never forget to run X" is not negated: "forget" is no such verb.
pub fn negated(before: &str) -> bool {
    const FILLERS: &[&str] = &[
        "run",
        "running",
        "use",
        "using",
        "call",
        "calling",
        "execute",
        "executing",
        "type",
        "typing",
        "invoke",
        "invoking",
        "pipe",
        "piping",
        "ever",
        "blindly",
        "just",
        "add",
        "adding",
        "pass",
        "passing",
        "try",
        "trying",
        "do",
        "doing",
        "to",
        "the",
        "a",
        "with",
        "into",
        "like",
        "such",
        "as",
        "commands",
        "command",
        "anything",
        "things",
        "e.g",
        "eg",
        "commit",
        "committing",
        "push",
        "pushing",
        "install",
        "installing",
        "by",
        "via",
    ];
    const NEGATIONS: &[&str] = &[
        "never",
        "not",
        "don't",
        "dont",
        "avoid",
        "avoiding",
        "without",
        "no",
        "stop",
        "mustn't",
        "shouldn't",
        "won't",
        "cannot",
        "can't",
        "forbid",
        "forbidden",
        "prohibited",
        "ban",
        "banned",
        "refuse",
        "nor",
    ];
    let lower = before.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '.'))
        .map(|w| w.trim_matches('.'))
        .filter(|w| !w.is_empty())
        .collect();
    let mut i = words.len();
    let mut skipped = 0;
    while i > 0 {
        let w = words[i - 1];
        if NEGATIONS.contains(&w) {
            return true;
        }
        if i >= 2 && matches!((words[i - 2], w), ("instead", "of") | ("rather", "than")) {
            return true;
        }
        if !FILLERS.contains(&w) || skipped == 4 {
            return false;
        }
        skipped += 1;
        i -= 1;
    }
    false
}
