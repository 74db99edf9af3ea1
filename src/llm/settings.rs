//! The `llm` section of the configuration, resolved once into what a call needs: which provider,
//! model and endpoint, the API key (read from the environment variable the config names, never
//! from a file), the timeout, the budget and the prices.
//!
//! Nothing is configured by default: reflection is deterministic unless the *global* config
//! names a provider (a repository's config cannot, see `config::REPO_FORBIDDEN_KEYS`). The
//! original tool's top-level `provider`, `model` and `budget` keys are read as aliases; a key
//! under `llm` wins over its alias. `CASS_MEMORY_LLM=none` turns every call off.

pub use super::kind::ProviderKind;
use super::prices::Prices;
use serde::Deserialize;
use serde_json::Value;
use std::time::Duration;

/// US dollars per day and per month; a warning past `warning_threshold` percent of either.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    pub daily_limit: f64,
    pub monthly_limit: f64,
    pub warning_threshold: f64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            daily_limit: 0.10,
            monthly_limit: 2.00,
            warning_threshold: 80.0,
        }
    }
}

/// An API key. Its `Debug` never shows it, so it cannot reach a log by accident.
#[derive(Clone, PartialEq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> ApiKey {
        ApiKey(key.into())
    }
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(<hidden>)")
    }
}

/// Everything a call needs, resolved from the config and the environment.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmSettings {
    /// `None`: no LLM (the default).
    pub provider: Option<ProviderKind>,
    /// Empty when the provider has no default and none is configured.
    pub model: String,
    /// Empty when the provider has no default and none is configured.
    pub base_url: String,
    /// The variables the key is read from (for the message when none is set).
    pub api_key_envs: Vec<String>,
    pub api_key: Option<ApiKey>,
    pub timeout: Duration,
    pub budget: Budget,
    /// `llm.prices`, overriding the built-in price of the model.
    pub prices: Option<Prices>,
    /// `CASS_MEMORY_LLM=none` or `llm.provider: "none"`.
    pub disabled: bool,
}

const DEFAULT_TIMEOUT_SECS: f64 = 60.0;

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct Section {
    provider: Option<String>,
    model: Option<String>,
    base_url: Option<String>,
    api_key_env: Option<String>,
    timeout_secs: Option<f64>,
    budget: BudgetSection,
    prices: Option<Prices>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct BudgetSection {
    daily_limit: Option<f64>,
    monthly_limit: Option<f64>,
    warning_threshold: Option<f64>,
}

impl LlmSettings {
    /// The settings of the merged configuration, with the key and `CASS_MEMORY_LLM` from the
    /// process environment.
    pub fn from_loaded(loaded: &crate::config::Loaded) -> LlmSettings {
        Self::from_config(&loaded.raw, &|name| std::env::var(name).ok())
    }

    /// The settings of a merged config value, reading variables through `env`.
    pub fn from_config(raw: &Value, env: &dyn Fn(&str) -> Option<String>) -> LlmSettings {
        let section = resolve_section(raw);
        let provider = section
            .provider
            .as_deref()
            .and_then(ProviderKind::parse)
            .flatten();
        let off_by_config = section.provider.as_deref() == Some("none");
        let off_by_env = env("CASS_MEMORY_LLM")
            .is_some_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "none" | "off"));
        let defaults = Budget::default();
        let budget = Budget {
            daily_limit: section.budget.daily_limit.unwrap_or(defaults.daily_limit),
            monthly_limit: section
                .budget
                .monthly_limit
                .unwrap_or(defaults.monthly_limit),
            warning_threshold: section
                .budget
                .warning_threshold
                .unwrap_or(defaults.warning_threshold),
        };
        let api_key_envs: Vec<String> = match (&section.api_key_env, provider) {
            (Some(name), _) => vec![name.clone()],
            (None, Some(p)) => p.default_key_envs().iter().map(|s| s.to_string()).collect(),
            (None, None) => Vec::new(),
        };
        let api_key = api_key_envs
            .iter()
            .filter_map(|name| env(name))
            .map(|v| v.trim().to_string())
            .find(|v| !v.is_empty())
            .map(ApiKey);
        let model = section
            .model
            .or_else(|| provider.and_then(|p| p.default_model()).map(str::to_string))
            .unwrap_or_default();
        let base_url = section
            .base_url
            .or_else(|| {
                provider
                    .and_then(|p| p.default_base_url())
                    .map(str::to_string)
            })
            .unwrap_or_default()
            .trim_end_matches('/')
            .to_string();
        LlmSettings {
            provider,
            model,
            base_url,
            api_key_envs,
            api_key,
            timeout: Duration::from_secs_f64(
                section
                    .timeout_secs
                    .unwrap_or(DEFAULT_TIMEOUT_SECS)
                    .clamp(0.05, 3600.0),
            ),
            budget,
            prices: section.prices,
            disabled: off_by_config || off_by_env,
        }
    }

    /// Whether the provider needs a key before anything is sent.
    pub fn needs_key(&self) -> bool {
        !self.api_key_envs.is_empty()
    }
}

