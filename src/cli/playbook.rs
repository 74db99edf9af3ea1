//! `cm playbook list|get|add|remove|export|import` (and the `ls`, `add`, `rm` aliases).

use super::Ctx;
use super::view;
use crate::clock;
use crate::error::{CmError, Result};
use crate::memory::bullet::Bullet;
use crate::memory::formats::{self, Format};
use crate::memory::new_rule::{self, RuleInput};
use crate::memory::playbook::{Location, Playbook};
use crate::output::{Report, table};
use crate::store::bullets as rows;
use clap::Subcommand;
use serde::Deserialize;
use serde_json::json;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub cmd: Sub,
}

impl Args {
    pub fn name(&self) -> &'static str {
        match self.cmd {
            Sub::List(_) => "list",
            Sub::Get(_) => "get",
            Sub::Add(_) => "add",
            Sub::Remove(_) => "remove",
            Sub::Export(_) => "export",
            Sub::Import(_) => "import",
        }
    }
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
}

#[derive(clap::Args, Debug)]
pub struct ListArgs {
    #[arg(long)]
    pub category: Option<String>,
    /// Include deprecated and retired rules.
    #[arg(long)]
    pub all: bool,
    #[arg(long)]
    pub limit: Option<usize>,
}

#[derive(clap::Args, Debug)]
pub struct GetArgs {
    pub id: String,
}

#[derive(clap::Args, Debug)]
pub struct AddArgs {
    /// The rule, e.g. "Always run the tests before committing".
    pub text: Option<String>,
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
}

#[derive(clap::Args, Debug)]
pub struct RemoveArgs {
    pub id: String,
    #[arg(long)]
    pub reason: Option<String>,
    /// Delete instead of deprecating (`cm undo` can still restore it).
    #[arg(long)]
    pub hard: bool,
}

#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    #[arg(long, default_value = "yaml")]
    pub format: String,
    /// Only live rules (YAML and JSON default to everything, for backups; Markdown is always
    /// live rules only).
    #[arg(long)]
    pub live: bool,
}

#[derive(clap::Args, Debug)]
pub struct ImportArgs {
    pub file: String,
    /// Replace the personal playbook instead of adding to it.
    #[arg(long)]
    pub replace: bool,
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    match &args.cmd {
        Sub::List(a) => list(a, ctx),
        Sub::Get(a) => get(a, ctx),
        Sub::Add(a) => add(a, ctx),
        Sub::Remove(a) => remove(a, ctx),
        Sub::Export(a) => export(a, ctx),
        Sub::Import(a) => import(a, ctx),
    }
}

pub fn list(args: &ListArgs, ctx: &Ctx) -> Result<Report> {
    let cfg = ctx.config()?;
    let store = ctx.store()?;
    let now = clock::now();
    let category = match &args.category {
        Some(c) => Some(new_rule::validate_category(c, &cfg.custom_categories)?),
        None => None,
    };
    let playbook = Playbook::open(store, &ctx.cwd);
    if ctx.json() {
        let filter = super::list_json::Filter {
            all: args.all,
            category: category.as_deref(),
            limit: args.limit,
        };
        if let Some(report) = super::list_json::list(&playbook, &cfg.scoring, now, &filter)? {
            return Ok(report);
        }
    }
    let entries: Vec<_> = playbook
        .load_all()?
        .into_iter()
        .filter(|e| args.all || e.bullet.is_live())
        .filter(|e| category.as_ref().is_none_or(|c| &e.bullet.category == c))
        .collect();
    let total = entries.len();
    let shown = &entries[..args.limit.unwrap_or(total).min(total)];
    if ctx.json() {
        let limit = shown.len();
        let scoring = cfg.scoring.clone();
        return Ok(Report::streamed(move |w| {
            #[derive(serde::Serialize)]
            struct ListData<'a> {
                bullets: Vec<view::BulletView<'a>>,
                count: usize,
                total: usize,
            }
            let data = ListData {
                bullets: entries[..limit]
                    .iter()
                    .map(|e| view::BulletView::new(e, &scoring, now))
                    .collect(),
                count: limit,
                total,
            };
            serde_json::to_writer(&mut *w, &data)?;
            drop(data);
            // The process exits right after printing; freeing thousands of bullets one
            // allocation at a time would cost more than writing them.
            std::mem::forget(entries);
            Ok(())
        }));
    }
    let human = if shown.is_empty() {
        if total == 0 && category.is_none() && !args.all {
            "No rules yet. Add one with `cm playbook add \"...\"` or start from a starter: `cm init --starter general`.".into()
        } else {
            "No matching rules.".into()
        }
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
    let entry = Playbook::open(ctx.store()?, &ctx.cwd).get(&args.id)?;
    let now = clock::now();
    Ok(
        Report::new(json!({"bullet": view::entry_json(&entry, &cfg.scoring, now)}))
            .human(view::describe(&entry, &cfg.scoring, now))
            .quiet(entry.bullet.id.clone()),
    )
}

