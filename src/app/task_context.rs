//! The use case "what do I need to know for this task": the rules, pitfalls and past sessions
//! relevant to a task, ranked, with what is degraded. `cm context` calls it, and so will the
//! MCP server's `cm_context` tool: both pass a [`TaskRequest`] and render the [`TaskAnswer`].
//!
//! Unlike the context hooks ([`super::inject`]), this runs as a writer: it brings the term index
//! and recall reinforcement up to date first, runs the optional semantic pass, and merges
//! configured remote hosts' history.

use crate::config::Loaded;
use crate::context::degraded::Issue;
use crate::context::engine::{self, Answer, Request};
use crate::context::{index, reinforce, render, semantic};
use crate::error::{CmError, Result};
use crate::memory::playbook::Playbook;
use crate::store::Store;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// History snippets by default: each one is a search hit with its own snippet extraction, so
/// the default keeps `cm context` within its latency budget on a large index.
pub const DEFAULT_HISTORY: usize = 5;

/// How much to gather.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Depth {
    /// 5 rules, no history.
    Shallow,
    /// The defaults.
    #[default]
    Normal,
    /// 20 rules, history up to config `maxHistoryInContext`, a double budget.
    Deep,
}

/// What the caller asks; `None` fields take the depth's (and the config's) defaults.
#[derive(Debug, Clone, Default)]
pub struct TaskRequest {
    pub task: String,
    /// Where the command runs (the workspace defaults to its repository).
    pub cwd: PathBuf,
    /// The workspace the task is about; also filters history when given.
    pub workspace: Option<PathBuf>,
    pub limit: Option<usize>,
    pub min_relevance: Option<f64>,
    /// History snippets at most; `Some(0)` for none.
    pub history: Option<usize>,
    pub days: Option<u32>,
    pub gaps: bool,
    pub depth: Depth,
    /// Search history on `store`'s own connection after ranking, instead of on a second
    /// connection opened for it in parallel: what a long-running server wants, whose
    /// connection is warm (its page cache and schema read) and whose other cores serve other
    /// requests.
    pub history_on_store: bool,
    /// The caller is long-running (a server): task-independent derived data is kept between
    /// calls ([`crate::context::kept`]).
    pub keep_derived: bool,
    /// When the answer is due (a server's request timeout): the rules and history are cut
    /// there, so work nobody waits for any more stops.
    pub deadline: Option<Instant>,
}

/// The answer and how it was reached.
pub struct TaskAnswer {
    pub answer: Answer,
    /// The effective request: rules per list, minimum relevance, history snippets, workspace.
    pub limit: usize,
    pub min_relevance: f64,
    pub history: usize,
    pub days: Option<u32>,
    pub workspace: Option<String>,
    /// Character budget the depth gives (the caller may override it).
    pub budget_chars: usize,
    pub semantic_on: bool,
    /// Time spent preparing (config, term index, reinforcement, embeddings) and answering.
    pub prepared: Duration,
    pub answered: Duration,
}

pub fn answer(store: &Store, loaded: &Loaded, req: &TaskRequest) -> Result<TaskAnswer> {
    answer_with(store, None, loaded, req)
}

