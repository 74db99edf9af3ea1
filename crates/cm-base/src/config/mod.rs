//! Configuration: defaults < global `<data dir>/config.json` < repo `.cass/config.json` < flags.
//!
//! Keys follow the original cass-memory names (camelCase, `scoring.*`). Each area of the program
//! may read its own section through [`Config::section`] so adding a feature never means editing
//! this file. A repository's file is untrusted: it cannot move where data is stored or change a
//! privacy consent, and such keys are dropped with a warning. A malformed file is an error that
//! names the file and the position (exit 2); it is never rewritten. Every value is checked
//! against [`schema`] (type and range, exit 2 naming the key's path); an unknown key is a
//! warning that names the closest known one.

mod merge;
pub mod schema;

use crate::error::{CmError, Result};
use crate::paths;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Keys a repository config may not set: storage locations and consent-like settings (anything
/// that would send or keep data somewhere the user did not choose, or spend the user's money:
/// a cloned repository cannot turn an LLM on or raise its budget).
pub const REPO_FORBIDDEN_KEYS: &[&str] = &[
    "dataDir",
    "cassPath",
    "playbookPath",
    "diaryDir",
    "crossAgent",
    "remoteCass",
    "privacy",
    "redaction",
    "embeddingProvider",
    "llm",
    "provider",
    "model",
    "budget",
];

/// How feedback becomes a rule's score and maturity (`scoring` in config.json).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", default)]
pub struct Scoring {
    /// Days after which a feedback event counts half (90).
    pub decay_half_life_days: f64,
    /// How much more a harmful mark weighs than a helpful one (4).
    pub harmful_multiplier: f64,
    /// Feedback events before a candidate rule becomes established.
    pub min_feedback_for_active: u32,
    /// Helpful marks before an established rule can become proven.
    pub min_helpful_for_proven: u32,
    /// The largest harmful share a proven rule may have.
    pub max_harmful_ratio_for_proven: f64,
}

impl Default for Scoring {
    fn default() -> Self {
        Scoring {
            decay_half_life_days: 90.0,
            harmful_multiplier: 4.0,
            min_feedback_for_active: 3,
            min_helpful_for_proven: 10,
            max_harmful_ratio_for_proven: 0.1,
        }
    }
}

/// The typed part of the configuration (defaults, then the global file, then the repository's).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", default)]
pub struct Config {
    /// Scoring and maturity thresholds.
    pub scoring: Scoring,
    /// Most rules `cm context` returns.
    pub max_bullets_in_context: usize,
    /// Most history snippets `cm context` returns.
    pub max_history_in_context: usize,
    /// How far back (days) reflection looks for sessions by default.
    pub session_lookback_days: u32,
    /// Rules scoring below this for a task are left out of context.
    pub min_relevance_score: f64,
    /// Days without feedback after which a rule counts as stale.
    pub stale_days: u32,
    /// Rules whose effective score falls below this are reported by `cm stale --project`.
    pub min_score: f64,
    /// Whether an embedding endpoint adds semantic similarity to ranking.
    pub semantic_search_enabled: bool,
    /// The share of semantic similarity in a blended rank (0..1).
    pub semantic_weight: f64,
    /// Similarity above which two rules count as the same lesson.
    pub dedup_similarity_threshold: f64,
    /// Categories accepted in addition to the built-in ones.
    pub custom_categories: Vec<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            scoring: Scoring::default(),
            max_bullets_in_context: 50,
            max_history_in_context: 10,
            session_lookback_days: 7,
            min_relevance_score: 0.1,
            stale_days: 90,
            min_score: 0.1,
            semantic_search_enabled: false,
            semantic_weight: 0.6,
            dedup_similarity_threshold: 0.85,
            custom_categories: Vec::new(),
        }
    }
}

/// The merged configuration plus where it came from.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The typed configuration.
    pub config: Config,
    /// The merged JSON (defaults, global, repo) for sections owned by other modules.
    pub raw: Value,
    /// Where the global file is (it may not exist).
    pub global_path: PathBuf,
    /// The repository's `.cass/config.*`, when there is one.
    pub repo_path: Option<PathBuf>,
    /// Problems found while loading (unknown keys, bad values), for `cm doctor` and stderr.
    pub warnings: Vec<String>,
}

