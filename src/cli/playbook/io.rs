//! `cm playbook export` and `cm playbook import`: YAML (the original `playbook.yaml` layout), our
//! JSON export and Markdown lists, in and out.

use super::add::read_input;
use super::{ExportArgs, ImportArgs};
use crate::cli::Ctx;
use crate::clock;
use crate::error::{CmError, Result};
use crate::memory::bullet::Bullet;
use crate::memory::formats::{self, Format};
use crate::memory::new_rule;
use crate::memory::playbook::{Location, Playbook};
use crate::output::Report;
use crate::store::bullets as rows;
use serde_json::json;

pub(super) fn export(args: &ExportArgs, ctx: &Ctx) -> Result<Report> {
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
    let cfg = ctx.config()?;
    let bullets: Vec<Bullet> = Playbook::open(store, &ctx.cwd)
        .settled(&cfg.scoring, clock::now())
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

pub(super) fn import(args: &ImportArgs, ctx: &Ctx) -> Result<Report> {
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
            // Each replaced rule can come back with `cm undo ID`, exactly as it was.
            for old in rows::load_all(tx)? {
                rows::record_revision(tx, &old.id, "import --replace", Some(&old), &[])?;
            }
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
