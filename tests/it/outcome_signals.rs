//! `cm outcome ... --duration --errors --retries --sentiment --text`: an outcome's implicit
//! signals become one weighted event per rule, through the queue (`outcome-apply`), and the
//! weight counts in every score; stores written before weights existed score as before.

use crate::harness::Env;
use serde_json::Value;

const T0: &str = "2026-03-01T00:00:00Z";

fn rule(env: &Env, text: &str) -> String {
    env.cm(&["add", text]).now(T0).json().run().ok().data()["bullet"]["id"]
        .as_str()
        .unwrap()
        .to_string()
}

fn get(env: &Env, id: &str, now: &str) -> Value {
    env.cm(&["playbook", "get", id])
        .json()
        .now(now)
        .run()
        .ok()
        .data()["bullet"]
        .clone()
}

fn score(env: &Env, id: &str, now: &str) -> f64 {
    get(env, id, now)["effectiveScore"].as_f64().unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 0.001
}

#[test]
fn a_fast_thankful_success_weighs_its_signals_through_the_queue() {
    let env = Env::new();
    let a = rule(&env, "Run the unit tests before the integration tests");
    let b = rule(&env, "Read the failing test's output before editing");
    let ids = format!("{a},{b}");
    let d = env
        .cm(&[
            "outcome",
            "success",
            &ids,
            "--duration",
            "240",
            "--text",
            "Perfect, thanks!",
        ])
        .now(T0)
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(d["sentiment"], "positive", "{d}");
    let recorded = d["recorded"].as_array().unwrap();
    assert_eq!(recorded.len(), 2);
    for r in recorded {
        assert_eq!(r["type"], "helpful");
        assert!(close(r["weight"].as_f64().unwrap(), 1.8), "{r}");
        assert_eq!(
            r["reasons"],
            serde_json::json!(["success", "fast", "sentiment+"])
        );
        // Recorded, not applied yet: the score is still the rule's own.
        assert_eq!(r["score"], 0.0);
    }
    assert_eq!(d["outcome"]["signals"]["durationSecs"], 240.0);
    assert_eq!(d["outcome"]["summary"], "Perfect, thanks!");

    let applied = env.cm(&["outcome-apply"]).now(T0).json().run().ok().data();
    assert_eq!(applied["count"], 1);
    assert_eq!(applied["applied"][0]["type"], "helpful");
    assert!(close(
        applied["applied"][0]["weight"].as_f64().unwrap(),
        1.8
    ));

    // One helpful event weighing 1.8: the score is 1.8 now and 0.9 a half-life later.
    assert!(close(score(&env, &a, T0), 1.8));
    assert!(close(score(&env, &b, "2026-05-30T00:00:00Z"), 0.9));
    let bullet = get(&env, &a, T0);
    assert_eq!(bullet["helpfulCount"], 1);
    let event = &bullet["feedbackEvents"][0];
    assert!(close(event["weight"].as_f64().unwrap(), 1.8), "{event}");
    assert_eq!(event["source"], "outcome");
    assert_eq!(
        event["reason"],
        "Perfect, thanks! (success, fast, sentiment+)"
    );

    // `why` and `stats --trace-decay` show the weight; `export` keeps it.
    let why = env.cm(&["why", &a]).now(T0).json().run().ok().data();
    assert!(close(
        why["feedbackHistory"][0]["weight"].as_f64().unwrap(),
        1.8
    ));
    let human = env.cm(&["why", &a]).now(T0).run().ok().stdout;
    assert!(human.contains("weight 1.80"), "{human}");
    let stats = env
        .cm(&["stats", "--trace-decay"])
        .now(T0)
        .json()
        .run()
        .ok()
        .data();
    let trace = stats["decayTrace"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == a.as_str())
        .unwrap();
    assert!(close(trace["events"][0]["weight"].as_f64().unwrap(), 1.8));
    assert!(close(
        trace["events"][0]["contribution"].as_f64().unwrap(),
        1.8
    ));
    let exported = env
        .cm(&["playbook", "export", "--format", "json"])
        .now(T0)
        .run()
        .ok()
        .stdout;
    assert!(exported.contains("\"weight\": 1.8"), "{exported}");
    let other = Env::new();
    other
        .cm(&["playbook", "import", "-"])
        .stdin(exported)
        .now(T0)
        .run()
        .ok();
    assert!(
        close(score(&other, &a, T0), 1.8),
        "the weight survives an import"
    );
}

