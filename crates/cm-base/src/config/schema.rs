//! Every configuration key cm knows, with its type and range, so a config file is checked before
//! anything uses it: a value of the wrong type or out of range is an error naming the file and
//! the key's path (exit 2), an unknown key is a warning with the closest known key.
//!
//! The keys of [`super::Config`] are checked against this table by a test; sections read by
//! other modules (`guard`, `history`, `remoteCass`, `embeddingProvider`, `llm`) are listed here
//! with the module that owns them, and their entries' inner shape is left to that module.

use serde_json::Value;

/// What kind of value a configuration key takes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// `true` or `false`.
    Bool,
    /// A number in `min..=max`; `above` makes the minimum exclusive.
    Number {
        /// The smallest value allowed.
        min: f64,
        /// The largest value allowed.
        max: f64,
        /// The value must be above `min`, not equal to it.
        above: bool,
    },
    /// A whole number in `min..=max`.
    Integer {
        /// The smallest value allowed.
        min: i64,
        /// The largest value allowed.
        max: i64,
    },
    /// Any string.
    Text,
    /// A string that must be one of these words.
    OneOf(&'static [&'static str]),
    /// A list of strings.
    TextList,
    /// A list whose entries the owning module checks.
    List,
    /// An object whose keys are listed under its path (`guard.allow` is a `List`, not this).
    Section,
    /// A section that may also be `null` (turned off).
    OptionalSection,
    /// Known from the command reference, not used by cm: accepted without a look inside.
    Unused,
}

use Kind::*;

const fn num(min: f64, max: f64) -> Kind {
    Number {
        min,
        max,
        above: false,
    }
}
const fn int(min: i64, max: i64) -> Kind {
    Integer { min, max }
}
const DAYS: i64 = 36_500;
/// US dollars: a limit or a price per million tokens.
const USD: Kind = num(0.0, 1_000_000.0);
/// The LLM providers `llm.provider` names (`google` is the original tool's name for `gemini`,
/// `none` turns the LLM off).
pub(crate) const LLM_PROVIDERS: &[&str] = &[
    "anthropic",
    "openai",
    "gemini",
    "google",
    "ollama",
    "openai-compatible",
    "none",
];

/// Every key path and its kind.
pub const KEYS: &[(&str, Kind)] = &[
    ("$schema", Text),
    ("scoring", Section),
    (
        "scoring.decayHalfLifeDays",
        Number {
            min: 0.0,
            max: DAYS as f64,
            above: true,
        },
    ),
    ("scoring.harmfulMultiplier", num(0.0, 1000.0)),
    ("scoring.minFeedbackForActive", int(1, 1_000_000)),
    ("scoring.minHelpfulForProven", int(1, 1_000_000)),
    ("scoring.maxHarmfulRatioForProven", num(0.0, 1.0)),
    ("maxBulletsInContext", int(1, 10_000)),
    ("maxHistoryInContext", int(0, 10_000)),
    ("sessionLookbackDays", int(0, DAYS)),
    ("minRelevanceScore", num(0.0, 1.0)),
    ("staleDays", int(1, DAYS)),
    ("minScore", num(0.0, 1_000_000.0)),
    ("semanticSearchEnabled", Bool),
    ("semanticWeight", num(0.0, 1.0)),
    (
        "dedupSimilarityThreshold",
        Number {
            min: 0.0,
            max: 1.0,
            above: true,
        },
    ),
    ("customCategories", TextList),
    // Owned by src/guard/policy_file.rs and src/hooks/precommit.rs.
    ("guard", Section),
    ("guard.disabledPacks", TextList),
    ("guard.enabledPacks", TextList),
    ("guard.allow", List),
    ("guard.failClosed", Bool),
    ("guard.protectedPaths", TextList),
    ("guard.allowSecrets", TextList),
    // Owned by src/episodic/index/prepare.rs (Limits).
    ("history", Section),
    ("history.redact", Bool),
    ("history.toolOutputHeadBytes", int(0, 1 << 30)),
    ("history.toolOutputTailBytes", int(0, 1 << 30)),
    ("history.textMaxBytes", int(0, 1 << 30)),
    ("history.associations", Bool),
    // Owned by src/context/concepts (Settings).
    ("context", Section),
    ("context.concepts", Bool),
    // Owned by src/episodic/remote.rs.
    ("remoteCass", Section),
    ("remoteCass.enabled", Bool),
    ("remoteCass.hosts", List),
    ("remoteCass.timeoutSeconds", int(1, 3600)),
    ("remoteCass.command", Text),
    // Owned by src/context/semantic/provider.rs.
    ("embeddingProvider", OptionalSection),
    ("embeddingProvider.kind", Text),
    ("embeddingProvider.url", Text),
    ("embeddingProvider.model", Text),
    ("embeddingProvider.apiKeyEnv", Text),
    (
        "embeddingProvider.timeoutSecs",
        Number {
            min: 0.0,
            max: 3600.0,
            above: true,
        },
    ),
    // Owned by src/llm/settings.rs. Only the global config may set them (config::REPO_FORBIDDEN_KEYS).
    ("llm", OptionalSection),
    ("llm.provider", OneOf(LLM_PROVIDERS)),
    ("llm.model", Text),
    ("llm.baseUrl", Text),
    ("llm.apiKeyEnv", Text),
    (
        "llm.timeoutSecs",
        Number {
            min: 0.0,
            max: 3600.0,
            above: true,
        },
    ),
    ("llm.budget", Section),
    ("llm.budget.dailyLimit", USD),
    ("llm.budget.monthlyLimit", USD),
    ("llm.budget.warningThreshold", num(0.0, 100.0)),
    ("llm.prices", Section),
    ("llm.prices.inputPerMillion", USD),
    ("llm.prices.outputPerMillion", USD),
    // The original tool's top-level LLM keys, read as aliases of `llm.*` (which wins).
    ("provider", OneOf(LLM_PROVIDERS)),
    ("model", Text),
    ("budget", Section),
    ("budget.dailyLimit", USD),
    ("budget.monthlyLimit", USD),
    ("budget.warningThreshold", num(0.0, 100.0)),
    // Keys of the original tool's configuration that cm does not use.
    ("embeddingModel", Unused),
    ("crossAgent", Unused),
    ("cassPath", Unused),
    ("playbookPath", Unused),
    ("diaryDir", Unused),
    ("dataDir", Unused),
    ("privacy", Unused),
    ("redaction", Unused),
];

