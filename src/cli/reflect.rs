//! `cm reflect`: learn from finished sessions. Indexes `--session` first, then hands the
//! selection to [`crate::app::reflect`]; this adapter reads the options and renders the answer.

use super::Ctx;
use crate::app::index_sessions::{self, IndexRequest};
use crate::app::reflect::{self, ReflectRequest, Reflected};
use crate::clock;
use crate::episodic::connectors::Connector;
use crate::error::{CmError, Result};
use crate::memory::playbook::Playbook;
use crate::output::Report;
use serde_json::json;
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
    let cfg = ctx.config()?;
    let loaded = ctx.loaded()?;
    let session_file = match &args.session {
        Some(path) => {
            // A session is a regular file: a FIFO would block the reader, a device or a
            // directory is not a transcript.
            let meta =
                std::fs::metadata(path).map_err(|e| CmError::io(path, "read session file", &e))?;
            crate::private::refuse_as_transcript(path)?;
            if !meta.is_file() {
                return Err(CmError::usage(
                    "INVALID_ARGUMENT",
                    format!(
                        "{} is not a regular file, so not a session log",
                        path.display()
                    ),
                )
                .hint("pass the transcript file the agent reported (a .jsonl or .json file)"));
            }
            Some(index(Some(path), ctx)?.unwrap_or_default())
        }
        None if !args.no_index => index(None, ctx)?,
        None => None,
    };
    let store = ctx.store()?;
    let playbook = Playbook::open(store, &ctx.cwd);
    let req = ReflectRequest {
        session_file,
        since,
        workspace: args.workspace.clone(),
        max_sessions: args.max_sessions as usize,
        dry_run: args.dry_run,
        force: args.force,
        now: clock::to_rfc3339(now_t),
        llm: (!args.no_llm).then(|| crate::llm::LlmSettings::from_loaded(loaded)),
        embeddings: if cfg.semantic_search_enabled {
            crate::context::semantic::provider::from_config(loaded)?
        } else {
            None
        },
    };
    let done = reflect::run(store, &playbook, cfg, &req)?;
    let degraded = degraded(&done, store, args);
    let human = human(&done, args.dry_run, degraded.as_deref());
    let quiet = done.added.join("\n");
    let mut data = serde_json::to_value(&done).unwrap_or_default();
    data["dryRun"] = json!(args.dry_run);
    data["reflector"] = json!(if done.llm_refined > 0 {
        "deterministic+llm"
    } else {
        "deterministic"
    });
    let mut issues = serde_json::Map::new();
    if let Some(m) = degraded {
        let issue = if args.session.is_some() && done.empty_sessions > 0 {
            json!({"code": "EMPTY_SESSION", "message": m, "fix": "nothing needed; reflect on it again once the session has messages"})
        } else {
            json!({"code": "NOTHING_TO_REFLECT", "message": m, "fix": "run `cm history index`, or install the post-session hook with `cm hooks install`"})
        };
        issues.insert("reflection".into(), issue);
    }
    if let Some(issue) = &done.llm_unavailable {
        issues.insert("llm".into(), json!(issue));
    }
    data["degraded"] = if issues.is_empty() {
        serde_json::Value::Null
    } else {
        serde_json::Value::Object(issues)
    };
    Ok(Report::new(data).human(human).quiet(quiet))
}

/// Index what is new (the indexer skips what it already has): one session file, returning its
/// path as the index keeps it, or every agent's logs.
fn index(path: Option<&std::path::Path>, ctx: &Ctx) -> Result<Option<String>> {
    let connectors = super::history::selected(None)?;
    let refs: Vec<&dyn Connector> = connectors.iter().map(|c| c.as_ref()).collect();
    let request = IndexRequest {
        connectors: &refs,
        places: &crate::episodic::connectors::Places::of_process(),
        file: path,
        agent: None,
        full: false,
        threads: if path.is_some() { 1 } else { 0 },
        limits: super::history::index::limits(ctx)?,
        progress: None,
    };
    index_sessions::run(request, || ctx.store())?;
    Ok(path.map(|p| {
        std::fs::canonicalize(p)
            .unwrap_or_else(|_| p.to_path_buf())
            .display()
            .to_string()
    }))
}

/// Why nothing was reflected on, when nothing was and nothing was even there to reflect on.
fn degraded(done: &Reflected, store: &crate::store::Store, args: &Args) -> Option<String> {
    if !done.sessions.is_empty() || done.already_reflected > 0 {
        return None;
    }
    if let (Some(p), true) = (&args.session, done.empty_sessions > 0) {
        return Some(format!(
            "{} is a transcript with no messages yet, so there is nothing to learn from",
            p.display()
        ));
    }
    if !crate::episodic::sessions::has_index(store) {
        return Some("no sessions are indexed yet, so there is nothing to learn from".into());
    }
    Some(match &args.session {
        Some(p) => format!("{} holds no session the index could read", p.display()),
        None => "no indexed session matches (try --days or --since for older ones)".into(),
    })
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
