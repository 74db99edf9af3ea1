//! The rules that belong in a repository's documentation (`cm project`): the repository's own
//! rules first, then the personal rules scoped to this workspace, then the personal rules that
//! hold everywhere (global scope, and language or framework rules for a stack the repository
//! uses), grouped by category. Deprecated and retired rules are left out; rules scoped to
//! another workspace or to a task are not the repository's.

use crate::config::Config;
use crate::degraded::Degraded;
use crate::error::Result;
use crate::memory::bullet::{Bullet, Maturity, Scope, maturity_name};
use crate::memory::playbook::{Location, Playbook};
use crate::memory::scoring::{effective_score, round3};
use crate::store::Store;
use serde::Serialize;
use std::path::Path;

pub struct Request<'a> {
    pub cwd: &'a Path,
    pub mature_only: bool,
    pub per_category: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Repo,
    Workspace,
    Global,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rule {
    pub id: String,
    pub content: String,
    pub category: String,
    pub source: Source,
    pub anti_pattern: bool,
    pub tags: Vec<String>,
    pub effective_score: f64,
    pub maturity: &'static str,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Group {
    pub category: String,
    pub rules: Vec<Rule>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    pub workspace: String,
    pub stack: Vec<&'static str>,
    pub categories: Vec<Group>,
    pub counts: Counts,
    #[serde(skip)]
    pub degraded: Degraded,
}

#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    pub repo: usize,
    pub workspace: usize,
    pub global: usize,
    pub anti_patterns: usize,
    /// Left out: deprecated or retired.
    pub deprecated: usize,
    /// Left out: live but net harmful (effective score below 0), which `cm context` only warns of.
    pub net_harmful: usize,
    /// Left out: scoped to another workspace, a task, or a stack this repository does not use.
    pub out_of_scope: usize,
    /// Left out by `--mature-only` or `--per-category`.
    pub filtered: usize,
}

pub fn rules(store: &Store, cfg: &Config, req: &Request) -> Result<Answer> {
    let now = crate::clock::now();
    let playbook = Playbook::open(store, req.cwd).settled(&cfg.scoring, now);
    let entries = playbook.load_all()?;
    let degraded = Degraded {
        repo_playbook: playbook.repo_issue(),
        ..Degraded::default()
    };
    let workspace = super::task_context::workspace_of(req.cwd, None);
    let stack = stack_of(Path::new(&workspace));
    let mut counts = Counts::default();
    let mut picked: Vec<Rule> = Vec::new();
    for e in entries {
        let b = e.bullet;
        if !b.is_live() {
            counts.deprecated += 1;
            continue;
        }
        let Some(source) = source_of(&b, &e.location, &workspace, &stack) else {
            counts.out_of_scope += 1;
            continue;
        };
        let score = round3(effective_score(&b, &cfg.scoring, now));
        if score < 0.0 && !b.is_anti_pattern() {
            counts.net_harmful += 1;
            continue;
        }
        if req.mature_only && b.maturity < Maturity::Established {
            counts.filtered += 1;
            continue;
        }
        picked.push(rule(&b, source, score));
    }
    picked.sort_by(|a, b| {
        (a.source, a.anti_pattern)
            .cmp(&(b.source, b.anti_pattern))
            .then(b.effective_score.total_cmp(&a.effective_score))
            .then_with(|| a.id.cmp(&b.id))
    });
    let categories = group(picked, req.per_category, &mut counts.filtered);
    for r in categories.iter().flat_map(|g| &g.rules) {
        match r.source {
            Source::Repo => counts.repo += 1,
            Source::Workspace => counts.workspace += 1,
            Source::Global => counts.global += 1,
        }
        counts.anti_patterns += usize::from(r.anti_pattern);
    }
    Ok(Answer {
        workspace,
        stack,
        categories,
        counts,
        degraded,
    })
}

fn rule(b: &Bullet, source: Source, effective_score: f64) -> Rule {
    Rule {
        id: b.id.clone(),
        content: crate::redact::redact(&b.content).0,
        category: b.category.clone(),
        source,
        anti_pattern: b.is_anti_pattern(),
        tags: b.tags.clone(),
        effective_score,
        maturity: maturity_name(b.maturity),
    }
}

