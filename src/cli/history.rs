//! `cm history`: index agents' session logs and search them.

mod browse;
pub(super) mod index;
mod search;

use super::Ctx;
use crate::episodic::connectors::{self, Connector};
use crate::error::Result;
use crate::output::Report;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    cmd: Sub,
}

#[derive(clap::Subcommand, Debug)]
enum Sub {
    /// Index new session logs (incremental: only what was appended or changed).
    Index(IndexArgs),
    /// Full-text search over indexed sessions (and remote hosts when configured).
    Search(SearchArgs),
    /// List indexed sessions, newest first.
    Sessions(SessionsArgs),
    /// Show a session's messages (optionally around one line).
    Show(ShowArgs),
    /// What the index holds.
    Stats,
    /// Where each agent's logs were looked for, and what was found.
    Sources,
}

#[derive(clap::Args, Debug)]
pub struct IndexArgs {
    /// Only this agent (claude, codex, ...).
    #[arg(long)]
    agent: Option<String>,
    /// Re-read every file from the start.
    #[arg(long)]
    full: bool,
    /// Index just this session file (used by the post-session hook).
    #[arg(long, value_name = "PATH")]
    file: Option<PathBuf>,
    /// Parser threads (default: cores - 1).
    #[arg(long, hide = true, default_value_t = 0)]
    threads: usize,
}

#[derive(clap::Args, Debug)]
pub struct SearchArgs {
    /// What to look for (free text).
    #[arg(required = true, num_args = 1..)]
    query: Vec<String>,
    /// Most hits to return.
    #[arg(long, default_value_t = 10)]
    limit: usize,
    /// Only messages from the last N days.
    #[arg(long)]
    days: Option<u32>,
    /// Only this agent's sessions (claude, codex, gemini, aider, opencode, cline, cursor).
    #[arg(long)]
    agent: Option<String>,
    /// Only sessions in this workspace or a directory under it.
    #[arg(long)]
    workspace: Option<String>,
    /// Only messages with this role (user, assistant, tool, system).
    #[arg(long)]
    role: Option<String>,
    /// Do not search remote hosts (remoteCass).
    #[arg(long)]
    no_remote: bool,
    /// Rank every match with full BM25 instead of the bounded candidate set (slower on common
    /// words; the reference the bounded ranking is measured against).
    #[arg(long)]
    exhaustive: bool,
    /// Include each SQL statement's query plan in the output (`plans`).
    #[arg(long)]
    explain: bool,
    /// Rank by BM25 alone (no re-order by how many query terms a message holds).
    #[arg(long, hide = true)]
    no_coverage: bool,
    /// No score lent by neighbouring turns of the same session.
    #[arg(long, hide = true)]
    no_neighbours: bool,
    /// Do not widen the query with associated terms (the offline association layer).
    #[arg(long, hide = true)]
    no_expand: bool,
    /// No lift for messages whose session holds many of the query's terms.
    #[arg(long, hide = true)]
    no_session_prior: bool,
    /// No second pass widened with the words of the first pass's best hits.
    #[arg(long, hide = true)]
    no_feedback: bool,
    /// No lift for messages written on a day, month or year the query names.
    #[arg(long, hide = true)]
    no_dates: bool,
}

#[derive(clap::Args, Debug)]
pub struct SessionsArgs {
    /// Only sessions active in the last N days.
    #[arg(long)]
    days: Option<u32>,
    /// Only this agent's sessions.
    #[arg(long)]
    agent: Option<String>,
    /// Only sessions in this workspace or a directory under it.
    #[arg(long)]
    workspace: Option<String>,
    /// Most sessions to list.
    #[arg(long, default_value_t = 20)]
    limit: usize,
}

#[derive(clap::Args, Debug)]
pub struct ShowArgs {
    /// Session id (or a unique prefix of one), or the session file's path.
    session: String,
    /// Center the view on this line of the source file.
    #[arg(long)]
    around: Option<u64>,
    /// Messages to show before and after `--around` (default 5).
    #[arg(long, default_value_t = 5)]
    context: u64,
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    match &args.cmd {
        Sub::Index(a) => index::run(a, ctx),
        Sub::Search(a) => search::run(a, ctx),
        Sub::Sessions(a) => browse::sessions(a, ctx),
        Sub::Show(a) => browse::show(a, ctx),
        Sub::Stats => browse::stats(ctx),
        Sub::Sources => browse::sources(ctx),
    }
}

/// The connectors to use: all of them, or the one `--agent` names (checked as queries check it,
/// [`crate::app::history_search::agent_filter`]).
pub(super) fn selected(agent: Option<&str>) -> Result<Vec<Box<dyn Connector>>> {
    let all = connectors::all();
    let Some(want) = crate::app::history_search::agent_filter(agent)? else {
        return Ok(all);
    };
    Ok(all.into_iter().filter(|c| c.slug() == want).collect())
}

/// A validated agent filter for queries ([`crate::app::history_search::agent_filter`]).
pub(super) fn agent_filter(agent: &Option<String>) -> Result<Option<String>> {
    crate::app::history_search::agent_filter(agent.as_deref())
}
