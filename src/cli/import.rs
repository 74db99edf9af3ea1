//! `cm import --from-original [--dry-run]`: bring the original tool's store (`~/.cass-memory`:
//! its playbook with every feedback event, its diary, the config keys cm reads) into cm, in
//! one step that a second run leaves as it is (see `app::from_original`).

use super::Ctx;
use crate::app::from_original::{self, Outcome};
use crate::error::{CmError, ExitCode, Result};
use crate::output::Report;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Import the original tool's store from ~/.cass-memory (playbook.yaml, diary/, config.json).
    #[arg(long, required = true)]
    pub from_original: bool,
    /// Say what would be imported; change nothing.
    #[arg(long)]
    pub dry_run: bool,
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    debug_assert!(args.from_original);
    let dir = from_original::original_dir();
    let Some(found) = from_original::detect(&dir) else {
        return Err(CmError::new(
            "ORIGINAL_NOT_FOUND",
            ExitCode::NoData,
            format!(
                "no store of the original tool in {}: no playbook.yaml with rules and no diary entries",
                dir.display()
            ),
        )
        .hint("nothing to import; the original keeps its playbook at ~/.cass-memory/playbook.yaml"));
    };
    let cfg = ctx.config()?;
    let store = ctx.store()?;
    let outcome = from_original::import(store, &found, cfg, args.dry_run)?;
    for w in &outcome.rules.warnings {
        eprintln!("cm: warning: {w}");
    }
    super::playbook::warn_unmapped(&outcome.unknown_fields);
    for k in &outcome.config.unmapped {
        eprintln!("cm: warning: config key {} not imported: {}", k.key, k.why);
    }
    for f in &outcome.diary.unreadable {
        eprintln!("cm: warning: {f} is not a diary entry of the original; skipped");
    }
    let human = human(&outcome);
    let quiet = outcome.rules.added.to_string();
    Ok(
        Report::new(serde_json::to_value(&outcome).unwrap_or_default())
            .human(human)
            .quiet(quiet),
    )
}

fn human(o: &Outcome) -> String {
    let verb = if o.dry_run {
        "Would import"
    } else {
        "Imported"
    };
    let mut s = format!(
        "{verb} from the original tool's store in {}:\n  rules: {} added ({} feedback events, {} deprecated pattern(s) of the file), {} already here\n  diary: {} entr(ies) added, {} already here\n",
        o.from,
        o.rules.added,
        o.rules.feedback_events,
        o.rules.deprecated_patterns,
        o.rules.skipped.len(),
        o.diary.added,
        o.diary.skipped,
    );
    if let Some(file) = &o.config.file {
        s.push_str(&format!(
            "  config: {} key(s) from {file}, {} kept as cm has them, {} not used by cm\n",
            o.config.mapped.len(),
            o.config.kept.len(),
            o.config.unmapped.len()
        ));
    }
    if !o.changed {
        s.push_str("Nothing new: everything was imported before.\n");
    } else if o.dry_run {
        s.push_str("Nothing was changed (dry run); run `cm import --from-original` to do it.\n");
    }
    s
}
