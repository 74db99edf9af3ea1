//! One structured call, start to end: refuse early (off, not configured, no key, a key that
//! would travel in clear text, a schema the validator cannot check), redact the texts, reserve
//! the budget, send, parse, validate; on an answer that is not JSON or breaks the schema, ask
//! once more with the problems appended, then give up. Every attempt is a row in the ledger.

use super::budget;
use super::ledger::{self, Ended, Pending};
use super::prices::{self, Prices};
use super::providers::{self, Call, Content, Outcome, Tokens};
use super::settings::{LlmSettings, ProviderKind};
use super::unavailable::LlmUnavailable;
use super::validate;
use super::{LlmAnswer, LlmRequest, MARKER, Usage};
use crate::http;
use crate::redact::redact;
use crate::store::Store;
use chrono::{DateTime, Utc};
use serde_json::Value;

const ATTEMPTS: usize = 2;

pub fn complete_json_at(
    settings: &LlmSettings,
    store: &Store,
    req: &LlmRequest,
    now: DateTime<Utc>,
) -> Result<LlmAnswer, LlmUnavailable> {
    let kind = ready(settings)?;
    validate::check_schema(req.schema).map_err(LlmUnavailable::InvalidRequest)?;

    let system = format!("{MARKER} {}", redact(req.system).0);
    let prompt = format!("{MARKER}\n{}", redact(req.prompt).0);
    let (price, _) = prices::for_settings(settings);
    let mut used = Usage::default();
    let mut feedback: Option<String> = None;
    let mut problem = String::new();
    for _ in 0..ATTEMPTS {
        let text = match &feedback {
            None => prompt.clone(),
            Some(f) => format!("{prompt}\n\n{f}"),
        };
        let call = Call {
            model: &settings.model,
            system: &system,
            prompt: &text,
            schema: req.schema,
            max_output_tokens: req.max_output_tokens,
        };
        let wire = providers::build(settings, kind, &call);
        let body = wire.body.to_string();
        let estimate = price.cost(
            prices::estimate_tokens(body.chars().count()),
            u64::from(req.max_output_tokens),
        );
        let id = ledger::reserve(
            store,
            &Pending {
                at: now,
                purpose: req.purpose,
                provider: kind.name(),
                model: &settings.model,
                session: req.session,
                estimate,
            },
            &settings.budget,
        )?;
        let outcome = match http::post_json(&wire.url, &wire.headers, &body, settings.timeout) {
            Ok((status, answer)) => providers::parse(kind, status, &answer),
            Err(failure) => Outcome::Failed(failure),
        };
        match outcome {
            Outcome::Failed(message) => {
                let message = redact(&message).0;
                ledger::finish(store, id, Tokens::default(), 0.0, Ended::Error(&message))?;
                return Err(LlmUnavailable::Endpoint(message));
            }
            Outcome::Unusable { why, tokens } => {
                charge(store, id, &price, tokens, &mut used, Ended::Error(&why))?;
                feedback = Some(format!(
                    "Your previous answer could not be used ({why}). Answer with the JSON value only."
                ));
                problem = why;
            }
            Outcome::Answer { content, tokens } => {
                let checked = to_value(content).and_then(|v| {
                    let found = validate::validate(req.schema, &v);
                    if found.is_empty() {
                        Ok(v)
                    } else {
                        Err(format!(
                            "the answer does not match the schema: {}",
                            found.join("; ")
                        ))
                    }
                });
                match checked {
                    Ok(value) => {
                        charge(store, id, &price, tokens, &mut used, Ended::Ok)?;
                        let spent = ledger::spent(store, now)?;
                        return Ok(LlmAnswer {
                            value,
                            usage: used,
                            provider: kind.name().to_string(),
                            model: settings.model.clone(),
                            budget_warnings: budget::warnings(&settings.budget, spent),
                        });
                    }
                    Err(why) => {
                        charge(store, id, &price, tokens, &mut used, Ended::Error(&why))?;
                        feedback = Some(format!(
                            "Your previous answer was rejected: {why}. Answer again with one JSON value that matches the schema, and nothing else."
                        ));
                        problem = why;
                    }
                }
            }
        }
    }
    Err(LlmUnavailable::InvalidAnswer(format!(
        "{problem} (after {ATTEMPTS} attempts)"
    )))
}

