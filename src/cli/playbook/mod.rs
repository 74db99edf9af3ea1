//! `cm playbook list|get|add|remove|export|import|pin|unpin|revive|stats` (and the `ls`, `add`,
//! `rm` aliases).
//!
//! This file holds the arguments, listing, showing and removal; adding rules is in `add.rs`,
//! export and import in `io.rs`, pin/unpin/revive in `state.rs`; `stats` is `cm stats`.

mod add;
mod import;
mod io;
mod state;

pub(crate) use import::warn_unmapped;

pub use add::add;

use super::Ctx;
use super::view;
use crate::app::playbook_list;
use crate::clock;
use crate::error::{CmError, Result};
use crate::memory::playbook::Playbook;
use crate::output::{Report, table};
use clap::Subcommand;
use serde_json::json;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub cmd: Sub,
}

#[derive(Subcommand, Debug)]
pub enum Sub {
    /// List rules (live ones unless --all).
    List(ListArgs),
    /// Show one rule with its effective score.
    Get(GetArgs),
    /// Add a rule, or a batch of rules from a JSON file.
    Add(AddArgs),
    /// Deprecate a rule, or delete it with --hard.
    Remove(RemoveArgs),
    /// Print the playbook as YAML, JSON or Markdown.
    Export(ExportArgs),
    /// Import rules from a playbook.yaml, a JSON export or a Markdown list.
    Import(ImportArgs),
    /// Pin a rule: its feedback never deprecates or inverts it.
    Pin(IdArgs),
    /// Unpin a rule: its feedback decides its maturity again.
    Unpin(IdArgs),
    /// Bring back a rule deprecated on purpose (forget, remove, inversion).
    Revive(IdArgs),
    /// Playbook health: counts, scores, staleness (same as `cm stats`).
    Stats(crate::cli::stats::Args),
}

#[derive(clap::Args, Debug)]
pub struct IdArgs {
    /// The rule's id (or an unambiguous prefix of it).
    pub id: String,
}

#[derive(clap::Args, Debug)]
pub struct ListArgs {
    /// Only rules of this category.
    #[arg(long)]
    pub category: Option<String>,
    /// Include deprecated and retired rules.
    #[arg(long)]
    pub all: bool,
    /// Show at most N rules (`total` still counts all).
    #[arg(long)]
    pub limit: Option<usize>,
}

#[derive(clap::Args, Debug)]
pub struct GetArgs {
    /// The rule's id (or an unambiguous prefix of it).
    pub id: String,
}

#[derive(clap::Args, Debug)]
pub struct AddArgs {
    /// The rule, e.g. "Always run the tests before committing".
    pub text: Option<String>,
    /// One of the built-in categories (or of config customCategories) [default: general].
    #[arg(long)]
    pub category: Option<String>,
    /// Comma-separated tags.
    #[arg(long, value_delimiter = ',')]
    pub tags: Vec<String>,
    /// global, workspace, language:NAME, framework:NAME or task:NAME.
    #[arg(long)]
    pub scope: Option<String>,
    /// A JSON array of {content, category?, tags?}; `-` reads stdin.
    #[arg(long, conflicts_with = "text")]
    pub file: Option<String>,
    /// The session the rule(s) came from (provenance).
    #[arg(long)]
    pub session: Option<String>,
    /// The agent the rule(s) came from.
    #[arg(long)]
    pub agent: Option<String>,
    /// Why the rule exists.
    #[arg(long)]
    pub reasoning: Option<String>,
    /// Write to the repository's .cass/playbook.yaml, shared through git.
    #[arg(long)]
    pub repo: bool,
    /// Add even when a live rule says nearly the same (the same rule is still never added
    /// twice).
    #[arg(long)]
    pub force: bool,
    /// Add a rule the safety check calls risky (it recommends a command the guard blocks, or
    /// gives a container the host). Refused rules (credentials, instructions to a model,
    /// switching the guard off, running code from the network) are never added.
    #[arg(long)]
    pub allow_risky: bool,
}

#[derive(clap::Args, Debug)]
pub struct RemoveArgs {
    /// The rule's id (or an unambiguous prefix of it).
    pub id: String,
    /// Why (kept with the rule) [default: removed by user].
    #[arg(long)]
    pub reason: Option<String>,
    /// Delete instead of deprecating (`cm undo` can still restore it); needs --yes.
    #[arg(long)]
    pub hard: bool,
    /// Go ahead with --hard.
    #[arg(long)]
    pub yes: bool,
    /// Say what would be removed, change nothing.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    /// yaml (the original playbook.yaml layout), json or md.
    #[arg(long, default_value = "yaml")]
    pub format: String,
    /// Only live rules (YAML and JSON default to everything, for backups; Markdown is always
    /// live rules only).
    #[arg(long)]
    pub live: bool,
    /// Every rule, deprecated ones too, in every format (Markdown included).
    #[arg(long, conflicts_with = "live")]
    pub all: bool,
}

