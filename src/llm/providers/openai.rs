//! OpenAI's Chat Completions API, also spoken by many other servers (vLLM, llama.cpp, LM
//! Studio, proxies): the schema goes in `response_format: {type: "json_schema"}`, strict when
//! the schema qualifies, and the answer is the first choice's message content.

use super::wire_schema::{for_openai, strict_ready};
use super::{Call, Content, Outcome, Tokens, Wire, count, schema_instruction};
use serde_json::{Value, json};

/// `official`: api.openai.com takes `max_completion_tokens`; compatible servers mostly still
/// read the older `max_tokens`.
pub fn build(base: &str, key: Option<String>, call: &Call, official: bool) -> Wire {
    let mut headers = Vec::new();
    if let Some(k) = key {
        headers.push(("Authorization", format!("Bearer {k}")));
    }
    let limit_key = if official {
        "max_completion_tokens"
    } else {
        "max_tokens"
    };
    let mut body = json!({
        "model": call.model,
        "messages": [
            {"role": "system", "content": format!("{}\n\n{}", call.system, schema_instruction(call.schema))},
            {"role": "user", "content": call.prompt},
        ],
        "response_format": {
            "type": "json_schema",
            "json_schema": {
                "name": "answer",
                "schema": for_openai(call.schema),
                "strict": strict_ready(call.schema),
            },
        },
    });
    body[limit_key] = json!(call.max_output_tokens);
    Wire {
        url: format!("{base}/chat/completions"),
        headers,
        body,
    }
}

pub fn parse(v: &Value) -> Outcome {
    let tokens = Tokens {
        input: count(v, &["usage", "prompt_tokens"]),
        output: count(v, &["usage", "completion_tokens"]),
    };
    let message = v.pointer("/choices/0/message");
    if let Some(refusal) = message
        .and_then(|m| m.get("refusal"))
        .and_then(Value::as_str)
        .filter(|r| !r.is_empty())
    {
        return Outcome::Unusable {
            why: format!("the model refused: {refusal}"),
            tokens,
        };
    }
    match message
        .and_then(|m| m.get("content"))
        .and_then(Value::as_str)
    {
        Some(text) if !text.trim().is_empty() => Outcome::Answer {
            content: Content::Text(text.to_string()),
            tokens,
        },
        _ => Outcome::Unusable {
            why: format!(
                "the answer holds no message content (finish_reason {})",
                v.pointer("/choices/0/finish_reason")
                    .and_then(Value::as_str)
                    .unwrap_or("?")
            ),
            tokens,
        },
    }
}
