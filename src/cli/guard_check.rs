//! `cm guard check COMMAND` and `cm guard allow ENTRY`: the guard's decision as the pre-tool
//! hook would make it (same policy files, same matcher), and adding allow-list entries.
//! Wired into the `cm guard` argument parser by `cli/guard.rs`.

use super::Ctx;
use crate::error::{CmError, Result};
use crate::guard::{self, AllowEntry, AllowScope, matcher, normalize, policy_file};
use crate::output::{Report, Style, paint};
use serde_json::json;

/// Print the exact decision the hook would make for `command` ([`crate::app::guard_check`]).
pub fn run_check(command: &str, not_utf8: Option<&str>, ctx: &Ctx) -> Result<Report> {
    let checked = crate::app::guard_check::check(command, not_utf8, &ctx.cwd)?;
    let human = human(
        command,
        &checked.decision,
        &checked.deny_reason,
        &checked.segments,
        &checked.warnings,
    );
    let quiet = checked.decision.answer().as_str();
    Ok(Report::new(checked.to_json()).human(human).quiet(quiet))
}

fn human(
    command: &str,
    d: &guard::Decision,
    deny_reason: &str,
    segments: &[normalize::Segment],
    warnings: &[String],
) -> String {
    let mut s = String::new();
    for w in warnings {
        s.push_str(&format!("warning: {w}\n"));
    }
    let verdict = match d.answer() {
        guard::Answer::Deny => paint("DENY", Style::Red),
        guard::Answer::Ask => paint("ASK", Style::Yellow),
        guard::Answer::Allow => paint("ALLOW", Style::Green),
    };
    s.push_str(&format!("{verdict}  {command}\n"));
    if let Some(hit) = &d.hit {
        s.push_str(&format!(
            "  rule:      {} ({} pack, {})\n",
            hit.rule,
            hit.pack,
            hit.severity.as_str()
        ));
        s.push_str(&format!("  segment:   {} [{}]\n", hit.segment, hit.lang));
        s.push_str(&format!("  pattern:   {}\n", hit.pattern));
        s.push_str(&format!("  why:       {}\n", hit.explanation));
        s.push_str(&format!("  instead:   {}\n", hit.alternative));
    }
    if let Some(by) = &d.allowed_by {
        s.push_str(&format!("  allowed by {by}\n"));
    }
    if d.quick_rejected {
        s.push_str("  no keyword of any pack or trauma: allowed without matching\n");
    } else {
        s.push_str("  segments:\n");
        for seg in segments.iter().filter(|s| s.lang != normalize::Lang::Line) {
            s.push_str(&format!("    [{}] {}\n", seg.lang.name(), seg.text));
        }
    }
    if d.is_deny() {
        s.push_str(&format!("  the agent is told: {deny_reason}\n"));
    }
    s
}

/// Add an allow-list entry: an exact command, a regex (`pattern`), or, when `entry` names a
/// built-in rule (`git:reset-hard`) or pack, that rule. Text shaped like a rule id that names
/// no rule is refused (a mistyped id must not become an exact-command allow); `command` saves
/// the text as an exact command whatever it looks like. `project` writes the repository's
/// `.cass/config.json` instead of the global config.
pub fn run_allow(
    entry: &str,
    pattern: bool,
    command: bool,
    project: bool,
    ctx: &Ctx,
) -> Result<Report> {
    let entry_text = entry.trim();
    if entry_text.is_empty() {
        return Err(CmError::usage("INVALID_ARGUMENT", "nothing to allow")
            .hint("cm guard allow \"git reset --hard\"  (or --pattern REGEX, or a rule id like git:reset-hard)"));
    }
    let mut allow = AllowEntry {
        scope: if project {
            AllowScope::Project
        } else {
            AllowScope::Global
        },
        ..AllowEntry::default()
    };
    let kind;
    if pattern {
        regex::Regex::new(entry_text).map_err(|e| {
            CmError::usage("INVALID_PATTERN", format!("not a valid regular expression: {e}"))
                .hint("patterns use Rust regex syntax and are matched against each normalised command segment")
        })?;
        allow.pattern = Some(entry_text.to_string());
        kind = "pattern";
    } else if !command
        && (matcher::find_rule(entry_text).is_some() || guard::Policy::is_pack(entry_text))
    {
        allow.rule = Some(entry_text.to_string());
        kind = "rule";
    } else if !command && looks_like_rule_id(entry_text) {
        // `pack:rule` that names no rule is a typo far more often than a command.
        let close = closest_rules(entry_text);
        return Err(CmError::usage(
            "UNKNOWN_RULE",
            format!(
                "\"{entry_text}\" looks like a rule id, but no built-in rule or pack has that name{}",
                if close.is_empty() {
                    String::new()
                } else {
                    format!(" (did you mean {}?)", close.join(", "))
                }
            ),
        )
        .hint(format!(
            "`cm guard check \"COMMAND\"` shows the rule a command hits; to allow the exact command \"{entry_text}\", pass --command; nothing was saved"
        )));
    } else {
        allow.command = Some(entry_text.to_string());
        kind = "command";
    }
    let path = policy_file::add_allow(allow.clone(), project, &ctx.cwd)?;
    let data = json!({
        "entry": allow,
        "kind": kind,
        "file": path,
    });
    Ok(Report::new(data)
        .human(format!(
            "allowed {kind} {entry_text:?} ({} scope) in {}",
            if project { "project" } else { "global" },
            path.display()
        ))
        .quiet(path.display().to_string()))
}

/// `pack:rule`: lower-case words and dashes around one colon, no spaces.
fn looks_like_rule_id(text: &str) -> bool {
    let ok = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
    };
    text.split_once(':').is_some_and(|(p, r)| ok(p) && ok(r))
}

/// Built-in rule ids that differ from `id` by a typo or two, closest first (at most three).
fn closest_rules(id: &str) -> Vec<String> {
    let mut scored: Vec<(usize, String)> = guard::packs::PACKS
        .iter()
        .flat_map(|p| p.rules.iter().map(move |r| format!("{}:{}", p.name, r.id)))
        .map(|full| (crate::config::schema::distance(&full, id), full))
        .filter(|(d, _)| *d <= 3)
        .collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, r)| r).collect()
}