/// The kind of the key at `path` (`scoring.harmfulMultiplier`), if cm knows it.
pub fn kind_of(path: &str) -> Option<Kind> {
    KEYS.iter().find(|(p, _)| *p == path).map(|(_, k)| *k)
}

/// A value that breaks the schema: the key's path and what is wrong with it.
#[derive(Debug, Clone, PartialEq)]
pub struct Invalid {
    /// The key's dotted path (`scoring.harmfulMultiplier`).
    pub path: String,
    /// What is wrong with the value, for a human.
    pub problem: String,
}

/// Check one config file's value. Returns the unknown keys (as warnings) or the first invalid
/// value.
pub fn check(root: &Value) -> Result<Vec<String>, Invalid> {
    let mut warnings = Vec::new();
    if let Value::Object(map) = root {
        walk("", map, &mut warnings)?;
    }
    Ok(warnings)
}

fn walk(
    prefix: &str,
    map: &serde_json::Map<String, Value>,
    warnings: &mut Vec<String>,
) -> Result<(), Invalid> {
    for (key, value) in map {
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        let Some(kind) = kind_of(&path) else {
            let hint = closest(prefix, key)
                .map(|k| format!(" (did you mean \"{k}\"?)"))
                .unwrap_or_default();
            warnings.push(format!("unknown key \"{path}\" is ignored{hint}"));
            continue;
        };
        let bad = |problem: String| Invalid {
            path: path.clone(),
            problem,
        };
        match (kind, value) {
            (Unused, _) => {}
            (OptionalSection, Value::Null) => {}
            (Section | OptionalSection, Value::Object(inner)) => walk(&path, inner, warnings)?,
            (Section | OptionalSection, v) => return Err(bad(format!("{v} is not an object"))),
            (Bool, Value::Bool(_)) => {}
            (Bool, v) => return Err(bad(format!("{v} is not true or false"))),
            (Text, Value::String(_)) => {}
            (Text, v) => return Err(bad(format!("{v} is not a string"))),
            (OneOf(words), Value::String(s)) if words.contains(&s.as_str()) => {}
            (OneOf(words), v) => {
                return Err(bad(format!("{v} is not one of {}", words.join(", "))));
            }
            (TextList, Value::Array(items)) if items.iter().all(Value::is_string) => {}
            (TextList, v) => return Err(bad(format!("{v} is not a list of strings"))),
            (List, Value::Array(_)) => {}
            (List, v) => return Err(bad(format!("{v} is not a list"))),
            (Number { min, max, above }, v) => {
                let Some(x) = v.as_f64() else {
                    return Err(bad(format!("{v} is not a number")));
                };
                let low = if above { x <= min } else { x < min };
                if low || x > max {
                    let from = if above { "above" } else { "at least" };
                    return Err(bad(format!(
                        "{v} is out of range: it must be {from} {min} and at most {max}"
                    )));
                }
            }
            (Integer { min, max }, v) => {
                let Some(x) = v.as_i64().or_else(|| v.as_u64().map(|_| i64::MAX)) else {
                    return Err(bad(format!("{v} is not a whole number")));
                };
                if x < min || x > max {
                    return Err(bad(format!(
                        "{v} is out of range: it must be between {min} and {max}"
                    )));
                }
            }
        }
    }
    Ok(())
}

