//! `cm init [--force] [--starter NAME]` and `cm starters`.
//!
//! Creates the data directory, the store (migrated) and a default `config.json`. An existing
//! config is kept; `--force` rewrites it to the defaults after saving the old one as
//! `config.json.bak` (a malformed one is never touched). The store's rules are never deleted.

use super::Ctx;
use crate::clock;
use crate::config::{self, Config};
use crate::error::{CmError, Result};
use crate::memory::formats::{self, Format};
use crate::memory::playbook::Playbook;
use crate::memory::tables::bullets as rows;
use crate::output::Report;
use crate::paths;
use serde_json::json;

/// Starter playbooks shipped in the binary: (name, YAML).
pub const STARTERS: &[(&str, &str)] = &[
    ("general", include_str!("../../starters/general.yaml")),
    ("go", include_str!("../../starters/go.yaml")),
    ("python", include_str!("../../starters/python.yaml")),
    ("react", include_str!("../../starters/react.yaml")),
    ("rust", include_str!("../../starters/rust.yaml")),
    ("typescript", include_str!("../../starters/typescript.yaml")),
];

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Rewrite config.json with the defaults (the old file is kept as config.json.bak).
    #[arg(long)]
    pub force: bool,
    /// Seed the playbook with a starter (see `cm starters`).
    #[arg(long)]
    pub starter: Option<String>,
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    let starter = match &args.starter {
        Some(name) => Some(find_starter(name)?),
        None => None,
    };
    let dir = paths::data_dir();
    let mut created = Vec::new();
    if !dir.exists() {
        created.push(dir.display().to_string());
    }
    std::fs::create_dir_all(&dir).map_err(|e| CmError::io(&dir, "create data directory", &e))?;

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
    if let Some((name, yaml)) = starter {
        let now = clock::now_rfc3339();
        let mut bullets = formats::parse(yaml, Format::Yaml).map_err(CmError::internal)?;
        let mut added = Vec::new();
        for b in &mut bullets {
            if rows::find_by_content(store, &b.content)?.is_some() {
                continue;
            }
            b.id = crate::memory::bullet::new_bullet_id();
            b.created_at = now.clone();
            b.updated_at = now.clone();
            b.source_agents = vec![format!("starter:{name}")];
            b.reasoning = Some(format!("From the {name} starter playbook"));
            added.push(b.clone());
        }
        Playbook::open(store, &ctx.cwd).add(&added, None)?;
        seeded = json!({"name": name, "added": added.len(), "alreadyPresent": bullets.len() - added.len()});
    }

    let count = rows::count(store)?;
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
    human.push_str(&format!(
        "Playbook: {count} rule(s). Next: `cm context \"<task>\"` or `cm playbook add \"...\"`."
    ));
    Ok(Report::new(json!({
        "dataDir": dir.display().to_string(),
        "dbPath": store.path.display().to_string(),
        "configPath": cfg_path.display().to_string(),
        "created": created,
        "starter": seeded,
        "ruleCount": count,
    }))
    .human(human)
    .quiet(dir.display().to_string()))
}

fn find_starter(name: &str) -> Result<(&'static str, &'static str)> {
    STARTERS
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name.trim()))
        .copied()
        .ok_or_else(|| {
            CmError::usage(
                "STARTER_NOT_FOUND",
                format!("no starter playbook named \"{name}\""),
            )
            .hint(format!(
                "available: {}",
                STARTERS.iter().map(|s| s.0).collect::<Vec<_>>().join(", ")
            ))
        })
}

pub fn starters(_ctx: &Ctx) -> Result<Report> {
    let mut list = Vec::new();
    let mut human = String::new();
    for (name, yaml) in STARTERS {
        let bullets = formats::parse(yaml, Format::Yaml).map_err(CmError::internal)?;
        let description = serde_norway::from_str::<serde_json::Value>(yaml)
            .ok()
            .and_then(|v| v["description"].as_str().map(str::to_string))
            .unwrap_or_default();
        human.push_str(&format!(
            "{name:<12} {:>2} rules  {description}\n",
            bullets.len()
        ));
        list.push(json!({"name": name, "rules": bullets.len(), "description": description}));
    }
    Ok(Report::new(json!({"starters": list}))
        .human(human)
        .quiet(STARTERS.iter().map(|s| s.0).collect::<Vec<_>>().join("\n")))
}
