//! `cm diary list|show`: working memory, one entry per reflected session.

use super::Ctx;
use crate::error::Result;
use crate::output::Report;
use crate::reflect::diary::DiaryEntry;
use crate::reflect::tables;
use serde_json::json;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    cmd: Sub,
}

#[derive(clap::Subcommand, Debug)]
enum Sub {
    /// Diary entries, newest first.
    List(ListArgs),
    /// One entry in full (by its id or its session id, or a unique prefix).
    Show(ShowArgs),
}

#[derive(clap::Args, Debug)]
struct ListArgs {
    /// Only entries of the last N days.
    #[arg(long)]
    days: Option<u32>,
    /// Only sessions in this workspace or a directory under it.
    #[arg(long)]
    workspace: Option<String>,
    /// Most entries to list.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    limit: u32,
}

#[derive(clap::Args, Debug)]
struct ShowArgs {
    /// The entry's id (d-...) or its session's id, or a unique prefix of either.
    id: String,
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    match &args.cmd {
        Sub::List(a) => list(a, ctx),
        Sub::Show(a) => show(a, ctx),
    }
}

fn list(a: &ListArgs, ctx: &Ctx) -> Result<Report> {
    let store = ctx.store()?;
    let since = a.days.map(|d| {
        crate::clock::to_rfc3339(crate::clock::now() - chrono::Duration::days(i64::from(d)))
    });
    let entries = tables::entries(
        store,
        a.workspace.as_deref(),
        since.as_deref(),
        a.limit as usize,
    )?;
    let degraded = if entries.is_empty() {
        json!({"diary": {"code": "EMPTY_DIARY", "message": "no session has been reflected on yet", "fix": "run `cm reflect` (the post-session hook does it after each session once `cm hooks install` ran)"}})
    } else {
        serde_json::Value::Null
    };
    let mut human = String::new();
    if entries.is_empty() {
        human.push_str("The diary is empty: no session has been reflected on yet (`cm reflect`).");
    }
    for e in &entries {
        human.push_str(&format!(
            "{}  {}  {:<7}  {}\n",
            e.id,
            e.timestamp.get(..10).unwrap_or(&e.timestamp),
            e.status.as_str(),
            summary(e)
        ));
    }
    let ids: Vec<&str> = entries.iter().map(|e| e.id.as_str()).collect();
    Ok(
        Report::new(json!({"count": entries.len(), "entries": entries, "degraded": degraded}))
            .human(human.trim_end().to_string())
            .quiet(ids.join("\n")),
    )
}

fn summary(e: &DiaryEntry) -> String {
    let what = e
        .accomplishments
        .first()
        .cloned()
        .unwrap_or_else(|| e.session_id.clone());
    let place = e.repository.clone().unwrap_or_default();
    format!("{place}: {what}")
}

fn show(a: &ShowArgs, ctx: &Ctx) -> Result<Report> {
    let e = crate::app::diary::entry(ctx.store()?, &a.id)?;
    let mut h = format!(
        "{} ({}, {})\nsession: {}\nworkspace: {}\n",
        e.id,
        e.agent,
        e.status.as_str(),
        e.session_path.as_deref().unwrap_or(&e.session_id),
        e.workspace.as_deref().unwrap_or("-")
    );
    for (title, items) in [
        ("Accomplishments", &e.accomplishments),
        ("Decisions", &e.decisions),
        ("Challenges", &e.challenges),
        ("Key learnings", &e.key_learnings),
        ("Preferences", &e.preferences),
        ("Files touched", &e.files_touched),
        ("Rules used", &e.rules_used),
    ] {
        if !items.is_empty() {
            h.push_str(&format!("{title}:\n"));
            for i in items {
                h.push_str(&format!("  - {i}\n"));
            }
        }
    }
    for c in &e.failed_commands {
        h.push_str(&format!(
            "Failed: `{}`: {}{}\n",
            c.command,
            c.error,
            c.fixed_by
                .as_ref()
                .map(|f| format!(" (fixed by {f})"))
                .unwrap_or_default()
        ));
    }
    Ok(Report::new(json!({"entry": e}))
        .human(h.trim_end().to_string())
        .quiet(e.id.clone()))
}