/// One element of `--file`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileRule {
    content: String,
    #[serde(default)]
    category: Option<String>,
    #[serde(default)]
    tags: Option<Tags>,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    reasoning: Option<String>,
    // Accepted for compatibility with the original batch format; not used.
    #[serde(default)]
    #[allow(dead_code)]
    confidence: Option<f64>,
    #[serde(default)]
    #[allow(dead_code)]
    source: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Tags {
    List(Vec<String>),
    One(String),
}

fn read_input(file: &str) -> Result<(String, String)> {
    if file == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .map_err(|e| CmError::usage("INVALID_INPUT", format!("cannot read stdin: {e}")))?;
        return Ok(("stdin".into(), s));
    }
    let path = crate::paths::expand_tilde(file);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        let mut err = CmError::io(&path, "read", &e);
        err.exit = crate::error::ExitCode::Usage;
        err
    })?;
    Ok((path.display().to_string(), text))
}

pub fn add(args: &AddArgs, ctx: &Ctx) -> Result<Report> {
    let cfg = ctx.config()?;
    let session = args
        .session
        .as_deref()
        .map(|s| crate::paths::session_ref(s, &ctx.cwd));
    let now_t = clock::now();
    let now = clock::to_rfc3339(now_t);
    let workspace = crate::paths::git_root(&ctx.cwd)
        .unwrap_or_else(|| ctx.cwd.clone())
        .display()
        .to_string();
    let mut candidates: Vec<Bullet> = Vec::new();
    match (&args.text, &args.file) {
        (Some(text), None) => candidates.push(new_rule::build(RuleInput {
            content: text,
            category: args.category.as_deref(),
            tags: &args.tags,
            scope: args.scope.as_deref(),
            custom_categories: &cfg.custom_categories,
            session: session.as_deref(),
            agent: args.agent.as_deref(),
            reasoning: args.reasoning.as_deref(),
            workspace: Some(&workspace),
            now: &now,
        })?),
        (None, Some(file)) => {
            let (name, text) = read_input(file)?;
            let rules: Vec<FileRule> = serde_json::from_str(&text).map_err(|e| {
                CmError::usage(
                    "INVALID_INPUT",
                    format!("{name}: invalid rules JSON at line {}, column {}: {e}", e.line(), e.column()),
                )
                .hint("expected a JSON array like [{\"content\": \"...\", \"category\": \"testing\", \"tags\": [\"x\"]}]; nothing was added")
            })?;
            for (i, r) in rules.iter().enumerate() {
                let tags: Vec<String> = match &r.tags {
                    Some(Tags::List(v)) => v.clone(),
                    Some(Tags::One(s)) => vec![s.clone()],
                    None => args.tags.clone(),
                };
                let b = new_rule::build(RuleInput {
                    content: &r.content,
                    category: r.category.as_deref().or(args.category.as_deref()),
                    tags: &tags,
                    scope: r.scope.as_deref().or(args.scope.as_deref()),
                    custom_categories: &cfg.custom_categories,
                    session: session.as_deref(),
                    agent: args.agent.as_deref(),
                    reasoning: r.reasoning.as_deref().or(args.reasoning.as_deref()),
                    workspace: Some(&workspace),
                    now: &now,
                })
                .map_err(|mut e| {
                    e.message = format!(
                        "{name}: rule {} of {}: {}; nothing was added",
                        i + 1,
                        rules.len(),
                        e.message
                    );
                    e
                })?;
                candidates.push(b);
            }
        }
        (None, None) => {
            return Err(CmError::usage("EMPTY_RULE", "no rule given")
                .hint("cm playbook add \"Always ...\" [--category C], or --file rules.json"));
        }
        (Some(_), Some(_)) => unreachable!("clap rejects text with --file"),
    }

    let store = ctx.store()?;
    let playbook = Playbook::open(store, &ctx.cwd);
    // Skip rules whose text is already in the playbook (or twice in this batch).
    let mut existing_repo: Vec<(String, String)> = Vec::new();
    if let Some(path) = &playbook.repo_file {
        existing_repo = crate::memory::repo_file::load(path)?
            .into_iter()
            .map(|b| (b.content.to_lowercase(), b.id))
            .collect();
    }
    let mut fresh = Vec::new();
    let mut duplicates = Vec::new();
    for b in candidates {
        let lower = b.content.to_lowercase();
        let dup = match existing_repo.iter().find(|(c, _)| *c == lower) {
            Some((_, id)) => Some(id.clone()),
            None => rows::find_by_content(&store.conn, &b.content)?,
        }
        .or_else(|| {
            fresh
                .iter()
                .find(|f: &&Bullet| f.content.to_lowercase() == lower)
                .map(|f| f.id.clone())
        });
        match dup {
            Some(id) => duplicates.push(json!({"content": b.content, "duplicateOf": id})),
            None => fresh.push(b),
        }
    }
    let repo_dir = args
        .repo
        .then(|| crate::paths::repo_cass_dir_for_write(&ctx.cwd));
    let location = if fresh.is_empty() {
        if args.repo {
            Location::Repo(repo_dir.clone().unwrap_or_default())
        } else {
            Location::Personal
        }
    } else {
        playbook.add(&fresh, repo_dir.as_deref())?
    };

    let json_of = |b: &Bullet| view::bullet_json(b, &location, &cfg.scoring, now_t);
    let where_ = match &location {
        Location::Personal => "personal playbook".to_string(),
        Location::Repo(p) => p.display().to_string(),
    };
    if args.text.is_some() {
        // Single add: the bullet, or the existing one it duplicates.
        if let Some(b) = fresh.first() {
            return Ok(
                Report::new(json!({"bullet": json_of(b), "location": location.name()}))
                    .human(format!("Added {} to the {where_}: {}", b.id, b.content))
                    .quiet(b.id.clone()),
            );
        }
        let dup_id = duplicates[0]["duplicateOf"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let entry = playbook.get(&dup_id)?;
        return Ok(Report::new(json!({
            "bullet": view::entry_json(&entry, &cfg.scoring, now_t),
            "duplicate": true,
            "location": entry.location.name(),
        }))
        .human(format!(
            "Already in the playbook as {dup_id}; nothing added."
        ))
        .quiet(dup_id));
    }
    let ids: Vec<&str> = fresh.iter().map(|b| b.id.as_str()).collect();
    Ok(Report::new(json!({
        "bullets": fresh.iter().map(json_of).collect::<Vec<_>>(),
        "added": fresh.len(),
        "skipped": duplicates,
        "location": location.name(),
    }))
    .human(format!(
        "Added {} rule(s) to the {where_}{}.",
        fresh.len(),
        if duplicates.is_empty() {
            String::new()
        } else {
            format!("; skipped {} duplicate(s)", duplicates.len())
        }
    ))
    .quiet(ids.join("\n")))
}

pub fn remove(args: &RemoveArgs, ctx: &Ctx) -> Result<Report> {
    let cfg = ctx.config()?;
    let store = ctx.store()?;
    let playbook = Playbook::open(store, &ctx.cwd);
    let now_t = clock::now();
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

fn export(args: &ExportArgs, ctx: &Ctx) -> Result<Report> {
    let format = Format::parse(&args.format).ok_or_else(|| {
        CmError::usage(
            "INVALID_FORMAT",
            format!("unknown export format \"{}\"", args.format),
        )
        .hint("use yaml, json or md")
    })?;
    // Markdown has no field for a rule's state, so it only ever carries live rules.
    let live_only = args.live || format == Format::Markdown;
    let store = ctx.store()?;
    let bullets: Vec<Bullet> = Playbook::open(store, &ctx.cwd)
        .load_all()?
        .into_iter()
        .filter(|e| e.location == Location::Personal && (!live_only || e.bullet.is_live()))
        .map(|e| e.bullet)
        .collect();
    let text = formats::render(&bullets, format);
    Ok(
        Report::new(json!({"format": args.format, "count": bullets.len(), "document": text}))
            .human(text.clone())
            .quiet(text),
    )
}

fn import(args: &ImportArgs, ctx: &Ctx) -> Result<Report> {
    let (name, text) = read_input(&args.file)?;
    let format = Format::detect(&name, &text);
    let mut bullets = formats::parse(&text, format).map_err(|msg| {
        CmError::usage("INVALID_INPUT", format!("{name}: {msg}"))
            .hint("nothing was imported; fix the file and retry")
    })?;
    let now = clock::now_rfc3339();
    let mut warnings = Vec::new();
    for (i, b) in bullets.iter_mut().enumerate() {
        b.content = b.content.split_whitespace().collect::<Vec<_>>().join(" ");
        if b.content.is_empty() {
            return Err(CmError::usage(
                "EMPTY_RULE",
                format!(
                    "{name}: bullet {} has no content; nothing was imported",
                    i + 1
                ),
            ));
        }
        b.content = crate::redact::redact(&b.content).0;
        b.category = b.category.trim().to_ascii_lowercase();
        if b.category.is_empty() {
            b.category = "general".into();
        }
        if b.id.is_empty() {
            b.id = crate::memory::bullet::new_bullet_id();
        }
        if b.created_at.is_empty() {
            b.created_at = now.clone();
        }
        if b.updated_at.is_empty() {
            b.updated_at = b.created_at.clone();
        }
        let cfg = ctx.config()?;
        if new_rule::validate_category(&b.category, &cfg.custom_categories).is_err() {
            warnings.push(format!(
                "{}: category \"{}\" is not a built-in one",
                b.id, b.category
            ));
        }
    }
    let store = ctx.store()?;
    let (added, skipped) = store.write(|tx| {
        if args.replace {
            rows::delete_all(tx)?;
        }
        let mut added = 0;
        let mut skipped = Vec::new();
        for b in &bullets {
            if rows::exists(tx, &b.id)? {
                skipped.push(json!({"id": b.id, "reason": "id already present"}));
                continue;
            }
            if let Some(dup) = rows::find_by_content(tx, &b.content)? {
                skipped.push(json!({"id": b.id, "reason": format!("same text as {dup}")}));
                continue;
            }
            rows::insert(tx, b)?;
            rows::record_revision(tx, &b.id, "import", None, &[])?;
            added += 1;
        }
        Ok((added, skipped))
    })?;
    for w in &warnings {
        eprintln!("cm: warning: {w}");
    }
    Ok(Report::new(json!({
        "file": name, "added": added, "skipped": skipped, "replaced": args.replace, "warnings": warnings,
    }))
    .human(format!("Imported {added} rule(s) from {name}; skipped {}.", skipped.len()))
    .quiet(added.to_string()))
}
