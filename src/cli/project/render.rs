//! The rules as markdown: grouped by category, the repository's first, anti-patterns shown as
//! warnings, each with its id so agents can cite it.

use super::splice::{BEGIN_LINE, END};
use crate::app::project::{Answer, Rule, Source};

const SECTION_TEMPLATE: &str = include_str!("../../../templates/agents-section.md");

/// The standalone document (`--format md`), inside cm's markers.
pub fn document(a: &Answer, scores: bool) -> String {
    let name = std::path::Path::new(&a.workspace)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| a.workspace.clone());
    let body = format!("# Rules for {name}\n\n{}", rules(a, scores, "##"));
    marked(&body)
}

/// The AGENTS.md / CLAUDE.md section: the protocol template with the rules in it.
pub fn agents_section(a: &Answer, scores: bool) -> String {
    let body = SECTION_TEMPLATE.replace("{{rules}}", rules(a, scores, "####").trim_end());
    marked(body.trim_end())
}

fn marked(body: &str) -> String {
    format!("{BEGIN_LINE}\n{}\n{END}\n", body.trim_end())
}

fn rules(a: &Answer, scores: bool, heading: &str) -> String {
    let c = &a.counts;
    let total = c.repo + c.workspace + c.global;
    if total == 0 {
        return "No rules for this repository yet: add one with `cm playbook add \"...\" --repo`, \
                or let `cm reflect` learn them from sessions.\n"
            .to_string();
    }
    let mut out = format!(
        "{total} rule(s): {} from this repository's `.cass/playbook.yaml`, {} for this workspace, {} general.\n",
        c.repo, c.workspace, c.global
    );
    for g in &a.categories {
        out.push_str(&format!("\n{heading} {}\n\n", g.category));
        for r in &g.rules {
            out.push_str(&line(r, scores));
        }
    }
    out
}

fn line(r: &Rule, scores: bool) -> String {
    let text = r.content.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut s = if r.anti_pattern {
        let t = crate::memory::scoring::strip_warning_prefix(&text);
        format!("- **Warning:** {t} (`{}`)", r.id)
    } else {
        format!("- {text} (`{}`)", r.id)
    };
    let mut notes = Vec::new();
    if scores {
        notes.push(format!("score {:.2}, {}", r.effective_score, r.maturity));
    }
    match r.source {
        Source::Repo => notes.push("repository".into()),
        Source::Workspace => notes.push("workspace".into()),
        Source::Global => {}
    }
    if !notes.is_empty() {
        s.push_str(&format!(" _{}_", notes.join("; ")));
    }
    s.push('\n');
    s
}
