//! `cm usage`: the LLM ledger summed by day, month and purpose against the budget, with the
//! clock pinned. Rows are written through the ledger's own API (the one the client uses), so
//! the command reads exactly what real calls leave behind.

use crate::harness::Env;
use cm::llm::ledger::{self, Ended, Pending};
use cm::llm::{Budget, Tokens};
use cm::store::Store;
use serde_json::json;

const NOW: &str = "2026-03-10T18:00:00Z";

fn record(store: &Store, at: &str, purpose: &str, cost: f64, ok: bool) {
    let id = ledger::reserve(
        store,
        &Pending {
            at: cm::clock::parse(at).unwrap(),
            purpose,
            provider: "openai",
            model: "gpt-4o-mini",
            session: Some("/s/a.jsonl"),
            estimate: cost,
        },
        &Budget {
            daily_limit: 100.0,
            monthly_limit: 100.0,
            warning_threshold: 80.0,
        },
    )
    .unwrap();
    let ended = if ok {
        Ended::Ok
    } else {
        Ended::Error("HTTP 500")
    };
    ledger::finish(
        store,
        id,
        Tokens {
            input: 1000,
            output: 100,
        },
        cost,
        ended,
    )
    .unwrap();
}

fn configure(env: &Env, config: serde_json::Value) {
    std::fs::create_dir_all(&env.data).unwrap();
    std::fs::write(env.data.join("config.json"), config.to_string()).unwrap();
}

#[test]
fn usage_sums_calls_by_day_and_month_against_the_budget() {
    let env = Env::new();
    configure(
        &env,
        json!({"llm": {"provider": "openai", "apiKeyEnv": "CM_TEST_LLM_KEY",
                       "budget": {"dailyLimit": 0.05, "monthlyLimit": 1.0}}}),
    );
    let store = Store::open(&env.db()).unwrap();
    record(&store, "2026-03-10T09:00:00Z", "reflect", 0.02, true);
    record(&store, "2026-03-10T10:00:00Z", "reflect", 0.02, false);
    record(&store, "2026-03-09T23:59:59Z", "diary", 0.01, true);
    record(&store, "2026-02-27T12:00:00Z", "reflect", 0.5, true);
    record(&store, "2026-01-15T12:00:00Z", "reflect", 9.0, true);
    drop(store);

    let out = env
        .cm(&["usage", "--days", "15"])
        .json()
        .now(NOW)
        .env("CM_TEST_LLM_KEY", "sk-test")
        .run()
        .ok();
    let d = out.data();
    assert_eq!(d["llm"]["provider"], "openai");
    assert_eq!(d["llm"]["ready"], true, "{d}");
    assert_eq!(d["llm"]["prices"]["source"], "built-in");
    assert_eq!(d["since"], "2026-02-24");
    let days: Vec<&str> = d["byDay"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["day"].as_str().unwrap())
        .collect();
    assert_eq!(days, ["2026-03-10", "2026-03-09", "2026-02-27"]);
    assert_eq!(
        d["byDay"][0],
        json!({"day": "2026-03-10", "calls": 2, "failed": 1, "pending": 0,
               "inputTokens": 2000, "outputTokens": 200, "costUsd": 0.04})
    );
    let months: Vec<&str> = d["byMonth"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["month"].as_str().unwrap())
        .collect();
    assert_eq!(
        months,
        ["2026-03", "2026-02"],
        "January is outside the window"
    );
    assert_eq!(d["byMonth"][1]["costUsd"], 0.5);
    assert_eq!(d["byPurpose"][0]["purpose"], "diary");
    assert_eq!(
        (d["total"]["calls"].as_u64(), d["total"]["costUsd"].as_f64()),
        (Some(4), Some(0.55))
    );
    let b = &d["budget"];
    assert_eq!(
        b["today"],
        json!({"spent": 0.04, "limit": 0.05, "left": 0.01, "percent": 80.0})
    );
    assert_eq!(
        b["thisMonth"],
        json!({"spent": 0.05, "limit": 1.0, "left": 0.95, "percent": 5.0})
    );
    let warnings = b["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0]
            .as_str()
            .unwrap()
            .starts_with("LLM spend today is 80% of the $0.05 daily limit")
    );

    let human = env.cm(&["usage", "--days", "15"]).now(NOW).run().ok();
    assert!(
        human
            .stdout
            .contains("LLM: openai gpt-4o-mini ($0.15 / $0.60"),
        "{}",
        human.stdout
    );
    assert!(
        human
            .stdout
            .contains("Today: $0.0400 of $0.05 spent (80.0%), $0.0100 left"),
        "{}",
        human.stdout
    );
    assert!(human.stdout.contains("2026-02-27"), "{}", human.stdout);
}

#[test]
fn without_a_provider_nothing_is_configured_and_the_seed_budget_applies() {
    let env = Env::new();
    let d = env.cm(&["usage"]).json().now(NOW).run().ok().data();
    assert_eq!(d["llm"]["configured"], false);
    assert_eq!(d["llm"]["reason"], "no LLM is configured");
    assert_eq!(
        (
            d["budget"]["dailyLimit"].as_f64(),
            d["budget"]["monthlyLimit"].as_f64()
        ),
        (Some(0.1), Some(2.0))
    );
    assert_eq!(d["days"], 30);
    assert_eq!(d["byDay"], json!([]));
}

#[test]
fn a_repository_cannot_turn_the_llm_on_or_raise_the_budget() {
    let env = Env::new();
    let repo = env.git_repo().to_path_buf();
    std::fs::create_dir_all(repo.join(".cass")).unwrap();
    std::fs::write(
        repo.join(".cass/config.json"),
        json!({"llm": {"provider": "ollama"}, "provider": "anthropic", "model": "m",
               "budget": {"dailyLimit": 1000}})
        .to_string(),
    )
    .unwrap();
    let out = env.cm(&["usage"]).json().now(NOW).run().ok();
    let d = out.data();
    assert_eq!(d["llm"]["configured"], false, "{d}");
    assert_eq!(d["budget"]["dailyLimit"], 0.1);
    for key in ["llm", "provider", "model", "budget"] {
        assert!(
            out.stderr
                .contains(&format!("ignoring \"{key}\": a repository config cannot")),
            "{key}: {}",
            out.stderr
        );
    }
}

#[test]
fn the_environment_switch_and_a_bad_provider() {
    let env = Env::new();
    configure(&env, json!({"llm": {"provider": "ollama"}}));
    let d = env
        .cm(&["usage"])
        .json()
        .env("CASS_MEMORY_LLM", "none")
        .run()
        .ok()
        .data();
    assert_eq!(
        (
            d["llm"]["configured"].as_bool(),
            d["llm"]["ready"].as_bool()
        ),
        (Some(true), Some(false))
    );
    assert_eq!(d["llm"]["reason"], "LLM calls are turned off");
    assert_eq!(d["llm"]["prices"]["source"], "free");

    configure(&env, json!({"llm": {"provider": "chatgpt"}}));
    let out = env.cm(&["usage"]).json().run().code(2);
    let e = out.error_code("CONFIG_INVALID");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("invalid \"llm.provider\""),
        "{e}"
    );

    env.cm(&["usage", "--days", "0"]).json().run().code(3);
}
