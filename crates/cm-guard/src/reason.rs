//! The words of a denial: what matched, why it is dangerous, what to do instead, and how a
//! human can let it through. The model reads this, so it states facts and next steps.

use super::{Decision, Hit, Severity};

/// The reason given to the agent for a deny decision (empty for allow).
pub fn deny_reason(decision: &Decision) -> String {
    match (&decision.hit, decision.is_deny()) {
        (Some(hit), true) => for_hit(hit),
        _ => String::new(),
    }
}

/// The reason a hook gives for `hit`: what it would destroy and what to do instead.
pub fn for_hit(hit: &Hit) -> String {
    let mut s = String::with_capacity(512);
    if hit.pack == "user" {
        s.push_str(&format!(
            "cm guard blocked this command: `{}` matches the user's trauma {} (pattern `{}`, severity {}). ",
            short(&hit.segment),
            hit.rule,
            hit.pattern,
            hit.severity.as_str()
        ));
        s.push_str(&format!(
            "Why it is blocked: {}. ",
            hit.explanation.trim_end_matches('.')
        ));
        s.push_str(&format!(
            "Instead: {}. ",
            hit.alternative.trim_end_matches('.')
        ));
        if hit.severity == Severity::Fatal {
            s.push_str(&format!(
                "Do not try another form of the command. For the user: only you can lift trauma {}, by healing it from your own terminal (`cm trauma heal`); the guard refuses that from an agent.",
                hit.rule
            ));
        } else {
            s.push_str(&format!(
                "Do not try another form of the command. For the user: if it must run, heal trauma {} or add an exception with `cm guard allow`, from your own terminal; the guard refuses both from an agent.",
                hit.rule
            ));
        }
        return s;
    }
    s.push_str(&format!(
        "cm guard blocked this command: `{}` matches {} ({} pack, severity {}). ",
        short(&hit.segment),
        hit.rule,
        hit.pack,
        hit.severity.as_str()
    ));
    s.push_str(&format!(
        "Why it is blocked: {}. ",
        hit.explanation.trim_end_matches('.')
    ));
    s.push_str(&format!(
        "Instead: {}. ",
        hit.alternative.trim_end_matches('.')
    ));
    s.push_str(&format!(
        "Do not try another form of the command. For the user: if it must run, add an exception for it or for rule {} with `cm guard allow`, from your own terminal (the guard refuses that from an agent), or run it yourself.",
        hit.rule
    ));
    s
}

/// The reason when the agent asks its user instead of refusing (a `high` rule, an agent that
/// can ask): the same facts, addressed to the user who decides.
pub fn for_ask(hit: &Hit) -> String {
    let text = for_hit(hit);
    let rest = text
        .strip_prefix("cm guard blocked this command: ")
        .unwrap_or(&text);
    let rest = rest
        .split(" Do not try another form of the command.")
        .next()
        .unwrap_or(rest);
    format!(
        "cm guard asks the user first: {rest} For the user: approve it if you meant it; deny it otherwise."
    )
}

/// One line for the human (Cursor's `user_message`, `cm guard check`).
pub fn user_message(hit: &Hit) -> String {
    format!("cm guard blocked `{}` ({})", short(&hit.segment), hit.rule)
}

fn short(segment: &str) -> String {
    let one_line: String = segment.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= 200 {
        return one_line;
    }
    let cut: String = one_line.chars().take(199).collect();
    format!("{cut}…")
}
