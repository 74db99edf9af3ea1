//! Every way a call fails, each ending in its typed reason with nothing trusted: error answers,
//! answers that are not JSON or break the schema (one retry), a silent endpoint, the budget,
//! and the refusals that happen before anything is sent.

use super::server::{Reply, Server};
use super::*;
use std::time::Duration;

fn openai_text(text: &str) -> Reply {
    Reply::Json(
        200,
        json!({"choices": [{"message": {"role": "assistant", "content": text}}],
               "usage": {"prompt_tokens": 1000, "completion_tokens": 50}}),
    )
}

fn openai(server: &Server) -> LlmSettings {
    settings(json!({"provider": "openai", "baseUrl": server.url, "apiKeyEnv": "KEY_VAR"}))
}

#[test]
fn an_error_answer_is_an_endpoint_failure_redacted_and_not_retried() {
    let server = Server::start(vec![Reply::Json(
        401,
        json!({"type": "error", "error": {"type": "authentication_error",
               "message": format!("invalid x-api-key {SECRET}")}}),
    )]);
    let w = world();
    let s =
        settings(json!({"provider": "anthropic", "baseUrl": server.url, "apiKeyEnv": "KEY_VAR"}));
    let schema = schema();
    let err = complete_json_at(&s, &w.store, &ask(&schema, "diary"), now()).unwrap_err();
    let LlmUnavailable::Endpoint(message) = &err else {
        panic!("{err:?}")
    };
    assert!(
        message.starts_with("anthropic answered HTTP 401: authentication_error: invalid x-api-key"),
        "{message}"
    );
    assert!(!message.contains(SECRET), "{message}");
    assert_eq!(server.seen().len(), 1);
    assert_eq!(err.issue().code, "LLM_ENDPOINT");
    let t = day_totals(&w.store);
    assert_eq!((t.calls, t.failed, t.cost_usd), (1, 1, 0.0));
}

#[test]
fn an_answer_that_is_not_json_is_retried_once_with_the_error() {
    let server = Server::start(vec![
        openai_text("Sure! Here are the rules: {rules: [}"),
        openai_text(&good().to_string()),
    ]);
    let w = world();
    let schema = schema();
    let answer =
        complete_json_at(&openai(&server), &w.store, &ask(&schema, "diary"), now()).unwrap();
    assert_eq!(answer.value, good());
    assert_eq!(answer.usage.input_tokens, 2000, "both attempts are counted");
    let seen = server.seen();
    assert_eq!(seen.len(), 2);
    let retry = seen[1].body["messages"][1]["content"].as_str().unwrap();
    assert!(
        retry.contains("Your previous answer was rejected: the answer is not JSON"),
        "{retry}"
    );
    let t = day_totals(&w.store);
    assert_eq!((t.calls, t.failed), (2, 1));
}

#[test]
fn an_answer_breaking_the_schema_twice_is_given_up() {
    let bad = json!({"rules": [{"content": "x".repeat(300), "category": "style"}]}).to_string();
    let server = Server::start(vec![
        openai_text(&bad),
        openai_text(&bad),
        openai_text(&bad),
    ]);
    let w = world();
    let schema = schema();
    let err =
        complete_json_at(&openai(&server), &w.store, &ask(&schema, "diary"), now()).unwrap_err();
    let LlmUnavailable::InvalidAnswer(m) = &err else {
        panic!("{err:?}")
    };
    assert!(
        m.contains("$.rules[0].content: 300 characters, at most 120 allowed"),
        "{m}"
    );
    assert!(
        m.contains("$.rules[0].category: \"style\" is not one of"),
        "{m}"
    );
    assert!(m.ends_with("(after 2 attempts)"), "{m}");
    assert_eq!(server.seen().len(), 2, "one retry, no more");
    let retry = server.seen()[1].body["messages"][1]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        retry.contains("does not match the schema: $.rules[0].content"),
        "{retry}"
    );
    let t = day_totals(&w.store);
    assert_eq!((t.calls, t.failed), (2, 2));
}

#[test]
fn a_refusal_is_retried_then_reported() {
    let refusal = || {
        Reply::Json(
            200,
            json!({"choices": [{"message": {"role": "assistant", "content": null, "refusal": "I can't help with that."}}]}),
        )
    };
    let server = Server::start(vec![refusal(), refusal()]);
    let w = world();
    let schema = schema();
    let err =
        complete_json_at(&openai(&server), &w.store, &ask(&schema, "diary"), now()).unwrap_err();
    assert!(
        matches!(&err, LlmUnavailable::InvalidAnswer(m) if m.contains("the model refused")),
        "{err:?}"
    );
    assert_eq!(server.seen().len(), 2);
}

#[test]
fn a_silent_endpoint_times_out() {
    let server = Server::start(vec![Reply::Hang(Duration::from_secs(10))]);
    let w = world();
    let s = settings(json!({"provider": "ollama", "baseUrl": server.url, "timeoutSecs": 0.3}));
    let schema = schema();
    let started = std::time::Instant::now();
    let err = complete_json_at(&s, &w.store, &ask(&schema, "diary"), now()).unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "the timeout cut the wait"
    );
    assert!(
        matches!(&err, LlmUnavailable::Endpoint(m) if m.contains("timed out")),
        "{err:?}"
    );
    let t = day_totals(&w.store);
    assert_eq!((t.calls, t.failed, t.pending), (1, 1, 0));
}