#[test]
fn a_troubled_success_counts_against_its_rules_and_the_weight_is_clamped() {
    let env = Env::new();
    let a = rule(&env, "Always retry flaky network calls three times");
    let d = env
        .cm(&[
            "outcome",
            "success",
            &a,
            "--duration",
            "5400",
            "--errors",
            "3",
            "--retries",
            "--sentiment",
            "NEGATIVE",
        ])
        .now(T0)
        .json()
        .run()
        .ok()
        .data();
    let r = &d["recorded"][0];
    assert_eq!(r["type"], "harmful", "{d}");
    // 0.3 + 0.7 + 0.5 + 0.5 = 2.0 harmful against 1.0 helpful.
    assert!(close(r["weight"].as_f64().unwrap(), 2.0));
    assert_eq!(d["sentiment"], "negative");
    assert_eq!(d["outcome"]["signals"]["retries"], 1);
    env.cm(&["outcome-apply"]).now(T0).run().ok();
    // One harmful event weighing 2 under the harmful multiplier of 4.
    assert!(close(score(&env, &a, T0), -8.0));
    assert_eq!(get(&env, &a, T0)["harmfulCount"], 1);

    // A failure with every bad signal weighs 2.0 at most.
    let b = rule(&env, "Skip the linter on small changes");
    let d = env
        .cm(&[
            "outcome",
            "failure",
            &b,
            "--errors",
            "9",
            "--retries",
            "4",
            "--duration",
            "9000",
            "--text",
            "that's wrong, try again",
        ])
        .now(T0)
        .json()
        .run()
        .ok()
        .data();
    assert!(close(d["recorded"][0]["weight"].as_f64().unwrap(), 2.0));
    assert_eq!(d["sentiment"], "negative");
}

#[test]
fn a_mixed_outcome_with_signals_counts_and_without_them_does_not() {
    let env = Env::new();
    let a = rule(&env, "Keep migrations small");
    let b = rule(&env, "Name branches after the issue");
    env.cm(&["outcome", "mixed", &a]).now(T0).run().ok();
    env.cm(&["outcome", "partial", &b, "--retries", "0", "--text", "ok"])
        .now(T0)
        .run()
        .ok();
    env.cm(&["outcome-apply"]).now(T0).run().ok();
    // Plain mixed: recorded, changes no score.
    assert_eq!(get(&env, &a, T0)["feedbackEvents"], serde_json::json!([]));
    // With signals: 0.1 helpful against 0.1 harmful is a tie, helpful at the least weight.
    let bullet = get(&env, &b, T0);
    assert_eq!(bullet["helpfulCount"], 1);
    assert!(close(bullet["effectiveScore"].as_f64().unwrap(), 0.1));
}

#[test]
fn bad_signals_are_refused_and_nothing_is_recorded() {
    let env = Env::new();
    let a = rule(&env, "Pin the toolchain");
    for (args, word) in [
        (vec!["--duration", "-5"], "--duration"),
        (vec!["--errors", "-1"], "--errors"),
        (vec!["--retries", "-2"], "--retries"),
        (vec!["--sentiment", "happy"], "sentiment"),
        (vec!["--duration", "NaN"], "--duration"),
    ] {
        let mut all = vec!["outcome", "success", a.as_str()];
        all.extend(args.iter().copied());
        let out = env.cm(&all).json().run();
        let err = out.code(3).error_code("INVALID_ARGUMENT");
        assert!(
            err["message"].as_str().unwrap().contains(word),
            "{args:?}: {err}"
        );
        assert!(err["hint"].as_str().is_some_and(|h| !h.is_empty()));
    }
    let d = env.cm(&["outcome-apply"]).json().run().ok().data();
    assert_eq!(d["count"], 0, "nothing was queued: {d}");
}

#[test]
fn a_store_from_before_weights_scores_exactly_as_before() {
    let env = Env::new();
    let a = rule(&env, "Write the test first");
    env.cm(&["mark", &a, "--helpful"]).now(T0).run().ok();
    env.cm(&["mark", &a, "--helpful"])
        .now("2026-04-01T00:00:00Z")
        .run()
        .ok();
    env.cm(&["mark", &a, "--harmful"])
        .now("2026-05-01T00:00:00Z")
        .run()
        .ok();
    env.cm(&["outcome", "success", &a]).now(T0).run().ok();
    // The store as the release before weights wrote it: no weight column, no signals column,
    // schema version 10.
    let conn = rusqlite::Connection::open(env.db()).unwrap();
    conn.execute_batch(
        "ALTER TABLE feedback_events DROP COLUMN weight;
         ALTER TABLE outcomes DROP COLUMN signals;
         PRAGMA user_version = 10;",
    )
    .unwrap();
    drop(conn);
    let at = "2026-06-01T00:00:00Z";
    // Half-life 90 days: 1 at 92 days, 1 at 61 days, 4 x 1 at 31 days.
    let f = |days: f64| 0.5f64.powf(days / 90.0);
    let want = f(92.0) + f(61.0) - 4.0 * f(31.0);
    assert!(close(score(&env, &a, at), want), "{}", score(&env, &a, at));
    let conn = rusqlite::Connection::open(env.db()).unwrap();
    let weights: Vec<f64> = conn
        .prepare("SELECT weight FROM feedback_events")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(weights, vec![1.0, 1.0, 1.0], "migrated to the default");
    drop(conn);
    // The outcome queued before the upgrade applies as a plain one.
    env.cm(&["outcome-apply"]).now(at).run().ok();
    assert!(close(score(&env, &a, at), want + 1.0));
}