#[derive(clap::Args, Debug)]
pub struct ImportArgs {
    /// The file (`-` reads stdin).
    pub file: String,
    /// Replace the personal playbook instead of adding to it (needs --yes when that removes
    /// rules; they are exported to a backup first).
    #[arg(long)]
    pub replace: bool,
    /// Go ahead with a --replace that removes rules.
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Check the file and say what an import would do; change nothing.
    #[arg(long)]
    pub validate: bool,
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    match &args.cmd {
        Sub::List(a) => list(a, ctx),
        Sub::Get(a) => get(a, ctx),
        Sub::Add(a) => add(a, ctx),
        Sub::Remove(a) => remove(a, ctx),
        Sub::Export(a) => io::export(a, ctx),
        Sub::Import(a) => import::import(a, ctx),
        Sub::Pin(a) => state::pin(a, ctx, true),
        Sub::Unpin(a) => state::pin(a, ctx, false),
        Sub::Revive(a) => state::revive(a, ctx),
        Sub::Stats(a) => crate::cli::stats::run(a, ctx),
    }
}

pub fn list(args: &ListArgs, ctx: &Ctx) -> Result<Report> {
    let cfg = ctx.config()?;
    let store = ctx.store()?;
    let req = playbook_list::ListRequest {
        category: args.category.clone(),
        all: args.all,
        limit: args.limit,
    };
    if ctx.json() {
        return playbook_list::json(store, cfg, &ctx.cwd, &req);
    }
    let now = clock::now();
    let category = playbook_list::category(cfg, &req)?;
    let playbook = Playbook::open(store, &ctx.cwd).settled(&cfg.scoring, now);
    let degraded = crate::degraded::Degraded {
        repo_playbook: playbook.repo_issue(),
        ..Default::default()
    };
    let entries = playbook_list::select(&playbook, &req, category.as_deref())?;
    let total = entries.len();
    let shown = &entries[..args.limit.unwrap_or(total).min(total)];
    let notes: String = degraded
        .lines()
        .iter()
        .map(|l| format!("note: {l}\n"))
        .collect();
    let human = notes
        + &if total == 0 {
            if category.is_none() && !args.all && playbook.personal_count()? == 0 {
                "No rules yet. Add one with `cm playbook add \"...\"` or start from a starter: `cm init --starter general`.".into()
            } else {
                "No matching rules.".into()
            }
        } else if shown.is_empty() {
            format!("(0 of {total} shown: --limit 0)")
        } else {
            let rows: Vec<_> = shown
                .iter()
                .map(|e| view::table_row(e, &cfg.scoring, now, 80))
                .collect();
            let mut s = table(&view::TABLE_HEADERS, &rows);
            if shown.len() < total {
                s.push_str(&format!("({} of {total} shown)\n", shown.len()));
            }
            s
        };
    let quiet = shown
        .iter()
        .map(|e| e.bullet.id.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    Ok(Report::default().human(human).quiet(quiet))
}

fn get(args: &GetArgs, ctx: &Ctx) -> Result<Report> {
    let cfg = ctx.config()?;
    let now = clock::now();
    let entry = Playbook::open(ctx.store()?, &ctx.cwd)
        .settled(&cfg.scoring, now)
        .get(&args.id)?;
    Ok(
        Report::new(json!({"bullet": view::entry_json(&entry, &cfg.scoring, now)}))
            .human(view::describe(&entry, &cfg.scoring, now))
            .quiet(entry.bullet.id.clone()),
    )
}

pub fn remove(args: &RemoveArgs, ctx: &Ctx) -> Result<Report> {
    let cfg = ctx.config()?;
    let store = ctx.store()?;
    let playbook = Playbook::open(store, &ctx.cwd);
    let now_t = clock::now();
    if args.dry_run {
        let e = playbook.get(&args.id)?;
        let verb = if args.hard { "delete" } else { "deprecate" };
        return Ok(Report::new(json!({
            "id": e.bullet.id, "removed": false, "dryRun": true, "hard": args.hard,
            "wouldRemove": view::bullet_json(&e.bullet, &e.location, &cfg.scoring, now_t),
        }))
        .human(format!(
            "Would {verb} {}: \"{}\" (dry run: nothing changed).",
            e.bullet.id, e.bullet.content
        ))
        .quiet(e.bullet.id));
    }
    if args.hard && !args.yes {
        let e = playbook.get(&args.id)?;
        return Err(CmError::usage(
            "CONFIRMATION_REQUIRED",
            format!("--hard deletes {} (\"{}\")", e.bullet.id, e.bullet.content),
        )
        .hint(format!(
            "add --yes to delete it (`cm rm {} --hard --yes`), or drop --hard to deprecate it",
            e.bullet.id
        )));
    }
    if args.hard {
        let (b, location) = playbook.delete(&args.id)?;
        return Ok(Report::new(
            json!({"id": b.id, "removed": true, "hard": true, "location": location.name()}),
        )
        .human(format!(
            "Deleted {} (`cm undo {}` restores it).",
            b.id, b.id
        ))
        .quiet(b.id));
    }
    let now = clock::to_rfc3339(now_t);
    let reason = args
        .reason
        .clone()
        .unwrap_or_else(|| "removed by user".into());
    let (b, _, location) = playbook.change(&args.id, "remove", |b| {
        crate::memory::feedback::deprecate(b, &reason, &now);
        Ok(Vec::new())
    })?;
    Ok(Report::new(json!({
        "id": b.id, "removed": true, "hard": false, "reason": reason,
        "bullet": view::bullet_json(&b, &location, &cfg.scoring, now_t),
    }))
    .human(format!("Deprecated {} ({reason}).", b.id))
    .quiet(b.id))
}
