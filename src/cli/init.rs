//! `cm init [--force] [--starter NAME] [--yes]` and `cm starters` (built-in and user starters,
//! see `starters`); `cm init --repo` is in `init_repo`.
//!
//! Creates the data directory, the store (migrated) and a default `config.json`. An existing
//! config is kept; `--force` rewrites it to the defaults after saving the old one as
//! `config.json.bak` (a malformed one is never touched). The store's rules are never deleted.
//! `cm init` never prompts, so `--yes` (which scripts written for the original tool pass) changes
//! nothing here; `--repo --force` needs it.

use super::Ctx;
use crate::clock;
use crate::config::{self, Config};
use crate::error::{CmError, Result};
use crate::memory::playbook::Playbook;
use crate::output::Report;
use crate::paths;
use serde_json::json;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Rewrite config.json with the defaults (the old file is kept as config.json.bak); with
    /// --repo, reset the repository playbook (backed up first; needs --yes).
    #[arg(long)]
    pub force: bool,
    /// Seed the playbook with a starter (see `cm starters`); with --repo, the repository's.
    #[arg(long)]
    pub starter: Option<String>,
    /// Initialise the git repository's .cass/ (playbook.yaml and traumas.jsonl) instead.
    #[arg(long)]
    pub repo: bool,
    /// Confirm what --force replaces (cm init never prompts).
    #[arg(long, short = 'y')]
    pub yes: bool,
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    if args.repo {
        return super::init_repo::run(
            &super::init_repo::Request {
                force: args.force,
                yes: args.yes,
                starter: args.starter.as_deref(),
            },
            ctx,
        );
    }
    let starter = match &args.starter {
        Some(name) => Some(super::starters::find(name)?),
        None => None,
    };
    let dir = paths::data_dir();
    let mut created = Vec::new();
    if !dir.exists() {
        created.push(dir.display().to_string());
    }
    crate::private::create_dir(&dir).map_err(|e| CmError::io(&dir, "create data directory", &e))?;

    let cfg_path = paths::global_config_path();
    let defaults =
        serde_json::to_string_pretty(&Config::default()).expect("defaults serialize") + "\n";
    // Check everything before writing anything: a malformed config is reported (never
    // overwritten), and a corrupt or foreign database stops init before a config appears beside it.
    let cfg_exists = cfg_path.exists();
    if cfg_exists {
        config::read_json_file(&cfg_path)?;
    }
    let db_existed = paths::db_path().exists();
    let store = ctx.store()?;
    if !db_existed {
        created.push(store.path.display().to_string());
    }
    if cfg_exists {
        if args.force {
            let bak = cfg_path.with_extension("json.bak");
            std::fs::copy(&cfg_path, &bak)
                .map_err(|e| CmError::io(&bak, "back up config to", &e))?;
            crate::fsutil::write_atomic(&cfg_path, defaults.as_bytes())?;
            created.push(format!(
                "{} (rewritten; old copy in {})",
                cfg_path.display(),
                bak.display()
            ));
        }
    } else {
        crate::fsutil::write_atomic(&cfg_path, defaults.as_bytes())?;
        created.push(cfg_path.display().to_string());
    }

    let mut seeded = json!(null);
    if let Some((name, mut bullets)) = starter {
        let playbook = Playbook::open(store, &ctx.cwd);
        let now = clock::now_rfc3339();
        let mut added = Vec::new();
        for b in &mut bullets {
            if !super::starters::admissible(&name, b)
                || playbook.personal_with_text(&b.content)?.is_some()
            {
                continue;
            }
            super::starters::adopt(b, &name, &now);
            added.push(b.clone());
        }
        playbook.add(&added, None)?;
        seeded = json!({"name": name, "added": added.len(), "alreadyPresent": bullets.len() - added.len()});
    }

    let count = Playbook::open(store, &ctx.cwd).personal_count()?;
    let mut human = if created.is_empty() {
        format!("cm is already initialised in {}.\n", dir.display())
    } else {
        format!("Initialised cm in {}.\n", dir.display())
    };
    for c in &created {
        human.push_str(&format!("  created {c}\n"));
    }
    if let Some(name) = seeded["name"].as_str() {
        human.push_str(&format!(
            "  starter {name}: added {} rule(s)\n",
            seeded["added"]
        ));
    }
    let original = original_offer(store, ctx, &mut human);
    human.push_str(&format!("Playbook: {count} rule(s).\n"));
    let steps = next_steps(store, &ctx.cwd, count);
    human.push_str("Next steps:\n");
    for s in &steps {
        human.push_str(&format!("  {:<34} {}\n", s.command, s.why));
    }
    let human = human.trim_end().to_string();
    Ok(Report::new(json!({
        "dataDir": dir.display().to_string(),
        "dbPath": store.path.display().to_string(),
        "configPath": cfg_path.display().to_string(),
        "created": created,
        "starter": seeded,
        "ruleCount": count,
        "nextSteps": steps,
        "original": original,
    }))
    .human(human)
    .quiet(dir.display().to_string()))
}

