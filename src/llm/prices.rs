//! What a call costs: US dollars per million input and output tokens, from `llm.prices` when
//! the config sets them, else from a small built-in table for the models cm names as defaults
//! and their close relatives. Prices change: the table is a starting point, the config wins.
//!
//! A model the table does not know is charged at its provider's default model's price, so a
//! budget still means something; a local Ollama costs nothing; an OpenAI-compatible server
//! costs what `llm.prices` says (nothing when unset, as most such servers are local).

use super::settings::{LlmSettings, ProviderKind};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Prices {
    #[serde(default)]
    pub input_per_million: f64,
    #[serde(default)]
    pub output_per_million: f64,
}

/// Where a price came from, for `cm usage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PriceSource {
    Config,
    BuiltIn,
    /// The model is unknown: its provider's default model's price.
    Assumed,
    /// Local or unpriced: counted as free.
    Free,
}

impl PriceSource {
    pub fn name(self) -> &'static str {
        match self {
            PriceSource::Config => "config",
            PriceSource::BuiltIn => "built-in",
            PriceSource::Assumed => "assumed",
            PriceSource::Free => "free",
        }
    }
}

/// (model prefix, input, output): the longest matching prefix wins.
const TABLE: &[(&str, f64, f64)] = &[
    ("claude-sonnet-4", 3.0, 15.0),
    ("claude-3-7-sonnet", 3.0, 15.0),
    ("claude-3-5-sonnet", 3.0, 15.0),
    ("claude-opus-4", 15.0, 75.0),
    ("claude-haiku-4", 1.0, 5.0),
    ("claude-3-5-haiku", 0.8, 4.0),
    ("claude-3-haiku", 0.25, 1.25),
    ("gpt-4o-mini", 0.15, 0.6),
    ("gpt-4o", 2.5, 10.0),
    ("gpt-4.1-nano", 0.1, 0.4),
    ("gpt-4.1-mini", 0.4, 1.6),
    ("gpt-4.1", 2.0, 8.0),
    ("gemini-2.5-flash-lite", 0.1, 0.4),
    ("gemini-2.5-flash", 0.3, 2.5),
    ("gemini-2.5-pro", 1.25, 10.0),
    ("gemini-2.0-flash", 0.1, 0.4),
];

fn built_in(model: &str) -> Option<Prices> {
    TABLE
        .iter()
        .filter(|(prefix, _, _)| model.starts_with(prefix))
        .max_by_key(|(prefix, _, _)| prefix.len())
        .map(|&(_, input, output)| Prices {
            input_per_million: input,
            output_per_million: output,
        })
}

/// The price of the configured model and where it came from.
pub fn for_settings(settings: &LlmSettings) -> (Prices, PriceSource) {
    const FREE: Prices = Prices {
        input_per_million: 0.0,
        output_per_million: 0.0,
    };
    if let Some(p) = settings.prices {
        return (p, PriceSource::Config);
    }
    let Some(provider) = settings.provider else {
        return (FREE, PriceSource::Free);
    };
    if matches!(
        provider,
        ProviderKind::Ollama | ProviderKind::OpenAiCompatible
    ) {
        return (FREE, PriceSource::Free);
    }
    if let Some(p) = built_in(&settings.model) {
        return (p, PriceSource::BuiltIn);
    }
    match provider.default_model().and_then(built_in) {
        Some(p) => (p, PriceSource::Assumed),
        None => (FREE, PriceSource::Free),
    }
}

impl Prices {
    /// Dollars for this many tokens.
    pub fn cost(&self, input_tokens: u64, output_tokens: u64) -> f64 {
        (input_tokens as f64 * self.input_per_million
            + output_tokens as f64 * self.output_per_million)
            / 1_000_000.0
    }
}

/// Tokens a text is likely to take, rounded up: about four characters a token for English and
/// code; three here, so the estimate errs on the side of the budget.
pub fn estimate_tokens(text_chars: usize) -> u64 {
    text_chars.div_ceil(3) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn settings(raw: serde_json::Value) -> LlmSettings {
        LlmSettings::from_config(&raw, &|_| None)
    }

    #[test]
    fn the_longest_prefix_wins_and_the_config_overrides() {
        assert_eq!(
            built_in("gpt-4o-mini-2024-07-18")
                .unwrap()
                .input_per_million,
            0.15
        );
        assert_eq!(
            built_in("gpt-4o-2024-08-06").unwrap().input_per_million,
            2.5
        );
        assert_eq!(
            built_in("gemini-2.5-flash-lite")
                .unwrap()
                .output_per_million,
            0.4
        );
        let (p, src) = for_settings(&settings(json!({"llm": {"provider": "anthropic"}})));
        assert_eq!(
            (p.input_per_million, p.output_per_million, src),
            (3.0, 15.0, PriceSource::BuiltIn)
        );
        let (p, src) = for_settings(&settings(json!({"llm": {"provider": "anthropic",
            "prices": {"inputPerMillion": 1, "outputPerMillion": 2}}})));
        assert_eq!(
            (p.input_per_million, p.output_per_million, src),
            (1.0, 2.0, PriceSource::Config)
        );
        let (_, src) = for_settings(&settings(
            json!({"llm": {"provider": "openai", "model": "o9-new"}}),
        ));
        assert_eq!(src, PriceSource::Assumed);
        let (p, src) = for_settings(&settings(json!({"llm": {"provider": "ollama"}})));
        assert_eq!(
            (p.cost(1_000_000, 1_000_000), src),
            (0.0, PriceSource::Free)
        );
    }

    #[test]
    fn cost_is_per_million() {
        let p = Prices {
            input_per_million: 3.0,
            output_per_million: 15.0,
        };
        assert!((p.cost(1000, 200) - 0.006).abs() < 1e-12);
        assert_eq!(estimate_tokens(0), 0);
        assert_eq!(estimate_tokens(7), 3);
    }
}
