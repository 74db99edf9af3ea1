//! The real client against a local server speaking each provider's documented wire format:
//! what goes out (path, auth header, body shape, the marker, redaction) and what is read back
//! (the JSON, the token usage, the cost, the ledger row).

mod failures;
mod server;

use super::*;
use crate::store::Store;
use serde_json::{Value, json};
use server::{Reply, Seen, Server};

pub(super) fn schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["rules"],
        "properties": {
            "rules": {
                "type": "array",
                "maxItems": 5,
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["content", "category"],
                    "properties": {
                        "content": {"type": "string", "maxLength": 120},
                        "category": {"enum": ["testing", "git", "debugging"]}
                    }
                }
            }
        }
    })
}

pub(super) fn good() -> Value {
    json!({"rules": [{"content": "Run cargo test before pushing to main", "category": "testing"}]})
}

pub(super) const SECRET: &str = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";

pub(super) fn now() -> chrono::DateTime<chrono::Utc> {
    crate::clock::parse("2026-03-10T12:00:00Z").unwrap()
}

pub(super) struct World {
    _dir: tempfile::TempDir,
    pub store: Store,
}

pub(super) fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("cm.db")).unwrap();
    World { _dir: dir, store }
}

/// Settings for `llm` (a JSON object) with `KEY_VAR` holding the key.
pub(super) fn settings(llm: Value) -> LlmSettings {
    LlmSettings::from_config(&json!({ "llm": llm }), &|name| {
        (name == "KEY_VAR").then(|| "test-key-123".to_string())
    })
}

pub(super) fn ask<'a>(schema: &'a Value, prompt: &'a str) -> LlmRequest<'a> {
    LlmRequest {
        purpose: "reflect",
        system: "You turn session diaries into rules.",
        prompt,
        schema,
        max_output_tokens: 1000,
        session: Some("/sessions/a.jsonl"),
    }
}

fn one_request(server: &Server) -> Seen {
    let seen = server.seen();
    assert_eq!(seen.len(), 1, "{seen:#?}");
    seen.into_iter().next().unwrap()
}

fn day_totals(store: &Store) -> ledger::Totals {
    let (from, to) = budget::month_window(now());
    let t = ledger::totals(store, from, to, ledger::Group::Day).unwrap();
    assert_eq!(t.len(), 1, "{t:?}");
    t.into_iter().next().unwrap()
}

#[test]
fn anthropic_messages_with_a_forced_tool() {
    let server = Server::start(vec![Reply::Json(
        200,
        json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-20250514",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "record_answer", "input": good()}],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 1000, "output_tokens": 200}
        }),
    )]);
    let w = world();
    let s =
        settings(json!({"provider": "anthropic", "baseUrl": server.url, "apiKeyEnv": "KEY_VAR"}));
    let schema = schema();
    let prompt = format!("The user pasted {SECRET} by mistake.");
    let answer = complete_json_at(&s, &w.store, &ask(&schema, &prompt), now()).unwrap();
    assert_eq!(answer.value, good());
    assert_eq!(
        (answer.usage.input_tokens, answer.usage.output_tokens),
        (1000, 200)
    );
    // claude-sonnet-4 at $3 / $15 per million tokens.
    assert!(
        (answer.usage.cost_usd - 0.006).abs() < 1e-12,
        "{:?}",
        answer.usage
    );
    assert_eq!(
        (answer.provider.as_str(), answer.model.as_str()),
        ("anthropic", "claude-sonnet-4-20250514")
    );

    let r = one_request(&server);
    assert_eq!(r.path, "/v1/messages");
    assert_eq!(r.header("x-api-key"), Some("test-key-123"));
    assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(r.body["max_tokens"], 1000);
    assert_eq!(r.body["tools"][0]["input_schema"], schema);
    assert_eq!(
        r.body["tool_choice"],
        json!({"type": "tool", "name": "record_answer"})
    );
    assert!(r.body["system"].as_str().unwrap().starts_with(MARKER));
    let user = r.body["messages"][0]["content"].as_str().unwrap();
    assert!(is_own_call(user), "{user}");
    assert!(
        !user.contains(SECRET) && user.contains("[REDACTED:"),
        "{user}"
    );

    let t = day_totals(&w.store);
    assert_eq!(
        (t.calls, t.failed, t.pending, t.input_tokens),
        (1, 0, 0, 1000)
    );
    assert!((t.cost_usd - 0.006).abs() < 1e-12);
}