/// The known key under `prefix` closest to `key` (a typo of it), if any is close.
fn closest(prefix: &str, key: &str) -> Option<String> {
    let depth = if prefix.is_empty() {
        0
    } else {
        prefix.matches('.').count() + 1
    };
    KEYS.iter()
        .map(|(p, _)| *p)
        .filter(|p| p.matches('.').count() == depth)
        .filter(|p| prefix.is_empty() || p.starts_with(&format!("{prefix}.")))
        .map(|p| {
            (
                distance(
                    &p.rsplit('.').next().unwrap_or(p).to_lowercase(),
                    &key.to_lowercase(),
                ),
                p,
            )
        })
        .filter(|(d, p)| *d <= 2.max(p.len() / 5))
        .min()
        .map(|(_, p)| p.to_string())
}

/// Levenshtein distance (characters).
pub fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_typed_key_is_in_the_schema() {
        fn leaves(prefix: &str, v: &Value, out: &mut Vec<String>) {
            if let Value::Object(m) = v {
                for (k, v) in m {
                    let p = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    out.push(p.clone());
                    leaves(&p, v, out);
                }
            }
        }
        let mut keys = Vec::new();
        leaves(
            "",
            &serde_json::to_value(super::super::Config::default()).unwrap(),
            &mut keys,
        );
        for k in keys {
            assert!(kind_of(&k).is_some(), "{k} is missing from the schema");
        }
        // And the defaults pass their own checks.
        let defaults = serde_json::to_value(super::super::Config::default()).unwrap();
        assert_eq!(check(&defaults), Ok(Vec::new()));
    }

    #[test]
    fn out_of_range_and_wrong_types_name_the_key() {
        let e = check(&json!({"scoring": {"harmfulMultiplier": -5}})).unwrap_err();
        assert_eq!(e.path, "scoring.harmfulMultiplier");
        assert!(e.problem.contains("out of range"), "{e:?}");
        let e = check(&json!({"maxBulletsInContext": "ten"})).unwrap_err();
        assert_eq!(e.path, "maxBulletsInContext");
        assert!(check(&json!({"dedupSimilarityThreshold": 0})).is_err());
        assert!(check(&json!({"staleDays": 1.5})).is_err());
        assert!(check(&json!({"guard": {"failClosed": "yes"}})).is_err());
        assert!(check(&json!({"embeddingProvider": null})).is_ok());
        let e = check(&json!({"llm": {"provider": "antropic"}})).unwrap_err();
        assert_eq!(e.path, "llm.provider");
        assert!(e.problem.contains("not one of anthropic, openai"), "{e:?}");
        assert!(check(&json!({"llm": {"budget": {"dailyLimit": -1}}})).is_err());
        assert!(check(&json!({"budget": {"warningThreshold": 120}})).is_err());
        assert!(check(&json!({"llm": {"timeoutSecs": 0}})).is_err());
        assert_eq!(
            check(&json!({"provider": "google", "model": "m", "budget": {"dailyLimit": 0.5}})),
            Ok(Vec::new())
        );
    }

    #[test]
    fn unknown_keys_are_warnings_with_the_closest_known_key() {
        let w = check(&json!({"scoring": {"harmfulMultipler": 2}, "maxBulletsInContxt": 5, "zzz": 1, "crossAgent": {"x": 1}})).unwrap();
        assert_eq!(w.len(), 3, "{w:?}");
        assert!(w.contains(&"unknown key \"scoring.harmfulMultipler\" is ignored (did you mean \"scoring.harmfulMultiplier\"?)".to_string()), "{w:?}");
        assert!(
            w.iter()
                .any(|x| x.contains("did you mean \"maxBulletsInContext\"")),
            "{w:?}"
        );
        assert!(
            w.iter().any(|x| x == "unknown key \"zzz\" is ignored"),
            "{w:?}"
        );
    }
}
