//! Rule ranking's signals (issue 13): `cm context --explain` shows each of them, the relevance
//! floor keeps a rule of the workspace out of a task it merely shares the project with,
//! `degraded.associations` says why no widening happened, and with embeddings configured the
//! rankings are fused by reciprocal rank (against a real local HTTP embedding server).

use crate::context::start_server;
use crate::evidence::{REPORTD, add, place};
use crate::harness::Env;
use serde_json::{Value, json};

const FETCH: &str = "Set the JDBC fetch size to 5000 on the queries in ExportRepository: without it the Postgres driver loads the whole result set into memory.";
const ZONE: &str = "Render report dates in the account's zone from AccountSettings.zoneId, never the JVM default: the servers run in UTC.";
const JOOQ: &str = "After adding a Flyway migration, regenerate the jOOQ classes with ./gradlew generateJooq and commit the generated sources.";

/// Three rules of one workspace, each learned from its own session, indexed.
fn reportd(env: &Env) -> [String; 3] {
    env.data_of(&["init"]);
    let s1 = place(env, "reportd", REPORTD, "s1-nightly-export.jsonl");
    let s2 = place(env, "reportd", REPORTD, "s2-schedule-timezone.jsonl");
    let s3 = place(env, "reportd", REPORTD, "s3-schedule-column.jsonl");
    env.data_of(&["history", "index"]);
    [
        add(env, FETCH, &s1),
        add(env, ZONE, &s2),
        add(env, JOOQ, &s3),
    ]
}

fn context(env: &Env, task: &str, extra: &[&str]) -> Value {
    let mut args = vec!["context", task, "--workspace", REPORTD, "--no-history"];
    args.extend_from_slice(extra);
    env.data_of(&args)
}

#[test]
fn explain_shows_every_signal_of_each_rule() {
    let env = Env::builder().now("2026-12-01T12:00:00Z").build();
    let [_, _, jooq] = reportd(&env);
    let task =
        "I added a column to report_schedules and now compileJava fails with cannot find symbol";
    let d = context(&env, task, &["--explain"]);
    let first = &d["relevantBullets"][0];
    assert_eq!(first["id"], jooq.as_str(), "{d:#}");
    let s = &first["signals"];
    for key in [
        "lexical",
        "matched",
        "evidence",
        "evidenceMatched",
        "association",
        "associationTerms",
        "relevance",
        "place",
        "weight",
        "reinforcement",
        "finalScore",
    ] {
        assert!(s.get(key).is_some(), "signals lack {key}: {s:#}");
    }
    assert!(s["evidence"].as_f64().unwrap() > 0.3, "{s:#}");
    assert!(
        s["evidenceMatched"]
            .as_array()
            .unwrap()
            .contains(&json!("compilejava")),
        "{s:#}"
    );
    assert_eq!(s["place"], 1.5, "{s:#}");
    // The parts give the whole: relevance x weight x place x reinforcement.
    let product = s["relevance"].as_f64().unwrap()
        * s["weight"].as_f64().unwrap()
        * s["place"].as_f64().unwrap()
        * s["reinforcement"].as_f64().unwrap();
    assert!(
        (product - s["finalScore"].as_f64().unwrap()).abs() < 0.005,
        "{s:#}"
    );
    assert_eq!(s["finalScore"], first["finalScore"]);
    // No embeddings configured: no embedding rank, no fusion of ranks.
    assert!(s.get("embeddingRank").is_none() && s.get("fusedRank").is_none());
    // Without --explain the shape is unchanged; the human output gets a line per rule.
    let plain = context(&env, task, &[]);
    assert!(plain["relevantBullets"][0].get("signals").is_none());
    let human = env.stdout_of(&[
        "context",
        task,
        "--workspace",
        REPORTD,
        "--no-history",
        "--explain",
    ]);
    assert!(
        human.contains(&format!("{jooq}: lexical ")) && human.contains("x place 1.500"),
        "{human}"
    );
}

