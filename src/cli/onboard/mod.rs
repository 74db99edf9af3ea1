//! `cm onboard status | gaps | sample | read | mark-done | reset`: building a playbook from past
//! sessions with the agent the user already runs (no LLM calls from cm). The use cases are in
//! `app::onboard`; this module parses arguments and renders answers (`read` in `read.rs`).

mod read;

use super::Ctx;
use crate::app::onboard::{self as service, sample};
use crate::context::gaps::Gaps;
use crate::error::{CmError, Result};
use crate::output::{Report, table, truncate};
use serde_json::json;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Without one: `status`, the guided start (where things stand and the next step).
    #[command(subcommand)]
    cmd: Option<Sub>,
}

#[derive(clap::Subcommand, Debug)]
enum Sub {
    /// Sessions indexed and processed, rules, gaps, and the next step.
    Status,
    /// Live rules per category against the thresholds (critical 0, underrepresented 1-2, adequate 3-10, well-covered 11+).
    Gaps,
    /// Indexed sessions worth reading next.
    Sample(SampleArgs),
    /// One session prepared for rule extraction.
    Read(ReadArgs),
    /// Mark a session as processed (even when it gave no rules).
    #[command(name = "mark-done")]
    MarkDone(PathArg),
    /// Forget onboarding progress (the rules stay).
    Reset(ResetArgs),
}

#[derive(clap::Args, Debug)]
pub struct SampleArgs {
    /// Rank by the playbook's gaps first (+3 critical, +2 underrepresented, +1 adequate per category).
    #[arg(long)]
    fill_gaps: bool,
    /// Only this agent's sessions (claude, codex, gemini, ...).
    #[arg(long)]
    agent: Option<String>,
    /// Only sessions that ended in the last N days.
    #[arg(long)]
    days: Option<u32>,
    /// Only sessions in this workspace or a directory under it.
    #[arg(long)]
    workspace: Option<String>,
    /// Sessions to return at most.
    #[arg(long, default_value_t = 10)]
    limit: usize,
    /// Include sessions already marked done or cited by rules.
    #[arg(long)]
    include_processed: bool,
}

#[derive(clap::Args, Debug)]
pub struct ReadArgs {
    /// The session: its file path (as indexed), its id or a unique prefix of the id.
    path: String,
    /// Add the extraction schema, categories and example rules.
    #[arg(long)]
    template: bool,
}

#[derive(clap::Args, Debug)]
pub struct PathArg {
    /// The session: its file path (as indexed), its id or a unique prefix of the id.
    path: String,
}

#[derive(clap::Args, Debug)]
pub struct ResetArgs {
    /// Confirm forgetting the progress recorded so far.
    #[arg(long)]
    yes: bool,
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    match &args.cmd {
        None | Some(Sub::Status) => status(ctx),
        Some(Sub::Gaps) => gaps(ctx),
        Some(Sub::Sample(a)) => sample(a, ctx),
        Some(Sub::Read(a)) => read::run(&a.path, a.template, ctx),
        Some(Sub::MarkDone(a)) => mark_done(a, ctx),
        Some(Sub::Reset(a)) => reset(a, ctx),
    }
}

fn degraded_lines(d: &crate::degraded::Degraded) -> String {
    d.lines().iter().map(|l| format!("\n! {l}")).collect()
}

fn status(ctx: &Ctx) -> Result<Report> {
    let st = service::status(ctx.store()?, &ctx.cwd)?;
    let human = format!(
        "Sessions: {} indexed, {} processed ({} marked done, {} credited by rules), {} remaining\n\
         Rules: {} live, {} citing indexed sessions\n\
         Gaps: critical: {}; underrepresented: {}\n\
         Next: {}{}",
        st.sessions_indexed,
        st.sessions_processed,
        st.sessions_marked_done,
        st.sessions_credited_by_rules,
        st.sessions_remaining,
        st.rules,
        st.rules_from_sessions,
        list_or_none(&st.gaps.critical),
        list_or_none(&st.gaps.underrepresented),
        st.next_step,
        degraded_lines(&st.degraded),
    );
    let mut data = serde_json::to_value(&st).unwrap_or_default();
    if st.degraded.is_empty() {
        data["degraded"] = serde_json::Value::Null;
    }
    Ok(Report::new(data).human(human))
}