#[test]
fn over_the_daily_budget_nothing_is_sent() {
    let server = Server::start(vec![openai_text(&good().to_string())]);
    let w = world();
    // Earlier today: $0.095 of the $0.10 daily limit.
    let earlier = ledger::reserve(
        &w.store,
        &ledger::Pending {
            at: crate::clock::parse("2026-03-10T08:00:00Z").unwrap(),
            purpose: "reflect",
            provider: "openai",
            model: "gpt-4o",
            session: None,
            estimate: 0.095,
        },
        &Budget::default(),
    )
    .unwrap();
    ledger::finish(
        &w.store,
        earlier,
        providers::Tokens {
            input: 30_000,
            output: 2000,
        },
        0.095,
        ledger::Ended::Ok,
    )
    .unwrap();
    let s = settings(
        json!({"provider": "openai", "model": "gpt-4o", "baseUrl": server.url, "apiKeyEnv": "KEY_VAR"}),
    );
    let schema = schema();
    let err = complete_json_at(&s, &w.store, &ask(&schema, "diary"), now()).unwrap_err();
    let LlmUnavailable::OverBudget {
        period,
        spent,
        limit,
        ..
    } = err.clone()
    else {
        panic!("{err:?}")
    };
    assert_eq!((period, limit), (Period::Day, 0.10));
    assert!((spent - 0.095).abs() < 1e-12);
    assert!(err.to_string().contains("daily LLM budget"), "{err}");
    assert!(server.seen().is_empty(), "no request reached the server");
    assert_eq!(day_totals(&w.store).calls, 1, "nothing was reserved");

    // The next day the month still has room: the call goes out, and is near the limit.
    let tomorrow = crate::clock::parse("2026-03-11T09:00:00Z").unwrap();
    let answer = complete_json_at(&s, &w.store, &ask(&schema, "diary"), tomorrow).unwrap();
    assert_eq!(answer.value, good());
    assert_eq!(server.seen().len(), 1);
}

#[test]
fn a_call_whose_worst_case_does_not_fit_is_not_sent() {
    let server = Server::start(vec![]);
    let w = world();
    let s =
        settings(json!({"provider": "anthropic", "baseUrl": server.url, "apiKeyEnv": "KEY_VAR"}));
    let schema = schema();
    let mut req = ask(&schema, "diary");
    req.max_output_tokens = 10_000; // $0.15 of output at $15 per million
    let err = complete_json_at(&s, &w.store, &req, now()).unwrap_err();
    assert!(
        matches!(
            err,
            LlmUnavailable::OverBudget {
                period: Period::Day,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(server.seen().is_empty());
}

#[test]
fn refusals_before_anything_is_sent() {
    let w = world();
    let schema = schema();
    let req = ask(&schema, "diary");
    let none = LlmSettings::from_config(&json!({}), &|_| None);
    assert_eq!(
        complete_json_at(&none, &w.store, &req, now()),
        Err(LlmUnavailable::NotConfigured)
    );
    let off = LlmSettings::from_config(&json!({"llm": {"provider": "ollama"}}), &|n| {
        (n == "CASS_MEMORY_LLM").then(|| "none".into())
    });
    assert_eq!(
        complete_json_at(&off, &w.store, &req, now()),
        Err(LlmUnavailable::Disabled)
    );
    let keyless = LlmSettings::from_config(&json!({"llm": {"provider": "gemini"}}), &|_| None);
    assert_eq!(
        complete_json_at(&keyless, &w.store, &req, now()),
        Err(LlmUnavailable::NoApiKey {
            env: "GOOGLE_GENERATIVE_AI_API_KEY or GEMINI_API_KEY".into()
        })
    );
    let clear = settings(
        json!({"provider": "openai", "baseUrl": "http://gpu-box.lan:8000/v1", "apiKeyEnv": "KEY_VAR"}),
    );
    assert!(
        matches!(complete_json_at(&clear, &w.store, &req, now()), Err(LlmUnavailable::Misconfigured(m)) if m.contains("unencrypted"))
    );
    let modelless =
        settings(json!({"provider": "openai-compatible", "baseUrl": "http://127.0.0.1:9/v1"}));
    assert!(
        matches!(complete_json_at(&modelless, &w.store, &req, now()), Err(LlmUnavailable::Misconfigured(m)) if m.contains("llm.model"))
    );
    let odd = json!({"type": "object", "properties": {"a": {"anyOf": []}}});
    let ollama = settings(json!({"provider": "ollama", "baseUrl": "http://127.0.0.1:9"}));
    assert!(matches!(
        complete_json_at(&ollama, &w.store, &ask(&odd, "x"), now()),
        Err(LlmUnavailable::InvalidRequest(_))
    ));
    let (from, to) = budget::month_window(now());
    assert!(
        ledger::totals(&w.store, from, to, ledger::Group::Day)
            .unwrap()
            .is_empty(),
        "nothing was recorded"
    );
}

#[test]
fn a_page_that_is_not_json_is_an_endpoint_failure() {
    let server = Server::start(vec![
        Reply::Text(200, "<html>captive portal</html>".into()),
        Reply::Text(502, "<html>Bad Gateway</html>".into()),
    ]);
    let w = world();
    let schema = schema();
    let req = ask(&schema, "diary");
    let err = complete_json_at(&openai(&server), &w.store, &req, now()).unwrap_err();
    assert_eq!(
        err,
        LlmUnavailable::Endpoint("openai answered HTTP 200 with a body that is not JSON".into())
    );
    let err = complete_json_at(&openai(&server), &w.store, &req, now()).unwrap_err();
    assert_eq!(
        err,
        LlmUnavailable::Endpoint("openai answered HTTP 502: <html>Bad Gateway</html>".into())
    );
    assert_eq!(server.seen().len(), 2);
}
