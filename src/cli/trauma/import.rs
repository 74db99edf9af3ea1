//! `cm trauma import FILE`: patterns from a plain list (one regex per line, `#` comments) or
//! from JSON Lines of trauma records (what the traumas files hold, so a team can share them).
//!
//! All or nothing: every line is checked first, and one bad line (with its file:line) refuses
//! the whole import. Patterns already present in the target file are skipped, not duplicated.

use super::{ScopeArg, store};
use crate::cli::Ctx;
use crate::error::{CmError, Result};
use crate::guard::user_traumas::{self as ut, Severity, Trauma, TraumaScope};
use crate::output::Report;
use serde_json::{Value, json};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The file to read (`-` for stdin).
    pub file: PathBuf,
    /// Where the imported traumas go. JSON records keep their own scope when this is not given;
    /// plain patterns default to global.
    #[arg(long, value_enum)]
    pub scope: Option<ScopeArg>,
}

fn read_input(path: &PathBuf) -> Result<String> {
    if path.as_os_str() == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .map_err(|e| CmError::io(path, "read", &e))?;
        return Ok(s);
    }
    std::fs::read_to_string(path).map_err(|e| CmError::io(path, "read", &e))
}

/// Turn one JSON record into a trauma, filling what it leaves out.
fn from_record(v: Value, now: &str) -> std::result::Result<Trauma, String> {
    let Value::Object(mut map) = v else {
        return Err("expected a JSON object".into());
    };
    if !map.get("pattern").is_some_and(Value::is_string) {
        return Err("missing \"pattern\" (a string)".into());
    }
    map.entry("id").or_insert_with(|| json!(""));
    map.entry("createdAt").or_insert_with(|| json!(now));
    map.entry("source").or_insert_with(|| json!("import"));
    serde_json::from_value::<Trauma>(Value::Object(map)).map_err(|e| e.to_string())
}

pub fn run(a: &Args, ctx: &Ctx) -> Result<Report> {
    let text = read_input(&a.file)?;
    let now = crate::clock::now_rfc3339();
    let name = a.file.display().to_string();
    let jsonl = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .is_some_and(|l| l.starts_with('{'));

    let mut incoming = Vec::new();
    let mut errors = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let parsed = if jsonl {
            serde_json::from_str::<Value>(t)
                .map_err(|e| e.to_string())
                .and_then(|v| from_record(v, &now))
        } else {
            Ok(Trauma {
                id: String::new(),
                pattern: t.to_string(),
                severity: Severity::Critical,
                scope: TraumaScope::Global,
                message: None,
                files: None,
                source: "import".into(),
                created_at: now.clone(),
                healed: None,
            })
        };
        let checked = parsed.and_then(|tr| {
            store::check_pattern(&tr.pattern).map_err(|e| e.message)?;
            if let Some(g) = &tr.files {
                store::check_glob(g).map_err(|e| e.message)?;
            }
            Ok(tr)
        });
        match checked {
            Ok(tr) => incoming.push(tr),
            Err(e) => errors.push(format!("{name}:{}: {e}", i + 1)),
        }
    }
    if !errors.is_empty() {
        let shown: Vec<_> = errors.iter().take(10).cloned().collect();
        return Err(CmError::usage(
            "INVALID_IMPORT",
            format!(
                "{} line(s) of {name} cannot be imported, so nothing was imported: {}",
                errors.len(),
                shown.join("; ")
            ),
        )
        .hint("fix or remove those lines and import again"));
    }

    let (existing, bad) = store::load_all(ctx)?;
    let warnings = store::report_bad(&bad);
    let mut added: Vec<Trauma> = Vec::new();
    let mut skipped = 0usize;
    for scope in [TraumaScope::Global, TraumaScope::Project] {
        let mut batch: Vec<Trauma> = incoming
            .iter()
            .filter(|t| a.scope.map(TraumaScope::from).unwrap_or(t.scope) == scope)
            .cloned()
            .collect();
        if batch.is_empty() {
            continue;
        }
        let path = store::path_for(scope, ctx, true).expect("a write path always exists");
        store::edit(&path, |lines| {
            let (current, _) = ut::parse(&path, &lines.join("\n"));
            let mut changed = false;
            for mut t in batch.drain(..) {
                t.scope = scope;
                let dup = current
                    .iter()
                    .chain(added.iter())
                    .any(|c| c.pattern == t.pattern && c.files == t.files);
                if dup {
                    skipped += 1;
                    continue;
                }
                let taken = |id: &str| {
                    id.is_empty()
                        || existing.iter().any(|l| l.trauma.id == id)
                        || added.iter().any(|x| x.id == id)
                };
                while taken(&t.id) {
                    t.id = ut::new_id(&format!("{}{}", t.pattern, t.id));
                }
                lines.push(ut::to_line(&t));
                added.push(t);
                changed = true;
            }
            Ok(changed)
        })?;
    }
    let human = format!(
        "imported {} trauma(s) from {name}{}",
        added.len(),
        if skipped > 0 {
            format!("; {skipped} already present, skipped")
        } else {
            String::new()
        }
    );
    Ok(Report::new(json!({
        "imported": added.len(),
        "skipped": skipped,
        "traumas": added,
        "warnings": warnings,
    }))
    .human(human)
    .quiet(
        added
            .iter()
            .map(|t| t.id.clone())
            .collect::<Vec<_>>()
            .join("\n"),
    ))
}