/// One thing to do next, and why.
#[derive(serde::Serialize)]
struct Step {
    command: String,
    why: String,
}

/// What a new user does next, most important first: the hooks (without them no agent ever
/// calls cm), the session index, then a first question. Steps already done are left out.
fn next_steps(store: &crate::store::Store, cwd: &std::path::Path, rules: i64) -> Vec<Step> {
    use crate::install::{AGENTS, Scope, project_root, status};
    let root = project_root(cwd);
    let hooked = AGENTS.iter().any(|&agent| {
        [Scope::User, Scope::Project]
            .iter()
            .any(|&scope| !status(agent, scope, &root).handlers.is_empty())
    });
    let mut steps = Vec::new();
    let mut step = |command: &str, why: &str| {
        steps.push(Step {
            command: command.to_string(),
            why: why.to_string(),
        })
    };
    if !hooked {
        step(
            "cm hooks install",
            "wire cm into Claude Code: without hooks no agent calls cm \
             (`--agent codex`, `--agent gemini` for those)",
        );
    }
    if !crate::episodic::sessions::has_index(store) {
        step(
            "cm history index",
            "index the sessions your agents already wrote",
        );
    }
    if rules == 0 {
        step(
            "cm init --starter rust",
            "seed the playbook with a starter (`cm starters` lists them)",
        );
    }
    step(
        "cm context \"<task>\" --json",
        "what an agent sees before a task",
    );
    steps
}

/// A store the original tool left with rules or diary entries cm does not have: offer the
/// import (`data.original`, and a line of the human answer).
fn original_offer(store: &crate::store::Store, ctx: &Ctx, human: &mut String) -> serde_json::Value {
    let Ok(cfg) = ctx.config() else {
        return json!(null);
    };
    match crate::app::from_original::pending(Some(store), cfg) {
        Some((found, Some(p))) if p.changed => {
            human.push_str(&format!(
                "Found the original tool's store in {} ({} rule(s), {} diary entr(ies) not in cm): bring them over with `cm import --from-original` (--dry-run first to see what it brings).\n",
                found.dir.display(),
                p.rules.added,
                p.diary.added
            ));
            json!({"dir": found.dir.display().to_string(), "rules": p.rules.added, "diaryEntries": p.diary.added, "command": "cm import --from-original"})
        }
        _ => json!(null),
    }
}

pub fn starters(_ctx: &Ctx) -> Result<Report> {
    let all = super::starters::all();
    let mut list = Vec::new();
    let mut human = String::new();
    for st in &all {
        let source = if st.path.is_some() { "user" } else { "builtin" };
        let (count, error) = match &st.rules {
            Ok(r) => (r.len(), None),
            Err(e) => (0, Some(e.clone())),
        };
        let note = match &error {
            Some(e) => format!("  (unusable: {e})"),
            None => String::new(),
        };
        human.push_str(&format!(
            "{:<12} {count:>2} rules  {:<8} {}{note}\n",
            st.name, source, st.description
        ));
        list.push(json!({
            "name": st.name,
            "rules": count,
            "description": st.description,
            "source": source,
            "path": st.path.as_ref().map(|p| p.display().to_string()),
            "error": error,
        }));
    }
    human.push_str(&format!(
        "Add your own as {}/NAME.yaml.",
        super::starters::dir().display()
    ));
    Ok(Report::new(
        json!({"starters": list, "userDir": super::starters::dir().display().to_string()}),
    )
    .human(human)
    .quiet(
        all.iter()
            .map(|s| s.name.clone())
            .collect::<Vec<_>>()
            .join("\n"),
    ))
}
