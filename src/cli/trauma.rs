//! `cm trauma`: the patterns users taught the guard. Add, list, heal (disable for a while),
//! unheal, remove, import, and scan past sessions for candidates.
//!
//! Global traumas live in `<data dir>/traumas.jsonl`, project ones in `.cass/traumas.jsonl`
//! (shared through git). The pre-tool hook reads both; `--files` traumas are also checked by
//! the pre-commit scan against added lines of the matching files.

mod import;
mod import_format;
mod scan;
mod store;

use super::Ctx;
use crate::error::{CmError, Result};
use crate::guard::user_traumas::{self as ut, Healed, Severity, Trauma, TraumaScope};
use crate::output::{Report, table, truncate};
use serde_json::{Value, json};
use store::Located;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub sub: Sub,
}

#[derive(clap::Subcommand, Debug)]
pub enum Sub {
    /// Teach the guard a pattern (a regular expression) to block.
    Add(AddArgs),
    /// Show user traumas, global and project, with their state.
    List,
    /// Disable a trauma for a while (or until `unheal`).
    Heal(HealArgs),
    /// Re-enable a healed trauma.
    Unheal {
        /// The trauma's id (`cm trauma list` shows them).
        id: String,
    },
    /// Delete a trauma for good.
    Remove {
        /// The trauma's id (`cm trauma list` shows them).
        id: String,
    },
    /// Add patterns from a file: one regex per line, JSON Lines or a JSON array of trauma
    /// records, or the shared YAML list (`- pattern: ...` with `description:`).
    Import(import::Args),
    /// Propose traumas from sessions where a destructive command caused distress or recovery.
    Scan(scan::Args),
}

#[derive(clap::Args, Debug)]
pub struct AddArgs {
    /// Regular expression matched against each normalised command segment.
    pub pattern: String,
    /// critical: a human can allow it; fatal: only healing or removing the trauma lifts it.
    #[arg(long, value_enum, default_value = "critical")]
    pub severity: SeverityArg,
    /// global (your traumas file) or project (the repository's .cass/traumas.jsonl).
    #[arg(long, value_enum, default_value = "global")]
    pub scope: ScopeArg,
    /// What the agent is told when the pattern matches.
    #[arg(long, visible_alias = "description")]
    pub message: Option<String>,
    /// Also check added lines of staged files matching this glob in the pre-commit hook.
    #[arg(long)]
    pub files: Option<String>,
}

#[derive(clap::Args, Debug)]
pub struct HealArgs {
    /// The trauma's id (`cm trauma list` shows them).
    pub id: String,
    /// Why it is disabled (kept with the record).
    #[arg(long)]
    pub reason: Option<String>,
    /// For how long: 30m, 2h, 7d, 2w. Without it, until `cm trauma unheal`.
    #[arg(long = "for", value_name = "DURATION")]
    pub duration: Option<String>,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum SeverityArg {
    Critical,
    Fatal,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq)]
pub enum ScopeArg {
    Global,
    Project,
}

impl From<SeverityArg> for Severity {
    fn from(s: SeverityArg) -> Self {
        match s {
            SeverityArg::Critical => Severity::Critical,
            SeverityArg::Fatal => Severity::Fatal,
        }
    }
}

impl From<ScopeArg> for TraumaScope {
    fn from(s: ScopeArg) -> Self {
        match s {
            ScopeArg::Global => TraumaScope::Global,
            ScopeArg::Project => TraumaScope::Project,
        }
    }
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    match &args.sub {
        Sub::Add(a) => add(a, ctx),
        Sub::List => list(ctx),
        Sub::Heal(a) => heal(a, ctx),
        Sub::Unheal { id } => unheal(id, ctx),
        Sub::Remove { id } => remove(id, ctx),
        Sub::Import(a) => import::run(a, ctx),
        Sub::Scan(a) => scan::run(a, ctx),
    }
}

/// A trauma as `--json` shows it: the record plus where it lives and whether it is active.
fn describe(l: &Located, now: &str) -> Value {
    let mut v = serde_json::to_value(&l.trauma).expect("trauma serializes");
    v["path"] = json!(l.path);
    v["active"] = json!(l.trauma.is_active(now));
    v
}

fn state(t: &Trauma, now: &str) -> String {
    match &t.healed {
        _ if t.is_active(now) => "active".into(),
        Some(Healed { until: Some(u), .. }) => format!("healed until {u}"),
        _ => "healed".into(),
    }
}

fn add(a: &AddArgs, ctx: &Ctx) -> Result<Report> {
    store::check_pattern(&a.pattern)?;
    if let Some(g) = &a.files {
        store::check_glob(g)?;
    }
    let scope: TraumaScope = a.scope.into();
    let path = store::path_for(scope, ctx, true).expect("a write path always exists");
    let now = crate::clock::now_rfc3339();
    let mut trauma = Trauma {
        id: ut::new_id(&a.pattern),
        pattern: a.pattern.clone(),
        severity: a.severity.into(),
        scope,
        message: a.message.clone(),
        files: a.files.clone(),
        source: "user".into(),
        created_at: now.clone(),
        healed: None,
    };
    let (existing, bad) = store::load_all(ctx)?;
    let warnings = store::report_bad(&bad);
    let mut created = true;
    store::edit(&path, |lines| {
        let (current, _) = ut::parse(&path, &lines.join("\n"));
        if let Some(same) = current
            .into_iter()
            .find(|t| t.pattern == trauma.pattern && t.files == trauma.files)
        {
            trauma = same;
            created = false;
            return Ok(false);
        }
        while existing.iter().any(|l| l.trauma.id == trauma.id) {
            trauma.id = ut::new_id(&format!("{}{}", a.pattern, trauma.id));
        }
        lines.push(ut::to_line(&trauma));
        Ok(true)
    })?;
    let located = Located {
        trauma,
        scope,
        path,
    };
    let t = &located.trauma;
    let human = if created {
        format!(
            "added trauma {} ({}, {}) to {}: {}",
            t.id,
            format!("{:?}", t.severity).to_lowercase(),
            if scope == TraumaScope::Global {
                "global"
            } else {
                "project"
            },
            located.path.display(),
            t.pattern
        )
    } else {
        format!("trauma {} already holds this pattern; nothing added", t.id)
    };
    Ok(Report::new(json!({
        "created": created,
        "trauma": describe(&located, &now),
        "warnings": warnings,
    }))
    .human(human)
    .quiet(t.id.clone()))
}

