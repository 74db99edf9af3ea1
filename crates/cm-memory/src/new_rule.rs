//! Turning user input (a rule's text, category, tags, scope) into a validated new bullet.
//!
//! Rule text is cleaned (whitespace collapsed, secrets redacted: a rule must never carry a key
//! copied from a session), and the category must be one cm knows or one the user declared in
//! `customCategories`, so a typo does not silently start a new category.

use super::bullet::{
    Bullet, BulletType, CATEGORIES, Kind, Scope, State, new_bullet_id, parse_scope,
};
use cm_base::error::{CmError, Result};

pub const MAX_RULE_CHARS: usize = 2000;

pub struct RuleInput<'a> {
    pub content: &'a str,
    pub category: Option<&'a str>,
    pub tags: &'a [String],
    pub scope: Option<&'a str>,
    pub custom_categories: &'a [String],
    pub session: Option<&'a str>,
    pub agent: Option<&'a str>,
    pub reasoning: Option<&'a str>,
    /// Recorded as the workspace of a `--scope workspace` rule.
    pub workspace: Option<&'a str>,
    pub now: &'a str,
}

/// A rule's text as every way in takes it (`playbook add`, import, reflection, `cm validate`):
/// whitespace collapsed, not empty, at most [`MAX_RULE_CHARS`] characters.
pub fn rule_text(content: &str) -> Result<String> {
    let collapsed = content.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.is_empty() {
        return Err(CmError::usage("EMPTY_RULE", "rule text is empty")
            .hint("give the rule as text: cm playbook add \"Always ...\""));
    }
    if collapsed.chars().count() > MAX_RULE_CHARS {
        return Err(CmError::usage(
            "RULE_TOO_LONG",
            format!(
                "rule text has {} characters; the limit is {MAX_RULE_CHARS}",
                collapsed.chars().count()
            ),
        )
        .hint("state the rule in a sentence or two; put background in --reasoning"));
    }
    Ok(collapsed)
}

pub fn build(input: RuleInput) -> Result<Bullet> {
    let collapsed = rule_text(input.content)?;
    let (content, _) = cm_base::redact::redact(&collapsed);
    let category = validate_category(input.category.unwrap_or("general"), input.custom_categories)?;
    let (scope, mut scope_key) = match input.scope {
        None => (Scope::Global, None),
        Some(s) => parse_scope(s).ok_or_else(|| {
            CmError::usage("INVALID_SCOPE", format!("unknown scope \"{s}\""))
                .hint("use global, workspace, language:NAME, framework:NAME or task:NAME")
        })?,
    };
    if scope == Scope::Workspace && scope_key.is_none() {
        scope_key = input.workspace.map(str::to_string);
    }
    let tags = normalize_tags(input.tags)?;
    let is_anti = content.starts_with("PITFALL:")
        || content.starts_with("AVOID:")
        || content.starts_with("ANTI-PATTERN:");
    Ok(Bullet {
        id: new_bullet_id(),
        content,
        category,
        scope,
        scope_key,
        bullet_type: if is_anti {
            BulletType::AntiPattern
        } else {
            BulletType::Rule
        },
        kind: if is_anti {
            Kind::AntiPattern
        } else {
            Kind::WorkflowRule
        },
        is_negative: is_anti,
        state: State::Active,
        source_sessions: input
            .session
            .map(|s| vec![s.to_string()])
            .unwrap_or_default(),
        source_agents: input.agent.map(|s| vec![s.to_string()]).unwrap_or_default(),
        reasoning: input.reasoning.map(|r| cm_base::redact::redact(r).0),
        tags,
        created_at: input.now.to_string(),
        updated_at: input.now.to_string(),
        ..Bullet::default()
    })
}

pub fn validate_category(raw: &str, custom: &[String]) -> Result<String> {
    let c = raw.trim().to_ascii_lowercase();
    if CATEGORIES.contains(&c.as_str()) || custom.iter().any(|x| x.eq_ignore_ascii_case(&c)) {
        return Ok(c);
    }
    Err(
        CmError::usage("INVALID_CATEGORY", format!("unknown category \"{raw}\"")).hint(format!(
            "use one of: {}; or declare your own in config \"customCategories\"",
            CATEGORIES.join(", ")
        )),
    )
}

pub fn normalize_tags(tags: &[String]) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for t in tags.iter().flat_map(|t| t.split(',')) {
        let t = t.trim().to_ascii_lowercase();
        if t.is_empty() {
            continue;
        }
        if t.len() > 64 || t.chars().any(|c| c.is_whitespace()) {
            return Err(
                CmError::usage("INVALID_TAG", format!("invalid tag \"{t}\""))
                    .hint("tags are short words without spaces, separated by commas"),
            );
        }
        if !out.contains(&t) {
            out.push(t);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input<'a>(content: &'a str, category: Option<&'a str>) -> RuleInput<'a> {
        RuleInput {
            content,
            category,
            tags: &[],
            scope: None,
            custom_categories: &[],
            session: None,
            agent: None,
            reasoning: None,
            workspace: None,
            now: "2026-01-01T00:00:00.000Z",
        }
    }

    #[test]
    fn rejects_empty_and_unknown_category() {
        assert_eq!(build(input("   ", None)).unwrap_err().code, "EMPTY_RULE");
        assert_eq!(
            build(input("x", Some("tesitng"))).unwrap_err().code,
            "INVALID_CATEGORY"
        );
        assert_eq!(
            build(input("x", Some("Testing"))).unwrap().category,
            "testing"
        );
    }

    #[test]
    fn secrets_never_reach_a_rule() {
        let b = build(input(
            "Use token ghp_abcdefghijklmnopqrstuvwxyz0123456789 for CI",
            None,
        ))
        .unwrap();
        assert!(!b.content.contains("ghp_abc"), "{}", b.content);
    }
}
