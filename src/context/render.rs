//! The answer as JSON `data`, human text or Markdown, within a character budget.
//!
//! `--max-chars N` (default [`DEFAULT_MAX_CHARS`], about 3,000 tokens) bounds the size of the
//! rules, pitfalls, deprecated warnings and history snippets. When they do not fit, the item
//! with the lowest score relative to the best of its own list is dropped first, repeatedly, so
//! every list keeps its strongest entries; `data.budget.omitted` says how many were left out.

use super::engine::Answer;
use super::history::Snippet;
use super::rank::{DeprecatedWarning, RankedBullet};
use serde_json::{Value, json};

pub const DEFAULT_MAX_CHARS: usize = 12_000;

#[derive(Debug, Default)]
pub struct Budget {
    pub max_chars: usize,
    pub used_chars: usize,
    pub omitted: usize,
    /// How many of the omitted items were rules or pitfalls.
    pub omitted_rules: usize,
}

fn size<T: serde::Serialize>(x: &T) -> usize {
    serde_json::to_string(x)
        .map(|s| s.chars().count())
        .unwrap_or(0)
}

/// Drop the weakest items until the lists fit in `max_chars`.
pub fn trim(a: &mut Answer, max_chars: usize) -> Budget {
    let mut used: usize = a.ranked.rules.iter().map(size).sum::<usize>()
        + a.ranked.anti_patterns.iter().map(size).sum::<usize>()
        + a.ranked.deprecated.iter().map(size).sum::<usize>()
        + a.history.iter().map(size).sum::<usize>();
    let mut omitted = 0;
    let mut omitted_rules = 0;
    while used > max_chars {
        // (relative score, list) of each list's last item.
        let rel = |last: Option<f64>, first: Option<f64>| match (last, first) {
            (Some(l), Some(f)) if f > 0.0 => Some(l / f),
            (Some(_), _) => Some(0.0),
            _ => None,
        };
        let tails = [
            rel(
                a.ranked.rules.last().map(|r| r.final_score),
                a.ranked.rules.first().map(|r| r.final_score),
            ),
            rel(
                a.ranked.anti_patterns.last().map(|r| r.final_score),
                a.ranked.anti_patterns.first().map(|r| r.final_score),
            ),
            rel(
                a.ranked.deprecated.last().map(|r| r.relevance_score),
                a.ranked.deprecated.first().map(|r| r.relevance_score),
            ),
            rel(
                a.history.last().map(|h| h.rank_score),
                a.history.first().map(|h| h.rank_score),
            ),
        ];
        let Some((which, _)) = tails
            .iter()
            .enumerate()
            .filter_map(|(i, t)| t.map(|v| (i, v)))
            // Deprecated warnings go before rules at equal standing.
            .min_by(|x, y| x.1.total_cmp(&y.1).then_with(|| y.0.cmp(&x.0)))
        else {
            break;
        };
        let freed = match which {
            0 => a.ranked.rules.pop().map(|x| size(&x)),
            1 => a.ranked.anti_patterns.pop().map(|x| size(&x)),
            2 => a.ranked.deprecated.pop().map(|x| size(&x)),
            _ => a.history.pop().map(|x| size(&x)),
        }
        .unwrap_or(0);
        used -= freed.min(used);
        omitted += 1;
        omitted_rules += usize::from(which < 2);
    }
    Budget {
        max_chars,
        used_chars: used,
        omitted,
        omitted_rules,
    }
}

pub fn to_json(task: &str, a: &Answer, budget: &Budget) -> Value {
    json!({
        "task": task,
        "houseRules": a.house,
        "relevantBullets": a.ranked.rules,
        "antiPatterns": a.ranked.anti_patterns,
        "deprecatedWarnings": a.ranked.deprecated,
        "historySnippets": a.history,
        "suggestedCassQueries": a.queries,
        "gaps": a.gaps,
        "degraded": a.degraded.to_json(),
        "budget": {"maxChars": budget.max_chars, "usedChars": budget.used_chars, "omitted": budget.omitted},
    })
}

fn bullet_line(r: &RankedBullet) -> String {
    format!(
        "[{}] {} ({}, score {:.2}){}",
        r.id,
        r.content,
        r.category,
        r.final_score,
        conflict(r)
    )
}

fn house_line(h: &super::house::HouseRule) -> String {
    format!("[{}] {} ({}, {})", h.id, h.content, h.category, h.reason)
}

/// " - contradicts b-x, b-y" when the rule contradicts others.
fn conflict(r: &RankedBullet) -> String {
    if r.contradicts.is_empty() {
        String::new()
    } else {
        format!(" - contradicts {}", r.contradicts.join(", "))
    }
}

fn deprecated_line(d: &DeprecatedWarning) -> String {
    let mut s = format!("[{}] {} - deprecated: {}", d.id, d.content, d.reason);
    if let Some(n) = &d.replaced_by {
        s.push_str(&format!(" (see {n})"));
    }
    s
}

