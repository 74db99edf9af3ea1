//! `cm playbook import FILE [--replace --yes] [--validate]`: rules from our JSON or YAML export,
//! the original `playbook.yaml`, or a Markdown list (`-` reads stdin).
//!
//! Nothing is lost by mistake: a bad file imports nothing; `--validate` says what an import
//! would do and writes nothing; `--replace` removes the personal rules only with `--yes` when
//! there are any, writes them first to a backup export in `<data dir>/backups/` (which
//! `cm playbook import BACKUP --replace --yes` restores), and reports every id it removed.

use super::ImportArgs;
use super::add::read_input;
use crate::app::import_rules;
use crate::cli::Ctx;
use crate::clock;
use crate::error::{CmError, Result};
use crate::memory::bullet::Bullet;
use crate::memory::formats::{self, Format};
use crate::memory::new_rule;
use crate::output::Report;
use serde_json::json;
use std::path::PathBuf;

pub(super) fn import(args: &ImportArgs, ctx: &Ctx) -> Result<Report> {
    let (name, text) = read_input(&args.file)?;
    let (bullets, warnings) = parse_rules(&name, &text, ctx)?;
    let store = ctx.store()?;
    let existing: Vec<Bullet> = if args.replace {
        import_rules::personal_rules(store)?
    } else {
        Vec::new()
    };
    let removed: Vec<&str> = existing.iter().map(|b| b.id.as_str()).collect();
    if args.validate {
        let (added, skipped) = import_rules::preview(store, &bullets, args.replace)?;
        let human = format!(
            "{name} is valid: importing it would add {} rule(s), skip {}{}. Nothing was changed.",
            added,
            skipped.len(),
            if removed.is_empty() {
                String::new()
            } else {
                format!(
                    " and remove the {} personal rule(s) there are now",
                    removed.len()
                )
            }
        );
        return Ok(Report::new(json!({
            "file": name, "dryRun": true, "added": added, "skipped": skipped,
            "replaced": args.replace, "removed": removed, "backup": null, "warnings": warnings,
        }))
        .human(human)
        .quiet(added.to_string()));
    }
    if !removed.is_empty() && !args.yes {
        return Err(CmError::usage(
            "CONFIRMATION_REQUIRED",
            format!(
                "--replace would remove all {} rule(s) of the personal playbook; nothing was changed",
                removed.len()
            ),
        )
        .hint(format!(
            "add --yes to replace them (a backup export is written first), or see what would change with `cm playbook import {} --replace --validate`",
            args.file
        )));
    }
    let backup = if removed.is_empty() {
        None
    } else {
        Some(write_backup(&existing)?)
    };
    let replacing = args.replace.then_some(existing.as_slice());
    let (added, skipped) = import_rules::import(store, &bullets, replacing)?;
    for w in &warnings {
        eprintln!("cm: warning: {w}");
    }
    let mut human = String::new();
    if let Some(path) = &backup {
        human.push_str(&format!(
            "Removed {} rule(s) from the personal playbook (backup: {}).\n",
            removed.len(),
            path.display()
        ));
    }
    human.push_str(&format!(
        "Imported {added} rule(s) from {name}; skipped {}.",
        skipped.len()
    ));
    Ok(Report::new(json!({
        "file": name, "dryRun": false, "added": added, "skipped": skipped, "replaced": args.replace,
        "removed": removed, "backup": backup, "warnings": warnings,
    }))
    .human(human)
    .quiet(added.to_string()))
}

/// Parse and clean the file's bullets, each with its text as the file gave it (for the safety
/// check). Any bad bullet refuses the whole file.
fn parse_rules(
    name: &str,
    text: &str,
    ctx: &Ctx,
) -> Result<(Vec<import_rules::Imported>, Vec<String>)> {
    let format = Format::detect(name, text);
    let mut bullets = formats::parse(text, format).map_err(|msg| {
        CmError::usage("INVALID_INPUT", format!("{name}: {msg}"))
            .hint("nothing was imported; fix the file and retry")
    })?;
    let cfg = ctx.config()?;
    let now_t = clock::now();
    let now = clock::to_rfc3339(now_t);
    let mut warnings = Vec::new();
    let mut given = Vec::with_capacity(bullets.len());
    for (i, b) in bullets.iter_mut().enumerate() {
        given.push(b.content.clone());
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
        // The file's maturity is its author's snapshot; what counts is the feedback it carries.
        crate::memory::scoring::settle(b, &cfg.scoring, now_t);
        if new_rule::validate_category(&b.category, &cfg.custom_categories).is_err() {
            warnings.push(format!(
                "{}: category \"{}\" is not a built-in one",
                b.id, b.category
            ));
        }
    }
    let rules = bullets
        .into_iter()
        .zip(given)
        .map(|(bullet, given)| import_rules::Imported { bullet, given })
        .collect();
    Ok((rules, warnings))
}

/// The personal rules as a JSON export in `<data dir>/backups/`, before a replace removes them.
fn write_backup(bullets: &[Bullet]) -> Result<PathBuf> {
    let stamp = clock::now().format("%Y%m%dT%H%M%S%.3fZ");
    let path = crate::paths::data_dir()
        .join("backups")
        .join(format!("playbook-before-replace-{stamp}.json"));
    crate::fsutil::write_atomic(&path, formats::render(bullets, Format::Json).as_bytes())?;
    Ok(path)
}
