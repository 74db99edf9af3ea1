//! `cm init --repo [--force --yes] [--starter NAME]`: give a git repository its shared `.cass/`.
//!
//! Creates the files a team commits: `.cass/playbook.yaml` (an empty repository playbook, the
//! rules `cm playbook add --repo` shares) and `.cass/traumas.jsonl` (the repository's blocked
//! patterns, empty; the original tool calls its file `blocked.log`, which cm's guard does not
//! read). The directory is the one cm reads from here: the nearest `.cass/` up to the git root,
//! else the root's. Outside a git repository there is nothing to share, so it refuses.
//!
//! Both files present is an error (`ALREADY_EXISTS`) unless `--force` or `--starter`. `--force`
//! replaces the playbook with an empty one after a backup under `<data dir>/backups/` (never in
//! the working tree, where it could be committed), and needs `--yes`: cm never prompts. The
//! traumas file is never emptied, even with `--force`: a repository may only tighten the guard,
//! and dropping its blocked patterns would loosen it.

use super::Ctx;
use crate::clock;
use crate::error::{CmError, Result};
use crate::guard::user_traumas;
use crate::memory::bullet::Bullet;
use crate::memory::playbook::Playbook;
use crate::memory::repo_file;
use crate::output::Report;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// What `--repo` was asked to do.
pub struct Request<'a> {
    pub force: bool,
    pub yes: bool,
    pub starter: Option<&'a str>,
}

/// What became of each file, by its name in `.cass/`.
#[derive(Default)]
struct Done {
    created: Vec<&'static str>,
    existed: Vec<&'static str>,
    overwritten: Vec<&'static str>,
    backups: Vec<Value>,
}

pub fn run(req: &Request, ctx: &Ctx) -> Result<Report> {
    if crate::paths::git_root(&ctx.cwd).is_none() {
        return Err(CmError::usage(
            "NOT_A_GIT_REPOSITORY",
            format!("{} is not inside a git repository", ctx.cwd.display()),
        )
        .hint("run `cm init --repo` from the repository whose team should share the rules (`git init` first for a new one)"));
    }
    let dir = crate::paths::repo_cass_dir_for_write(&ctx.cwd);
    let playbook = repo_file::path_in(&dir);
    let traumas = user_traumas::project_path(&dir);
    let (has_playbook, has_traumas) = (present(&playbook), present(&traumas));
    if has_playbook && has_traumas && !req.force && req.starter.is_none() {
        return Err(CmError::usage(
            "ALREADY_EXISTS",
            format!("{} already holds playbook.yaml and traumas.jsonl", dir.display()),
        )
        .hint("nothing to do; `cm init --repo --force --yes` resets the playbook (after a backup), `--starter NAME` seeds it"));
    }
    let replace = req.force && has_playbook;
    if replace && !req.yes {
        return Err(CmError::usage(
            "CONFIRMATION_REQUIRED",
            format!(
                "--force replaces {} with an empty playbook; nothing was changed",
                playbook.display()
            ),
        )
        .hint("add --yes to confirm (`cm init --repo --force --yes`); the old file is backed up first"));
    }
    let starter = match req.starter {
        Some(name) => Some(super::starters::find(name)?),
        None => None,
    };

    let mut done = Done::default();
    if !has_playbook {
        repo_file::write(&playbook, Vec::new())?;
        done.created.push(repo_file::FILE_NAME);
    } else if replace {
        let backup = back_up(&playbook)?;
        done.backups.push(
            json!({"file": playbook.display().to_string(), "backup": backup.display().to_string()}),
        );
        repo_file::write(&playbook, Vec::new())?;
        done.overwritten.push(repo_file::FILE_NAME);
    } else {
        done.existed.push(repo_file::FILE_NAME);
    }
    if has_traumas {
        done.existed.push(user_traumas::FILE_NAME);
    } else {
        crate::fsutil::write_atomic(&traumas, b"")?;
        done.created.push(user_traumas::FILE_NAME);
    }
    let seeded = match starter {
        Some((name, rules)) => seed(ctx, &dir, &name, rules)?,
        None => Value::Null,
    };
    Ok(report(&dir, done, seeded, req.force && has_traumas))
}

/// The most of an old playbook `--force` backs up; a larger file is left alone.
const BACKUP_CAP: u64 = 64 << 20;

/// Copy `path` under `<data dir>/backups/` before it is replaced; returns where.
fn back_up(path: &Path) -> Result<PathBuf> {
    let old =
        crate::untrusted::read(path, BACKUP_CAP).map_err(|e| CmError::io(path, "read", &e))?;
    let bytes = match old {
        Some(c) if c.truncated => {
            return Err(CmError::fs(
                "FILE_TOO_LARGE",
                format!(
                    "{} is larger than 64 MiB; not backed up or replaced",
                    path.display()
                ),
            )
            .hint("move the file away yourself, then run `cm init --repo` again"));
        }
        Some(c) => c.bytes,
        None => Vec::new(),
    };
    crate::install::footprint::backup(path, &bytes)
}

/// Whether something is at `path` (a dangling link counts: it is not cm's to replace unasked).
fn present(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// Add the starter's rules to the repository playbook, skipping those it already holds and any
/// the playbook's safety check refuses.
fn seed(ctx: &Ctx, dir: &Path, name: &str, rules: Vec<Bullet>) -> Result<Value> {
    let existing: Vec<String> = repo_file::load(&repo_file::path_in(dir))?
        .iter()
        .map(|b| b.content.to_lowercase())
        .collect();
    let now = clock::now_rfc3339();
    let total = rules.len();
    let mut added = Vec::new();
    for mut b in rules {
        if !super::starters::admissible(name, &b) || existing.contains(&b.content.to_lowercase()) {
            continue;
        }
        super::starters::adopt(&mut b, name, &now);
        added.push(b);
    }
    if !added.is_empty() {
        Playbook::open(ctx.store()?, &ctx.cwd).add(&added, Some(dir))?;
    }
    Ok(json!({"name": name, "added": added.len(), "alreadyPresent": total - added.len()}))
}

fn report(dir: &Path, done: Done, starter: Value, traumas_kept: bool) -> Report {
    let rel = |name: &str| PathBuf::from(".cass").join(name).display().to_string();
    let mut human = format!("Repository files in {}:\n", dir.display());
    for (verb, names) in [
        ("created", &done.created),
        ("kept", &done.existed),
        ("reset", &done.overwritten),
    ] {
        for n in names {
            human.push_str(&format!("  {verb} {}\n", rel(n)));
        }
    }
    for b in &done.backups {
        human.push_str(&format!(
            "  backup of the old playbook: {}\n",
            b["backup"].as_str().unwrap_or("")
        ));
    }
    if traumas_kept {
        human.push_str("  .cass/traumas.jsonl is never emptied: a repository may only tighten the guard (`cm trauma list` shows its entries)\n");
    }
    if let Some(name) = starter["name"].as_str() {
        human.push_str(&format!(
            "  starter {name}: added {} rule(s)\n",
            starter["added"]
        ));
    }
    human.push_str("Commit .cass/ so the team shares them; `cm playbook add --repo \"...\"` adds a shared rule.");
    Report::new(json!({
        "cassDir": dir.display().to_string(),
        "created": done.created,
        "existed": done.existed,
        "overwritten": done.overwritten,
        "backups": done.backups,
        "starter": starter,
    }))
    .human(human)
    .quiet(dir.display().to_string())
}
