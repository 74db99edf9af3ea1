//! `cm playbook add`: one rule from the command line, or a batch from a JSON file or stdin, to
//! the personal store or (with `--repo`) the repository's shared playbook. Each rule is curated
//! against the closest rules already there ([`crate::memory::curate`]): the same rule (once
//! normalised) or a near-duplicate (`dedupSimilarityThreshold`) is not added again; one that
//! contradicts a live rule is added and flagged on both. One bad rule in a batch adds nothing.

use super::AddArgs;
use crate::cli::Ctx;
use crate::cli::view;
use crate::clock;
use crate::error::{CmError, Result};
use crate::memory::bullet::Bullet;
use crate::memory::curate::{Relation, Topic};
use crate::memory::new_rule::{self, RuleInput};
use crate::memory::playbook::{Location, Playbook};
use crate::memory::tables::bullets as rows;
use crate::memory::topic_index::{Rarity, TopicIndex};
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
    let text = std::fs::read_to_string(&path).map_err(|e| {
        let mut err = CmError::io(&path, "read", &e);
        err.exit = crate::error::ExitCode::Usage;
        err
    })?;
    Ok((path.display().to_string(), text))
}

/// New rules sorted into those to add and those already present.
struct Curated {
    fresh: Vec<Bullet>,
    /// `{content, duplicateOf, similarity}` for each rule not added.
    duplicates: Vec<serde_json::Value>,
    /// (new rule, existing rule it contradicts): the existing one is flagged after the add.
    flag: Vec<(String, String)>,
}

/// Batches larger than this compare against every rule of the playbook through a topic index
/// built once; smaller ones (a single add) read each rule's closest neighbours from the context
/// term index instead, which costs less than loading the playbook (`add` brings that index up
/// to date first when a bulk change left it stale).
const INDEX_THE_PLAYBOOK_FROM: usize = 20;

/// Compare each new rule with the playbook's closest rules (and the batch's earlier ones):
/// the same rule once normalised is never added twice; a near-duplicate of a live rule is not
/// added unless `force`; a contradiction of a live rule is added, flagged on both.
fn curate_batch(
    candidates: Vec<Bullet>,
    conn: &rusqlite::Connection,
    repo: &[Bullet],
    threshold: f64,
    force: bool,
) -> Result<Curated> {
    let mut out = Curated {
        fresh: Vec::new(),
        duplicates: Vec::new(),
        flag: Vec::new(),
    };
    // The playbook as one index (large batches), else neighbours per rule. Both indexes order
    // terms by how many of all these rules hold them.
    let new_topics: Vec<Topic> = candidates.iter().map(|b| Topic::of(&b.content)).collect();
    let (playbook, rarity): (Option<(Vec<Bullet>, TopicIndex)>, Rarity) =
        if candidates.len() > INDEX_THE_PLAYBOOK_FROM {
            let mut all = rows::load_all(conn)?;
            all.extend(repo.iter().cloned());
            let topics: Vec<Topic> = all.iter().map(|b| Topic::of(&b.content)).collect();
            let rarity = Rarity::of(topics.iter().chain(&new_topics));
            let mut index = TopicIndex::new(threshold, rarity.clone());
            for t in topics {
                index.insert(t);
            }
            (Some((all, index)), rarity)
        } else {
            (None, Rarity::of(&new_topics))
        };
    let mut batch = TopicIndex::new(threshold, rarity);
    for (mut b, topic) in candidates.into_iter().zip(new_topics) {
        let exact = match repo
            .iter()
            .find(|r| r.content.to_lowercase() == b.content.to_lowercase())
        {
            Some(r) => Some(r.id.clone()),
            None => rows::find_by_content(conn, &b.content)?,
        };
        // (id, similarity, the same rule once normalised)
        let mut duplicate_of = exact.map(|id| (id, 1.0, true));
        let mut contradicts: Vec<(String, bool)> = Vec::new();
        if duplicate_of.is_none() {
            let neighbours: Vec<(Bullet, bool)> = match &playbook {
                Some(_) => Vec::new(),
                None => crate::context::neighbours::of(conn, repo, &b.content)?,
            };
            let neighbour_topics: Vec<Topic> = neighbours
                .iter()
                .map(|(o, _)| Topic::of(&o.content))
                .collect();
            let mut others: Vec<(&Bullet, &Topic, bool)> = Vec::new();
            match &playbook {
                Some((all, index)) => {
                    for i in index.candidates(&topic) {
                        others.push((&all[i], index.get(i), false));
                    }
                }
                None => {
                    for ((o, _), t) in neighbours.iter().zip(&neighbour_topics) {
                        others.push((o, t, false));
                    }
                }
            }
            for i in batch.candidates(&topic) {
                others.push((&out.fresh[i], batch.get(i), true));
            }
            for (other, other_topic, in_batch) in others {
                match topic.relate(other_topic, threshold) {
                    Some(Relation::Same) => {
                        duplicate_of = Some((other.id.clone(), 1.0, true));
                        break;
                    }
                    Some(Relation::NearDuplicate(sim))
                        if !force
                            && other.is_live()
                            && duplicate_of.as_ref().is_none_or(|(_, best, _)| sim > *best) =>
                    {
                        duplicate_of = Some((other.id.clone(), sim, false));
                    }
                    Some(Relation::Contradiction(_)) if other.is_live() => {
                        contradicts.push((other.id.clone(), in_batch));
                    }
                    _ => {}
                }
            }
        }
        if let Some((id, sim, same)) = duplicate_of {
            out.duplicates.push(json!({
                "content": b.content, "duplicateOf": id,
                "match": if same { "same" } else { "similar" },
                "similarity": crate::memory::scoring::round3(sim),
            }));
            continue;
        }
        for (other, in_batch) in contradicts {
            b.contradicts.push(other.clone());
            if in_batch {
                if let Some(f) = out.fresh.iter_mut().find(|f| f.id == other) {
                    f.contradicts.push(b.id.clone());
                }
            } else {
                out.flag.push((b.id.clone(), other));
            }
        }
        batch.insert(topic);
        out.fresh.push(b);
    }
    Ok(out)
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
    if candidates.len() <= INDEX_THE_PLAYBOOK_FROM
        && crate::context::index::pending(store)? > crate::context::index::MAX_DIRTY_IN_MEMORY
    {
        // Neighbours come from the term index: make it current once (a bulk change or an older
        // version left it stale), so every later add reads a few postings.
        crate::context::index::refresh(store)?;
    }
    let playbook = Playbook::open(store, &ctx.cwd);
    let repo_rules: Vec<Bullet> = playbook.readable_repo_rules();
    let curated = curate_batch(
        candidates,
        store,
        &repo_rules,
        cfg.dedup_similarity_threshold,
        args.force,
    )?;
    let (fresh, duplicates) = (curated.fresh, curated.duplicates);
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
    // A batch is a bulk change: index its rules for context now (best effort, they are stored).
    if fresh.len() > INDEX_THE_PLAYBOOK_FROM
        && let Err(e) = crate::context::index::refresh(store)
    {
        eprintln!(
            "cm: warning: context term index not refreshed: {}",
            e.message
        );
    }
    // The rules a new one contradicts are flagged too (each change undoable on its own).
    for (new_id, other) in &curated.flag {
        playbook.change(other, "contradiction", |b| {
            if !b.contradicts.contains(new_id) {
                b.contradicts.push(new_id.clone());
            }
            Ok(Vec::new())
        })?;
    }

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
