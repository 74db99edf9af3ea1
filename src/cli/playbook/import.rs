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
use crate::memory::original_doc::{DEPRECATED_PATTERN_TAG, Unmapped};
use crate::output::Report;
use serde_json::json;
use std::path::PathBuf;

pub(super) fn import(args: &ImportArgs, ctx: &Ctx) -> Result<Report> {
    let (name, text) = read_input(&args.file)?;
    let (bullets, warnings, unmapped) = parse_rules(&name, &text, ctx)?;
    let patterns = bullets
        .iter()
        .filter(|r| r.bullet.tags.iter().any(|t| t == DEPRECATED_PATTERN_TAG))
        .count();
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
            "deprecatedPatterns": patterns, "unknownFields": unmapped,
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
    warn_unmapped(&unmapped);
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
        "deprecatedPatterns": patterns, "unknownFields": unmapped,
    }))
    .human(human)
    .quiet(added.to_string()))
}

/// Say on stderr which fields of the file cm did not keep (the JSON answer lists them too).
pub(crate) fn warn_unmapped(unmapped: &[Unmapped]) {
    for u in unmapped {
        eprintln!(
            "cm: warning: not imported: {} in {} entr{} (first {}): {}",
            u.field,
            u.count,
            if u.count == 1 { "y" } else { "ies" },
            u.first,
            u.why
        );
    }
}

/// Parse and clean the file's bullets. Any bad bullet refuses the whole file. Returns the
/// bullets, warnings, and the file's fields cm does not keep.
pub(crate) fn parse_rules(
    name: &str,
    text: &str,
    ctx: &Ctx,
) -> Result<(Vec<import_rules::Imported>, Vec<String>, Vec<Unmapped>)> {
    let format = Format::detect(name, text);
    let doc = formats::parse_document(text, format).map_err(|msg| {
        CmError::usage("INVALID_INPUT", format!("{name}: {msg}"))
            .hint("nothing was imported; fix the file and retry")
    })?;
    let cfg = ctx.config()?;
    let (rules, warnings) = import_rules::clean(name, doc.bullets, cfg)?;
    Ok((rules, warnings, doc.unmapped))
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
