//! Moving over from the original tool: its playbooks (feedback events without ids, deprecated
//! patterns, fields cm has no place for) import with every rule, event and date, report what
//! they could not keep, and a second import changes nothing.

use crate::harness::{Env, fixture_path};
use serde_json::Value;

const NOW: &str = "2025-11-21T12:00:00Z";

fn import(env: &Env, fixture: &str) -> crate::harness::Out {
    let path = fixture_path(fixture).display().to_string();
    env.cm(&["playbook", "import", &path])
        .json()
        .now(NOW)
        .run()
        .ok()
}

fn get(env: &Env, id: &str) -> Value {
    env.cm(&["playbook", "get", id])
        .json()
        .now(NOW)
        .run()
        .ok()
        .data()["bullet"]
        .clone()
}

fn fields(d: &Value) -> Vec<String> {
    d["unknownFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["field"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_minimal_playbook_imports_with_its_event_and_reports_what_it_drops() {
    let env = Env::new();
    let out = import(&env, "original/minimal.yaml");
    let d = out.data();
    assert_eq!(d["added"], 1, "{d}");
    let b = get(&env, "b-mg1a2b3c-x7k9p1");
    let events = b["feedbackEvents"].as_array().unwrap();
    assert_eq!(events.len(), 1, "{b}");
    assert_eq!(events[0]["timestamp"], "2025-10-02T09:30:00.000Z");
    assert!(events[0]["id"].as_str().unwrap().starts_with("fb-"));
    let f = fields(&d);
    for want in [
        "bullets[].confidenceDecayHalfLifeDays",
        "metadata.totalReflections",
    ] {
        assert!(f.contains(&want.to_string()), "{want} in {f:?}");
    }
    assert!(
        out.stderr
            .contains("not imported: bullets[].confidenceDecayHalfLifeDays in 1 entry"),
        "{}",
        out.stderr
    );
}

#[test]
fn the_complex_playbook_keeps_every_rule_event_date_and_deprecated_pattern() {
    let env = Env::new();
    let d = import(&env, "original/complex.yaml").data();
    assert_eq!(d["added"], 8, "six rules and two deprecated patterns: {d}");
    assert_eq!(d["deprecatedPatterns"], 2, "{d}");
    assert_eq!(d["skipped"].as_array().unwrap().len(), 0, "{d}");

    // Every event of the file, with its date, type, source and reason; two identical events
    // stay two.
    let text = std::fs::read_to_string(fixture_path("original/complex.yaml")).unwrap();
    let file: Value = serde_norway::from_str(&text).unwrap();
    let mut all_ids = Vec::new();
    for rule in file["bullets"].as_array().unwrap() {
        let b = get(&env, rule["id"].as_str().unwrap());
        let want = rule["feedbackEvents"].as_array().unwrap();
        let got = b["feedbackEvents"].as_array().unwrap();
        assert_eq!(got.len(), want.len(), "{}", rule["id"]);
        for (g, w) in got.iter().zip(want) {
            for key in ["type", "timestamp", "source", "reason", "sessionPath"] {
                if !w[key].is_null() {
                    assert_eq!(g[key], w[key], "{}: {key}", rule["id"]);
                }
            }
            all_ids.push(g["id"].as_str().unwrap().to_string());
        }
        assert_eq!(b["createdAt"], rule["createdAt"]);
        assert_eq!(b["kind"], rule["kind"]);
        assert_eq!(b["type"], rule["type"]);
    }
    let n = all_ids.len();
    all_ids.sort();
    all_ids.dedup();
    assert_eq!(all_ids.len(), n, "event ids are unique");
    assert_eq!(n, 24);

    let proven = get(&env, "b-mc0001-proven");
    assert_eq!(proven["maturity"], "proven", "{proven}");
    assert_eq!(proven["pinned"], true);
    assert!(
        proven["sourceSessions"]
            .as_array()
            .unwrap()
            .contains(&Value::from("/home/dev/.claude/projects/api/a0.jsonl"))
    );
    let draft = get(&env, "b-mc0003-candidate");
    assert_eq!(draft["state"], "draft");
    assert!(
        draft["sourceSessions"]
            .as_array()
            .unwrap()
            .contains(&Value::from("reflection-2025-11-15")),
        "sourceSession joins the list: {draft}"
    );
    assert_eq!(get(&env, "b-mc0004-deprecated")["deprecated"], true);
    assert_eq!(get(&env, "b-mc0006-negative")["isNegative"], true);

    // The deprecated patterns are deprecated rules: text, date, reason and replacement kept.
    let all = env.cm(&["ls", "--all"]).json().now(NOW).run().ok().data();
    let moment = all["bullets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["content"] == "Use moment.js for date arithmetic")
        .expect("the deprecated pattern is kept")
        .clone();
    let moment = get(&env, moment["id"].as_str().unwrap());
    assert_eq!(moment["deprecated"], true, "{moment}");
    assert_eq!(moment["createdAt"], "2025-08-14T12:00:00.000Z");
    assert_eq!(
        moment["deprecationReason"],
        "the project moved to date-fns (use instead: Use date-fns for date arithmetic)"
    );
    assert_eq!(moment["tags"], serde_json::json!(["deprecated-pattern"]));

    // What cm has no place for is named, with how many entries had it.
    let f = fields(&d);
    for want in [
        "bullets[].pinnedReason",
        "bullets[].lastValidatedAt",
        "bullets[].replacedBy",
        "bullets[].embedding",
        "bullets[].effectiveScore",
        "bullets[].feedbackEvents[].context",
        "bullets[].feedbackEvents[].decayedValue",
        "metadata.lastReflection",
    ] {
        assert!(f.contains(&want.to_string()), "{want} in {f:?}");
    }

    // A second import changes nothing.
    let again = import(&env, "original/complex.yaml").data();
    assert_eq!(again["added"], 0, "{again}");
    assert_eq!(again["skipped"].as_array().unwrap().len(), 8, "{again}");
    let b = get(&env, "b-mc0001-proven");
    assert_eq!(b["feedbackEvents"].as_array().unwrap().len(), 11);
}
