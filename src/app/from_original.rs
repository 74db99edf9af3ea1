//! Moving over from the original tool in one command (`cm import --from-original`), and finding
//! its store at all (`cm doctor`, `cm init`).
//!
//! The original keeps `playbook.yaml`, a `diary/` of one JSON file per session and
//! `config.json` in `~/.cass-memory`, which may be our own data directory too. So its files are
//! recognised by their format, not their place: a `playbook.yaml` that reads as a playbook
//! document, diary files that read as its diary entries. cm never writes either.
//!
//! The import brings rules with every feedback event (see `memory::original_doc`), diary
//! entries, and the configuration keys cm reads; it names what it cannot map. It is
//! idempotent: a rule already here (by id or text) and a session with a diary entry are
//! skipped, and a configuration key cm's own file already sets keeps cm's value, so a second
//! run changes nothing.

use super::import_rules::{self, Skipped};
use crate::config::{Config, schema};
use crate::error::{CmError, Result};
use crate::memory::formats::{self, Format};
use crate::memory::original_doc::Unmapped;
use crate::reflect::diary::{DiaryEntry, RelatedSession, Status};
use crate::store::Store;
use serde::Serialize;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

const PLAYBOOK: &str = "playbook.yaml";
const DIARY: &str = "diary";
const CONFIG: &str = "config.json";
const CAP: u64 = 64 << 20;

/// The original's directory: `~/.cass-memory`.
pub fn original_dir() -> PathBuf {
    crate::paths::home_dir().join(".cass-memory")
}

/// The original's files found in its directory.
#[derive(Debug, Clone)]
pub struct Found {
    pub dir: PathBuf,
    /// `playbook.yaml`, read: its text.
    pub playbook: Option<(PathBuf, String)>,
    /// Its diary entries, each file's path and value.
    pub diary: Vec<(PathBuf, Value)>,
    /// Diary files that do not read as entries.
    pub unreadable: Vec<String>,
    /// `config.json`, when it is not cm's own file.
    pub config: Option<(PathBuf, Value)>,
}

/// The original's store in `dir`, recognised by its files' format. `None` when it holds
/// neither a playbook nor a diary of the original's.
pub fn detect(dir: &Path) -> Option<Found> {
    let playbook = read(&dir.join(PLAYBOOK)).filter(|t| looks_like_playbook(t));
    let mut diary = Vec::new();
    let mut unreadable = Vec::new();
    if let Ok(list) = std::fs::read_dir(dir.join(DIARY)) {
        let mut paths: Vec<PathBuf> = list
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        paths.sort();
        for p in paths {
            match read(&p).and_then(|t| serde_json::from_str::<Value>(&t).ok()) {
                Some(v) if looks_like_entry(&v) => diary.push((p, v)),
                _ => unreadable.push(p.display().to_string()),
            }
        }
    }
    if playbook.is_none() && diary.is_empty() {
        return None;
    }
    let ours = crate::paths::global_config_path();
    let config_path = dir.join(CONFIG);
    let config = (!same_file(&config_path, &ours))
        .then(|| read(&config_path).and_then(|t| serde_json::from_str::<Value>(&t).ok()))
        .flatten()
        .filter(Value::is_object)
        .map(|v| (config_path, v));
    Some(Found {
        dir: dir.to_path_buf(),
        playbook: playbook.map(|t| (dir.join(PLAYBOOK), t)),
        diary,
        unreadable,
        config,
    })
}

