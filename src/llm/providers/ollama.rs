//! Ollama's native chat API (`/api/chat`, not streamed): the schema goes in `format`, which
//! Ollama turns into a grammar the model's sampling follows.

use super::{Call, Content, Outcome, Tokens, Wire, count, schema_instruction};
use serde_json::{Value, json};

pub fn build(base: &str, key: Option<String>, call: &Call) -> Wire {
    let mut headers = Vec::new();
    if let Some(k) = key {
        headers.push(("Authorization", format!("Bearer {k}")));
    }
    let body = json!({
        "model": call.model,
        "messages": [
            {"role": "system", "content": format!("{}\n\n{}", call.system, schema_instruction(call.schema))},
            {"role": "user", "content": call.prompt},
        ],
        "stream": false,
        "format": call.schema,
        "options": {"num_predict": call.max_output_tokens, "temperature": 0},
    });
    Wire {
        url: format!("{base}/api/chat"),
        headers,
        body,
    }
}

pub fn parse(v: &Value) -> Outcome {
    let tokens = Tokens {
        input: count(v, &["prompt_eval_count"]),
        output: count(v, &["eval_count"]),
    };
    match v.pointer("/message/content").and_then(Value::as_str) {
        Some(text) if !text.trim().is_empty() => Outcome::Answer {
            content: Content::Text(text.to_string()),
            tokens,
        },
        _ => Outcome::Unusable {
            why: format!(
                "the answer holds no message content (done_reason {})",
                v.get("done_reason").and_then(Value::as_str).unwrap_or("?")
            ),
            tokens,
        },
    }
}