/// The `llm` section with the top-level aliases under it (`llm.*` wins key by key). `llm: null`
/// is off, whatever the aliases say. Without an `llm` object no LLM is used at all: the original
/// tool's configuration names a provider by default, and a config copied from it (with that
/// provider's key in the environment, as most of its users have) must not start spending.
fn resolve_section(raw: &Value) -> Section {
    match raw.get("llm") {
        Some(Value::Object(_)) => {}
        Some(Value::Null) => {
            return Section {
                provider: Some("none".into()),
                ..Section::default()
            };
        }
        _ => return Section::default(),
    }
    let mut merged = serde_json::Map::new();
    for alias in ["provider", "model"] {
        if let Some(v) = raw.get(alias).filter(|v| !v.is_null()) {
            merged.insert(alias.into(), v.clone());
        }
    }
    if let Some(b) = raw.get("budget").filter(|b| b.is_object()) {
        merged.insert("budget".into(), b.clone());
    }
    if let Some(Value::Object(llm)) = raw.get("llm") {
        for (k, v) in llm {
            match (k.as_str(), merged.get_mut("budget"), v) {
                ("budget", Some(Value::Object(old)), Value::Object(new)) => {
                    for (bk, bv) in new {
                        old.insert(bk.clone(), bv.clone());
                    }
                }
                _ => {
                    merged.insert(k.clone(), v.clone());
                }
            }
        }
    }
    // The schema has checked every value's type; a value that still does not fit leaves the
    // LLM off rather than failing the command that asked.
    serde_json::from_value(Value::Object(merged)).unwrap_or_else(|_| Section {
        provider: Some("none".into()),
        ..Section::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn nothing_is_configured_by_default() {
        let s = LlmSettings::from_config(&json!({}), &no_env);
        assert_eq!(s.provider, None);
        assert!(!s.disabled);
        assert_eq!(s.budget, Budget::default());
        assert_eq!((s.budget.daily_limit, s.budget.monthly_limit), (0.10, 2.00));
    }

    #[test]
    fn provider_defaults_and_the_key_from_the_environment() {
        let env = |n: &str| (n == "ANTHROPIC_API_KEY").then(|| " sk-ant-test \n".to_string());
        let s = LlmSettings::from_config(&json!({"llm": {"provider": "anthropic"}}), &env);
        assert_eq!(s.provider, Some(ProviderKind::Anthropic));
        assert_eq!(s.model, "claude-sonnet-4-20250514");
        assert_eq!(s.base_url, "https://api.anthropic.com");
        assert_eq!(s.api_key, Some(ApiKey::new("sk-ant-test")));
        assert!(
            !format!("{s:?}").contains("sk-ant-test"),
            "Debug hides the key"
        );
        let gemini = |n: &str| (n == "GEMINI_API_KEY").then(|| "g-key".to_string());
        let s = LlmSettings::from_config(&json!({"llm": {"provider": "google"}}), &gemini);
        assert_eq!(s.provider, Some(ProviderKind::Gemini));
        assert_eq!(s.api_key, Some(ApiKey::new("g-key")));
        let s = LlmSettings::from_config(
            &json!({"llm": {"provider": "openai", "apiKeyEnv": "MY_KEY"}}),
            &no_env,
        );
        assert_eq!(s.api_key_envs, ["MY_KEY"]);
        assert_eq!(s.api_key, None);
    }

    #[test]
    fn top_level_aliases_and_llm_wins() {
        let raw = json!({
            "provider": "openai", "model": "gpt-4o", "budget": {"dailyLimit": 0.5, "monthlyLimit": 5},
            "llm": {"model": "gpt-4o-mini", "budget": {"dailyLimit": 0.2}, "baseUrl": "http://127.0.0.1:9/v1/"}
        });
        let s = LlmSettings::from_config(&raw, &no_env);
        assert_eq!(s.provider, Some(ProviderKind::OpenAi));
        assert_eq!(s.model, "gpt-4o-mini");
        assert_eq!(s.base_url, "http://127.0.0.1:9/v1");
        assert_eq!(s.budget.daily_limit, 0.2);
        assert_eq!(s.budget.monthly_limit, 5.0);
    }

    #[test]
    fn off_switches() {
        let on = json!({"llm": {"provider": "ollama"}});
        let env = |n: &str| (n == "CASS_MEMORY_LLM").then(|| "None".to_string());
        assert!(LlmSettings::from_config(&on, &env).disabled);
        assert!(!LlmSettings::from_config(&on, &no_env).disabled);
        let off = json!({"provider": "anthropic", "llm": null});
        let s = LlmSettings::from_config(&off, &no_env);
        assert!(s.disabled);
        assert_eq!(s.provider, None);
        // The original tool's top-level provider alone turns nothing on.
        let key = |n: &str| (n == "ANTHROPIC_API_KEY").then(|| "sk-ant-x".to_string());
        let copied = json!({"provider": "anthropic", "model": "claude-sonnet-4-20250514", "budget": {"dailyLimit": 0.1}});
        let s = LlmSettings::from_config(&copied, &key);
        assert_eq!(s.provider, None);
        assert!(!s.disabled, "not configured, rather than switched off");
        assert!(LlmSettings::from_config(&json!({"llm": {"provider": "none"}}), &no_env).disabled);
    }
}