/// [`answer`], with history searched by `beside` (a server's kept thread with a connection of
/// its own) while the rules are ranked.
pub fn answer_with(
    store: &Store,
    beside: Option<&engine::history_job::Beside>,
    loaded: &Loaded,
    req: &TaskRequest,
) -> Result<TaskAnswer> {
    let task = req.task.trim();
    if task.is_empty() {
        return Err(CmError::usage("EMPTY_TASK", "the task is empty")
            .hint("describe the task: cm context \"fix the login timeout\""));
    }
    if let Some(m) = req.min_relevance
        && !(0.0..=1.0).contains(&m)
    {
        return Err(CmError::usage(
            "INVALID_ARGUMENT",
            format!("--min-score {m} is outside 0..1"),
        )
        .hint("relevance is between 0 and 1; try --min-score 0.2"));
    }
    let started = Instant::now();
    let cfg = &loaded.config;
    let now = crate::clock::now();
    index::refresh(store)?;
    if let Err(e) = reinforce::scan(store, &crate::clock::to_rfc3339(now)) {
        eprintln!(
            "cm: warning: recall reinforcement not updated: {}",
            e.message
        );
    }
    let playbook = Playbook::open(store, &req.cwd);
    let repo = playbook.readable_repo_rules();
    let workspace = Some(workspace_of(&req.cwd, req.workspace.as_deref()));
    let sem = if cfg.semantic_search_enabled {
        let provider = semantic::provider::from_config(loaded)?;
        Some(semantic::similarities(
            store,
            provider.as_ref(),
            task,
            &repo,
        ))
    } else {
        None
    };
    let (rules, history, budget_chars) = match req.depth {
        Depth::Shallow => (5, 0, render::DEFAULT_MAX_CHARS),
        Depth::Normal => (10, DEFAULT_HISTORY, render::DEFAULT_MAX_CHARS),
        Depth::Deep => (
            20,
            cfg.max_history_in_context,
            2 * render::DEFAULT_MAX_CHARS,
        ),
    };
    let widen_history = loaded
        .section::<crate::episodic::index::prepare::Limits>("history")
        .map(|l| l.associations)
        .unwrap_or(true);
    let engine_req = Request {
        coverage: engine::Coverage::Task,
        widen_history,
        house: crate::context::house::CONTEXT_LIMIT,
        concepts: loaded
            .section::<crate::context::concepts::Settings>("context")
            .map(|s| s.concepts)
            .unwrap_or(true),
        task,
        limit: req
            .limit
            .unwrap_or(rules.min(cfg.max_bullets_in_context.max(1))),
        min_relevance: req.min_relevance.unwrap_or(cfg.min_relevance_score),
        history: req
            .history
            .unwrap_or(history.min(cfg.max_history_in_context)),
        days: req.days,
        history_workspace: req.workspace.as_ref().and(workspace.clone()),
        workspace: workspace.clone(),
        gaps: req.gaps,
        now,
        scoring: &cfg.scoring,
        semantic: sem
            .as_ref()
            .filter(|o| o.issue.is_none())
            .map(|o| (o, cfg.semantic_weight)),
        db_path: (!req.history_on_store).then_some(store.path.as_path()),
        deadline: req.deadline,
        keep: req.keep_derived,
    };
    let prepared = started.elapsed();
    let mut answer = engine::answer_beside(Some(&store.conn), beside, repo, &engine_req)?;
    answer.degraded.repo_playbook = playbook.repo_issue();
    let hooks = std::cell::OnceCell::new();
    let hooks_installed =
        || *hooks.get_or_init(|| crate::install::post_session_installed(&req.cwd));
    answer.degraded.associations =
        crate::context::associate::issue(Some(&store.conn), widen_history, hooks_installed);
    if let Some(issue) = answer.degraded.history.as_mut() {
        let stale = matches!(issue.code, "EMPTY_INDEX" | "STALE_INDEX");
        if stale && issue.fix.contains("cm hooks install") && hooks_installed() {
            // The hook is there: it indexes each session as it ends.
            issue.fix = "the post-session hook indexes each session as it ends; `cm history index` brings in past sessions now".into();
        }
    }
    if let Some(o) = &sem {
        answer.degraded.semantic = o.issue.clone();
    }
    if remote_configured(&loaded.raw) && engine_req.history > 0 {
        add_remote_history(loaded, task, &engine_req, &mut answer)?;
    }
    Ok(TaskAnswer {
        limit: engine_req.limit,
        min_relevance: engine_req.min_relevance,
        history: engine_req.history,
        days: engine_req.days,
        workspace,
        budget_chars,
        semantic_on: cfg.semantic_search_enabled,
        prepared,
        answered: started.elapsed(),
        answer,
    })
}

/// The workspace a task is about: the one named (canonical when it exists), else the
/// repository holding `cwd`, else `cwd`.
pub fn workspace_of(cwd: &Path, named: Option<&Path>) -> String {
    match named {
        Some(w) => std::fs::canonicalize(w).unwrap_or_else(|_| w.to_path_buf()),
        None => crate::paths::git_root(cwd).unwrap_or_else(|| cwd.to_path_buf()),
    }
    .display()
    .to_string()
}

/// Search the configured remote hosts too (each over the user's own ssh, in parallel, with a
/// timeout), merge their hits into the history snippets by rank, and report any host that did not
/// answer under `degraded.remote` instead of failing.
fn add_remote_history(
    loaded: &Loaded,
    task: &str,
    req: &Request,
    answer: &mut Answer,
) -> Result<()> {
    use crate::context::{arousal, history};
    use crate::episodic::{model::SearchQuery, remote};
    let cfg: remote::RemoteConfig = loaded.section("remoteCass")?;
    let query = SearchQuery {
        query: task.to_string(),
        limit: req.history,
        days: req.days,
        workspace: req.history_workspace.clone(),
        ..SearchQuery::default()
    };
    let (hits, failures) = remote::search_all(&cfg, &query);
    let scored: Vec<_> = hits
        .into_iter()
        .map(|mut hit| {
            // Remote text is as untrusted as local history: redact before anything else.
            hit.snippet = crate::redact::redact(&hit.snippet).0;
            hit.title = hit.title.map(|t| crate::redact::redact(&t).0);
            let a = arousal::arousal([arousal::Signal {
                text: &hit.snippet,
                from_user: hit.role == "user",
                is_error: false,
            }]);
            (hit, a)
        })
        .collect();
    let mut merged = std::mem::take(&mut answer.history);
    merged.extend(history::rerank(scored, req.history, req.now));
    merged.sort_by(|a, b| b.rank_score.total_cmp(&a.rank_score));
    merged.truncate(req.history);
    answer.history = merged;
    if !failures.is_empty() {
        let which: Vec<String> = failures
            .iter()
            .map(|f| format!("{}: {}", f.host, f.reason))
            .collect();
        answer.degraded.remote = Some(Issue::new(
            "REMOTE_UNREACHABLE",
            &format!("remote history unavailable from {}", which.join("; ")),
            "check `ssh -o BatchMode=yes HOST cm --version` works, or remove the host from remoteCass.hosts",
        ));
    }
    Ok(())
}

fn remote_configured(raw: &serde_json::Value) -> bool {
    let r = &raw["remoteCass"];
    r["enabled"].as_bool() == Some(true) && r["hosts"].as_array().is_some_and(|h| !h.is_empty())
}
