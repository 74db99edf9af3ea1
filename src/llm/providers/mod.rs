//! Each provider's documented wire format: how a request is written (URL, headers, body) and
//! where an answer keeps its text, its token usage and its error message. The client
//! (`super::client`) does the rest the same way for all of them.
//!
//! | provider | endpoint | auth | structured output | usage |
//! |---|---|---|---|---|
//! | anthropic | `{base}/v1/messages` | `x-api-key`, `anthropic-version` | a forced tool whose `input_schema` is the schema | `usage.input_tokens`, `usage.output_tokens` |
//! | openai, openai-compatible | `{base}/chat/completions` | `Authorization: Bearer` | `response_format: json_schema` | `usage.prompt_tokens`, `usage.completion_tokens` |
//! | gemini | `{base}/models/{model}:generateContent` | `x-goog-api-key` | `responseMimeType` + `responseSchema` | `usageMetadata.promptTokenCount`, `candidatesTokenCount` |
//! | ollama | `{base}/api/chat` | none (Bearer if a key is set) | `format`: the schema | `prompt_eval_count`, `eval_count` |

mod anthropic;
mod gemini;
mod ollama;
mod openai;
mod wire_schema;

use super::settings::{LlmSettings, ProviderKind};
use serde_json::Value;

/// One request, provider-neutral.
pub struct Call<'a> {
    pub model: &'a str,
    pub system: &'a str,
    pub prompt: &'a str,
    pub schema: &'a Value,
    pub max_output_tokens: u32,
}

/// A request as it goes on the wire.
pub struct Wire {
    pub url: String,
    pub headers: Vec<(&'static str, String)>,
    pub body: Value,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
}

/// What the model gave back, before validation.
#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    /// Already structured (a tool call's input).
    Json(Value),
    /// Text that should hold JSON.
    Text(String),
}

/// How one exchange ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Answer {
        content: Content,
        tokens: Tokens,
    },
    /// A well-formed answer with nothing usable (a refusal, a blocked prompt); worth one retry.
    Unusable {
        why: String,
        tokens: Tokens,
    },
    /// An error answer (HTTP status and the provider's message), not worth a retry.
    Failed(String),
}

pub fn build(settings: &LlmSettings, kind: ProviderKind, call: &Call) -> Wire {
    let key = settings.api_key.as_ref().map(|k| k.expose().to_string());
    match kind {
        ProviderKind::Anthropic => anthropic::build(&settings.base_url, key, call),
        ProviderKind::OpenAi => openai::build(&settings.base_url, key, call, true),
        ProviderKind::OpenAiCompatible => openai::build(&settings.base_url, key, call, false),
        ProviderKind::Gemini => gemini::build(&settings.base_url, key, call),
        ProviderKind::Ollama => ollama::build(&settings.base_url, key, call),
    }
}

pub fn parse(kind: ProviderKind, status: u16, text: &str) -> Outcome {
    let value: Option<Value> = serde_json::from_str(text).ok();
    if !(200..300).contains(&status) {
        let detail = value
            .as_ref()
            .and_then(error_message)
            .unwrap_or_else(|| text.chars().take(300).collect());
        return Outcome::Failed(format!(
            "{} answered HTTP {status}: {}",
            kind.name(),
            detail.trim()
        ));
    }
    let Some(value) = value else {
        return Outcome::Failed(format!(
            "{} answered HTTP {status} with a body that is not JSON",
            kind.name()
        ));
    };
    match kind {
        ProviderKind::Anthropic => anthropic::parse(&value),
        ProviderKind::OpenAi | ProviderKind::OpenAiCompatible => openai::parse(&value),
        ProviderKind::Gemini => gemini::parse(&value),
        ProviderKind::Ollama => ollama::parse(&value),
    }
}

/// The message of an error answer in any provider's shape: `{"error": {"type", "message"}}`
/// (Anthropic, OpenAI), `{"error": {"code", "message", "status"}}` (Gemini), `{"error": "..."}`
/// (Ollama and many compatible servers), `{"detail": ...}` (some proxies).
fn error_message(v: &Value) -> Option<String> {
    match v.get("error") {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Object(e)) => {
            let message = e.get("message").and_then(Value::as_str).unwrap_or("");
            let kind = e
                .get("type")
                .or_else(|| e.get("status"))
                .and_then(Value::as_str);
            Some(match kind {
                Some(k) => format!("{k}: {message}"),
                None => message.to_string(),
            })
        }
        _ => v.get("detail").map(|d| match d {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        }),
    }
}

/// A token count at `path`, or 0.
fn count(v: &Value, path: &[&str]) -> u64 {
    let mut at = v;
    for p in path {
        match at.get(p) {
            Some(next) => at = next,
            None => return 0,
        }
    }
    at.as_u64().unwrap_or(0)
}

/// The instruction every provider gets besides its own structured-output mode: models follow a
/// schema in the prompt even where the mode is ignored (an OpenAI-compatible server may).
pub fn schema_instruction(schema: &Value) -> String {
    format!("Answer with one JSON value that matches this JSON Schema, and nothing else:\n{schema}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn error_messages_of_every_shape() {
        let anthropic = json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}});
        assert_eq!(
            error_message(&anthropic).unwrap(),
            "authentication_error: invalid x-api-key"
        );
        let gemini = json!({"error": {"code": 400, "message": "API key not valid", "status": "INVALID_ARGUMENT"}});
        assert_eq!(
            error_message(&gemini).unwrap(),
            "INVALID_ARGUMENT: API key not valid"
        );
        assert_eq!(
            error_message(&json!({"error": "model \"x\" not found"})).unwrap(),
            "model \"x\" not found"
        );
        assert_eq!(
            error_message(&json!({"detail": "Not Found"})).unwrap(),
            "Not Found"
        );
        assert!(matches!(
            parse(ProviderKind::Ollama, 502, "<html>bad gateway</html>"),
            Outcome::Failed(m) if m == "ollama answered HTTP 502: <html>bad gateway</html>"
        ));
    }
}
