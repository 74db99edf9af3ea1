//! Google's Gemini API (`generateContent`): the schema goes in `generationConfig` as
//! `responseSchema` with `responseMimeType: application/json`, the key in `x-goog-api-key`
//! (never in the URL, where it would end up in error messages and proxy logs).

use super::wire_schema::for_gemini;
use super::{Call, Content, Outcome, Tokens, Wire, count};
use serde_json::{Value, json};

pub fn build(base: &str, key: Option<String>, call: &Call) -> Wire {
    let mut headers = Vec::new();
    if let Some(k) = key {
        headers.push(("x-goog-api-key", k));
    }
    let body = json!({
        "systemInstruction": {"parts": [{"text": call.system}]},
        "contents": [{"role": "user", "parts": [{"text": call.prompt}]}],
        "generationConfig": {
            "responseMimeType": "application/json",
            "responseSchema": for_gemini(call.schema),
            "maxOutputTokens": call.max_output_tokens,
            "temperature": 0,
        },
    });
    Wire {
        url: format!("{base}/models/{}:generateContent", call.model),
        headers,
        body,
    }
}

pub fn parse(v: &Value) -> Outcome {
    let tokens = Tokens {
        input: count(v, &["usageMetadata", "promptTokenCount"]),
        // Thinking tokens are billed as output.
        output: count(v, &["usageMetadata", "candidatesTokenCount"])
            + count(v, &["usageMetadata", "thoughtsTokenCount"]),
    };
    if let Some(reason) = v
        .pointer("/promptFeedback/blockReason")
        .and_then(Value::as_str)
    {
        return Outcome::Unusable {
            why: format!("the prompt was blocked ({reason})"),
            tokens,
        };
    }
    let text: String = v
        .pointer("/candidates/0/content/parts")
        .and_then(Value::as_array)
        .map(|parts| {
            parts
                .iter()
                .filter(|p| p.get("thought") != Some(&json!(true)))
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    if text.trim().is_empty() {
        return Outcome::Unusable {
            why: format!(
                "the answer holds no text (finishReason {})",
                v.pointer("/candidates/0/finishReason")
                    .and_then(Value::as_str)
                    .unwrap_or("?")
            ),
            tokens,
        };
    }
    Outcome::Answer {
        content: Content::Text(text),
        tokens,
    }
}