impl Loaded {
    /// Deserialize one top-level section (e.g. `"guard"`), defaulting when absent.
    pub fn section<T: DeserializeOwned + Default>(&self, key: &str) -> Result<T> {
        match self.raw.get(key) {
            None | Some(Value::Null) => Ok(T::default()),
            Some(v) => serde_json::from_value(v.clone()).map_err(|e| {
                CmError::config(
                    "CONFIG_INVALID",
                    format!("invalid \"{key}\" section in configuration: {e}"),
                )
                .hint(format!("fix \"{key}\" in {}", self.global_path.display()))
            }),
        }
    }
}

/// Load the configuration that applies in `cwd`. Warnings are printed to stderr once here.
pub fn load(cwd: &Path) -> Result<Loaded> {
    let loaded = load_quiet(cwd)?;
    for w in &loaded.warnings {
        eprintln!("cm: warning: {w}");
    }
    Ok(loaded)
}

/// Like [`load`] but leaves the warnings to the caller.
pub fn load_quiet(cwd: &Path) -> Result<Loaded> {
    let global_path = paths::global_config_path();
    let mut merged = serde_json::to_value(Config::default()).expect("defaults serialize");
    let mut warnings = Vec::new();

    if let Some(global) = read_json_file(&global_path)? {
        validate(&global, &global_path, &mut warnings)?;
        merge::deep_merge(&mut merged, global);
    }

    let repo_path = repo_config(cwd, &mut warnings);
    if let Some(path) = &repo_path
        && let Some(mut repo) = read_json_file(path)?
    {
        if let Value::Object(map) = &mut repo {
            for key in REPO_FORBIDDEN_KEYS {
                if map.remove(*key).is_some() {
                    warnings.push(format!(
                            "{}: ignoring \"{key}\": a repository config cannot change where data is stored, privacy consent or LLM use",
                            path.display()
                        ));
                }
            }
        }
        validate(&repo, path, &mut warnings)?;
        merge::deep_merge(&mut merged, repo);
    }

    let config: Config = serde_json::from_value(merged.clone())
        .map_err(|e| CmError::config("CONFIG_INVALID", format!("invalid configuration: {e}")))?;
    Ok(Loaded {
        config,
        raw: merged,
        global_path,
        repo_path,
        warnings,
    })
}

/// The repository's config file: `.cass/config.json`, else `.cass/config.yaml` (or `.yml`),
/// which the original tool's users may have. With both, the YAML one is named as ignored.
fn repo_config(cwd: &Path, warnings: &mut Vec<String>) -> Option<std::path::PathBuf> {
    let dir = paths::repo_cass_dir(cwd)?;
    let json = dir.join(paths::CONFIG_FILE);
    let yaml = ["config.yaml", "config.yml"]
        .iter()
        .map(|n| dir.join(n))
        .find(|p| p.is_file());
    match (json.is_file(), yaml) {
        (true, Some(y)) => {
            warnings.push(format!(
                "{}: ignored, {} is the repository's config (merge the two into it)",
                y.display(),
                json.display()
            ));
            Some(json)
        }
        (true, None) => Some(json),
        (false, y) => y,
    }
}