fn list(ctx: &Ctx) -> Result<Report> {
    let (all, bad) = store::load_all(ctx)?;
    let warnings = store::report_bad(&bad);
    let now = crate::clock::now_rfc3339();
    let rows: Vec<Vec<String>> = all
        .iter()
        .map(|l| {
            let t = &l.trauma;
            vec![
                t.id.clone(),
                format!("{:?}", t.severity).to_lowercase(),
                match l.scope {
                    TraumaScope::Global => "global".into(),
                    TraumaScope::Project => "project".into(),
                },
                state(t, &now),
                truncate(&t.pattern, 40),
                t.files.clone().unwrap_or_default(),
                truncate(t.message.as_deref().unwrap_or(""), 40),
            ]
        })
        .collect();
    let human = if rows.is_empty() {
        "no user traumas (the built-in packs still apply: `cm guard check \"CMD\"`)".to_string()
    } else {
        table(
            &[
                "ID", "SEVERITY", "SCOPE", "STATE", "PATTERN", "FILES", "MESSAGE",
            ],
            &rows,
        )
    };
    let quiet = all
        .iter()
        .map(|l| l.trauma.id.clone())
        .collect::<Vec<_>>()
        .join("\n");
    Ok(Report::new(json!({
        "traumas": all.iter().map(|l| describe(l, &now)).collect::<Vec<_>>(),
        "count": all.len(),
        "active": all.iter().filter(|l| l.trauma.is_active(&now)).count(),
        "warnings": warnings,
    }))
    .human(human)
    .quiet(quiet))
}

/// `30m`, `2h`, `7d`, `2w`, `90s`.
pub fn parse_duration(s: &str) -> Result<chrono::Duration> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: i64 = num.parse().unwrap_or(0);
    let d = match unit.trim() {
        "s" | "sec" | "secs" => chrono::Duration::try_seconds(n),
        "m" | "min" | "mins" => chrono::Duration::try_minutes(n),
        "h" | "hr" | "hrs" | "hour" | "hours" => chrono::Duration::try_hours(n),
        "d" | "day" | "days" => chrono::Duration::try_days(n),
        "w" | "week" | "weeks" => chrono::Duration::try_weeks(n),
        _ => None,
    };
    d.filter(|d| n > 0 && *d > chrono::Duration::zero())
        .ok_or_else(|| {
            CmError::usage("INVALID_DURATION", format!("cannot read duration {s:?}"))
                .hint("use a number and a unit: 30m, 2h, 7d, 2w")
        })
}

fn heal(a: &HealArgs, ctx: &Ctx) -> Result<Report> {
    let until = a
        .duration
        .as_deref()
        .map(parse_duration)
        .transpose()?
        .map(|d| crate::clock::to_rfc3339(crate::clock::now() + d));
    let mut l = store::find(ctx, &a.id)?;
    let now = crate::clock::now_rfc3339();
    l.trauma.healed = Some(Healed {
        at: now.clone(),
        until: until.clone(),
        reason: a.reason.clone(),
    });
    store::rewrite(&l.path, &a.id, Some(&l.trauma))?;
    let human = match &until {
        Some(u) => format!("healed {} until {u}: the guard ignores it until then", a.id),
        None => format!(
            "healed {}: the guard ignores it until `cm trauma unheal {}`",
            a.id, a.id
        ),
    };
    Ok(Report::new(json!({"trauma": describe(&l, &now)}))
        .human(human)
        .quiet(a.id.clone()))
}

fn unheal(id: &str, ctx: &Ctx) -> Result<Report> {
    let mut l = store::find(ctx, id)?;
    let was_healed = l.trauma.healed.take().is_some();
    if was_healed {
        store::rewrite(&l.path, id, Some(&l.trauma))?;
    }
    let now = crate::clock::now_rfc3339();
    Ok(
        Report::new(json!({"changed": was_healed, "trauma": describe(&l, &now)}))
            .human(if was_healed {
                format!("{id} is active again")
            } else {
                format!("{id} was not healed; nothing changed")
            })
            .quiet(id.to_string()),
    )
}

fn remove(id: &str, ctx: &Ctx) -> Result<Report> {
    let l = store::find(ctx, id)?;
    store::rewrite(&l.path, id, None)?;
    let now = crate::clock::now_rfc3339();
    Ok(Report::new(json!({"removed": describe(&l, &now)}))
        .human(format!("removed trauma {id} from {}", l.path.display()))
        .quiet(id.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(
            parse_duration("30m").unwrap(),
            chrono::Duration::minutes(30)
        );
        assert_eq!(parse_duration("2h").unwrap(), chrono::Duration::hours(2));
        assert_eq!(parse_duration("7d").unwrap(), chrono::Duration::days(7));
        assert_eq!(parse_duration("2w").unwrap(), chrono::Duration::weeks(2));
        for bad in ["", "h", "0d", "5y", "-3d", "3.5h"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