/// Where a rule comes from, or None when it is not this repository's.
fn source_of(b: &Bullet, at: &Location, workspace: &str, stack: &[&str]) -> Option<Source> {
    if let Location::Repo(_) = at {
        return Some(Source::Repo);
    }
    match b.scope {
        Scope::Workspace => b
            .scope_key
            .as_deref()
            .filter(|k| crate::context::rank::same_workspace(k, workspace))
            .map(|_| Source::Workspace),
        Scope::Global => Some(Source::Global),
        Scope::Language | Scope::Framework => b
            .scope_key
            .as_deref()
            .filter(|k| stack.iter().any(|s| s.eq_ignore_ascii_case(k.trim())))
            .map(|_| Source::Global),
        Scope::Task => None,
    }
}

/// Categories in order of their first (best) rule, each capped at `cap` rules.
fn group(rules: Vec<Rule>, cap: Option<usize>, dropped: &mut usize) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for r in rules {
        let at = match groups.iter().position(|g| g.category == r.category) {
            Some(i) => i,
            None => {
                groups.push(Group {
                    category: r.category.clone(),
                    rules: Vec::new(),
                });
                groups.len() - 1
            }
        };
        if cap.is_some_and(|n| groups[at].rules.len() >= n) {
            *dropped += 1;
            continue;
        }
        groups[at].rules.push(r);
    }
    groups.retain(|g| !g.rules.is_empty());
    groups
}

/// The languages and frameworks a repository uses, from the files at its root.
pub fn stack_of(root: &Path) -> Vec<&'static str> {
    let has = |f: &str| root.join(f).is_file();
    let mut out = Vec::new();
    if has("Cargo.toml") {
        out.push("rust");
    }
    if has("go.mod") {
        out.push("go");
    }
    if has("pyproject.toml") || has("setup.py") || has("requirements.txt") {
        out.push("python");
    }
    if has("package.json") {
        out.extend(["javascript", "node"]);
        let manifest = crate::untrusted::read_text(&root.join("package.json"), 1 << 20)
            .ok()
            .flatten()
            .unwrap_or_default();
        if manifest.contains("\"react\"") {
            out.push("react");
        }
        if manifest.contains("\"typescript\"") {
            out.push("typescript");
        }
    }
    if has("tsconfig.json") && !out.contains(&"typescript") {
        out.push("typescript");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(id: &str, category: &str, source: Source) -> Rule {
        Rule {
            id: id.into(),
            content: id.into(),
            category: category.into(),
            source,
            anti_pattern: false,
            tags: vec![],
            effective_score: 0.0,
            maturity: "candidate",
        }
    }

    #[test]
    fn groups_keep_order_and_cap_each_category() {
        let mut dropped = 0;
        let g = group(
            vec![
                r("a", "git", Source::Repo),
                r("b", "testing", Source::Repo),
                r("c", "git", Source::Global),
                r("d", "git", Source::Global),
            ],
            Some(2),
            &mut dropped,
        );
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].category, "git");
        assert_eq!(g[0].rules.len(), 2);
        assert_eq!(dropped, 1);
    }

    #[test]
    fn other_workspaces_and_tasks_are_not_the_repositorys() {
        let mut b = Bullet {
            scope: Scope::Workspace,
            scope_key: Some("/src/other".into()),
            ..Bullet::default()
        };
        assert_eq!(source_of(&b, &Location::Personal, "/src/shop", &[]), None);
        b.scope_key = Some("/src/shop".into());
        assert_eq!(
            source_of(&b, &Location::Personal, "/src/shop", &[]),
            Some(Source::Workspace)
        );
        b.scope = Scope::Language;
        b.scope_key = Some("rust".into());
        assert_eq!(source_of(&b, &Location::Personal, "/x", &["go"]), None);
        assert_eq!(
            source_of(&b, &Location::Personal, "/x", &["rust"]),
            Some(Source::Global)
        );
        b.scope = Scope::Task;
        assert_eq!(source_of(&b, &Location::Personal, "/x", &["rust"]), None);
    }
}