/// Whether a call could go out with these settings (budget aside), and to which provider.
pub fn ready(settings: &LlmSettings) -> Result<ProviderKind, LlmUnavailable> {
    if settings.disabled {
        return Err(LlmUnavailable::Disabled);
    }
    let kind = settings.provider.ok_or(LlmUnavailable::NotConfigured)?;
    if settings.model.is_empty() {
        return Err(LlmUnavailable::Misconfigured(format!(
            "llm.model is not set (a {} provider has no default model)",
            kind.name()
        )));
    }
    if settings.base_url.is_empty() {
        return Err(LlmUnavailable::Misconfigured(format!(
            "llm.baseUrl is not set (a {} provider has no default endpoint)",
            kind.name()
        )));
    }
    if settings.needs_key() && settings.api_key.is_none() {
        return Err(LlmUnavailable::NoApiKey {
            env: settings.api_key_envs.join(" or "),
        });
    }
    if settings.api_key.is_some()
        && !http::may_carry_a_key(&settings.base_url).map_err(LlmUnavailable::Misconfigured)?
    {
        return Err(LlmUnavailable::Misconfigured(format!(
            "{} is plain http to another machine: the API key would travel unencrypted; use https",
            settings.base_url
        )));
    }
    Ok(kind)
}

fn charge(
    store: &Store,
    id: i64,
    price: &Prices,
    tokens: Tokens,
    used: &mut Usage,
    ended: Ended,
) -> Result<(), LlmUnavailable> {
    let cost = price.cost(tokens.input, tokens.output);
    used.input_tokens += tokens.input;
    used.output_tokens += tokens.output;
    used.cost_usd += cost;
    ledger::finish(store, id, tokens, cost, ended)?;
    Ok(())
}

/// The JSON an answer holds: a tool call's input as is; text parsed, also when the model
/// wrapped it in a Markdown fence or a sentence.
fn to_value(content: Content) -> Result<Value, String> {
    let text = match content {
        Content::Json(v) => return Ok(v),
        Content::Text(t) => t,
    };
    let trimmed = text.trim();
    let unfenced = trimmed
        .strip_prefix("```json")
        .or_else(|| trimmed.strip_prefix("```"))
        .and_then(|t| t.strip_suffix("```"))
        .map(str::trim);
    let candidates = [
        Some(trimmed),
        unfenced,
        span(trimmed, '{', '}'),
        span(trimmed, '[', ']'),
    ];
    for c in candidates.into_iter().flatten() {
        if let Ok(v) = serde_json::from_str::<Value>(c) {
            return Ok(v);
        }
    }
    let err = serde_json::from_str::<Value>(trimmed).unwrap_err();
    Err(format!("the answer is not JSON ({err})"))
}

fn span(text: &str, open: char, close: char) -> Option<&str> {
    let start = text.find(open)?;
    let end = text.rfind(close)?;
    (end > start).then(|| &text[start..=end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_is_found_in_fences_and_prose() {
        assert_eq!(
            to_value(Content::Text(" {\"a\": 1} ".into())).unwrap(),
            json!({"a": 1})
        );
        assert_eq!(
            to_value(Content::Text("```json\n{\"a\": [1]}\n```".into())).unwrap(),
            json!({"a": [1]})
        );
        assert_eq!(
            to_value(Content::Text("Here it is: {\"a\": 2}. Done.".into())).unwrap(),
            json!({"a": 2})
        );
        let e = to_value(Content::Text("{\"a\": ".into())).unwrap_err();
        assert!(e.starts_with("the answer is not JSON"), "{e}");
    }
}