#[test]
fn a_rule_of_the_workspace_does_not_crowd_an_unrelated_task_there() {
    let env = Env::builder().now("2026-12-01T12:00:00Z").build();
    let [_, zone, _] = reportd(&env);
    // Shares "summary" with the situation of the time-zone rule, nothing of its lesson.
    let d = context(
        &env,
        "make the weekly summary email list the five largest invoices",
        &[],
    );
    let ids: Vec<&Value> = d["relevantBullets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| &b["id"])
        .collect();
    assert!(!ids.contains(&&json!(zone)), "{d:#}");
    // The follow-up it was learned for still finds it first.
    let d = context(
        &env,
        "a client in Sydney says their daily summary PDF shows yesterday",
        &[],
    );
    assert_eq!(d["relevantBullets"][0]["id"], zone.as_str(), "{d:#}");
}

#[test]
fn degraded_associations_says_why_the_task_was_not_widened() {
    let env = Env::new();
    env.data_of(&["init"]);
    env.add("Set the fetch size on export queries");
    let d = env.data_of(&["context", "the nightly export got slow", "--no-history"]);
    assert_eq!(
        d["degraded"]["associations"]["code"], "ASSOCIATIONS_NO_SESSIONS",
        "{d:#}"
    );
    assert!(
        d["degraded"]["associations"]["fix"]
            .as_str()
            .unwrap()
            .contains("cm history index")
    );
    // Indexed sessions teach it, but a handful of messages is little to go on: said so.
    place(&env, "reportd", REPORTD, "s1-nightly-export.jsonl");
    env.data_of(&["history", "index"]);
    let d = env.data_of(&["context", "the nightly export got slow", "--no-history"]);
    assert_eq!(
        d["degraded"]["associations"]["code"], "ASSOCIATIONS_SPARSE",
        "{d:#}"
    );
    // Off by config: said, with how to turn it on.
    env.write_config(&json!({"history": {"associations": false}}));
    let d = env.data_of(&["context", "the nightly export got slow", "--no-history"]);
    assert_eq!(
        d["degraded"]["associations"]["code"], "ASSOCIATIONS_OFF",
        "{d:#}"
    );
    assert!(
        d["degraded"]["associations"]["fix"]
            .as_str()
            .unwrap()
            .contains("history.associations")
    );
}

#[test]
fn embeddings_are_fused_with_the_lexical_ranking_by_reciprocal_rank() {
    let env = Env::new();
    let server = start_server(false);
    env.write_config(&json!({
        "semanticSearchEnabled": true,
        "embeddingProvider": {"kind": "ollama", "url": format!("http://127.0.0.1:{}/api/embed", server.port), "model": "test-256"}
    }));
    env.data_of(&["init"]);
    let auth = env.add("Rotate auth tokens when the auth service restarts");
    let cache = env.add("Expire cache entries after five minutes");
    env.add("Run cargo fmt before every commit");
    // "expire" is the cache rule's word; the embeddings put "login credentials" next to "auth".
    let d = env.data_of(&[
        "context",
        "login credentials expire",
        "--no-history",
        "--explain",
    ]);
    assert!(d["degraded"]["semantic"].is_null(), "{d:#}");
    let rules = d["relevantBullets"].as_array().unwrap();
    let find = |id: &str| rules.iter().find(|b| b["id"] == id).unwrap()["signals"].clone();
    let (a, c) = (find(&auth), find(&cache));
    assert_eq!(a["embeddingRank"], 1, "{d:#}");
    assert!(a.get("lexicalRank").is_none(), "{a:#}");
    assert_eq!(c["lexicalRank"], 1, "{c:#}");
    assert_eq!(c["embeddingRank"], 2, "{c:#}");
    // First in one ranking and second in the other beats first in one alone.
    assert_eq!(c["fusedRank"], 1, "{d:#}");
    assert_eq!(a["fusedRank"], 2, "{d:#}");
    let rrf = |r: f64| 1.0 / (60.0 + r);
    assert!(
        (c["rrf"].as_f64().unwrap() - (rrf(1.0) + rrf(2.0))).abs() < 1e-4,
        "{c:#}"
    );
    assert!(
        (a["rrf"].as_f64().unwrap() - rrf(1.0)).abs() < 1e-4,
        "{a:#}"
    );
    // The fused order hands out the relevance scale best first.
    assert!(c["relevance"].as_f64() >= a["relevance"].as_f64(), "{d:#}");
    assert_eq!(rules[0]["id"], cache.as_str(), "{d:#}");
}
