//! `cm playbook export`: YAML (the original `playbook.yaml` layout), our JSON export, or a
//! Markdown list. Import, the way back in, is `import.rs`.

use super::ExportArgs;
use crate::cli::Ctx;
use crate::clock;
use crate::error::{CmError, Result};
use crate::memory::bullet::Bullet;
use crate::memory::formats::{self, Format};
use crate::memory::playbook::{Location, Playbook};
use crate::output::Report;
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
    // `--all` asks for them anyway.
    let live_only = args.live || (format == Format::Markdown && !args.all);
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
