//! The use case behind `cm hook prompt` (UserPromptSubmit, Gemini CLI's BeforeAgent): "related
//! past records" for the prompt being sent.
//!
//! The query gate runs first, before anything is opened: acknowledgements, greetings and slash
//! commands exit at once with no output. A prompt that passes is matched against the playbook
//! and the session index; a record is injected only if it is similar enough (a rule's relevance
//! weighed by its place, [`local_relevance`], or a moment's relevance, >= [`MIN_RELEVANCE`]) and
//! worth following: a rule that is not net harmful (the rule that matches
//! is what the agent needs most, new or proven), a pitfall; a past session moment with arousal >=
//! [`MIN_AROUSAL`]. The playbook items come first, most relevant first, then the moments; at most
//! [`MAX_ITEMS`] of each and [`BUDGET`] characters; nothing otherwise.
//!
//! The store is read under a deadline ([`PromptRequest::deadline`]): what is not ready by then is
//! left out and named in [`HookAnswer::cut`].

use super::inject::{HookAnswer, open_store};
use crate::context::engine::{self, Request};
use crate::context::{gate, inject};
use crate::error::Result;
use std::path::PathBuf;
use std::time::Instant;

/// A prompt about to be sent, and where.
#[derive(Debug, Clone)]
pub struct PromptRequest {
    pub prompt: String,
    pub cwd: PathBuf,
    /// The agent's event name, answered back ("BeforeAgent" for Gemini CLI).
    pub event: Option<String>,
    /// When the answer is due.
    pub deadline: Instant,
}

pub const BUDGET: usize = 1_500;
pub const MIN_RELEVANCE: f64 = 0.35;
pub const MIN_AROUSAL: f64 = 0.5;
pub const MAX_ITEMS: usize = 3;

/// A rule's relevance where the prompt is sent: weighed by its place, so a rule of this
/// repository or learned here (place 1.5, [`crate::context::place`]) needs less of the prompt's
/// words than one learned elsewhere, and comes before it at equal relevance. A short prompt
/// ("install axios") names little, and what this workspace taught is what it most likely means.
fn local_relevance(r: &crate::context::rank::RankedBullet) -> f64 {
    r.relevance_score * r.signals.place.max(0.0)
}

/// The flashback for a prompt: the protocol JSON to print (`None`: nothing to say) and what the
/// deadline cut.
pub fn flashback(req: &PromptRequest) -> Result<HookAnswer> {
    let prompt = req.prompt.trim();
    if prompt.is_empty() {
        return Ok(HookAnswer::default());
    }
    let decision = gate::decide(prompt);
    if !decision.retrieve() {
        return Ok(HookAnswer::default());
    }
    let deadline = req.deadline;
    let store = match open_store(deadline)? {
        Ok(store) => store,
        Err(answer) => return Ok(answer),
    };
    let cwd = &req.cwd;
    let workspace = crate::paths::git_root(cwd).unwrap_or_else(|| cwd.clone());
    let repo = crate::memory::repo_file::readable_in(cwd, "cm hook prompt", deadline, &store.conn);
    let scoring = crate::config::Scoring::default();
    let task: String = prompt.chars().take(2_000).collect();
    let engine_req = Request {
        coverage: engine::Coverage::Task,
        widen_history: true,
        house: 0,
        concepts: true,
        task: &task,
        limit: MAX_ITEMS,
        // Place-weighed below ([`local_relevance`]): a rule of this workspace may qualify at
        // less than the plain minimum.
        min_relevance: MIN_RELEVANCE / crate::context::place::HERE,
        history: MAX_ITEMS,
        days: None,
        history_workspace: None,
        workspace: Some(workspace.display().to_string()),
        gaps: false,
        now: crate::clock::now(),
        scoring: &scoring,
        semantic: None,
        db_path: Some(&store.path),
        deadline: Some(deadline),
        keep: false,
    };
    let answer = engine::answer(Some(&store.conn), repo, &engine_req)?;
    let cut = answer.cut.clone();
    let mut lines = vec!["Related past records (cm):".to_string()];
    // Rules the agent should follow (not net harmful) and pitfalls, similar enough where the
    // prompt is sent, most relevant there first.
    let mut playbook: Vec<(&str, &crate::context::rank::RankedBullet)> = answer
        .ranked
        .rules
        .iter()
        .filter(|r| r.effective_score >= 0.0)
        .map(|r| ("rule", r))
        .chain(answer.ranked.anti_patterns.iter().map(|r| ("pitfall", r)))
        .filter(|(_, r)| local_relevance(r) >= MIN_RELEVANCE)
        .collect();
    playbook.sort_by(|a, b| {
        local_relevance(b.1)
            .total_cmp(&local_relevance(a.1))
            .then_with(|| a.1.id.cmp(&b.1.id))
    });
    for (kind, r) in playbook.into_iter().take(MAX_ITEMS) {
        lines.push(inject::rule_item(&format!("{kind} [{}] ", r.id), r, 300));
    }
    for s in answer
        .history
        .iter()
        .filter(|s| s.arousal >= MIN_AROUSAL && s.hit.score / (s.hit.score + 5.0) >= MIN_RELEVANCE)
        .take(MAX_ITEMS)
    {
        let when = s
            .hit
            .created_at
            .as_deref()
            .map(|t| &t[..t.len().min(10)])
            .unwrap_or("?");
        lines.push(inject::item(
            &format!(
                "{when} {} session {} (arousal {:.1}): ",
                s.hit.agent, s.hit.session_id, s.arousal
            ),
            &s.hit.snippet,
            300,
        ));
    }
    if lines.len() == 1 {
        return Ok(HookAnswer { stdout: None, cut });
    }
    // Gemini CLI sends its prompt hook as BeforeAgent and expects that name back.
    let event = match req.event.as_deref() {
        Some("BeforeAgent") => "BeforeAgent",
        _ => "UserPromptSubmit",
    };
    Ok(HookAnswer {
        stdout: Some(inject::envelope(event, &inject::within(&lines, BUDGET))),
        cut,
    })
}