fn snippet_line(s: &Snippet) -> String {
    let when = s
        .hit
        .created_at
        .as_deref()
        .map(|t| &t[..t.len().min(10)])
        .unwrap_or("?");
    format!(
        "{when} {} {}:{} - {}",
        s.hit.agent, s.hit.source_path, s.hit.line_number, s.hit.snippet
    )
}

fn degraded_lines(a: &Answer) -> Vec<String> {
    a.degraded.lines()
}

/// Why no rule is shown: none matches, or those that match did not fit in the budget.
fn no_rules_line(budget: &Budget) -> String {
    if budget.omitted_rules == 0 {
        "\nNo rule in the playbook matches this task.\n".into()
    } else {
        format!(
            "\nNo rule is shown: the {} matching rule(s) and pitfall(s) did not fit within {} characters.\n",
            budget.omitted_rules, budget.max_chars
        )
    }
}

/// Plain text for a terminal.
pub fn human(task: &str, a: &Answer, budget: &Budget) -> String {
    let mut s = format!("Context for: {task}\n");
    let mut section = |title: &str, lines: Vec<String>| {
        if !lines.is_empty() {
            s.push_str(&format!("\n{title}\n"));
            for l in lines {
                s.push_str(&format!("  - {l}\n"));
            }
        }
    };
    section(
        "Rules of this workspace",
        a.house.iter().map(house_line).collect(),
    );
    section("Rules", a.ranked.rules.iter().map(bullet_line).collect());
    section(
        "Pitfalls",
        a.ranked.anti_patterns.iter().map(bullet_line).collect(),
    );
    section(
        "Do not follow (deprecated or net harmful)",
        a.ranked.deprecated.iter().map(deprecated_line).collect(),
    );
    section(
        "Past sessions",
        a.history.iter().map(snippet_line).collect(),
    );
    section("Search the history", a.queries.clone());
    if let Some(g) = &a.gaps {
        let mut lines = vec![
            format!("critical (0 rules): {}", g.critical.join(", ")),
            format!("underrepresented (1-2): {}", g.underrepresented.join(", ")),
        ];
        lines.extend(
            g.suggestions
                .iter()
                .map(|s| format!("starter rule for {}: {}", s.category, s.command)),
        );
        section("Playbook gaps", lines);
    }
    section("Degraded", degraded_lines(a));
    if a.ranked.rules.is_empty() && a.ranked.anti_patterns.is_empty() {
        s.push_str(&no_rules_line(budget));
    }
    if budget.omitted > 0 {
        s.push_str(&format!(
            "\n({} lower-ranked item(s) left out to stay within {} characters; raise --max-chars to see them)\n",
            budget.omitted, budget.max_chars
        ));
    }
    s
}

/// Markdown, for pasting into a prompt or a file.
pub fn markdown(task: &str, a: &Answer, budget: &Budget) -> String {
    let mut s = format!("# Context: {task}\n");
    let mut section = |title: &str, lines: Vec<String>| {
        if !lines.is_empty() {
            s.push_str(&format!("\n## {title}\n\n"));
            for l in lines {
                s.push_str(&format!("- {l}\n"));
            }
        }
    };
    let md = |r: &RankedBullet| {
        format!(
            "**{}** {} _({}, {:.2})_{}",
            r.id,
            r.content,
            r.category,
            r.final_score,
            conflict(r)
        )
    };
    section(
        "Rules of this workspace",
        a.house
            .iter()
            .map(|h| {
                format!(
                    "**{}** {} _({}, {})_",
                    h.id, h.content, h.category, h.reason
                )
            })
            .collect(),
    );
    section("Rules", a.ranked.rules.iter().map(md).collect());
    section("Pitfalls", a.ranked.anti_patterns.iter().map(md).collect());
    section(
        "Do not follow (deprecated or net harmful)",
        a.ranked.deprecated.iter().map(deprecated_line).collect(),
    );
    section(
        "Past sessions",
        a.history.iter().map(snippet_line).collect(),
    );
    section(
        "Search the history",
        a.queries.iter().map(|q| format!("`{q}`")).collect(),
    );
    if let Some(g) = &a.gaps {
        section(
            "Playbook gaps",
            g.categories
                .iter()
                .map(|c| format!("{}: {} rule(s), {}", c.category, c.rules, c.status))
                .chain(
                    g.suggestions
                        .iter()
                        .map(|s| format!("starter rule for {}: `{}`", s.category, s.command)),
                )
                .collect(),
        );
    }
    section("Degraded", degraded_lines(a));
    if budget.omitted > 0 {
        s.push_str(&format!(
            "\n_{} lower-ranked item(s) omitted (budget {} characters)._\n",
            budget.omitted, budget.max_chars
        ));
    }
    s
}