fn read(path: &Path) -> Option<String> {
    crate::untrusted::read_text(path, CAP).ok().flatten()
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

fn looks_like_playbook(text: &str) -> bool {
    serde_norway::from_str::<Value>(text)
        .ok()
        .and_then(|v| v.as_object().map(|m| m.contains_key("bullets")))
        .unwrap_or(false)
}

fn looks_like_entry(v: &Value) -> bool {
    v.get("sessionPath").is_some_and(Value::is_string)
        && ["accomplishments", "decisions", "challenges", "keyLearnings"]
            .iter()
            .any(|k| v.get(k).is_some_and(Value::is_array))
}

/// What an import did (or, dry, would do).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    pub from: String,
    pub dry_run: bool,
    pub rules: Rules,
    pub diary: Diary,
    pub config: ConfigOutcome,
    pub unknown_fields: Vec<Unmapped>,
    /// Whether anything was (or would be) added.
    pub changed: bool,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rules {
    pub found: usize,
    pub added: usize,
    pub feedback_events: usize,
    pub deprecated_patterns: usize,
    pub skipped: Vec<Skipped>,
    pub warnings: Vec<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diary {
    pub found: usize,
    pub added: usize,
    pub skipped: usize,
    pub unreadable: Vec<String>,
}

#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigOutcome {
    pub file: Option<String>,
    /// Keys brought into cm's config.
    pub mapped: Vec<String>,
    /// Keys cm's config already sets: cm's value kept.
    pub kept: Vec<String>,
    /// Keys cm has no use for, and why.
    pub unmapped: Vec<KeyNote>,
    pub written: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct KeyNote {
    pub key: String,
    pub why: &'static str,
}

/// Bring the original's store over into `store` (and cm's config), or with `dry_run` say what
/// that would do.
pub fn import(store: &Store, found: &Found, cfg: &Config, dry_run: bool) -> Result<Outcome> {
    let (bullets, patterns, unknown, warnings) = match &found.playbook {
        Some((path, text)) => read_rules(path, text, cfg)?,
        None => (Vec::new(), 0, Vec::new(), Vec::new()),
    };
    let (added, skipped) = if dry_run {
        import_rules::preview(store, &bullets, false)?
    } else {
        import_rules::import(store, &bullets, None)?
    };
    let skipped_ids: Vec<&str> = skipped.iter().map(|s| s.id.as_str()).collect();
    let feedback_events = bullets
        .iter()
        .filter(|r| !skipped_ids.contains(&r.bullet.id.as_str()))
        .map(|r| r.bullet.feedback_events.len())
        .sum();
    let (entries, mut diary_unmapped) = diary_entries(&found.diary);
    let diary = save_diary(store, &entries, dry_run)?;
    let mut unknown_fields = unknown;
    unknown_fields.append(&mut diary_unmapped);
    let config = match &found.config {
        Some((path, v)) => merge_config(path, v, dry_run)?,
        None => ConfigOutcome::default(),
    };
    let changed = added > 0 || diary.added > 0 || !config.mapped.is_empty();
    Ok(Outcome {
        from: found.dir.display().to_string(),
        dry_run,
        rules: Rules {
            found: bullets.len(),
            added,
            feedback_events,
            deprecated_patterns: patterns,
            skipped,
            warnings,
        },
        diary: Diary {
            unreadable: found.unreadable.clone(),
            ..diary
        },
        config,
        unknown_fields,
        changed,
    })
}

type ReadRules = (
    Vec<import_rules::Imported>,
    usize,
    Vec<Unmapped>,
    Vec<String>,
);

fn read_rules(path: &Path, text: &str, cfg: &Config) -> Result<ReadRules> {
    let name = path.display().to_string();
    let doc = formats::parse_document(text, Format::Yaml).map_err(|msg| {
        CmError::usage("INVALID_IMPORT", format!("{name}: {msg}"))
            .hint("nothing was imported; fix the file (or move it aside) and retry")
    })?;
    let (bullets, warnings) = import_rules::clean(&name, doc.bullets, cfg)?;
    Ok((bullets, doc.deprecated_patterns, doc.unmapped, warnings))
}

const ENTRY_FIELDS: &[&str] = &[
    "id",
    "sessionPath",
    "timestamp",
    "agent",
    "workspace",
    "status",
    "accomplishments",
    "decisions",
    "challenges",
    "keyLearnings",
    "preferences",
    "relatedSessions",
    "tags",
];

/// The original's diary entries as ours, with the fields that have no place named.
fn diary_entries(files: &[(PathBuf, Value)]) -> (Vec<DiaryEntry>, Vec<Unmapped>) {
    let mut notes: std::collections::BTreeMap<String, (usize, String)> = Default::default();
    let mut out = Vec::new();
    for (path, v) in files {
        let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        let list = |k: &str| -> Vec<String> {
            v.get(k)
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default()
        };
        let session_path = text("sessionPath").unwrap_or_default();
        let id = text("id").unwrap_or_else(|| stem(path));
        let session_id = stem(Path::new(&session_path));
        if let Some(m) = v.as_object() {
            for k in m.keys().filter(|k| !ENTRY_FIELDS.contains(&k.as_str())) {
                let e = notes.entry(format!("diary.{k}")).or_insert((0, id.clone()));
                e.0 += 1;
            }
        }
        let related = v
            .get("relatedSessions")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|r| RelatedSession {
                        agent: r["agent"].as_str().unwrap_or("unknown").to_string(),
                        session_id: stem(Path::new(r["sessionPath"].as_str().unwrap_or(""))),
                        why: r["snippet"].as_str().unwrap_or_default().to_string(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let status = match text("status").as_deref() {
            Some("success") => Status::Success,
            Some("failure") => Status::Failure,
            _ => Status::Mixed,
        };
        out.push(DiaryEntry {
            id,
            session_path: (!session_path.is_empty()).then_some(session_path),
            session_id,
            agent: text("agent").unwrap_or_else(|| "unknown".into()),
            timestamp: text("timestamp").unwrap_or_default(),
            workspace: text("workspace"),
            repository: None,
            git_branch: None,
            status,
            accomplishments: list("accomplishments"),
            decisions: list("decisions"),
            challenges: list("challenges"),
            key_learnings: list("keyLearnings"),
            preferences: list("preferences"),
            files_touched: Vec::new(),
            failed_commands: Vec::new(),
            related_sessions: related,
            rules_used: Vec::new(),
            tags: list("tags"),
            corrections: Vec::new(),
        });
    }
    let unmapped = notes
        .into_iter()
        .map(|(field, (count, first))| Unmapped {
            field,
            count,
            first,
            why: "no place in cm",
        })
        .collect();
    (out, unmapped)
}

fn stem(p: &Path) -> String {
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn save_diary(store: &Store, entries: &[DiaryEntry], dry_run: bool) -> Result<Diary> {
    let (added, skipped) = store.write(|tx| {
        let (mut added, mut skipped) = (0, 0);
        for e in entries {
            if crate::reflect::tables::has_entry(tx, &e.id, &e.agent, &e.session_id)? {
                skipped += 1;
                continue;
            }
            if !dry_run {
                crate::reflect::tables::save_entry(tx, e)?;
            }
            added += 1;
        }
        Ok((added, skipped))
    })?;
    Ok(Diary {
        found: entries.len(),
        added,
        skipped,
        unreadable: Vec::new(),
    })
}

/// The original's configuration keys cm reads, added to cm's global config where it does not
/// set them already; the rest named.
fn merge_config(path: &Path, original: &Value, dry_run: bool) -> Result<ConfigOutcome> {
    let ours_path = crate::paths::global_config_path();
    let mut ours = crate::config::read_json_file(&ours_path)?.unwrap_or(Value::Object(Map::new()));
    let mut out = ConfigOutcome {
        file: Some(path.display().to_string()),
        ..ConfigOutcome::default()
    };
    let mut leaves = Vec::new();
    flatten("", original, &mut leaves);
    for (key, value) in leaves {
        match schema::kind_of(&key).or_else(|| parent_kind(&key)) {
            None => out.unmapped.push(KeyNote {
                key,
                why: "unknown to cm",
            }),
            Some(schema::Kind::Unused) => out.unmapped.push(KeyNote {
                key,
                why: "cm does not use it",
            }),
            Some(_) => {
                if pointer(&ours, &key).is_some() {
                    out.kept.push(key);
                } else {
                    set(&mut ours, &key, value.clone());
                    out.mapped.push(key);
                }
            }
        }
    }
    if !out.mapped.is_empty() {
        schema::check(&ours).map_err(|e| {
            CmError::config(
                "CONFIG_INVALID",
                format!("{}: {}: {}", path.display(), e.path, e.problem),
            )
            .hint("fix that key in the original's config.json (or remove it) and retry; nothing was imported")
        })?;
        if !dry_run {
            let mut text = serde_json::to_string_pretty(&ours)
                .map_err(|e| CmError::internal(e.to_string()))?;
            text.push('\n');
            crate::fsutil::write_atomic(&ours_path, text.as_bytes())?;
            out.written = true;
        }
    }
    Ok(out)
}

/// A key under a section whose entries another module checks (`remoteCass.hosts.0`) counts as
/// that section's.
fn parent_kind(key: &str) -> Option<schema::Kind> {
    let mut k = key;
    while let Some((parent, _)) = k.rsplit_once('.') {
        if let Some(kind) = schema::kind_of(parent) {
            return Some(kind);
        }
        k = parent;
    }
    None
}

/// Every leaf (or list, or section the schema treats as one value) of `v` with its dotted path.
fn flatten(prefix: &str, v: &Value, out: &mut Vec<(String, Value)>) {
    match v {
        Value::Object(m)
            if prefix.is_empty()
                || matches!(
                    schema::kind_of(prefix),
                    Some(schema::Kind::Section | schema::Kind::OptionalSection)
                ) =>
        {
            for (k, v) in m {
                let path = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&path, v, out);
            }
        }
        _ => out.push((prefix.to_string(), v.clone())),
    }
}

fn pointer<'v>(v: &'v Value, key: &str) -> Option<&'v Value> {
    v.pointer(&format!("/{}", key.replace('.', "/")))
}

fn set(v: &mut Value, key: &str, value: Value) {
    let mut at = v;
    let parts: Vec<&str> = key.split('.').collect();
    for p in &parts[..parts.len() - 1] {
        let Value::Object(m) = at else { return };
        at = m
            .entry(p.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
    }
    if let Value::Object(m) = at {
        m.insert(parts[parts.len() - 1].to_string(), value);
    }
}

/// The original's store, when there is one, with what importing it would change (a dry run
/// against `store`; `None` for the outcome when cm has no store yet).
pub fn pending(store: Option<&Store>, cfg: &Config) -> Option<(Found, Option<Outcome>)> {
    let found = detect(&original_dir())?;
    let outcome = store.and_then(|s| import(s, &found, cfg, true).ok());
    Some((found, outcome))
}

impl Found {
    /// "12 rule(s) and 3 diary entr(ies)".
    pub fn describe(&self) -> String {
        let rules = self
            .playbook
            .as_ref()
            .and_then(|(_, t)| formats::parse(t, Format::Yaml).ok())
            .map_or(0, |b| b.len());
        format!("{rules} rule(s) and {} diary entr(ies)", self.diary.len())
    }
}
