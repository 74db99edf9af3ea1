//! `cm reflect`: learn from finished sessions. Indexes `--session` first, then hands the
//! selection to [`crate::app::reflect_on`]; this adapter reads the options and renders the answer.

use super::Ctx;
use crate::app::reflect::Reflected;
use crate::app::reflect_on::{self, ReflectOn};
use crate::clock;
use crate::error::Result;
use crate::output::Report;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Only sessions that ended in the last N days (default 30, unless --since or --session).
    #[arg(long, conflicts_with = "since")]
    days: Option<u32>,
    /// Only sessions that ended on or after this time: a duration back from now (7d, 24h), a
    /// date (YYYY-MM-DD) or RFC 3339.
    #[arg(long)]
    since: Option<String>,
    /// Reflect on this session file (indexed first): what the post-session hook runs.
    #[arg(long, value_name = "PATH")]
    session: Option<PathBuf>,
    /// Only sessions in this workspace or a directory under it.
    #[arg(long)]
    workspace: Option<String>,
    /// Reflect on at most N sessions this run (oldest first); the rest wait for the next.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..))]
    max_sessions: u32,
    /// Propose and validate, but change nothing.
    #[arg(long)]
    dry_run: bool,
    /// Reflect again on sessions already reflected on (still changes nothing already done).
    #[arg(long)]
    force: bool,
    /// Do not index new session logs first.
    #[arg(long)]
    no_index: bool,
    /// Deterministic reflection only, even when an LLM is configured.
    #[arg(long)]
    no_llm: bool,
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    let now_t = clock::now();
    let since = match (&args.since, args.days, &args.session) {
        (Some(s), _, _) => Some(clock::to_rfc3339(
            clock::parse_since(s, now_t).ok_or_else(|| clock::since_error("--since", s))?,
        )),
        (None, Some(d), _) => Some(clock::to_rfc3339(
            now_t - chrono::Duration::days(i64::from(d)),
        )),
        (None, None, Some(_)) => None,
        (None, None, None) => Some(clock::to_rfc3339(now_t - chrono::Duration::days(30))),
    };
    let req = ReflectOn {
        session: args.session.clone(),
        since,
        workspace: args.workspace.clone(),
        max_sessions: args.max_sessions as usize,
        dry_run: args.dry_run,
        force: args.force,
        no_index: args.no_index,
        no_llm: args.no_llm,
        now: clock::to_rfc3339(now_t),
    };
    let out = reflect_on::answer(|| ctx.store(), ctx.loaded()?, &ctx.cwd, &req)?;
    let human = human(&out.done, args.dry_run, out.nothing.as_deref());
    let quiet = out.done.added.join("\n");
    Ok(Report::new(out.data).human(human).quiet(quiet))
}

fn human(done: &Reflected, dry_run: bool, degraded: Option<&str>) -> String {
    if let Some(d) = degraded {
        return format!("Nothing to reflect on: {d}.");
    }
    let reflected = done.sessions.iter().filter(|s| s.skipped.is_none()).count();
    let mut s = format!(
        "{} {reflected} session(s)",
        if dry_run {
            "Would reflect on"
        } else {
            "Reflected on"
        }
    );
    if done.already_reflected > 0 {
        s.push_str(&format!(
            " ({} already reflected on)",
            done.already_reflected
        ));
    }
    s.push_str(".\n");
    for one in &done.sessions {
        let name = one
            .source_path
            .clone()
            .unwrap_or_else(|| one.session_id.clone());
        if let Some(why) = &one.skipped {
            s.push_str(&format!("  {name}: skipped, {why}\n"));
            continue;
        }
        let status = one.diary.as_ref().map(|d| d.status.as_str()).unwrap_or("?");
        s.push_str(&format!("  {name} ({status})\n"));
        for p in &one.proposed {
            if let crate::reflect::delta::Delta::Add { content, .. } = &p.delta {
                s.push_str(&format!("    {}: {content}\n", p.outcome));
            }
        }
        for f in &one.feedback {
            s.push_str(&format!(
                "    {} {} ({}): {}\n",
                f.kind, f.rule, f.via, f.outcome
            ));
        }
    }
    if done.remaining > 0 {
        s.push_str(&format!(
            "{} more session(s) wait for the next run (--max-sessions).\n",
            done.remaining
        ));
    }
    match &done.llm_unavailable {
        // The default: nothing to say beyond the docs.
        Some(issue) if issue.code != "LLM_NOT_CONFIGURED" => {
            s.push_str(&format!(
                "The LLM pass did not run: {} ({}).\n",
                issue.message, issue.fix
            ));
        }
        _ if done.llm_refined > 0 => {
            s.push_str(&format!(
                "The LLM refined {} session(s).\n",
                done.llm_refined
            ));
        }
        _ => {}
    }
    s
}