/// Read a JSON config file (YAML when its name ends in `.yaml` or `.yml`). Missing is `None`; unreadable or malformed is an error naming the
/// file and, for syntax errors, the line and column.
pub fn read_json_file(path: &Path) -> Result<Option<Value>> {
    // Only a regular file, and not a huge one: a repository's `.cass/config.json` may be a FIFO
    // or a link to /dev/zero.
    let text = match crate::untrusted::read_text(path, 4 << 20) {
        Ok(Some(t)) => t,
        Ok(None) => return Ok(None),
        Err(e) => {
            let hint = match e.kind() {
                std::io::ErrorKind::FileTooLarge => {
                    "a config file holds a few settings: remove or replace this one (for a repository's, check it out again from git)"
                }
                std::io::ErrorKind::InvalidInput => {
                    "replace it with a regular JSON file, or remove it"
                }
                std::io::ErrorKind::InvalidData => "save it as UTF-8 JSON",
                _ => "check the file's permissions",
            };
            return Err(CmError::config(
                "CONFIG_UNREADABLE",
                format!("cannot read config file {}: {e}", path.display()),
            )
            .hint(hint));
        }
    };
    if text.trim().is_empty() {
        return Ok(None);
    }
    let is_yaml = path.extension().is_some_and(|e| e == "yaml" || e == "yml");
    if is_yaml {
        return read_yaml(path, &text);
    }
    let value: Value = serde_json::from_str(&text).map_err(|e| {
        CmError::config(
            "CONFIG_INVALID",
            format!(
                "malformed config file {} at line {}, column {}: {e}",
                path.display(),
                e.line(),
                e.column()
            ),
        )
        .hint("fix the JSON by hand; cm never rewrites a config file it cannot parse")
    })?;
    if !value.is_object() {
        return Err(CmError::config(
            "CONFIG_INVALID",
            format!("config file {} must hold a JSON object", path.display()),
        )
        .hint("wrap the settings in { ... }"));
    }
    Ok(Some(value))
}

fn read_yaml(path: &Path, text: &str) -> Result<Option<Value>> {
    let value: Value = serde_norway::from_str(text).map_err(|e| {
        let at = e
            .location()
            .map(|l| format!(" at line {}, column {}", l.line(), l.column()))
            .unwrap_or_default();
        CmError::config(
            "CONFIG_INVALID",
            format!("malformed config file {}{at}: {e}", path.display()),
        )
        .hint("fix the YAML by hand; cm never rewrites a config file it cannot parse")
    })?;
    match value {
        Value::Null => Ok(None),
        Value::Object(_) => Ok(Some(value)),
        _ => Err(CmError::config(
            "CONFIG_INVALID",
            format!(
                "config file {} must hold a mapping of settings",
                path.display()
            ),
        )
        .hint("write the settings as `key: value` lines")),
    }
}

/// Check one file against the schema (types, ranges: an error naming the file and the key's
/// path; unknown keys: warnings), then against the typed config.
fn validate(value: &Value, path: &Path, warnings: &mut Vec<String>) -> Result<()> {
    match schema::check(value) {
        Ok(unknown) => warnings.extend(
            unknown
                .into_iter()
                .map(|w| format!("{}: {w}", path.display())),
        ),
        Err(bad) => {
            return Err(CmError::config(
                "CONFIG_INVALID",
                format!(
                    "invalid \"{}\" in config file {}: {}",
                    bad.path,
                    path.display(),
                    bad.problem
                ),
            )
            .hint(format!(
                "fix \"{}\" in {} (README.md, section Configuration, lists every key and its range); nothing was changed",
                bad.path,
                path.display()
            )));
        }
    }
    check_types(value, path)
}

/// Check one file's values against the typed config so a wrong type names its file.
fn check_types(value: &Value, path: &Path) -> Result<()> {
    let mut probe = serde_json::to_value(Config::default()).expect("defaults serialize");
    merge::deep_merge(&mut probe, value.clone());
    serde_json::from_value::<Config>(probe)
        .map(|_| ())
        .map_err(|e| {
            CmError::config(
                "CONFIG_INVALID",
                format!("invalid value in config file {}: {e}", path.display()),
            )
            .hint("see README.md, section Configuration, for the keys and their types")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_the_documented_numbers() {
        let c = Config::default();
        assert_eq!(c.scoring.decay_half_life_days, 90.0);
        assert_eq!(c.scoring.harmful_multiplier, 4.0);
        assert_eq!(c.scoring.min_feedback_for_active, 3);
        assert_eq!(c.scoring.min_helpful_for_proven, 10);
        assert_eq!(c.scoring.max_harmful_ratio_for_proven, 0.1);
        assert_eq!(c.max_bullets_in_context, 50);
        assert_eq!(c.max_history_in_context, 10);
        assert_eq!(c.min_relevance_score, 0.1);
    }

    #[test]
    fn camel_case_keys_round_trip() {
        let v = serde_json::to_value(Config::default()).unwrap();
        assert!(v["scoring"].get("decayHalfLifeDays").is_some());
        assert!(v.get("maxBulletsInContext").is_some());
    }
}
