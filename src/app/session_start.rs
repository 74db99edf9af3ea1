//! The use case behind `cm hook session-start` (SessionStart; also Codex and Gemini CLI
//! session-start payloads): what a new session should know about its workspace.
//!
//! Guesses what the session is about from the workspace (its name, the git branch read from
//! `.git/HEAD`, the titles of its recent sessions), and injects the matching rules, pitfalls and
//! a few pointers to past sessions, at most [`BUDGET`] characters, written as facts. Prints
//! nothing when nothing is relevant, when there is no store, or on any error (which goes to
//! stderr). Read-only and under a deadline: the store is opened with
//! `Store::open_readonly_until`, no config is parsed (scoring uses the documented defaults).

use super::inject::{HookAnswer, open_store};
use crate::context::engine::{self, Request};
use crate::context::{inject, sanitize};
use crate::episodic::sessions;
use crate::error::Result;
use std::path::PathBuf;
use std::time::Instant;

/// A session starting in `cwd`.
#[derive(Debug, Clone)]
pub struct SessionStartRequest {
    pub cwd: PathBuf,
    /// When the answer is due.
    pub deadline: Instant,
}

pub const BUDGET: usize = 4_000;
const RULES: usize = 5;
/// House rules injected before the task guesses, at most.
const HOUSE: usize = 8;
const POINTERS: usize = 3;

/// What to inject at the start of a session: the protocol JSON to print (`None`: nothing to say)
/// and what the deadline cut.
pub fn inject(req: &SessionStartRequest) -> Result<HookAnswer> {
    let deadline = req.deadline;
    let cwd = &req.cwd;
    let store = match open_store(deadline)? {
        Ok(store) => store,
        Err(answer) => return Ok(answer),
    };
    let root: PathBuf = crate::paths::git_root(cwd).unwrap_or_else(|| cwd.clone());
    let workspace = root.display().to_string();
    let branch = inject::git_branch(&root);
    let recent = sessions::recent(&store.conn, &workspace, POINTERS).unwrap_or_default();
    let mut guess = Vec::new();
    if let Some(name) = root.file_name().and_then(|n| n.to_str()) {
        guess.push(name.to_string());
    }
    if let Some(b) = &branch
        && !matches!(b.as_str(), "main" | "master" | "trunk" | "develop")
    {
        guess.push(b.replace(['/', '-', '_'], " "));
    }
    for s in &recent {
        if let Some(t) = &s.title {
            guess.push(t.chars().take(200).collect());
        }
    }
    let task = guess.join(" ");
    let repo =
        crate::memory::repo_file::readable_in(cwd, "cm hook session-start", deadline, &store.conn);
    let scoring = crate::config::Scoring::default();
    let engine_req = Request {
        task: &task,
        coverage: engine::Coverage::Known,
        widen_history: true,
        house: HOUSE,
        concepts: true,
        limit: RULES,
        min_relevance: 0.15,
        history: 0,
        days: None,
        history_workspace: None,
        workspace: Some(workspace.clone()),
        gaps: false,
        now: crate::clock::now(),
        scoring: &scoring,
        semantic: None,
        db_path: None,
        deadline: Some(deadline),
        keep: false,
    };
    let answer = engine::answer(Some(&store.conn), repo, &engine_req)?;
    let cut = answer.cut.clone();
    // The task guesses leave out what the house rules already say.
    let guessed =
        |r: &&crate::context::rank::RankedBullet| !answer.house.iter().any(|h| h.id == r.id);
    let rules: Vec<_> = answer.ranked.rules.iter().filter(guessed).collect();
    let pitfalls: Vec<_> = answer.ranked.anti_patterns.iter().filter(guessed).collect();
    if answer.house.is_empty() && rules.is_empty() && pitfalls.is_empty() && recent.is_empty() {
        return Ok(HookAnswer { stdout: None, cut });
    }
    let mut lines = vec![match &branch {
        Some(b) => format!("cm memory for {workspace} (branch {b}):"),
        None => format!("cm memory for {workspace}:"),
    }];
    if !answer.house.is_empty() {
        lines.push("Rules of this workspace (learned or marked helpful here):".into());
        for h in &answer.house {
            let kind = if h.bullet_type == "anti-pattern" {
                "pitfall "
            } else {
                ""
            };
            lines.push(format!(
                "- {kind}[{}] {}",
                h.id,
                sanitize::clip(&sanitize::strip_instructions(&h.content), 400)
            ));
        }
    }
    if !rules.is_empty() {
        lines.push("Rules that applied to similar work:".into());
        for r in rules {
            lines.push(inject::rule_item(&format!("[{}] ", r.id), r, 400));
        }
    }
    if !pitfalls.is_empty() {
        lines.push("Known pitfalls (these caused problems before):".into());
        for r in pitfalls {
            lines.push(inject::rule_item(&format!("[{}] ", r.id), r, 400));
        }
    }
    if !recent.is_empty() {
        lines.push("Recent sessions in this workspace:".into());
        for s in &recent {
            let when = s
                .ended_at
                .as_deref()
                .map(|t| &t[..t.len().min(10)])
                .unwrap_or("?");
            let title = s.title.as_deref().unwrap_or("(untitled)");
            lines.push(inject::item(
                &format!("{when} {} session {}: ", s.agent, s.session_id),
                title,
                200,
            ));
        }
    }
    lines.push("Rule ids cited in replies (\"following b-...\") count as uses; `cm context \"<task>\"` gives task-specific detail.".into());
    let text = inject::within(&lines, BUDGET);
    Ok(HookAnswer {
        stdout: Some(inject::envelope("SessionStart", &text)),
        cut,
    })
}
