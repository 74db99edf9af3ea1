//! Anthropic's Messages API. The schema becomes the input schema of one tool the model is made
//! to call (`tool_choice: {type: "tool"}`), so the answer arrives as the tool call's `input`
//! object; a root schema that is not an object (tools take objects only) goes in the prompt.

use super::{Call, Content, Outcome, Tokens, Wire, count, schema_instruction};
use serde_json::{Value, json};

const VERSION: &str = "2023-06-01";
const TOOL: &str = "record_answer";

pub fn build(base: &str, key: Option<String>, call: &Call) -> Wire {
    let mut headers = vec![("anthropic-version", VERSION.to_string())];
    if let Some(k) = key {
        headers.push(("x-api-key", k));
    }
    let object_root = call.schema.get("type") == Some(&json!("object"));
    let mut body = json!({
        "model": call.model,
        "max_tokens": call.max_output_tokens,
        "system": if object_root {
            call.system.to_string()
        } else {
            format!("{}\n\n{}", call.system, schema_instruction(call.schema))
        },
        "messages": [{"role": "user", "content": call.prompt}],
    });
    if object_root {
        body["tools"] = json!([{
            "name": TOOL,
            "description": "Record the answer in the required structure.",
            "input_schema": call.schema,
        }]);
        body["tool_choice"] = json!({"type": "tool", "name": TOOL});
    }
    Wire {
        url: format!("{base}/v1/messages"),
        headers,
        body,
    }
}

pub fn parse(v: &Value) -> Outcome {
    let tokens = Tokens {
        input: count(v, &["usage", "input_tokens"])
            + count(v, &["usage", "cache_creation_input_tokens"])
            + count(v, &["usage", "cache_read_input_tokens"]),
        output: count(v, &["usage", "output_tokens"]),
    };
    let blocks = v
        .get("content")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if let Some(input) = blocks
        .iter()
        .find(|b| b.get("type") == Some(&json!("tool_use")))
        .and_then(|b| b.get("input"))
    {
        return Outcome::Answer {
            content: Content::Json(input.clone()),
            tokens,
        };
    }
    let text: String = blocks
        .iter()
        .filter(|b| b.get("type") == Some(&json!("text")))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    if text.trim().is_empty() {
        let stop = v.get("stop_reason").and_then(Value::as_str).unwrap_or("?");
        return Outcome::Unusable {
            why: format!("the answer holds no tool call and no text (stop_reason {stop})"),
            tokens,
        };
    }
    Outcome::Answer {
        content: Content::Text(text),
        tokens,
    }
}
