//! `cm hook prompt` (UserPromptSubmit): "related past records" for the prompt being sent.
//!
//! The query gate runs first, before anything is opened: acknowledgements, greetings and slash
//! commands exit at once with no output. A prompt that passes is matched against the playbook
//! and the session index; a record is injected only if it is both similar enough
//! (relevance >= [`MIN_RELEVANCE`]) and significant: a rule with positive feedback, an
//! established or proven rule, a pitfall or a repository rule; a past session moment with arousal
//! >= [`MIN_AROUSAL`]. At most [`BUDGET`] characters; nothing otherwise.

use crate::context::engine::{self, Request};
use crate::context::{gate, inject};
use crate::store::Store;

pub const BUDGET: usize = 1_500;
pub const MIN_RELEVANCE: f64 = 0.35;
pub const MIN_AROUSAL: f64 = 0.5;
const MAX_ITEMS: usize = 3;

pub fn run(_args: &[String]) -> i32 {
    let payload = super::read_stdin();
    match build(&payload.bytes) {
        Ok(Some(out)) => println!("{out}"),
        Ok(None) => {}
        Err(e) => eprintln!("cm hook prompt: {e}; nothing injected"),
    }
    0
}

pub fn build(payload: &[u8]) -> Result<Option<String>, String> {
    let p = inject::parse_payload(payload)?;
    let Some(prompt) = p.prompt.filter(|s| !s.trim().is_empty()) else {
        return Ok(None);
    };
    let decision = gate::decide(&prompt);
    if !decision.retrieve() {
        return Ok(None);
    }
    let Some(store) = Store::open_readonly(&crate::paths::db_path()).map_err(|e| e.message)? else {
        return Ok(None);
    };
    let cwd = p.cwd.unwrap_or_else(crate::paths::cwd);
    let workspace = crate::paths::git_root(&cwd).unwrap_or_else(|| cwd.clone());
    let repo = crate::memory::repo_file::readable_in(&cwd, "cm hook prompt");
    let scoring = crate::config::Scoring::default();
    let task: String = prompt.chars().take(2_000).collect();
    let req = Request {
        task: &task,
        limit: MAX_ITEMS,
        min_relevance: MIN_RELEVANCE,
        history: MAX_ITEMS,
        days: None,
        history_workspace: None,
        workspace: Some(workspace.display().to_string()),
        gaps: false,
        now: crate::clock::now(),
        scoring: &scoring,
        semantic: None,
        db_path: Some(&store.path),
    };
    let answer = engine::answer(Some(&store.conn), repo, &req).map_err(|e| e.message)?;
    let mut lines = vec!["Related past records (cm):".to_string()];
    let significant = |r: &&crate::context::rank::RankedBullet| {
        r.effective_score > 0.0
            || matches!(r.maturity, "established" | "proven")
            || r.bullet_type == "anti-pattern"
            || r.location == "repo"
    };
    for r in answer.ranked.anti_patterns.iter().filter(significant) {
        lines.push(inject::rule_item(&format!("pitfall [{}] ", r.id), r, 300));
    }
    for r in answer.ranked.rules.iter().filter(significant) {
        lines.push(inject::rule_item(&format!("rule [{}] ", r.id), r, 300));
    }
    for s in answer
        .history
        .iter()
        .filter(|s| s.arousal >= MIN_AROUSAL && s.hit.score / (s.hit.score + 5.0) >= MIN_RELEVANCE)
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
        return Ok(None);
    }
    lines.truncate(1 + MAX_ITEMS * 2);
    // Gemini CLI sends its prompt hook as BeforeAgent and expects that name back.
    let event = match p.event.as_deref() {
        Some("BeforeAgent") => "BeforeAgent",
        _ => "UserPromptSubmit",
    };
    Ok(Some(inject::envelope(
        event,
        &inject::within(&lines, BUDGET),
    )))
}
