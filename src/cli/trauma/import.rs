//! `cm trauma import FILE`: patterns from a plain list, JSON Lines of trauma records, a JSON
//! array, or the shared YAML list (`- pattern: ...` with `description:`); see
//! [`super::import_format`].
//!
//! All or nothing: every record is checked first, and one bad record (with its file:line)
//! refuses the whole import. Patterns already present in the target file are skipped, not
//! duplicated.

use super::{ScopeArg, store};
use crate::cli::Ctx;
use crate::error::{CmError, Result};
use crate::guard::user_traumas::{self as ut, Trauma, TraumaScope};
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

/// Turn one record (an object, or a bare pattern string) into a trauma, filling what it leaves
/// out. `description` (the shared-file name) is the message shown when the pattern matches.
fn from_record(v: Value, now: &str) -> std::result::Result<Trauma, String> {
    let mut map = match v {
        Value::String(p) => {
            let mut m = serde_json::Map::new();
            m.insert("pattern".into(), json!(p));
            m
        }
        Value::Object(m) => m,
        _ => return Err("expected a record with a \"pattern\", or a pattern string".into()),
    };
    if !map.get("pattern").is_some_and(Value::is_string) {
        return Err("missing \"pattern\" (a string)".into());
    }
    if let Some(d) = map.remove("description")
        && !map.contains_key("message")
    {
        map.insert("message".into(), d);
    }
    map.entry("id").or_insert_with(|| json!(""));
    map.entry("createdAt").or_insert_with(|| json!(now));
    map.entry("source").or_insert_with(|| json!("import"));
    serde_json::from_value::<Trauma>(Value::Object(map)).map_err(|e| e.to_string())
}

/// Nothing is imported when any record is bad: name them (at most ten) with their lines.
fn refused(name: &str, errors: &[String]) -> CmError {
    let shown: Vec<_> = errors.iter().take(10).cloned().collect();
    CmError::usage(
        "INVALID_IMPORT",
        format!(
            "{} record(s) of {name} cannot be imported, so nothing was imported: {}",
            errors.len(),
            shown.join("; ")
        ),
    )
    .hint("fix or remove those records and import again")
}

pub fn run(a: &Args, ctx: &Ctx) -> Result<Report> {
    let text = read_input(&a.file)?;
    let now = crate::clock::now_rfc3339();
    let name = a.file.display().to_string();
    let records = match super::import_format::records(&name, &text) {
        Ok(r) => r,
        Err(errors) => return Err(refused(&name, &errors)),
    };
    let mut incoming = Vec::new();
    let mut errors = Vec::new();
    for r in records {
        let checked = from_record(r.value, &now).and_then(|tr| {
            store::check_pattern(&tr.pattern).map_err(|e| e.message)?;
            if let Some(g) = &tr.files {
                store::check_glob(g).map_err(|e| e.message)?;
            }
            Ok(tr)
        });
        match checked {
            Ok(tr) => incoming.push(tr),
            Err(e) => errors.push(format!("{}: {e}", r.at)),
        }
    }
    if !errors.is_empty() {
        return Err(refused(&name, &errors));
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