fn list_or_none(v: &[&str]) -> String {
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

fn gaps(ctx: &Ctx) -> Result<Report> {
    let (g, degraded) = service::gaps(ctx.store()?, &ctx.cwd)?;
    let human = gaps_table(&g) + &degraded_lines(&degraded);
    let mut data = serde_json::to_value(&g).unwrap_or_default();
    data["degraded"] = if degraded.is_empty() {
        serde_json::Value::Null
    } else {
        serde_json::to_value(&degraded).unwrap_or_default()
    };
    data["next"] = json!(service::NEXT_SAMPLE);
    Ok(Report::new(data).human(human))
}

fn gaps_table(g: &Gaps) -> String {
    let rows: Vec<Vec<String>> = g
        .categories
        .iter()
        .map(|c| {
            vec![
                c.category.to_string(),
                c.rules.to_string(),
                c.status.to_string(),
            ]
        })
        .collect();
    table(&["CATEGORY", "RULES", "STATUS"], &rows)
}

fn sample(a: &SampleArgs, ctx: &Ctx) -> Result<Report> {
    let store = ctx.store()?;
    let (g, mut degraded) = service::gaps(store, &ctx.cwd)?;
    degraded.history = service::no_sessions(store);
    let req = sample::Request {
        fill_gaps: a.fill_gaps,
        agent: super::history::agent_filter(&a.agent)?,
        workspace: a.workspace.clone(),
        ended_since: a.days.map(|d| {
            crate::clock::to_rfc3339(crate::clock::now() - chrono::Duration::days(d as i64))
        }),
        limit: a.limit,
        include_processed: a.include_processed,
    };
    let out = sample::sample(store, &g, &req)?;
    let rows: Vec<Vec<String>> = out
        .sessions
        .iter()
        .map(|p| {
            vec![
                format!("{:.1}", p.score.total),
                p.agent.clone(),
                p.message_count.to_string(),
                p.topics.join(","),
                truncate(p.title.as_deref().unwrap_or(""), 40),
                p.path.clone().unwrap_or_else(|| p.session_id.clone()),
            ]
        })
        .collect();
    let mut human = if rows.is_empty() {
        format!(
            "No sessions to read ({} considered, {} already processed; --include-processed shows them).",
            out.considered, out.skipped_processed
        )
    } else {
        table(
            &["SCORE", "AGENT", "MSGS", "TOPICS", "TITLE", "SESSION"],
            &rows,
        ) + "\nNext: cm onboard read SESSION --template"
    };
    if out.pool_cut {
        human.push_str(&format!(
            "\n(only the {} most recent matching sessions were considered; narrow with --days, --agent or --workspace)",
            sample::POOL
        ));
    }
    human.push_str(&degraded_lines(&degraded));
    let quiet = out
        .sessions
        .iter()
        .map(|p| p.path.clone().unwrap_or_else(|| p.session_id.clone()))
        .collect::<Vec<_>>()
        .join("\n");
    let mut data = serde_json::to_value(&out).unwrap_or_default();
    data["count"] = json!(out.sessions.len());
    data["fillGaps"] = json!(a.fill_gaps);
    data["gaps"] = json!({"critical": g.critical, "underrepresented": g.underrepresented});
    data["degraded"] = if degraded.is_empty() {
        serde_json::Value::Null
    } else {
        serde_json::to_value(&degraded).unwrap_or_default()
    };
    Ok(Report::new(data).human(human).quiet(quiet))
}

fn mark_done(a: &PathArg, ctx: &Ctx) -> Result<Report> {
    let (p, new) = service::mark_done(ctx.existing_store()?, &a.path)?;
    let shown = p
        .source_path
        .clone()
        .unwrap_or_else(|| p.session_id.clone());
    let human = format!(
        "{} {shown} ({} rule(s) cite it).\nNext: {}",
        if new {
            "Marked done:"
        } else {
            "Marked done again:"
        },
        p.rules_extracted,
        service::NEXT_SAMPLE
    );
    let mut data = serde_json::to_value(&p).unwrap_or_default();
    data["alreadyMarked"] = json!(!new);
    Ok(Report::new(data).human(human).quiet(shown))
}

fn reset(a: &ResetArgs, ctx: &Ctx) -> Result<Report> {
    let store = ctx.store()?;
    let marked = crate::onboard::progress::list(store)?.len();
    if marked > 0 && !a.yes {
        return Err(CmError::usage(
            "CONFIRMATION_REQUIRED",
            format!("reset would forget {marked} session(s) marked done; nothing was changed"),
        )
        .hint("run `cm onboard reset --yes` (rules stay, and sessions they cite still count as processed)"));
    }
    let removed = crate::onboard::progress::reset(store)?;
    Ok(Report::new(json!({"removed": removed}))
        .human(format!(
            "Forgot {removed} session mark(s). Rules are unchanged."
        ))
        .quiet(removed.to_string()))
}
