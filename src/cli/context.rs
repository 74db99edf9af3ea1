//! `cm context "TASK"` (alias `cm ctx`): the rules, pitfalls and past sessions relevant to a
//! task, ranked, within a character budget. The logic lives in `crate::context`; this file reads
//! the flags and the config, refreshes what the CLI may write (term index, reinforcement,
//! embeddings) and renders.

use super::Ctx;
use crate::clock;
use crate::context::degraded::Issue;
use crate::context::engine::{self, Request};
use crate::context::{index, reinforce, render, semantic};
use crate::error::{CmError, Result};
use crate::memory::bullet::Bullet;
use crate::memory::playbook::Playbook;
use crate::output::Report;
use std::path::PathBuf;

/// History snippets by default: each one is a search hit with its own snippet extraction, so
/// the default keeps `cm context` within its latency budget on a large index.
pub const DEFAULT_HISTORY: usize = 5;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The task, e.g. "fix the auth token refresh timeout".
    #[arg(required = true, num_args = 1..)]
    pub task: Vec<String>,
    /// Rules (and, separately, pitfalls) to return at most [default: 10].
    #[arg(long)]
    pub limit: Option<usize>,
    /// Minimum relevance (0-1) for a rule to be considered [default: config minRelevanceScore].
    #[arg(long)]
    pub min_score: Option<f64>,
    /// Skip the session history (faster, smaller).
    #[arg(long)]
    pub no_history: bool,
    /// History snippets to return at most [default: 5, capped by config maxHistoryInContext].
    #[arg(long)]
    pub history: Option<usize>,
    /// Only history from the last N days.
    #[arg(long)]
    pub days: Option<u32>,
    /// The workspace the task is about [default: the current repository].
    #[arg(long)]
    pub workspace: Option<PathBuf>,
    /// Add gap analysis: categories with few or no rules.
    #[arg(long)]
    pub gaps: bool,
    /// Output format without --json: json (the data object) or markdown.
    #[arg(long)]
    pub format: Option<String>,
    /// Character budget for rules, pitfalls and history [default: 12000; 24000 with --depth deep].
    #[arg(long)]
    pub max_chars: Option<usize>,
    /// How much to gather: shallow (5 rules, no history), normal (the defaults), deep (20
    /// rules, history up to config maxHistoryInContext, a double budget). Explicit flags win.
    #[arg(long, value_enum, default_value_t = Depth::Normal)]
    pub depth: Depth,
    /// Say on stderr how the answer was built: the request, what each step took, the budget.
    #[arg(long, short = 'v')]
    pub verbose: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depth {
    Shallow,
    Normal,
    Deep,
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    let task = args.task.join(" ").trim().to_string();
    if task.is_empty() {
        return Err(CmError::usage("EMPTY_TASK", "the task is empty")
            .hint("describe the task: cm context \"fix the login timeout\""));
    }
    let format = match args.format.as_deref() {
        None | Some("human") | Some("text") => None,
        Some("json") => Some("json"),
        Some("markdown") | Some("md") => Some("markdown"),
        Some(other) => {
            return Err(
                CmError::usage("INVALID_FORMAT", format!("unknown format \"{other}\""))
                    .hint("use --format json or --format markdown"),
            );
        }
    };
    if let Some(m) = args.min_score
        && !(0.0..=1.0).contains(&m)
    {
        return Err(CmError::usage(
            "INVALID_ARGUMENT",
            format!("--min-score {m} is outside 0..1"),
        )
        .hint("relevance is between 0 and 1; try --min-score 0.2"));
    }
    let started = std::time::Instant::now();
    let loaded = ctx.loaded()?;
    let cfg = &loaded.config;
    let store = ctx.store()?;
    let now = clock::now();
    index::refresh(store)?;
    if let Err(e) = reinforce::scan(store, &clock::to_rfc3339(now)) {
        eprintln!(
            "cm: warning: recall reinforcement not updated: {}",
            e.message
        );
    }
    let playbook = Playbook::open(store, &ctx.cwd);
    let repo: Vec<Bullet> = playbook.readable_repo_rules();
    let workspace = match &args.workspace {
        Some(w) => Some(std::fs::canonicalize(w).unwrap_or_else(|_| w.clone())),
        None => Some(crate::paths::git_root(&ctx.cwd).unwrap_or_else(|| ctx.cwd.clone())),
    }
    .map(|p| p.display().to_string());
    let sem = if cfg.semantic_search_enabled {
        let provider = semantic::provider::from_config(loaded)?;
        Some(semantic::similarities(
            store,
            provider.as_ref(),
            &task,
            &repo,
        ))
    } else {
        None
    };
    let (rules, history, budget) = match args.depth {
        Depth::Shallow => (5, 0, render::DEFAULT_MAX_CHARS),
        Depth::Normal => (10, DEFAULT_HISTORY, render::DEFAULT_MAX_CHARS),
        Depth::Deep => (
            20,
            cfg.max_history_in_context,
            2 * render::DEFAULT_MAX_CHARS,
        ),
    };
    let req = Request {
        task: &task,
        limit: args
            .limit
            .unwrap_or(rules.min(cfg.max_bullets_in_context.max(1))),
        min_relevance: args.min_score.unwrap_or(cfg.min_relevance_score),
        history: if args.no_history {
            0
        } else {
            args.history
                .unwrap_or(history.min(cfg.max_history_in_context))
        },
        days: args.days,
        history_workspace: args.workspace.as_ref().and(workspace.clone()),
        workspace: workspace.clone(),
        gaps: args.gaps,
        now,
        scoring: &cfg.scoring,
        semantic: sem
            .as_ref()
            .filter(|o| o.issue.is_none())
            .map(|o| (o, cfg.semantic_weight)),
        db_path: Some(&store.path),
        deadline: None,
    };
    let prepared = started.elapsed();
    let mut answer = engine::answer(Some(&store.conn), repo, &req)?;
    answer.degraded.repo_playbook = playbook.repo_issue();
    if let Some(o) = &sem {
        answer.degraded.semantic = o.issue.clone();
    }
    if remote_configured(&loaded.raw) && req.history > 0 {
        add_remote_history(loaded, &task, &req, &mut answer)?;
    }
    let answered = started.elapsed();
    let budget = render::trim(&mut answer, args.max_chars.unwrap_or(budget));
    if args.verbose {
        eprintln!(
            "cm context: depth {}: up to {} rules and {} pitfalls (min relevance {}), {} history snippet(s){}, budget {} characters",
            format!("{:?}", args.depth).to_lowercase(),
            req.limit,
            req.limit,
            req.min_relevance,
            req.history,
            req.days
                .map(|d| format!(" from the last {d} days"))
                .unwrap_or_default(),
            budget.max_chars
        );
        eprintln!(
            "cm context: workspace {}; semantic search {}",
            req.workspace.as_deref().unwrap_or("-"),
            if cfg.semantic_search_enabled {
                "on"
            } else {
                "off"
            }
        );
        eprintln!(
            "cm context: {} rule(s), {} pitfall(s), {} warning(s), {} snippet(s); {} item(s) left out for the budget ({} of {} characters used)",
            answer.ranked.rules.len(),
            answer.ranked.anti_patterns.len(),
            answer.ranked.deprecated.len(),
            answer.history.len(),
            budget.omitted,
            budget.used_chars,
            budget.max_chars
        );
        for line in answer.degraded.lines() {
            eprintln!("cm context: degraded: {line}");
        }
        eprintln!(
            "cm context: {:.1} ms preparing (config, term index, reinforcement, embeddings), {:.1} ms ranking and searching",
            prepared.as_secs_f64() * 1e3,
            (answered - prepared).as_secs_f64() * 1e3
        );
    }
    let data = render::to_json(&task, &answer, &budget);
    let human = match format {
        Some("json") => serde_json::to_string_pretty(&data).unwrap_or_default(),
        Some(_) => render::markdown(&task, &answer, &budget),
        None => render::human(&task, &answer, &budget),
    };
    let quiet = answer
        .ranked
        .rules
        .iter()
        .chain(&answer.ranked.anti_patterns)
        .map(|r| r.id.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    Ok(Report::new(data).human(human).quiet(quiet))
}

/// Search the configured remote hosts too (each over the user's own ssh, in parallel, with a
/// timeout), merge their hits into the history snippets by rank, and report any host that did not
/// answer under `degraded.remote` instead of failing.
fn add_remote_history(
    loaded: &crate::config::Loaded,
    task: &str,
    req: &Request,
    answer: &mut engine::Answer,
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
