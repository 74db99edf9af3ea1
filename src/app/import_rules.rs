//! Importing a file of rules into the personal store: which rules an import adds and which it
//! skips (one the safety check refuses or calls risky, an id already present, or the same text as a rule already there or earlier in the
//! file), and the import itself in one transaction, optionally replacing every personal rule
//! (each replaced rule stays recoverable with `cm undo ID`).

use crate::clock;
use crate::config::Config;
use crate::error::{CmError, Result};
use crate::memory::bullet::Bullet;
use crate::memory::new_rule;
use crate::memory::tables::bullets as rows;
use crate::store::Store;
use serde::Serialize;

/// A rule of the file an import leaves out, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Skipped {
    pub id: String,
    pub reason: String,
}

/// Make a file's bullets fit to store: text on one line and redacted, a category, an id and
/// dates where the file had none, maturity as the feedback stands. A bullet without text
/// refuses the whole file (`name` says which). Returns the rules, each with its text as the
/// file gave it (for the safety check), and warnings (categories not built in).
pub fn clean(
    name: &str,
    bullets: Vec<Bullet>,
    cfg: &Config,
) -> Result<(Vec<Imported>, Vec<String>)> {
    let now_t = clock::now();
    let now = clock::to_rfc3339(now_t);
    let mut warnings = Vec::new();
    let mut rules = Vec::with_capacity(bullets.len());
    for (i, mut bullet) in bullets.into_iter().enumerate() {
        let given = bullet.content.clone();
        let b = &mut bullet;
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
        rules.push(Imported { bullet, given });
    }
    Ok((rules, warnings))
}

/// Every rule of the personal store (what `--replace` would remove).
pub fn personal_rules(store: &Store) -> Result<Vec<Bullet>> {
    rows::load_all(store)
}

/// A file's rule as the import stores it (`bullet`: one line, redacted) and as the file gave it
/// (`given`: what the safety check reads, as `cm playbook add` does, so a role marker at the
/// start of a line is seen).
pub struct Imported {
    pub bullet: Bullet,
    pub given: String,
}

/// What importing `rules` would do, writing nothing: how many it adds and which it skips.
/// With `replace` the store's rules do not count (they are about to be removed).
pub fn preview(store: &Store, rules: &[Imported], replace: bool) -> Result<(usize, Vec<Skipped>)> {
    let (add, skipped) = decide(store, rules, replace)?;
    Ok((add.len(), skipped))
}

/// Import `bullets`; with `replacing`, those personal rules are removed first (each revision
/// recorded). Then the context term index is brought up to date (a bulk change; best effort,
/// the rules are stored).
pub fn import(
    store: &Store,
    rules: &[Imported],
    replacing: Option<&[Bullet]>,
) -> Result<(usize, Vec<Skipped>)> {
    let (added, skipped) = store.write(|tx| {
        if let Some(existing) = replacing {
            for old in existing {
                rows::record_revision(tx, &old.id, "import --replace", Some(old), &[])?;
            }
            rows::delete_all(tx)?;
        }
        let (add, skipped) = decide(tx, rules, false)?;
        for b in rules
            .iter()
            .map(|r| &r.bullet)
            .filter(|b| add.contains(&b.id.as_str()))
        {
            rows::insert(tx, b)?;
            rows::record_revision(tx, &b.id, "import", None, &[])?;
        }
        Ok((add.len(), skipped))
    })?;
    if added > 0
        && let Err(e) = crate::context::index::refresh(store)
    {
        eprintln!(
            "cm: warning: context term index not refreshed: {}",
            e.message
        );
    }
    Ok((added, skipped))
}

/// Which bullets an import adds (their ids) and which it skips. With `ignore_store` the
/// store's rules do not count.
fn decide<'b>(
    conn: &rusqlite::Connection,
    rules: &'b [Imported],
    ignore_store: bool,
) -> Result<(Vec<&'b str>, Vec<Skipped>)> {
    let mut add: Vec<&str> = Vec::new();
    let mut texts: Vec<(String, &str)> = Vec::new();
    let mut skipped = Vec::new();
    for r in rules {
        let b = &r.bullet;
        let lower = b.content.to_lowercase();
        let why = crate::memory::safety::refusal(&r.given)
            .or_else(|| crate::memory::safety::refusal(&b.content));
        let reason = if let Some(why) = why {
            Some(match why.severity {
                crate::memory::safety::Severity::Refused => format!("refused: {}", why.reason),
                crate::memory::safety::Severity::Risky => format!("risky: {}", why.reason),
            })
        } else if add.contains(&b.id.as_str()) || (!ignore_store && rows::exists(conn, &b.id)?) {
            Some("id already present".to_string())
        } else if let Some((_, id)) = texts.iter().find(|(t, _)| *t == lower) {
            Some(format!("same text as {id}"))
        } else if ignore_store {
            None
        } else {
            rows::find_by_content(conn, &b.content)?.map(|dup| format!("same text as {dup}"))
        };
        match reason {
            Some(reason) => skipped.push(Skipped {
                id: b.id.clone(),
                reason,
            }),
            None => {
                add.push(&b.id);
                texts.push((lower, &b.id));
            }
        }
    }
    Ok((add, skipped))
}
