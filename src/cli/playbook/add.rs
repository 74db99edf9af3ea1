//! `cm playbook add`: one rule from the command line, or a batch from a JSON file or stdin, to
//! the personal store or (with `--repo`) the repository's shared playbook. Each rule is curated
//! against the closest rules already there ([`crate::memory::curate`]): the same rule (once
//! normalised) or a near-duplicate (`dedupSimilarityThreshold`) is not added again; one that
//! contradicts a live rule is added and flagged on both. Every rule passes the safety check
//! first (`RULE_REFUSED`, or `RULE_RISKY` unless `--allow-risky`). One bad rule in a batch adds
//! nothing.

use super::AddArgs;
use crate::app::add_rules;
use crate::cli::Ctx;
use crate::cli::view;
use crate::clock;
use crate::error::{CmError, Result};
use crate::memory::bullet::Bullet;
use crate::memory::new_rule::{self, RuleInput};
use crate::memory::playbook::{Location, Playbook};
use crate::output::Report;
use serde::Deserialize;
use serde_json::json;

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

pub(super) fn read_input(file: &str) -> Result<(String, String)> {
    if file == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .map_err(|e| CmError::usage("INVALID_INPUT", format!("cannot read stdin: {e}")))?;
        return Ok(("stdin".into(), s));
    }
    let path = crate::paths::expand_tilde(file);
    let text = std::fs::read_to_string(&path).map_err(|e| CmError::io(&path, "read", &e))?;
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
        (Some(text), None) => candidates.push({
            add_rules::screen(&[text.as_str()], args.allow_risky)?;
            new_rule::build(RuleInput {
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
            })?
        }),
        (None, Some(file)) => {
            let (name, text) = read_input(file)?;
            let rules: Vec<FileRule> = serde_json::from_str(&text).map_err(|e| {
                CmError::usage(
                    "INVALID_INPUT",
                    format!("{name}: invalid rules JSON at line {}, column {}: {e}", e.line(), e.column()),
                )
                .hint("expected a JSON array like [{\"content\": \"...\", \"category\": \"testing\", \"tags\": [\"x\"]}]; nothing was added")
            })?;
            let given: Vec<&str> = rules.iter().map(|r| r.content.as_str()).collect();
            add_rules::screen(&given, args.allow_risky)?;
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

    let built: Vec<&str> = candidates.iter().map(|b| b.content.as_str()).collect();
    add_rules::screen(&built, args.allow_risky)?;
    let store = ctx.store()?;
    let playbook = Playbook::open(store, &ctx.cwd);
    let repo_dir = args
        .repo
        .then(|| crate::paths::repo_cass_dir_for_write(&ctx.cwd));
    let added = add_rules::add(
        store,
        &playbook,
        candidates,
        repo_dir,
        cfg.dedup_similarity_threshold,
        args.force,
    )?;
    let (fresh, location) = (added.fresh, added.location);
    let duplicates: Vec<serde_json::Value> = added
        .duplicates
        .iter()
        .map(|d| {
            json!({
                "content": d.content, "duplicateOf": d.duplicate_of,
                "match": if d.same { "same" } else { "similar" },
                "similarity": crate::memory::scoring::round3(d.similarity),
            })
        })
        .collect();

    let json_of = |b: &Bullet| view::bullet_json(b, &location, &cfg.scoring, now_t);
    let where_ = match &location {
        Location::Personal => "personal playbook".to_string(),
        Location::Repo(p) => p.display().to_string(),
    };
    if args.text.is_some() {
        // Single add: the bullet, or the existing one it duplicates.
        if let Some(b) = fresh.first() {
            let mut human = format!("Added {} to the {where_}: {}", b.id, b.content);
            if !b.contradicts.is_empty() {
                human.push_str(&format!(
                    "\nIt contradicts {}; both are flagged, and `cm context` shows the conflict.",
                    b.contradicts.join(", ")
                ));
            }
            return Ok(
                Report::new(json!({"bullet": json_of(b), "location": location.name()}))
                    .human(human)
                    .quiet(b.id.clone()),
            );
        }
        let dup_id = duplicates[0]["duplicateOf"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let entry = playbook.get(&dup_id)?;
        let similarity = duplicates[0]["similarity"].as_f64().unwrap_or(1.0);
        let human = if duplicates[0]["match"] == "same" {
            format!("Already in the playbook as {dup_id}; nothing added.")
        } else {
            format!(
                "Nothing added: {dup_id} says nearly the same ({:.0}% alike): {}\n(`--force` adds it anyway.)",
                similarity * 100.0,
                entry.bullet.content
            )
        };
        return Ok(Report::new(json!({
            "bullet": view::entry_json(&entry, &cfg.scoring, now_t),
            "duplicate": true,
            "match": duplicates[0]["match"],
            "similarity": similarity,
            "location": entry.location.name(),
        }))
        .human(human)
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
