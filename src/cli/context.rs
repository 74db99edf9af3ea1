//! `cm context "TASK"` (alias `cm ctx`): the rules, pitfalls and past sessions relevant to a
//! task, ranked, within a character budget. The use case is [`crate::app::task_context`]; this
//! file reads the flags into its request and renders the answer.

use super::Ctx;
use crate::app::task_context::{self, TaskRequest};
use crate::context::render;
use crate::error::{CmError, Result};
use crate::memory::playbook::Playbook;
use crate::output::Report;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The task, e.g. "fix the auth token refresh timeout".
    #[arg(required = true, num_args = 1..)]
    pub task: Vec<String>,
    /// Rules (and, separately, pitfalls) to return at most [default: 10].
    #[arg(long, value_parser = super::positive::count)]
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
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
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
    /// Show every signal behind each rule: lexical, evidence and association scores (with the
    /// words), embedding rank, place, feedback weight and the fused result.
    #[arg(long)]
    pub explain: bool,
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
    let req = TaskRequest {
        task: task.clone(),
        cwd: ctx.cwd.clone(),
        workspace: args.workspace.clone(),
        limit: args.limit,
        min_relevance: args.min_score,
        history: if args.no_history {
            Some(0)
        } else {
            args.history
        },
        days: args.days,
        gaps: args.gaps,
        depth: match args.depth {
            Depth::Shallow => task_context::Depth::Shallow,
            Depth::Normal => task_context::Depth::Normal,
            Depth::Deep => task_context::Depth::Deep,
        },
        history_on_store: false,
        keep_derived: false,
        deadline: None,
    };
    let out = task_context::answer(ctx.store()?, ctx.loaded()?, &req)?;
    let mut answer = out.answer;
    if let Some(gaps) = answer.gaps.as_mut() {
        let held: Vec<String> = Playbook::open(ctx.store()?, &ctx.cwd)
            .load_all()?
            .into_iter()
            .map(|e| e.bullet.content)
            .collect();
        let root = crate::paths::git_root(&ctx.cwd).unwrap_or_else(|| ctx.cwd.clone());
        let stack = crate::app::project::stack_of(&root);
        super::gap_starters::suggest(gaps, &held, &stack);
    }
    let budget = render::trim(&mut answer, args.max_chars.unwrap_or(out.budget_chars));
    // `CASS_MEMORY_VERBOSE` asks for the same without the flag (an agent's environment).
    if args.verbose || std::env::var("CASS_MEMORY_VERBOSE").is_ok_and(|v| !v.is_empty() && v != "0")
    {
        eprintln!(
            "cm context: depth {}: up to {} rules and {} pitfalls (min relevance {}), {} history snippet(s){}, budget {} characters",
            format!("{:?}", args.depth).to_lowercase(),
            out.limit,
            out.limit,
            out.min_relevance,
            out.history,
            out.days
                .map(|d| format!(" from the last {d} days"))
                .unwrap_or_default(),
            budget.max_chars
        );
        eprintln!(
            "cm context: workspace {}; semantic search {}",
            out.workspace.as_deref().unwrap_or("-"),
            if out.semantic_on { "on" } else { "off" }
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
            out.prepared.as_secs_f64() * 1e3,
            (out.answered - out.prepared).as_secs_f64() * 1e3
        );
    }
    let mut data = render::to_json(&task, &answer, &budget);
    if args.explain {
        crate::context::explain::annotate(&mut data, &answer);
    }
    let mut human = match format {
        Some("json") => serde_json::to_string_pretty(&data).unwrap_or_default(),
        Some(_) => render::markdown(&task, &answer, &budget),
        None => render::human(&task, &answer, &budget),
    };
    if args.explain && format.is_none() {
        human.push_str(&crate::context::explain::section(&answer));
    }
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