#[test]
fn openai_chat_completions_with_a_json_schema_response_format() {
    let server = Server::start(vec![Reply::Json(
        200,
        json!({
            "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini",
            "choices": [{"index": 0, "finish_reason": "stop",
                "message": {"role": "assistant", "content": good().to_string(), "refusal": null}}],
            "usage": {"prompt_tokens": 2000, "completion_tokens": 100, "total_tokens": 2100}
        }),
    )]);
    let w = world();
    let s = settings(
        json!({"provider": "openai", "baseUrl": format!("{}/v1", server.url), "apiKeyEnv": "KEY_VAR"}),
    );
    let schema = schema();
    let answer = complete_json_at(&s, &w.store, &ask(&schema, "diary"), now()).unwrap();
    assert_eq!(answer.value, good());
    // gpt-4o-mini at $0.15 / $0.60 per million.
    assert!(
        (answer.usage.cost_usd - 0.00036).abs() < 1e-12,
        "{:?}",
        answer.usage
    );
    let r = one_request(&server);
    assert_eq!(r.path, "/v1/chat/completions");
    assert_eq!(r.header("authorization"), Some("Bearer test-key-123"));
    assert_eq!(r.body["model"], "gpt-4o-mini");
    assert_eq!(r.body["max_completion_tokens"], 1000);
    let format = &r.body["response_format"];
    assert_eq!(format["type"], "json_schema");
    assert_eq!(
        format["json_schema"]["strict"], true,
        "the schema is closed"
    );
    let content =
        &format["json_schema"]["schema"]["properties"]["rules"]["items"]["properties"]["content"];
    assert_eq!(
        content,
        &json!({"type": "string", "description": "At most 120 characters."})
    );
    assert_eq!(r.body["messages"][0]["role"], "system");
    assert!(
        r.body["messages"][0]["content"]
            .as_str()
            .unwrap()
            .starts_with(MARKER)
    );
}

#[test]
fn an_openai_compatible_server_needs_no_key() {
    let server = Server::start(vec![Reply::Json(
        200,
        json!({"choices": [{"message": {"role": "assistant", "content": format!("```json\n{}\n```", good())}}]}),
    )]);
    let w = world();
    let s = settings(
        json!({"provider": "openai-compatible", "baseUrl": format!("{}/v1/", server.url), "model": "qwen2.5-coder"}),
    );
    let schema = schema();
    let answer = complete_json_at(&s, &w.store, &ask(&schema, "diary"), now()).unwrap();
    assert_eq!(answer.value, good());
    assert_eq!(answer.usage.cost_usd, 0.0, "unpriced: free");
    let r = one_request(&server);
    assert_eq!(r.path, "/v1/chat/completions");
    assert_eq!(r.header("authorization"), None);
    assert_eq!(r.body["max_tokens"], 1000);
}

#[test]
fn gemini_generate_content_with_a_response_schema() {
    let server = Server::start(vec![Reply::Json(
        200,
        json!({
            "candidates": [{"content": {"role": "model", "parts": [{"text": good().to_string()}]}, "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 1000, "candidatesTokenCount": 100, "thoughtsTokenCount": 100, "totalTokenCount": 1200},
            "modelVersion": "gemini-2.5-flash"
        }),
    )]);
    let w = world();
    let s = settings(json!({"provider": "gemini", "baseUrl": server.url, "apiKeyEnv": "KEY_VAR"}));
    let schema = schema();
    let answer = complete_json_at(&s, &w.store, &ask(&schema, "diary"), now()).unwrap();
    assert_eq!(answer.value, good());
    assert_eq!(
        answer.usage.output_tokens, 200,
        "thinking tokens are output"
    );
    let r = one_request(&server);
    assert_eq!(r.path, "/models/gemini-2.5-flash:generateContent");
    assert_eq!(r.header("x-goog-api-key"), Some("test-key-123"));
    let config = &r.body["generationConfig"];
    assert_eq!(config["responseMimeType"], "application/json");
    assert_eq!(config["responseSchema"]["type"], "OBJECT");
    assert_eq!(
        config["responseSchema"]["properties"]["rules"]["items"]["properties"]["category"]["type"],
        "STRING"
    );
    assert_eq!(config["maxOutputTokens"], 1000);
    let system = r.body["systemInstruction"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    assert!(system.starts_with(MARKER));
    assert_eq!(r.body["contents"][0]["role"], "user");
}

#[test]
fn ollama_native_chat_with_a_format_schema() {
    let server = Server::start(vec![Reply::Json(
        200,
        json!({
            "model": "llama3.2", "created_at": "2026-03-10T12:00:00Z",
            "message": {"role": "assistant", "content": good().to_string()},
            "done": true, "done_reason": "stop", "prompt_eval_count": 900, "eval_count": 80
        }),
    )]);
    let w = world();
    let s = settings(json!({"provider": "ollama", "baseUrl": server.url}));
    let schema = schema();
    let answer = complete_json_at(&s, &w.store, &ask(&schema, "diary"), now()).unwrap();
    assert_eq!(answer.value, good());
    assert_eq!(
        (
            answer.usage.input_tokens,
            answer.usage.output_tokens,
            answer.usage.cost_usd
        ),
        (900, 80, 0.0)
    );
    let r = one_request(&server);
    assert_eq!(r.path, "/api/chat");
    assert_eq!(r.body["format"], schema);
    assert_eq!(r.body["stream"], false);
    assert_eq!(r.body["options"]["num_predict"], 1000);
    assert_eq!(r.header("authorization"), None);
}
